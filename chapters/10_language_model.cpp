// Chapter 10 · A language model of words
// ======================================
//
// Everything the book has built comes together here: a model of dictionary words,
// spelled a letter at a time, that predicts each next letter, trained on real words,
// and then writes words of its own. The words are Debian's English word list; the
// letters are the tokens. We first measure what a model must beat: a uniform guess, a
// *bigram* model that predicts each letter from the one before it, and *n-grams* that
// predict it from several before, all computed exactly from counts. Then a
// small causal Transformer, chapter 9's blocks stacked on token and position
// embeddings, learns from the same words, with its training loop on the page, and we
// check what it beats and by how much, set a learned model of the last three letters
// beside it, and check that the Transformer never peeks at later letters. Trained on
// too few words, the model of three letters shows what overfitting looks like and how
// dropout delays it. Last, we see how the Transformer writes: greedily, by sampling at
// a range of temperatures, and with top-k.

// %% about: Character-level models of Debian's word list: the uniform, bigram and
// n-gram baselines computed exactly; a small causal Transformer trained with AdamW and
// a warm-up/cosine schedule, against each of them; an MLP over the last three letters
// beside them; causality through the whole model; overfitting on 50 words, and dropout
// delaying it; and writing words by sampling, with what temperature and top-k trade.
// %% assumes: 5, 6, 7, 8, 9
// %% budget: 130 s, because it trains a Transformer for 4,000 steps and an MLP on
// three seeds, the MLP twice more on 50 words, and writes 2,000 words at each of four
// settings with each

// %% fold: includes, and the names this file uses
#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <fstream>
#include <map>
#include <memory>
#include <regex>
#include <set>
#include <stdexcept>
#include <string>
#include <tuple>
#include <unordered_map>
#include <vector>

#include <litgrad/book/bits.hpp>
#include <litgrad/book/chapter.hpp>
#include <litgrad/book/figures.hpp>
#include <litgrad/book/trained.hpp>
#include <litgrad/litgrad.hpp>

using namespace litgrad;
using book::differing_bits;
using book::kU;  // u = 2^-53, double's unit roundoff (chapter 1)
using book::out;

namespace {

constexpr std::uint64_t kSeeds[] = {1, 2, 3};

// %% 1 · The words, and what a guess costs
//
// The words come from ``/usr/share/dict/american-english``, installed by Debian's
// ``wamerican`` package (the project's install step, ``tools/install-deps``, installs
// it). We keep the words of 3 to 10 lower-case letters a–z, with no capitals,
// apostrophes or accents, and set aside 2,000 of them, chosen with a fixed seed, for
// validation; the model trains on the rest. A word is spelled between two copies of a
// boundary symbol, written ``.``: *cat* is ``.cat.``. Reading left to right, the model
// sees ``.``, ``c``, ``a``, ``t`` and must predict ``c``, ``a``, ``t``, ``.``: four
// predictions for a three-letter word, one per letter and one for the end. There are 27
// symbols.

// %% fold: reading the word list
const char* const kWordList = "/usr/share/dict/american-english";
constexpr std::int64_t kSymbols = 27;    // '.' is 0, 'a' to 'z' are 1 to 26
constexpr std::int64_t kPositions = 11;  // the boundary and up to 10 letters
constexpr std::int64_t kValidation = 2000;

struct Words {
  std::vector<std::string> training, validation;
};

// Every word of the list made of 3 to 10 letters a–z, in the list's order.
const std::vector<std::string>& plain_words() {
  static const std::vector<std::string> all = [] {
    std::ifstream file(kWordList);
    if (!file)
      throw std::runtime_error(std::string("chapter 10 reads Debian's word list ") +
                               kWordList +
                               ", which is missing: install it with `sudo apt-get "
                               "install wamerican` (or run "
                               "tools/install-deps build)");
    const std::regex plain("[a-z]{3,10}");
    std::vector<std::string> found;
    for (std::string w; std::getline(file, w);)
      if (std::regex_match(w, plain)) found.push_back(w);
    if (found.size() < 10 * kValidation)
      throw std::runtime_error(std::string(kWordList) + " holds only " +
                               std::to_string(found.size()) +
                               " plain words of 3 to 10 letters");
    return found;
  }();
  return all;
}

// The filtered list in an order drawn with a fixed seed, cut in two.
const Words& words() {
  static const Words split = [] {
    const std::vector<std::string>& all = plain_words();
    Generator gen(0);
    const Tensor order = randperm(static_cast<std::int64_t>(all.size()), gen);
    Words s;
    for (std::int64_t i = 0; i < order.numel(); ++i)
      (i < kValidation ? s.validation : s.training)
          .push_back(all[std::llround(order.at({i}))]);
    return s;
  }();
  return split;
}

std::int64_t symbol(char c) { return c == '.' ? 0 : c - 'a' + 1; }
char letter(std::int64_t s) { return s == 0 ? '.' : static_cast<char>('a' + s - 1); }

// Inputs and targets. For the Transformer (encode), inputs [n, 11] (the boundary, then
// the letters, then boundaries as padding) and targets [n, 11] (the letters, the
// boundary, then -100, which the loss ignores); for section 2's MLP (contexts), each
// prediction's context [n, 3] and symbol [n].
struct Batch {
  Tensor inputs, targets;
};

Batch encode(const std::vector<std::string>& list) {
  const auto n = static_cast<std::int64_t>(list.size());
  std::vector<double> inputs(n * kPositions, 0), targets(n * kPositions, -100);
  for (std::int64_t b = 0; b < n; ++b) {
    const std::string& w = list[b];
    for (std::size_t t = 0; t < w.size(); ++t) {
      inputs[b * kPositions + t + 1] = symbol(w[t]);
      targets[b * kPositions + t] = symbol(w[t]);
    }
    targets[b * kPositions + w.size()] = 0;  // the end of the word
  }
  return {tensor(inputs, {n, kPositions}, DType::Int64),
          tensor(targets, {n, kPositions}, DType::Int64)};
}

// The number of predictions in a list of words: one per letter, one per word end.
double predictions(const std::vector<std::string>& list) {
  double n = 0;
  for (const auto& w : list) n += static_cast<double>(w.size() + 1);
  return n;
}

// %%
// Every comparison on the validation words below rests on the model never having seen
// them in training. The split is one shuffled order of the filtered list, cut after
// 2,000 words, so the two lists should share no word and together make the whole list.
// The test checks both, word by word: a word that occurred twice in the list could
// otherwise land on both sides.

TEST_CASE(
    "the training and validation words share no word, and together they are the "
    "whole filtered list") {
  const std::set<std::string> training(words().training.begin(),
                                       words().training.end());
  int shared = 0, missing = 0;
  for (const auto& w : words().validation) shared += training.count(w) > 0;
  const std::set<std::string> validation(words().validation.begin(),
                                         words().validation.end());
  for (const auto& w : plain_words())
    missing += training.count(w) == 0 && validation.count(w) == 0;
  out() << plain_words().size() << " plain words: " << words().training.size()
        << " for training, " << words().validation.size() << " for validation\n";
  book::check("words in both lists", shared, "of the 2,000 validation words",
              book::exactly(0));
  book::check("words in neither list", missing, "of the filtered list's",
              book::exactly(0));
  book::check("words in the two lists",
              static_cast<double>(words().training.size() + words().validation.size()),
              "against the filtered list's length",
              book::exactly(static_cast<double>(plain_words().size())));
}

// %%
// A model that knows nothing gives every symbol the same score, and so, by chapter 5,
// costs :math:`\ln 27 \approx 3.30` nats per prediction, whatever the words. The test
// computes that with ``cross_entropy`` on the validation words, from scores that are
// all zero, and holds it to :math:`\ln 27` within :math:`N u \ln 27` for the :math:`N`
// predictions: each prediction's loss is :math:`\ln 27` correctly rounded (a ``log`` of
// a sum of 27 ones), and their sum makes :math:`N - 1` more roundings, each at most
// :math:`u` of the partial sum.

TEST_CASE(
    "equal scores for every symbol cost ln 27 nats per prediction on the "
    "validation words, to within N·u·ln 27 for N predictions") {
  const Batch v = encode(words().validation);
  const Tensor scores = zeros({kValidation * kPositions, kSymbols});
  CrossEntropyOptions o;
  const double loss = cross_entropy(scores, v.targets.reshape({-1}), o).item();
  const double tolerance = predictions(words().validation) * kU * std::log(27.0);
  out() << words().training.size() << " training words, " << words().validation.size()
        << " validation words, " << predictions(words().validation)
        << " validation predictions\n";
  book::check("uniform loss", loss, "nats per prediction, against ln 27",
              book::within(tolerance, std::log(27.0)));
}

// %%
// The bigram model predicts each symbol from the one before it, with the probabilities
// counted in the training words: :math:`p(b \mid a) = (N_{ab} + 1) / (N_a + 27)`, where
// :math:`N_{ab}` counts how often :math:`b` follows :math:`a` and :math:`N_a` how often
// :math:`a` is followed by anything. The :math:`+1` (Laplace's add-one smoothing) is
// there for the pairs the training words never contain: counted without it, such a pair
// gets probability 0, and a word containing it an infinite loss, :math:`-\ln 0`. The
// training words leave many of the 728 possible pairs unseen (the test counts them and
// names one; the pair of two boundaries, an empty word, cannot occur). In this split
// none of them happens to occur in the validation words, which the test counts as
// well, so the bigram's validation loss would be finite even without the smoothing; a
// word it has not seen can hold such a pair, and the smoothing is there for it.
//
// The :math:`27` in the denominator is what makes each row a distribution: adding one
// to each of the 27 counts :math:`N_{ab}` adds 27 to their sum :math:`N_a`. So the test
// checks the probabilities the code computes, each read back from its logarithm, for
// both: every unseen pair has :math:`1 / (N_a + 27)`, and each symbol's 27
// probabilities of what follows it sum to 1, both to within rounding. A probability
// comes back with a relative error of at most :math:`(3 + 2\ell) u`, where :math:`\ell
// = \ln \max_a (N_a + 27)` is the largest :math:`|\ln p|` that add-one smoothing
// allows, the least probability being :math:`1 / (N_a + 27)`: :math:`u` from the
// division, at most one unit in the last place, :math:`2u`, from the ``exp``, and the
// same from the ``log``, which the ``exp`` turns into a relative error :math:`|\ln p|`
// times as large. Summing a row's 27 probabilities adds 26 roundings of at most
// :math:`u` each, so each sum is within :math:`(29 + 2\ell) u` of 1. Forgetting the
// boundary symbol, a denominator of :math:`N_a + 26`, would make each row sum to
// :math:`1 + 1 / (N_a + 26)` instead, a miss these bounds are there to catch.

struct Bigram {
  std::vector<double> log_p;  // [27 * 27]: log p(b | a) at a * 27 + b, smoothed
  std::vector<double> count;  // [27 * 27]: N_ab
};

// log p(b | a) = log((N_ab + s) / (N_a + 27 s)) at a * 27 + b, from the counts N_ab,
// with s added to every count: s = 1 is add-one smoothing, s = 0 none.
std::vector<double> bigram_log_p(const std::vector<double>& count, double s) {
  std::vector<double> log_p(kSymbols * kSymbols);
  for (std::int64_t a = 0; a < kSymbols; ++a) {
    double total = 0;
    for (std::int64_t b = 0; b < kSymbols; ++b) total += count[a * kSymbols + b];
    for (std::int64_t b = 0; b < kSymbols; ++b)
      log_p[a * kSymbols + b] =
          std::log((count[a * kSymbols + b] + s) / (total + kSymbols * s));
  }
  return log_p;
}

const Bigram& bigram() {
  static const Bigram model = [] {
    Bigram m;
    m.count.assign(kSymbols * kSymbols, 0);
    for (const auto& w : words().training) {
      const std::string spelled = "." + w + ".";
      for (std::size_t i = 0; i + 1 < spelled.size(); ++i)
        m.count[symbol(spelled[i]) * kSymbols + symbol(spelled[i + 1])] += 1;
    }
    m.log_p = bigram_log_p(m.count, 1);
    return m;
  }();
  return model;
}

// Each word's total loss under the bigram model, in nats.
std::vector<double> bigram_word_losses(const std::vector<std::string>& list) {
  std::vector<double> losses;
  for (const auto& w : list) {
    const std::string spelled = "." + w + ".";
    double loss = 0;
    for (std::size_t i = 0; i + 1 < spelled.size(); ++i)
      loss -= bigram().log_p[symbol(spelled[i]) * kSymbols + symbol(spelled[i + 1])];
    losses.push_back(loss);
  }
  return losses;
}

double per_prediction(const std::vector<double>& word_losses,
                      const std::vector<std::string>& list) {
  double total = 0;
  for (double l : word_losses) total += l;
  return total / predictions(list);
}

TEST_CASE(
    "some pairs never occur in the training words and none of them in the validation "
    "words, add-one smoothing gives each unseen pair 1/(N_a + 27), and each symbol's "
    "27 probabilities sum to 1, both to within rounding") {
  const auto& count = bigram().count;
  int never = 0;
  std::vector<double> total(kSymbols, 0);  // N_a
  for (std::int64_t k = 0; k < kSymbols * kSymbols; ++k)
    total[k / kSymbols] += count[k];
  double largest_log = 0;  // ℓ: ln(N_a + 27) at its largest, from the counts
  for (double n : total) largest_log = std::max(largest_log, std::log(n + kSymbols));
  double worst_unseen = 0;  // the largest relative error of an unseen pair's p
  for (std::int64_t k = 1; k < kSymbols * kSymbols; ++k) {  // ".." is an empty word
    if (count[k] > 0) continue;
    if (never++ == 0)
      out() << "for example \"" << letter(k / kSymbols) << letter(k % kSymbols)
            << "\" never occurs\n";
    const double exact = 1 / (total[k / kSymbols] + kSymbols);
    worst_unseen =
        std::max(worst_unseen, std::fabs(std::exp(bigram().log_p[k]) - exact) / exact);
  }
  double worst_row = 0;  // the largest |sum over b of p(b | a) - 1|
  for (std::int64_t a = 0; a < kSymbols; ++a) {
    double sum = 0;
    for (std::int64_t b = 0; b < kSymbols; ++b)
      sum += std::exp(bigram().log_p[a * kSymbols + b]);
    worst_row = std::max(worst_row, std::fabs(sum - 1));
  }
  int unseen_in_validation = 0;
  for (const auto& w : words().validation) {
    const std::string spelled = "." + w + ".";
    for (std::size_t i = 0; i + 1 < spelled.size(); ++i)
      unseen_in_validation +=
          count[symbol(spelled[i]) * kSymbols + symbol(spelled[i + 1])] == 0;
  }
  out() << "bigram validation loss: "
        << per_prediction(bigram_word_losses(words().validation), words().validation)
        << " nats per prediction; ℓ = " << largest_log << "\n";
  book::check("pairs never seen", never, "of the 728 possible, in the training words",
              book::above(0));
  book::check("unseen pairs in validation", unseen_in_validation,
              "occurrences in the validation words", book::exactly(0));
  book::check("unseen pairs' largest relative error", worst_unseen,
              "against 1/(N_a + 27), over (3 + 2ℓ)u",
              book::at_most((3 + 2 * largest_log) * kU)
                  .large_margin_because(book::kWorstCaseRounding));
  book::check("largest |row sum - 1|", worst_row,
              "over the 27 rows, against (29 + 2ℓ)u",
              book::at_most((29 + 2 * largest_log) * kU)
                  .large_margin_because(book::kWorstCaseRounding));
}

// %%
// How far ahead is one model of another on the validation words, and is the lead more
// than luck? Both see the same 2,000 words, so compare them word by word: the
// difference of the two models' total losses on a word, :math:`d_w`, has a mean and a
// standard deviation over words, and the lead per prediction is :math:`\bar r = \sum_w
// d_w / \sum_w n_w`, with :math:`n_w` the word's predictions. Its standard error is
// that of a ratio of means, :math:`\mathrm{sd}(d_w - \bar r\, n_w) / (\bar n
// \sqrt{W})` for :math:`W` words of mean :math:`\bar n` predictions. We call a lead of
// more than 4 standard errors real: by chance alone, the normal approximation gives it
// odds of about 3 in 100,000.
//
// The bigram sees one symbol back. Why not more? The *n-gram* with :math:`k` symbols of
// context predicts :math:`c` after the context :math:`h` with :math:`p(c \mid h) =
// (N_{hc} + 1) / (N_h + 27)`, counted and smoothed as the bigram was, each word now
// spelled after :math:`k` boundaries (``..cat.`` for :math:`k = 2`) so that its first
// letter has :math:`k` symbols before it too. With :math:`k = 2` it is the *trigram*,
// with :math:`k = 3` the *four-gram*, and so on; with :math:`k = 1` it is the bigram,
// and with :math:`k = 0` the *unigram*, which knows only how often each symbol comes.
// Each more symbol of context multiplies the table by 27: the four-gram has :math:`27^4
// = 531{,}441` probabilities, already more than there are predictions in all the
// training words, and the five-gram 27 times as many again. So more and more of the
// contexts met in validation were seen in training only a few times, or never, and
// where a context was seen fewer than 27 times the smoothing's 27 added counts outweigh
// its own. More context helps until the counts run thin. The test measures where that
// happens here, comparing each :math:`k` with the next, word by word: the loss falls
// from no context to one symbol, from one to two and from two to three, each step by
// more than 4 standard errors, and rises from three to four by more than 4. It also
// counts the training predictions against :math:`27^4`, and checks that the share of
// validation predictions whose context training saw fewer than 27 times grows with each
// :math:`k` (the account prints the shares).

// The lead of the `ahead` losses over the `behind` ones (each word's total, in nats),
// per prediction on `list`, and its standard error (above).
struct Lead {
  double per_prediction, standard_error;
};

Lead lead(const std::vector<double>& behind, const std::vector<double>& ahead,
          const std::vector<std::string>& list) {
  const double ratio = per_prediction(behind, list) - per_prediction(ahead, list);
  const double words_n = static_cast<double>(list.size());
  const double mean_n = predictions(list) / words_n;
  double square = 0;
  for (std::size_t w = 0; w < list.size(); ++w) {
    const double r = (behind[w] - ahead[w]) - ratio * (list[w].size() + 1);
    square += r * r / (words_n - 1);
  }
  return {ratio, std::sqrt(square) / (mean_n * std::sqrt(words_n))};
}

// The counts of an n-gram with `context` symbols of context, keyed by the symbols as
// digits in base 27: `with` counts a context followed by a symbol, `of` the context.
struct NGram {
  std::unordered_map<std::uint64_t, double> with, of;
};

std::uint64_t key(const std::string& spelled, std::size_t from, std::size_t length) {
  std::uint64_t k = 0;
  for (std::size_t i = from; i < from + length; ++i)
    k = k * kSymbols + symbol(spelled[i]);
  return k;
}

const NGram& ngram(std::size_t context) {
  static std::map<std::size_t, NGram> models;
  auto found = models.find(context);
  if (found != models.end()) return found->second;
  NGram m;
  for (const auto& w : words().training) {
    const std::string spelled = std::string(context, '.') + w + ".";
    for (std::size_t i = 0; i + context < spelled.size(); ++i) {
      m.with[key(spelled, i, context + 1)] += 1;
      m.of[key(spelled, i, context)] += 1;
    }
  }
  return models.emplace(context, std::move(m)).first->second;
}

// Each word's total loss under the n-gram, in nats; `thin` counts the predictions whose
// context the training words had fewer than 27 times, where the smoothing's 27 added
// counts outweigh the context's own.
std::vector<double> ngram_word_losses(std::size_t context,
                                      const std::vector<std::string>& list,
                                      double* thin = nullptr) {
  const NGram& m = ngram(context);
  const auto count = [](const std::unordered_map<std::uint64_t, double>& c,
                        std::uint64_t k) {
    const auto f = c.find(k);
    return f == c.end() ? 0.0 : f->second;
  };
  std::vector<double> losses;
  for (const auto& w : list) {
    const std::string spelled = std::string(context, '.') + w + ".";
    double loss = 0;
    for (std::size_t i = 0; i + context < spelled.size(); ++i) {
      const double n_h = count(m.of, key(spelled, i, context));
      if (thin) *thin += n_h < kSymbols;
      loss -= std::log((count(m.with, key(spelled, i, context + 1)) + 1) /
                       (n_h + kSymbols));
    }
    losses.push_back(loss);
  }
  return losses;
}

std::vector<double> trigram_word_losses(const std::vector<std::string>& list) {
  return ngram_word_losses(2, list);
}

TEST_CASE(
    "more context helps until the counts run thin: the n-gram's validation loss falls "
    "from no context to one symbol, to two and to three, and rises at four, each step "
    "by more than 4 standard errors") {
  const auto& validation = words().validation;
  const std::vector<double> unigram = ngram_word_losses(0, validation);
  out() << "no context (the unigram): validation loss "
        << per_prediction(unigram, validation) << " nats per prediction\n";
  std::vector<std::vector<double>> losses = {bigram_word_losses(validation)};
  std::vector<double> thin(5, 0);  // [k]: predictions whose context was seen < 27 times
  out() << predictions(words().training) << " predictions in the training words\n";
  for (std::size_t k = 1; k <= 4; ++k) {
    if (k > 1) losses.push_back(ngram_word_losses(k, validation, &thin[k]));
    out() << k << " symbol" << (k > 1 ? "s" : "") << " of context: validation loss "
          << per_prediction(losses[k - 1], validation) << " nats per prediction";
    if (k > 1)
      out() << ", contexts seen fewer than 27 times in training "
            << thin[k] / predictions(validation);
    out() << "\n";
  }
  const auto step = [&](std::size_t from,
                        std::size_t to) {  // the lead of `to` over `from`
    const Lead l = lead(losses[from - 1], losses[to - 1], validation);
    return l.per_prediction / l.standard_error;
  };
  const Lead first = lead(unigram, losses[0], validation);
  book::check("one symbol over none", first.per_prediction / first.standard_error,
              "standard errors", book::above(4));
  book::check("two symbols over one", step(1, 2), "standard errors", book::above(4));
  book::check("three symbols over two", step(2, 3), "standard errors", book::above(4));
  book::check("three symbols over four", step(4, 3), "standard errors", book::above(4));
  book::check("training predictions", predictions(words().training), "against 27^4",
              book::below(std::pow(27.0, 4)));
  book::check("thin contexts, three symbols over two", thin[3] - thin[2],
              "validation predictions", book::above(0));
  book::check("thin contexts, four symbols over three", thin[4] - thin[3],
              "validation predictions", book::above(0));
}

// %% 2 · A small Transformer
//
// The model is chapter 9's block, stacked. Each position's vector is the sum of a token
// embedding (chapter 7) and a position embedding, both learned, of width 32. Two
// :cpp:class:`litgrad::nn::TransformerEncoderLayer` blocks follow, pre-norm, with 4
// heads, a GELU feed-forward part of width 128 and the causal mask, so that position
// :math:`t` sees the symbols up to :math:`t` only; a last layer norm and a linear
// read-out turn each position's vector into 27 scores for the next symbol. The loss is
// the cross-entropy of the next symbol at every position a word has, ignoring the
// padding after it.

constexpr std::int64_t kWidth = 32, kHeads = 4, kLayers = 2;

// Symbols [N, 11] → scores for the next symbol [N, 11, 27].
struct LanguageModel : nn::Module {
  nn::Embedding token, position;
  nn::ModuleList blocks;
  nn::LayerNorm norm;
  nn::Linear readout;
  explicit LanguageModel(Generator& gen)
      : Module("LanguageModel"),
        token(kSymbols, kWidth, std::nullopt, gen),
        position(kPositions, kWidth, std::nullopt, gen),
        norm({kWidth}),
        readout(kWidth, kSymbols, true, gen) {
    nn::TransformerEncoderLayerOptions o;
    o.dim_feedforward = 4 * kWidth, o.dropout = 0, o.activation = "gelu";
    o.batch_first = true, o.norm_first = true;
    register_module("token", token), register_module("position", position);
    for (std::int64_t l = 0; l < kLayers; ++l)
      blocks.push_back(nn::TransformerEncoderLayer(kWidth, kHeads, o, gen));
    register_module("blocks", blocks);
    register_module("norm", norm), register_module("readout", readout);
  }
  // Symbols [N, T] → each position's input vector, token plus position [N, T, 32].
  Tensor embed(const Tensor& inputs) const {
    return token(inputs) + position(arange(inputs.size(1)).to(DType::Int64));
  }
  // Input vectors [N, T, 32] → scores [N, T, 27], through the blocks, the last norm and
  // the read-out. With `last_weights`, also the last block's attention per head
  // [N, 4, T, T].
  Tensor from_vectors(Tensor x, Tensor* last_weights = nullptr) const {
    const Tensor mask = generate_square_subsequent_mask(x.size(1));
    for (std::size_t l = 0; l < blocks.size(); ++l) {
      const auto& block = blocks.at<nn::TransformerEncoderLayer>(l);
      if (last_weights && l + 1 == blocks.size()) {
        const Tensor n = block.norm1(x);
        *last_weights = block.self_attn(n, n, n, Tensor(), true, mask, false).weights;
      }
      x = block(x, mask, Tensor(), /*is_causal=*/true);
    }
    return readout(norm(x));
  }
  Tensor operator()(const Tensor& inputs, Tensor* last_weights = nullptr) const {
    return from_vectors(embed(inputs), last_weights);
  }
};

// Each word's total loss under the model, in nats.
std::vector<double> model_word_losses(const LanguageModel& model,
                                      const std::vector<std::string>& list) {
  NoGradGuard no_grad;
  const Batch b = encode(list);
  const auto n = static_cast<std::int64_t>(list.size());
  const Tensor losses =
      cross_entropy(model(b.inputs).reshape({n * kPositions, kSymbols}),
                    b.targets.reshape({-1}), Reduction::None);
  const Tensor per_word = sum(losses.reshape({n, kPositions}), {1});
  std::vector<double> out(n);
  for (std::int64_t i = 0; i < n; ++i) out[i] = per_word.at({i});
  return out;
}

// The number of numbers a module learns.
std::int64_t parameter_count(const nn::Module& m) {
  std::int64_t n = 0;
  for (const Tensor& p : m.parameters()) n += p.numel();
  return n;
}

// %%
// Training: ``optim::AdamW`` (chapter 6) at a peak rate of 0.01 with its default decay
// of 0.01, batches of 32 words drawn at random from the training words, for 4,000 steps
// (the account gives how many times over they read the training list). The rate rises
// linearly over the first 50 steps (chapter 6's *warm-up*, which kept Adam's first
// steps, taken while its running averages rest on a handful of gradients, from throwing
// the network above its starting loss) and then falls along a cosine to 0 (chapter 6's
// annealing). Every 500 steps we record the mean training loss since the last record
// and the validation loss on 500 of the validation words.
//
// The model's parameters number in the tens of thousands (the account prints the
// count) and it is
// trained for each of three seeds, so the chapter takes longer than most, up to 130 s
// on one core. Since every claim runs as its own process, the first process to train a
// seed keeps the model beside the chapter's program (``book::train_once``, which saves
// every bit) and the others load it; the chapter's reproducibility test, which runs the
// chapter again after the book's run, holds the two runs' output to the same bytes.

constexpr int kSteps = 4000, kBatch = 32, kWarmup = 50, kEvery = 500;
constexpr double kRate = 1e-2;

struct Curve {
  std::vector<double> steps, training, validation;
};

// The first 500 validation words, on which training records the validation loss.
const std::vector<std::string>& some_validation_words() {
  static const std::vector<std::string> some(words().validation.begin(),
                                             words().validation.begin() + 500);
  return some;
}

// %%
// Here is the whole of training, the loop of chapters 5 and 6 at this model's scale:
// draw a batch of words, compute the scores and the loss, zero the gradients left by
// the last step, backpropagate, step, and move the schedule on.

Curve train(LanguageModel& model, std::uint64_t seed) {
  Generator gen(1000 +
                seed);  // the batches; the model's start came from Generator(seed)
  optim::AdamW adam(model.parameters(), {kRate});
  optim::lr_scheduler::LambdaLR schedule(
      adam, optim::lr_scheduler::cosine_with_warmup(kWarmup, kSteps));
  const auto& some_validation = some_validation_words();
  const auto& training = words().training;
  Curve curve;
  double since = 0;
  for (int step = 1; step <= kSteps; ++step) {
    std::vector<std::string> batch;
    for (int i = 0; i < kBatch; ++i)
      batch.push_back(
          training[gen.randint(0, static_cast<std::int64_t>(training.size()))]);
    const Batch b = encode(batch);  // inputs and targets [32, 11]
    adam.zero_grad();
    Tensor loss =  // the mean over the batch's predictions; padding is ignored
        cross_entropy(model(b.inputs).reshape({kBatch * kPositions, kSymbols}),
                      b.targets.reshape({-1}));
    since += loss.item() / kEvery;
    loss.backward();
    adam.step();
    schedule.step();
    if (step % kEvery == 0) {
      curve.steps.push_back(step), curve.training.push_back(since), since = 0;
      curve.validation.push_back(
          per_prediction(model_word_losses(model, some_validation), some_validation));
    }
  }
  return curve;
}

// %% fold: keeping each seed's trained model for the chapter's other claims
struct Trained {
  std::unique_ptr<LanguageModel> model;
  Curve curve;
};

// The model trained with `seed`: trained by the first process of this program that asks
// for it, and loaded by the others (book::train_once).
const Trained& trained(std::uint64_t seed) {
  static std::map<std::uint64_t, Trained> cache;
  auto found = cache.find(seed);
  if (found != cache.end()) return found->second;
  Generator gen(seed);
  Trained t{std::make_unique<LanguageModel>(gen), {}};
  const book::Record r = book::train_once("model", seed, *t.model, [&] {
    const Curve c = train(*t.model, seed);
    return book::Record{
        {"steps", c.steps}, {"training", c.training}, {"validation", c.validation}};
  });
  t.curve = {r.at("steps"), r.at("training"), r.at("validation")};
  return cache.emplace(seed, std::move(t)).first->second;
}

// Each validation word's total loss under the model trained with `seed`, computed once
// per process, since several claims compare it.
const std::vector<double>& validation_losses(std::uint64_t seed) {
  static std::map<std::uint64_t, std::vector<double>> cache;
  auto found = cache.find(seed);
  if (found != cache.end()) return found->second;
  return cache
      .emplace(seed, model_word_losses(*trained(seed).model, words().validation))
      .first->second;
}

// %%
// Is the model better than the bigram, or only lucky on these validation words? We
// measure its lead word by word, as section 1 compared the n-grams, and claim it
// more than 4 standard errors, for three seeds.
//
// The same loss is often given in two other units, which the account shows for the
// first seed and for the bigram. Divided by :math:`\ln 2`, nats become *bits*: how many
// yes-or-no questions, on average, the model still needs answered to know the next
// symbol. And :math:`e^{L}`, the *perplexity*, is the number of equally likely symbols
// among which a uniform guess would be as unsure as the model: 27 for the uniform
// guess itself.
//
// .. figure:: training_curves
//
//    The training loss (mean over each 500 steps) and the validation loss (on 500
//    validation words) of the first seed, with the validation losses of the uniform
//    guess and of the bigram, trigram and four-gram as lines.

TEST_CASE(
    "the trained Transformer's validation loss is below the bigram's by more than 4 "
    "standard errors, for three seeds") {
  const auto& validation = words().validation;
  const auto bigram_losses = bigram_word_losses(validation);
  const double bigram_loss = per_prediction(bigram_losses, validation);
  const auto lead_of = [&](std::uint64_t seed) {
    const auto& losses = validation_losses(seed);
    const double loss = per_prediction(losses, validation);
    const Lead over_bigram = lead(bigram_losses, losses, validation);
    const double ratio = over_bigram.per_prediction, se = over_bigram.standard_error;
    out() << "seed " << seed << ": validation loss " << loss << " nats per prediction "
          << "(bigram " << bigram_loss << "), lead " << ratio / se
          << " standard errors\n";
    if (seed == kSeeds[0]) {
      out() << "in other units: " << loss / std::log(2.0) << " bits per prediction "
            << "and perplexity " << std::exp(loss)
            << " (the bigram: " << bigram_loss / std::log(2.0) << " bits, perplexity "
            << std::exp(bigram_loss) << ")\n";
      book::measured("bits per prediction", loss / std::log(2.0),
                     "the first seed's validation loss in bits (the bigram's: " +
                         std::to_string(bigram_loss / std::log(2.0)) + ")");
      book::measured("perplexity", std::exp(loss),
                     "e to the first seed's validation loss (the bigram's: " +
                         std::to_string(std::exp(bigram_loss)) + "; uniform: 27)");
    }
    return ratio / se;
  };
  out() << "the model has " << parameter_count(*trained(kSeeds[0]).model)
        << " parameters; its training draws " << kSteps * kBatch << " words, "
        << static_cast<double>(kSteps * kBatch) /
               static_cast<double>(words().training.size())
        << " times the training list's\n";
  const Curve& c = trained(kSeeds[0]).curve;
  const double last = c.steps.back();
  const double trigram_loss =
                   per_prediction(trigram_word_losses(validation), validation),
               fourgram_loss =
                   per_prediction(ngram_word_losses(3, validation), validation);
  book::figure(
      "training_curves",
      book::line_plot(
          "step", "nats per prediction",
          {book::series("uniform, ln 27", {0, last}, {std::log(27.0), std::log(27.0)})
               .set("style", "k:"),
           book::series("bigram", {0, last}, {bigram_loss, bigram_loss})
               .set("style", "k--"),
           book::series("trigram", {0, last}, {trigram_loss, trigram_loss})
               .set("style", "k-."),
           book::series("four-gram", {0, last}, {fourgram_loss, fourgram_loss})
               .set("style", "k-"),
           book::series("training", c.steps, c.training),
           book::series("validation", c.steps, c.validation)}));
  book::check_seeds("lead over the bigram", "in standard errors", book::above(4),
                    {std::begin(kSeeds), std::end(kSeeds)}, lead_of);
}

// %%
// And against the longer contexts of section 1? After 4,000 steps of 32 words the
// Transformer is ahead of the best table of counts the chapter builds, the four-gram
// (section 1 found the five-gram behind it, its counts too thin). The test claims,
// for each of three seeds, that it is ahead of the trigram and of the four-gram, each
// by more than 4 standard errors (from :math:`\bar r` and its standard error as in
// section 1). The four-gram is the hard one. It sees the same three letters before a
// prediction that the Transformer sees, and it reads off what they say from every
// occurrence in the training words at once, where the Transformer must learn it by
// gradient steps, from the batches it happens to draw. What the Transformer has that
// counting lacks is reach: it reads the whole word so far, where counts of longer
// contexts run thin (section 1). Given steps enough, we expect it to learn what the
// counts know and to use that reach too; the claim below shows that it ends ahead of
// the counts, not which of the two it used.

TEST_CASE(
    "after 4,000 steps the Transformer is ahead of the trigram and of the four-gram, "
    "each by more than 4 standard errors, for three seeds") {
  const auto& validation = words().validation;
  const auto bigram_losses = bigram_word_losses(validation);
  const auto trigram_losses = trigram_word_losses(validation);
  const auto fourgram_losses = ngram_word_losses(3, validation);
  const std::vector<std::uint64_t> seeds(std::begin(kSeeds), std::end(kSeeds));
  const auto in_standard_errors = [](const Lead& l) {
    return l.per_prediction / l.standard_error;
  };
  book::check_seeds(
      "the Transformer's lead over the trigram", "standard errors", book::above(4),
      seeds, [&](std::uint64_t seed) {
        const auto& model = validation_losses(seed);
        const Lead over_bigram = lead(bigram_losses, model, validation),
                   over_trigram = lead(trigram_losses, model, validation),
                   over_fourgram = lead(fourgram_losses, model, validation);
        out() << "seed " << seed << ": the Transformer's lead over the bigram "
              << over_bigram.per_prediction << " ± " << over_bigram.standard_error
              << ", over the trigram " << over_trigram.per_prediction << " ± "
              << over_trigram.standard_error << ", over the four-gram "
              << over_fourgram.per_prediction << " ± " << over_fourgram.standard_error
              << " nats per prediction\n";
        return in_standard_errors(over_trigram);
      });
  book::check_seeds("the Transformer's lead over the four-gram", "standard errors",
                    book::above(4), seeds, [&](std::uint64_t seed) {
                      return in_standard_errors(
                          lead(fourgram_losses, validation_losses(seed), validation));
                    });
}

// %%
// Between the counts and the Transformer stands the model that Bengio and colleagues
// used for words in 2003, and Karpathy's makemore for letters: a *multilayer
// perceptron* (MLP) over the last few symbols. Each of the three symbols before a
// prediction is looked up in a table of learned vectors of width 10 (chapter 7's
// embedding), giving :math:`[n, 3, 10]` for :math:`n` predictions. The three vectors of
// a prediction are laid end to end, the first symbol's 10 numbers, then the second's,
// then the third's: a reshape to :math:`[n, 30]`, which moves no number. A layer of 200
// rectifier units (chapter 4's relu; Bengio's and makemore's used tanh) reads that, and
// a linear read-out gives the 27 scores. The sizes, three symbols, width 10 and 200
// units, are makemore's. Like the four-gram it sees three symbols back and no more.
// Unlike it, it keeps no count for each of the :math:`27^3` contexts: all contexts
// share its parameters (the account prints how many), so that letters that behave alike
// can get vectors alike and what it learns in one context can serve another.
//
// It trains as the Transformer did, for a fifth of the steps: AdamW at a peak rate of
// 0.01, a warm-up over 100 steps and a cosine to 0 over 800, on the Transformer's
// first 800 batches, drawn from the same generator. A batch is 32 words, and so every
// prediction in them, where makemore's batch is 32 contexts. Its training loop, below,
// is the Transformer's with the other model in it, and without the curve.

constexpr std::int64_t kContext = 3, kLetterWidth = 10, kHidden = 200;
constexpr int kMlpSteps = 800, kMlpWarmup = 100;
constexpr double kMlpRate = 0.01;

// Every prediction of `list`, in order: its three symbols of context, inputs [n, 3],
// and the symbol, targets [n]. Each word is spelled after three boundaries, as the
// four-gram's were, so that its first letter has three symbols before it too.
Batch contexts(const std::vector<std::string>& list) {
  std::vector<double> inputs, targets;
  for (const auto& w : list) {
    const std::string spelled = std::string(kContext, '.') + w + ".";
    for (std::size_t i = 0; i + kContext < spelled.size(); ++i) {
      for (std::int64_t j = 0; j < kContext; ++j)
        inputs.push_back(symbol(spelled[i + j]));
      targets.push_back(symbol(spelled[i + kContext]));
    }
  }
  const auto n = static_cast<std::int64_t>(targets.size());
  return {tensor(inputs, {n, kContext}, DType::Int64),
          tensor(targets, {n}, DType::Int64)};
}

// Contexts [n, 3] → scores for the next symbol [n, 27]. Section 3 gives it dropout of
// probability `drop` on its units, with masks drawn from `drops`; at 0, the default,
// dropout is the identity and draws nothing.
struct MLP : nn::Module {
  nn::Embedding letters;
  nn::Linear hidden, readout;
  nn::Dropout dropout;
  explicit MLP(Generator& gen, double drop = 0, Generator& drops = default_generator())
      : Module("MLP"),
        letters(kSymbols, kLetterWidth, std::nullopt, gen),
        hidden(kContext * kLetterWidth, kHidden, true, gen),
        readout(kHidden, kSymbols, true, gen),
        dropout(drop, drops) {
    register_module("letters", letters), register_module("hidden", hidden);
    register_module("readout", readout), register_module("dropout", dropout);
  }
  Tensor operator()(const Tensor& context) const {
    const Tensor laid_end_to_end =  // [n, 3, 10] → [n, 30]
        letters(context).reshape({context.size(0), kContext * kLetterWidth});
    const Tensor units = relu(hidden(laid_end_to_end));  // [n, 200]
    return readout(dropout(units));                      // [n, 27]
  }
};

void train_mlp(MLP& mlp, std::uint64_t seed) {
  Generator gen(1000 + seed);  // the batches the Transformer of this seed saw: its loop
                               // draws from this generator as this one does
  optim::AdamW adam(mlp.parameters(), {kMlpRate});
  optim::lr_scheduler::LambdaLR schedule(
      adam, optim::lr_scheduler::cosine_with_warmup(kMlpWarmup, kMlpSteps));
  const auto& training = words().training;
  for (int step = 1; step <= kMlpSteps; ++step) {
    std::vector<std::string> batch;
    for (int i = 0; i < kBatch; ++i)
      batch.push_back(
          training[gen.randint(0, static_cast<std::int64_t>(training.size()))]);
    const Batch b = contexts(batch);  // every prediction of the 32 words
    adam.zero_grad();
    Tensor loss = cross_entropy(mlp(b.inputs), b.targets);
    loss.backward();
    adam.step();
    schedule.step();
  }
}

// %% fold: each word's loss under the MLP
std::vector<double> mlp_word_losses(const MLP& mlp,
                                    const std::vector<std::string>& list) {
  NoGradGuard no_grad;
  const Batch b = contexts(list);
  const Tensor losses = cross_entropy(mlp(b.inputs), b.targets, Reduction::None);
  std::vector<double> out;
  std::int64_t i = 0;
  for (const auto& w : list) {
    double total = 0;
    for (std::size_t j = 0; j <= w.size(); ++j) total += losses.at({i++});
    out.push_back(total);
  }
  return out;
}

// %%
// The test claims, for three seeds and by 4 standard errors as before, that the MLP is
// ahead of the bigram: learned vectors of three symbols beat counts of one. And that
// the four-gram is ahead of the MLP, although the two see the same three symbols. What
// they learned from differs: the four-gram's counts come from every training word, the
// MLP from the 800 batches of 32 words it drew, fewer words than the list has (the test
// checks that too). The account also prints the Transformer's loss beside the MLP's,
// and the two models' sizes; the Transformer trained five times as long, so the test
// claims nothing about which of the two is ahead.

TEST_CASE(
    "a multilayer perceptron over the last three symbols is ahead of the bigram, and "
    "the four-gram, which counts the same three symbols in every training word, is "
    "ahead of it, each by more than 4 standard errors, for three seeds, while it draws "
    "fewer words in training than the list has") {
  const auto& validation = words().validation;
  const auto bigram_losses = bigram_word_losses(validation);
  const auto fourgram_losses = ngram_word_losses(kContext, validation);  // 3 back
  std::map<std::uint64_t, std::vector<double>> mlp_losses;
  for (const std::uint64_t seed : kSeeds) {
    Generator gen(seed);
    MLP mlp(gen);
    train_mlp(mlp, seed);
    mlp_losses[seed] = mlp_word_losses(mlp, validation);
    out() << "seed " << seed << ": the MLP's validation loss "
          << per_prediction(mlp_losses[seed], validation) << ", the Transformer's "
          << per_prediction(validation_losses(seed), validation)
          << " nats per prediction\n";
    if (seed == kSeeds[0])
      out() << "parameters: the MLP " << parameter_count(mlp) << ", the Transformer "
            << parameter_count(*trained(seed).model) << "\n";
  }
  book::check("words drawn in training", kMlpSteps * kBatch,
              "by the MLP, against the training list's words",
              book::below(static_cast<double>(words().training.size())));
  const std::vector<std::uint64_t> seeds(std::begin(kSeeds), std::end(kSeeds));
  const auto in_standard_errors = [](const Lead& l) {
    return l.per_prediction / l.standard_error;
  };
  book::check_seeds(
      "the MLP's lead over the bigram", "standard errors", book::above(4), seeds,
      [&](std::uint64_t seed) {
        return in_standard_errors(lead(bigram_losses, mlp_losses[seed], validation));
      });
  book::check_seeds(
      "the four-gram's lead over the MLP", "standard errors", book::above(4), seeds,
      [&](std::uint64_t seed) {
        return in_standard_errors(lead(mlp_losses[seed], fourgram_losses, validation));
      });
}

// %%
// The causal mask makes the whole model causal, not just each attention layer: the
// embeddings, the norms, the feed-forward parts and the read-out all act on each
// position alone, and chapter 9 showed that a block's output at a position depends on
// nothing later. So the scores at position :math:`t` must not change in any bit when a
// later symbol changes, and their gradient with respect to the later positions' input
// vectors (token plus position embedding) must be exactly zero. This holds for any
// weights; the test uses a fresh model, compares *language* with *langxyzqj*, which
// differ in every letter after the fourth, and for the gradient runs the blocks and the
// read-out on input vectors it can differentiate.

TEST_CASE(
    "the scores at each position do not change in any bit when later symbols change, "
    "and their gradient with respect to the later positions is exactly zero") {
  Generator gen(7);
  const LanguageModel model(gen);
  const Batch word = encode({"language"}), other = encode({"langxyzqj"});
  const Tensor early = slice(model(word.inputs), 1, 0, 5);
  const Tensor early_other = slice(model(other.inputs), 1, 0, 5);
  const std::int64_t differing = differing_bits(early, early_other);
  // The gradient of the early scores with respect to every position's input vector,
  // through the same blocks, norm and read-out as the model's scores.
  Tensor x = model.embed(word.inputs).detach().requires_grad_();
  sum(slice(model.from_vectors(x), 1, 0, 5) * randn({1, 5, kSymbols}, gen)).backward();
  int nonzero = 0;
  for (std::int64_t t = 5; t < kPositions; ++t)
    for (std::int64_t i = 0; i < kWidth; ++i) nonzero += x.grad().at({0, t, i}) != 0.0;
  book::check("differing scores", differing, "at positions 0 to 4", book::exactly(0));
  book::check("nonzero gradients", nonzero,
              "of positions 0 to 4's scores, at positions 5 to 10", book::exactly(0));
}

// %% 3 · Too little data: overfitting, and dropout
//
// Every model so far learned from tens of thousands of words and was judged on words it
// never saw. A model with many more parameters than its training data has predictions
// can do something else: learn the training words by heart. Then its loss on the words
// it trains on keeps falling, while what it learns is less and less about spelling and
// more and more about those particular words, and its loss on words it has never seen
// turns up. That is chapter 5's *overfitting*, watched now as training goes on. The
// training loss alone cannot show it; the validation loss, on words kept out of
// training, does.
//
// To see it, train the MLP of section 2 on the first 50 training words only: a few
// hundred predictions, for more than ten times as many parameters (the account prints
// both counts, and the first test checks the ratio). Each step uses every prediction of
// the 50 words; AdamW runs at a constant rate of 0.001 for 200 steps, with its default
// weight decay of 0.01 (itself a mild brake on large weights, the same in every run
// here), and every 10 steps we record the loss on the 50 words and on the 500
// validation words of the Transformer's curve.
//
// *Dropout* (Srivastava and colleagues, 2014) fights overfitting with noise. While
// training, each of the 200 units' outputs is set to 0 with probability :math:`p`, at
// every step and for every prediction anew. Each step thus trains a different thinned
// network, all of them sharing the same weights, and no unit can rely on particular
// others being there, as the fragile combinations that learning 50 words by heart uses
// do. At evaluation nothing is dropped and the whole network predicts, standing in for
// an average over the thinned ones. For a unit's output to mean the same in both modes,
// the kept ones are multiplied by :math:`1/(1-p)` in training, so that each unit's
// expected output is what it was; this is *inverted* dropout, torch's form (the paper
// scaled the weights at evaluation instead), and exercise 3 writes it.
// :cpp:class:`litgrad::nn::Dropout`, like torch's, acts only in training mode, and a
// module's ``eval()`` and ``train()`` switch it and every module inside (the library's
// own tests check both); forget ``eval()`` and every prediction stays noisy. Each
// record is taken in evaluation mode.
//
// .. figure:: overfitting_curves
//
//    The MLP trained on 50 words (first seed): the loss on those words and on 500
//    validation words, without dropout and with dropout of half its units, and the
//    uniform guess's loss as a dotted line. Without dropout, the validation loss turns
//    up after its lowest record (the account prints the step) while the training loss
//    falls on; with dropout the turn comes later and the loss at step 200 is lower.

constexpr std::int64_t kFewWords = 50;
constexpr int kFewSteps = 200, kFewEvery = 10;
constexpr double kFewRate = 0.001, kDrop = 0.5;

// The first 50 training words.
const std::vector<std::string>& few_words() {
  static const std::vector<std::string> few(words().training.begin(),
                                            words().training.begin() + kFewWords);
  return few;
}

// What training on the 50 words recorded: its curve, and each validation word's loss at
// the lowest validation record (taken at `lowest_step`) and at the last.
struct Overfitting {
  Curve curve;
  int lowest_step = 0;
  double lowest_loss = INFINITY;
  std::vector<double> at_lowest, at_last;
};

// The MLP of `seed`, trained on the 50 words with dropout `drop` on its units.
Overfitting train_on_few(std::uint64_t seed, double drop) {
  Generator gen(seed);           // the start of section 2's MLP of this seed
  Generator drops(2000 + seed);  // the dropout masks
  MLP mlp(gen, drop, drops);
  const auto& few = few_words();
  const auto& validation = some_validation_words();
  const Batch b = contexts(few);  // every prediction of the 50 words, at every step
  optim::AdamW adam(mlp.parameters(), {kFewRate});
  Overfitting o;
  for (int step = 1; step <= kFewSteps; ++step) {
    adam.zero_grad();
    Tensor loss = cross_entropy(mlp(b.inputs), b.targets);
    loss.backward();
    adam.step();
    if (step % kFewEvery != 0) continue;
    mlp.eval();  // no unit dropped: the whole network predicts
    std::vector<double> now = mlp_word_losses(mlp, validation);
    const double loss_now = per_prediction(now, validation);
    o.curve.steps.push_back(step);
    o.curve.training.push_back(per_prediction(mlp_word_losses(mlp, few), few));
    o.curve.validation.push_back(loss_now);
    if (loss_now < o.lowest_loss) {
      o.lowest_loss = loss_now;
      o.lowest_step = step;
      o.at_lowest = now;
    }
    o.at_last = std::move(now);
    mlp.train();  // dropout acts again
  }
  return o;
}

// %% fold: training on the 50 words once per process for each seed and dropout
const Overfitting& on_few(std::uint64_t seed, double drop) {
  static std::map<std::pair<std::uint64_t, double>, Overfitting> cache;
  const auto key = std::make_pair(seed, drop);
  auto found = cache.find(key);
  if (found != cache.end()) return found->second;
  return cache.emplace(key, train_on_few(seed, drop)).first->second;
}

// %%
// The test claims, for three seeds, that without dropout the training loss falls from
// each of the 20 records to the next, while the validation loss falls to its lowest
// after the first record and then rises, by step 200, by more than 4 standard errors,
// measured word by word as in section 1 between the losses at the lowest record and at
// the last. The lowest of 20 records is picked on the same words it is compared on,
// which flatters it a little; the account prints how far beyond 4 the rise is. And it
// rises far: by step 200 the model is behind the uniform guess of section 1, by more
// than 4 standard errors. A model that guesses wrong with confidence pays more than
// one that admits it knows nothing: cross-entropy charges :math:`-\ln p` for the
// symbol that came, without limit as :math:`p` goes to 0.
//
// Stopping at the lowest validation record and keeping the weights from there is
// *early stopping*, the other common remedy. It uses the validation words to make a
// choice, which is what chapter 5 said a validation set is kept for.

TEST_CASE(
    "trained on 50 words, the MLP's training loss falls at every record, while its "
    "validation loss passes its lowest and rises by step 200 by more than 4 standard "
    "errors, to behind the uniform guess by more than 4, for three seeds") {
  Generator gen(kSeeds[0]);
  const double predicted = predictions(few_words());
  const auto parameters = static_cast<double>(parameter_count(MLP(gen)));
  out() << "the 50 words hold " << predicted << " predictions; the MLP has "
        << parameters << " parameters\n";
  book::check("parameters per prediction", parameters / predicted,
              "of the MLP, on the 50 words", book::above(10));
  const auto& validation = some_validation_words();
  std::vector<double> uniform;  // ln 27 for every prediction of each word
  for (const auto& w : validation) uniform.push_back((w.size() + 1) * std::log(27.0));
  int not_falling = 0;   // records from which the training loss did not fall
  int lowest_first = 0;  // seeds whose lowest validation record is the first
  const std::vector<std::uint64_t> seeds(std::begin(kSeeds), std::end(kSeeds));
  book::check_seeds("the validation loss's rise from its lowest", "standard errors",
                    book::above(4), seeds, [&](std::uint64_t seed) {
                      const Overfitting& o = on_few(seed, 0);
                      for (std::size_t i = 1; i < o.curve.training.size(); ++i)
                        not_falling += !(o.curve.training[i] < o.curve.training[i - 1]);
                      lowest_first += o.lowest_step == kFewEvery;
                      out() << "seed " << seed << ": training loss "
                            << o.curve.training.front() << " at step " << kFewEvery
                            << ", " << o.curve.training.back() << " at step "
                            << kFewSteps << "; validation loss lowest " << o.lowest_loss
                            << " at step " << o.lowest_step << ", "
                            << o.curve.validation.back() << " at step " << kFewSteps
                            << " (uniform guess " << std::log(27.0) << ")\n";
                      const Lead rise = lead(o.at_last, o.at_lowest, validation);
                      return rise.per_prediction / rise.standard_error;
                    });
  book::check_seeds("the uniform guess's lead at step 200", "standard errors",
                    book::above(4), seeds, [&](std::uint64_t seed) {
                      const Lead l = lead(on_few(seed, 0).at_last, uniform, validation);
                      return l.per_prediction / l.standard_error;
                    });
  book::check("records without a fall", not_falling,
              "of the training loss, over three seeds", book::exactly(0));
  book::check("seeds lowest at the first record", lowest_first, "of three",
              book::exactly(0));
}

// %%
// The second test trains the same MLP from the same start on the same 50 words with
// dropout of :math:`p = 0.5`, and claims, for three seeds, that its validation loss at
// step 200 is below the loss without dropout by more than 4 standard errors, word by
// word, and that its lowest record comes later: dropout delays overfitting, and it ends
// lower. The account prints each run's lowest loss beside the step. The figure also
// shows dropout's training loss.

TEST_CASE(
    "with dropout of half its units, the MLP trained on 50 words ends with a "
    "validation loss below the one without dropout by more than 4 standard errors, "
    "and reaches its lowest later, for three seeds") {
  int not_later = 0;  // seeds whose lowest record with dropout is not later
  book::check_seeds(
      "the lead at step 200 with dropout", "standard errors", book::above(4),
      {std::begin(kSeeds), std::end(kSeeds)}, [&](std::uint64_t seed) {
        const Overfitting &plain = on_few(seed, 0), &dropped = on_few(seed, kDrop);
        not_later += !(dropped.lowest_step > plain.lowest_step);
        out() << "seed " << seed << ": lowest validation record " << plain.lowest_loss
              << " at step " << plain.lowest_step << " without dropout, "
              << dropped.lowest_loss << " at step " << dropped.lowest_step
              << " with; at step " << kFewSteps << ", " << plain.curve.validation.back()
              << " without and " << dropped.curve.validation.back() << " with\n";
        const Lead l = lead(plain.at_last, dropped.at_last, some_validation_words());
        return l.per_prediction / l.standard_error;
      });
  book::check("seeds whose lowest comes no later with dropout", not_later, "of three",
              book::exactly(0));
  const Overfitting &plain = on_few(kSeeds[0], 0), &dropped = on_few(kSeeds[0], kDrop);
  const auto line = [](const std::string& label, const Curve& c,
                       const std::vector<double>& y, const std::string& style) {
    return book::series(label, c.steps, y).set("style", style);
  };
  const std::vector<double> ends = {plain.curve.steps.front(),
                                    plain.curve.steps.back()};
  book::figure(
      "overfitting_curves",
      book::line_plot(
          "step", "nats per prediction",
          {book::series("uniform, ln 27", ends, {std::log(27.0), std::log(27.0)})
               .set("style", "k:"),
           line("training, no dropout", plain.curve, plain.curve.training, "C0--"),
           line("validation, no dropout", plain.curve, plain.curve.validation, "C0-"),
           line("training, dropout 0.5", dropped.curve, dropped.curve.training, "C1--"),
           line("validation, dropout 0.5", dropped.curve, dropped.curve.validation,
                "C1-")}));
}

// %% 4 · Writing
//
// To write, start from the boundary symbol, ask the model for its scores for the next
// symbol, choose one, append it, and repeat until the model chooses the boundary (or
// the word reaches 10 letters, the longest the model has seen). How to choose?
// *Sampling at temperature* :math:`T` draws the next symbol from
// :math:`\operatorname{softmax}(z / T)` for scores :math:`z`, with ``multinomial`` and
// a ``Generator``. At :math:`T = 1` that is the model's own distribution. As
// :math:`T \to 0` it becomes the *greedy* choice, the symbol with the highest score: a
// symbol whose score is :math:`g` below the best gets probability at most
// :math:`e^{-g/T}`, which for :math:`g/T` above about 745 is exactly 0 in double
// precision (below half the smallest positive double, as chapter 5 found), and even
// well short of that is far too small for a draw to hit.
//
// The test writes one word from each of the 26 possible first letters, greedily
// (``argmax``) and by sampling at :math:`T = 10^{-6}`, and claims the two identical,
// letter for letter; it prints the smallest gap :math:`g` between the best and the
// second-best score it met, from which the bound above follows.

// Words continued from `prefixes` (each starting after the boundary), all at once: at
// each step the scores at each growing word's last position choose its next symbol,
// greedily when `temperature` is 0 and by sampling otherwise; a word that has ended (or
// is longer than the step) needs no scores and sits the step out. `smallest_gap`, if
// given, gets the smallest gap between the best and second-best scores of any choice.
std::vector<std::string> write(const LanguageModel& model,
                               std::vector<std::string> prefixes, double temperature,
                               Generator& gen, double* smallest_gap = nullptr,
                               std::int64_t top_k = 0) {
  NoGradGuard no_grad;
  std::vector<bool> done(prefixes.size(), false);
  for (std::int64_t length = 0; length < kPositions - 1; ++length) {
    std::vector<std::size_t> growing;  // the words `length` symbols long, not ended
    for (std::size_t b = 0; b < prefixes.size(); ++b)
      if (!done[b] && static_cast<std::int64_t>(prefixes[b].size()) == length)
        growing.push_back(b);
    if (growing.empty()) continue;
    // Causal: the scores after `length` symbols need only the first length + 1 inputs.
    const auto n = static_cast<std::int64_t>(growing.size()), seen = length + 1;
    std::vector<double> inputs(n * seen, 0);  // the boundary, then the word so far
    for (std::int64_t i = 0; i < n; ++i)
      for (std::int64_t t = 0; t < length; ++t)
        inputs[i * seen + t + 1] = symbol(prefixes[growing[i]][t]);
    Tensor scores = select(model(tensor(inputs, {n, seen}, DType::Int64)), 1,
                           length);  // [n, 27]: the next symbol after `length`
    if (top_k > 0) scores = top_k_filter(scores, top_k);  // below the k-th best: -inf
    const Tensor chosen =
        temperature == 0
            ? argmax(scores, 1)
            : multinomial(softmax(scores / temperature, 1), 1, false, gen).reshape({n});
    for (std::int64_t i = 0; i < n; ++i) {
      if (smallest_gap) {
        std::vector<double> row = select(scores, 0, i).to_vector();
        std::sort(row.rbegin(), row.rend());
        *smallest_gap = std::min(*smallest_gap, row[0] - row[1]);
      }
      const std::int64_t next = std::llround(chosen.at({i}));
      if (next == 0)
        done[growing[i]] = true;
      else
        prefixes[growing[i]] += letter(next);
    }
  }
  return prefixes;
}

// The 2,000 words the model of `seed` writes from scratch at `temperature`, keeping the
// `top_k` best symbols (0: all), with draws from Generator(`draws`); written once per
// process, since several claims read them.
const std::vector<std::string>& written(std::uint64_t seed, double temperature,
                                        std::int64_t top_k, std::uint64_t draws) {
  static std::map<std::tuple<std::uint64_t, double, std::int64_t, std::uint64_t>,
                  std::vector<std::string>>
      cache;
  const auto key = std::make_tuple(seed, temperature, top_k, draws);
  auto found = cache.find(key);
  if (found != cache.end()) return found->second;
  Generator gen(draws);
  return cache
      .emplace(key, write(*trained(seed).model, std::vector<std::string>(2000, ""),
                          temperature, gen, nullptr, top_k))
      .first->second;
}

TEST_CASE(
    "at temperature 1e-6, sampling writes exactly the greedy word from each of the 26 "
    "first letters") {
  const LanguageModel& model = *trained(kSeeds[0]).model;
  std::vector<std::string> firsts;
  for (char c = 'a'; c <= 'z'; ++c) firsts.push_back(std::string(1, c));
  Generator gen(11);
  double gap = INFINITY;
  const auto greedy = write(model, firsts, 0, gen, &gap);
  const auto cold = write(model, firsts, 1e-6, gen);
  int differing = 0;
  for (std::size_t i = 0; i < firsts.size(); ++i) differing += greedy[i] != cold[i];
  out() << "greedy words:";
  for (const auto& w : greedy) out() << " " << w;
  out() << "\nsmallest gap between the best two scores: " << gap
        << " (g/T = " << gap / 1e-6 << ")\n";
  book::check("differing words", differing, "of 26, sampled at T = 1e-6 against greedy",
              book::exactly(0));
}

// %%
// Greedy writing is dull: from each first letter it always writes the same word. At
// :math:`T = 1` the model writes invented words, in proportions that mimic the
// dictionary's. How closely? One property a model of spelling must get right is the
// length of words. The bigram model can only end a word when the previous letter
// suggests an end, whatever has come before; the Transformer sees the whole word so far
// and its position, so it can learn how long words are.
//
// The test samples 2,000 words from the model at :math:`T = 1` and 2,000 from the
// bigram, and compares each one's distribution of lengths (0 to 10 letters) with the
// dictionary's, counted on all its words, by the total variation distance
// :math:`\tfrac12 \sum_k |p_k - q_k|`. The dictionary's histogram :math:`q` is exact,
// but each sampled one is noisy, and so is its distance. Two bounds say how noisy. A
// bin :math:`\hat p_k` estimated from :math:`N` words is off by
// :math:`\sqrt{p_k(1 - p_k)/N}` on average or less, so the measured distance is off
// from the true one by at most :math:`\nu = \tfrac12 \sum_k \sqrt{p_k(1-p_k)/N}` in
// expectation (we put the measured :math:`\hat p_k` in for :math:`p_k`). And one word
// moves the distance by at most :math:`1/N`, so by McDiarmid's inequality it strays
// more than :math:`t` from its expectation with probability at most
// :math:`2e^{-2Nt^2}`: :math:`9 \cdot 10^{-5}` for :math:`t = 0.05` and
// :math:`N = 2000`. We claim the bigram's distance above the model's by more than both
// allowances for both distances, :math:`\nu_\text{model} + \nu_\text{bigram} + 2t`, for
// three seeds.
//
// .. figure:: word_lengths
//
//    The lengths of the dictionary's words, of 2,000 words written by the model (first
//    seed) and of 2,000 written by the bigram model. Since both writers stop at 10
//    letters, the last bar of each also
//    collects every word that would have run longer.

// %% fold: the bigram's writing, and the length histograms
std::vector<std::string> bigram_write(std::int64_t n, Generator& gen) {
  std::vector<double> p(kSymbols * kSymbols);
  for (std::int64_t k = 0; k < kSymbols * kSymbols; ++k)
    p[k] = std::exp(bigram().log_p[k]);
  const Tensor table = tensor(p, {kSymbols, kSymbols});
  std::vector<std::string> out;
  for (std::int64_t i = 0; i < n; ++i) {
    std::string w;
    std::int64_t previous = 0;
    while (static_cast<std::int64_t>(w.size()) < kPositions - 1) {
      previous =
          std::llround(multinomial(select(table, 0, previous), 1, false, gen).at({0}));
      if (previous == 0) break;
      w += letter(previous);
    }
    out.push_back(w);
  }
  return out;
}

std::vector<double> length_histogram(const std::vector<std::string>& list) {
  std::vector<double> h(kPositions, 0);
  for (const auto& w : list) h[w.size()] += 1.0 / list.size();
  return h;
}

double total_variation(const std::vector<double>& p, const std::vector<double>& q) {
  double d = 0;
  for (std::size_t k = 0; k < p.size(); ++k) d += std::fabs(p[k] - q[k]) / 2;
  return d;
}

// ν: the bound on the expected error of a total variation from a histogram of n words.
double distance_noise(const std::vector<double>& p, double n) {
  double nu = 0;
  for (double pk : p) nu += std::sqrt(pk * (1 - pk) / n) / 2;
  return nu;
}

// %%
// The test prints twenty of the words the first seed's model wrote at :math:`T = 1`,
// and twenty of the bigram's, beside the distances.

TEST_CASE(
    "the lengths of words the model writes at temperature 1 are closer to the "
    "dictionary's than the bigram's are, by more than both distances' allowances for "
    "noise, for three seeds") {
  const auto dictionary = length_histogram(plain_words());
  const double n = 2000;
  const double t = 0.05;  // McDiarmid: P(stray > t) <= 2 exp(-2 N t²) = 9e-5
  double fewest = 1e300;  // the smallest margin beyond the allowances
  for (auto seed : kSeeds) {
    const auto& model_words = written(seed, 1.0, 0, 100 + seed);
    Generator gen(150 + seed);
    const auto bigram_words = bigram_write(2000, gen);
    const auto model_lengths = length_histogram(model_words),
               bigram_lengths = length_histogram(bigram_words);
    const double model_distance = total_variation(model_lengths, dictionary),
                 bigram_distance = total_variation(bigram_lengths, dictionary);
    const double allowance =
        distance_noise(model_lengths, n) + distance_noise(bigram_lengths, n) + 2 * t;
    out() << "seed " << seed << ": length distance, model " << model_distance
          << ", bigram " << bigram_distance << " (allowance " << allowance << ")\n";
    fewest = std::min(fewest, bigram_distance - model_distance - allowance);
    if (seed != kSeeds[0]) continue;
    out() << "twenty words the model wrote:";
    for (int i = 0; i < 20; ++i) out() << " " << model_words[i];
    out() << "\ntwenty the bigram wrote:";
    for (int i = 0; i < 20; ++i) out() << " " << bigram_words[i];
    out() << "\n";
    std::vector<double> at(kPositions);
    for (std::int64_t k = 0; k < kPositions; ++k) at[k] = k;
    book::figure("word_lengths",
                 book::bar_plot("letters", "share of words", book::numbered(kPositions),
                                {book::series("dictionary", at, dictionary),
                                 book::series("Transformer", at, model_lengths),
                                 book::series("bigram", at, bigram_lengths)}));
  }
  book::check("smallest margin", fewest,
              "the bigram's distance minus the model's, less both allowances",
              book::above(0));
}

// %%
// The temperature trades being right against being varied. Dividing the scores by
// :math:`T < 1` sharpens the distribution toward the symbols the model trusts most, so
// more of what it writes should be real words, and more of it the same words. Since
// :math:`\operatorname{softmax}(z/T)_i` is proportional to :math:`e^{z_i/T} =
// (e^{z_i})^{1/T}`, it is the model's own distribution raised to the power
// :math:`1/T` and scaled to sum to 1: :math:`T = 0.5` squares each probability,
// :math:`T = 0.25` raises it to the fourth, and the likely symbols gain on the rest.
// (Above :math:`T = 1` it goes the other way: as :math:`T` grows every :math:`z/T`
// goes to 0, and equal scores are section 1's uniform guess.) The test
// sweeps the temperature, writing 2,000 words from each seed's model at :math:`T` =
// 0.25, 0.5 and 1, and counts the share :math:`\hat p` found in the dictionary (any of
// the plain words, training or validation). Each word is an independent draw, so a
// share is off by a standard error of :math:`\sqrt{p(1-p)/N}`, and the difference of
// two shares by :math:`\sqrt{p_1(1-p_1)/N + p_2(1-p_2)/N}`. We claim the share higher
// at each halving of the temperature, from 1 to 0.5 and from 0.5 to 0.25, by more than
// 4 such standard errors, for three seeds.
//
// The price is variety: the test also counts the share of the 2,000 words that are
// distinct, and claims it lower at :math:`T = 0.25` than at :math:`T = 1` by more than
// 0.1. A distinct share is not a count of independent draws, but one word changes it
// by at most :math:`1/N`, so, by McDiarmid's inequality as for the lengths, each strays
// more than 0.05 from its expectation with probability at most :math:`9 \cdot 10^{-5}`:
// a measured fall of more than 0.1 is a fall of the expected shares.
//
// .. figure:: temperature_sweep
//
//    The share of distinct words against the share of dictionary words among 2,000
//    written at each temperature, one line for each seed, running from T = 0.25 (the
//    highest share in the dictionary) through 0.5 to T = 1.

// The share of `list` in the dictionary, and its standard error.
struct Share {
  double share, standard_error;
};

Share dictionary_share(const std::vector<std::string>& list) {
  static const std::set<std::string> dictionary(plain_words().begin(),
                                                plain_words().end());
  double found = 0;
  for (const auto& w : list) found += dictionary.count(w);
  const double p = found / list.size();
  return {p, std::sqrt(p * (1 - p) / list.size())};
}

double distinct_share(const std::vector<std::string>& list) {
  return std::set<std::string>(list.begin(), list.end()).size() /
         static_cast<double>(list.size());
}

double standard_errors_apart(const Share& a, const Share& b) {
  return (a.share - b.share) / std::hypot(a.standard_error, b.standard_error);
}

TEST_CASE(
    "more of the words the model writes are in the dictionary at each halving of the "
    "temperature from 1 to 0.25, by more than 4 standard errors at each, and fewer of "
    "them are distinct at 0.25 than at 1, by more than 0.1, for three seeds") {
  const double temperatures[] = {0.25, 0.5, 1};
  // Each writing's generator, plus the seed: 100 and 200 are those of the lengths test
  // and the top-k figure, so that one process writes those words once.
  const std::uint64_t draws[] = {400, 200, 100};
  double fewest = INFINITY;  // the smallest fall in the distinct share, 1 to 0.25
  std::vector<book::Json> lines;
  book::check_seeds(
      "dictionary share at each halving", "standard errors, the lesser of two halvings",
      book::above(4), {std::begin(kSeeds), std::end(kSeeds)}, [&](std::uint64_t seed) {
        std::vector<Share> shares;
        std::vector<double> distinct, in_dictionary;
        for (int i = 0; i < 3; ++i) {
          const auto& list = written(seed, temperatures[i], 0, draws[i] + seed);
          shares.push_back(dictionary_share(list));
          distinct.push_back(distinct_share(list));
          in_dictionary.push_back(shares.back().share);
          out() << "seed " << seed << ", T = " << temperatures[i]
                << ": in the dictionary " << shares.back().share << ", distinct "
                << distinct.back() << "\n";
          if (seed == kSeeds[0] && temperatures[i] != 1) {
            out() << "twenty words written at T = " << temperatures[i] << ":";
            for (int w = 0; w < 20; ++w) out() << " " << list[w];
            out() << "\n";
          }
        }
        fewest = std::min(fewest, distinct[2] - distinct[0]);
        lines.push_back(
            book::series("seed " + std::to_string(seed), distinct, in_dictionary)
                .set("style", "o-"));
        return std::min(standard_errors_apart(shares[0], shares[1]),   // 0.5 to 0.25
                        standard_errors_apart(shares[1], shares[2]));  // 1 to 0.5
      });
  book::figure("temperature_sweep", book::line_plot("share of distinct words",
                                                    "share in the dictionary", lines));
  book::check("smallest fall in the distinct share", fewest, "T = 0.25 against T = 1",
              book::above(0.1));
}

// %%
// *Top-k* sampling (chapter 12 meets it again) cuts the tail instead: it keeps the
// :math:`k` highest scores, sets the rest to :math:`-\infty`, and samples among the
// kept ones (:cpp:func:`litgrad::top_k_filter`). With :math:`k = 3` at :math:`T = 1`, a
// word can never take a symbol outside the model's three favourites (more only on a
// tie), so more of its words should be real and fewer different. The test claims both,
// for three seeds: the dictionary share above plain sampling's by more than 4 standard
// errors, and the measured share of distinct words below plain sampling's by more than
// 0.1, which, as in the sweep, is a fall of the expected shares. The account also
// prints how many of the dictionary words written are validation words, real words the
// model never trained on, and how many are training words it may have learned by heart.
//
// .. figure:: sampling_tradeoff
//
//    The share of distinct words against the share of dictionary words among 2,000
//    written, for each seed (one mark each), at T = 1, at T = 0.5, and at T = 1 with
//    top-3.

TEST_CASE(
    "top-k with k = 3 at temperature 1 writes more dictionary words than plain "
    "sampling by more than 4 standard errors, and fewer distinct words by more than "
    "0.1, for three seeds") {
  std::vector<double> plain_x, plain_y, cold_x, cold_y, top_x, top_y;
  double fewest = INFINITY;  // the smallest fall in the distinct share
  const std::set<std::string> unseen(words().validation.begin(),
                                     words().validation.end());  // never trained on
  book::check_seeds(
      "dictionary share, top-3 over plain", "standard errors", book::above(4),
      {std::begin(kSeeds), std::end(kSeeds)}, [&](std::uint64_t seed) {
        const auto& plain = written(seed, 1.0, 0, 100 + seed);
        const auto& top = written(seed, 1.0, 3, 300 + seed);
        const auto& cold = written(seed, 0.5, 0, 200 + seed);
        const Share p = dictionary_share(plain), t = dictionary_share(top);
        plain_x.push_back(distinct_share(plain)), plain_y.push_back(p.share);
        top_x.push_back(distinct_share(top)), top_y.push_back(t.share);
        cold_x.push_back(distinct_share(cold));
        cold_y.push_back(dictionary_share(cold).share);
        fewest = std::min(fewest, plain_x.back() - top_x.back());
        double new_plain = 0, new_top = 0;
        for (const auto& w : plain) new_plain += unseen.count(w);
        for (const auto& w : top) new_top += unseen.count(w);
        out() << "seed " << seed << ": validation words written, plain " << new_plain
              << " and top-3 " << new_top << " of 2,000; the other dictionary words "
              << "written are training words\n";
        out() << "seed " << seed << ": top-3 in the dictionary " << t.share
              << ", distinct " << top_x.back() << "; plain " << p.share << ", distinct "
              << plain_x.back() << "\n";
        return standard_errors_apart(t, p);
      });
  book::figure(
      "sampling_tradeoff",
      book::line_plot("share of distinct words", "share in the dictionary",
                      {book::series("T = 1", plain_x, plain_y).set("style", "o"),
                       book::series("T = 0.5", cold_x, cold_y).set("style", "s"),
                       book::series("T = 1, top-3", top_x, top_y).set("style", "^")}));
  book::check("smallest fall in the distinct share", fewest, "top-3 against plain",
              book::above(0.1));
}

// %%
// Where does the model look as it spells? The figure shows the last block's attention,
// for each of its four heads, while it reads one validation word.
//
// .. figure:: word_attention
//
//    The last block's attention weights for each head on the first validation word,
//    read left to right: row :math:`t` is the position predicting symbol :math:`t + 1`,
//    and the causal mask leaves everything above the diagonal at 0.

// %% fold: drawing the last block's attention on one word
void draw_word_attention(const LanguageModel& model, const std::string& w) {
  NoGradGuard no_grad;
  Tensor weights;
  model(encode({w}).inputs, &weights);  // [1, 4, 11, 11]
  const auto n = static_cast<std::int64_t>(w.size()) + 1;
  std::vector<std::string> labels = {"."};
  for (char c : w) labels.push_back(std::string(1, c));
  std::vector<book::Json> heads;
  for (std::int64_t h = 0; h < kHeads; ++h)
    heads.push_back(
        book::heatmap(
            slice(slice(select(select(weights, 0, 0), 0, h), 0, 0, n), 1, 0, n), labels,
            labels, "attends to", "reading")
            .set("title", "head " + std::to_string(h)));
  book::figure("word_attention", book::side_by_side(heads));
}

// %%
// The test draws it, and checks the one thing the figure promises beyond the pictures:
// every weight above the diagonal is exactly 0, and every row sums to 1 within
// :math:`22u`. The softmax's sum of 11 exponentials is off by at most 10 roundings,
// :math:`10u` relatively, which moves every weight alike; dividing by it rounds each
// weight once more, :math:`u` in all when weighted by the weights; and our sum of the
// 11 weights adds another 10 roundings: :math:`21u`, and :math:`22u` covers the
// products of these small terms.

TEST_CASE(
    "in the last block's attention on a word, every weight on a later position is "
    "exactly 0 and every row sums to 1 within 22u") {
  const LanguageModel& model = *trained(kSeeds[0]).model;
  const std::string w = words().validation[0];
  draw_word_attention(model, w);
  NoGradGuard no_grad;
  Tensor weights;
  model(encode({w}).inputs, &weights);
  int nonzero_later = 0;
  double worst_row = 0;
  for (std::int64_t h = 0; h < kHeads; ++h)
    for (std::int64_t i = 0; i < kPositions; ++i) {
      double row = 0;
      for (std::int64_t j = 0; j < kPositions; ++j) {
        row += weights.at({0, h, i, j});
        if (j > i) nonzero_later += weights.at({0, h, i, j}) != 0.0;
      }
      worst_row = std::max(worst_row, std::fabs(row - 1));
    }
  out() << "the word: " << w << "\n";
  book::check("nonzero later weights", nonzero_later, "above the diagonal, 4 heads",
              book::exactly(0));
  book::check("largest |row sum - 1|", worst_row, "over 44 rows",
              book::at_most(22 * kU));
}

// %% 5 · Where next
//
// This model reads one word at a time, a letter at a time, from an alphabet of 27
// symbols. Running text is more than that: capitals, digits, punctuation, spaces
// between words and letters from other alphabets, and at a letter per step its
// sequences grow long. Chapter 11 turns text of any kind into *tokens*: from bytes to
// the pieces of words that byte-pair encoding learns from WordNet's definitions, with
// what each size of vocabulary costs and saves.

// %% fold: the end of the file's namespace
}  // namespace
