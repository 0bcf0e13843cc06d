// Chapter 7 · Words as vectors
// ============================
//
// The networks of chapters 4 to 6 read numbers. Text is not numbers, so before a
// network can read a sentence each word must become a vector, and the vectors must be
// learned, because nobody can write down by hand which numbers should stand for *cat*.
// This chapter builds that bridge. An embedding is a table with one row per word;
// looking a word up is picking its row, which is the same, to the last bit, as
// multiplying a one-hot vector by the table, and training moves only the rows that were
// used. Dot products then measure how alike two vectors are, and the Cauchy–Schwarz
// inequality says which vector is most like a given one: itself. The simplest reading
// of a sentence, the average of its words, forgets their order. Last, we train a table
// on sentences generated from a few groups of words and watch the groups appear. The
// chapter ends on the question that chapter 8 answers.

// %% about: Embeddings as lookups that equal a one-hot product bit for bit, and where
// their gradients go; dot products and cosines as similarity; the average of a
// sentence's words and the order it forgets; word vectors learned from the company
// words keep.
// %% assumes: 1, 2, 5, 6

// %% fold: includes, and the names this file uses
#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <string>
#include <vector>

#include <litgrad/book/chapter.hpp>
#include <litgrad/book/figures.hpp>
#include <litgrad/litgrad.hpp>

using namespace litgrad;
using book::out;

namespace {

constexpr double kU = 0x1p-53;  // the unit roundoff of double precision

// How many elements of two tensors of one shape differ in any bit.
int differing_bits(const Tensor& a, const Tensor& b) {
  int differing = 0;
  for (std::int64_t i = 0; i < a.numel(); ++i)
    differing += std::memcmp(a.data() + i, b.data() + i, sizeof(double)) != 0;
  return differing;
}

// Int64 word ids from a list, shape [n].
Tensor ids(const std::vector<std::int64_t>& list) {
  std::vector<double> values(list.begin(), list.end());
  return tensor(values, {static_cast<std::int64_t>(list.size())}, DType::Int64);
}

// %% 1 · A table of vectors
//
// Give every word of a vocabulary of :math:`V` words a number from 0 to :math:`V-1`,
// and keep a table :math:`W` of shape :math:`[V, D]`, one row of :math:`D` numbers per
// word. The vector of word :math:`i` is row :math:`i`.
// :cpp:class:`litgrad::nn::Embedding` is such a table (it starts with standard normal
// entries, as torch's does), and calling it on a tensor of ids returns their rows: ids
// of shape :math:`[n]` give :math:`[n, D]`.
//
// The same rows come out of a matrix product. The one-hot vector of word :math:`i`
// (chapter 5) has a 1 at place :math:`i` and 0 elsewhere, and the row vector
// :math:`e_i^\top W` is :math:`\sum_k e_{ik} W_{kj} = W_{ij}`. In floating point this
// is not merely close but exact: :math:`1 \cdot W_{ij}` and :math:`0 \cdot W_{kj}` are
// exact products (the second is a zero, perhaps :math:`-0`), and adding a zero of
// either sign to a nonzero number returns that number unchanged, whatever order the sum
// is taken in. So ``one_hot(ids) @ W`` must equal ``embedding(ids)`` in every bit, as
// long as the table holds no exact zeros (a sum of :math:`+0` and :math:`-0` is
// :math:`+0`) and no infinities or NaNs (:math:`0 \cdot \infty` is NaN).

TEST_CASE(
    "looking words up in an embedding gives exactly the rows of one_hot(ids) @ weight, "
    "bit for bit") {
  Generator gen(7);
  nn::Embedding table(50, 16, std::nullopt, gen);
  const Tensor words = randint(0, 50, {200}, gen);
  const Tensor looked_up = table(words);
  const Tensor product = matmul(one_hot(words, 50).to(DType::Float64), table.weight);
  const int differing = differing_bits(looked_up, product);
  out() << "200 lookups in a [50, 16] table: " << looked_up.numel() << " numbers, "
        << differing << " differing from the product's in any bit\n";
  book::measured("differing numbers", differing, "between the lookup and the product",
                 book::exactly(0));
  CHECK(looked_up.shape() == Shape{200, 16});
  CHECK(differing == 0);
}

// %%
// The lookup is the cheaper of the two, :math:`nD` copies against :math:`nVD`
// multiplications, and the sturdier. Put an infinity into one row of the table, and
// every one-hot product is poisoned in that column, because each of them multiplies
// that row by a zero and :math:`0 \cdot \infty` is NaN; the lookup returns the infinity
// only for the ids that asked for that row.

TEST_CASE(
    "with an infinity in one row of the table, the product turns that column into NaN "
    "for every id, while the lookup is unchanged for every other row") {
  Generator gen(8);
  nn::Embedding table(10, 4, std::nullopt, gen);
  table.weight.requires_grad_(false);
  table.weight.data()[3 * 4 + 2] = std::numeric_limits<double>::infinity();  // row 3
  const Tensor words = ids({0, 1, 2, 4, 5, 6, 7, 8, 9});  // every row but 3
  const Tensor looked_up = table(words);
  const Tensor product = matmul(one_hot(words, 10).to(DType::Float64), table.weight);
  int nan_products = 0, finite_lookups = 0;
  for (std::int64_t r = 0; r < 9; ++r) {
    nan_products += std::isnan(product.at({r, 2}));
    finite_lookups += std::isfinite(looked_up.at({r, 2}));
  }
  book::measured("NaN products", nan_products,
                 "of the 9 rows that never asked for row 3, in column 2",
                 book::exactly(9));
  book::measured("finite lookups", finite_lookups, "of the same 9, looked up",
                 book::exactly(9));
  CHECK(nan_products == 9);
  CHECK(finite_lookups == 9);
}

// %%
// Training a table means following the gradient of a loss with respect to :math:`W`.
// Because the lookup only copies rows, the gradient of row :math:`i` collects the
// gradients of the outputs that copied it: nothing for a row no id asked for, and the
// gradient of that one output for a row asked for once. A row asked for twice was
// copied twice, so by the chain rule (chapter 2) it receives the sum of both copies'
// gradients. A network that sees a few words per step therefore updates only those
// words' rows of the gradient; every other row's gradient is exactly 0. (An optimiser
// with momentum or weight decay may still move those rows; plain SGD does not.) The
// test sends a random gradient :math:`G` back through a lookup of ids 2, 5, 2 and 7 in
// a table of 10 rows.

TEST_CASE(
    "the gradient reaches only the rows that were looked up: every other row's is "
    "exactly 0, a row looked up once gets its output's gradient, a row looked up twice "
    "the sum of both") {
  Generator gen(9);
  nn::Embedding table(10, 6, std::nullopt, gen);
  const Tensor words = ids({2, 5, 2, 7});
  const Tensor g = randn({4, 6}, gen);
  sum(table(words) * g).backward();
  const Tensor grad = table.weight.grad();
  int nonzero_elsewhere = 0, wrong_once = 0, wrong_twice = 0;
  for (std::int64_t row = 0; row < 10; ++row)
    for (std::int64_t j = 0; j < 6; ++j) {
      const double got = grad.at({row, j});
      if (row == 5)
        wrong_once += got != g.at({1, j});
      else if (row == 7)
        wrong_once += got != g.at({3, j});
      else if (row == 2)
        wrong_twice += got != g.at({0, j}) + g.at({2, j});
      else
        nonzero_elsewhere += got != 0.0;
    }
  out() << "gradient of the table:\n"
        << book::table(grad, book::numbered(10, "row "), book::numbered(6));
  book::measured("nonzero gradients elsewhere", nonzero_elsewhere,
                 "in the 7 rows nobody looked up", book::exactly(0));
  book::measured("rows 5 and 7 off", wrong_once,
                 "numbers differing from their output's gradient", book::exactly(0));
  book::measured("row 2 off", wrong_twice,
                 "numbers differing from the sum of its two outputs' gradients",
                 book::exactly(0));
  CHECK(nonzero_elsewhere == 0);
  CHECK(wrong_once == 0);
  CHECK(wrong_twice == 0);
}

// %% 2 · Similar vectors
//
// How alike are two word vectors? The dot product :math:`q \cdot k = \sum_j q_j k_j` is
// large when the two point the same way and are long, zero when they are at right
// angles, and negative when they point apart. The Cauchy–Schwarz inequality bounds it:
// :math:`q \cdot k \le |q|\,|k|`, with equality only when :math:`k` is a positive
// multiple of :math:`q`. Divide by the lengths and you get the *cosine similarity*
// :math:`\cos(q, k) = q \cdot k / (|q|\,|k|)`, between :math:`-1` and 1, which ignores
// length altogether.
//
// If all the vectors have one length :math:`r`, then
// :math:`q \cdot k \le r^2 = q \cdot q`, so among them the vector most similar to
// :math:`q` by dot product is :math:`q` itself, and no other vector ties with it unless
// it equals :math:`q`. Chapter 8 leans on exactly this when it lets each word score
// every word of a sentence (see :doc:`08_attention`). The test draws tables of 500
// random vectors of length 1 in 16 dimensions and asks, for every row, which row has
// the largest dot product with it. Rounding cannot spoil the answer: a dot of two unit
// vectors in 16 dimensions is a sum of 16 products whose magnitudes add up to at most
// 1, so it is computed to within about :math:`16u` (a few more :math:`u` for scaling
// the rows), far less than the gap between 1 and the largest dot of two distinct random
// directions. The test prints that gap and checks that it exceeds 16 times :math:`16u`.

// Rows of `x` [n, D] scaled to length 1.
Tensor unit_rows(const Tensor& x) { return x / norm(x, 2, {1}, true); }

// For every row of `x` [n, D], the row with the largest dot product with it.
std::vector<std::int64_t> best_matches(const Tensor& x) {
  const Tensor dots = matmul(x, transpose(x, 0, 1));
  const Tensor best = argmax(dots, 1);
  std::vector<std::int64_t> out(x.size(0));
  for (std::int64_t i = 0; i < x.size(0); ++i) out[i] = std::llround(best.at({i}));
  return out;
}

TEST_CASE(
    "among vectors of one length, each vector's largest dot product is with itself, "
    "for every row of three random tables of 500 vectors") {
  int elsewhere = 0;
  double widest_other = -1;  // the largest dot between two different rows
  for (std::uint64_t seed : {1, 2, 3}) {
    Generator gen(seed);
    const Tensor x = unit_rows(randn({500, 16}, gen));
    const auto best = best_matches(x);
    const Tensor dots = matmul(x, transpose(x, 0, 1));
    for (std::int64_t i = 0; i < 500; ++i) {
      elsewhere += best[i] != i;
      for (std::int64_t j = 0; j < 500; ++j)
        if (j != i) widest_other = std::max(widest_other, dots.at({i, j}));
    }
  }
  out() << "the largest dot of two different rows: " << widest_other << " (gap "
        << 1 - widest_other << " below 1, against rounding of about " << 16 * kU
        << ")\n";
  book::measured("rows matching another best", elsewhere, "of 1,500", book::exactly(0));
  CHECK(elsewhere == 0);
  CHECK(1 - widest_other > 16 * 16 * kU);
}

// %%
// The equal lengths matter. Without them a long vector pointing roughly the same way
// can beat :math:`q` itself: :math:`q \cdot k = |q|\,|k| \cos(q, k)` exceeds
// :math:`|q|^2` as soon as :math:`|k| \cos(q, k) > |q|`. Among standard normal vectors
// in 16 dimensions the lengths vary (most between about 3 and 5), so the short ones are
// often outscored. Any such case refutes "itself is always the best match", so the
// claim here is that it happens in every one of three tables of 500; the count shows
// how often.

TEST_CASE(
    "with lengths left to vary, some vector's largest dot product is with another "
    "vector, in each of three random tables") {
  int tables_with_one = 0, total = 0;
  for (std::uint64_t seed : {1, 2, 3}) {
    Generator gen(seed);
    const auto best = best_matches(randn({500, 16}, gen));
    int elsewhere = 0;
    for (std::int64_t i = 0; i < 500; ++i) elsewhere += best[i] != i;
    out() << "seed " << seed << ": " << elsewhere
          << " of 500 rows match another row best\n";
    tables_with_one += elsewhere > 0, total += elsewhere;
  }
  book::measured("tables with such a row", tables_with_one, "of 3", book::exactly(3));
  book::measured("such rows", total, "in the three tables together");
  CHECK(tables_with_one == 3);
}

// %% 3 · A sentence as an average
//
// The simplest vector for a whole sentence is the average of its words' vectors. It is
// a reasonable summary of *what* a sentence is about, but it cannot say anything about
// order: "dog bites man" and "man bites dog" average the same three rows. Computed in
// floating point, the two averages add the rows in different orders and so may differ
// by rounding. How much? Adding three numbers makes two roundings, each at most
// :math:`u` of a partial sum, so a sum :math:`s` is within :math:`2u \sum_i |x_i|` (to
// first order) of the exact one; dividing by 3 makes at most one more rounding of a
// number at most :math:`\sum_i |x_i| / 3`. Each average is therefore within
// :math:`u \sum_i |x_i|` of the true mean, and the two within :math:`2u \sum_i |x_i|`
// of each other, per feature. The test compares all six orders of a three-word sentence
// with the first, in tables of three seeds, and holds every difference to
// :math:`2.01\,u \sum_i |x_i|` (the 0.01 covers the second-order terms).

// The average of the rows of `table` at `words`: [D].
Tensor sentence_vector(const nn::Embedding& table,
                       const std::vector<std::int64_t>& words) {
  return mean(table(ids(words)), {0});
}

TEST_CASE(
    "the average of a sentence's word vectors is the same for every order of its "
    "words, "
    "to within 2u times the sum of the magnitudes averaged") {
  const std::vector<std::int64_t> dog_bites_man = {0, 1, 2};
  double worst = 0;  // the largest difference, in units of u·Σ|x_i|
  for (std::uint64_t seed : {1, 2, 3}) {
    Generator gen(seed);
    nn::Embedding table(3, 64, std::nullopt, gen);
    const Tensor rows = table.weight.detach();
    const Tensor first = sentence_vector(table, dog_bites_man);
    std::vector<std::int64_t> order = dog_bites_man;
    while (std::next_permutation(order.begin(), order.end())) {
      const Tensor other = sentence_vector(table, order);
      for (std::int64_t j = 0; j < 64; ++j) {
        const double magnitude = std::fabs(rows.at({0, j})) +
                                 std::fabs(rows.at({1, j})) +
                                 std::fabs(rows.at({2, j}));
        worst = std::max(worst,
                         std::fabs(first.at({j}) - other.at({j})) / (kU * magnitude));
      }
    }
  }
  book::measured("largest difference", worst, "in units of u·Σ|x_i|, over 5 orders × 3",
                 book::at_most(2.01));
  CHECK(worst <= 2.01);
}

// %%
// So a model that reads only the average cannot tell who bit whom: whatever it computes
// from the two sentences, it computes from the same numbers, to rounding. Section 5
// comes back to this.

// %% 4 · Learning vectors from the company words keep
//
// Where do good vectors come from? Words that appear in the same kinds of places tend
// to mean similar things: *cat* and *dog* both come after "the" and before "eats". So
// ask a table to be useful for predicting a word's neighbours. For each word of each
// sentence, and each other word at most two places away, the model looks the word up,
// multiplies its vector by a :math:`[D, V]` layer to get one score per vocabulary word,
// and pays the cross-entropy (chapter 5) of the neighbour under the softmax of those
// scores. This is the skip-gram model of Mikolov et al. (2013), without its tricks for
// large vocabularies. Words that share neighbours need similar scores, and so, through
// the same layer, similar vectors.
//
// The corpus is generated, so that we know the truth. Twenty words fall into four
// groups of five, *animals*, *foods*, *places* and *people*, and seven small words glue
// them into sentences of five templates, such as "the *animal* eats the *food*" or
// "*person* walks the *animal* in the *place*". Each sentence picks its template and
// its group members uniformly at random. Within a group, words are interchangeable:
// each appears in the same places with the same probabilities, so a perfect model would
// give them the same scores, and the groups differ in the places they take.

// %% fold: the vocabulary, the templates and the corpus
const std::vector<std::string> kWords = {
    "cat",   "dog",    "horse",  "goat",   "sheep",  // animals, ids 0 to 4
    "bread", "rice",   "soup",   "cheese", "apple",  // foods, 5 to 9
    "park",  "garden", "house",  "barn",   "field",  // places, 10 to 14
    "anna",  "tom",    "maria",  "omar",   "lena",   // people, 15 to 19
    "the",   "eats",   "sleeps", "in",     "cooks", "walks", "feeds", "to"};
constexpr std::int64_t kGroups = 4, kGroupSize = 5, kGroupWords = kGroups * kGroupSize;
const std::int64_t kVocabulary = static_cast<std::int64_t>(kWords.size());
const std::vector<std::string> kGroupNames = {"animals", "foods", "places", "people"};

std::int64_t word(const std::string& w) {
  return std::find(kWords.begin(), kWords.end(), w) - kWords.begin();
}

// The five templates: a negative entry -1 - g stands for a member of group g.
const std::vector<std::vector<std::int64_t>> kTemplates = {
    {word("the"), -1, word("eats"), word("the"), -2},
    {word("the"), -1, word("sleeps"), word("in"), word("the"), -3},
    {-4, word("cooks"), word("the"), -2, word("in"), word("the"), -3},
    {-4, word("walks"), word("the"), -1, word("in"), word("the"), -3},
    {-4, word("feeds"), word("the"), -2, word("to"), word("the"), -1}};

using Sentence = std::vector<std::int64_t>;

std::vector<Sentence> corpus(int sentences, Generator& gen) {
  std::vector<Sentence> out;
  for (int s = 0; s < sentences; ++s) {
    Sentence sentence;
    for (std::int64_t slot : kTemplates[gen.randint(0, 5)])
      sentence.push_back(slot >= 0 ? slot
                                   : (-1 - slot) * kGroupSize + gen.randint(0, 5));
    out.push_back(sentence);
  }
  return out;
}

// Every (word, neighbour) pair at most two places apart, as two Int64 tensors [pairs].
struct Pairs {
  Tensor centre, context;
  std::vector<int> sentence;  // which sentence each pair came from
};

Pairs pairs_of(const std::vector<Sentence>& sentences) {
  std::vector<std::int64_t> centre, context;
  Pairs p;
  for (std::size_t s = 0; s < sentences.size(); ++s) {
    const Sentence& words = sentences[s];
    const auto n = static_cast<std::int64_t>(words.size());
    for (std::int64_t i = 0; i < n; ++i)
      for (std::int64_t j = std::max<std::int64_t>(0, i - 2);
           j <= std::min(n - 1, i + 2); ++j)
        if (j != i) {
          centre.push_back(words[i]), context.push_back(words[j]);
          p.sentence.push_back(static_cast<int>(s));
        }
  }
  p.centre = ids(centre), p.context = ids(context);
  return p;
}

// %%
// One thing the neighbours cannot settle. In these templates a group word's neighbours
// are always small words, so the loss wants the scores of the other twenty words pushed
// down without end, and nothing in it cares how two animals' vectors differ in the
// directions that only move those already tiny probabilities. Weight decay settles it.
// For a fixed output layer, the cross-entropy is a convex function of a word's vector,
// and :math:`|x|^2` a strictly convex one; if two interchangeable words had different
// vectors, giving both their average would lose no loss and save some decay, so if the
// corpus gave two words exactly the same company, at the best point of loss plus decay
// they would share one vector. A sampled corpus gives groupmates nearly the same
// company, and so, we expect, nearly the same vectors. We therefore train with
// ``optim::AdamW`` (chapter 6), whose decay acts in the same spirit, and the last claim
// of this section trains without it to see the difference.
//
// The model: a table of 8-dimensional vectors and the output layer, trained for 1,000
// full-batch steps at rate 0.03 with decay 0.1 on the pairs of 5,000 sentences (a
// template of :math:`n` words gives :math:`4n - 6` pairs). The first seed's table
// before training is kept for the figures.

// A word's vector, then a score for every word as its neighbour: ids [n] → [n, V].
struct SkipGram : nn::Module {
  nn::Embedding table;
  nn::Linear scores;
  explicit SkipGram(Generator& gen)
      : Module("SkipGram"),
        table(kVocabulary, 8, std::nullopt, gen),
        scores(8, kVocabulary, true, gen) {
    register_module("table", table);
    register_module("scores", scores);
  }
  Tensor forward(const Tensor& centre) const { return scores(table(centre)); }
  Tensor operator()(const Tensor& centre) const { return forward(centre); }
};

// A copy of a table's values, which its optimiser's later steps leave alone.
Tensor copy_of(const Tensor& t) { return tensor(t.to_vector(), t.shape()); }

struct Trained {
  Tensor before, after;        // the table's rows, [V, 8]
  std::vector<double> losses;  // the training loss at every step
  double held_out = 0, unigram = 0, standard_error = 0;  // section 4's second claim
};

constexpr std::uint64_t kSeeds[] = {1, 2, 3};
constexpr int kSteps = 1000;
constexpr int kSentences = 5000;
constexpr double kRate = 0.03;
constexpr double kDecay = 0.1;

// %% fold: training, and measuring on held-out sentences
Trained train(std::uint64_t seed, double decay) {
  Generator gen(seed);
  const auto training = corpus(kSentences, gen), held_out = corpus(200, gen);
  SkipGram model(gen);
  Trained t;
  t.before = copy_of(model.table.weight);
  const Pairs p = pairs_of(training);
  // The full-batch loss is a mean over pairs, and most pairs occur many times: the same
  // loss, computed once per distinct pair, weighted by its share of all pairs.
  std::vector<double> share(kVocabulary * kVocabulary, 0);
  for (std::int64_t i = 0; i < p.centre.numel(); ++i)
    share[std::llround(p.centre.at({i})) * kVocabulary +
          std::llround(p.context.at({i}))] += 1.0 / p.centre.numel();
  std::vector<std::int64_t> centres, contexts;
  std::vector<double> shares;
  for (std::int64_t k = 0; k < kVocabulary * kVocabulary; ++k)
    if (share[k] > 0)
      centres.push_back(k / kVocabulary), contexts.push_back(k % kVocabulary),
          shares.push_back(share[k]);
  const Tensor centre = ids(centres), context = ids(contexts);
  const Tensor weight = tensor(shares, {static_cast<std::int64_t>(shares.size())});
  optim::AdamW adam(model.parameters(), {kRate, 0.9, 0.999, 1e-8, decay});
  for (int step = 0; step < kSteps; ++step) {
    adam.zero_grad();
    Tensor loss = sum(weight * cross_entropy(model(centre), context, Reduction::None));
    t.losses.push_back(loss.item());
    loss.backward();
    adam.step();
  }
  t.after = copy_of(model.table.weight);
  // Held out: each pair's loss under the model and under the training pairs' neighbour
  // frequencies, averaged per sentence (the pairs of one sentence are not independent).
  std::vector<double> frequency(kVocabulary, 0);
  for (std::int64_t i = 0; i < p.context.numel(); ++i)
    frequency[std::llround(p.context.at({i}))] += 1.0 / p.context.numel();
  const Pairs h = pairs_of(held_out);
  NoGradGuard no_grad;
  const Tensor losses = cross_entropy(model(h.centre), h.context, Reduction::None);
  std::vector<double> gap(held_out.size(), 0), count(held_out.size(), 0);
  for (std::int64_t i = 0; i < losses.numel(); ++i) {
    const double model_loss = losses.at({i});
    const double unigram_loss = -std::log(frequency[std::llround(h.context.at({i}))]);
    t.held_out += model_loss / losses.numel(),
        t.unigram += unigram_loss / losses.numel();
    gap[h.sentence[i]] += model_loss - unigram_loss, count[h.sentence[i]] += 1;
  }
  double mean = 0, square = 0;
  const double n = static_cast<double>(held_out.size());
  for (std::size_t s = 0; s < gap.size(); ++s) gap[s] /= count[s], mean += gap[s] / n;
  for (double g : gap) square += (g - mean) * (g - mean) / (n - 1);
  t.standard_error = std::sqrt(square / n);
  return t;
}

const Trained& trained(std::uint64_t seed, double decay = kDecay) {
  // Each claim is its own process; within one, each (seed, decay) trains once.
  static std::vector<std::pair<std::pair<std::uint64_t, double>, Trained>> cache;
  for (const auto& [key, t] : cache)
    if (key == std::make_pair(seed, decay)) return t;
  cache.emplace_back(std::make_pair(seed, decay), train(seed, decay));
  return cache.back().second;
}

// Cosine similarities between the 20 group words' rows of a table: [20, 20].
Tensor group_cosines(const Tensor& table) {
  const Tensor rows = unit_rows(slice(table, 0, 0, kGroupWords));
  return matmul(rows, transpose(rows, 0, 1));
}

// The mean cosine within groups and across them, over distinct pairs.
struct Gap {
  double within = 0, across = 0;
  double worst_margin =
      1e9;  // min over words: least similar groupmate - most similar outsider
};

Gap gap_of(const Tensor& cosines) {
  Gap g;
  int within = 0, across = 0;
  for (std::int64_t i = 0; i < kGroupWords; ++i) {
    double least_mate = 2, most_outsider = -2;
    for (std::int64_t j = 0; j < kGroupWords; ++j) {
      if (j == i) continue;
      const double c = cosines.at({i, j});
      if (i / kGroupSize == j / kGroupSize)
        g.within += c, ++within, least_mate = std::min(least_mate, c);
      else
        g.across += c, ++across, most_outsider = std::max(most_outsider, c);
    }
    g.worst_margin = std::min(g.worst_margin, least_mate - most_outsider);
  }
  g.within /= within, g.across /= across;
  return g;
}

// %%
// Before training, the rows are independent standard normal vectors, and the cosine of
// two independent random directions in :math:`D` dimensions has mean 0 and variance
// :math:`1/D`. Cosines of different pairs are uncorrelated (flipping the sign of one
// vector flips one and not the other), so the mean over the 40 pairs within groups
// minus the mean over the 150 pairs across groups has standard error :math:`\sqrt{(1/40
// + 1/150)/D} \approx 0.063` for :math:`D = 8`. Before training the groups are
// invisible: the test holds the difference within 4 standard errors of 0, for each
// seed.

TEST_CASE(
    "before training, the mean cosine within groups minus the mean across groups is "
    "within 4 standard errors of 0, for three seeds") {
  const double se = std::sqrt((1.0 / 40 + 1.0 / 150) / 8);
  double worst = 0;
  for (auto seed : kSeeds) {
    const Gap g = gap_of(group_cosines(trained(seed).before));
    out() << "seed " << seed << ": within " << g.within << ", across " << g.across
          << "\n";
    worst = std::max(worst, std::fabs(g.within - g.across) / se);
  }
  book::measured("largest |difference|", worst, "in standard errors", book::below(4));
  CHECK(worst < 4);
}

// %%
// After training, the groups should stand apart. The strongest form of "words of one
// group end up closer than words of different groups" is a separation with no
// exception: for every one of the 20 words, even its least similar groupmate is more
// similar (by cosine) than its most similar word from another group. The test measures,
// for each seed, the smallest margin over the 20 words between the two, and claims it
// is positive. A margin has no rounding to speak of here: cosines are computed to about
// :math:`10u`, and the test prints the margins it finds.
//
// .. figure:: word_map
//
//    The 20 group words' vectors before and after training (first seed), each projected
//    onto the two directions along which that table's vectors vary most (its principal
//    components). Before training the groups are mixed; after it, each is a cluster.
//
// .. figure:: cosine_map
//
//    The cosine similarity of every pair of group words after training: four bright
//    blocks on the diagonal, one per group, and lower values between groups.

// %% fold: drawing the tables: principal components and the cosine map
// The first two principal components of rows `x` [n, D], by power iteration on the
// covariance [D, D]: column c of the result [n, 2] holds the rows' coordinates along
// component c.
Tensor principal_coordinates(const Tensor& x) {
  const Tensor centred = x - mean(x, {0}, true);
  Tensor covariance = matmul(transpose(centred, 0, 1), centred);
  std::vector<Tensor> coordinates;
  for (int component = 0; component < 2; ++component) {
    Tensor v = ones({x.size(1), 1});
    for (int i = 0; i < 500; ++i)
      v = unit_rows(transpose(matmul(covariance, v), 0, 1)).transpose(0, 1);
    const Tensor variance = matmul(transpose(v, 0, 1), matmul(covariance, v));
    covariance = covariance - variance * matmul(v, transpose(v, 0, 1));  // deflate
    coordinates.push_back(matmul(centred, v));
  }
  return cat(coordinates, 1);
}

book::Json word_panel(const Tensor& table, const std::string& title) {
  const Tensor xy = principal_coordinates(slice(table, 0, 0, kGroupWords));
  std::vector<book::Json> groups;
  for (std::int64_t g = 0; g < kGroups; ++g) {
    std::vector<double> x, y;
    std::vector<std::string> names;
    for (std::int64_t i = g * kGroupSize; i < (g + 1) * kGroupSize; ++i)
      x.push_back(xy.at({i, 0})), y.push_back(xy.at({i, 1})),
          names.push_back(kWords[i]);
    groups.push_back(book::points(kGroupNames[g], x, y, names));
  }
  return book::plane("first principal component", "second principal component",
                     book::Json(), {}, groups)
      .set("title", title);
}

void draw_tables(const Trained& t) {
  book::figure("word_map", book::side_by_side({word_panel(t.before, "before training"),
                                               word_panel(t.after, "after training")}));
  const std::vector<std::string> names(kWords.begin(), kWords.begin() + kGroupWords);
  book::figure("cosine_map",
               book::heatmap(group_cosines(t.after), names, names, "word", "word"));
}

// %%
// The test trains on each seed and draws the first seed's tables.

TEST_CASE(
    "after training, every word's least similar groupmate is more similar to it than "
    "any word of another group, for three seeds") {
  double worst = 1e9;
  for (auto seed : kSeeds) {
    const Trained& t = trained(seed);
    const Gap g = gap_of(group_cosines(t.after));
    out() << "seed " << seed << ": loss " << t.losses.front() << " → "
          << t.losses.back() << "; mean cosine within groups " << g.within
          << ", across " << g.across << "; smallest margin " << g.worst_margin << "\n";
    worst = std::min(worst, g.worst_margin);
  }
  draw_tables(trained(kSeeds[0]));
  book::measured("smallest margin", worst,
                 "least similar groupmate's cosine minus most similar outsider's, over "
                 "20 words and three seeds",
                 book::above(0));
  CHECK(worst > 0);
}

// %%
// Without the decay, the same training still pulls groups together on average, but
// nothing makes groupmates share a vector, and the separation is left to chance: some
// words end up with a word of another group closer than one of their own. The test
// trains without decay (``AdamW`` with decay 0 is Adam) on the same three seeds and
// claims that, for each seed, the mean within groups is still above the mean across but
// the smallest margin is below the one trained with decay, and that the separation
// fails (a negative margin) for at least one of the three.

TEST_CASE(
    "trained without weight decay, groups are closer on average but less separated "
    "than with it, for each of three seeds, and not separated at all for at least "
    "one") {
  int closer_on_average = 0, less_separated = 0, unseparated = 0;
  for (auto seed : kSeeds) {
    const Gap without = gap_of(group_cosines(trained(seed, 0).after));
    const Gap with = gap_of(group_cosines(trained(seed).after));
    out() << "seed " << seed << ": within " << without.within << ", across "
          << without.across << ", smallest margin " << without.worst_margin
          << " (with decay " << with.worst_margin << ")\n";
    closer_on_average += without.within > without.across;
    less_separated += without.worst_margin < with.worst_margin;
    unseparated += without.worst_margin < 0;
  }
  book::measured("seeds closer on average", closer_on_average, "of 3",
                 book::exactly(3));
  book::measured("seeds less separated", less_separated,
                 "of 3, smallest margin below decay's", book::exactly(3));
  book::measured("seeds not separated", unseparated, "of 3, without decay",
                 book::at_least(1));
  CHECK(closer_on_average == 3);
  CHECK(less_separated == 3);
  CHECK(unseparated >= 1);
}

// %%
// The vectors carry what the corpus taught. On 200 held-out sentences, compare the
// model's loss for each (word, neighbour) pair with the loss of a guess that ignores
// the word and predicts each neighbour by its frequency among the training pairs. The
// pairs of one sentence share words, so they are not independent; the sentences are.
// The test therefore averages the difference over each sentence's pairs and takes the
// standard error over the 200 sentences, and claims the model's held-out loss below the
// frequency guess's by more than 4 standard errors, for each seed.

TEST_CASE(
    "on held-out sentences, the trained model predicts neighbours better than their "
    "frequencies do, by more than 4 standard errors, for three seeds") {
  double fewest = 1e9;  // the smallest lead, in standard errors
  for (auto seed : kSeeds) {
    const Trained& t = trained(seed);
    const double lead = (t.unigram - t.held_out) / t.standard_error;
    out() << "seed " << seed << ": held-out loss " << t.held_out
          << " nats per pair, frequencies alone " << t.unigram << " (lead " << lead
          << " standard errors)\n";
    fewest = std::min(fewest, lead);
  }
  book::measured("smallest lead", fewest, "in standard errors of the difference",
                 book::above(4));
  CHECK(fewest > 4);
}

// %% 5 · Weights from the words
//
// An average weighs every word the same, :math:`1/n`. Write it as a weighted sum,
// :math:`\sum_i w_i x_i` with weights :math:`w = \operatorname{softmax}(s)` for scores
// :math:`s`: equal scores give :math:`e^{s}/(n e^{s}) = 1/n` for every word, and the
// weighted sum is the average again. With :math:`n = 3` this computes
// :math:`\operatorname{fl}(1/3)` (one rounding: litgrad's softmax subtracts the largest
// score first, as chapter 5 showed, so every shifted score is exactly 0, each
// exponential exactly 1 and their sum exactly 3), three products (one each) and a sum
// (two), so each of its terms carries at most four roundings and the result is within
// :math:`\tfrac43 u \sum_i |x_i|` of the true mean, to first order; ``mean`` is within
// :math:`u \sum_i |x_i|` of it, as section 3 found, or :math:`\tfrac43 u \sum_i |x_i|`
// if it multiplies by :math:`\operatorname{fl}(1/3)` instead of dividing. The test
// holds the two to :math:`\tfrac83 u \sum_i |x_i|` of each other, per feature, over
// tables of three seeds, whatever the (equal) score.

TEST_CASE(
    "softmax weights from equal scores make the weighted sum of a sentence's vectors "
    "its average, to within 8/3 u times the sum of the magnitudes") {
  double worst = 0;  // in units of u·Σ|x_i|
  for (std::uint64_t seed : {1, 2, 3}) {
    Generator gen(seed);
    nn::Embedding table(3, 64, std::nullopt, gen);
    const Tensor rows = table(ids({0, 1, 2})).detach();  // [3, 64]
    for (double score : {0.0, 2.5, -40.0}) {
      const Tensor weights = softmax(full({1, 3}, score), 1);  // [1, 3]
      const Tensor weighted = matmul(weights, rows);           // [1, 64]
      const Tensor average = mean(rows, {0});
      for (std::int64_t j = 0; j < 64; ++j) {
        double magnitude = 0;
        for (std::int64_t i = 0; i < 3; ++i) magnitude += std::fabs(rows.at({i, j}));
        worst = std::max(
            worst, std::fabs(weighted.at({0, j}) - average.at({j})) / (kU * magnitude));
      }
    }
  }
  book::measured("largest difference", worst, "in units of u·Σ|x_i|",
                 book::at_most(8.0 / 3));
  CHECK(worst <= 8.0 / 3);
}

// %%
// An average, then, is a weighted sum that never looks at its words. Let the scores
// come from the words instead, by comparing each word's vector with the others' through
// dot products as in section 2, and each word can gather from the sentence what matters
// to it and ignore the rest. That is attention, the subject of :doc:`08_attention`.

// %% fold: the end of the file's namespace
}  // namespace
