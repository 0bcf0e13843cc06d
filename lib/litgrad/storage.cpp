// The recycling of blocks described in detail/storage.hpp.

#include <cstdlib>
#include <map>
#include <new>
#include <vector>

#include "litgrad/detail/storage.hpp"

namespace litgrad::detail {

namespace {

constexpr std::size_t kRecycled = 1024;  // bytes and more: what glibc serves from its large bins
constexpr std::size_t kCacheLimit = std::size_t{1} << 30;

// Freed blocks by size. Owned by the thread; emptied (blocks freed) when the thread ends.
struct BlockCache {
  std::multimap<std::size_t, void*> blocks;
  std::size_t bytes = 0;
  ~BlockCache() {
    for (auto& entry : blocks) std::free(entry.second);
  }
};

BlockCache& cache() {
  thread_local BlockCache c;
  return c;
}

}  // namespace

void* allocate_block(std::size_t bytes) {
  if (bytes >= kRecycled) {
    auto& c = cache();
    const auto it = c.blocks.find(bytes);
    if (it != c.blocks.end()) {
      void* block = it->second;
      c.blocks.erase(it);
      c.bytes -= bytes;
      return block;
    }
  }
  void* block = std::malloc(bytes == 0 ? 1 : bytes);
  if (!block) throw std::bad_alloc();
  return block;
}

void free_block(void* block, std::size_t bytes) {
  auto& c = cache();
  if (bytes >= kRecycled && c.bytes + bytes <= kCacheLimit) {
    c.blocks.emplace(bytes, block);
    c.bytes += bytes;
    return;
  }
  std::free(block);
}

}  // namespace litgrad::detail
