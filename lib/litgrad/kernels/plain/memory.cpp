// The plain room's memory: every block from malloc, back to free.

#include <cstdlib>
#include <new>

#include "litgrad/kernels/memory.hpp"

namespace litgrad::kernels::plain {

void* allocate(std::size_t bytes) {
  void* block = std::malloc(bytes == 0 ? 1 : bytes);
  if (!block) throw std::bad_alloc();
  return block;
}

void release(void* block, std::size_t) { std::free(block); }

}  // namespace litgrad::kernels::plain
