// The fast room's memory: freed blocks are kept, per thread, and handed to the next request.
//  - Blocks of 1 KiB or more are kept (up to 1 GiB in all) in size classes, four to each
//    doubling: a request is rounded up to its class's size (at most a quarter more), and any
//    kept block of the class serves it. Attention's large score matrices would otherwise come
//    fresh from the operating system each time, and page faults would cost as much as the
//    arithmetic. Classes, not exact sizes, because some loops shrink a batch at every step
//    (chapter 10 writes only the words still growing): exact sizes would never meet again,
//    and each step's blocks would be faulted in afresh. And glibc's malloc serves such sizes
//    from its "large bins": each request would first gather up every small chunk freed since
//    (its malloc_consolidate).
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
//  - Large ones (kRecycled bytes and more) by the size of their class (large_class).
//  - Small ones in classes of kClass bytes (a block is allocated at its class's full size, so
//    that any block of the class fits any request in it), at most kPerClass of each.
constexpr std::size_t kClass = 64, kClasses = kRecycled / kClass, kPerClass = 256;
// Set when the thread's cache has been destroyed: static tensors, destroyed after it at exit,
// then go straight to free (a plain bool, which outlives every destructor).
thread_local bool cache_gone = false;
struct BlockCache {
  std::map<std::size_t, std::vector<void*>> blocks;
  std::size_t bytes = 0;
  std::vector<void*> small[kClasses];
  ~BlockCache() {
    cache_gone = true;
    for (auto& entry : blocks)
      for (void* block : entry.second) std::free(block);
    for (auto& stack : small)
      for (void* block : stack) std::free(block);
  }
};

BlockCache& cache() {
  thread_local BlockCache c;
  return c;
}

std::size_t small_class(std::size_t bytes) { return bytes == 0 ? 0 : (bytes - 1) / kClass; }

// The size of the class of a request of `bytes` (kRecycled or more): the smallest of 2^e,
// 1.25·2^e, 1.5·2^e and 1.75·2^e that holds it, so at most a quarter more than asked.
std::size_t large_class(std::size_t bytes) {
  std::size_t quarter = kRecycled / 4;  // a quarter of the doubling that holds `bytes`
  while (quarter * 8 < bytes) quarter *= 2;
  return (bytes + quarter - 1) / quarter * quarter;
}

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
  const std::size_t size = large_class(bytes);
  auto& kept = c.blocks[size];
  if (kept.empty()) return fresh(size);
  void* block = kept.back();
  kept.pop_back();
  c.bytes -= size;
  return block;
}

void release(void* block, std::size_t bytes) {
  if (!kRecycling || cache_gone) return std::free(block);
  auto& c = cache();
  if (bytes < kRecycled) {
    auto& stack = c.small[small_class(bytes)];
    if (stack.size() < kPerClass) return stack.push_back(block);
  } else if (const std::size_t size = large_class(bytes); c.bytes + size <= kCacheLimit) {
    c.blocks[size].push_back(block);
    c.bytes += size;
    return;
  }
  std::free(block);
}

}  // namespace litgrad::kernels::fast
