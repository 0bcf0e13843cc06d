// Exercise 7.1 · Cosine similarity: the reference solution.
#include <litgrad/litgrad.hpp>

using namespace litgrad;

double cosine(const Tensor& a, const Tensor& b) {
  return sum(a * b).item() / (norm(a).item() * norm(b).item());
}
