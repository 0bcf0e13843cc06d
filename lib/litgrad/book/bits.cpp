#include "litgrad/book/bits.hpp"

#include <cstring>

#include "litgrad/base/error.hpp"

namespace litgrad::book {

std::int64_t differing_bits(const Tensor& a, const Tensor& b) {
  if (a.shape() != b.shape())
    throw ShapeError("differing_bits: the tensors' shapes ", a.shape(), " and ", b.shape(), " differ");
  std::int64_t differing = 0;
  for (std::int64_t i = 0; i < a.numel(); ++i)
    differing += std::memcmp(a.data() + i, b.data() + i, sizeof(double)) != 0;
  return differing;
}

}  // namespace litgrad::book
