// Exercise 6.1 · The heavy ball by hand. This is your file: write heavy_ball_step
// below, then run `tools/exercise check 06.1`.
#include <vector>

// One step x ← x - rate·gradient + beta·(x - previous); previous becomes the old x.
void heavy_ball_step(std::vector<double>& x, std::vector<double>& previous,
                     const std::vector<double>& gradient, double rate, double beta) {
  (void)x, (void)previous, (void)gradient, (void)rate, (void)beta;
  // your step here
}
