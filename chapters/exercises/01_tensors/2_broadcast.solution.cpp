// Exercise 1.2 · Broadcast two shapes: the reference solution.
#include <algorithm>

#include <litgrad/litgrad.hpp>

using namespace litgrad;

Shape broadcast(const Shape& a, const Shape& b) {
  const std::size_t n = std::max(a.size(), b.size());
  Shape out(n, 1);
  for (std::size_t i = 0; i < n; ++i) {  // i counts from the right
    const std::int64_t x = i < a.size() ? a[a.size() - 1 - i] : 1;
    const std::int64_t y = i < b.size() ? b[b.size() - 1 - i] : 1;
    if (x != y && x != 1 && y != 1)
      throw ShapeError("broadcast: " + to_string(a) + " and " + to_string(b) +
                       " do not fit");
    out[n - 1 - i] = x == 1 ? y : x;
  }
  return out;
}
