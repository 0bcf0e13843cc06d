// Exercise 7.1 · A skip-gram step by hand
// =======================================
//
// Write section 4's training step without autograd. The model holds a table of word
// vectors, :math:`[V, D]`, and an output layer: a weight :math:`[V, D]` whose row
// :math:`o` scores word :math:`o` as a neighbour, and a bias :math:`[V]`. For a pair
// (centre :math:`c`, neighbour :math:`o`) the scores are :math:`s = W h + b` with
// :math:`h` the centre's row of the table, and the pair's loss is :math:`-\log
// \operatorname{softmax}(s)_o`. Given a batch of pairs, return the mean loss over
// them, and take one step of gradient descent on it: every number of the table, the
// weight and the bias moves by :math:`-\eta` times its gradient, all gradients taken
// before anything moves. The tests compare your loss and your step with litgrad's
// autograd and ``optim::SGD`` on the same numbers, check that the vectors of words
// that were not a centre stay as they were, and feed you scores in the thousands.

// %% hint
// Chapter 5 found the gradient of a cross-entropy with respect to its scores:
// softmax minus one-hot. Each pair is one row of that, divided by the number of pairs
// since the loss is a mean; from there the chain rule goes through :math:`s = W h + b`
// to :math:`W`, :math:`b` and :math:`h`, and section 1 says where the gradient of
// :math:`h` lands in the table when a word is the centre of several pairs.

// %% fold: includes, and the same step with litgrad
#include <doctest/doctest.h>

#include <cmath>
#include <cstdint>
#include <string>
#include <vector>

#include <litgrad/litgrad.hpp>

using namespace litgrad;

struct SkipGramModel {
  int V = 0, D = 0;
  std::vector<double> table;   // [V, D]: row c is word c's vector
  std::vector<double> weight;  // [V, D]: row o scores word o as a neighbour
  std::vector<double> bias;    // [V]
};

namespace {
Tensor ids(const std::vector<int>& list) {
  std::vector<double> v(list.begin(), list.end());
  return tensor(v, {static_cast<std::int64_t>(list.size())}, DType::Int64);
}

// A model of V words and width D with random numbers; `scale` multiplies the table.
SkipGramModel random_model(int V, int D, std::uint64_t seed, double scale = 1) {
  Generator gen(seed);
  SkipGramModel m;
  m.V = V, m.D = D;
  m.table = (scale * randn({V, D}, gen)).to_vector();
  m.weight = (0.5 * randn({V, D}, gen)).to_vector();
  m.bias = (0.1 * randn({V}, gen)).to_vector();
  return m;
}

// The loss and the step with litgrad's autograd and optim::SGD; with `every_pair`, a
// step after each pair (on that pair's loss divided by the number of pairs) instead.
double litgrad_step(SkipGramModel& m, const std::vector<int>& centres,
                    const std::vector<int>& contexts, double lr,
                    bool every_pair = false) {
  Tensor table = tensor(m.table, {m.V, m.D}).requires_grad_();
  Tensor weight = tensor(m.weight, {m.V, m.D}).requires_grad_();
  Tensor bias = tensor(m.bias, {m.V}).requires_grad_();
  optim::SGD sgd({table, weight, bias}, {lr});
  const auto loss_of = [&](const std::vector<int>& c, const std::vector<int>& o) {
    const Tensor scores =
        matmul(nn::embedding(ids(c), table), transpose(weight, 0, 1)) + bias;
    return cross_entropy(scores, ids(o), Reduction::Sum) / double(centres.size());
  };
  double loss = 0;
  if (every_pair) {
    for (std::size_t k = 0; k < centres.size(); ++k) {
      sgd.zero_grad();
      const Tensor l = loss_of({centres[k]}, {contexts[k]});
      loss += l.item();
      l.backward();
      sgd.step();
    }
  } else {
    const Tensor l = loss_of(centres, contexts);
    loss = l.item();
    l.backward();
    sgd.step();
  }
  m.table = table.to_vector(), m.weight = weight.to_vector(), m.bias = bias.to_vector();
  return loss;
}

double largest_gap(const std::vector<double>& a, const std::vector<double>& b) {
  double gap = 0;
  for (std::size_t i = 0; i < a.size(); ++i)
    gap = std::fmax(gap, std::fabs(a[i] - b[i]));
  return gap;
}
}  // namespace

// %%
// The function to write, in ``exercises/07_words_as_vectors/1_skipgram_step.cpp``:

double skipgram_step(SkipGramModel& m, const std::vector<int>& centres,
                     const std::vector<int>& contexts, double lr);

// %% fold: what a wrong step points to
namespace {
// Four pairs whose centres are 2, 0, 2 and 5, one step at rate 0.5, yours against
// litgrad's, and against the steps of the mistakes the tests look for.
std::string probe() {
  const std::vector<int> centres = {2, 0, 2, 5}, contexts = {1, 3, 4, 1};
  const SkipGramModel start = random_model(7, 3, 11);
  SkipGramModel yours = start, right = start, online = start;
  const double loss = skipgram_step(yours, centres, contexts, 0.5);
  const double right_loss = litgrad_step(right, centres, contexts, 0.5);
  litgrad_step(online, centres, contexts, 0.5, true);
  const auto same = [](const std::vector<double>& a, const std::vector<double>& b) {
    return largest_gap(a, b) < 1e-12;
  };
  std::string s = "for pairs with centres 2, 0, 2, 5 your loss was " +
                  std::to_string(loss) + " (right: " + std::to_string(right_loss) + ")";
  if (same(yours.table, right.table) && same(yours.weight, right.weight) &&
      same(yours.bias, right.bias))
    return s + ", and your step was right";
  std::vector<double> moved(7), right_moved(7), counts(7, 0);
  for (int o = 0; o < 7; ++o)
    moved[o] = yours.bias[o] - start.bias[o],
    right_moved[o] = right.bias[o] - start.bias[o];
  for (int o : contexts) counts[o] += 1;
  bool four_times = true, one_forgotten = true;
  for (int o = 0; o < 7; ++o) {
    four_times = four_times && std::fabs(moved[o] - 4 * right_moved[o]) < 1e-12;
    one_forgotten = one_forgotten &&
                    std::fabs(moved[o] - right_moved[o] + 0.5 * counts[o] / 4) < 1e-12;
  }
  if (four_times)
    return s +
           "; your bias moved 4 times too far, once per pair: this points to the "
           "sum over pairs, not the mean";
  if (one_forgotten)
    return s +
           "; your bias moved as if no neighbour were the target: this points to "
           "the target's one forgotten";
  if (same(yours.table, online.table) && same(yours.bias, online.bias))
    return s + "; you moved after every pair: this points to a step after every pair";
  bool others_right = true;
  for (int j = 0; j < 3; ++j)
    others_right = others_right &&
                   std::fabs(yours.table[0 * 3 + j] - right.table[0 * 3 + j]) < 1e-12 &&
                   std::fabs(yours.table[5 * 3 + j] - right.table[5 * 3 + j]) < 1e-12;
  if (same(yours.weight, right.weight) && others_right)
    return s +
           "; only word 2's vector, the centre of two pairs, is wrong: this points "
           "to a repeated centre's gradient overwritten";
  return s;
}
}  // namespace

// %%
// The tests.

TEST_CASE("its loss is the mean of -log softmax(scores) at the neighbours") {
  INFO(probe());
  for (std::uint64_t seed : {1, 2, 3}) {
    SkipGramModel yours = random_model(7, 3, seed), right = yours;
    const std::vector<int> centres = {0, 3, 3, 6, 1, 3}, contexts = {2, 2, 5, 0, 6, 1};
    const double loss = skipgram_step(yours, centres, contexts, 0.1);
    const double expected = litgrad_step(right, centres, contexts, 0.1);
    INFO("seed ", seed, ": your loss ", loss, ", litgrad's ", expected);
    CHECK(std::fabs(loss - expected) <= 1e-14 * expected);
  }
}

TEST_CASE(
    "one step moves the table, the weight and the bias as litgrad's autograd and SGD "
    "do, to 1e-13") {
  INFO(probe());
  for (std::uint64_t seed : {1, 2, 3}) {
    SkipGramModel yours = random_model(7, 3, seed), right = yours;
    const std::vector<int> centres = {0, 3, 3, 6, 1, 3}, contexts = {2, 2, 5, 0, 6, 1};
    skipgram_step(yours, centres, contexts, 0.7);
    litgrad_step(right, centres, contexts, 0.7);
    INFO("seed ", seed);
    CHECK(largest_gap(yours.table, right.table) <= 1e-13);
    CHECK(largest_gap(yours.weight, right.weight) <= 1e-13);
    CHECK(largest_gap(yours.bias, right.bias) <= 1e-13);
  }
}

TEST_CASE("the vectors of words that were no pair's centre do not move, in any bit") {
  INFO(probe());
  SkipGramModel m = random_model(7, 3, 4);
  const SkipGramModel before = m;
  skipgram_step(m, {0, 3, 3, 6}, {2, 2, 5, 0}, 0.7);
  int moved = 0, unused_rows_moved = 0;
  for (int w = 0; w < 7; ++w)
    for (int j = 0; j < 3; ++j) {
      const bool changed = m.table[w * 3 + j] != before.table[w * 3 + j];
      moved += changed;
      unused_rows_moved += changed && w != 0 && w != 3 && w != 6;
    }
  INFO(moved, " numbers of the table moved");
  CHECK(moved > 0);
  CHECK(unused_rows_moved == 0);
}

TEST_CASE("scores in the thousands give the same finite loss and step as litgrad's") {
  INFO(probe());
  SkipGramModel yours = random_model(7, 3, 5, 3000), right = yours;
  const std::vector<int> centres = {1, 4, 4, 2}, contexts = {0, 6, 3, 3};
  const double loss = skipgram_step(yours, centres, contexts, 1e-4);
  const double expected = litgrad_step(right, centres, contexts, 1e-4);
  INFO("your loss ", loss, ", litgrad's ", expected,
       std::string(std::isfinite(loss)
                       ? ""
                       : ": e^s overflowed; this points to softmax without "
                         "subtracting the largest score"));
  CHECK(std::isfinite(loss));
  CHECK(std::fabs(loss - expected) <= 1e-12 * (1 + expected));
  CHECK(largest_gap(yours.weight, right.weight) <= 1e-9);
}
