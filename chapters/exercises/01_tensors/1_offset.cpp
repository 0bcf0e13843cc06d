// Exercise 1.1 · Where an element lives
// =====================================
//
// Write the row-major rule of section 1 for any number of dimensions: given a shape and
// a full index into it, return the position of that element in the tensor's row of
// numbers. For ``[m, n]`` and :math:`(i, j)` that is :math:`i \cdot n + j`; for
// ``[a, b, c]`` and :math:`(i, j, k)` it is :math:`(i \cdot b + j) \cdot c + k`. The
// tests compare your positions with where litgrad's own tensors keep their elements.

// %% hint
// Walk the dimensions from the first: start from 0, and for each dimension multiply
// what you have by that dimension's size and add the index in it. That is Horner's
// rule, the same one that reads the digits of a number.

// %% fold: includes
#include <doctest/doctest.h>

#include <string>

#include <exercise_checks.hpp>
#include <litgrad/litgrad.hpp>

using namespace litgrad;

// %%
// The function to write, in ``exercises/01_tensors/1_offset.cpp``:

std::int64_t offset(const Shape& shape, const std::vector<std::int64_t>& index);

// %% fold: the strides your offsets imply, in words
namespace {
// How far one step along each dimension of [3, 4] moves your offset (rows, columns),
// and the mistake those strides point to. Row-major [3, 4] has strides (4, 1).
std::string strides_of_yours() {
  const std::int64_t row = offset({3, 4}, {1, 0}) - offset({3, 4}, {0, 0});
  const std::int64_t column = offset({3, 4}, {0, 1}) - offset({3, 4}, {0, 0});
  std::string s = "for [3, 4] your offsets step by " + std::to_string(row) +
                  " a row and " + std::to_string(column) + " a column";
  if (row == 1 && column == 3)
    s += ": the first index varies fastest; this points to column-major order";
  else if (row == 3 && column == 4)
    s += ": each step is the size of its own dimension; this points to each index "
         "times its own size";
  else if (row == 12 && column == 4)
    s += ": each step is the size of all the dimensions from its own on; this points "
         "to strides one dimension too long";
  return s;
}
}  // namespace

// %%
// The tests.

TEST_CASE(
    "the offset of every element of [3, 4] and of [2, 3, 4] is where the tensor keeps "
    "it") {
  const std::string why = exercise::quietly(strides_of_yours);
  INFO(why);
  for (const Shape& shape : {Shape{3, 4}, Shape{2, 3, 4}}) {
    const Tensor x =
        reshape(arange(numel(shape)), shape);  // element k holds the number k
    std::vector<std::int64_t> index(shape.size(), 0);
    for (std::int64_t k = 0; k < x.numel(); ++k) {
      const std::int64_t yours = offset(shape, index);
      CHECK_MESSAGE(yours == static_cast<std::int64_t>(x.at(index)), "shape ",
                    to_string(shape), ", index ", Shape(index), ": element ", k);
      for (std::int64_t d = static_cast<std::int64_t>(shape.size()) - 1; d >= 0; --d) {
        if (++index[d] < shape[d]) break;
        index[d] = 0;
      }
    }
  }
}

TEST_CASE(
    "the last element of a 4-D tensor sits at numel - 1, and a 1-D index is itself") {
  const std::string why = exercise::quietly(strides_of_yours);
  INFO(why);
  const Shape shape{2, 5, 3, 7};
  CHECK(offset(shape, {1, 4, 2, 6}) == numel(shape) - 1);
  CHECK(offset(Shape{9}, {4}) == 4);
  CHECK(offset(shape, {1, 0, 0, 0}) == 5 * 3 * 7);
}
