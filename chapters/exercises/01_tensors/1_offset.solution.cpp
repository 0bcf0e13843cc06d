// Exercise 1.1 · Where an element lives: the reference solution.
#include <litgrad/litgrad.hpp>

using namespace litgrad;

std::int64_t offset(const Shape& shape, const std::vector<std::int64_t>& index) {
  std::int64_t position = 0;
  for (std::size_t d = 0; d < shape.size(); ++d)
    position = position * shape[d] + index[d];
  return position;
}
