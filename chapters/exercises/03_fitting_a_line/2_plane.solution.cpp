// Exercise 3.2 · The best plane: the reference solution, by Gaussian elimination with
// partial pivoting on the 3 × 3 normal equations.
#include <cmath>
#include <utility>

#include <litgrad/litgrad.hpp>

using namespace litgrad;

struct Plane {
  double w1 = 0, w2 = 0, b = 0;
};

Plane best_plane(const Tensor& x1, const Tensor& x2, const Tensor& y) {
  const Tensor columns[3] = {ones_like(y), x1, x2};
  double m[3][4];  // [M | v]
  for (int i = 0; i < 3; ++i) {
    for (int j = 0; j < 3; ++j) m[i][j] = sum(columns[i] * columns[j]).item();
    m[i][3] = sum(columns[i] * y).item();
  }
  for (int k = 0; k < 3; ++k) {
    int pivot = k;
    for (int i = k + 1; i < 3; ++i)
      if (std::fabs(m[i][k]) > std::fabs(m[pivot][k])) pivot = i;
    for (int j = 0; j < 4; ++j) std::swap(m[k][j], m[pivot][j]);
    for (int i = k + 1; i < 3; ++i) {
      const double f = m[i][k] / m[k][k];
      for (int j = k; j < 4; ++j) m[i][j] -= f * m[k][j];
    }
  }
  double theta[3];
  for (int i = 2; i >= 0; --i) {
    double s = m[i][3];
    for (int j = i + 1; j < 3; ++j) s -= m[i][j] * theta[j];
    theta[i] = s / m[i][i];
  }
  return {theta[1], theta[2], theta[0]};
}
