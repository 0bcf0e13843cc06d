// The fast room's memory: freed blocks are kept, per thread, and handed to the next request.
//  - Blocks of 1 KiB or more are kept (up to 1 GiB in all) and handed to the next request of
//    the same size. Attention's large score matrices would otherwise come fresh from the
//    operating system each time, and page faults would cost as much as the arithmetic. And
//    glibc's malloc serves such sizes from its "large bins": each request would first gather
//    up every small chunk freed since (its malloc_consolidate).
//  - Smaller ones are kept in classes of 64 bytes, up to 256 per class (at most 4 MiB): a small
//    model's tensors, and the records that hold them (TensorImpl, Storage, Node), outnumber
//    what glibc's per-thread cache keeps.
// Under AddressSanitizer nothing is recycled, so that the sanitizer sees every block's lifetime
// and size.

#include <cstdlib>
#include <map>
#include <new>
#include <vector>

#include "litgrad/kernels/memory.hpp"

namespace litgrad::kernels::fast {

namespace {

constexpr std::size_t kRecycled = 1024;  // bytes and more: what glibc serves from its large bins

// Under AddressSanitizer nothing is recycled, so that it sees when every block is freed (a
// recycled block read after its tensor is gone would look like a live one) and its exact size.
#if defined(__SANITIZE_ADDRESS__)
constexpr bool kRecycling = false;
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
constexpr bool kRecycling = false;
#else
constexpr bool kRecycling = true;
#endif
#else
constexpr bool kRecycling = true;
#endif
constexpr std::size_t kCacheLimit = std::size_t{1} << 30;

// Freed blocks. Owned by the thread; emptied (blocks freed) when the thread ends.
//  - Large ones (kRecycled bytes and more) by exact size.
//  - Small ones in classes of kClass bytes (a block is allocated at its class's full size, so
//    that any block of the class fits any request in it), at most kPerClass of each.
constexpr std::size_t kClass = 64, kClasses = kRecycled / kClass, kPerClass = 256;
// Set when the thread's cache has been destroyed: static tensors, destroyed after it at exit,
// then go straight to free (a plain bool, which outlives every destructor).
thread_local bool cache_gone = false;
struct BlockCache {
  std::multimap<std::size_t, void*> blocks;
  std::size_t bytes = 0;
  std::vector<void*> small[kClasses];
  ~BlockCache() {
    cache_gone = true;
    for (auto& entry : blocks) std::free(entry.second);
    for (auto& stack : small)
      for (void* block : stack) std::free(block);
  }
};

BlockCache& cache() {
  thread_local BlockCache c;
  return c;
}

std::size_t small_class(std::size_t bytes) { return bytes == 0 ? 0 : (bytes - 1) / kClass; }

void* fresh(std::size_t bytes) {
  void* block = std::malloc(bytes == 0 ? 1 : bytes);
  if (!block) throw std::bad_alloc();
  return block;
}

}  // namespace

void* allocate(std::size_t bytes) {
  if (!kRecycling || cache_gone) return fresh(bytes);
  auto& c = cache();
  if (bytes < kRecycled) {
    const std::size_t k = small_class(bytes);
    auto& stack = c.small[k];
    if (stack.empty()) return fresh((k + 1) * kClass);
    void* block = stack.back();
    stack.pop_back();
    return block;
  }
  const auto it = c.blocks.find(bytes);
  if (it == c.blocks.end()) return fresh(bytes);
  void* block = it->second;
  c.blocks.erase(it);
  c.bytes -= bytes;
  return block;
}

void release(void* block, std::size_t bytes) {
  if (!kRecycling || cache_gone) return std::free(block);
  auto& c = cache();
  if (bytes < kRecycled) {
    auto& stack = c.small[small_class(bytes)];
    if (stack.size() < kPerClass) return stack.push_back(block);
  } else if (c.bytes + bytes <= kCacheLimit) {
    c.blocks.emplace(bytes, block);
    c.bytes += bytes;
    return;
  }
  std::free(block);
}

}  // namespace litgrad::kernels::fast
