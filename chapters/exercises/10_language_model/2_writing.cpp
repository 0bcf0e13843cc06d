// Exercise 10.2 · Writing a word
// ==============================
//
// Write section 4's writing loop, for one word: ``write_word(model, start, T, gen)``.
// The model is called as section 2's is: on ids ``[1, n]`` (Int64; 0 is the boundary,
// 1 to 26 the letters a to z) it returns ``[1, n, 27]``, at each position the scores
// for the symbol that follows it. Begin with the boundary followed by the letters of
// ``start`` (often empty). At each step, run the model on the boundary and the word so
// far, take the scores :math:`z` at the last position, and draw the next symbol from
// :math:`\operatorname{softmax}(z / T)` with one call of
// ``multinomial(p, 1, false, gen)``. The boundary ends the word; any other symbol is
// appended to it, and the next step sees it. A word stops at 10 letters, the longest
// the chapter's model has seen (a ``start`` of 10 letters or more comes back as it
// is). Return the word, ``start`` included, without the boundary.
//
// The tests run your loop on four models: one made to spell "attention", one that ends
// every word at once, one that never does, and section 2's model made small and trained
// on an invented language of consonant-vowel syllables (the model of exercise 10.1). A
// low temperature divides the scores by a small number: at :math:`T = 10^{-4}` the
// first model's scores are 400,000 apart. From the trained model they write 300 words
// at each of three temperatures and hold yours to the reference loop's, word for word:
// both draw from the same generator, one uniform number per symbol, so a right answer
// draws the same symbols. (Computing the softmax in another order moves a probability
// by a few units of rounding; that changes a draw only if its uniform number falls that
// close to the boundary between two symbols, about one draw in :math:`10^{15}`.)

// %% hint
// Build the ids afresh at each step from the boundary and the word so far, as
// ``tensor(ids, {1, n}, DType::Int64)``: ``[1, n]`` in, ``[1, n, 27]`` out. A draw
// comes back as a one-element Int64 tensor; ``.item()`` gives its value. Which of the
// ``n`` rows of scores is about the symbol after the last letter? The temperature
// divides the scores before the softmax: what does :math:`T = 2` do to the gaps
// between them?

// %% fold: includes, the models, the reference loop with each catalogued mistake
#include <doctest/doctest.h>

#include <cmath>
#include <cstdint>
#include <functional>
#include <stdexcept>
#include <string>
#include <vector>

#include <litgrad/litgrad.hpp>

#include "exercise_checks.hpp"
#include "small_speller.hpp"  // the invented words and the small model

using namespace litgrad;

using Scores = std::function<Tensor(const Tensor&)>;  // ids [1, n] -> [1, n, 27]

std::string write_word(const Scores& model, const std::string& start,
                       double temperature, Generator& gen);

namespace {
using namespace small_speller;

// A model that spells `word`: at each position, after the boundary and a prefix of
// `word`, the next letter of `word` (the boundary after the whole word) scores 40 and
// every other symbol 0, so it is drawn but for a chance of 26e^-40, about 1e-16. After
// anything else, and for ids that do not begin with the boundary, every symbol scores
// 0 alike.
Scores spelling(const std::string& word) {
  return [word](const Tensor& ids) {
    const std::vector<double> in = ids.to_vector();
    const auto n = static_cast<std::int64_t>(in.size());
    std::vector<double> scores(n * kSymbols, 0);
    std::string so_far;
    for (std::int64_t t = 0; t < n; ++t) {
      if (t > 0) so_far += in[t] >= 1 ? static_cast<char>('a' + in[t] - 1) : '.';
      const bool on_track = in[0] == 0 && word.compare(0, so_far.size(), so_far) == 0;
      if (!on_track) continue;
      const double next =
          so_far.size() < word.size() ? word[so_far.size()] - 'a' + 1 : 0;
      scores[t * kSymbols + static_cast<std::int64_t>(next)] = 40;
    }
    return tensor(scores, {1, n, kSymbols});
  };
}

// A model that always scores `symbol` 40 and the rest 0.
Scores always(std::int64_t symbol) {
  return [symbol](const Tensor& ids) {
    const std::int64_t n = ids.size(1);
    std::vector<double> scores(n * kSymbols, 0);
    for (std::int64_t t = 0; t < n; ++t) scores[t * kSymbols + symbol] = 40;
    return tensor(scores, {1, n, kSymbols});
  };
}

// Section 2's model made small, trained on the invented language with AdamW at 0.01 for
// 300 steps of 16 words (exercise 10.1's model, trained by the reference loop), then
// put in evaluation mode; once per process.
const SmallSpeller& trained_speller() {
  static const SmallSpeller* model = [] {
    Generator gen(21);
    auto* m = new SmallSpeller(gen);
    optim::AdamW adam(m->parameters(), {0.01});
    for (int step = 0; step < 300; ++step) {
      const Batch b = invented_words(16, gen);
      adam.zero_grad();
      cross_entropy(m->forward(b.inputs).reshape({-1, kSymbols}),
                    b.targets.reshape({-1}))
          .backward();
      adam.step();
    }
    m->eval();
    return m;
  }();
  return *model;
}

Scores speller() {
  const SmallSpeller& model = trained_speller();  // trained here, not under a writer's
  return [&model](const Tensor& ids) { return model.forward(ids); };  // NoGradGuard
}

// The reference loop, with the catalogued mistakes as switches.
struct Variant {
  bool first_position = false, times_temperature = false, no_boundary = false;
  bool greedy = false, eleven = false, no_stop = false, not_fed_back = false;
  bool unshifted = false;  // softmax as exp(z) / sum(exp(z)), without the max shift
};

std::string reference_word(const Scores& model, const std::string& start,
                           double temperature, Generator& gen, const Variant& v = {}) {
  NoGradGuard no_grad;
  std::string word = start;
  while (word.size() < (v.eleven ? 11u : 10u)) {
    std::vector<double> ids;
    if (!v.no_boundary) ids.push_back(0);
    for (char c : v.not_fed_back ? start : word) ids.push_back(c - 'a' + 1);
    const auto n = static_cast<std::int64_t>(ids.size());
    const Tensor scores = select(select(model(tensor(ids, {1, n}, DType::Int64)), 0, 0),
                                 0, v.first_position ? 0 : n - 1);
    const Tensor z = v.times_temperature ? scores * temperature : scores / temperature;
    const Tensor p = v.unshifted ? exp(z) / sum(exp(z)) : softmax(z, 0);
    const auto next = static_cast<std::int64_t>(
        (v.greedy ? argmax(p) : multinomial(p, 1, false, gen)).item());
    if (next == 0 && !v.no_stop) break;
    word += static_cast<char>('a' + next - 1);
  }
  return word;
}

// A run of a test: words from `starts` in turn (each start `count` times) at a
// temperature, all from one Generator(`seed`).
struct Runs {
  Scores model;
  std::vector<std::string> starts;
  int count;
  double temperature;
  std::uint64_t seed;
};

const std::string kStopped = "(stopped: ";

// The words of `runs`, from your loop (variant null) or the reference's; a loop that
// throws gives "(stopped: what)" for that word and every later one.
std::vector<std::string> words(const Runs& runs, const Variant* v) {
  Generator gen(runs.seed);
  std::vector<std::string> out;
  int calls = 0;  // of the model, for the word being written
  const Scores model = [&](const Tensor& ids) {
    if (++calls > 50)
      throw std::runtime_error(
          "the model was called 50 times for one word of at most 10 letters: does "
          "your loop end at the boundary and at 10 letters?");
    return runs.model(ids);
  };
  for (const std::string& start : runs.starts)
    for (int i = 0; i < runs.count; ++i) try {
        calls = 0;
        out.push_back(v ? reference_word(model, start, runs.temperature, gen, *v)
                        : write_word(model, start, runs.temperature, gen));
      } catch (const std::exception& e) {
        out.push_back(kStopped + e.what() + ")");
        return out;
      }
  return out;
}

std::string mistake_behind(const Runs& runs, const std::vector<std::string>& yours) {
  const std::vector<std::pair<Variant, std::string>> mistakes = {
      {{true, false, false, false, false, false, false},
       "the scores of the first position read"},
      {{false, true, false, false, false, false, false},
       "the scores multiplied by the temperature"},
      {{false, false, true, false, false, false, false},
       "the word begun without the boundary"},
      {{false, false, false, true, false, false, false},
       "the most likely symbol taken instead of a draw"},
      {{false, false, false, false, true, false, false},
       "a word let grow to 11 letters"},
      {{false, false, false, false, false, true, false},
       "the boundary not ending the word"},
      {{false, false, false, false, false, false, true},
       "the symbol drawn not fed back"},
      {{false, false, false, false, false, false, false, true},
       "a softmax without the max shift"}};
  const std::string name = exercise::the_mistake(mistakes, [&](const Variant& v) {
    return words(runs, &v) == yours;  // a stop only with the same operation's error
  });
  return name.empty() ? "" : "your words are those of " + name;
}

// Your words on `runs` against the reference loop's, word for word.
void check_words(const Runs& runs) {
  const std::vector<std::string> yours = words(runs, nullptr);
  const Variant right;
  const std::vector<std::string> expected = words(runs, &right);
  REQUIRE_MESSAGE(expected.back().rfind(kStopped, 0) != 0,  // the test's own premise
                  "the reference loop stopped: ", expected.back());
  const std::string why =
      yours == expected ? "" : exercise::quietly(mistake_behind, runs, yours);
  INFO(why);
  for (std::size_t i = 0; i < expected.size(); ++i) {
    REQUIRE_MESSAGE(i < yours.size(), "your loop stopped before word ", i);
    INFO("word ", i, " of ", expected.size(), ", from \"", runs.starts[i / runs.count],
         "\" at T = ", runs.temperature, ": yours \"", yours[i],
         "\", the reference loop's \"", expected[i], "\"");
    REQUIRE(yours[i] == expected[i]);
  }
}
}  // namespace

// %%
// The function to write, in ``exercises/10_language_model/2_writing.cpp``:

std::string write_word(const Scores& model, const std::string& start,
                       double temperature, Generator& gen);

// %%
// The tests.

TEST_CASE(
    "a model made to spell \"attention\" makes your loop write it, from nothing and "
    "from \"atten\"") {
  check_words({spelling("attention"), {"", "atten"}, 1, 1.0, 1});
}

TEST_CASE(
    "a word ends when the boundary is drawn, stops at 10 letters, and a start of 12 "
    "comes back unchanged") {
  check_words({always(0), {"", "ba"}, 1, 1.0, 2});
  check_words({always(26), {"", "ba", "abcdefghijkl"}, 1, 1.0, 3});
}

TEST_CASE(
    "from the trained model your 300 words at T = 1 are the reference loop's, draw for "
    "draw") {
  check_words({speller(), {"", "ba", "ke"}, 100, 1.0, 4});
}

TEST_CASE(
    "at T = 0.0001 the scores are 400,000 apart, and your loop still writes "
    "\"attention\"") {
  check_words({spelling("attention"), {"", "atten"}, 1, 1e-4, 7});
}

TEST_CASE("and at T = 0.5 and T = 2, word for word") {
  check_words({speller(), {"", "mo"}, 150, 0.5, 5});
  check_words({speller(), {"", "mo"}, 150, 2.0, 6});
}
