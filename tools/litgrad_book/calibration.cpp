// The budgets' yardstick: a fixed piece of work, timed, that tells the chapter runner how fast
// this machine is at the moment it runs a chapter (tools/litgrad_book/runner.py).
//
// A chapter's budget is seconds of one core of the machine the book is proved on. The same
// machine, running the same code, has taken from 17.6 s to 31.2 s for chapter 9, from one run
// to another, while chapter 8 took 3.6 s in each; the chapters that train spend
// most of their time in matrix products. When a chapter goes over its budget, the runner times
// this program three times, and lets the budget grow by the factor the machine is slower than
// its reference time, never shrink.
//
// The work is matrix products of doubles with Eigen, the library's fast room's engine (so a
// slower library is not mistaken for a slower machine: litgrad itself is not in it), at three
// sizes that span the chapters' (a small model's 24 × 24, a batch's 96, a GPT's 384, whose
// operands no longer fit a core's own cache), each size given the same count of
// multiply-adds, since a busy neighbour may slow one and not the others. It prints the
// processor seconds each size used, in that order, and a checksum that keeps the compiler from
// leaving the work out.

#include <sys/resource.h>

#include <Eigen/Dense>
#include <cstdio>

namespace {

double processor_seconds() {
  rusage u{};
  getrusage(RUSAGE_SELF, &u);
  return static_cast<double>(u.ru_utime.tv_sec + u.ru_stime.tv_sec) +
         static_cast<double>(u.ru_utime.tv_usec + u.ru_stime.tv_usec) * 1e-6;
}

// `repeats` products of two n × n matrices, each result fed back as the next left operand
// (scaled so that the numbers stay near one); returns the last result's sum.
double products(int n, long repeats) {
  Eigen::MatrixXd a = Eigen::MatrixXd::Constant(n, n, 1.0 / n), b(n, n), c(n, n);
  for (int i = 0; i < n; ++i)
    for (int j = 0; j < n; ++j) b(i, j) = (i == j) + 1e-3 * ((i * 7 + j * 13) % 11);
  for (long r = 0; r < repeats; ++r) {
    c.noalias() = a * b;
    a = c / c.norm() * n;
  }
  return c.sum();
}

}  // namespace

int main() {
  constexpr double kMultiplyAdds = 1.5e9;  // per size: about 0.2 s in all on the reference
  double checksum = 0;
  for (int n : {24, 96, 384}) {
    const double start = processor_seconds();
    checksum += products(n, static_cast<long>(kMultiplyAdds / (double(n) * n * n)));
    std::printf("%.6f ", processor_seconds() - start);
  }
  std::printf("%.17g\n", checksum);
  return 0;
}
