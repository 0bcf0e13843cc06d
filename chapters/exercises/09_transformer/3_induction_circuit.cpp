// Exercise 9.3 · An induction circuit, by hand
// ============================================
//
// Section 5 trained two attention layers on the induction task and found the circuit
// that solves it: layer 1 copies into each position the token just before it, and layer
// 2 lets the last token find the position whose *previous* token is its own, and read
// the token there. Here you set that circuit's weights yourself, in two
// :cpp:class:`litgrad::nn::MultiheadAttention` layers of one head each.
//
// The tests build the residual stream so that every part has a place of its own: 60
// features per position, the token one-hot in features 0–15, the position one-hot in
// 16–27, and two empty slots, 28–43 for the previous token (layer 1 writes there) and
// 44–59 for the answer (layer 2 writes there). Each layer adds its output to the stream
// (:math:`x \leftarrow x + \mathrm{Attn}(x)`), with the causal mask. The read-out,
// given, scores each token by the last position's answer slot minus its token slot,
// since the current token is never the answer. Every weight and bias is 0 when your
// function is called; set the entries of each layer's ``in_proj_weight`` (queries, keys
// and values, stacked) and ``out_proj.weight`` so that the layers do the following.
// Both multiply as torch's do, a matrix times a column: position :math:`t`'s query is
// :math:`W_q x_t + b_q`, so entry ``[i, j]`` of ``in_proj_weight`` carries feature
// :math:`j` of the stream into query feature :math:`i` (rows 0–59 the query, 60–119 the
// key, 120–179 the value), and entry ``[i, j]`` of ``out_proj.weight`` carries value
// feature :math:`j` into stream feature :math:`i`. (Exercise 8.3 wrote its matrices
// the other way round, a row times a matrix, :math:`x W`.) Set them so that
//
// * layer 1 puts more than 0.99 of each position's weight on the position before it,
// * layer 2 puts more than 0.99 of the last position's weight on the position right
//   after the earlier copy of the last token, and
// * the model answers every one of 4,096 sequences of the chapter's task right.

// %% hint
// A query and a key match when they point the same way. In layer 1, let position
// :math:`t`'s query say where it is and each key say which position it precedes; in
// layer 2, let the query be the current token and each key the token layer 1 brought
// in. The softmax divides the scores by :math:`\sqrt{60}` before it picks: a match
// must win by far more than that.

// %% fold: includes, the task and the model the tests build
#include <doctest/doctest.h>

#include <cmath>
#include <cstdint>
#include <string>
#include <vector>

#include <litgrad/litgrad.hpp>

using namespace litgrad;

namespace {
constexpr std::int64_t kVocab = 16, kLength = 12, kWidth = 60;
constexpr std::int64_t kPositionSlot = 16, kAnswerSlot = 44;
constexpr int kTest = 4096;

// Sequences built as chapter 9 builds them: 11 distinct tokens of 16, and a last token
// that repeats one of the first ten; the answer is the token after that copy.
struct Induction {
  std::vector<std::int64_t> tokens;  // [n * 12]
  std::vector<std::int64_t> answers, copy_at;
};

Induction induction_batch(std::int64_t n, Generator& gen) {
  Induction b;
  for (std::int64_t i = 0; i < n; ++i) {
    const Tensor order = randperm(kVocab, gen);
    std::vector<std::int64_t> row;
    for (std::int64_t t = 0; t + 1 < kLength; ++t)
      row.push_back(std::llround(order.at({t})));
    const std::int64_t c = gen.randint(0, kLength - 2);
    row.push_back(row[c]);
    b.tokens.insert(b.tokens.end(), row.begin(), row.end());
    b.answers.push_back(row[c + 1]), b.copy_at.push_back(c);
  }
  return b;
}

nn::MultiheadAttentionOptions one_head() {
  nn::MultiheadAttentionOptions o;
  o.batch_first = true;
  return o;
}
}  // namespace

// %%
// The function to write, in ``exercises/09_transformer/3_induction_circuit.cpp``:

void set_induction_circuit(nn::MultiheadAttention& layer1,
                           nn::MultiheadAttention& layer2);

// %% fold: running the circuit, and what its attention points to
namespace {
struct Run {
  int right = 0;
  double smallest_previous = 1;  // layer 1: least weight of a position t ≥ 1 on t - 1
  double smallest_successor = 1;  // layer 2: least weight of the last token on c + 1
  int previous_wins = 0, self_wins = 0;   // where layer 1's largest weight is, t ≥ 1
  int successor_wins = 0, copy_wins = 0;  // where layer 2's is, for copies c ≥ 1
  double largest_layer2 = 0;              // layer 2's largest weight, on average
  int checked_positions = 0, checked_copies = 0;
};

Run run_circuit(const Induction& test) {
  Generator gen(0);
  nn::MultiheadAttention layer1(kWidth, 1, one_head(), gen),
      layer2(kWidth, 1, one_head(), gen);
  NoGradGuard no_grad;
  for (nn::MultiheadAttention* layer : {&layer1, &layer2})
    for (Tensor p : layer->parameters()) p.copy_(zeros(p.shape()));
  set_induction_circuit(layer1, layer2);
  const auto n = static_cast<std::int64_t>(test.answers.size());
  std::vector<double> stream(n * kLength * kWidth, 0.0);
  for (std::int64_t i = 0; i < n; ++i)
    for (std::int64_t t = 0; t < kLength; ++t) {
      double* x = stream.data() + (i * kLength + t) * kWidth;
      x[test.tokens[i * kLength + t]] = 1, x[kPositionSlot + t] = 1;
    }
  Tensor x = tensor(stream, {n, kLength, kWidth});
  const Tensor mask = generate_square_subsequent_mask(kLength);
  const auto a1 = layer1(x, x, x, Tensor(), true, mask, true, true);
  x = x + a1.output;
  const auto a2 = layer2(x, x, x, Tensor(), true, mask, true, true);
  x = x + a2.output;
  const Tensor last = select(x, 1, kLength - 1);  // [n, 60]
  const Tensor scores =
      slice(last, 1, kAnswerSlot, kAnswerSlot + kVocab) - slice(last, 1, 0, kVocab);
  const Tensor predicted = argmax(scores, 1);
  Run run;
  for (std::int64_t i = 0; i < n; ++i) {
    run.right += std::llround(predicted.at({i})) == test.answers[i];
    for (std::int64_t t = 1; t < kLength; ++t) {
      const Tensor row = select(select(a1.weights, 0, i), 0, t);
      const auto top = std::llround(argmax(row, 0).item());
      run.smallest_previous = std::min(run.smallest_previous, row.at({t - 1}));
      run.previous_wins += top == t - 1, run.self_wins += top == t;
      ++run.checked_positions;
    }
    const Tensor row = select(select(a2.weights, 0, i), 0, kLength - 1);
    run.largest_layer2 += max(row).item() / double(n);
    const std::int64_t c = test.copy_at[i];
    if (c == 0) continue;  // position 0 saw no token before it: two positions match
    const auto top = std::llround(argmax(row, 0).item());
    run.smallest_successor = std::min(run.smallest_successor, row.at({c + 1}));
    run.successor_wins += top == c + 1, run.copy_wins += top == c;
    ++run.checked_copies;
  }
  return run;
}

const Run& the_run() {
  static const Run run = [] {
    Generator gen(2026);
    return run_circuit(induction_batch(kTest, gen));
  }();
  return run;
}

// What the attention patterns point to, for the messages of the tests.
std::string circuit_problem(const Run& r) {
  if (r.self_wins > r.checked_positions / 2)
    return "layer 1 puts most of each position's weight on the position itself: its "
           "keys say where a position is, not which position it comes before; this "
           "points to layer 1 matching each position with itself";
  if (r.previous_wins < r.checked_positions / 2) return "";  // no pattern to read yet
  if (r.previous_wins == r.checked_positions && r.smallest_previous <= 0.99)
    return "layer 1 favours the position before, but not by enough: the softmax "
           "divides the scores by √60 first; this points to scores too weak to pick "
           "one position";
  if (r.copy_wins > r.checked_copies / 2)
    return "layer 2 finds the earlier copy of the last token itself, not the position "
           "after it: this points to layer 2's keys reading the token, not the token "
           "before";
  if (r.largest_layer2 < 0.5)
    return "layer 2 spreads its weight: its query finds no key that matches; what is "
           "in the slot its keys read when layer 2 runs? This points to layer 1 "
           "writing outside the previous-token slot";
  if (r.successor_wins == r.checked_copies && r.smallest_successor <= 0.99)
    return "layer 2 favours the copy's successor, but not by enough: this points to "
           "scores too weak to pick one position";
  if (r.successor_wins == r.checked_copies && r.right < kTest)
    return "both layers look where they should, yet the answer is wrong: what does "
           "layer 2 carry from the position it finds? This points to layer 2 reading "
           "the previous token as its value";
  return "";
}
}  // namespace

// %%
// The tests.

TEST_CASE(
    "layer 1 puts more than 0.99 of each position's weight on the one before it") {
  const Run& r = the_run();
  INFO(circuit_problem(r));
  CHECK_MESSAGE(
      r.smallest_previous > 0.99,
      "the least weight of a position on the one before it is " << r.smallest_previous);
}

TEST_CASE(
    "layer 2 puts more than 0.99 of the last token's weight on the earlier copy's "
    "successor") {
  const Run& r = the_run();
  INFO(circuit_problem(r));
  CHECK_MESSAGE(r.smallest_successor > 0.99,
                "the least weight of the last token on the copy's successor is "
                    << r.smallest_successor);
}

TEST_CASE("the circuit answers all 4,096 test sequences right") {
  const Run& r = the_run();
  INFO(circuit_problem(r));
  CHECK_MESSAGE(r.right == kTest, "right on " << r.right << " of " << kTest);
}
