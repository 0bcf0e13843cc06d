// Exercise 3.2 · The best plane. This is your file: write best_plane below, then run
// `tools/exercise check 03.2`.
#include <litgrad/litgrad.hpp>

using namespace litgrad;

struct Plane {
  double w1 = 0, w2 = 0, b = 0;
};

// The least-squares plane y ≈ w1 x1 + w2 x2 + b.
Plane best_plane(const Tensor& x1, const Tensor& x2, const Tensor& y) {
  // A first attempt: the line for each input on its own, ignoring the other (and that
  // the two inputs are correlated).
  const double n = static_cast<double>(y.numel());
  const double w1 = (sum(x1 * y).item() - sum(x1).item() * sum(y).item() / n) /
                    (sum(x1 * x1).item() - sum(x1).item() * sum(x1).item() / n);
  const double w2 = (sum(x2 * y).item() - sum(x2).item() * sum(y).item() / n) /
                    (sum(x2 * x2).item() - sum(x2).item() * sum(x2).item() / n);
  return {w1, w2, mean(y).item()};
}
