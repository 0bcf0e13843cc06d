// Exercise 7.1 · Cosine similarity. This is your file: write cosine below, then run
// `tools/exercise check 07.1`.
#include <litgrad/litgrad.hpp>

using namespace litgrad;

// a · b / (|a| |b|) for two vectors of shape [D].
double cosine(const Tensor& a, const Tensor& b) {
  return sum(a * b).item();  // the dot product, which still grows with the lengths
}
