#pragma once
// Where tensors keep their elements. Only the library's own .cpp files include this.
//
// Freed blocks are recycled, per thread: a training loop allocates and frees the same sizes on
// every step.
//  - Blocks of 1 KiB or more are kept (up to 1 GiB in all) and handed to the next request of
//    the same size. Attention's large score matrices would otherwise come fresh from the
//    operating system each time, and page faults would cost as much as the arithmetic. And
//    glibc's malloc serves such sizes from its "large bins": each request would first gather
//    up every small chunk freed since (its malloc_consolidate).
//  - Smaller ones are kept in classes of 64 bytes, up to 256 per class (at most 4 MiB): a small
//    model's tensors, and through RecyclingAllocator the records that hold them (TensorImpl,
//    Storage, Node), outnumber what glibc's per-thread cache keeps.
// Recycling changes where numbers live, never what they are. Under AddressSanitizer it is off,
// so that the sanitizer sees every block's lifetime and size.

#include <cstddef>
#include <vector>

namespace litgrad::detail {

void* allocate_block(std::size_t bytes);
void free_block(void* block, std::size_t bytes);

template <class T>
struct RecyclingAllocator {
  using value_type = T;
  RecyclingAllocator() = default;
  template <class U>
  RecyclingAllocator(const RecyclingAllocator<U>&) {}
  T* allocate(std::size_t n) { return static_cast<T*>(allocate_block(n * sizeof(T))); }
  void deallocate(T* p, std::size_t n) { free_block(p, n * sizeof(T)); }
  // Storage(n) leaves its doubles uninitialised (for outputs every element of which is about to
  // be written); Storage(n, 0.0) fills them.
  template <class U>
  void construct(U* p) noexcept {
    ::new (static_cast<void*>(p)) U;
  }
  template <class U, class... Args>
  void construct(U* p, Args&&... args) {
    ::new (static_cast<void*>(p)) U(static_cast<Args&&>(args)...);
  }
  template <class U>
  bool operator==(const RecyclingAllocator<U>&) const { return true; }
  template <class U>
  bool operator!=(const RecyclingAllocator<U>&) const { return false; }
};

/// The elements, shared between a tensor and its detached or reshaped copies.
using Storage = std::vector<double, RecyclingAllocator<double>>;

}  // namespace litgrad::detail
