// Exercise 9.3 · An induction circuit, by hand: the reference solution.
#include <cstdint>

#include <litgrad/litgrad.hpp>

using namespace litgrad;

namespace {
// The stream's layout, as the tests build it: 60 features per position.
constexpr std::int64_t kVocab = 16, kLength = 12, kWidth = 60;
constexpr std::int64_t kToken = 0, kPosition = 16, kPrevious = 28, kAnswer = 44;
// A score gap of 100/√60 ≈ 13 leaves the losing positions e^-13 of the weight each.
constexpr double kSharp = 100;

// Sets element [row, column] of a matrix.
void put(Tensor& m, std::int64_t row, std::int64_t column, double value) {
  m.data()[row * m.size(1) + column] = value;
}
}  // namespace

// in_proj_weight [180, 60]: rows 0-59 make the query, 60-119 the key, 120-179 the
// value.
void set_induction_circuit(nn::MultiheadAttention& layer1,
                           nn::MultiheadAttention& layer2) {
  // Layer 1, the previous-token head: position t asks for position t - 1, and copies
  // that position's token into its own previous-token slot.
  for (std::int64_t t = 0; t < kLength; ++t)  // query of t: "I am at t"
    put(layer1.in_proj_weight, kPosition + t, kPosition + t, kSharp);
  for (std::int64_t s = 0; s + 1 < kLength; ++s)  // key of s: "I am just before s + 1"
    put(layer1.in_proj_weight, kWidth + kPosition + s + 1, kPosition + s, 1.0);
  for (std::int64_t i = 0; i < kVocab; ++i) {
    put(layer1.in_proj_weight, 2 * kWidth + i, kToken + i, 1.0);  // value: the token
    put(layer1.out_proj.weight, kPrevious + i, i, 1.0);  // into the previous-token slot
  }
  // Layer 2, the induction head: the current token looks for itself among the
  // previous-token slots, and copies the token of the position that holds it.
  for (std::int64_t i = 0; i < kVocab; ++i) {
    put(layer2.in_proj_weight, i, kToken + i, kSharp);            // query: my token
    put(layer2.in_proj_weight, kWidth + i, kPrevious + i, 1.0);   // key: token before
    put(layer2.in_proj_weight, 2 * kWidth + i, kToken + i, 1.0);  // value: my token
    put(layer2.out_proj.weight, kAnswer + i, i, 1.0);  // into the answer slot
  }
}
