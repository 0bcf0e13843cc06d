// Exercise 8.3 · The largest mask that leaks nothing: the reference solution.
#include <cmath>

#include <litgrad/litgrad.hpp>

using namespace litgrad;

double largest_silent_mask() {
  const auto leaks = [](double m) {
    return softmax(tensor({0.0, m}), 0).at({1}) > 0.0;
  };
  double silent = -800, leaking = -700;  // silent < leaking; the answer is in between
  while (std::nextafter(silent, 0.0) < leaking) {
    const double middle = silent + (leaking - silent) / 2;
    if (middle <= silent || middle >= leaking) break;  // no double between the two
    (leaks(middle) ? leaking : silent) = middle;
  }
  return silent;  // the next double up, `leaking`, is the first that leaks
}
