// Exercise 1.1 · Where an element lives
// =====================================
//
// Write the row-major rule of section 1 for any number of dimensions: given a shape and
// a full index into it, return the position of that element in the tensor's row of
// numbers. For ``[m, n]`` and :math:`(i, j)` that is :math:`i \cdot n + j`; for
// ``[a, b, c]`` and :math:`(i, j, k)` it is :math:`(i \cdot b + j) \cdot c + k`. The
// tests compare your positions with where litgrad's own tensors keep their elements.

// %% hint
// How many numbers lie between element :math:`(i, 0, 0)` and element
// :math:`(i + 1, 0, 0)` of ``[a, b, c]``? Each index counts blocks whose size is made
// of the dimensions to its right, and the last index counts single numbers.

// %% fold: includes
#include <doctest/doctest.h>

#include <litgrad/litgrad.hpp>

using namespace litgrad;

// %%
// The function to write, in ``exercises/01_tensors/1_offset.cpp``:

std::int64_t offset(const Shape& shape, const std::vector<std::int64_t>& index);

// %%
// The tests.

TEST_CASE(
    "a step along the last dimension moves one number, and a step along the first "
    "skips the product of the sizes after it") {
  const Shape shape{2, 5, 3, 7};
  CHECK_MESSAGE(offset(shape, {0, 0, 0, 0}) == 0, "the first element is number 0");
  CHECK_MESSAGE(offset(shape, {0, 0, 0, 1}) == 1,
                "the last index counts single numbers: more points to "
                "column-major order: the dimensions walked from the last, or to "
                "each index times its own dimension's size");
  CHECK_MESSAGE(offset(shape, {0, 0, 1, 0}) == 7,
                "a step along the third dimension skips one block of the last "
                "dimension's 7 numbers: 1 points to the indices added up");
  CHECK_MESSAGE(offset(shape, {1, 0, 0, 0}) == 5 * 3 * 7,
                "a step along the first dimension skips 5·3·7 = 105 numbers, the sizes "
                "of the dimensions after it: the indices added up, or each index "
                "times its own dimension's size, give another number");
  CHECK_MESSAGE(offset(shape, {1, 4, 2, 6}) == numel(shape) - 1,
                "the last element sits at numel - 1");
}

TEST_CASE(
    "the offset of every element of [3, 4] and of [2, 3, 4] is where the tensor keeps "
    "it") {
  for (const Shape& shape : {Shape{3, 4}, Shape{2, 3, 4}}) {
    const Tensor x = reshape(arange(numel(shape)), shape);  // element k holds k
    std::vector<std::int64_t> index(shape.size(), 0);
    for (std::int64_t k = 0; k < x.numel(); ++k) {
      INFO("shape ", to_string(shape), ", element ", k,
           ": the tensor keeps it at position ",
           static_cast<std::int64_t>(x.at(index)));
      CHECK(offset(shape, index) == static_cast<std::int64_t>(x.at(index)));
      for (std::int64_t d = static_cast<std::int64_t>(shape.size()) - 1; d >= 0; --d) {
        if (++index[d] < shape[d]) break;
        index[d] = 0;
      }
    }
  }
}
