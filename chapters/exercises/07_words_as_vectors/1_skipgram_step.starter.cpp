// Exercise 7.1 · A skip-gram step by hand. This is your file: write skipgram_step
// below, then run `tools/exercise check 07.1`.
#include <algorithm>
#include <cmath>
#include <vector>

struct SkipGramModel {
  int V = 0, D = 0;
  std::vector<double> table;   // [V, D]: row c is word c's vector
  std::vector<double> weight;  // [V, D]: row o scores word o as a neighbour
  std::vector<double> bias;    // [V]
};

// One step of gradient descent on the mean, over the pairs, of -log softmax(scores)[o]
// with scores = weight · table[c] + bias; returns the loss before the step.
double skipgram_step(SkipGramModel& m, const std::vector<int>& centres,
                     const std::vector<int>& contexts, double lr) {
  (void)lr;
  const int V = m.V, D = m.D;
  double loss = 0;
  for (std::size_t k = 0; k < centres.size(); ++k) {
    double score = m.bias[contexts[k]];  // a first attempt: the neighbour's own score
    for (int j = 0; j < D; ++j)
      score += m.table[centres[k] * D + j] * m.weight[contexts[k] * D + j];
    loss -= score / centres.size();
  }
  (void)V;
  return loss;  // no softmax yet, and no step
}
