#pragma once
// Where tensors keep their elements, and the records that hold them: blocks of memory from the
// kernels, in one of two rooms (kernels/room.hpp).
//  - plain (kernels/plain/memory.cpp): every block from malloc, back to free.
//  - fast (kernels/fast/memory.cpp): freed blocks are kept and handed to the next request of
//    the same size, since a training loop allocates and frees the same sizes on every step.
// Which block holds a number changes where it lives, never what it is.
// Only the library's own .cpp files include this.

#include <cstddef>
#include <memory>
#include <utility>

#include "litgrad/kernels/room.hpp"

namespace litgrad::kernels {

namespace plain {
void* allocate(std::size_t bytes);
void release(void* block, std::size_t bytes);
}  // namespace plain

namespace fast {
void* allocate(std::size_t bytes);
void release(void* block, std::size_t bytes);
}  // namespace fast

/// A block of at least `bytes` bytes, suitably aligned for doubles.
inline void* allocate(std::size_t bytes) { return room::allocate(bytes); }
/// Gives back a block from allocate(), with the size it was asked for.
inline void release(void* block, std::size_t bytes) { room::release(block, bytes); }

/// A standard allocator over allocate() and release(), for containers and shared records.
template <class T>
struct Allocator {
  using value_type = T;
  Allocator() = default;
  template <class U>
  Allocator(const Allocator<U>&) {}
  T* allocate(std::size_t n) { return static_cast<T*>(kernels::allocate(n * sizeof(T))); }
  void deallocate(T* p, std::size_t n) { kernels::release(p, n * sizeof(T)); }
  // Storage(n) leaves its doubles uninitialised (for outputs every element of which is about to
  // be written); Storage(n, 0.0) fills them.
  template <class U>
  void construct(U* p) noexcept {
    ::new (static_cast<void*>(p)) U;
  }
  template <class U, class... Args>
  void construct(U* p, Args&&... args) {
    ::new (static_cast<void*>(p)) U(std::forward<Args>(args)...);
  }
  template <class U>
  bool operator==(const Allocator<U>&) const {
    return true;
  }
  template <class U>
  bool operator!=(const Allocator<U>&) const {
    return false;
  }
};

/// std::make_shared for the library's records (tensors, storages, graph nodes), from the
/// kernels' blocks.
template <class T, class... Args>
std::shared_ptr<T> make_shared(Args&&... args) {
  return std::allocate_shared<T>(Allocator<T>(), std::forward<Args>(args)...);
}

}  // namespace litgrad::kernels
