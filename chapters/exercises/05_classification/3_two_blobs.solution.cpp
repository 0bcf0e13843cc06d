// Exercise 5.3 · The Bayes rate of two blobs: the reference solution.
#include <cmath>

// A point is right when its noise along the line of centres is below d/2: Φ(d/2).
double two_blob_bayes_rate(double distance) {
  return std::erfc(-distance / 2 / std::sqrt(2.0)) / 2;
}
