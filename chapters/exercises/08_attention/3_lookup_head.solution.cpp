// Exercise 8.3 · A head that looks things up, by hand: the reference solution.
#include <cmath>

#include <litgrad/litgrad.hpp>

using namespace litgrad;

struct HeadWeights {
  Tensor W_q, W_k, W_v, W_o;
  Tensor b_q, b_k, b_v, b_o;
};

HeadWeights lookup_head() {
  const std::int64_t E = 13, colours = 6, value = 12;
  // A match scores scale² / √13 = 20 and any other pair 0, so the token asked for gets
  // e^20 / (e^20 + 5) of the weight: all but 1e-8 of it.
  const double scale = std::sqrt(20 * std::sqrt(13.0));
  Tensor W_q = zeros({E, E}), W_k = zeros({E, E}), W_v = zeros({E, E});
  for (std::int64_t c = 0; c < colours; ++c) {
    W_q.data()[(colours + c) * E + c] = scale;  // wanting colour c -> query feature c
    W_k.data()[c * E + c] = scale;              // being colour c -> key feature c
  }
  W_v.data()[value * E + value] = 1.0;  // the value rides in feature 12
  return {W_q, W_k, W_v, eye(E), zeros({E}), zeros({E}), zeros({E}), zeros({E})};
}
