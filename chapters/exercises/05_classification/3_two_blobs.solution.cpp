// Exercise 5.3 · The Bayes rate of two blobs: the reference solution.
#include <algorithm>
#include <cmath>

// Class 0 is more probable at x when π φ(x) > (1 - π) φ(x - d); the squares cancel and
// this is x < t = d/2 + ln(π / (1 - π)) / d. Class 0 is right below t, class 1 above:
// π Φ(t) + (1 - π) Φ(d - t). With d = 0 the rule always says the more common class.
double two_blob_bayes_rate(double distance, double prior) {
  if (distance == 0) return std::max(prior, 1 - prior);
  const auto phi = [](double t) { return std::erfc(-t / std::sqrt(2.0)) / 2; };
  const double t = distance / 2 + std::log(prior / (1 - prior)) / distance;
  return prior * phi(t) + (1 - prior) * phi(distance - t);
}
