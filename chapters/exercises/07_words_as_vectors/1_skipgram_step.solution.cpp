// Exercise 7.1 · A skip-gram step by hand: the reference solution.
#include <algorithm>
#include <cmath>
#include <vector>

struct SkipGramModel {
  int V = 0, D = 0;
  std::vector<double> table;   // [V, D]: row c is word c's vector
  std::vector<double> weight;  // [V, D]: row o scores word o as a neighbour
  std::vector<double> bias;    // [V]
};

double skipgram_step(SkipGramModel& m, const std::vector<int>& centres,
                     const std::vector<int>& contexts, double lr) {
  const int V = m.V, D = m.D;
  const double n = static_cast<double>(centres.size());
  std::vector<double> d_table(V * D, 0), d_weight(V * D, 0), d_bias(V, 0);
  double loss = 0;
  for (std::size_t k = 0; k < centres.size(); ++k) {
    const int c = centres[k], target = contexts[k];
    const double* h = &m.table[c * D];  // the centre word's vector
    std::vector<double> score(V);
    for (int o = 0; o < V; ++o) {
      score[o] = m.bias[o];
      for (int j = 0; j < D; ++j) score[o] += h[j] * m.weight[o * D + j];
    }
    const double top = *std::max_element(score.begin(), score.end());
    double z = 0;
    for (double s : score) z += std::exp(s - top);
    loss += (std::log(z) + top - score[target]) / n;
    std::vector<double> row(D, 0);  // this pair's gradient for the centre's vector
    for (int o = 0; o < V; ++o) {
      const double g = (std::exp(score[o] - top) / z - (o == target)) / n;
      d_bias[o] += g;
      for (int j = 0; j < D; ++j) {
        d_weight[o * D + j] += g * h[j];
        row[j] += g * m.weight[o * D + j];
      }
    }
    for (int j = 0; j < D; ++j) d_table[c * D + j] += row[j];
  }
  for (int i = 0; i < V * D; ++i)
    m.table[i] -= lr * d_table[i], m.weight[i] -= lr * d_weight[i];
  for (int o = 0; o < V; ++o) m.bias[o] -= lr * d_bias[o];
  return loss;
}
