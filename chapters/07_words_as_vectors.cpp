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
// inequality says which vector is most like a given one: itself, if all have one
// length. The simplest reading of a sentence, the average of its words, forgets their
// order, and no amount of training gives it back. Last, we generate sentences from a
// few groups of words, compute exactly the best that any model of them could do, and
// train a table that comes close to it, and whose rows sort themselves into the groups.
// The chapter ends on the question that chapter 8 answers.

// %% about: Embeddings as lookups that equal a one-hot product bit for bit, and where
// their gradients go; dot products and cosines as similarity; the average of a
// sentence and the order it cannot learn; word vectors learned from the company words
// keep, held against the best loss any model of the corpus can reach.
// %% assumes: 1, 2, 5, 6

// %% fold: includes, and the names this file uses
#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <functional>
#include <map>
#include <string>
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

const std::vector<std::uint64_t> kSeeds = {1, 2, 3};

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
// :math:`+0`) and no infinities or NaNs (:math:`0 \cdot \infty` is NaN). The lookup is
// the cheaper of the two, :math:`nD` copies against the product's :math:`nVD`
// multiplications, almost all of them by zero.

TEST_CASE(
    "looking words up in an embedding gives exactly the rows of one_hot(ids) @ weight, "
    "bit for bit") {
  Generator gen(7);
  nn::Embedding table(50, 16, std::nullopt, gen);
  const Tensor words = randint(0, 50, {200}, gen);
  const Tensor looked_up = table(words);
  const Tensor product = matmul(one_hot(words, 50).to(DType::Float64), table.weight);
  REQUIRE(looked_up.shape() == product.shape());
  out() << "200 lookups in a [50, 16] table: " << looked_up.numel() << " numbers\n";
  book::check("differing numbers", differing_bits(looked_up, product),
              "between the lookup and the product, in any bit", book::exactly(0));
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
  book::check("nonzero gradients elsewhere", nonzero_elsewhere,
              "in the 7 rows nobody looked up", book::exactly(0));
  book::check("rows 5 and 7 off", wrong_once,
              "numbers differing from their output's gradient", book::exactly(0));
  book::check("row 2 off", wrong_twice,
              "numbers differing from the sum of its two outputs' gradients",
              book::exactly(0));
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
// directions, which the test prints.

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
  for (std::uint64_t seed : kSeeds) {
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
  book::measured("gap below 1", 1 - widest_other,
                 "1 minus the largest dot of two different rows, against rounding of "
                 "about 16u = 1.8e-15");
  book::check("rows matching another best", elsewhere, "of 1,500", book::exactly(0));
}

// %%
// The equal lengths matter. Without them a long vector pointing roughly the same way
// can beat :math:`q` itself: :math:`q \cdot k = |q|\,|k| \cos(q, k)` exceeds
// :math:`|q|^2` as soon as :math:`|k| \cos(q, k) > |q|`. Among standard normal vectors
// in 16 dimensions the lengths vary (most between about 3 and 5), so the short ones are
// often outscored. Any such case refutes "itself is always the best match", so the
// claim here is that it happens in every one of three tables of 500; the counts show
// how often.

TEST_CASE(
    "with lengths left to vary, some vector's largest dot product is with another "
    "vector, in each of three random tables") {
  book::check_seeds("rows matching another best", "of 500", book::above(0), kSeeds,
                    [](std::uint64_t seed) {
                      Generator gen(seed);
                      const auto best = best_matches(randn({500, 16}, gen));
                      int elsewhere = 0;
                      for (std::int64_t i = 0; i < 500; ++i) elsewhere += best[i] != i;
                      return elsewhere;
                    });
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
    "words, to within 2u times the sum of the magnitudes averaged") {
  const std::vector<std::int64_t> dog_bites_man = {0, 1, 2};
  double worst = 0;  // the largest difference, in units of u·Σ|x_i|
  for (std::uint64_t seed : kSeeds) {
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
  book::check("largest difference", worst, "in units of u·Σ|x_i|, over 5 orders × 3",
              book::at_most(2.01));
}

// %%
// So a model that reads only the average cannot tell who bit whom, and training cannot
// teach it: whatever it computes from the two sentences, it computes from the same
// numbers. With two words the numbers are not merely close but the same bits, since
// :math:`a + b` and :math:`b + a` round alike. Take the 25 two-word phrases of an
// animal and a person, each in both orders, 50 in all, and ask of each whether the
// animal comes first. A model that averages the two words' vectors and scores the two
// answers with a linear layer gives both orders of a phrase the same scores, so it is
// right on exactly one of each pair: on exactly half, however long it trains. That is
// arithmetic, not learning, and what the test holds litgrad to is the arithmetic: the
// scores of each phrase and its reversal must be the same bits, which a mean that
// added its terms in an order that depends on where they sit would break. The same
// table and layer reading the two vectors side by side, concatenated into one of
// length :math:`2D`, can tell first from second, and learns every phrase. Both train
// their table and layer together, with Adam (chapter 6) at rate 0.05 for 200 full
// steps of cross-entropy (chapter 5), for three seeds.

// %% fold: the phrases, and the two readers
// The 50 phrases: ids [50, 2] of (animal a, person p) and (p, a), in a vocabulary of
// the five animals (0-4) and five people (5-9); the answer is 1 when the animal is
// first.
struct Phrases {
  Tensor words, answers;
};

Phrases phrases() {
  std::vector<double> words, answers;
  for (int a = 0; a < 5; ++a)
    for (int p = 5; p < 10; ++p) {
      words.insert(words.end(), {double(a), double(p), double(p), double(a)});
      answers.insert(answers.end(), {1, 0});
    }
  return {tensor(words, {50, 2}, DType::Int64), tensor(answers, {50}, DType::Int64)};
}

// A table of 10 words of width 8, read as the average of a phrase's two rows or as the
// two rows side by side, then a linear layer scoring the two answers: [n, 2] → [n, 2].
struct Reader : nn::Module {
  bool side_by_side;
  nn::Embedding table;
  nn::Linear score;
  Reader(bool side_by_side, Generator& gen)
      : Module("Reader"),
        side_by_side(side_by_side),
        table(10, 8, std::nullopt, gen),
        score(side_by_side ? 16 : 8, 2, true, gen) {
    register_module("table", table);
    register_module("score", score);
  }
  Tensor forward(const Tensor& words) const {
    const Tensor rows = table(words);  // [n, 2, 8]
    return score(side_by_side ? rows.reshape({words.size(0), 16}) : mean(rows, {1}));
  }
};

struct Read {
  double accuracy = 0;
  int pairs_scored_apart = 0;  // phrases whose two orders got scores differing in a bit
};

Read train_reader(bool side_by_side, std::uint64_t seed) {
  const Phrases data = phrases();
  Generator gen(seed);
  Reader model(side_by_side, gen);
  optim::Adam adam(model.parameters(), {0.05});
  for (int step = 0; step < 200; ++step) {
    adam.zero_grad();
    cross_entropy(model.forward(data.words), data.answers).backward();
    adam.step();
  }
  NoGradGuard no_grad;
  const Tensor scores = model.forward(data.words);
  const Tensor chosen = argmax(scores, 1);
  Read r;
  int right = 0;
  for (std::int64_t i = 0; i < 50; ++i) right += chosen.at({i}) == data.answers.at({i});
  r.accuracy = right / 50.0;
  for (std::int64_t i = 0; i < 50; i += 2)
    r.pairs_scored_apart +=
        differing_bits(select(scores, 0, i), select(scores, 0, i + 1)) > 0;
  return r;
}

// %%
// The test trains both readers for each seed.

TEST_CASE(
    "reading the average of a phrase, a trained model gives every phrase and its "
    "reversal the same bits, so it is right on exactly half of them, while the same "
    "model reading the words side by side learns every one, for three seeds") {
  std::map<std::uint64_t, Read> average;
  for (auto seed : kSeeds) average[seed] = train_reader(false, seed);
  book::check_seeds(
      "phrases scored apart", "of the 25, by the average reader", book::exactly(0),
      kSeeds, [&](std::uint64_t seed) { return average[seed].pairs_scored_apart; });
  book::check_seeds("average reader's accuracy", "on the 50 phrases",
                    book::exactly(0.5), kSeeds,
                    [&](std::uint64_t seed) { return average[seed].accuracy; });
  book::check_seeds(
      "side-by-side reader's accuracy", "on the 50 phrases", book::exactly(1), kSeeds,
      [](std::uint64_t seed) { return train_reader(true, seed).accuracy; });
}

// %% 4 · Learning vectors from the company words keep
//
// Where do good vectors come from? Words that appear in the same kinds of places tend
// to mean similar things: *cat* and *dog* both come after "the" and before "eats". So
// ask a table to be useful for predicting a word's neighbours. For each word of each
// sentence, and each other word at most two places away, the model looks the word up,
// multiplies its vector by a :math:`[D, V]` layer to get one score per vocabulary word,
// and pays the cross-entropy (chapter 5) of the neighbour under the softmax of those
// scores. This is the skip-gram model of Mikolov et al. (2013), without its tricks for
// large vocabularies (exercise 7.2 writes the main one). Words that share neighbours
// need similar scores, and so, through the same layer, similar vectors.
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

// Calls visit(centre, neighbour) for every pair of words at most two places apart.
void for_each_pair(const Sentence& words,
                   const std::function<void(std::int64_t, std::int64_t)>& visit) {
  const auto n = static_cast<std::int64_t>(words.size());
  for (std::int64_t i = 0; i < n; ++i)
    for (std::int64_t j = std::max<std::int64_t>(0, i - 2); j <= std::min(n - 1, i + 2);
         ++j)
      if (j != i) visit(words[i], words[j]);
}

// A distribution over (centre, neighbour) pairs, as the distinct pairs and their
// shares: centre and context Int64 [k], share Float64 [k], and all shares as a V × V
// table.
struct Pairs {
  Tensor centre, context, share;
  std::vector<double> table;  // table[c * V + o]
};

Pairs pairs_from(const std::vector<double>& counts) {
  double total = 0;
  for (double c : counts) total += c;
  Pairs p;
  std::vector<std::int64_t> centres, contexts;
  std::vector<double> shares;
  for (std::int64_t k = 0; k < kVocabulary * kVocabulary; ++k) {
    p.table.push_back(counts[k] / total);
    if (counts[k] > 0)
      centres.push_back(k / kVocabulary), contexts.push_back(k % kVocabulary),
          shares.push_back(counts[k] / total);
  }
  p.centre = ids(centres), p.context = ids(contexts);
  p.share = tensor(shares, {static_cast<std::int64_t>(shares.size())});
  return p;
}

// The pairs of a corpus, each distinct pair with its share of all the corpus's pairs.
Pairs pairs_of(const std::vector<Sentence>& sentences) {
  std::vector<double> counts(kVocabulary * kVocabulary, 0);
  for (const Sentence& s : sentences)
    for_each_pair(
        s, [&](std::int64_t c, std::int64_t o) { counts[c * kVocabulary + o] += 1; });
  return pairs_from(counts);
}

// The generator's own distribution of pairs: every template (chance 1/5) with every
// choice of its group members (1/5 each), its pairs counted with that chance. The
// shares are the expected counts over the expected total, which is what the shares of
// a corpus tend to as it grows.
Pairs generator_pairs() {
  std::vector<double> counts(kVocabulary * kVocabulary, 0);
  for (const auto& slots : kTemplates) {
    std::vector<std::int64_t> groups;  // the slots that are group words
    for (std::size_t i = 0; i < slots.size(); ++i)
      if (slots[i] < 0) groups.push_back(static_cast<std::int64_t>(i));
    const double chance = 0.2 * std::pow(0.2, groups.size());
    for (int choice = 0; choice < std::pow(5, groups.size()); ++choice) {
      Sentence sentence(slots.begin(), slots.end());
      int rest = choice;
      for (std::int64_t i : groups)
        sentence[i] = (-1 - slots[i]) * kGroupSize + rest % 5, rest /= 5;
      for_each_pair(sentence, [&](std::int64_t c, std::int64_t o) {
        counts[c * kVocabulary + o] += chance;
      });
    }
  }
  return pairs_from(counts);
}

// %%
// Because the corpus comes from a known generator, the best loss any model can reach
// is known too. The loss is an average over pairs of :math:`-\log q(o \mid c)`, the
// model's probability of the neighbour :math:`o` given the centre word :math:`c`. As
// the corpus grows, each pair's share tends to its expected share under the
// generator, :math:`\pi(c, o)`, which we can compute exactly by going through every
// template and every choice of its group members. Given :math:`c`, the neighbours
// follow :math:`\pi(o \mid c) = \pi(c, o) / \pi(c)`, and no model does better than
// predicting exactly that: the expected loss :math:`\sum \pi(c, o) (-\log q(o \mid
// c))` exceeds :math:`\sum \pi(c, o) (-\log \pi(o \mid c))` by the Kullback–Leibler
// divergence of :math:`q` from :math:`\pi`, which is never negative (Gibbs'
// inequality). So the least possible loss is the *conditional entropy*
//
// .. math::
//
//    H(O \mid C) = -\sum_{c, o} \pi(c, o) \log \frac{\pi(c, o)}{\pi(c)},
//
// and a model that ignored the centre word could do no better than predict each
// neighbour by its overall share :math:`\pi(o)`, at a cost of :math:`H(O) = -\sum_o
// \pi(o) \log \pi(o)`. Here they are:

// The least expected loss of a model that sees only the class `class_of(c)` of the
// centre word (the word itself when class_of is the identity): H(O | class of C).
double conditional_entropy(const Pairs& p,
                           const std::function<std::int64_t(std::int64_t)>& class_of) {
  std::vector<double> joint(kVocabulary * kVocabulary, 0), marginal(kVocabulary, 0);
  for (std::int64_t c = 0; c < kVocabulary; ++c)
    for (std::int64_t o = 0; o < kVocabulary; ++o) {
      joint[class_of(c) * kVocabulary + o] += p.table[c * kVocabulary + o];
      marginal[class_of(c)] += p.table[c * kVocabulary + o];
    }
  double h = 0;
  for (std::int64_t k = 0; k < kVocabulary; ++k)
    for (std::int64_t o = 0; o < kVocabulary; ++o) {
      const double share = joint[k * kVocabulary + o];
      if (share > 0) h -= share * std::log(share / marginal[k]);
    }
  return h;
}

// H(O): the loss of predicting every neighbour by its share, whatever the word.
double neighbour_entropy(const Pairs& p) {
  return conditional_entropy(p, [](std::int64_t) { return std::int64_t{0}; });
}

// %%
// The same function measures what a model that cannot tell two groups apart must pay.
// If animals and places, say, got the same vector, the model's predictions after an
// animal would be its predictions after a place, and the best it could do is the
// conditional entropy given the *merged* class; the difference from :math:`H(O \mid
// C)` is that confusion's least price. The cheapest such confusion, over the six pairs
// of groups, is the yardstick for what follows.

// The least extra loss of a model that cannot tell some two groups apart.
double cheapest_confusion(const Pairs& p) {
  const auto itself = [](std::int64_t c) { return c; };
  double cheapest = INFINITY;
  for (std::int64_t g = 0; g < kGroups; ++g)
    for (std::int64_t h = g + 1; h < kGroups; ++h) {
      const auto merged = [&](std::int64_t c) {  // group h's words counted as group g's
        return c / kGroupSize == h && c < kGroupWords ? c - (h - g) * kGroupSize : c;
      };
      cheapest = std::min(
          cheapest, conditional_entropy(p, merged) - conditional_entropy(p, itself));
    }
  return cheapest;
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
// ``optim::AdamW`` (chapter 6), whose decay acts in the same spirit, and a claim below
// trains without it to see the difference.
//
// The model: a table of 8-dimensional vectors and the output layer, trained for 1,000
// full-batch steps at rate 0.03 with decay 0.1 on the pairs of 5,000 sentences (a
// template of :math:`n` words gives :math:`4n - 6` pairs), and 200 more sentences held
// out. Most pairs occur many times, so the loss, a mean over the corpus's pairs, is
// computed once per distinct pair and weighted by that pair's share: the same number,
// for the cost of the distinct pairs rather than of every occurrence. The training
// loop:

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
};

// The model's expected loss under a distribution of pairs: Σ share · (-log q(o | c)).
Tensor expected_loss(const SkipGram& model, const Pairs& p) {
  return sum(p.share *
             cross_entropy(model.forward(p.centre), p.context, Reduction::None));
}

constexpr int kSteps = 1000, kSentences = 5000;
constexpr double kRate = 0.03, kDecay = 0.1;

std::vector<double> train(SkipGram& model, const std::vector<Sentence>& sentences,
                          double decay) {
  const Pairs p = pairs_of(sentences);
  optim::AdamW adam(model.parameters(), {kRate, 0.9, 0.999, 1e-8, decay});
  std::vector<double> losses;
  for (int step = 0; step < kSteps; ++step) {
    adam.zero_grad();
    const Tensor loss = expected_loss(model, p);
    losses.push_back(loss.item());
    loss.backward();
    adam.step();
  }
  return losses;
}

// %% fold: training once per seed and decay, and keeping the table before training
// A copy of a table's values, which its optimiser's later steps leave alone.
Tensor copy_of(const Tensor& t) { return tensor(t.to_vector(), t.shape()); }

struct Trained {
  Tensor before, after;        // the table's rows, [V, 8]
  std::vector<double> losses;  // the training loss at every step
  std::vector<Sentence> held_out;
  std::shared_ptr<SkipGram> model;
};

// Trained with book::train_once: the first process of this build trains and saves the
// model, every other loads it, bit for bit.
const Trained& trained(std::uint64_t seed, double decay = kDecay) {
  static std::vector<std::pair<std::pair<std::uint64_t, double>, Trained>> cache;
  for (const auto& [key, t] : cache)
    if (key == std::make_pair(seed, decay)) return t;
  Generator gen(seed);
  const auto training = corpus(kSentences, gen);
  Trained t;
  t.held_out = corpus(200, gen);
  t.model = std::make_shared<SkipGram>(gen);
  t.before = copy_of(t.model->table.weight);
  const book::Record record = book::train_once(
      decay > 0 ? "skipgram" : "skipgram_without_decay", seed, *t.model, [&] {
        return book::Record{{"losses", train(*t.model, training, decay)}};
      });
  t.losses = record.at("losses");
  t.after = copy_of(t.model->table.weight);
  cache.emplace_back(std::make_pair(seed, decay), t);
  return cache.back().second;
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

// %% fold: cosines between the group words, and their gaps
// Cosine similarities between the 20 group words' rows of a table: [20, 20].
Tensor group_cosines(const Tensor& table) {
  const Tensor rows = unit_rows(slice(table, 0, 0, kGroupWords));
  return matmul(rows, transpose(rows, 0, 1));
}

// The mean cosine within groups and across them, over distinct pairs, and the smallest
// margin over words: its least similar groupmate's cosine minus its most similar
// outsider's.
struct Gap {
  double within = 0, across = 0, worst_margin = 1e9;
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
// The test reads each seed's table before training.

TEST_CASE(
    "before training, the mean cosine within groups minus the mean across groups is "
    "within 4 standard errors of 0, for three seeds") {
  const double se = std::sqrt((1.0 / 40 + 1.0 / 150) / 8);
  book::check_seeds("|within - across|", "in standard errors", book::below(4), kSeeds,
                    [&](std::uint64_t seed) {
                      const Gap g = gap_of(group_cosines(trained(seed).before));
                      out() << "seed " << seed << ": within " << g.within << ", across "
                            << g.across << "\n";
                      return std::fabs(g.within - g.across) / se;
                    });
}

// %%
// Now the yardstick. The test computes the generator's :math:`\pi` and from it
// :math:`H(O \mid C)`, :math:`H(O)` and the cheapest confusion of two groups, then the
// trained model's expected loss under :math:`\pi`, exactly, with no sampling at all.
// That loss cannot be below :math:`H(O \mid C)`; the claim is that it lies above it by
// less than the cheapest confusion: the model is closer to the truth than any model
// that mixes up two groups could be.
//
// .. figure:: loss_against_truth
//
//    The training loss of the first seed's model at every step (it is measured on the
//    sampled corpus, not on the generator's distribution), with the
//    generator's H(O | C), the same plus the cheapest confusion of two groups, and
//    H(O), the loss of ignoring the word.

// %% fold: drawing the loss against the truth
void draw_losses(const std::vector<double>& losses, double best, double confused,
                 double blind) {
  std::vector<double> t;
  for (std::size_t i = 0; i < losses.size(); ++i) t.push_back(static_cast<double>(i));
  const double last = static_cast<double>(losses.size() - 1);
  const auto level = [&](const std::string& name, double y, const char* style) {
    return book::series(name, {0, last}, {y, y}).set("style", style);
  };
  book::figure("loss_against_truth",
               book::line_plot("step", "loss per pair (nats)",
                               {book::series("training loss", t, losses),
                                level("H(O), ignoring the word", blind, "k:"),
                                level("H(O | C) + cheapest confusion", confused, "r--"),
                                level("H(O | C), the best possible", best, "k--")},
                               true));
}

// %%
// The test trains each seed.

TEST_CASE(
    "the trained model's expected loss under the generator lies above the best "
    "possible, H(O | C), by less than the cheapest confusion of two groups costs, for "
    "three seeds") {
  const Pairs truth = generator_pairs();
  const double best = conditional_entropy(truth, [](std::int64_t c) { return c; });
  const double blind = neighbour_entropy(truth), confusion = cheapest_confusion(truth);
  book::measured("H(O | C)", best, "the least expected loss, nats per pair");
  book::measured("H(O)", blind, "the loss of ignoring the word, nats per pair");
  book::measured("cheapest confusion", confusion,
                 "the least extra loss of a model that mixes up two groups");
  draw_losses(trained(kSeeds[0]).losses, best, best + confusion, blind);
  book::check_seeds("excess over H(O | C)", "the expected loss minus H(O | C), nats",
                    book::between(0, confusion), kSeeds, [&](std::uint64_t seed) {
                      NoGradGuard no_grad;
                      const double loss =
                          expected_loss(*trained(seed).model, truth).item();
                      out() << "seed " << seed << ": expected loss " << loss << "\n";
                      return loss - best;
                    });
}

// %%
// A held-out set is how one measures a model's expected loss when the truth is not
// known: the average loss over pairs of sentences the model never saw. Here we can
// check it against the exact value. The held-out average is a ratio, total loss over
// total pairs, of 200 independent sentences (the pairs within one sentence are not
// independent), so its standard error comes from the sentences: with :math:`z_s` the
// sum over sentence :math:`s`'s pairs of their loss minus the average, it is
// :math:`\sqrt{\sum_s z_s^2 / (N(N - 1))} \cdot N / \sum_s n_s` for :math:`N`
// sentences of :math:`n_s` pairs. The claim: the held-out average lies within 4
// standard errors of the exact expected loss, for each seed.

TEST_CASE(
    "the held-out loss of 200 sentences estimates the model's exact expected loss: "
    "within 4 standard errors, for three seeds") {
  const Pairs truth = generator_pairs();
  book::check_seeds(
      "|held-out - expected|", "in standard errors of the held-out average",
      book::below(4), kSeeds, [&](std::uint64_t seed) {
        const Trained& t = trained(seed);
        NoGradGuard no_grad;
        std::vector<double> sums, counts;  // each sentence's total loss and pairs
        double total = 0, pairs = 0;
        for (const Sentence& s : t.held_out) {
          std::vector<std::int64_t> centre, context;
          for_each_pair(s, [&](std::int64_t c, std::int64_t o) {
            centre.push_back(c), context.push_back(o);
          });
          const double loss = sum(cross_entropy(t.model->forward(ids(centre)),
                                                ids(context), Reduction::None))
                                  .item();
          sums.push_back(loss), counts.push_back(centre.size());
          total += loss, pairs += centre.size();
        }
        const double average = total / pairs, n = static_cast<double>(sums.size());
        double square = 0;
        for (std::size_t s = 0; s < sums.size(); ++s)
          square += std::pow(sums[s] - average * counts[s], 2);
        const double se = std::sqrt(square / (n * (n - 1))) * n / pairs;
        const double expected = expected_loss(*t.model, truth).item();
        out() << "seed " << seed << ": held-out " << average << " ± " << se
              << ", expected " << expected << "\n";
        return std::fabs(average - expected) / se;
      });
}

// %%
// The loss says the model tells the groups apart; the vectors show it. The strongest
// form of "words of one group end up closer than words of different groups" is a
// separation with no exception: for every one of the 20 words, even its least similar
// groupmate is more similar (by cosine) than its most similar word from another group.
// The test measures, for each seed, the smallest margin over the 20 words between the
// two, and claims it is positive. A margin has no rounding to speak of here: cosines
// are computed to about :math:`10u`, and the test prints the margins it finds.
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
// The test reads each seed's trained table and draws the first seed's.

TEST_CASE(
    "after training, every word's least similar groupmate is more similar to it than "
    "any word of another group, for three seeds") {
  draw_tables(trained(kSeeds[0]));
  book::check_seeds("smallest margin",
                    "least similar groupmate's cosine minus most similar outsider's, "
                    "over the 20 words",
                    book::above(0), kSeeds, [](std::uint64_t seed) {
                      const Trained& t = trained(seed);
                      const Gap g = gap_of(group_cosines(t.after));
                      out() << "seed " << seed << ": loss " << t.losses.front() << " → "
                            << t.losses.back() << "; mean cosine within "
                            << "groups " << g.within << ", across " << g.across << "\n";
                      return g.worst_margin;
                    });
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
  book::check("seeds closer on average", closer_on_average, "of 3", book::exactly(3));
  book::check("seeds less separated", less_separated,
              "of 3, smallest margin below decay's", book::exactly(3));
  book::check("seeds not separated", unseparated, "of 3, without decay",
              book::at_least(1));
}

// %%
// Section 2's warning comes back in the trained table. Groupmates end up pointing
// almost the same way (the test checks a mean cosine within groups above 0.9, an angle
// under 26 degrees), but the decay does not make their lengths equal. With vectors
// nearly parallel, a word's dot product with a longer groupmate beats its dot product
// with itself, so only the longest word of each group is its own best match by dot
// product: 16 of the 20 words would be outscored if groupmates were exactly parallel,
// fewer as they are not quite. The claim, for each seed: no word's largest dot product
// is with a word of another group, yet for at least half of the words it is with a
// groupmate rather than with the word itself. A reader that scores words by dot
// products, as attention does, will see a word's groupmates as much as the word.

TEST_CASE(
    "in the trained table groupmates point almost the same way and no word's largest "
    "dot product is with another group, yet for at least half of the words it is with "
    "a "
    "longer groupmate rather than itself, for three seeds") {
  int outsiders = 0;
  book::check_seeds(
      "words outscored by a groupmate", "of the 20 group words", book::at_least(10),
      kSeeds, [&](std::uint64_t seed) {
        const auto best = best_matches(slice(trained(seed).after, 0, 0, kGroupWords));
        int by_groupmate = 0;
        for (std::int64_t i = 0; i < kGroupWords; ++i) {
          outsiders += best[i] / kGroupSize != i / kGroupSize;
          by_groupmate += best[i] != i && best[i] / kGroupSize == i / kGroupSize;
        }
        return by_groupmate;
      });
  book::check("words best matched by an outsider", outsiders, "over the three seeds",
              book::exactly(0));
  book::check_seeds("mean cosine within groups",
                    "over the distinct pairs of groupmates", book::above(0.9), kSeeds,
                    [](std::uint64_t seed) {
                      return gap_of(group_cosines(trained(seed).after)).within;
                    });
}

// %% 5 · Weights from the words
//
// An average weighs every word the same, :math:`1/n`. Write it as a weighted sum,
// :math:`\sum_i w_i x_i` with weights :math:`w = \operatorname{softmax}(s)` for scores
// :math:`s`: equal scores give :math:`e^{s}/(n e^{s}) = 1/n` for every word, and the
// weighted sum is the average again, blind to order as section 3 found. Let the scores
// come from the words instead, by comparing each word's vector with the others'
// through dot products as in section 2, and each word can gather from the sentence
// what matters to it and ignore the rest. That is attention, the subject of
// :doc:`08_attention`.

// %% fold: the end of the file's namespace
}  // namespace
