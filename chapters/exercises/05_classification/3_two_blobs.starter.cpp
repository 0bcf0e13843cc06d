// Exercise 5.3 · The Bayes rate of two blobs. This is your file: write
// two_blob_bayes_rate below, then run `tools/exercise check 05.3`.
#include <cmath>

// The best accuracy for two unit-variance normal blobs whose centres are `distance`
// apart, in equal numbers.
double two_blob_bayes_rate(double distance) {
  (void)distance;
  return 0.5;  // right for blobs on top of each other, and only for those
}
