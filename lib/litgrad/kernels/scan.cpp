// The running sums of kernels/scan.hpp: one implementation, which both rooms use.

#include "litgrad/kernels/scan.hpp"

namespace litgrad::kernels {

void running_sum(const double* x, std::int64_t rows, std::int64_t n, double* y) {
  for (std::int64_t r = 0; r < rows; ++r) {
    double total = 0;
    for (std::int64_t j = 0; j < n; ++j) {
      total += x[r * n + j];
      y[r * n + j] = total;
    }
  }
}

}  // namespace litgrad::kernels
