// Exercise 1.1 · Where an element lives. This is your file: write offset below, then
// run `tools/exercise check 01.1`. `tools/exercise hint 01.1` prints a hint.
#include <litgrad/litgrad.hpp>

using namespace litgrad;

// The position of the element at `index` in the row of numbers of a tensor of `shape`.
std::int64_t offset(const Shape& shape, const std::vector<std::int64_t>& index) {
  // A first guess: add the indices up. Right for the first element, and in 1-D...
  std::int64_t position = 0;
  for (std::size_t d = 0; d < shape.size(); ++d) position += index[d];
  return position;
}
