// Chapter 12 · A GPT that writes
// ==============================
//
// Chapter 10's model spelled single words, a letter at a time. This chapter trains a
// model built as GPT-2 is (Radford et al., 2019): a stack of chapter 9's blocks, under
// the causal mask, reading running text as chapter 11's tokens and predicting each next
// token. The text is WordNet's definitions, each on a
// line of its own after the word it defines (*dog: a member of the genus Canis ...*),
// so that the text holds a task as well as a language: given a word, write what it
// means.
//
// On the way we meet the handful of choices that turn chapter 10's model into a GPT:
// one matrix that both reads and writes tokens, a starting scale that makes the first
// loss predictable, weight decay on the matrices only and gradient clipping, beside
// chapter 10's warm-up and cosine schedule. Then the model writes: with a cache of keys
// and values that gives exactly the bits of recomputing the whole text at every step,
// for a fraction of the work, and with the three knobs every text generator exposes,
// temperature, top-k and top-p. And we measure what a minute of one core buys: a model
// that has learned the shape of the text, uses its context and the word it is given,
// and has passed a table of counts taken from all of the text. Last, what a longer run
// buys: a larger model of the same parts, trained once for the book on the King James
// Bible and kept in the repository, and the verses it writes; and, beside two smaller
// runs of the same kind, what size buys for the compute it costs.

// %% about: A small GPT trained on WordNet's definitions as running text: windows of
// tokens, a tied read-out, GPT-2's starting scale, AdamW with parameter groups,
// warm-up, cosine and clipping; what a minute of training buys against the token
// bigram; context that pays, and the word read; writing with a KV cache equal to
// recomputation, and temperature, top-k and top-p sampling; a longer run, kept, on
// the King James Bible, against the token bigram and a smoothed trigram; and three
// sizes of it against their training compute.
// %% assumes: 6, 7, 9, 10, 11
// %% budget: 250 s, because it trains the book's largest model, the GPT, on three
// seeds (up to 60 s each), then measures and writes with each (about 30 s) and with
// the kept long model (about 40 s, most of it scoring held-out tokens in windows of
// seven lengths) and its two smaller kept runs (a few seconds), with room for a
// machine that runs slower for minutes at a time

// %% fold: includes, and the names this file uses
#include <doctest/doctest.h>

#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <fstream>
#include <map>
#include <memory>
#include <set>
#include <sstream>
#include <string>
#include <unordered_map>
#include <vector>

#include <litgrad/book/chapter.hpp>
#include <litgrad/book/corpus.hpp>
#include <litgrad/book/diagrams.hpp>
#include <litgrad/book/figures.hpp>
#include <litgrad/book/payoff.hpp>
#include <litgrad/book/trained.hpp>
#include <litgrad/litgrad.hpp>

using namespace litgrad;
using book::out;

namespace {

constexpr double kU = 0x1p-53;  // the unit roundoff of double precision
const std::vector<std::uint64_t> kSeeds = {1, 2, 3};

// How many elements of two tensors of one shape differ in any bit.
std::int64_t differing_bits(const Tensor& a, const Tensor& b) {
  std::int64_t differing = 0;
  for (std::int64_t i = 0; i < a.numel(); ++i)
    differing += std::memcmp(a.data() + i, b.data() + i, sizeof(double)) != 0;
  return differing;
}

// Text as the account prints it on one line: a newline as ↵. A line the model stopped
// writing at the end of its context may stop inside a character, since a token can be
// one byte of a character's two to four (chapter 11): those last bytes are left out.
std::string one_line(const std::string& text) {
  std::size_t end = text.size(), start = end;
  while (start > 0 && (static_cast<unsigned char>(text[start - 1]) & 0xC0) == 0x80)
    --start;
  if (start > 0 &&
      static_cast<unsigned char>(text[start - 1]) >= 0xC0) {  // a lead byte
    const auto lead = static_cast<unsigned char>(text[start - 1]);
    const std::size_t length = lead >= 0xF0 ? 4 : lead >= 0xE0 ? 3 : 2;
    if (end - (start - 1) < length) end = start - 1;
  }
  std::string shown;
  for (char c : text.substr(0, end))
    shown += c == '\n' ? std::string("↵") : std::string(1, c);
  return shown;
}

// A written line as the account shows it, without the newline it was written from:
// whole when the model ended it, cut off with " ..." when the context ran out first.
std::string written_line(const std::string& line) {
  return line.back() == '\n' ? line.substr(1) : one_line(line.substr(1)) + " ...\n";
}

Tensor ids_tensor(const std::vector<std::int64_t>& ids, const Shape& shape) {
  return tensor(std::vector<double>(ids.begin(), ids.end()), shape, DType::Int64);
}

// %% 1 · Running text, in windows
//
// The text is chapter 11's: the definitions of WordNet's synsets, split with the same
// seed into training and held-out definitions. Each synset becomes one line, its first
// word, a colon and its definition, and the training text is the training lines one
// after another. Chapter 11's byte-pair encoding, trained on that text with a
// vocabulary of :math:`V = 1024` tokens, turns it into one long sequence of token ids.
//
// A GPT learns from *windows* of that sequence: :math:`T = 32` consecutive tokens as
// input, and as targets the :math:`T` tokens that follow each of them, which are the
// same window moved on by one. The causal mask lets position :math:`t` see the inputs
// up to :math:`t` only, so one window is :math:`T` predictions at once, each from its
// own prefix. Windows start anywhere, in the middle of a line or a word, and cross from
// one line into the next: the model must learn where definitions start and end, as it
// must learn everything else. A batch is 16 windows whose starts are drawn at random.

constexpr std::int64_t kVocabulary = 1024, kContext = 32, kBatch = 16;

// %% fold: the lines, the tokenizer and the training tokens, each made once per process
std::string line_of(const book::Gloss& g) {
  return g.words[0] + ": " + g.definition + "\n";
}

const std::string& training_text() {
  static const std::string text = [] {
    std::string t;
    for (const book::Gloss& g : book::wordnet().training) t += line_of(g);
    return t;
  }();
  return text;
}

const BPETokenizer& tokenizer() {
  static const BPETokenizer trained = [] {
    BPETokenizer t;
    book::train_once(
        "tokenizer", 0, [&](const std::string& path) { t.save(path); },
        [&](const std::string& path) { t.load(path); },
        [&] {
          t.train(training_text(), kVocabulary);
          return book::Record();
        });
    return t;
  }();
  return trained;
}

const std::vector<std::int64_t>& training_tokens() {
  static const std::vector<std::int64_t> ids = tokenizer().encode(training_text());
  return ids;
}

// %%
// The batch of windows, as the training loop below draws it: inputs and targets
// ``[16, 32]``.

struct Batch {
  Tensor inputs, targets;  // [B, T] token ids each
  std::vector<std::int64_t> starts;
};

Batch windows(const std::vector<std::int64_t>& tokens, std::int64_t batch,
              Generator& gen) {
  const auto last_start = static_cast<std::int64_t>(tokens.size()) - kContext - 1;
  std::vector<std::int64_t> inputs, targets, starts;
  for (std::int64_t b = 0; b < batch; ++b) {
    const std::int64_t s = gen.randint(0, last_start + 1);
    starts.push_back(s);
    for (std::int64_t t = 0; t < kContext; ++t) {
      inputs.push_back(tokens[s + t]);
      targets.push_back(tokens[s + t + 1]);  // the token after input t
    }
  }
  return {ids_tensor(inputs, {batch, kContext}), ids_tensor(targets, {batch, kContext}),
          starts};
}

// %%
// The test draws a batch, and checks what the training will rely on: every target is
// the input one position later, where the window has one, and the last target is the
// token after the window; each window's tokens decode to a piece of the training text.

TEST_CASE(
    "in every window the targets are the inputs moved on by one token, and every "
    "window is a stretch of the training text") {
  const auto& tokens = training_tokens();
  out() << training_text().size() << " characters of training text, "
        << book::wordnet().training.size() << " lines, " << tokens.size()
        << " tokens\n";
  Generator gen(5);
  const Batch b = windows(tokens, kBatch, gen);
  std::int64_t misplaced = 0, not_in_text = 0;
  for (std::int64_t w = 0; w < kBatch; ++w) {
    for (std::int64_t t = 0; t + 1 < kContext; ++t)
      misplaced += b.targets.at({w, t}) != b.inputs.at({w, t + 1});
    misplaced += b.targets.at({w, kContext - 1}) != tokens[b.starts[w] + kContext];
    std::vector<std::int64_t> ids;
    for (std::int64_t t = 0; t < kContext; ++t)
      ids.push_back(std::llround(b.inputs.at({w, t})));
    not_in_text += training_text().find(tokenizer().decode(ids)) == std::string::npos;
  }
  std::vector<std::int64_t> first;
  for (std::int64_t t = 0; t < kContext; ++t)
    first.push_back(std::llround(b.inputs.at({0, t})));
  out() << "the first window: \"" << one_line(tokenizer().decode(first)) << "\"\n";
  book::check("misplaced targets", static_cast<double>(misplaced),
              "of 16 windows of 32", book::exactly(0));
  book::check("windows not in the text", static_cast<double>(not_in_text),
              "of 16, decoded", book::exactly(0));
}

// %% 2 · What to beat
//
// Losses from here on are in *bits per character*: the nats a model spends on a line's
// tokens, divided by :math:`\ln 2` and by the line's characters (bytes). Per token
// would flatter a tokenizer with shorter tokens, each of which says less; per
// character, models with different vocabularies, or a model of letters, compare
// fairly.
//
// The held-out lines are read one at a time, each after a newline token, so that the
// model sees where a line begins, and each line's first :math:`T` predictions count
// (the account says how many lines are longer, and cut). A uniform guess costs
// :math:`\log_2 V = 10` bits a token. The *bigram* of tokens, chapter 10's model with
// tokens for letters, predicts each token from the one before, :math:`p(b \mid a) =
// (N_{ab} + 1) / (N_a + V)` with the counts :math:`N` taken from the training tokens;
// it is the baseline the GPT must beat.

constexpr std::int64_t kHeldOut = 2000;  // held-out lines evaluated
constexpr std::int64_t kNewline = '\n';  // the newline byte's token

// %% fold: the held-out lines as sequences, and the bigram's costs
struct Line {
  std::vector<std::int64_t> ids;  // the newline token, then the line's tokens
  double characters = 0;          // the bytes the counted predictions spell
};

// `n` held-out synsets spread evenly over the list, which is in WordNet's order, nouns
// first: so that every part of speech has its share.
std::vector<const book::Gloss*> spread(std::size_t n) {
  const auto& held = book::wordnet().held_out;
  std::vector<const book::Gloss*> chosen;
  for (std::size_t i = 0; i < n; ++i) chosen.push_back(&held[i * held.size() / n]);
  return chosen;
}

// kHeldOut held-out lines spread over the list, each cut to kContext + 1 tokens.
const std::vector<Line>& held_out_lines() {
  static const std::vector<Line> lines = [] {
    std::vector<Line> out;
    for (const book::Gloss* g : spread(kHeldOut)) {
      Line l;
      l.ids = tokenizer().encode("\n" + line_of(*g));
      if (static_cast<std::int64_t>(l.ids.size()) > kContext + 1)
        l.ids.resize(kContext + 1);
      for (std::size_t t = 1; t < l.ids.size(); ++t)
        l.characters += static_cast<double>(tokenizer().token(l.ids[t]).size());
      out.push_back(l);
    }
    return out;
  }();
  return lines;
}

struct Bigram {
  std::vector<double> log_p;  // [V * V]: log p(b | a) at a * V + b, smoothed
};

const Bigram& bigram() {
  static const Bigram model = [] {
    std::vector<double> count(kVocabulary * kVocabulary, 0), total(kVocabulary, 0);
    const auto& ids = training_tokens();
    for (std::size_t i = 0; i + 1 < ids.size(); ++i)
      count[ids[i] * kVocabulary + ids[i + 1]] += 1, total[ids[i]] += 1;
    Bigram m;
    m.log_p.resize(count.size());
    for (std::int64_t a = 0; a < kVocabulary; ++a)
      for (std::int64_t b = 0; b < kVocabulary; ++b)
        m.log_p[a * kVocabulary + b] =
            std::log((count[a * kVocabulary + b] + 1) / (total[a] + kVocabulary));
    return m;
  }();
  return model;
}

// Each held-out line's cost in nats under the bigram.
std::vector<double> bigram_costs() {
  std::vector<double> costs;
  for (const Line& l : held_out_lines()) {
    double nats = 0;
    for (std::size_t t = 1; t < l.ids.size(); ++t)
      nats -= bigram().log_p[l.ids[t - 1] * kVocabulary + l.ids[t]];
    costs.push_back(nats);
  }
  return costs;
}

double characters_of(const std::vector<Line>& lines) {
  double n = 0;
  for (const Line& l : lines) n += l.characters;
  return n;
}

// Bits per character of per-line costs in nats: a ratio of sums.
double bits_per_character(const std::vector<double>& nats) {
  double total = 0;
  for (double c : nats) total += c;
  return total / std::log(2.0) / characters_of(held_out_lines());
}

// The uniform guess's cost of each held-out line: log V nats per predicted token.
std::vector<double> uniform_costs() {
  std::vector<double> costs;
  for (const Line& l : held_out_lines())
    costs.push_back(static_cast<double>(l.ids.size() - 1) * std::log(kVocabulary));
  return costs;
}

// %%
// The test computes both on the 2,000 held-out lines, and the account shows how many
// tokens a character the tokenizer spends on them.

TEST_CASE(
    "on the held-out lines the token bigram costs fewer bits per character than a "
    "uniform guess over the 1,024 tokens") {
  const double uniform = bits_per_character(uniform_costs());
  const double two = bits_per_character(bigram_costs());
  double tokens = 0;
  for (const Line& l : held_out_lines())
    tokens += static_cast<double>(l.ids.size() - 1);
  int cut = 0;
  for (const book::Gloss* g : spread(kHeldOut))
    cut += static_cast<std::int64_t>(tokenizer().encode("\n" + line_of(*g)).size()) >
           kContext + 1;
  out() << cut << " of the held-out lines are longer than " << kContext
        << " predictions, and cut\n";
  out() << held_out_lines().size() << " held-out lines, " << tokens << " tokens, "
        << characters_of(held_out_lines()) << " characters ("
        << tokens / characters_of(held_out_lines()) << " tokens a character)\n";
  book::measured("uniform", uniform, "bits per held-out character");
  book::check("bigram", two, "bits per held-out character", book::below(uniform));
}

// %% 3 · The model
//
// The model is chapter 10's, grown: a token embedding and a position embedding of width
// :math:`d = 64`, two of chapter 9's pre-norm blocks with 4 heads and a GELU
// feed-forward part of width 256 under the causal mask, and a final layer norm. Two
// things are new.
//
// **A tied read-out.** The scores for the next token are the final vectors multiplied
// by the transpose of the token embedding's own matrix: the score of token :math:`j` is
// the dot product of the vector with :math:`j`'s embedding. One matrix learns both to
// read and to write tokens (Press and Wolf, 2017, and GPT-2), which saves a
// :math:`V \times d` matrix, 65,536 parameters here, the largest single piece of the
// model. The matrix then gets gradients from both its uses, added.
//
// **GPT-2's starting scale.** Every matrix starts normal with standard deviation 0.02
// and every bias at 0, as GPT-1 (Radford et al., 2018) does and GPT-2's released code
// does for its weights and token embedding (its position embedding starts at 0.01; we
// start both embeddings at 0.02, as nanoGPT does). Small scores make the first
// prediction nearly uniform, as the test below checks. The two projections that write
// into the residual stream in each block (the attention's output projection and the
// feed-forward part's second layer) start :math:`\sqrt{2L}` times smaller still, for
// :math:`L` blocks: the GPT-2 paper (Radford et al., 2019) scales the residual layers
// by :math:`1/\sqrt{N}` for :math:`N` of them, and nanoGPT reads :math:`N` as the
// :math:`2L` writes. The reason: if each write adds about the same variance to the
// stream, dividing its weights by :math:`\sqrt{2L}` divides its variance by :math:`2L`,
// so all :math:`2L` writes together add about what one unscaled write would.
//
// The read-out has no bias, as GPT-2's has none. There is no dropout, chapter 10's
// guard against learning the training text by heart: the training below reads a third
// of the text's worth of tokens in windows drawn at random, so a token lies in none of
// them with probability about :math:`e^{-1/3} \approx 0.72`, and most of the text is
// never read at all. And the vocabulary is 1,024 tokens, where
// chapter 11 showed the trade-off: at this width the embedding is already the largest
// single matrix of the model.

constexpr std::int64_t kWidth = 64, kHeads = 4, kLayers = 2;

// Token ids [N, n] → scores for the next token [N, n, V].
struct GPT : nn::Module {
  nn::Embedding token, position;
  nn::ModuleList blocks;
  nn::LayerNorm norm;

  // `gpt2_start` false keeps the layers' own starts (the embeddings standard normal).
  explicit GPT(Generator& gen, bool gpt2_start = true)
      : Module("GPT"),
        token(kVocabulary, kWidth, std::nullopt, gen),
        position(kContext, kWidth, std::nullopt, gen),
        norm({kWidth}) {
    nn::TransformerEncoderLayerOptions o;
    o.dim_feedforward = 4 * kWidth, o.dropout = 0, o.activation = "gelu";
    o.batch_first = true, o.norm_first = true;
    register_module("token", token), register_module("position", position);
    for (std::int64_t l = 0; l < kLayers; ++l)
      blocks.push_back(nn::TransformerEncoderLayer(kWidth, kHeads, o, gen));
    register_module("blocks", blocks), register_module("norm", norm);
    if (!gpt2_start) return;
    for (auto& [name, p] : named_parameters()) {
      if (p.dim() == 1) {
        if (name.find("norm") == std::string::npos) nn::init::zeros_(p);  // biases
        continue;
      }
      const bool writes_to_stream = name.find("out_proj.weight") != std::string::npos ||
                                    name.find("linear2.weight") != std::string::npos;
      nn::init::normal_(p, 0.0,
                        writes_to_stream ? 0.02 / std::sqrt(2.0 * kLayers) : 0.02, gen);
    }
  }

  // The tied read-out: scores = final vectors times the embedding matrix, transposed.
  Tensor readout(const Tensor& x) const {
    return matmul(norm(x), token.weight.transpose(0, 1));
  }

  Tensor forward(const Tensor& ids) const {
    const std::int64_t n = ids.size(1);
    Tensor x = token(ids) + position(arange(n));
    const Tensor mask = generate_square_subsequent_mask(n);
    for (std::size_t l = 0; l < blocks.size(); ++l)
      x = blocks.at<nn::TransformerEncoderLayer>(l)(x, mask, Tensor(), true);
    return readout(x);
  }
  Tensor operator()(const Tensor& ids) const { return forward(ids); }
};

std::int64_t parameter_count(const nn::Module& m) {
  std::int64_t n = 0;
  for (const Tensor& p : m.parameters()) n += p.numel();
  return n;
}

// %%
// What tying does, checked on a fresh model: ``parameters()`` lists the shared matrix
// once, so the optimiser steps it once, and the model has exactly the parameters the
// formula counts, :math:`V d + T d + L(12 d^2 + 13 d) + 2d` (the two tables; each
// block's attention, :math:`4d^2 + 4d`, feed-forward part, :math:`8d^2 + 5d`, and two
// norms, :math:`4d`; the final norm), :math:`V d` fewer than with a read-out of its
// own. Its gradient is the sum of
// the gradient through the embedding and the gradient through the read-out. The test
// computes those two separately, each with the other use cut off by ``detach()``, and
// finds the tied gradient equal to their sum in every bit: it is exactly that sum,
// added once.

TEST_CASE(
    "the tied model has exactly V·d + T·d + L(12d² + 13d) + 2d parameters, and the "
    "shared matrix's gradient is exactly the sum of its two uses' gradients") {
  Generator gen(7);
  GPT model(gen);
  const std::int64_t d = kWidth, tied = parameter_count(model);
  const std::int64_t formula =
      kVocabulary * d + kContext * d + kLayers * (12 * d * d + 13 * d) + 2 * d;
  const Batch b = windows(training_tokens(), 4, gen);
  auto loss_of = [&](const Tensor& read_matrix, const Tensor& embed_matrix) {
    Tensor x = nn::embedding(b.inputs, embed_matrix) + model.position(arange(kContext));
    const Tensor mask = generate_square_subsequent_mask(kContext);
    for (std::size_t l = 0; l < model.blocks.size(); ++l)
      x = model.blocks.at<nn::TransformerEncoderLayer>(l)(x, mask, Tensor(), true);
    const Tensor scores = matmul(model.norm(x), read_matrix.transpose(0, 1));
    return cross_entropy(scores.reshape({-1, kVocabulary}), b.targets.reshape({-1}));
  };
  const Tensor& w = model.token.weight;
  const Tensor both =
      autograd::grad({cross_entropy(model(b.inputs).reshape({-1, kVocabulary}),
                                    b.targets.reshape({-1}))},
                     {w})[0];
  const Tensor through_embedding = autograd::grad({loss_of(w.detach(), w)}, {w})[0];
  const Tensor through_readout = autograd::grad({loss_of(w, w.detach())}, {w})[0];
  const Tensor sum_of_two = through_embedding + through_readout;
  out() << "parameters: " << tied << " tied, " << tied + kVocabulary * d
        << " with a read-out of its own\n";
  book::check("parameters", static_cast<double>(tied), "listed by parameters()",
              book::exactly(static_cast<double>(formula)));
  book::check("differing gradient elements",
              static_cast<double>(differing_bits(both, sum_of_two)),
              "of the tied gradient against the sum", book::exactly(0));
}

// %%
// At the start, every score is small: the final layer norm gives vectors whose 64
// coordinates have mean 0 and variance 1, and each embedding row has entries of
// standard deviation 0.02, so a score's standard deviation is about :math:`0.02\sqrt{d}
// = 0.16` (the account shows the measured one). (One score stands out a little: the
// token just read, whose own embedding the final vector still carries; the next
// paragraph makes much of that.) What does that make the first loss? Expand the
// log-sum-exp of a row of scores :math:`z` about their mean :math:`\bar z`:
// :math:`\operatorname{lse}(z) \approx \ln V + \bar z + s^2/2`, with :math:`s^2` their
// variance (the next term, their third moment, is 0 on average for scores symmetric
// about their mean). One prediction's loss, :math:`\operatorname{lse}(z) -
// z_\text{target}`, is then :math:`\ln V + s^2/2` plus :math:`\bar z -
// z_\text{target}`, which averages to 0 over predictions, since the start knows nothing
// of the targets. The test measures the mean of :math:`s^2/2` on 256 windows and claims
// the first loss equal to :math:`\ln V` plus it, to within three standard errors of the
// mean of :math:`\bar z - z_\text{target}` over their 8,192 predictions; and, so that
// the term is seen to matter, :math:`\ln V` alone further from the loss than that.
//
// And it shows what the start buys: the same model with its layers' own starts
// (standard normal embeddings, as ``nn::Embedding`` gives) has scores spread far wider
// (the account shows their standard deviation), and in most predictions the largest is
// the token just read: the model starts out predicting that the last token repeats.
// Why? The final vector is about the layer-normed sum of the token's and the position's
// embeddings, :math:`(e + p)/\sqrt 2`, since their entries have variance 1 each. Its
// score with :math:`e` itself is about :math:`e \cdot e/\sqrt 2 \approx d/\sqrt 2 =
// 45`; its score with another token's embedding is a sum of 64 products of unit
// variance, standard deviation :math:`\sqrt d = 8`, and the largest of 1,023 such is
// about 3.2 of them, 26 (the account shows both measured). How far does the own score
// stray? :math:`e \cdot e` by about :math:`\sqrt{2d}` and :math:`p \cdot e` by
// :math:`\sqrt d`, about 10 together after the :math:`\sqrt 2`; the layer norm, which
// divides by more when :math:`e \cdot e` is larger, narrows that (the account shows its
// measured spread). So the gap of 19 is about two of its standard deviations (1.9
// before the layer norm narrows them), and the token just read should lose its place a
// few times in a hundred at most: the test claims it on top in more than 9 predictions
// of 10. Its first loss is far above :math:`\ln V`: training would first have to undo
// the start.

TEST_CASE(
    "with GPT-2's start the first loss is ln V plus half the scores' variance, to "
    "within three standard errors, and ln V alone is further off, while with standard "
    "normal embeddings it is above ln V + 1 and the token just read scores highest in "
    "more than 9 predictions of 10") {
  Generator gen(8), batches(9);
  const Batch b = windows(training_tokens(), 256, batches);
  const Tensor targets = b.targets.reshape({-1});
  const auto n = static_cast<double>(targets.numel());
  NoGradGuard no_grad;
  const Tensor small = GPT(gen)(b.inputs).reshape({-1, kVocabulary});  // [8192, V]
  const Tensor large = GPT(gen, false)(b.inputs).reshape({-1, kVocabulary});
  const double half_variance =
      mean(litgrad::var(small, {1}, 0)).item() / 2;  // the mean of s²/2 over rows
  // z̄ - z_target for each prediction
  const Tensor off =
      mean(small, {1}) - gather(small, 1, targets.reshape({-1, 1})).reshape({-1});
  const double tolerance = 3 * litgrad::std(off).item() / std::sqrt(n);
  out() << "scores' standard deviation " << litgrad::std(small).item()
        << " with GPT-2's start, " << litgrad::std(large).item()
        << " with standard normal embeddings; ln V = " << std::log(kVocabulary)
        << ", half the variance " << half_variance << "\n";
  const double first = cross_entropy(small, targets).item();
  book::check("first loss, GPT-2's start", first, "nats a token, against ln V + s²/2",
              book::within(tolerance, std::log(kVocabulary) + half_variance));
  book::check("first loss less ln V", first - std::log(kVocabulary),
              "nats a token, against three standard errors", book::above(tolerance));
  book::check("first loss, standard normal", cross_entropy(large, targets).item(),
              "nats a token", book::above(std::log(kVocabulary) + 1));
  // The token just read: its score, the best score of the others, and how many
  // predictions score it highest of all V.
  const Tensor read = b.inputs.reshape({-1, 1});
  const Tensor own = gather(large, 1, read).reshape({-1});
  const Tensor others = masked_fill(  // its own score removed
      large, one_hot(read.reshape({-1}), kVocabulary) == 1.0, -INFINITY);
  const double repeats =
      sum(to(argmax(large, 1) == read.reshape({-1}), DType::Float64)).item();
  out() << "standard normal: the token just read scores " << mean(own).item() << " ("
        << litgrad::std(own).item() << " standard deviation), the best of the others "
        << mean(max(others, 1).values).item() << " on average\n";
  book::check("share whose top score is the token just read, standard normal",
              repeats / n, "of " + std::to_string(targets.numel()) + " predictions",
              book::above(0.9));
}

// %% 4 · Training
//
// The optimiser is chapter 6's AdamW, with its weight decay split by *parameter
// groups*: the matrices (the embeddings and every layer's weights) decay, and the
// biases and the layer norms' scales and shifts do not. Decay pulls a parameter toward
// 0, which for a matrix means smaller, smoother maps; a norm's scale pulled toward 0
// would silence its layer, and a bias has nothing to regularise. So the matrices form
// one group with decay 0.1, as GPT-2's successors use, and the rest a group with decay
// 0. AdamW's decay is *decoupled*: each step first shrinks a decaying parameter by the
// factor :math:`1 - \eta\lambda`, for rate :math:`\eta` and decay :math:`\lambda`, and
// then takes Adam's step, which the decay does not enter.

constexpr double kRate = 3e-3, kDecay = 0.1, kClip = 1.0;

// %%
std::vector<optim::ParamGroup> parameter_groups(const GPT& model) {
  std::vector<Tensor> matrices, others;
  for (const Tensor& p : model.parameters())
    (p.dim() >= 2 ? matrices : others).push_back(p);
  return {{matrices, {{"weight_decay", kDecay}}}, {others, {{"weight_decay", 0.0}}}};
}

// %%
// The test shows both groups at work: one step with every gradient zero (so that Adam's
// own step is exactly 0) multiplies every matrix by exactly :math:`1 - \eta\lambda` and
// leaves every bias and norm parameter unchanged in every bit.

TEST_CASE(
    "one AdamW step with zero gradients multiplies every matrix by exactly 1 - "
    "lr·decay "
    "and leaves every bias and norm parameter unchanged in every bit") {
  Generator gen(10);
  GPT model(gen);
  optim::AdamW adam(parameter_groups(model), {kRate});
  std::vector<Tensor> before;
  for (const Tensor& p : model.parameters()) {
    before.push_back(p.detach().clone());
    (sum(p) * 0.0).backward();  // a gradient of zeros
  }
  adam.step();
  std::int64_t matrices_off = 0, others_changed = 0, matrix_elements = 0;
  const double shrink = 1 - kRate * kDecay;
  const auto params = model.parameters();
  for (std::size_t i = 0; i < params.size(); ++i) {
    if (params[i].dim() >= 2) {
      matrices_off += differing_bits(params[i].detach(), before[i] * shrink);
      matrix_elements += params[i].numel();
    } else {
      others_changed += differing_bits(params[i].detach(), before[i]);
    }
  }
  out() << matrix_elements << " matrix elements decay, "
        << parameter_count(model) - matrix_elements << " others do not\n";
  book::check("matrix elements off", static_cast<double>(matrices_off),
              "not exactly shrunk by 1 - lr·decay", book::exactly(0));
  book::check("bias and norm elements changed", static_cast<double>(others_changed),
              "in any bit", book::exactly(0));
}

// %%
// Two more guards, both met in earlier chapters. The rate *warms up* linearly
// over the first tenth of the steps, while Adam's running averages of the gradient
// are still a handful of samples, and then falls along a cosine to 0. And before each
// step the gradients are *clipped*: if their total norm, over all parameters at once,
// exceeds 1, every gradient is scaled by the same factor to bring it to 1
// (``nn::utils::clip_grad_norm_``), so the step keeps its direction but one unlucky
// batch cannot throw the model far. The account says how many steps it clipped; if
// that is many, the cap is shaping ordinary steps, not only unlucky ones.
//
// This is the training loop, all of it. It takes 2,000 steps of 16 windows, 1,024,000
// tokens, a third of the training text's worth. That is the book's largest run, and
// most of the chapter's time (the course page shows how long its claims took). So, as
// in chapters 9 to 11, the first process to need a seed's model trains it and saves it
// beside the program (``book::train_once``), and the other claims load it. Every 250
// steps it records the mean training loss since the last record and the held-out loss
// on 200 held-out lines, both in bits per character.

constexpr int kSteps = 2000, kWarmup = 200, kEvery = 250;

// The model's cost in nats of each target [n, T] after its inputs [n, T] (a target of
// -100 costs 0), 16 windows at a time, as in a training batch: the scores of 3,000
// windows at once would take 786 MB, and small pieces are quicker to score.
Tensor nats_at(const GPT& model, const std::vector<std::int64_t>& inputs,
               const std::vector<std::int64_t>& targets) {
  NoGradGuard no_grad;
  const auto n = static_cast<std::int64_t>(inputs.size()) / kContext;
  std::vector<double> nats;
  for (std::int64_t from = 0; from < n; from += kBatch) {
    const std::int64_t to = std::min(n, from + kBatch);
    const std::vector<std::int64_t> x(inputs.begin() + from * kContext,
                                      inputs.begin() + to * kContext),
        y(targets.begin() + from * kContext, targets.begin() + to * kContext);
    const Tensor scores = model(ids_tensor(x, {to - from, kContext}));
    const Tensor chunk =
        cross_entropy(scores.reshape({-1, kVocabulary}),
                      ids_tensor(y, {(to - from) * kContext}), Reduction::None);
    nats.insert(nats.end(), chunk.data(), chunk.data() + chunk.numel());
  }
  return tensor(nats, {n, kContext});
}

// Each line's cost in nats under the model, for the lines' own predictions.
std::vector<double> model_costs(const GPT& model, const std::vector<Line>& lines) {
  const auto n = static_cast<std::int64_t>(lines.size());
  std::vector<std::int64_t> inputs(n * kContext, 0), targets(n * kContext, -100);
  for (std::int64_t i = 0; i < n; ++i)
    for (std::size_t t = 0; t + 1 < lines[i].ids.size(); ++t) {
      inputs[i * kContext + t] = lines[i].ids[t];
      targets[i * kContext + t] = lines[i].ids[t + 1];
    }
  const Tensor per_line = sum(nats_at(model, inputs, targets), {1});
  std::vector<double> costs(n);
  for (std::int64_t i = 0; i < n; ++i) costs[i] = per_line.at({i});
  return costs;
}

double bits_per_character_of(const std::vector<double>& nats,
                             const std::vector<Line>& lines) {
  double total = 0;
  for (double c : nats) total += c;
  return total / std::log(2.0) / characters_of(lines);
}

book::Record train(GPT& model, std::uint64_t seed) {
  Generator gen(1000 +
                seed);  // the windows; the model's start came from Generator(seed)
  optim::AdamW adam(parameter_groups(model), {kRate});
  optim::lr_scheduler::LambdaLR schedule(
      adam, optim::lr_scheduler::cosine_with_warmup(kWarmup, kSteps));
  std::vector<Line> some;  // every tenth of the held-out lines
  for (std::size_t i = 0; i < held_out_lines().size(); i += 10)
    some.push_back(held_out_lines()[i]);
  const double tokens_per_character = static_cast<double>(training_tokens().size()) /
                                      static_cast<double>(training_text().size());
  book::Record record;
  double since = 0, clipped = 0;
  for (int step = 1; step <= kSteps; ++step) {
    const Batch b = windows(training_tokens(), kBatch, gen);
    const Tensor scores = model(b.inputs);  // [16, 32, V]
    Tensor loss =
        cross_entropy(scores.reshape({-1, kVocabulary}), b.targets.reshape({-1}));
    adam.zero_grad();
    loss.backward();
    clipped += nn::utils::clip_grad_norm_(model.parameters(), kClip) > kClip;
    adam.step();
    schedule.step();
    since += loss.item() / kEvery;
    if (step % kEvery == 0) {
      record["step"].push_back(step);
      record["training"].push_back(since * tokens_per_character / std::log(2.0));
      record["held out"].push_back(
          bits_per_character_of(model_costs(model, some), some));
      since = 0;
    }
  }
  record["clipped"] = {clipped};
  return record;
}

// %% fold: the trained models, one per seed, trained once for every claim
struct Trained {
  std::unique_ptr<GPT> model;
  book::Record record;
};

const Trained& trained(std::uint64_t seed) {
  static std::map<std::uint64_t, Trained> cache;
  auto found = cache.find(seed);
  if (found != cache.end()) return found->second;
  Generator gen(seed);
  Trained t{std::make_unique<GPT>(gen), {}};
  t.record =
      book::train_once("gpt", seed, *t.model, [&] { return train(*t.model, seed); });
  t.model->eval();
  return cache.emplace(seed, std::move(t)).first->second;
}

// %% fold: the standard error of a ratio of sums, paired by line
struct Lead {
  double difference = 0, standard_error = 0;  // in bits per character
};

// (Σ a_i - Σ b_i) / Σ c_i, in bits per character, and its standard error over lines.
Lead paired(const std::vector<double>& a, const std::vector<double>& b,
            const std::vector<double>& c) {
  const double n = static_cast<double>(a.size());
  double sd = 0, sc = 0;
  for (std::size_t i = 0; i < a.size(); ++i) sd += a[i] - b[i], sc += c[i];
  const double ratio = sd / sc;
  double spread = 0;
  for (std::size_t i = 0; i < a.size(); ++i) {
    const double r = (a[i] - b[i]) - ratio * c[i];
    spread += r * r / (n - 1);
  }
  return {ratio / std::log(2.0),
          std::sqrt(spread) / (sc / n) / std::sqrt(n) / std::log(2.0)};
}

std::vector<double> line_characters(const std::vector<Line>& lines) {
  std::vector<double> c;
  for (const Line& l : lines) c.push_back(l.characters);
  return c;
}

void draw_loss_curves(const book::Record& r) {
  const double uniform = bits_per_character(uniform_costs());
  const double two = bits_per_character(bigram_costs());
  const std::vector<double> ends = {0, static_cast<double>(kSteps)};
  book::figure(
      "loss_curves",
      book::line_plot(
          "step", "bits per character",
          {book::series("training", r.at("step"), r.at("training")),
           book::series("held out", r.at("step"), r.at("held out")),
           book::series("uniform", ends, {uniform, uniform}).set("style", "k:"),
           book::series("token bigram", ends, {two, two}).set("style", "k--")}));
}

// %%
// How far does a minute of training get? Compare the trained model with the two
// baselines line by line: with :math:`d_i` the difference of two models' costs of line
// :math:`i` and :math:`c_i` its characters, the difference in bits per character is
// :math:`\sum_i d_i / \sum_i c_i`, a ratio of means, whose standard error is
// :math:`\mathrm{sd}(d_i - \bar r c_i) / (\bar c \sqrt{n})` for :math:`n` lines, mean
// :math:`\bar c` and the ratio :math:`\bar r` (chapter 10). A normal variable strays
// more than 4 standard errors with probability :math:`6 \cdot 10^{-5}`, so a lead of
// more than 4 is no accident of these 2,000 lines.
//
// The GPT is below the uniform guess by far more than 4 standard errors, for every
// seed, and it has passed the token bigram too, by more than 4 standard errors for
// every seed. That was not a foregone race. The bigram was counted on all 3 million
// training tokens and keeps a number of its own for each of the 1,048,576 pairs of
// tokens. The GPT has read 2,000 batches of 512 tokens from windows drawn at random, a
// third of the training text's worth; it has 167,680 parameters, and its tied read-out
// makes every score a dot product of two vectors of width 64. What it has that the
// bigram has not is context, the tokens before the last one, and the next test measures
// what that is worth. Nor has it finished: on the 200 lines the curve records, the last
// record is below the one before, for every seed. Part of that last fall is the rate's
// own decay to 0, which lowers the loss wherever a model is on its way; how far a
// longer run would take the GPT, this chapter does not measure.
//
// .. figure:: loss_curves
//
//    Bits per character while training, for the first seed: the training loss (the
//    mean since the last point) and the loss on 200 held-out lines, with the uniform
//    guess and the token bigram as lines. The model leaves the uniform guess behind
//    from the first record. The bigram's line is its cost on all 2,000 held-out lines,
//    the curve's on 200 of them, so whether the GPT ends below the bigram is the
//    test's to say, on all 2,000. The held-out curve runs below the training curve,
//    and not because the model does better on text it has not read: the two are
//    measured differently. A training point is the mean over the 250 steps before it,
//    while the model was still improving, on windows that start anywhere in a line,
//    converted to characters by the training text's average; a held-out point is the
//    model at that step, on lines read from their start, over the characters of the
//    predictions it scores. This page does not measure how much each difference gives.

TEST_CASE(
    "the trained GPT beats the uniform guess by more than 4 standard errors and is "
    "still improving on the curve's 200 held-out lines when training stops, and beats "
    "the token bigram by more than 4 standard errors, for three seeds") {
  draw_loss_curves(trained(kSeeds[0]).record);
  const auto characters = line_characters(held_out_lines());
  const auto uniform = uniform_costs(), two = bigram_costs();
  std::map<std::uint64_t, std::vector<double>> costs;
  for (auto seed : kSeeds) {
    costs[seed] = model_costs(*trained(seed).model, held_out_lines());
    out() << "seed " << seed << ": the GPT "
          << bits_per_character_of(costs[seed], held_out_lines())
          << " bits per character; clipped " << trained(seed).record.at("clipped")[0]
          << " of " << kSteps << " steps\n";
  }
  book::measured("uniform guess", bits_per_character(uniform),
                 "bits per held-out character");
  book::measured("token bigram", bits_per_character(two),
                 "bits per held-out character");
  book::check_seeds("its lead on the uniform guess",
                    "in standard errors, paired by line", book::above(4), kSeeds,
                    [&](std::uint64_t seed) {
                      const Lead lead = paired(uniform, costs[seed], characters);
                      return lead.difference / lead.standard_error;
                    });
  book::check_seeds("last record's fall",
                    "bits per character, on the curve's 200 lines", book::above(0),
                    kSeeds, [&](std::uint64_t seed) {
                      const auto& h = trained(seed).record.at("held out");
                      return h[h.size() - 2] - h.back();
                    });
  book::check_seeds("its lead on the bigram", "in standard errors, paired by line",
                    book::above(4), kSeeds, [&](std::uint64_t seed) {
                      const Lead lead = paired(two, costs[seed], characters);
                      return lead.difference / lead.standard_error;
                    });
}

// %% fold: windows of held-out running text, and each position's cost
const std::vector<std::int64_t>& held_out_tokens() {
  static const std::vector<std::int64_t> ids = [] {
    std::string text;
    for (const book::Gloss& g : book::wordnet().held_out) text += line_of(g);
    return tokenizer().encode(text);
  }();
  return ids;
}

// Nats at each position [windows, T] of 3,000 evenly spaced held-out windows.
Tensor position_costs(const GPT* model) {
  const auto& ids = held_out_tokens();
  const std::int64_t n = 3000;
  const auto stride = (static_cast<std::int64_t>(ids.size()) - kContext - 1) / n;
  std::vector<std::int64_t> inputs, targets;
  for (std::int64_t w = 0; w < n; ++w)
    for (std::int64_t t = 0; t < kContext; ++t) {
      inputs.push_back(ids[w * stride + t]);
      targets.push_back(ids[w * stride + t + 1]);
    }
  if (!model) {  // the bigram
    std::vector<double> nats;
    for (std::size_t i = 0; i < inputs.size(); ++i)
      nats.push_back(-bigram().log_p[inputs[i] * kVocabulary + targets[i]]);
    return tensor(nats, {n, kContext});
  }
  return nats_at(*model, inputs, targets);
}

// %%
// What does a GPT have that the bigram has not? Context: the bigram sees one token
// back, the GPT every token in its window. So the GPT's predictions should get cheaper
// the more of the window lies behind them. Take the held-out lines as one running text,
// cut 3,000 windows from it at evenly spaced starts, and compare, window by window, the
// cost of the first prediction (one token of context) with the mean cost of the last 16
// (17 to 32 tokens of context). We claim the later predictions cheaper by more than 4
// standard errors of the mean paired difference, for three seeds.
//
// Context is also what should put the GPT ahead of the bigram. At a window's first
// prediction the GPT sees one token, as the bigram does: there it is a bigram itself,
// but one whose scores are dot products of width 64, learned from a third of the text's
// worth of tokens, of which one prediction in 32 was at this position. The table, with
// a number of its own for every pair, counted on all of the text, should be the better
// judge there. Over the last 16, the GPT sees 16 to 31 tokens that the bigram cannot.
// We claim both, each by more than 4 standard errors of its mean paired difference, for
// three seeds: the bigram ahead at the first prediction, the GPT ahead over the last
// 16.
//
// .. figure:: loss_by_position
//
//    The first seed's mean loss at each position of a window of held-out text, in nats
//    a token (not bits a character; the account gives the tokens a character), with
//    the token bigram's on the same windows. The bigram never sees more than one token
//    back; the GPT sees the whole window so far. The bigram's line starts below the
//    GPT's, where both see one token; over the last 16 positions the GPT's lies below
//    it on average.

// A mean paired difference over windows, in standard errors of the mean.
double in_standard_errors(const Tensor& differences) {
  const double n = static_cast<double>(differences.numel());
  return mean(differences).item() / (litgrad::std(differences).item() / std::sqrt(n));
}

TEST_CASE(
    "on held-out text the GPT's last 16 predictions of a window cost less than its "
    "first, and the token bigram is ahead of it at the first prediction and behind it "
    "over the last 16, each by more than 4 standard errors, for three seeds") {
  const Tensor bigram_nats = position_costs(nullptr);
  std::map<std::uint64_t, Tensor> costs;  // [windows, T] for each seed
  for (auto seed : kSeeds) costs[seed] = position_costs(trained(seed).model.get());
  const auto last_16 = [](const Tensor& nats) {  // [windows]
    return mean(slice(nats, 1, 16, kContext), {1});
  };
  book::check_seeds(
      "context's saving", "in standard errors, paired by window", book::above(4),
      kSeeds, [&](std::uint64_t seed) {
        const Tensor& nats = costs[seed];
        out() << "seed " << seed << ": the first prediction costs "
              << mean(select(nats, 1, 0)).item() << " nats, the last 16 "
              << mean(last_16(nats)).item() << "; the bigram's "
              << mean(select(bigram_nats, 1, 0)).item() << " and "
              << mean(last_16(bigram_nats)).item() << "\n";
        if (seed == kSeeds[0]) {
          std::vector<double> at, gpt, two;
          const Tensor by_position = mean(nats, {0}),
                       bigram_by_position = mean(bigram_nats, {0});
          for (std::int64_t t = 0; t < kContext; ++t) {
            at.push_back(static_cast<double>(t));
            gpt.push_back(by_position.at({t}));
            two.push_back(bigram_by_position.at({t}));
          }
          book::figure(
              "loss_by_position",
              book::line_plot(
                  "position in the window", "nats a token",
                  {book::series("GPT", at, gpt),
                   book::series("token bigram", at, two).set("style", "k--")}));
        }
        return in_standard_errors(select(nats, 1, 0) - last_16(nats));
      });
  book::check_seeds("the bigram's lead at the first prediction",
                    "in standard errors, paired by window", book::above(4), kSeeds,
                    [&](std::uint64_t seed) {
                      return in_standard_errors(select(costs[seed], 1, 0) -
                                                select(bigram_nats, 1, 0));
                    });
  book::check_seeds(
      "the GPT's lead over the last 16", "in standard errors, paired by window",
      book::above(4), kSeeds, [&](std::uint64_t seed) {
        return in_standard_errors(last_16(bigram_nats) - last_16(costs[seed]));
      });
}

// %% fold: scoring a definition after a word
// Nats of each of n held-out definitions [n, 2]: after its own word, after the next's.
Tensor definition_costs(const GPT& model, std::size_t n) {
  const auto glosses = spread(n);
  std::vector<std::int64_t> inputs, targets;  // two windows per definition
  for (std::size_t i = 0; i < n; ++i) {
    const auto own = tokenizer().encode("\n" + glosses[i]->words[0] + ":");
    const auto other = tokenizer().encode("\n" + glosses[(i + 1) % n]->words[0] + ":");
    auto definition = tokenizer().encode(" " + glosses[i]->definition + "\n");
    const std::size_t room = kContext + 1 - std::max(own.size(), other.size());
    if (definition.size() > room) definition.resize(room);
    for (const auto* word : {&own, &other}) {
      std::vector<std::int64_t> ids = *word;
      ids.insert(ids.end(), definition.begin(), definition.end());
      for (std::size_t t = 0; t < static_cast<std::size_t>(kContext); ++t) {
        const bool counted = t + 1 < ids.size() && t + 1 >= word->size();
        inputs.push_back(t < ids.size() ? ids[t] : 0);
        targets.push_back(counted ? ids[t + 1] : -100);  // -100 costs 0
      }
    }
  }
  return sum(nats_at(model, inputs, targets), {1})
      .reshape({static_cast<std::int64_t>(n), 2});
}

// %%
// The text holds a task as well as a language: after a word and a colon comes what the
// word means. Has the model learned to read the word, or does it write a line shaped
// like a definition whatever the word? Score each of 1,000 held-out definitions twice:
// after its own word, and after the word of the next held-out line, counting only the
// definition's tokens. The word and the definition are encoded apart, so that both
// scorings count the same tokens, and the definition is cut, where it must be, to what
// fits in the window after the longer of the two words. If the model ignored the word,
// the two costs would differ by chance alone; we claim the definition cheaper after its
// own word by more than 4 standard errors of the mean paired difference, for three
// seeds.

TEST_CASE(
    "held-out definitions cost the GPT less after their own word than after another "
    "held-out line's word, by more than 4 standard errors, for three seeds") {
  book::check_seeds(
      "the own word's saving", "in standard errors, paired by definition",
      book::above(4), kSeeds, [&](std::uint64_t seed) {
        const Tensor nats = definition_costs(*trained(seed).model, 1000);
        const Tensor saving = select(nats, 1, 1) - select(nats, 1, 0);  // [1000]
        out() << "seed " << seed << ": a definition costs " << mean(saving).item()
              << " nats more after another word than after its own\n";
        return in_standard_errors(saving);
      });
}

// %% 5 · Writing, with a cache of keys and values
//
// To write, give the model a prompt, take its scores for the token after the last one,
// choose a token, append it and repeat. Done naively, each step runs the model on the
// whole text so far, although, under the causal mask, nothing it computed for the
// earlier positions can have changed: a position's vectors depend on that position and
// those before it only. The one thing a new position needs from the earlier ones is,
// in each block's attention, their *keys and values*. So a decoder keeps them: the
// *KV cache*. Each step feeds only the new token through the blocks; each attention
// layer computes the new token's query, key and value, appends the key and value to its
// cache, and attends from the query to every cached key
// (:cpp:func:`litgrad::nn::TransformerEncoderLayer::forward_cached`).
//
// The position embedding must then be told where the new token is: position
// :math:`s` after :math:`s` tokens in the cache.

// Token ids [N, n] that follow the tokens the caches have seen → scores [N, n, V].
Tensor forward_cached(const GPT& model, const Tensor& ids,
                      std::vector<nn::KVCache>& caches) {
  caches.resize(model.blocks.size());
  const std::int64_t seen = caches[0].size(), n = ids.size(1);
  Tensor x = model.token(ids) + model.position(arange(seen, seen + n).to(DType::Int64));
  for (std::size_t l = 0; l < model.blocks.size(); ++l)
    x = model.blocks.at<nn::TransformerEncoderLayer>(l).forward_cached(x, caches[l]);
  return model.readout(x);
}

// %%
// The diagram below is one such step, drawn from the graph it recorded
// (:cpp:func:`litgrad::autograd::recorded_graph`, module by module) after a prompt of
// five tokens filled the caches. One token id comes in, [1, 1]; its embedding and its
// position's (position 5, the sixth, a row [1, 64] added to every row of the batch)
// are added into one vector of 64; each block reads that vector and its own cache, the
// keys and the values of the five tokens before, in four heads of 16 numbers, [4, 5,
// 16], and inside the box appends the new token's key and value, so that its query
// attends over all six. The read-out multiplies by the token embedding's whole matrix
// again (section 3's tied read-out: the second arrow out of ``token``, [1024, 64],
// transposed by the permute before the product), which gives 1,024 scores. Nothing in
// the step has a length that grows but the caches.
//
// .. figure:: cached_step_graph
//
//    One step of writing with the KV cache, as it recorded itself: the new token in
//    green, the caches orange (on a phone, written inside the block that reads them),
//    modules dark blue, the model's own operations light blue, each arrow the shape it
//    carries.

TEST_CASE(
    "drawn from its recorded graph, a cached step takes one token [1, 1] through both "
    "blocks, each reading its own cache of keys and values [4, 5, 16], to 1,024 "
    "scores, the read-out reading the token embedding again") {
  Generator gen(1);
  GPT model(gen);
  model.eval();
  std::vector<nn::KVCache> caches;
  {
    NoGradGuard no_grad;  // the prompt fills the caches; only the next step is drawn
    forward_cached(model, ids_tensor({1, 2, 3, 4, 5}, {1, 5}), caches);
  }
  const Tensor next = ids_tensor({6}, {1, 1});
  std::vector<std::pair<std::string, Tensor>> names = model.named_parameters();
  book::DiagramView view;
  view.model = &model, view.depth = 1;
  for (std::size_t l = 0; l < caches.size(); ++l) {
    const std::string block = "blocks." + std::to_string(l);
    names.emplace_back(block + " cached keys", caches[l].keys);
    names.emplace_back(block + " cached values", caches[l].values);
    view.roles[block + " cached keys"] = view.roles[block + " cached values"] = "cache";
  }
  names.emplace_back("new token", next);
  autograd::ScopeCapture capture;
  const Tensor scores = forward_cached(model, next, caches);
  const book::Diagram drawn =
      book::recorded_diagram(autograd::recorded_graph(scores, names, &capture), view);
  std::map<std::string, std::size_t> box;
  for (std::size_t i = 0; i < drawn.nodes.size(); ++i) box[drawn.nodes[i].label] = i;
  const auto arrow = [&](const std::string& from, const std::string& to) {
    for (const auto& e : drawn.edges)
      if (box.count(from) && box.count(to) && e.from == box[from] && e.to == box[to])
        return e.label;
    return std::string("(none)");
  };
  int caches_read = 0;
  for (const char* block : {"blocks.0", "blocks.1"})
    for (const char* what : {" cached keys", " cached values"})
      caches_read +=
          arrow(std::string(block) + what,
                std::string(block) + "\nTransformerEncoderLayer") == "[4,5,16]";
  book::check("caches read, of shape [4, 5, 16]", caches_read,
              "each block's keys and values, each read by its own block",
              book::exactly(4));
  CHECK(arrow("new token", "token\nEmbedding") == "[1,1]");
  CHECK(arrow("token\nEmbedding", "permute") == "[1024,64]");  // the tied read-out
  CHECK(arrow("matmul", "output") == "[1,1,1024]");
  book::figure("cached_step_graph", drawn.json());
}

// %% fold: writing, with or without the cache
struct Written {
  std::vector<std::int64_t> ids;  // the prompt, then what was written
  std::vector<Tensor> scores;     // [V] at each step
};

// Writes from `prompt` until the context is full, choosing each token with `choose`;
// `operations`, if given, gets each step's count of FlopCounter.
template <typename Choose>
Written write(const GPT& model, const std::vector<std::int64_t>& prompt, bool cached,
              Choose choose, std::vector<double>* operations = nullptr) {
  NoGradGuard no_grad;
  Written w{prompt, {}};
  std::vector<nn::KVCache> caches;
  Tensor next = ids_tensor(prompt, {1, static_cast<std::int64_t>(prompt.size())});
  while (static_cast<std::int64_t>(w.ids.size()) < kContext) {
    const auto n = static_cast<std::int64_t>(w.ids.size());
    FlopCounter counter;
    const Tensor all =
        cached ? forward_cached(model, next, caches) : model(ids_tensor(w.ids, {1, n}));
    if (operations) operations->push_back(static_cast<double>(counter.total_flops()));
    const Tensor last = select(select(all, 0, 0), 0, all.size(1) - 1);  // [V]
    w.scores.push_back(last);
    w.ids.push_back(choose(last));
    next = ids_tensor({w.ids.back()}, {1, 1});
  }
  return w;
}

std::vector<std::int64_t> prompt_of(const std::string& text) {
  return tokenizer().encode("\n" + text);
}

const std::vector<std::string> kPrompts = {
    "river:", "music:", "teacher:", "happy:", "to walk:"};

// %%
// The library's matrix products sum every element's terms in one order that depends
// only on how many terms there are, never on how many rows are computed beside it, so
// the cached step's arithmetic is the same as the full run's for the new position, term
// for term. The test holds this exactly: it writes from five prompts to the end of the
// model's context, both ways, sampling each token from the scores, and compares every
// step's scores bit for bit. That is a promise of litgrad's kernels, not of every
// library: PyTorch's documentation on numerical accuracy warns that the same
// computation on a batch and on its slices need not agree in every bit, so a cache
// there is expected to agree with recomputation only to rounding.

TEST_CASE(
    "writing with the KV cache gives exactly the scores of recomputing the whole text, "
    "at every step to the end of the context, from five prompts") {
  const GPT& model = *trained(kSeeds[0]).model;
  std::int64_t differing = 0, steps = 0;
  for (const std::string& p : kPrompts) {
    Generator a(20), b(20);
    auto draw = [](Generator& g) {
      return [&g](const Tensor& s) { return std::llround(sample(s, {}, g).item()); };
    };
    const Written cached = write(model, prompt_of(p), true, draw(a));
    const Written full = write(model, prompt_of(p), false, draw(b));
    for (std::size_t t = 0; t < std::min(cached.scores.size(), full.scores.size()); ++t)
      differing += differing_bits(cached.scores[t], full.scores[t]);
    differing += cached.ids != full.ids;
    steps += static_cast<std::int64_t>(cached.scores.size());
    out() << "\"" << p << "\" →" << one_line(tokenizer().decode(cached.ids).substr(1))
          << "\n";
  }
  book::check("differing score bits", static_cast<double>(differing),
              "over " + std::to_string(steps) + " steps of 1,024 scores",
              book::exactly(0));
}

// %%
// What does the cache save? Count it rather than time it: ``FlopCounter`` adds up the
// operations of every matrix product, :math:`2nkm` for an :math:`n \times k` by
// :math:`k \times m` product. Without the cache, step :math:`s` runs the model on
// :math:`s` tokens: the layers' products grow like :math:`s` and the attention scores
// like :math:`s^2`, so each step costs more than the last by a growing amount, and
// for a long text the whole of :math:`S` tokens costs on the order of :math:`S^3` (at
// 32 tokens the part that grows like :math:`s` still dominates). The recomputing step
// here also reads out scores at every position, as the model's forward does; a
// recomputing decoder could read out only the last, which narrows the gap but leaves
// its growth. With it, step
// :math:`s` runs the layers on one token, and its attention compares one query with
// :math:`s` keys: a cost of the form :math:`a + bs`, growing by the same amount
// :math:`b` at every step. The test counts both at each step of writing 31 tokens after
// one, and claims exactly that: the cached steps' second differences are all 0, the
// recomputing steps' all positive.

TEST_CASE(
    "counted in operations, each cached step costs exactly a + b·s after s tokens, "
    "while recomputing costs more at every step by a growing amount") {
  const GPT& model = *trained(kSeeds[0]).model;
  std::vector<double> with, without;  // each step's operations, greedy from a newline
  auto greedy = [](const Tensor& s) { return std::llround(argmax(s, 0).item()); };
  write(model, {kNewline}, true, greedy, &with);
  write(model, {kNewline}, false, greedy, &without);
  double cached_bent = 0, flattest = INFINITY;
  for (std::size_t s = 2; s < with.size(); ++s) {
    cached_bent += std::fabs(with[s] - 2 * with[s - 1] + with[s - 2]);
    flattest = std::min(flattest, without[s] - 2 * without[s - 1] + without[s - 2]);
  }
  out() << "operations at step 1: " << with.front() << " cached, " << without.front()
        << " recomputed; at step 31: " << with.back() << " cached, " << without.back()
        << " recomputed (" << without.back() / with.back() << " times)\n";
  book::check("cached second differences", cached_bent, "summed over 29 steps",
              book::exactly(0));
  book::check("smallest recomputing second difference", flattest, "operations",
              book::above(0));
}

// %% 6 · Choosing the next token
//
// The scores give a distribution, :math:`\operatorname{softmax}(z / \tau)` at
// temperature :math:`\tau` (chapter 10). Drawing from it as it is, the model now and
// then picks a token from its long tail of unlikely ones, and one bad token can derail
// the rest of a line. Two cuts keep the draw to the likely tokens, each then
// renormalised: *top-k* keeps the :math:`k` highest scores, and *top-p*, or *nucleus
// sampling* (Holtzman et al., 2020), keeps the fewest most likely tokens whose
// probabilities add up to at least :math:`p`, so that it keeps few tokens where the
// model is sure and many where it is not. The library's :cpp:func:`litgrad::sample`
// applies the temperature, then top-k, then top-p, and draws with ``multinomial``.
//
// Greedy decoding, always the most likely token, is the other way to avoid the tail,
// and it tends to fall into loops, writing the same phrase again and again: the
// *degeneration* of Holtzman et al.'s title. They proposed the nucleus as a way to
// sample that avoids it without drawing from the unreliable tail, and whose cut, unlike
// a fixed top-k, adapts to how sure the model is; the account shows the greedy lines.
// Two settings connect the knobs to what came before, and the test checks both exactly,
// on the trained model's own scores: top-k with :math:`k = 1` writes the greedy text,
// token for token; top-p with :math:`p = 1` and no top-k writes the text of plain
// sampling, ``multinomial`` of the softmax, from a generator in the same state.
//
// The second is not as obvious as it looks. The rule, followed literally in floating
// point, sorts the probabilities, sums them from the largest, and stops at the first
// token where the sum reaches :math:`p`. The exact sum reaches 1 only at the last token
// with any probability, but the rounded sum of a thousand numbers lands within a few
// :math:`u` of 1, on either side, and where it lands on 1 early, the rule cuts the
// tokens after that point, each with a probability of its own. So
// :cpp:func:`litgrad::top_p_filter` keeps every token at :math:`p = 1` without summing.
// Whether the sum lands early depends on how sure the model is: section 7's larger
// model, surer of its next token, gives places where it does, and the test there
// counts them and checks that top-p at :math:`p = 1` leaves them whole.

TEST_CASE(
    "top-k with k = 1 writes exactly the greedy text, and top-p with p = 1 exactly the "
    "text of plain sampling, from five prompts") {
  const GPT& model = *trained(kSeeds[0]).model;
  std::int64_t differing_greedy = 0, differing_plain = 0;
  for (const std::string& p : kPrompts) {
    Generator a(30), b(30);
    SamplingOptions top1;
    top1.top_k = 1;
    const auto greedy = write(model, prompt_of(p), true, [](const Tensor& s) {
      return std::llround(argmax(s, 0).item());
    });
    const auto k1 = write(model, prompt_of(p), true, [&](const Tensor& s) {
      return std::llround(sample(s, top1, a).item());
    });
    SamplingOptions all;
    all.top_p = 1.0;
    Generator c(31), d(31);
    const auto plain = write(model, prompt_of(p), true, [&](const Tensor& s) {
      return std::llround(multinomial(softmax(s, 0), 1, false, c).at({0}));
    });
    const auto p1 = write(model, prompt_of(p), true, [&](const Tensor& s) {
      return std::llround(sample(s, all, d).item());
    });
    differing_greedy += greedy.ids != k1.ids;
    differing_plain += plain.ids != p1.ids;
    out() << "greedy: " << one_line(tokenizer().decode(greedy.ids).substr(1)) << "\n";
  }
  book::check("top-k = 1 texts unlike greedy", static_cast<double>(differing_greedy),
              "of 5", book::exactly(0));
  book::check("top-p = 1 texts unlike plain sampling",
              static_cast<double>(differing_plain), "of 5", book::exactly(0));
}

// %%
// And the cuts never let a token through that they should have cut. Writing 40 lines
// with top-k at :math:`k = 40` and 40 with top-p at :math:`p = 0.9`, the test checks
// every drawn token against the scores it was drawn from: under top-k, fewer than 40
// tokens may score strictly higher; under top-p, the tokens more likely than the drawn
// one must add up to less than 0.9 (otherwise the nucleus was complete without it). The
// account shows how many tokens the nucleus held: its smallest, its mean and its
// largest, which say how differently sure the model is from one token to the next.

TEST_CASE(
    "no token drawn with top-k = 40 or top-p = 0.9 lies outside its set, over 40 "
    "lines each") {
  const GPT& model = *trained(kSeeds[0]).model;
  std::int64_t outside_k = 0, outside_p = 0, draws = 0;
  double nucleus = 0, smallest = INFINITY, largest = 0;
  Generator gen(40);
  for (int line = 0; line < 40; ++line)
    for (bool top_p : {false, true}) {
      SamplingOptions o;
      if (top_p)
        o.top_p = 0.9;
      else
        o.top_k = 40;
      write(model, {kNewline}, true, [&](const Tensor& s) {
        const std::int64_t drawn = std::llround(sample(s, o, gen).item());
        const std::vector<double> z = s.to_vector();
        const Tensor p = softmax(s, 0);
        std::int64_t higher = 0, in_nucleus = 0;
        double more_likely = 0;
        for (std::int64_t j = 0; j < kVocabulary; ++j) {
          higher += z[j] > z[drawn];
          if (p.at({j}) > p.at({drawn})) more_likely += p.at({j});
        }
        if (top_p) {
          outside_p += !(more_likely < 0.9);
          const Tensor kept = top_p_filter(s, 0.9);
          for (std::int64_t j = 0; j < kVocabulary; ++j)
            in_nucleus += std::isfinite(kept.at({j}));
          nucleus += static_cast<double>(in_nucleus);
          smallest = std::min(smallest, static_cast<double>(in_nucleus));
          largest = std::max(largest, static_cast<double>(in_nucleus));
          ++draws;
        } else {
          outside_k += !(higher < 40);
        }
        return drawn;
      });
    }
  out() << "the nucleus held " << nucleus / static_cast<double>(draws)
        << " tokens on average, from " << smallest << " to " << largest << "\n";
  book::check("top-k draws outside", static_cast<double>(outside_k), "of the 40 best",
              book::exactly(0));
  book::check("top-p draws outside", static_cast<double>(outside_p), "of the nucleus",
              book::exactly(0));
}

// %% fold: the bigram's writing, and counting dictionary words
const std::set<std::string>& dictionary() {
  static const std::set<std::string> words = [] {
    std::ifstream file("/usr/share/dict/american-english");
    if (!file)
      throw std::runtime_error(
          "chapter 12 reads Debian's word list /usr/share/dict/american-english, which "
          "is "
          "missing: install it with `sudo apt-get install wamerican` (or run "
          "tools/install-deps build)");
    std::set<std::string> w;
    for (std::string line; std::getline(file, line);) w.insert(line);
    return w;
  }();
  return words;
}

// The words of a text (runs of letters) and how many the dictionary has, as written or
// in lower case.
std::pair<double, double> dictionary_words(const std::string& text) {
  double words = 0, known = 0;
  std::string w;
  for (char c : text + " ") {
    if (std::isalpha(static_cast<unsigned char>(c))) {
      w += c;
      continue;
    }
    if (w.empty()) continue;
    std::string lower = w;
    for (char& l : lower)
      l = static_cast<char>(std::tolower(static_cast<unsigned char>(l)));
    words += 1, known += dictionary().count(w) + dictionary().count(lower) > 0;
    w.clear();
  }
  return {words, known};
}

std::string bigram_line(Generator& gen) {
  std::vector<std::int64_t> ids = {kNewline};
  while (static_cast<std::int64_t>(ids.size()) < kContext) {
    std::vector<double> p(kVocabulary);
    for (std::int64_t b = 0; b < kVocabulary; ++b)
      p[b] = std::exp(bigram().log_p[ids.back() * kVocabulary + b]);
    ids.push_back(
        std::llround(multinomial(tensor(p, {kVocabulary}), 1, false, gen).at({0})));
    if (ids.back() == kNewline) break;
  }
  return tokenizer().decode(ids);
}

// A line written from `prompt`, as token ids, until a newline or the context's end.
std::vector<std::int64_t> model_line(const GPT& model,
                                     const std::vector<std::int64_t>& prompt,
                                     const SamplingOptions& o, Generator& gen) {
  std::vector<std::int64_t> ids = prompt;
  std::vector<nn::KVCache> caches;
  NoGradGuard no_grad;
  Tensor next = ids_tensor(ids, {1, static_cast<std::int64_t>(ids.size())});
  while (static_cast<std::int64_t>(ids.size()) < kContext) {
    const Tensor all = forward_cached(model, next, caches);
    ids.push_back(std::llround(
        sample(select(select(all, 0, 0), 0, all.size(1) - 1), o, gen).item()));
    if (ids.back() == kNewline) break;
    next = ids_tensor({ids.back()}, {1, 1});
  }
  return ids;
}

// %%
// How well does it write? The account shows twenty lines it wrote at temperature 1
// with :math:`p = 0.9`, from the first seed, each from the word of a held-out line, a
// sense whose definition it never saw. Read them, and you will see both what a minute
// of training buys and what it does not: many of the words are English, and the lines
// have the shape of definitions; many others are word-like inventions, pieces of words
// joined where the habits of a small model put them. The context ends after 32 tokens,
// as the position embedding does; a longer text would have to crop its window to the
// last 32 tokens, and recompute the keys and values under the new positions.
//
// One thing the model has certainly learned, where the bigram cannot: the form of a
// line. More than 9 training lines in 10 have their word, then one colon, then the
// definition (the test checks the share). A bigram deciding whether to write a colon
// cannot know whether this line has had its colon already; the GPT sees the whole line.
// The test writes 200 lines from a newline with each (plain sampling, so that each
// writes from its own distribution), counts the lines with exactly one colon, and
// claims the GPT's share above the bigram's by more than 4 standard errors of the
// difference of two shares, :math:`\sqrt{p_1(1-p_1)/n + p_2(1-p_2)/n}`, for three
// seeds. The account also gives the share of written words found in Debian's word list
// (chapter 10's), for both, to read and compare; this test claims nothing about them.

TEST_CASE(
    "more of the GPT's lines have exactly one colon, a word and its definition, than "
    "of the token bigram's, by more than 4 standard errors, for three seeds") {
  Generator shown(50);
  SamplingOptions nucleus;
  nucleus.top_p = 0.9;
  for (int i = 0; i < 20; ++i) {
    const std::string word = spread(20)[static_cast<std::size_t>(i)]->words[0];
    const std::string line = tokenizer().decode(
        model_line(*trained(kSeeds[0]).model, prompt_of(word + ":"), nucleus, shown));
    out() << written_line(line);
  }
  double in_training = 0;
  for (const book::Gloss& g : book::wordnet().training)
    in_training += std::count(g.definition.begin(), g.definition.end(), ':') == 0;
  book::check("training lines with exactly one colon",
              in_training / static_cast<double>(book::wordnet().training.size()),
              "share", book::above(0.9));
  book::check_seeds(
      "one-colon share's lead", "in standard errors", book::above(4), kSeeds,
      [&](std::uint64_t seed) {
        Generator gen(60 + seed);
        const double n = 200;
        double model_one = 0, bigram_one = 0;
        std::pair<double, double> model_words{0, 0}, bigram_words{0, 0};
        for (int i = 0; i < n; ++i) {
          const std::string m =
              tokenizer().decode(model_line(*trained(seed).model, {kNewline}, {}, gen));
          const std::string b = bigram_line(gen);
          model_one += std::count(m.begin(), m.end(), ':') == 1;
          bigram_one += std::count(b.begin(), b.end(), ':') == 1;
          const auto [mw, mk] = dictionary_words(m);
          const auto [bw, bk] = dictionary_words(b);
          model_words.first += mw, model_words.second += mk;
          bigram_words.first += bw, bigram_words.second += bk;
        }
        const double p1 = model_one / n, p2 = bigram_one / n;
        out() << "seed " << seed << ": one colon in " << p1 << " of the GPT's lines, "
              << p2 << " of the bigram's; "
              << "dictionary words " << model_words.second / model_words.first
              << " and " << bigram_words.second / bigram_words.first << "\n";
        return (p1 - p2) / std::sqrt(p1 * (1 - p1) / n + p2 * (1 - p2) / n);
      });
}

// %% fold: the share of known words in 200 written lines, and its standard error
struct KnownShare {
  double share = 0, standard_error = 0;
};

// The share of known words over texts, a ratio of sums, and its standard error.
KnownShare known_share_of(const std::vector<std::string>& texts) {
  std::vector<double> words, known;
  double sw = 0, sk = 0;
  for (const std::string& t : texts) {
    const auto [w, k] = dictionary_words(t);
    words.push_back(w), known.push_back(k), sw += w, sk += k;
  }
  const double share = sk / sw, n = static_cast<double>(texts.size());
  double spread = 0;
  for (std::size_t i = 0; i < words.size(); ++i)
    spread += (known[i] - share * words[i]) * (known[i] - share * words[i]);
  return {share, std::sqrt(n / (n - 1) * spread) / sw};
}

// The share over 200 lines the model writes from a newline; `show` of the lines go to
// the account as written.
KnownShare known_share(const GPT& model, double temperature, Generator& gen,
                       int show = 0) {
  SamplingOptions o;
  o.temperature = temperature;
  std::vector<std::string> lines;
  for (int i = 0; i < 200; ++i) {
    lines.push_back(tokenizer().decode(model_line(model, {kNewline}, o, gen)));
    if (i < show) out() << written_line(lines.back());
  }
  return known_share_of(lines);
}

// %%
// Now the first knob at work. Dividing the scores by a temperature below 1 sharpens the
// distribution toward the tokens the model is surest of, and so, we expect, toward the
// words it has seen most: at :math:`\tau = 0.5` more of the words it writes should be
// in the word list than at :math:`\tau = 1`. The test writes 200 lines from a newline
// at each temperature, for each seed, and compares the shares of written words that
// Debian's word list has. A share is a ratio of two sums over lines, :math:`R = \sum_i
// k_i / \sum_i w_i` for :math:`k_i` known words among :math:`w_i`. The lines are drawn
// independently, the words within a line are not, so the standard error comes from the
// spread over lines (the delta method, as for chapter 10's leads):
// :math:`\operatorname{SE}(R) = \sqrt{\tfrac{n}{n-1} \sum_i (k_i - R w_i)^2} / \sum_i
// w_i`. The claim, for three seeds: the share at :math:`\tau = 0.5` is above the share
// at :math:`\tau = 1` by more than 4 standard errors of the difference,
// :math:`\sqrt{\operatorname{SE}_{0.5}^2 + \operatorname{SE}_1^2}`. And at
// :math:`\tau = 0.5`, does the GPT write *mostly* words of the word list? We claim that
// too: the share is above one half by more than 4 of its standard errors, for three
// seeds. The account shows the first ten lines the first seed wrote at
// :math:`\tau = 0.5`, each from a newline; set them beside the lines above, written at
// :math:`\tau = 1` with :math:`p = 0.9`.

TEST_CASE(
    "at temperature 0.5 more of the words the GPT writes are in Debian's word list "
    "than at temperature 1, and at 0.5 more than half of them are, each by more than 4 "
    "standard errors, for three seeds") {
  std::map<std::uint64_t, std::pair<KnownShare, KnownShare>> shares;  // at 0.5, at 1
  for (auto seed : kSeeds) {
    Generator gen(70 + seed);
    if (seed == kSeeds[0]) out() << "the first seed at temperature 0.5:\n";
    const KnownShare cold =
        known_share(*trained(seed).model, 0.5, gen, seed == kSeeds[0] ? 10 : 0);
    const KnownShare warm = known_share(*trained(seed).model, 1.0, gen);
    out() << "seed " << seed << ": words in the word list " << cold.share << " ± "
          << cold.standard_error << " at temperature 0.5, " << warm.share << " ± "
          << warm.standard_error << " at 1\n";
    shares[seed] = {cold, warm};
  }
  book::check_seeds("known share at 0.5 over 1", "in standard errors", book::above(4),
                    kSeeds, [&](std::uint64_t seed) {
                      const auto& [cold, warm] = shares[seed];
                      return (cold.share - warm.share) /
                             std::hypot(cold.standard_error, warm.standard_error);
                    });
  book::check_seeds("known share at 0.5 over one half", "in standard errors",
                    book::above(4), kSeeds, [&](std::uint64_t seed) {
                      const KnownShare& cold = shares[seed].first;
                      return (cold.share - 0.5) / cold.standard_error;
                    });
}

// %%
// Where does the model look while it writes? Take the first line the model wrote above
// (the same generator, so the same line) and the last block's attention on it. Of its
// four heads, the figure draws the one that looks furthest back: for each position,
// the distance to each earlier token weighted by the attention on it, averaged over
// the line; the account gives that mean distance for every head.
//
// .. figure:: line_attention
//
//    One head of the last block on a line the model wrote, the head with the largest
//    mean distance back: row :math:`t` is the position predicting token :math:`t + 1`,
//    and everything above the diagonal is 0 under the causal mask.

// %% fold: the last block's attention on a written line, and drawing it
// The last block's attention weights per head [1, 4, n, n] on the tokens `ids`.
Tensor last_attention(const GPT& model, const std::vector<std::int64_t>& ids) {
  NoGradGuard no_grad;
  const auto n = static_cast<std::int64_t>(ids.size());
  Tensor x = model.token(ids_tensor(ids, {1, n})) + model.position(arange(n));
  const Tensor mask = generate_square_subsequent_mask(n);
  for (std::size_t l = 0; l + 1 < model.blocks.size(); ++l)
    x = model.blocks.at<nn::TransformerEncoderLayer>(l)(x, mask, Tensor(), true);
  const auto& last =
      model.blocks.at<nn::TransformerEncoderLayer>(model.blocks.size() - 1);
  const Tensor normed = last.norm1(x);
  return last.self_attn(normed, normed, normed, Tensor(), true, mask, false).weights;
}

// Draws the head whose attention reaches furthest back on average: per head, the sum
// over j of w[t, j]·(t - j) is row t's mean distance back, averaged over the rows.
void draw_line_attention(const Tensor& weights, const std::vector<std::int64_t>& ids) {
  const auto n = static_cast<std::int64_t>(ids.size());
  const Tensor back = arange(n).reshape({n, 1}) - arange(n).reshape({1, n});  // t - j
  const Tensor distance = mean(sum(select(weights, 0, 0) * back, {2}), {1});  // [heads]
  std::int64_t furthest = 0;
  for (std::int64_t h = 0; h < kHeads; ++h) {
    out() << "head " << h << " looks back " << distance.at({h})
          << " tokens on average\n";
    if (distance.at({h}) > distance.at({furthest})) furthest = h;
  }
  std::vector<std::string> labels;
  for (std::int64_t id : ids) {
    const std::string t = tokenizer().token(id);
    labels.push_back(t == "\n" ? "↵" : t);
  }
  book::figure("line_attention",
               book::heatmap(select(select(weights, 0, 0), 0, furthest), labels, labels,
                             "attends to", "reading")
                   .set("title", "head " + std::to_string(furthest)));
}

// %%
// The test draws it, and checks what the picture promises: every weight on a later
// token is exactly 0.

TEST_CASE(
    "in the last block's attention on a written line, every weight on a later "
    "token is exactly 0") {
  const GPT& model = *trained(kSeeds[0]).model;
  Generator gen(50);
  SamplingOptions nucleus;
  nucleus.top_p = 0.9;
  const std::string word = spread(20)[0]->words[0];
  std::vector<std::int64_t> ids =
      model_line(model, prompt_of(word + ":"), nucleus, gen);
  if (ids.back() == kNewline) ids.pop_back();
  const Tensor w = last_attention(model, ids);
  draw_line_attention(w, ids);
  const auto n = static_cast<std::int64_t>(ids.size());
  std::int64_t later = 0;
  for (std::int64_t h = 0; h < kHeads; ++h)
    for (std::int64_t i = 0; i < n; ++i)
      for (std::int64_t j = i + 1; j < n; ++j) later += w.at({0, h, i, j}) != 0.0;
  out() << "the line: " << one_line(tokenizer().decode(ids).substr(1)) << "\n";
  book::check("nonzero weights on later tokens", static_cast<double>(later), "4 heads",
              book::exactly(0));
}

// %% 7 · A longer run
//
// A minute of one core buys the shape of the text; what does more buy? The book keeps
// one longer run. Its model is this chapter's GPT, made larger: width 128, four
// blocks of four heads and a context of 128 tokens, close to a million parameters
// (the account gives the count). Its text is not WordNet's. A definition asks the
// model to know what its word means, a world of facts; the run's text asks mostly for
// a style. It is the King James Bible (Debian's ``bible-kjv``), prose whose style is
// regular and whose words and phrases repeat, the kind of text a small model can learn
// to write. Each chapter of the Bible is a document, its verses one a line, and the
// documents are joined by ``<|endoftext|>``, the special token GPT-2 puts between
// documents, which the library's tokenizer registers after its merges, as the 1,025th
// token. A twentieth of the chapters, drawn at random, are held out whole (the account
// gives the counts). Since the text, the model's size and the length of training all
// change at once, the long model's numbers are not the first model's made better: each
// is held to the baselines of its own text.
//
// The run takes 7,500 steps of 16 windows of 128 tokens, the steps of section 4's loop:
// AdamW with the same two groups and decay, warm-up, a cosine, clipping to 1, with
// settings of its own: a peak rate of 0.002, :math:`\beta_2 = 0.95` (nanoGPT's choice
// for its GPT-2 runs), a warm-up over the first 5% of the steps, and a cosine that ends
// at a tenth of the peak, as nanoGPT's does. The loop lives in
// :cpp:func:`litgrad::book::train_payoff`, and the model in
// :cpp:struct:`litgrad::book::GPT`. It takes tens of minutes on two cores, far beyond
// any build's budget, so it ran once, by the command ``tools/payoff``, and the
// repository keeps what it made: the tokenizer, the parameters and the record of its
// losses, in ``chapters/payoff``. The run is deterministic on any number of threads and
// in a build for any x86-64 processor, so the kept files are what the command makes,
// byte for byte (``tools/payoff --check`` runs it again and compares), and the
// library's tests rerun its first ten steps in every build and compare the parameters'
// checksum with the one kept. One condition remains: the processor must have the
// fused multiply-add instructions (FMA, as x86-64-v3 requires), because the C library's
// logarithm, sine and cosine round a few arguments differently on one without; there
// the test says it cannot compare. The claims below load the kept model and measure
// it, in seconds.
//
// %% fold: the kept long run, loaded once: its tokenizer, text, model and record
const std::string kKept =
    std::string(__FILE__).substr(0, std::string(__FILE__).find_last_of('/')) +
    "/payoff/";

struct LongRun {
  BPETokenizer tokenizer;
  book::PayoffText text;
  book::PayoffConfig config;
  std::unique_ptr<book::GPT> model;
  book::PayoffRecord record;
};

const LongRun& long_run() {
  static const LongRun run = [] {
    LongRun r;
    r.tokenizer.load(kKept + "tokenizer.bpe");
    r.text = book::payoff_text(book::bible(), r.tokenizer);
    Generator gen(r.config.seed);
    r.model = std::make_unique<book::GPT>(r.config.model, gen);
    nn::load(*r.model, kKept + "gpt.state");
    r.model->eval();
    r.record = book::load_payoff_record(kKept + "record.txt");
    return r;
  }();
  return run;
}

// %%
// First, that the long run's model is the model this chapter built: the library's GPT,
// given this chapter's sizes and the same generator, starts with this chapter's
// parameters and gives its scores, in every bit.

TEST_CASE(
    "the library's GPT, which the long run trained, is this chapter's GPT: with the "
    "chapter's sizes and generator it has the same parameters and scores in every "
    "bit") {
  Generator a(11), b(11), ids_gen(12);
  const GPT ours(a);
  const book::GPT library({kVocabulary, kContext, kLayers, kHeads, kWidth}, b);
  std::int64_t differing = 0, compared = 0;
  const auto p = ours.named_parameters(), q = library.named_parameters();
  REQUIRE(p.size() == q.size());
  for (std::size_t i = 0; i < p.size(); ++i) {
    CHECK(p[i].first == q[i].first);
    differing += differing_bits(p[i].second.detach(), q[i].second.detach());
    compared += p[i].second.numel();
  }
  const Tensor ids = randint(0, kVocabulary, {4, kContext}, ids_gen);
  NoGradGuard no_grad;
  differing += differing_bits(ours(ids), library(ids));
  out() << "the long run's model: " << parameter_count(*long_run().model)
        << " parameters, against this chapter's " << parameter_count(ours) << "; "
        << book::bible().training.size() << " chapters of the Bible for training, "
        << book::bible().held_out.size() << " held out\n";
  book::check("differing elements", static_cast<double>(differing),
              "of " + std::to_string(compared) + " parameters and 131,072 scores",
              book::exactly(0));
}

// %%
// How good is it? Score the held-out chapters as the run did: their tokens cut into
// windows of 128, each window's 128 predictions made from the tokens before them in the
// window. Beside the token bigram, counted on the long run's own training tokens as in
// section 2, it now meets a stronger table: the token *trigram*, which predicts each
// token from the two before it. Chapter 10 saw add-one smoothing outweigh a context's
// own counts where the context was rare; with 1,025 tokens, most predictions follow a
// pair of tokens that is rare as a context, and 1,025 added counts would drown what
// was seen after it (the claim after the next measures both). So the trigram is
// smoothed as the strong n-gram models are: *absolute discounting*
// (Ney, Essen and Kneser, 1994). Every count seen is lowered by a discount :math:`D`,
// and the probability taken away is given to the next shorter context's prediction, in
// proportion to how many distinct tokens followed this context:
//
// .. math::
//
//    p_3(c \mid a b) = \frac{\max(N_{abc} - D_3, 0)}{N_{ab}}
//      + \frac{D_3\, u_{ab}}{N_{ab}}\, p_2(c \mid b),
//
// with :math:`N_{ab}` the times the pair :math:`a b` was followed by anything and
// :math:`u_{ab}` the distinct tokens that followed it, and :math:`p_2` the bigram made
// the same way, with a discount :math:`D_2` of its own, falling back to the add-one
// frequencies of single tokens. A context never seen falls back to the shorter one
// whole. Each level sums to 1 over :math:`c` when the level below it does: the counts
// seen, lowered by :math:`D < 1`, sum to :math:`N_{ab} - D u_{ab}`, and the rest is
// exactly the weight given to the level below. The discount is not tuned: Ney, Essen
// and Kneser derive :math:`D \approx n_1 / (n_1 + 2 n_2)` from the counts of counts,
// :math:`n_1` trigrams seen once and :math:`n_2` seen twice (the account shows both
// discounts). The trigram reads each window's tokens as a running text, so at a
// window's first prediction it looks back one token beyond the window, where the GPT
// sees nothing: that favours it.
//
// %% fold: the n-grams of the long run's text, and each held-out window's costs
struct NGrams {
  std::int64_t V = 0;
  std::vector<double> unigram;           // [V]: add-one p(c)
  std::vector<double> pair, pair_total;  // [V*V], [V]: counts N(bc), N(b)
  std::vector<double> pair_kinds;        // [V]: distinct c after b
  std::unordered_map<std::int64_t, double> triple, triple_total, triple_kinds;
  double d2 = 0, d3 = 0;  // the discounts

  double bigram_add_one(std::int64_t b, std::int64_t c) const {
    return (pair[b * V + c] + 1) / (pair_total[b] + static_cast<double>(V));
  }
  double p2(std::int64_t b, std::int64_t c) const {
    if (pair_total[b] == 0) return unigram[c];
    return std::max(pair[b * V + c] - d2, 0.0) / pair_total[b] +
           d2 * pair_kinds[b] / pair_total[b] * unigram[c];
  }
  double seen_as_context(std::int64_t a, std::int64_t b) const {  // N(ab)
    const auto context = triple_total.find(a * V + b);
    return context == triple_total.end() ? 0 : context->second;
  }
  double trigram_add_one(std::int64_t a, std::int64_t b, std::int64_t c) const {
    const auto seen = triple.find((a * V + b) * V + c);
    return ((seen == triple.end() ? 0 : seen->second) + 1) /
           (seen_as_context(a, b) + static_cast<double>(V));
  }
  double p3(std::int64_t a, std::int64_t b, std::int64_t c) const {
    const auto context = triple_total.find(a * V + b);
    if (context == triple_total.end()) return p2(b, c);
    const auto seen = triple.find((a * V + b) * V + c);
    const double n = seen == triple.end() ? 0 : seen->second;
    return std::max(n - d3, 0.0) / context->second +
           d3 * triple_kinds.at(a * V + b) / context->second * p2(b, c);
  }
};

// D = n1 / (n1 + 2 n2) over the counts of `counts`.
template <typename Counts>
double discount(const Counts& counts) {
  double n1 = 0, n2 = 0;
  for (const auto& n : counts) n1 += n == 1, n2 += n == 2;
  return n1 / (n1 + 2 * n2);
}

const NGrams& long_ngrams() {
  static const NGrams g = [] {
    const auto& ids = long_run().text.training;
    NGrams m;
    m.V = long_run().config.model.vocab_size;
    const std::int64_t V = m.V;
    m.unigram.assign(V, 1), m.pair.assign(V * V, 0), m.pair_total.assign(V, 0);
    m.pair_kinds.assign(V, 0);
    for (std::int64_t id : ids) m.unigram[id] += 1;
    for (double& u : m.unigram) u /= static_cast<double>(ids.size() + V);
    for (std::size_t i = 0; i + 1 < ids.size(); ++i) {
      double& n = m.pair[ids[i] * V + ids[i + 1]];
      m.pair_kinds[ids[i]] += n == 0;
      n += 1, m.pair_total[ids[i]] += 1;
    }
    for (std::size_t i = 0; i + 2 < ids.size(); ++i) {
      const std::int64_t ab = ids[i] * V + ids[i + 1];
      double& n = m.triple[ab * V + ids[i + 2]];
      m.triple_kinds[ab] += n == 0;
      n += 1, m.triple_total[ab] += 1;
    }
    m.d2 = discount(m.pair);
    std::vector<double> triples;
    for (const auto& [key, n] : m.triple) triples.push_back(n);
    m.d3 = discount(triples);
    return m;
  }();
  return g;
}

// Each held-out window's cost in nats [windows], under the GPT, the add-one bigram and
// the trigram, and the characters its targets spell; the GPT's and the trigram's cost
// at each position of each window [windows, T]; and the GPT's costs summed as the run
// summed them (book::held_out_windows): each batch of 16 windows' in one
// sum, the batches in turn.
struct WindowCosts {
  std::vector<double> gpt, bigram, trigram, trigram_add_one, characters;
  double rare_contexts = 0;  // predictions whose two tokens before were seen < V times
  Tensor gpt_at, trigram_at;
  double run_nats = 0;
};

const WindowCosts& long_window_costs() {
  static const WindowCosts c = [] {
    const LongRun& run = long_run();
    const auto& ids = run.text.held_out;
    const std::int64_t T = run.config.model.block_size, V = run.config.model.vocab_size;
    const auto windows = (static_cast<std::int64_t>(ids.size()) - 1) / T;
    WindowCosts w;
    NoGradGuard no_grad;
    std::vector<Tensor> batches;  // each [windows of the batch, T]
    for (std::int64_t from = 0; from < windows; from += kBatch) {
      const std::int64_t to = std::min(windows, from + kBatch);
      const std::vector<std::int64_t> x(ids.begin() + from * T, ids.begin() + to * T),
          y(ids.begin() + from * T + 1, ids.begin() + to * T + 1);
      const Tensor scores =
                       (*run.model)(ids_tensor(x, {to - from, T})).reshape({-1, V}),
                   targets = ids_tensor(y, {(to - from) * T});
      const Tensor nats =
          cross_entropy(scores, targets, Reduction::None).reshape({to - from, T});
      w.run_nats += cross_entropy(scores, targets, Reduction::Sum).item();
      const Tensor per_window = sum(nats, {1});
      for (std::int64_t k = 0; k < to - from; ++k) w.gpt.push_back(per_window.at({k}));
      batches.push_back(nats);
    }
    w.gpt_at = cat(batches, 0);
    const NGrams& g = long_ngrams();
    std::vector<double> trigram_at;
    for (std::int64_t k = 0; k < windows; ++k) {
      double two = 0, three = 0, three_add_one = 0;
      for (std::int64_t t = k * T + 1; t <= k * T + T; ++t) {
        two -= std::log(g.bigram_add_one(ids[t - 1], ids[t]));
        three_add_one -=
            std::log(t >= 2 ? g.trigram_add_one(ids[t - 2], ids[t - 1], ids[t])
                            : g.bigram_add_one(ids[t - 1], ids[t]));
        w.rare_contexts += t >= 2 && g.seen_as_context(ids[t - 2], ids[t - 1]) <
                                         static_cast<double>(V);
        trigram_at.push_back(-std::log(t >= 2 ? g.p3(ids[t - 2], ids[t - 1], ids[t])
                                              : g.p2(ids[t - 1], ids[t])));
        three += trigram_at.back();
      }
      const double characters = book::characters_of(
          {ids.begin() + k * T + 1, ids.begin() + k * T + T + 1}, run.tokenizer);
      w.bigram.push_back(two), w.trigram.push_back(three);
      w.trigram_add_one.push_back(three_add_one);
      w.characters.push_back(characters);
    }
    w.trigram_at = tensor(trigram_at, {windows, T});
    return w;
  }();
  return c;
}

double bits_per_character(const std::vector<double>& nats,
                          const std::vector<double>& characters) {
  double n = 0, c = 0;
  for (std::size_t i = 0; i < nats.size(); ++i) n += nats[i], c += characters[i];
  return n / c / std::log(2.0);
}

void draw_long_run_curve(double bigram, double trigram) {
  const book::Record& r = long_run().record.curves;
  const std::vector<double> ends = {0, r.at("step").back()};
  book::figure(
      "long_run_curve",
      book::line_plot(
          "step", "bits per character",
          {book::series("training", r.at("step"), r.at("training")),
           book::series("held out", r.at("step"), r.at("held out")),
           book::series("token bigram", ends, {bigram, bigram}).set("style", "k--"),
           book::series("smoothed trigram", ends, {trigram, trigram})
               .set("style", "k:")}));
}

// %%
// The claims: the long model's bits per character are at least 20% below the bigram's,
// the target this run was set, and below the trigram's, each by more than 4 standard
// errors paired by window, with section 4's standard error of a ratio of sums. For the
// first, the pairs are :math:`0.8\, b_i` and :math:`g_i`, window :math:`i`'s costs
// under the bigram and the GPT: the GPT is 20% below the bigram exactly when
// :math:`\sum_i (0.8\, b_i - g_i) > 0`, a difference of sums like any other. The 517
// windows come from 59 chapters, and neighbouring windows of one chapter are not
// independent, so the true standard errors are somewhat larger than these; the leads
// are tens of them (the account gives them). The figure shows how the run got there,
// from its record. Two more checks tie this page to that record. The page's costs,
// summed as the run summed them (:cpp:func:`litgrad::book::held_out_windows`
// adds each batch of 16 windows' costs in one sum, and the batches in turn), give the
// record's last held-out number exactly, in every bit: the kept weights are the ones
// the record describes. (Summed window by window, as the claims above sum them, they
// agree with it to rounding: 66,000 costs summed in another order move the result by
// about :math:`n u \approx 10^{-11}` of itself, and the test checks them within
// :math:`10^{-9}`.)
// And the held-out number fell from each of the record's 15 points to the next: the
// run stopped while the model was still improving on text it had never seen, if by
// less each time (the account gives the smallest fall, the last).
//
// .. figure:: long_run_curve
//
//    The long run's training loss (the mean over each 500 steps) and held-out loss, in
//    bits per character, from the record kept with it, with the token bigram and the
//    smoothed trigram on the same held-out text as lines. Each training point is the
//    mean over the 500 steps before it, while the model improved, so it lags the
//    model: early on it lies above the held-out point taken at its end. The run reads
//    its training text many times over (the account says how many), and by its end
//    the training loss lies below the held-out loss: the model fits the text it reads
//    better than text it has never seen, while the held-out loss is still falling.

TEST_CASE(
    "the long model's held-out bits per character are at least 20% below the token "
    "bigram's and below the smoothed trigram's, each by more than 4 standard errors "
    "paired by window, summed as the run summed them they are exactly the record's "
    "last number, and the record's held-out number fell at every point") {
  const WindowCosts& w = long_window_costs();
  const double gpt = bits_per_character(w.gpt, w.characters),
               two = bits_per_character(w.bigram, w.characters),
               three = bits_per_character(w.trigram, w.characters);
  draw_long_run_curve(two, three);
  const book::PayoffConfig& run = long_run().config;
  out() << "the run read its training tokens "
        << static_cast<double>(run.steps * run.batch * run.model.block_size) /
               static_cast<double>(long_run().text.training.size())
        << " times over\n"
        << w.gpt.size()
        << " held-out windows of 128 tokens; discounts D2 = " << long_ngrams().d2
        << ", D3 = " << long_ngrams().d3 << "\n"
        << "bits per character: the long model " << gpt << ", the trigram " << three
        << ", the bigram " << two << " (" << 100 * (1 - gpt / two)
        << "% below the bigram)\n";
  book::measured("the long model", gpt, "bits per held-out character");
  std::vector<double> four_fifths;
  for (double b : w.bigram) four_fifths.push_back(0.8 * b);
  const Lead on_bigram = paired(four_fifths, w.gpt, w.characters);
  const Lead on_trigram = paired(w.trigram, w.gpt, w.characters);
  book::check("lead on 80% of the bigram",
              on_bigram.difference / on_bigram.standard_error,
              "in standard errors, paired by window", book::above(4));
  book::check("lead on the trigram", on_trigram.difference / on_trigram.standard_error,
              "in standard errors, paired by window", book::above(4));
  const auto& held_out = long_run().record.curves.at("held out");
  double characters = 0;
  for (double c : w.characters) characters += c;
  const double measured = w.run_nats / std::log(2.0) / characters;
  REQUIRE(held_out.size() >= 2);
  double smallest_fall = std::numeric_limits<double>::infinity();
  for (std::size_t i = 1; i < held_out.size(); ++i)
    smallest_fall = std::min(smallest_fall, held_out[i - 1] - held_out[i]);
  out() << "summed as the run summed them: " << measured
        << " bits per character; the record's last " << held_out.back() << "\n";
  book::check("the run's sum less the record's last", measured - held_out.back(),
              "bits per character", book::exactly(0));
  book::check("the run's sum less this page's", std::fabs(measured - gpt),
              "bits per character", book::below(1e-9));
  book::check("smallest fall between records", smallest_fall,
              "bits per character, over " + std::to_string(held_out.size()) + " points",
              book::above(0));
}

// %%
// Why discount, when chapter 10 smoothed by adding one? The reason given before the
// trigram was built: add-one gives every one of the 1,025 tokens one imagined count
// after each context, and a context seen fewer than 1,025 times then has more imagined
// counts than real ones. The test counts, over the held-out predictions, how often the
// two tokens before were seen together fewer than 1,025 times in training, and scores
// the add-one trigram, :math:`(N_{abc} + 1) / (N_{ab} + V)`, beside the add-one bigram,
// which has one token of context fewer. We claim both halves of the reason: more than
// half of the predictions have a context that rare, and there the added counts drown
// what was seen: the add-one trigram costs more bits per character than the add-one
// bigram, by more than 4 standard errors paired by window. More context, smoothed
// badly, is worse than less.

TEST_CASE(
    "on the long model's held-out text most trigram contexts were seen fewer times "
    "than the 1,025 counts add-one adds, and the add-one trigram costs more bits per "
    "character than the add-one bigram, by more than 4 standard errors paired by "
    "window") {
  const WindowCosts& w = long_window_costs();
  const double predictions = static_cast<double>(w.gpt_at.numel());
  out() << "predictions whose context was seen fewer than 1,025 times: "
        << w.rare_contexts << " of " << predictions << "\n"
        << "bits per character: the add-one trigram "
        << bits_per_character(w.trigram_add_one, w.characters)
        << ", the add-one bigram " << bits_per_character(w.bigram, w.characters)
        << ", the discounted trigram " << bits_per_character(w.trigram, w.characters)
        << "\n";
  book::check("share of rare contexts", w.rare_contexts / predictions,
              "of the held-out predictions", book::above(0.5));
  const Lead bigram_ahead = paired(w.trigram_add_one, w.bigram, w.characters);
  book::check("the add-one bigram's lead on the add-one trigram",
              bigram_ahead.difference / bigram_ahead.standard_error,
              "in standard errors, paired by window", book::above(4));
}

// %%
// What does the longer window buy? The one-minute model saw at most 32 tokens; this
// one sees up to 128. A prediction's cost depends on the token predicted as much as on
// the context, so the fair test scores the same tokens with more and less context.
// Read the held-out text in windows of :math:`L` tokens, each starting :math:`L/2`
// tokens after the one before, and count only each window's last :math:`L/2`
// predictions: every token is then predicted once, having seen :math:`L/2 + 1` to
// :math:`L` tokens. (This is the strided reading of Hugging Face's guide to the
// perplexity of fixed-length models.) Do that for :math:`L` = 2, 4, 8, up to 128, over
// the same 16,384 held-out tokens, from the 66th on (a window of 128 needs 64 tokens
// before its first counted one); the windows of 16 tokens and fewer, whose falls are
// large, read only the first 4,096 of them, and the window of 32 is compared with the
// window of 16 on those. If context pays over the whole window, each doubling of
// :math:`L` lowers the mean cost.
//
// %% fold: held-out tokens' costs, read in windows of a given length
// The cost in nats [count] of the held-out tokens ids[T/2 + 1] to ids[T/2 + count],
// each predicted in a window of L tokens read with a stride of L/2, whose last L/2
// predictions are counted: each token is predicted having seen L/2 + 1 to L tokens.
// For even L <= T, and count a multiple of T/2, every L scores the same tokens.
Tensor cost_in_windows(std::int64_t L, std::int64_t count) {
  const LongRun& run = long_run();
  const auto& ids = run.text.held_out;
  const std::int64_t V = run.config.model.vocab_size, half = L / 2;
  const std::int64_t offset =
      run.config.model.block_size / 2;  // room for L's first half
  REQUIRE(L % 2 == 0);
  REQUIRE(count % offset == 0);
  REQUIRE(offset + count < static_cast<std::int64_t>(ids.size()));
  NoGradGuard no_grad;
  std::vector<Tensor> parts;
  const std::int64_t windows = count / half,
                     per_batch = std::max<std::int64_t>(1, 2048 / L);
  for (std::int64_t from = 0; from < windows; from += per_batch) {
    const std::int64_t to = std::min(windows, from + per_batch);
    std::vector<std::int64_t> x, y;
    for (std::int64_t k = from; k < to; ++k) {
      const std::int64_t start = offset - half + k * half;  // the window's first token
      x.insert(x.end(), ids.begin() + start, ids.begin() + start + L);
      y.insert(y.end(), ids.begin() + start + half + 1, ids.begin() + start + L + 1);
    }
    const Tensor scores = (*run.model)(ids_tensor(x, {to - from, L}));  // [n, L, V]
    parts.push_back(cross_entropy(slice(scores, 1, half, L).reshape({-1, V}),
                                  ids_tensor(y, {(to - from) * half}),
                                  Reduction::None));
  }
  return cat(parts, 0);
}

// %%
// We claim all six falls, each by more than 4 standard errors of the mean paired
// difference. Neighbouring tokens' differences are not independent (a name the longer
// window recalls helps the tokens after it too), so the pairs are stretches, not
// tokens: the tokens are cut into stretches of 128, and the test compares each
// stretch's mean cost under the two windows (section 4's test, over stretches).
// The last fall is the one in question: whether a token is predicted better with 65 to
// 128 tokens before it than with 33 to 64, when the trigram stops at two. The account
// gives the mean costs, and each doubling buys less than the one before.
//
// .. figure:: long_loss_by_position
//
//    The long model's mean cost at each position of the 517 held-out windows of the
//    claim above, in nats a token, with the smoothed trigram's on the same tokens. The
//    trigram sees two tokens back wherever it is (at a window's first prediction, one
//    of the two is the token before the window); the GPT sees the window so far.
//    Each position's mean is over different tokens, which is why the claim scores the
//    same tokens instead.

TEST_CASE(
    "the long model's held-out cost falls over its whole window: each doubling of the "
    "window it reads, from 2 tokens to 128, lowers the mean cost of the same held-out "
    "tokens by more than 4 standard errors, paired by stretches of 128, and each "
    "doubling buys less than the one before") {
  const WindowCosts& w = long_window_costs();
  const std::int64_t T = long_run().config.model.block_size;
  std::vector<double> at, gpt, three;
  const Tensor gpt_by_position = mean(w.gpt_at, {0}),
               trigram_by_position = mean(w.trigram_at, {0});
  for (std::int64_t t = 0; t < T; ++t) {
    at.push_back(static_cast<double>(t + 1));
    gpt.push_back(gpt_by_position.at({t}));
    three.push_back(trigram_by_position.at({t}));
  }
  book::figure("long_loss_by_position",
               book::line_plot(
                   "tokens seen", "nats a token",
                   {book::series("long model", at, gpt),
                    book::series("smoothed trigram", at, three).set("style", "k:")}));
  // 16,384 tokens from the window of 32 on; the first 4,096 of them before.
  const std::int64_t all = 16384, few = 4096, stretch = 128;
  Tensor before;
  double last_fall = INFINITY, largest_growth = -INFINITY;  // growth of a fall, in nats
  for (std::int64_t L = 2; L <= T; L *= 2) {
    const Tensor here = cost_in_windows(L, L >= 32 ? all : few);
    const Tensor earlier = L == 32 ? slice(before, 0, 0, few) : before;
    const Tensor compared = L == 32 ? slice(here, 0, 0, few) : here;
    out() << "window " << L << ": " << mean(compared).item() << " nats a token over "
          << compared.numel() << " tokens";
    if (L == 32) out() << ", " << mean(here).item() << " over " << here.numel();
    out() << "\n";
    if (L > 2) {
      const Tensor fall = earlier - compared;  // [tokens]
      book::check(
          "fall from a window of " + std::to_string(L / 2) + " to " + std::to_string(L),
          in_standard_errors(mean(fall.reshape({-1, stretch}), {1})),
          "in standard errors, paired by stretch", book::above(4));
      largest_growth = std::max(largest_growth, mean(fall).item() - last_fall);
      last_fall = mean(fall).item();
    }
    before = here;
  }
  book::check("largest growth from one fall to the next", largest_growth,
              "nats a token: each doubling buys less", book::below(0));
}

// %%
// And how does it write? The account shows twenty verses the long model wrote, at this
// chapter's writing knobs (temperature 1, :math:`p = 0.9`), each run of writing
// starting from ``<|endoftext|>``, where a chapter of the Bible starts, and going on to
// the end of the context. Set them beside the one-minute model's lines in section 6.
// %% fold: writing from <|endoftext|>, with the long model and with the trigram
struct LongText {
  std::vector<std::int64_t> ids;    // <|endoftext|>, then what was written
  std::int64_t cached_numbers = 0;  // the elements the caches held at the end
  std::int64_t cached_tokens = 0;   // and the tokens they had seen
};

// <|endoftext|> and `length` tokens written after it, each read once through the
// caches. Past the window the writer restarts its caches, as the claim about writing
// past the window explains; a text of at most T - 1 tokens never needs to.
LongText long_text(std::int64_t length, const SamplingOptions& o, Generator& gen) {
  const LongRun& run = long_run();
  const std::int64_t T = run.config.model.block_size;
  LongText t{{run.text.end_of_text}, 0, 0};
  std::vector<std::int64_t> next = t.ids;
  std::vector<nn::KVCache> caches;
  NoGradGuard no_grad;
  while (static_cast<std::int64_t>(t.ids.size()) <= length) {
    if (!caches.empty() && caches[0].size() == T) {  // the window is full
      caches.clear();
      next.assign(t.ids.end() - T / 2, t.ids.end());
    }
    const auto n = static_cast<std::int64_t>(next.size());
    const Tensor scores =
        run.model->forward_cached(ids_tensor(next, {1, n}), caches);  // [1, n, V]
    t.ids.push_back(
        std::llround(sample(select(scores, 1, n - 1).reshape({-1}), o, gen).item()));
    next = {t.ids.back()};
  }
  for (const nn::KVCache& c : caches)
    t.cached_numbers += c.keys.numel() + c.values.numel();
  t.cached_tokens = caches[0].size();
  return t;
}

// A text written by the add-one bigram (order 2) or the smoothed trigram (order 3).
std::vector<std::int64_t> ngram_text(int order, const SamplingOptions& o,
                                     Generator& gen) {
  const LongRun& run = long_run();
  const NGrams& g = long_ngrams();
  std::vector<std::int64_t> ids = {run.text.end_of_text};
  std::vector<double> log_p(g.V);
  while (static_cast<std::int64_t>(ids.size()) < run.config.model.block_size) {
    const std::size_t n = ids.size();
    for (std::int64_t c = 0; c < g.V; ++c)
      log_p[c] = std::log(order == 2 ? g.bigram_add_one(ids[n - 1], c)
                          : n >= 2   ? g.p3(ids[n - 2], ids[n - 1], c)
                                     : g.p2(ids[n - 1], c));
    ids.push_back(std::llround(sample(tensor(log_p, {g.V}), o, gen).item()));
  }
  return ids;
}

// The text of ids, each <|endoftext|> a newline. The Bible's text is ASCII, so the
// byte tokens above 0x7F never occur in it, but a table that gives every token some
// probability writes them now and then: each is shown as U+FFFD, the replacement
// character, which is no letter, as the byte was none.
std::string long_decoded(const std::vector<std::int64_t>& ids) {
  std::string text;
  for (std::int64_t id : ids)
    text += id == long_run().text.end_of_text ? "\n"
            : id >= 0x80 && id < 0x100        ? "\xEF\xBF\xBD"
                                              : long_run().tokenizer.token(id);
  return text;
}

// %%
// The claim about them is the one section 6 measured: the share of written words that
// are in Debian's word list. The long model writes 40 texts of 127 tokens, the bigram
// and the trigram as many with the same knobs, and each share is a ratio of sums over
// texts, with section 6's standard error. We claim the long model's share at least
// 0.85, and above the bigram's, each by more than 4 standard errors (of the share, and
// of the difference of the two).
//
// And the trigram? On this measure the two are level: we claim their shares within
// 0.05 of each other, one word in twenty, with more than 4 standard errors of their
// difference to spare (the account gives the shares and their errors). The bound is in
// the share's own units because "within 4 standard errors" alone would say only that
// no difference was found, and would hold the more easily the noisier the measure.
// Spelling is local: a few tokens of context are enough to finish a word the text
// has, and the trigram's table holds every triple of tokens the text has. The word
// list measures spelling, not sense; what the long model has over the trigram is in
// its held-out loss above, and in verses that hold together for longer than three
// tokens, which the reader can judge from the texts in the account: twenty verses of
// the long model's, and one text of each table's.

TEST_CASE(
    "at least 0.85 of the words the long model writes are in Debian's word list, more "
    "than of the token bigram's by more than 4 standard errors, while the smoothed "
    "trigram's share is within 0.05 of it, by more than 4") {
  SamplingOptions knobs;
  knobs.top_p = 0.9;
  Generator gen(80);
  const std::int64_t T = long_run().config.model.block_size;
  std::vector<std::string> gpt_texts, bigram_texts, trigram_texts;
  for (int i = 0; i < 40; ++i) {
    gpt_texts.push_back(long_decoded(long_text(T - 1, knobs, gen).ids));
    bigram_texts.push_back(long_decoded(ngram_text(2, knobs, gen)));
    trigram_texts.push_back(long_decoded(ngram_text(3, knobs, gen)));
  }
  int shown = 0;  // the first twenty whole verses written
  for (const std::string& text : gpt_texts) {
    std::istringstream verses(text.substr(1));  // after <|endoftext|>'s newline
    std::string verse;
    while (shown < 20 && std::getline(verses, verse) && !verses.eof())
      if (!verse.empty()) out() << verse << "\n", ++shown;
  }
  out() << "the bigram wrote:" << one_line(bigram_texts[0]) << "\n"
        << "the trigram wrote:" << one_line(trigram_texts[0]) << "\n";
  const KnownShare gpt = known_share_of(gpt_texts), two = known_share_of(bigram_texts),
                   three = known_share_of(trigram_texts);
  out() << "words in the word list: the long model " << gpt.share << " ± "
        << gpt.standard_error << ", the bigram " << two.share << " ± "
        << two.standard_error << ", the trigram " << three.share << " ± "
        << three.standard_error << "\n";
  const auto apart = [&](const KnownShare& other) {  // in standard errors
    return (gpt.share - other.share) /
           std::hypot(gpt.standard_error, other.standard_error);
  };
  book::check("known share over 0.85", (gpt.share - 0.85) / gpt.standard_error,
              "in standard errors", book::above(4));
  book::check("known share over the bigram's", apart(two), "in standard errors",
              book::above(4));
  out() << "the long model's share less the trigram's: " << gpt.share - three.share
        << " ± " << std::hypot(gpt.standard_error, three.standard_error) << "\n";
  book::check("room under 0.05 between the long model's and the trigram's shares",
              (0.05 - std::fabs(gpt.share - three.share)) /
                  std::hypot(gpt.standard_error, three.standard_error),
              "in standard errors", book::above(4));
}

// %%
// Writing fills a cache of keys and values, and its size is easy to count: at each
// block, a key and a value of the model's width for every token seen, 8 bytes a
// number, :math:`2 \cdot L \cdot d \cdot 8` bytes a token, whatever the heads. The test
// writes one text, counts the elements the caches hold at its end (127 tokens: the
// last one written is never fed back), and claims exactly that many bytes a token. The
// account gives the count, what it comes to for a whole context of 128 tokens, and the
// one-minute model's count by the same rule.

TEST_CASE(
    "the long model's caches hold exactly 2·L·d numbers of 8 bytes for every token "
    "they have read") {
  SamplingOptions knobs;
  knobs.top_p = 0.9;
  Generator gen(82);
  const book::GPTConfig& c = long_run().config.model;
  const LongText t = long_text(c.block_size - 1, knobs, gen);
  const double bytes =
      static_cast<double>(t.cached_numbers) * 8 / static_cast<double>(t.cached_tokens);
  out() << bytes << " bytes a token after " << t.cached_tokens << " tokens, "
        << bytes * static_cast<double>(c.block_size) / (1 << 20)
        << " MiB for a context of " << c.block_size
        << "; the one-minute model: " << 2 * kLayers * kWidth * 8 << " bytes a token\n";
  book::check("cache bytes a token", bytes,
              "after " + std::to_string(t.cached_tokens) + " tokens",
              book::exactly(static_cast<double>(2 * c.n_layer * c.n_embd * 8)));
}

// %%
// Section 6 said why top-p at :math:`p = 1` keeps every token without summing: the
// rounded sum of the sorted probabilities can reach 1 before the last token, and the
// rule followed literally would then cut the tokens after it. The long model shows it.
// The test takes its scores at the first 1,024 held-out positions (8 windows), sums
// each position's sorted probabilities from the largest, left to right, and counts the
// positions where the sum reaches 1 before the last token: we claim there is at least
// one, and that top-p at :math:`p = 1` changes no bit of any position's scores. The
// account gives the count, and how many tokens with a probability of their own the
// rule would have cut there.

TEST_CASE(
    "top-p with p = 1 changes no bit of the long model's scores, though at some "
    "held-out positions its sorted probabilities, summed, reach 1 before the last "
    "token") {
  const LongRun& run = long_run();
  const std::int64_t T = run.config.model.block_size, V = run.config.model.vocab_size;
  NoGradGuard no_grad;
  const std::vector<std::int64_t> x(run.text.held_out.begin(),
                                    run.text.held_out.begin() + 8 * T);
  const Tensor scores = (*run.model)(ids_tensor(x, {8, T})).reshape({-1, V});
  const Tensor sorted = topk(softmax(scores, -1), V, -1).values;  // [8 T, V]
  std::int64_t early = 0, would_cut = 0;
  for (std::int64_t t = 0; t < 8 * T; ++t) {
    double mass = 0;
    std::int64_t j = 0;
    while (j < V - 1 && (mass += sorted.at({t, j})) < 1.0) ++j;
    if (j == V - 1) continue;  // the sum stayed below 1 until the last token
    ++early;
    for (std::int64_t k = j + 1; k < V; ++k) would_cut += sorted.at({t, k}) > 0;
  }
  out() << "positions where the sorted sum reaches 1 early: " << early << " of "
        << 8 * T << "; tokens with a probability after that point: " << would_cut
        << "\n";
  book::check("positions whose sorted sum reaches 1 early", static_cast<double>(early),
              "of 1,024", book::above(0));
  book::check("scores top-p = 1 changed",
              static_cast<double>(differing_bits(top_p_filter(scores, 1.0), scores)),
              "of " + std::to_string(scores.numel()), book::exactly(0));
}

// %%
// A model with a window of 128 tokens can write on past it, with one adjustment. A
// key in the cache was made at its position, which is learned, and, past the first
// block, from attention over every token before it, the oldest included; so the cache
// cannot simply drop its oldest token and move the rest along. Instead, when the cache
// holds a whole window, the writer empties it and reads the text's last 64 tokens
// afresh (the window's last 63 and the token just written), at positions 0 to 63, and
// goes on writing from there; so every token past the first window is written with 64
// to 128 tokens before it. A window that starts mid-verse is nothing new to the model:
// the run's training windows started anywhere in the text. (nanoGPT's writer keeps no
// cache: for every token it runs the model on the text's last 128 tokens, which gives
// every token a whole window of context, for about 64 times as many tokens read: 8,192
// for every 64 written, against 127 here.)
//
// %% fold: writing past the window
// The text from its first whole word on (a word cut at the window's edge is no word).
std::string from_a_word(const std::string& text) {
  const std::size_t space = text.find_first_of(" \n");
  return space == std::string::npos ? "" : text.substr(space);
}

// %%
// Does the writing stay as good past the window? We claim the bar the writing inside
// the window met: of 20 texts of 384 tokens written after ``<|endoftext|>``, the words
// written after the first window (``<|endoftext|>`` and 127 tokens) are at least 0.85
// in the word list, by more than 4 standard errors. The word list sees spelling, which
// needs only a few tokens, so this checks that the restarts do no harm a reader sees
// in the words, not what the context they drop costs. That cost is what the context
// claim above measures: its reading with :math:`L = 128` and a stride of 64 is close
// to this writer's, each token seeing 65 to 128 tokens, against 64 to 128 here. The
// account gives the share inside the window beside it, and lines written past it.

TEST_CASE(
    "past its window the long model still clears the same bar: at least 0.85 of the "
    "words it writes after its first window are in Debian's word list, by more than 4 "
    "standard errors") {
  SamplingOptions knobs;
  knobs.top_p = 0.9;
  Generator gen(81);
  const std::int64_t T = long_run().config.model.block_size;
  std::vector<std::string> inside, past;
  for (int i = 0; i < 20; ++i) {
    const std::vector<std::int64_t> ids = long_text(3 * T, knobs, gen).ids;
    inside.push_back(long_decoded({ids.begin(), ids.begin() + T}));
    past.push_back(from_a_word(long_decoded({ids.begin() + T, ids.end()})));
    if (i == 0) out() << "written past the window:\n" << past.back() << "\n";
  }
  const KnownShare in = known_share_of(inside), out_of = known_share_of(past);
  out() << "words in the word list: inside the window " << in.share << " ± "
        << in.standard_error << ", past it " << out_of.share << " ± "
        << out_of.standard_error << "\n";
  book::check("known share past the window over 0.85",
              (out_of.share - 0.85) / out_of.standard_error, "in standard errors",
              book::above(4));
}

// %%
// What does size buy? Section 8 will say that what separates this model from GPT-2 is
// scale, and the book can measure a little of what scale does. The long run was made
// twice more with every setting the same but the model's sizes: width 32 in 2 blocks
// of 2 heads, and width 64 in 3 blocks of 4 heads (the account gives their
// parameters). Each started from ``Generator(1)`` and drew its windows from the same
// generator, so all three read the same windows in the same order; ``tools/payoff``
// makes them with the long run, the repository keeps their parameters and records,
// and the library's tests rerun each one's first steps to its kept checksum.
//
// Set side by side, the runs differ in what they spend, so count it: a run's *training
// compute* is the floating-point operations of its matrix products, which
// ``FlopCounter`` counts. A step reads :math:`B T` tokens, and each passes once forward
// through every product that holds parameters: in each block the four
// :math:`d \times d` matrices of attention and the two :math:`d \times 4d` of the
// feed-forward layer, :math:`12 d^2` multiply-adds, and at the top the read-out's
// :math:`V d` (the read-out's matrix is the token embedding, tied, so this is the
// embedding's one use in a product). Attention adds products that hold no parameters:
// each token's query meets all :math:`T` keys of its window, and the weighted sum reads
// all :math:`T` values, :math:`T d` multiply-adds each in a block (the causal mask
// hides half the scores, but they are computed first and masked after). The
// embeddings' lookups are not products. Backward, every product :math:`Y = X W` makes
// two of the same size, the gradient for :math:`X` and the one for :math:`W`, so a
// step costs three forward passes, and with two operations a multiply-add:
//
// .. math::
//
//    C_\text{step} = 6\, B\, T\, (12 L d^2 + V d + 2 L T d).
//
// Kaplan et al. (2020) keep only the first term: :math:`6N` operations a token for a
// model of :math:`N` parameters outside its embeddings, :math:`12 L d^2`, a rule that
// holds when the width is large beside :math:`T/12` and the vocabulary is small. Here
// neither is, and the account gives each term's share of a step: the read-out's,
// :math:`V d`, grows only with the width, and the blocks', :math:`12 L d^2`, with its
// square and the depth, so the smaller the model, the more of its arithmetic goes to
// choosing among the 1,025 tokens. Together the products hold nearly all the
// parameters: the position embedding, the biases and the norms are the rest, and the
// test checks that they are less than a tenth.
//
// %% fold: the three kept runs of the study of scale, smallest first
struct SizedRun {
  book::PayoffRun run;
  const book::GPT* model = nullptr;  // the long run's own model for the largest
  book::PayoffRecord record;
};

const std::vector<SizedRun>& sized_runs() {
  static std::vector<std::unique_ptr<book::GPT>> smaller;  // the two the long run lacks
  static const std::vector<SizedRun> runs = [] {
    std::vector<SizedRun> r;
    for (const book::PayoffRun& run : book::payoff_runs()) {
      if (run.name == "long") {
        r.push_back({run, long_run().model.get(), long_run().record});
        continue;
      }
      Generator gen(run.config.seed);
      smaller.push_back(std::make_unique<book::GPT>(run.config.model, gen));
      nn::load(*smaller.back(), kKept + run.state_file);
      smaller.back()->eval();
      r.push_back({run, smaller.back().get(),
                   book::load_payoff_record(kKept + run.record_file)});
    }
    std::sort(r.begin(), r.end(), [](const SizedRun& a, const SizedRun& b) {
      return book::gpt_parameter_count(a.run.config.model) <
             book::gpt_parameter_count(b.run.config.model);
    });
    return r;
  }();
  return runs;
}

// The operations of one training step of a model of these sizes, counted: the forward
// pass over a batch of `batch` windows, the loss and the backward pass.
double counted_step(const book::GPTConfig& c, std::int64_t batch) {
  Generator gen(0);
  const book::GPT model(c, gen);
  const Tensor x = randint(0, c.vocab_size, {batch, c.block_size}, gen),
               y = randint(0, c.vocab_size, {batch * c.block_size}, gen);
  FlopCounter counter;
  cross_entropy(model(x).reshape({-1, c.vocab_size}), y).backward();
  return static_cast<double>(counter.total_flops());
}

// A run's training compute at each of its record's steps (its step counted once).
std::vector<double> compute_at_records(const SizedRun& r) {
  static std::map<std::string, double> counted;  // by the run's name
  if (!counted.count(r.run.name))
    counted[r.run.name] = counted_step(r.run.config.model, r.run.config.batch);
  const double step = counted.at(r.run.name);
  std::vector<double> c;
  for (double s : r.record.curves.at("step")) c.push_back(s * step);
  return c;
}

// <|endoftext|> and `length` tokens `model` writes after it, the model rerun on the
// whole text for each token (a few dozen tokens: no cache needed).
std::vector<std::int64_t> sized_text(const book::GPT& model, std::int64_t length,
                                     const SamplingOptions& o, Generator& gen) {
  std::vector<std::int64_t> ids = {long_run().text.end_of_text};
  NoGradGuard no_grad;
  while (static_cast<std::int64_t>(ids.size()) <= length) {
    const auto n = static_cast<std::int64_t>(ids.size());
    const Tensor scores = model(ids_tensor(ids, {1, n}));  // [1, n, V]
    ids.push_back(
        std::llround(sample(select(scores, 1, n - 1).reshape({-1}), o, gen).item()));
  }
  return ids;
}

// Each sized run's held-out costs window by window [runs][windows], in the order of
// sized_runs(), measured once: the long run's are its claims' own.
const std::vector<std::vector<double>>& sized_window_nats() {
  static const std::vector<std::vector<double>> nats = [] {
    std::vector<std::vector<double>> n;
    for (const SizedRun& r : sized_runs())
      n.push_back(
          r.model == long_run().model.get()
              ? long_window_costs().gpt
              : book::held_out_windows(*r.model, long_run().text, long_run().tokenizer)
                    .nats);
    return n;
  }();
  return nats;
}

// %%
// The test counts one step of each model and claims the formula exactly; the account
// gives each term's share of a step, each run's whole compute, and the tokens it read
// for each of its parameters.

TEST_CASE(
    "a training step of each of the three models of the study of scale costs exactly "
    "6BT(12Ld² + Vd + 2LTd) operations in its matrix products, as FlopCounter counts "
    "them, and more than 0.9 of its parameters are in those products") {
  for (const book::PayoffRun& run : book::payoff_runs()) {
    const book::GPTConfig& c = run.config.model;
    const auto B = static_cast<double>(run.config.batch);
    const auto T = static_cast<double>(c.block_size),
               L = static_cast<double>(c.n_layer), d = static_cast<double>(c.n_embd),
               V = static_cast<double>(c.vocab_size);
    const double blocks = 12 * L * d * d, read_out = V * d, attention = 2 * L * T * d;
    const double counted = counted_step(c, run.config.batch);
    out() << run.name << ": " << book::gpt_parameter_count(c) << " parameters, "
          << counted << " operations a step (blocks "
          << blocks / (blocks + read_out + attention) << ", read-out "
          << read_out / (blocks + read_out + attention) << ", attention "
          << attention / (blocks + read_out + attention) << "), "
          << counted * run.config.steps << " in the whole run\n";
    const double in_products =
        (blocks + read_out) / static_cast<double>(book::gpt_parameter_count(c));
    const auto N = static_cast<double>(book::gpt_parameter_count(c));
    out() << "  " << in_products << " of its parameters are in products; "
          << B * T * run.config.steps / N << " tokens read a parameter, "
          << counted / (B * T) / N << " operations a token a parameter\n";
    book::check("share of parameters in products, " + run.name, in_products,
                "12Ld² + Vd of all", book::above(0.9));
    book::check("counted less the formula, " + run.name,
                counted - 6 * B * T * (blocks + read_out + attention),
                "operations in a step", book::exactly(0));
  }
}

// %%
// The figure draws each run's record: its held-out bits per character at every 500
// steps, against the compute spent to get there, both axes logarithmic. Two things can
// be read from it, and the tests hold both. The first: after the same 7,500 steps on
// the same windows, the larger the model the lower its held-out cost. We claim each
// model ahead of the next smaller by more than 4 standard errors, paired by window,
// measured on the kept models. The account gives, beside each lead, the two models'
// own errors combined as if the two were independent, :math:`\sqrt{s_1^2 + s_2^2}`,
// and we claim the paired error smaller: when two models find the same windows hard,
// the difference of their costs varies from window to window less than the two costs'
// spreads combined. The next test cannot pair its two points, and uses the combined
// error as the cautious one. The account also shows forty tokens each model wrote
// after ``<|endoftext|>``, each from a generator in the same state, at the long
// model's knobs: read them smallest first.
//
// .. figure:: scale_curves
//
//    Held-out bits per character against training compute, both on logarithmic axes,
//    for the three runs of the study of scale, from the records kept with them: one
//    point every 500 steps, from step 500 to step 7,500. The token trigram of the long
//    run's claims is the dotted line.

TEST_CASE(
    "after the same 7,500 steps each larger model of the study of scale costs fewer "
    "held-out bits per character than the next smaller, by more than 4 standard errors "
    "paired by window, and each paired error is smaller than the two models' own "
    "errors combined") {
  const auto& runs = sized_runs();
  const WindowCosts& w = long_window_costs();
  const auto& nats = sized_window_nats();  // [runs][windows]
  std::vector<book::Json> curves;
  for (const SizedRun& r : runs) {
    curves.push_back(book::series(r.run.name, compute_at_records(r),
                                  r.record.curves.at("held out")));
  }
  const std::vector<double> span = {compute_at_records(runs.front()).front(),
                                    compute_at_records(runs.back()).back()};
  const double three = bits_per_character(w.trigram, w.characters);
  curves.push_back(
      book::series("smoothed trigram", span, {three, three}).set("style", "k:"));
  book::figure("scale_curves",
               book::line_plot("training compute (operations)",
                               "held-out bits per character", curves, true)
                   .set("log_x", book::Json::boolean(true))
                   .set("log_x_base", 10));
  SamplingOptions knobs;
  knobs.top_p = 0.9;
  for (std::size_t k = 0; k < runs.size(); ++k) {
    const double error = runs[k].record.curves.at("held-out error").back();
    Generator gen(83);
    out() << runs[k].run.name << ": " << bits_per_character(nats[k], w.characters)
          << " ± " << error << " bits per character; it wrote: "
          << one_line(
                 long_decoded(sized_text(*runs[k].model, 40, knobs, gen)).substr(1))
          << "\n";
    if (k == 0) continue;
    const Lead lead = paired(nats[k - 1], nats[k], w.characters);
    const double combined =
        std::hypot(runs[k - 1].record.curves.at("held-out error").back(), error);
    out() << "  ahead of " << runs[k - 1].run.name << " by " << lead.difference
          << " bits per character; paired error " << lead.standard_error
          << ", the two errors combined " << combined << "\n";
    book::check("lead of " + runs[k].run.name + " on " + runs[k - 1].run.name,
                lead.difference / lead.standard_error,
                "in standard errors, paired by window", book::above(4));
    book::check("paired error over combined, " + runs[k].run.name,
                lead.standard_error / combined, "a ratio", book::below(1));
  }
}

// %%
// The second thing the figure shows: in these runs, a larger model was not always the
// better use of compute. At its first record, step 500, the long run had spent more
// operations than the smallest model had at its last record below that count (the
// account gives both), and yet the smallest was ahead. We claim it by more than 4
// standard errors. The two points are different models at different steps, and no
// windows' costs were kept to pair them, so the test combines the two records' own
// errors, :math:`\sqrt{s_1^2 + s_2^2}`. We take it that this is the larger, cautious
// error here as it was for the finished models; that is an inference, not a test.
//
// The comparison is not quite fair to the long model. At step 500 its rate was still
// at its peak to three digits (its cosine had gone 125 of its 7,125 steps), where a
// run planned to stop there would have let it fall, while the smallest model's point
// comes near the end of its own cosine, its rate about a tenth of the peak. Hoffmann et
// al. (2022) gave each run a schedule set for its own length for this reason. The
// claim is about these runs as they ran.

TEST_CASE(
    "with no more compute than the long model had at its first record, the smallest "
    "model is ahead of it there, by more than 4 standard errors of the two records "
    "combined") {
  const SizedRun &small = sized_runs().front(), &large = sized_runs().back();
  const std::vector<double> c_small = compute_at_records(small),
                            c_large = compute_at_records(large);
  std::size_t k = 0;
  while (k + 1 < c_small.size() && c_small[k + 1] <= c_large.front()) ++k;
  REQUIRE(c_small[k] <= c_large.front());
  const auto& h_small = small.record.curves.at("held out");
  const auto& h_large = large.record.curves.at("held out");
  const double error = std::hypot(small.record.curves.at("held-out error")[k],
                                  large.record.curves.at("held-out error").front());
  out() << small.run.name << " at step " << small.record.curves.at("step")[k] << ": "
        << c_small[k] << " operations, " << h_small[k] << " bits per character; "
        << large.run.name << " at step " << large.record.curves.at("step").front()
        << ": " << c_large.front() << " operations, " << h_large.front() << "\n";
  book::check("the smallest model's lead", (h_large.front() - h_small[k]) / error,
              "in standard errors of the two records combined", book::above(4));
}

// %%
// Now the slope. On log-log axes a power law, :math:`\ell = k C^{-s}`, is a straight
// line of slope :math:`-s`, and the finished runs are three points on the figure:
// each model's last record. Between two runs the slope is
// :math:`\Delta \ln \ell / \Delta \ln C`, with :math:`\ell` a run's held-out cost and
// :math:`C` its whole run's compute (the unit of :math:`\ell`, bits or nats, shifts
// every :math:`\ln \ell` by the same constant and leaves the slopes alone). Hoffmann et
// al. (2022) fit a model's loss with :math:`E + A / N^{\alpha} + B / D^{\beta}` for
// :math:`N` parameters and :math:`D` training tokens: a part no model removes, a part
// that shrinks with size, and a part that shrinks with text. Our three runs read the
// same tokens, so :math:`D` is fixed, and each run's compute is its operations a
// token times :math:`D`: between these runs, a slope against compute is a slope
// against size, bent only by how the operations a token grow with the parameters (the
// account's tokens per parameter show how). With :math:`D` fixed, only the middle
// part falls as the models grow, and the loss can go no lower than the other two: the
// more of it is already what size cannot remove, the less each multiple of size buys,
// so the line through the three points should bend. That form was fitted to runs that
// read their text once; these read theirs many times over (the long model's claim on
// the bigram gives how many), and a larger model fits the text it rereads more
// closely, which only adds to the bend. Nor is the form the only reason a bend could
// appear here: the read-out's share of a step shrinks with size, one peak rate served
// every width, and depth and heads changed with the width. The test shows the bend;
// the form says why one is expected.
//
// We claim the slope from width 64 to the long model shallower than from width 32 to
// width 64, by more than 4 standard errors. The costs are the kept models', measured
// on this page, and the error is found as section 4's. To first order,
// :math:`\ln \ell` errs by :math:`\sum_i z_i` with
// :math:`z_i = (n_i - \ell c_i) / (\ell \sum_j c_j)` for window :math:`i`'s nats
// :math:`n_i` and characters :math:`c_i` and the true :math:`\ell` (in nats a
// character, to match :math:`n_i`); the difference of
// the two slopes is a weighted sum of the three runs' :math:`\ln \ell`, so it errs by
// the sum over windows of the same weighted sum of their :math:`z_i`. At the measured
// :math:`\ell` those terms sum to 0, and their spread over the :math:`W` windows,
// :math:`\sqrt{W / (W - 1) \sum_i z_i^2}`, is the error, paired by window. The account
// gives both slopes, and :math:`2^{\text{slope}}`, the factor by which each doubling of
// compute multiplied the held-out cost in that stretch.

TEST_CASE(
    "on log-log axes the study of scale's finished runs bend: the slope of held-out "
    "cost against compute from width 64 to the long model is shallower than from "
    "width 32 to width 64, by more than 4 standard errors paired by window") {
  const auto& runs = sized_runs();
  REQUIRE(runs.size() == 3);
  const WindowCosts& w = long_window_costs();
  const auto& nats = sized_window_nats();  // [3][windows]
  std::vector<double> log_cost, log_compute;
  double characters = 0;
  for (double c : w.characters) characters += c;
  for (std::size_t k = 0; k < runs.size(); ++k) {
    double total = 0;
    for (double n : nats[k]) total += n;
    log_cost.push_back(std::log(total / characters));  // ln of nats per character
    log_compute.push_back(std::log(compute_at_records(runs[k]).back()));
  }
  const double first = log_compute[1] - log_compute[0],
               second = log_compute[2] - log_compute[1];
  const double slope_first = (log_cost[1] - log_cost[0]) / first,
               slope_second = (log_cost[2] - log_cost[1]) / second;
  // The bend, slope_second - slope_first, is the sum of a_k ln l_k over the runs:
  const std::vector<double> a = {1 / first, -1 / first - 1 / second, 1 / second};
  const auto windows = static_cast<double>(w.characters.size());
  double spread = 0;
  for (std::size_t i = 0; i < w.characters.size(); ++i) {
    double z = 0;  // window i's first-order move of the bend
    for (std::size_t k = 0; k < 3; ++k) {
      const double l = std::exp(log_cost[k]);
      z += a[k] * (nats[k][i] - l * w.characters[i]) / (l * characters);
    }
    spread += z * z;
  }
  const double bend = slope_second - slope_first,
               error = std::sqrt(spread * windows / (windows - 1));
  out() << "slopes: " << slope_first << " from " << runs[0].run.name << " to "
        << runs[1].run.name << ", " << slope_second << " from " << runs[1].run.name
        << " to " << runs[2].run.name << "; twice the compute bought "
        << std::exp2(slope_first) << " of the cost, then " << std::exp2(slope_second)
        << "\n"
        << "the bend " << bend << " ± " << error << "\n";
  book::check("the bend", bend / error, "in standard errors, paired by window",
              book::above(4));
}

// %% 8 · Where next
//
// This is the end of the book's road, and the start of everyone else's. The model here
// is a GPT in every part that matters: tokens, a stack of causal blocks, a tied
// read-out, GPT-2's start, AdamW with groups, warm-up, cosine and clipping, a KV cache
// and nucleus sampling. What separates it from GPT-2 is scale: GPT-2's smallest model
// has about 124 million parameters as released, a vocabulary of 50,257 tokens and a
// context of 1,024 tokens, and was trained on the text of about 8 million web pages
// (Radford et al., 2019). Between this model and that one lie size, data and the
// hardware to do the arithmetic. The models people talk to add more training after
// that: on instructions and answers, and from people's preferences between answers.
//
// Besides size, four differences remain. GPT-2 reads running documents, not lines, and
// marks where one ends with a token of its own, ``<|endoftext|>``, as section 7's long
// run does, where this chapter's first model has a newline end each definition. Its
// tokenizer is its own: 50,257 tokens
// learned from web text, with its own rule for cutting text into pieces. Its GELU is
// the tanh approximation (``gelu(x, "tanh")`` here), where this chapter's is exact. And
// it trains with dropout. The blocks, the learned positions and the tied read-out are
// the same parts, so GPT-2's released weights could be loaded into a model of these
// parts at GPT-2's sizes, given its tokenizer and its GELU: Raschka's *Build a Large
// Language Model (From Scratch)* (2024, chapter 5) does so in PyTorch.

// %% fold: the end of the file's namespace
}  // namespace
