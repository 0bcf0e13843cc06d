// Exercise 6.1 · The heavy ball by hand: the reference solution.
#include <vector>

void heavy_ball_step(std::vector<double>& x, std::vector<double>& previous,
                     const std::vector<double>& gradient, double rate, double beta) {
  for (std::size_t i = 0; i < x.size(); ++i) {
    const double next = x[i] - rate * gradient[i] + beta * (x[i] - previous[i]);
    previous[i] = x[i];
    x[i] = next;
  }
}
