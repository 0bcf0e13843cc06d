// Shape keeps up to six sizes inside itself and longer ones on the heap; both must behave as the
// std::vector<std::int64_t> it replaced.

#include <doctest/doctest.h>

#include <utility>
#include <vector>

#include <litgrad/litgrad.hpp>

using namespace litgrad;

TEST_CASE("a Shape does what a std::vector of sizes does, through every edit, short or past six dimensions") {
  // The same random edits to a Shape and to a std::vector, compared after each one; lengths
  // wander across the six sizes kept inside, so copies and moves go both ways between the two
  // storages.
  Generator gen(6);
  Shape shape;
  std::vector<std::int64_t> expected;
  int longest = 0;
  for (int step = 0; step < 4000; ++step) {
    const std::int64_t size = gen.randint(0, 100);
    const std::size_t n = expected.size();
    switch (gen.randint(0, 8)) {
      case 0:
      case 1: shape.push_back(size), expected.push_back(size); break;
      case 2:
        if (n) shape.pop_back(), expected.pop_back();
        break;
      case 3: {
        const std::size_t at = static_cast<std::size_t>(gen.randint(0, static_cast<std::int64_t>(n) + 1));
        CHECK(*shape.insert(shape.begin() + at, size) == size);
        expected.insert(expected.begin() + static_cast<std::ptrdiff_t>(at), size);
        break;
      }
      case 4:
        if (n) {
          const std::size_t at = static_cast<std::size_t>(gen.randint(0, static_cast<std::int64_t>(n)));
          shape.erase(shape.begin() + at);
          expected.erase(expected.begin() + static_cast<std::ptrdiff_t>(at));
        }
        break;
      case 5: {  // a copy, then moved back
        Shape copy = shape;
        CHECK(copy == shape);
        shape = Shape();
        shape = std::move(copy);
        break;
      }
      case 6: {  // through std::vector and back, and an insert of a range of itself
        shape = Shape(std::vector<std::int64_t>(shape));
        if (n < 10) {
          shape.insert(shape.end(), shape.begin(), shape.end());
          expected.insert(expected.end(), expected.begin(), expected.end());
        }
        break;
      }
      default: {
        const std::size_t count = static_cast<std::size_t>(gen.randint(0, 12));
        shape.resize(count, size), expected.resize(count, size);
      }
    }
    longest = std::max(longest, static_cast<int>(expected.size()));
    REQUIRE(std::vector<std::int64_t>(shape) == expected);
    REQUIRE(shape.size() == expected.size());
  }
  CHECK(longest > 6);
}

TEST_CASE("tensors of more than six dimensions reshape, broadcast, permute and differentiate like short ones") {
  const Shape eight = {1, 2, 1, 2, 1, 2, 1, 2};
  Tensor x = arange(16.0).requires_grad_();
  const Tensor y = reshape(x, eight);
  CHECK(y.shape() == eight);
  const Tensor z = permute(y * arange(2.0), {7, 6, 5, 4, 3, 2, 1, 0});  // w = [0, 1] along the last dimension
  CHECK(z.shape() == Shape{2, 1, 2, 1, 2, 1, 2, 1});
  CHECK(z.at({1, 0, 1, 0, 1, 0, 1, 0}) == 15.0);
  sum(z).backward();
  // d/dx of sum(x * w) is w, read along x's last dimension: 0, 1, 0, 1, ...
  const Tensor g = x.grad();
  for (std::int64_t i = 0; i < 16; ++i) CHECK(g.data()[i] == static_cast<double>(i % 2));
}
