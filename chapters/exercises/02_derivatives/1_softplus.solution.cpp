// Exercise 2.1 · The derivative of softplus: the reference solution. The chain rule
// gives e^x / (1 + e^x) = 1 / (1 + e^-x), the sigmoid, which forms no huge number for
// large x.
#include <cmath>

double softplus_derivative(double x) { return 1 / (1 + std::exp(-x)); }
