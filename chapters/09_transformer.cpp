// Chapter 9 · The Transformer block
// =================================
//
// Chapter 8 built one attention layer and trained it on a task made for it. The models
// that write text stack dozens of layers, and they do not stack bare attention: they
// stack *blocks*. A block is attention followed by a small network applied to each
// position, each part wrapped in two pieces of plumbing, a layer normalisation that
// keeps every token's features at one scale and a residual connection that adds the
// part's output to its input instead of replacing it.
//
// This chapter builds the block by hand and then takes it apart. It measures what layer
// normalisation really does to a token (not quite what its name says), shows which
// positions a block lets influence which, and shows with a stack of 32 blocks why the
// residual connections are there. Then it trains blocks on a small task and removes one
// part at a time, to see by the loss what each part buys: the feed-forward network, the
// residual connections, and the place of the normalisation. It revisits the *induction*
// task, which chapter 8's single layer of attention could not be expected to solve,
// and separates what one layer can express from what training finds. It ends by
// checking that litgrad's :cpp:class:`litgrad::nn::TransformerEncoderLayer` is the
// block built by hand, and why a model that only writes forwards is built from a layer
// named "encoder".

// %% about: Layer normalisation and its ε; which positions a block lets influence
// which; residual connections in a 32-block stack; blocks trained with one part
// removed at a time (MLP, residuals, pre- against post-norm); the induction task, what
// one layer can express and what training finds; nn::TransformerEncoderLayer as the
// block by hand.
// %% assumes: 2, 4, 6, 7, 8
// %% budget: 30 s, because it trains 21 small models: blocks of four kinds on a table
// task, and attention layers on the induction task

// %% fold: includes, and the names this file uses
#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <functional>
#include <map>
#include <string>
#include <tuple>
#include <vector>

#include <litgrad/book/bits.hpp>
#include <litgrad/book/chapter.hpp>
#include <litgrad/book/diagrams.hpp>
#include <litgrad/book/figures.hpp>
#include <litgrad/book/trained.hpp>
#include <litgrad/litgrad.hpp>

using namespace litgrad;
using book::differing_bits;
using book::kU;  // u = 2^-53, double's unit roundoff (chapter 1)
using book::out;

namespace {

const std::vector<std::uint64_t> kSeeds = {1, 2, 3};  // for the claims that train

// The largest |a - b| over all elements.
double largest_gap(const Tensor& a, const Tensor& b) { return max(abs(a - b)).item(); }

// %% 1 · Layer normalisation
//
// Layer normalisation (Ba, Kiros and Hinton, 2016) acts on each token alone. It takes
// the token's :math:`D` features, subtracts their mean :math:`\mu` and divides by the
// square root of their variance plus a small constant, :math:`y_i = (x_i - \mu) /
// \sqrt{\sigma^2 + \epsilon}`, with :math:`\sigma^2 = \frac1D \sum_i (x_i - \mu)^2`
// (the biased variance, as torch) and :math:`\epsilon = 10^{-5}` by default; a learned
// scale and shift per feature follow, starting at 1 and 0. The output's mean is 0. Its
// variance is not 1 but
//
// .. math:: \frac{1}{D}\sum_i y_i^2 = \frac{\sigma^2}{\sigma^2 + \epsilon},
//
// which is 1 only to within :math:`\epsilon/\sigma^2`: the :math:`\epsilon` keeps a
// token whose features are all nearly equal from being blown up by a division by almost
// zero, and the price is that quiet tokens stay quiet. A token with
// :math:`\sigma = 10^{-3}` comes out with variance :math:`10^{-6}/(1.1 \cdot 10^{-5}) =
// 1/11`.
//
// How close should the computed numbers be? Summing :math:`D` terms costs at most
// :math:`D u` times the sum of their magnitudes, to first order. The computed mean
// :math:`\hat\mu` is therefore off by up to :math:`D u \max_i|x_i|`, and that error,
// divided by :math:`\sqrt{\sigma^2 + \epsilon}`, is left in every output: a token far
// from zero but with a small spread loses digits when its mean is subtracted. Summing
// the outputs to check their mean costs another :math:`D u \max_i |y_i|`. The test
// holds the output's mean within :math:`2 D u (\max_i|y_i| + \max_i|x_i| /
// \sqrt{\sigma^2 + \epsilon})` of 0, and its variance, a mean of :math:`D` squares of
// outputs that each carry a few roundings of their own, within :math:`4 D u` relative
// of the formula (:math:`D u` for the sum, and room for the outputs' own errors,
// squared), for tokens of 64 features centred at 3 with :math:`\sigma` from
// :math:`10^{-4}` to :math:`10^{3}`.

constexpr double kEps = 1e-5;
const std::vector<double> kSpreads = {1e-4, 1e-3, 1e-2, 1e-1, 1, 10, 1e3};

TEST_CASE(
    "layer norm gives each token mean 0 and variance σ²/(σ² + ε), not 1, to within "
    "2Du(max|y| + max|x|/√(σ² + ε)) and 4Du relative") {
  Generator gen(1);
  double worst_mean = 0, worst_variance = 0;  // in units of the tolerances
  std::vector<double> variances, formulas;
  for (double spread : kSpreads) {
    const Tensor x = 3.0 + spread * randn({64}, gen);  // an offset the norm removes
    const Tensor y = nn::layer_norm(x, {64}, Tensor(), Tensor(), kEps);
    const double sigma2 = var(x, {}, 0).item();
    const double formula = sigma2 / (sigma2 + kEps);
    const double variance = mean(y * y).item();
    const double mean_tolerance =
        2 * 64 * kU *
        (max(abs(y)).item() + max(abs(x)).item() / std::sqrt(sigma2 + kEps));
    worst_mean = std::max(worst_mean, std::fabs(mean(y).item()) / mean_tolerance);
    worst_variance = std::max(worst_variance,
                              std::fabs(variance - formula) / (4 * 64 * kU * formula));
    variances.push_back(variance), formulas.push_back(formula);
    out() << "σ = " << spread << ": variance " << variance << ", formula " << formula
          << "\n";
  }
  book::figure(
      "layer_norm_variance",
      book::line_plot(
          "the token's spread σ", "variance after layer norm",
          {book::series("measured", kSpreads, variances),
           book::series("σ²/(σ² + ε)", kSpreads, formulas).set("style", "k--")})
          .set("log_x", book::Json::boolean(true)));
  book::check("largest |mean|", worst_mean, "in units of its tolerance",
              book::at_most(1).large_margin_because(book::kWorstCaseRounding));
  book::check("largest variance miss", worst_variance, "in units of 4Du·formula",
              book::at_most(1).large_margin_because(book::kWorstCaseRounding));
}

// %%
// .. figure:: layer_norm_variance
//
//    The variance of a token's features after layer normalisation, against the spread
//    :math:`\sigma` of its features before: 1 for loud tokens, falling towards 0 once
//    :math:`\sigma^2` is no longer large against :math:`\epsilon = 10^{-5}`.
//
// The same :math:`\epsilon` decides how far the norm is from ignoring a token's scale.
// Multiply a token by :math:`c > 0`: the deviations scale by :math:`c` and the variance
// by :math:`c^2`, so :math:`y(cx) = (x - \mu)/\sqrt{\sigma^2 + \epsilon / c^2}`, and
//
// .. math::
//
//    \frac{y(cx)}{y(x)} = \sqrt{\frac{\sigma^2 + \epsilon}{\sigma^2 + \epsilon / c^2}}
//
// for every feature. Loud tokens are left unchanged to within
// :math:`\epsilon/\sigma^2`; quiet ones are not. The test scales tokens of several
// spreads by :math:`c` = 0.3, 3 and 50 (not powers of two, whose products would be
// exact) and compares each feature of :math:`y(cx)` with the ratio times the same
// feature of :math:`y(x)`. Each normalised feature is computed to within the tolerance
// of the first claim, :math:`2 D u (\max_i|y_i| + \max_i|x_i| / \sqrt{\sigma^2 +
// \epsilon})`, and scaling :math:`x` by :math:`c` adds one rounding to each input; the
// test allows twice that tolerance, for :math:`y(cx)`'s error and the ratio's times
// :math:`y(x)`'s. It also checks that the formula is not trivially 1 here: for the
// quietest token, :math:`\sigma = 10^{-3}`, scaled by 50, it predicts a change of more
// than half.

TEST_CASE(
    "scaling a token by c > 0 scales its normalised features by the ratio "
    "√((σ² + ε)/(σ² + ε/c²)), to within twice layer norm's own rounding") {
  Generator gen(2);
  double worst = 0, largest_change = 0;
  for (double spread : {1e-3, 1e-2, 1.0}) {
    const Tensor x = spread * randn({64}, gen);
    const Tensor y = nn::layer_norm(x, {64}, Tensor(), Tensor(), kEps);
    const double sigma2 = var(x, {}, 0).item();
    for (double c : {0.3, 3.0, 50.0}) {
      const Tensor cx = c * x;
      const Tensor scaled = nn::layer_norm(cx, {64}, Tensor(), Tensor(), kEps);
      const double ratio = std::sqrt((sigma2 + kEps) / (sigma2 + kEps / (c * c)));
      const double c2 = var(cx, {}, 0).item();
      const double tolerance =
          2 * 2 * 64 * kU *
          (max(abs(scaled)).item() + max(abs(cx)).item() / std::sqrt(c2 + kEps));
      largest_change = std::max(largest_change, std::fabs(ratio - 1));
      worst = std::max(worst, largest_gap(scaled, ratio * y) / tolerance);
    }
  }
  book::check("largest miss", worst, "in units of the tolerance, over 9 cases",
              book::at_most(1).large_margin_because(book::kWorstCaseRounding));
  book::check("largest predicted change", largest_change,
              "|ratio - 1| for the quietest token scaled by 50", book::above(0.5));
}

// %% 2 · A block, by hand
//
// A pre-norm block, the arrangement most current models use (Xiong et al., 2020), is
// two residual steps. Each position's vector :math:`x` (the *residual stream*) is
// normalised, passed through attention, and the result added back; then normalised
// again, passed through a feed-forward network of two linear layers with a GELU between
// them (a smooth cousin of chapter 4's ReLU), and added back:
//
// .. math::
//
//    x &\leftarrow x + \operatorname{Attn}(\operatorname{LN}_1(x)), \\ x &\leftarrow x
//    + W_2\,\mathrm{GELU}(W_1 \mathrm{LN}_2(x) + b_1) + b_2.
//
// The original Transformer (Vaswani et al., 2017) normalised *after* each addition
// instead, :math:`x \leftarrow \mathrm{LN}_1(x + \mathrm{Attn}(x))` and likewise for
// the feed-forward part: *post-norm*. Here is the block, from chapter 8's
// :cpp:class:`litgrad::nn::MultiheadAttention` and the parts above, with switches that
// section 4 uses to take it apart: without the feed-forward network, without the
// residual additions, or post-norm. The feed-forward network is four times as wide as
// the stream, as in Vaswani et al.

// Which parts a block has: section 4 removes them one at a time.
struct Parts {
  bool mlp = true;       // the feed-forward network (the block's MLP)
  bool residual = true;  // the two residual additions
  bool pre_norm = true;  // normalise before each part (false: after each addition)
};

// One block over width E, with heads H: x [N, L, E] → [N, L, E].
struct Block : nn::Module {
  nn::LayerNorm norm1, norm2;
  nn::MultiheadAttention attention;
  nn::Linear up, down;  // E → 4E → E
  Parts parts;
  Block(std::int64_t width, std::int64_t heads, Generator& gen, Parts parts = {})
      : Module("Block"),
        norm1({width}),
        norm2({width}),
        attention(width, heads, batch_first(), gen),
        up(width, 4 * width, true, gen),
        down(4 * width, width, true, gen),
        parts(parts) {
    register_module("norm1", norm1), register_module("norm2", norm2);
    register_module("attention", attention);
    register_module("up", up), register_module("down", down);
  }
  static nn::MultiheadAttentionOptions batch_first() {
    nn::MultiheadAttentionOptions o;
    o.batch_first = true;
    return o;
  }
  // Self-attention [N, L, E] → [N, L, E]; is_causal promises that `mask` is causal.
  Tensor attend(const Tensor& x, const Tensor& mask, bool is_causal) const {
    return attention(x, x, x, Tensor(), false, mask, true, is_causal).output;
  }
  // The feed-forward part: each position's vector alone, [..., E] → [..., E].
  Tensor feed_forward(const Tensor& x) const { return down(gelu(up(x))); }
  Tensor forward(const Tensor& x, const Tensor& mask = Tensor(),
                 bool is_causal = false) const {
    if (!parts.pre_norm) {  // post-norm: x ← LN1(x + Attn(x)), x ← LN2(x + FF(x))
      const Tensor h = norm1(x + attend(x, mask, is_causal));
      return parts.mlp ? norm2(h + feed_forward(h)) : h;
    }
    const Tensor a = attend(norm1(x), mask, is_causal);
    const Tensor h = parts.residual ? x + a : a;
    if (!parts.mlp) return h;
    const Tensor f = feed_forward(norm2(h));
    return parts.residual ? h + f : f;
  }
  Tensor operator()(const Tensor& x, const Tensor& mask = Tensor(),
                    bool is_causal = false) const {
    return forward(x, mask, is_causal);
  }
};

// %%
// The diagram below is this block, drawn from the graph one forward pass recorded on
// eight tokens of width 16 (:cpp:func:`litgrad::autograd::recorded_graph`, with an
// :cpp:class:`litgrad::autograd::ScopeCapture` noting which module each operation ran
// in): each module a dark box with its name and type, each operation the block runs
// itself a light one, each arrow a tensor with its shape. The stream goes round each
// part, not through it: ``x`` reaches the first addition directly and through ``norm1``
// and the attention; that sum reaches the second addition directly and through
// ``norm2`` and the feed-forward network, which widens each position's 16 numbers to 64
// and narrows them back. The test reads the same record, and draws the post-norm block
// too, whose diagram differs: a change to the code changes the picture.
//
// .. figure:: block_graph
//
//    The pre-norm block as its forward pass recorded itself, module by module: input
//    green, modules dark blue with their names and types, the block's own operations
//    light blue, each arrow the shape it carries, [batch, tokens, width]. The long
//    arrows on the right are the residual stream going round each part; the one
//    arrow into the attention is the normalised x, used as query, key and value alike
//    (chapter 8's three branches are inside that box).

// The block's recorded graph on x, one box per module.
book::Diagram block_diagram(Block& block, const Tensor& x) {
  autograd::ScopeCapture capture;
  const Tensor input = x.detach().requires_grad_();  // so that the record starts at x
  const Tensor y = block(input);
  std::vector<std::pair<std::string, Tensor>> names = block.named_parameters();
  names.emplace_back("x", input);
  book::DiagramView view;
  view.model = &block, view.depth = 1, view.roles = {{"x", "input"}};
  return book::recorded_diagram(autograd::recorded_graph(y, names, &capture), view);
}

std::vector<std::string> labels(const book::Diagram& d) {
  std::vector<std::string> out;
  for (const auto& node : d.nodes) out.push_back(node.label);
  return out;
}

TEST_CASE(
    "drawn from its recorded graph, the pre-norm block is norm1, attention, an "
    "addition, norm2, up, gelu, down and an addition, the stream [1, 8, 16] widened "
    "to 64 inside the feed-forward network, and the post-norm block draws "
    "differently") {
  Generator gen(3);
  Block block(16, 2, gen);
  const Tensor x = randn({1, 8, 16}, gen);
  const book::Diagram drawn = block_diagram(block, x);
  const std::vector<std::string> expected = {"norm1\nLayerNorm",
                                             "attention\nMultiheadAttention",
                                             "norm2\nLayerNorm",
                                             "up\nLinear",
                                             "down\nLinear",
                                             "x",
                                             "add",
                                             "gelu",
                                             "add",
                                             "output"};
  CHECK(labels(drawn) == expected);
  int widened = 0;  // arrows carrying [1, 8, 64]: up to gelu, gelu to down
  for (const auto& edge : drawn.edges) widened += edge.label == "[1,8,64]";
  book::check("arrows of shape [1, 8, 64]", widened,
              "inside the feed-forward network: up to gelu and gelu to down",
              book::exactly(2));
  Generator same(3);
  Block post_norm(16, 2, same, Parts{true, true, false});
  const book::Diagram post = block_diagram(post_norm, x);
  book::check("post-norm drawn as pre-norm", post.json().dump() == drawn.json().dump(),
              "1 if the two diagrams are the same", book::exactly(0));
  book::figure("block_graph", drawn.json());
}

// %%
// Two facts about which positions a block lets influence which follow from the
// formulas, and both hold exactly, in every bit.
//
// The feed-forward network is applied to each position's vector on its own: change one
// token, and only that position's feed-forward output changes, in any bit. (This is why
// it is sometimes called *position-wise*; a matrix product of an :math:`[L, E]` matrix
// computes each row from that row alone.) Attention is the only part of a block in
// which positions meet. So, with no information about positions, a whole block is
// *permutation-equivariant*, as chapter 8 measured for one attention layer: the norms
// and the feed-forward part act on each position alone, and cannot tell first from
// last either.

TEST_CASE(
    "the feed-forward part acts on each position alone: changing one token changes "
    "that position's output and leaves every other position's bit for bit the same") {
  Generator gen(3);
  Block block(16, 2, gen);
  const Tensor x = randn({1, 8, 16}, gen);
  Tensor changed = x.detach() * 1.0;  // a copy
  changed.data()[5 * 16 + 3] += 1.0;  // position 5, feature 3
  const Tensor before = block.feed_forward(x), after = block.feed_forward(changed);
  int others_differing = 0, fifth_differing = 0;
  for (std::int64_t t = 0; t < 8; ++t) {
    const int d = differing_bits(select(before, 1, t), select(after, 1, t));
    (t == 5 ? fifth_differing : others_differing) += d;
  }
  book::check("differing numbers elsewhere", others_differing,
              "at the 7 positions that were not changed", book::exactly(0));
  book::check("differing numbers at position 5", fifth_differing, "of its 16",
              book::above(0));
}

// %%
// With the causal mask of chapter 8, position :math:`t` attends only to positions up to
// :math:`t`, and the feed-forward part and the norms look at position :math:`t` alone.
// So nothing at position :math:`t` of a block's output can depend on a later token:
// change the last token, and every earlier position's output is bit for bit the same,
// and the gradient of the earlier outputs with respect to the last token is exactly
// zero. (The masked weights are exactly 0, as chapter 8 measured, so the last token's
// value enters earlier sums only as :math:`0 \cdot v`, and a gradient flowing through a
// zero weight is exactly zero.) A stack of such blocks is causal for the same reason,
// which chapter 10's language model relies on.

TEST_CASE(
    "with the causal mask, changing the last token leaves every earlier position's "
    "block output bit for bit the same, and their gradient with respect to it exactly "
    "zero") {
  Generator gen(5);
  Block block(16, 2, gen);
  const Tensor mask = generate_square_subsequent_mask(8);
  const Tensor x = randn({1, 8, 16}, gen).requires_grad_();
  Tensor changed = x.detach() * 1.0;
  for (std::int64_t i = 0; i < 16; ++i) changed.data()[7 * 16 + i] += 1.0;
  const Tensor y = block(x, mask);
  const Tensor earlier = slice(y, 1, 0, 7),
               earlier_changed = slice(block(changed, mask), 1, 0, 7);
  const int differing = differing_bits(earlier, earlier_changed);
  sum(earlier * randn({1, 7, 16}, gen)).backward();
  int nonzero = 0;
  for (std::int64_t i = 0; i < 16; ++i) nonzero += x.grad().at({0, 7, i}) != 0.0;
  book::check("differing numbers", differing, "at positions 0 to 6", book::exactly(0));
  book::check("nonzero gradients", nonzero,
              "of the earlier outputs with respect to the last token's 16 features",
              book::exactly(0));
}

// %% 3 · Why the residual connections
//
// Backpropagation (chapter 2) multiplies the gradient by each layer's Jacobian on its
// way down. In a stack of layers that replace their input, :math:`x_{l+1} = f_l(x_l)`,
// the gradient reaching the input is a product of 32 such matrices, and a product of
// many random matrices grows or shrinks geometrically with their number, unless each is
// tuned to have gain exactly 1. With a residual connection,
// :math:`x_{l+1} = x_l + f_l(x_l)`, each Jacobian is :math:`I + J_l`, and their
// product, multiplied out, is the identity plus terms that pass through one layer or
// more. The identity is a path that carries the gradient to every layer unchanged,
// with no gain to tune; the other terms could still cancel or swamp it, but only if
// together they grew as large as it. What the layers add to it is small, because in a
// pre-norm block :math:`f_l` reads the stream through a layer norm, which divides by
// the stream's spread, and the stream grows as each block adds to it: the gradient
// grows towards the input, but slowly.
//
// The test builds 32 blocks of width 32 (torch's default initialisation, as litgrad's)
// and runs one batch through them with and without the residual additions. To see the
// gradient at every layer in one backward pass, it adds a tensor of zeros that requires
// grad to each layer's input: adding zeros changes no value (chapter 7), and the
// gradient of that tensor is the gradient with respect to the layer's input.

constexpr int kDepth = 32;

// The norm of the gradient of sum(x_32 · r) at the input of each of the 32 layers and
// at the top: [kDepth + 1] numbers, from the input (layer 0) up.
std::vector<double> gradient_norms(bool residual, std::uint64_t seed) {
  Generator gen(seed);
  Parts parts;
  parts.residual = residual;
  std::vector<Block> blocks;
  for (int l = 0; l < kDepth; ++l) blocks.emplace_back(32, 2, gen, parts);
  Tensor x = randn({4, 8, 32}, gen);
  std::vector<Tensor> taps;  // zeros added at each layer's input and at the top
  for (int l = 0; l <= kDepth; ++l) {
    taps.push_back(zeros({4, 8, 32}).requires_grad_());
    x = x + taps.back();
    if (l < kDepth) x = blocks[l](x);
  }
  sum(x * randn({4, 8, 32}, gen)).backward();
  std::vector<double> norms;
  for (const Tensor& t : taps) norms.push_back(norm(t.grad()).item());
  return norms;
}

// Why "farther without" is a comparison and not a factor to hold: see the prose below.
const char* const kCompounded =
    "a comparison: without residuals the gradient's factor is a product of 32 random "
    "ones, so how far it strays differs from seed to seed by orders of magnitude, and "
    "the claim is only which stack strays farther";

// How far the gradient strays from its value at the top, at its farthest, as a factor:
// max over layers of max(g_l / g_top, g_top / g_l).
double farthest(const std::vector<double>& norms) {
  double band = 0;
  for (double g : norms) band = std::max(band, std::fabs(std::log(g / norms.back())));
  return std::exp(band);
}

// %%
// What to claim? Both stacks start with a gradient at the top, and the question is how
// far it strays on its way down. With residuals we claim it stays within an order of
// magnitude, a factor of 10, of its value at the top at every one of the 33 depths, and
// that it is larger at the input than at the top, the growth the argument predicts. (We
// have no closed form for the factor: the argument above says slow growth, not how
// much.) Without them, the factors of the 32 layers multiply, and where the product
// ends differs widely from seed to seed (the account prints it for each). The claim we
// can hold there is the comparison, seed by seed: without residuals the gradient
// strays farther than with them.
//
// .. figure:: gradient_depth
//
//    The norm of the gradient at each layer's input, in a stack of 32 blocks, from the
//    input (layer 0) to the top (32), for the first seed, on a log scale. Without
//    residual connections it wanders by a factor at each layer, and the factors
//    compound; with them it stays near its value at the top, growing a little towards
//    the input.

TEST_CASE(
    "in 32 blocks with residual connections the gradient stays within a factor of 10 "
    "of its value at the top at every layer and is larger at the input, and without "
    "them it strays farther, for three seeds") {
  std::vector<double> depth(kDepth + 1);
  for (int l = 0; l <= kDepth; ++l) depth[l] = l;
  const auto plain = gradient_norms(false, kSeeds[0]);
  const auto residual = gradient_norms(true, kSeeds[0]);
  book::figure("gradient_depth",
               book::line_plot("layer", "gradient norm at the layer's input",
                               {book::series("without residuals", depth, plain),
                                book::series("with residuals", depth, residual)},
                               true));
  book::check_seeds("farthest with residuals", "as a factor of the gradient at the top",
                    book::at_most(10), kSeeds, [](std::uint64_t seed) {
                      return farthest(gradient_norms(true, seed));
                    });
  book::check_seeds("input over top, with residuals",
                    "the gradient's norm at the input over its norm at the top",
                    book::above(1), kSeeds, [](std::uint64_t seed) {
                      const auto norms = gradient_norms(true, seed);
                      return norms.front() / norms.back();
                    });
  book::check_seeds("how many times farther without",
                    "the plain stack's factor over "
                    "the residual stack's",
                    book::above(1).large_margin_because(kCompounded), kSeeds,
                    [](std::uint64_t seed) {
                      return farthest(gradient_norms(false, seed)) /
                             farthest(gradient_norms(true, seed));
                    });
}

// %% 4 · A block, trained
//
// Now train blocks, and take them apart to see what each part buys. The task is made
// so that a single block needs each of its parts. Sequences are 8 symbols drawn at
// random from 16, and at every position after the first the model must name
// :math:`T[x_{t-1}][x_t]`, the entry of a fixed table of :math:`16 \times 16 = 256`
// random symbols for the symbol before and the symbol itself. Attention has to fetch
// the previous symbol, and something has to look the pair up in the table, which is no
// linear function of the two: the feed-forward network is the obvious candidate, a
// memory of 64 hidden units that each respond to some pairs and not others (Geva et
// al., 2021, read a trained Transformer's feed-forward layers as such key-value
// memories). The table is large on purpose: attention's own softmax is nonlinear in the
// pair, so we expect that a small enough table could be fitted by attention and the
// norms alone (we do not test that).
//
// Positions enter differently from chapter 8. There, a token was a value with fixed
// sinusoids *concatenated* beside it, which kept value and position apart for the
// argument. Here, and in chapter 10, each symbol has a learned vector, each position
// has a learned vector (:cpp:class:`litgrad::nn::Embedding`, chapter 7, indexed by the
// position), and the two are *added* into one residual stream. Adding keeps the
// stream at one width that every block reads and writes, where a concatenation would
// set features aside for the position that the first block's additions would write
// over anyway; with as many dimensions as here, a learned table can give positions
// directions of their own. And learned vectors can be whatever the task needs, where
// sinusoids are fixed; they cannot describe a position longer than the longest seen in
// training, which does not matter for sequences of a fixed short length. GPT-2 does the
// same; the original Transformer added its sinusoids.
//
// The model: symbol and position vectors of width 16 added, one or three blocks
// (2 heads, the causal mask, a feed-forward network of width 64), a layer norm for the
// pre-norm blocks (a post-norm block already ends in one), and a linear read-out of
// each position into 16 scores.

constexpr std::int64_t kSymbols = 16, kSequence = 8, kStream16 = 16;

// The table: T[a * 16 + b] for a symbol a followed by b.
const std::vector<std::int64_t>& table() {
  static const std::vector<std::int64_t> t = [] {
    Generator gen(9);
    std::vector<std::int64_t> entries;
    for (int i = 0; i < kSymbols * kSymbols; ++i)
      entries.push_back(gen.randint(0, kSymbols));
    return entries;
  }();
  return t;
}

// Symbols [n, 8] and targets [n, 8]: T[x_{t-1}][x_t], and -100 (ignored) at t = 0.
struct TableBatch {
  Tensor symbols, targets;
};

TableBatch table_batch(std::int64_t n, Generator& gen) {
  std::vector<double> symbols(n * kSequence), targets(n * kSequence, -100);
  for (std::int64_t i = 0; i < n * kSequence; ++i) {
    symbols[i] = gen.randint(0, kSymbols);
    if (i % kSequence > 0)
      targets[i] =
          table()[std::llround(symbols[i - 1]) * kSymbols + std::llround(symbols[i])];
  }
  return {tensor(symbols, {n, kSequence}, DType::Int64),
          tensor(targets, {n, kSequence}, DType::Int64)};
}

// Symbols [N, 8] → scores for each position's answer [N, 8, 16].
struct TableModel : nn::Module {
  nn::Embedding symbol, position;
  nn::ModuleList blocks;
  nn::LayerNorm norm;
  nn::Linear readout;
  Parts parts;
  TableModel(int depth, Parts parts, Generator& gen)
      : Module("TableModel"),
        symbol(kSymbols, kStream16, std::nullopt, gen),
        position(kSequence, kStream16, std::nullopt, gen),
        norm({kStream16}),
        readout(kStream16, kSymbols, true, gen),
        parts(parts) {
    register_module("symbol", symbol), register_module("position", position);
    for (int l = 0; l < depth; ++l) blocks.push_back(Block(kStream16, 2, gen, parts));
    register_module("blocks", blocks);
    register_module("norm", norm), register_module("readout", readout);
  }
  Tensor forward(const Tensor& symbols) const {
    Tensor x = symbol(symbols) + position(arange(kSequence).to(DType::Int64));
    const Tensor mask = generate_square_subsequent_mask(kSequence);
    for (std::size_t l = 0; l < blocks.size(); ++l)
      x = blocks.at<Block>(l)(x, mask, /*is_causal=*/true);
    return readout(parts.pre_norm ? norm(x) : x);
  }
  Tensor operator()(const Tensor& symbols) const { return forward(symbols); }
};

// %%
// Every model trains the same way: AdamW (chapter 6) at a rate of 0.05 from the first
// step, with no warm-up and no schedule, for 300 steps of 32 fresh sequences; then each
// of 1,024 test sequences, the same for every model, gets its loss, summed over its 7
// predictions. The rate is high on purpose: it is where the place of the norm shows
// (below).

constexpr int kTableSteps = 300, kTableBatch = 32, kTableTest = 1024;
constexpr double kTableRate = 0.05;

struct TableRun {
  std::vector<double> sequence_losses;  // [1024]: each test sequence's summed loss
  double loss = 0;                      // nats per prediction on the test sequences
  std::vector<double> curve;            // the training loss at every step
};

// %% fold: the test sequences, a name for each model, and a cache of runs
const TableBatch& table_test() {
  static const TableBatch test = [] {
    Generator gen(2024);
    return table_batch(kTableTest, gen);
  }();
  return test;
}

std::string table_name(int depth, Parts parts) {
  return "table" + std::to_string(depth) + (parts.mlp ? "" : "-nomlp") +
         (parts.residual ? "" : "-noresidual") + (parts.pre_norm ? "" : "-postnorm");
}

TableRun train_table(int depth, Parts parts, std::uint64_t seed);

const TableRun& table_run(int depth, Parts parts, std::uint64_t seed) {
  static std::map<std::tuple<std::string, std::uint64_t>, TableRun> runs;
  const auto key = std::make_tuple(table_name(depth, parts), seed);
  if (!runs.count(key)) runs[key] = train_table(depth, parts, seed);
  return runs[key];
}

// %%
// The training, kept once per build for the claims that share a model
// (``book::train_once``), and the test:

TableRun train_table(int depth, Parts parts, std::uint64_t seed) {
  Generator gen(seed);
  TableModel model(depth, parts, gen);
  const book::Record record =
      book::train_once(table_name(depth, parts), seed, model, [&] {
        optim::AdamW adam(model.parameters(), {kTableRate});
        book::Record r;
        for (int step = 0; step < kTableSteps; ++step) {
          const TableBatch b = table_batch(kTableBatch, gen);
          adam.zero_grad();
          const Tensor loss = cross_entropy(model(b.symbols).reshape({-1, kSymbols}),
                                            b.targets.reshape({-1}));
          loss.backward();
          adam.step();
          r["loss"].push_back(loss.item());
        }
        return r;
      });
  NoGradGuard no_grad;
  const TableBatch& test = table_test();
  const Tensor losses = cross_entropy(model(test.symbols).reshape({-1, kSymbols}),
                                      test.targets.reshape({-1}), Reduction::None);
  const Tensor per_sequence = sum(losses.reshape({kTableTest, kSequence}), {1});
  TableRun run;
  run.sequence_losses = per_sequence.to_vector();
  run.loss = sum(per_sequence).item() / (kTableTest * (kSequence - 1));
  run.curve = record.at("loss");
  return run;
}

// %%
// How to compare two models? Both answer the same 1,024 test sequences, so compare them
// sequence by sequence: with :math:`d_i` the difference of their losses on sequence
// :math:`i`, the mean difference has standard error :math:`\mathrm{sd}(d)/\sqrt{n}`.
// A part "buys" something when removing it raises the test loss by more than 4 such
// standard errors, for each of three seeds; by chance alone, a mean four standard
// errors above zero comes up less than once in ten thousand.
//
// Two levels help read the losses. A model that learned nothing about its inputs can at
// best predict how often each symbol appears in the table, :math:`q`: a loss of
// :math:`H(q) = -\sum_y q_y \ln q_y`. A model that reads only one of the two symbols
// it needs can at best predict the table's entries in that symbol's row (or column): a
// loss of :math:`H(T \mid x_{t-1})` or :math:`H(T \mid x_t)`, the average entropy of
// the rows (or columns). Neither uses more than the table, so the test computes both
// exactly.

// The lead of model a's losses over b's, sequence by sequence, in standard errors.
double lead(const TableRun& a, const TableRun& b) {
  const auto n = static_cast<double>(a.sequence_losses.size());
  double mean = 0, square = 0;
  for (std::size_t i = 0; i < a.sequence_losses.size(); ++i)
    mean += (a.sequence_losses[i] - b.sequence_losses[i]) / n;
  for (std::size_t i = 0; i < a.sequence_losses.size(); ++i) {
    const double d = a.sequence_losses[i] - b.sequence_losses[i] - mean;
    square += d * d / (n - 1);
  }
  return mean / std::sqrt(square / n);
}

// The entropy of the distribution `counts` makes, in nats.
double entropy(const std::vector<double>& counts) {
  double total = 0, h = 0;
  for (double c : counts) total += c;
  for (double c : counts)
    if (c > 0) h -= c / total * std::log(c / total);
  return h;
}

// H(q), and the least of H(T | x_{t-1}) and H(T | x_t): the average entropy of the
// table's rows and of its columns.
double knowing_nothing() {
  std::vector<double> q(kSymbols, 0);
  for (auto y : table()) q[y] += 1;
  return entropy(q);
}

double knowing_one_symbol() {
  double rows = 0, columns = 0;
  for (std::int64_t a = 0; a < kSymbols; ++a) {
    std::vector<double> row(kSymbols, 0), column(kSymbols, 0);
    for (std::int64_t b = 0; b < kSymbols; ++b) {
      row[table()[a * kSymbols + b]] += 1;
      column[table()[b * kSymbols + a]] += 1;
    }
    rows += entropy(row) / kSymbols, columns += entropy(column) / kSymbols;
  }
  return std::min(rows, columns);
}

// %%
// First one block. With its feed-forward network it should learn the table, and so
// end below what reading only one symbol allows. Without the network, the block still
// has attention, two layer norms and the softmax, all of them nonlinear, but nothing
// built to store 256 answers; we claim it ends above the full block by more than 4
// standard errors.

TEST_CASE(
    "one pre-norm block learns the table, below the loss of reading one symbol, and "
    "without its feed-forward network it ends above by more than 4 standard errors, "
    "for three seeds") {
  const Parts full, no_mlp{false, true, true};
  out() << "knowing nothing: H(q) = " << knowing_nothing()
        << " nats; knowing one symbol: " << knowing_one_symbol() << " nats\n";
  for (auto seed : kSeeds)
    out() << "seed " << seed << ": one block " << table_run(1, full, seed).loss
          << " nats per prediction, without its MLP " << table_run(1, no_mlp, seed).loss
          << "\n";
  book::check_seeds("one block's test loss", "nats per prediction",
                    book::below(knowing_one_symbol())
                        .large_margin_because(book::kTrainedPastTheLevel),
                    kSeeds,
                    [&](std::uint64_t seed) { return table_run(1, full, seed).loss; });
  book::check_seeds("lead of the full block",
                    "over the block without its MLP, in "
                    "standard errors",
                    book::above(4), kSeeds, [&](std::uint64_t seed) {
                      return lead(table_run(1, no_mlp, seed), table_run(1, full, seed));
                    });
}

// %%
// Without a feed-forward network the block is not helpless: the account shows how far
// attention and the norms alone get. Where the network is missing, we would expect
// stacking more blocks to make up for it in part, each adding more of those
// nonlinearities (not tested here); the residual
// connections and the norms' place are about stacking itself, so they show in a stack.
// The next two claims train three blocks.
//
// Without residual connections each block's output replaces its input, and section 3's
// argument about products of Jacobians applies from the first step: three blocks at the
// rate above should learn little. How little? We claim nothing at all: not only do they
// end above the full stack, they learn nothing of their inputs. A model that knows
// nothing does best to predict :math:`q` everywhere, and on the test sequences that
// costs :math:`H(q)` per prediction, give or take the chance of which symbols the
// sequences happen to hold; a model that has learned something of its inputs ends below
// that by more than chance allows. So the claim is that the stack without residuals
// ends above :math:`H(q)` less 4 standard errors of its own mean test loss (the spread
// of its sequences' losses over :math:`\sqrt{1024}`, per prediction).

// The standard error of a run's test loss per prediction: the spread of its sequences'
// summed losses, over √n for n sequences, over the predictions in a sequence.
double standard_error(const TableRun& run) {
  const auto n = static_cast<double>(run.sequence_losses.size());
  double square = 0;
  for (double l : run.sequence_losses) {
    const double d = l - run.loss * (kSequence - 1);
    square += d * d / (n - 1);
  }
  return std::sqrt(square / n) / (kSequence - 1);
}

// Checks, for each seed, that the run `model` makes for it learned nothing of its
// inputs: its test loss is above H(q) less 4 of its standard errors.
void check_learns_nothing(const std::string& name,
                          const std::function<const TableRun&(std::uint64_t)>& model) {
  for (auto seed : kSeeds) {
    const TableRun& run = model(seed);
    book::check(name + " (seed " + std::to_string(seed) + ")", run.loss,
                "nats per prediction, against H(q) less 4 standard errors of its mean",
                book::above(knowing_nothing() - 4 * standard_error(run)));
  }
}

TEST_CASE(
    "three pre-norm blocks learn the table, and without residual connections they "
    "learn nothing of their inputs, ending above H(q) less 4 standard errors, for "
    "three seeds") {
  const Parts full, no_residual{true, false, true};
  for (auto seed : kSeeds)
    out() << "seed " << seed << ": three blocks " << table_run(3, full, seed).loss
          << " nats per prediction, without residuals "
          << table_run(3, no_residual, seed).loss << " ± "
          << standard_error(table_run(3, no_residual, seed))
          << " (H(q) = " << knowing_nothing() << ")\n";
  book::check_seeds("three blocks' test loss", "nats per prediction",
                    book::below(knowing_one_symbol()), kSeeds,
                    [&](std::uint64_t seed) { return table_run(3, full, seed).loss; });
  check_learns_nothing("without residuals", [&](std::uint64_t seed) -> const TableRun& {
    return table_run(3, no_residual, seed);
  });
}

// %% fold: drawing the training curves of the first seed
std::vector<double> smoothed(const std::vector<double>& curve,
                             std::vector<double>& at) {
  std::vector<double> means;
  at.clear();
  for (std::size_t start = 0; start + 10 <= curve.size(); start += 10) {
    double m = 0;
    for (std::size_t i = start; i < start + 10; ++i) m += curve[i] / 10;
    means.push_back(m), at.push_back(static_cast<double>(start + 10));
  }
  return means;
}

void draw_block_training() {
  const auto s = kSeeds[0];
  const auto line = [&](const std::string& label, int depth, Parts parts) {
    std::vector<double> at;
    const auto y = smoothed(table_run(depth, parts, s).curve, at);
    return book::series(label, at, y);
  };
  const std::vector<double> ends = {0, static_cast<double>(kTableSteps)};
  const auto floor = book::series("H(q), knowing nothing", ends,
                                  {knowing_nothing(), knowing_nothing()})
                         .set("style", "k--");
  const Parts full, no_mlp{false, true, true}, no_residual{true, false, true},
      post{true, true, false};
  book::figure(
      "block_training",
      book::side_by_side({book::line_plot("step", "training loss (nats per prediction)",
                                          {line("pre-norm block", 1, full),
                                           line("without its MLP", 1, no_mlp), floor},
                                          true)
                              .set("title", "one block"),
                          book::line_plot("step", "training loss (nats per prediction)",
                                          {line("pre-norm", 3, full),
                                           line("without residuals", 3, no_residual),
                                           line("post-norm", 3, post), floor},
                                          true)
                              .set("title", "three blocks")}));
}

// %%
// The last part to move is the norm. Xiong et al. (2020) showed that at the start of
// training a post-norm Transformer's gradients are largest for the parameters next to
// the output, so that a large rate there throws the model off; a warm-up, a start at a
// small learning rate (chapter 6), avoids it, and pre-norm Transformers, whose
// gradients are spread more evenly, train without one. Our rate is high from the first
// step, so post-norm blocks should do worse, and they do worse in the way the stack
// without residuals did: we claim they too learn nothing of their inputs, ending
// above :math:`H(q)` less 4 standard errors, where the pre-norm stack of the last
// claim learned the table. This is a claim about training at this rate with no
// warm-up, not about what post-norm blocks can express: with a warm-up, Xiong et al.
// train post-norm Transformers well, and we do not test that here.
//
// .. figure:: block_training
//
//    The training loss of the first seed's models, step by step (each point a mean
//    over 10 steps), on a log scale, with :math:`H(q)`, the loss of knowing nothing.
//    Left, one block with and without its feed-forward network; right, three blocks,
//    pre-norm, without residual connections, and post-norm. The full blocks fall far
//    below the line; the block without its MLP levels off well above them; the stacks
//    without residuals and with post-norm stay close to the line of knowing nothing.

TEST_CASE(
    "at a rate of 0.05 with no warm-up, three post-norm blocks end above H(q) less 4 "
    "standard errors, learning nothing of their inputs, for three seeds") {
  const Parts pre, post{true, true, false};
  for (auto seed : kSeeds)
    out() << "seed " << seed << ": pre-norm " << table_run(3, pre, seed).loss
          << " nats per prediction, post-norm " << table_run(3, post, seed).loss
          << " ± " << standard_error(table_run(3, post, seed)) << "\n";
  check_learns_nothing("post-norm", [&](std::uint64_t seed) -> const TableRun& {
    return table_run(3, post, seed);
  });
  draw_block_training();
}

// %% 5 · What one layer can express, and what training finds
//
// The *induction* task (Olsson et al., 2022) asks for a two-step lookup. A sequence of
// 12 tokens from a vocabulary of 16 holds 11 distinct tokens, and the last token
// repeats one of the first ten; the answer is the token that followed that earlier
// copy. In *a b c d e f g h i j k d* the answer is *e*. The same move, "find where we
// saw this before and say what came next", lets large language models continue patterns
// they met only in their prompt.
//
// The models here are attention only: token and position embeddings of width 32 added
// into a residual stream, one or two :cpp:class:`litgrad::nn::MultiheadAttention`
// layers of 2 heads with the causal mask, each added back to the stream, and a linear
// read-out of the last position's vector into 16 scores.

constexpr std::int64_t kVocab = 16, kLength = 12, kStream = 32, kHeads = 2;
constexpr int kTest = 4096;

// Sequences [n, 12] and their answers [n], with the copy's position [n].
struct Induction {
  Tensor tokens, answers;
  std::vector<std::int64_t> copy_at;
};

Induction induction_batch(std::int64_t n, Generator& gen) {
  std::vector<double> tokens(n * kLength), answers(n);
  std::vector<std::int64_t> copy_at(n);
  for (std::int64_t b = 0; b < n; ++b) {
    double* row = tokens.data() + b * kLength;
    const Tensor order = randperm(kVocab, gen);  // the first 11 are distinct
    for (std::int64_t t = 0; t + 1 < kLength; ++t) row[t] = order.at({t});
    copy_at[b] = gen.randint(0, kLength - 2);  // positions 0 to 9
    row[kLength - 1] = row[copy_at[b]];
    answers[b] = row[copy_at[b] + 1];
  }
  return {tensor(tokens, {n, kLength}, DType::Int64),
          tensor(answers, {n}, DType::Int64), copy_at};
}

// Attention only: tokens [N, 12] → scores for the answer [N, 16].
struct AttentionOnly : nn::Module {
  nn::Embedding token, position;
  nn::ModuleList layers;
  nn::Linear readout;
  AttentionOnly(int depth, Generator& gen)
      : Module("AttentionOnly"),
        token(kVocab, kStream, std::nullopt, gen),
        position(kLength, kStream, std::nullopt, gen),
        readout(kStream, kVocab, true, gen) {
    register_module("token", token), register_module("position", position);
    for (int l = 0; l < depth; ++l)
      layers.push_back(
          nn::MultiheadAttention(kStream, kHeads, Block::batch_first(), gen));
    register_module("layers", layers), register_module("readout", readout);
  }
  // The scores, and each layer's weights averaged over heads [N, 12, 12] in `weights`.
  Tensor forward(const Tensor& tokens, std::vector<Tensor>* weights = nullptr) const {
    Tensor x = token(tokens) + position(arange(kLength).to(DType::Int64));
    const Tensor mask = generate_square_subsequent_mask(kLength);
    for (std::size_t l = 0; l < layers.size(); ++l) {
      const auto a = layers.at<nn::MultiheadAttention>(l)(
          x, x, x, Tensor(), weights != nullptr, mask, true, /*is_causal=*/true);
      if (weights) weights->push_back(a.weights);
      x = x + a.output;
    }
    return readout(select(x, 1, kLength - 1));
  }
  Tensor operator()(const Tensor& tokens,
                    std::vector<Tensor>* weights = nullptr) const {
    return forward(tokens, weights);
  }
};

// The share of fresh test sequences (drawn from `test_seed`) the model answers right.
double induction_accuracy(const AttentionOnly& model, std::uint64_t test_seed) {
  NoGradGuard no_grad;
  Generator test_gen(test_seed);
  const Induction test = induction_batch(kTest, test_gen);
  const Tensor predicted = argmax(model(test.tokens), 1);
  return sum(eq(predicted, test.answers).to(DType::Float64)).item() / kTest;
}

// %%
// Can one layer do it? Its answer comes from the last position's query, compared with
// a key made from each position's own token and position. The key of the position that
// holds the answer knows its own token and where it sits, but not which token came
// before it; the copy's key matches the query, but the copy's value holds the copy's
// own token, not its successor's. So no head can simply attend to the answer. It can
// still be done in one layer, by a trick that reads *where* the copy is from how much
// weight the rest of the sequence gets.
//
// Let head :math:`h` score position :math:`s` with a bonus :math:`\beta` when its token
// is the query's, plus a score for the position alone, :math:`\gamma_h(s)`. With
// :math:`\beta` large the copy, at :math:`c`, takes almost all the weight, the
// softmax's denominator is almost exactly the copy's own term :math:`e^{\beta +
// \gamma_h(c)}`, and every other position gets the weight :math:`w_h(s) \approx
// e^{\gamma_h(s) - \gamma_h(c) - \beta}`: tiny, but telling how far :math:`s` is from
// the copy. Take :math:`\gamma_1(s) = s \ln r` and :math:`\gamma_2(s) = 2 s \ln r`. The
// position :math:`j` places after the copy then gets :math:`e^{-\beta} r^j` in head 1
// and :math:`e^{-\beta} r^{2j}` in head 2, wherever the copy is. Let each head's values
// be the tokens themselves, and let the read-out score each token by :math:`e^\beta`
// times its weight in head 1 minus :math:`\kappa` times its weight in head 2: the token
// :math:`j` places after the copy scores :math:`r^j - \kappa r^{2j}`, a parabola in
// :math:`r^j` whose top is at :math:`r^j = 1/(2\kappa)`. With :math:`\kappa = 1/(2r)`
// the top is at :math:`j = 1`, the copy's successor. For :math:`r = 3` it scores
// :math:`r/2 = 1.5`; the token before the copy scores :math:`1/3 - 1/54 \approx 0.31`,
// the one two places after it :math:`9 - 81/6 = -4.5`, and tokens absent from the
// sequence 0. Two loose ends: the copy holds the query's token, which the read-out
// subtracts with a large weight, and the query's own position matches its token too, so
// its position score is set far below every other.
//
// Here are those weights, with :math:`\beta = 30` and :math:`r = 3`, in a one-layer
// model of the shape above: tokens one-hot in the stream's first 16 features, the two
// position scores in features 16 and 17, each head's queries reading the token and its
// keys the token and the position score, values copying the token, and the output
// projection writing the heads' difference into features 16 to 31 for the read-out.

// Sets element [i, j] of a matrix.
void put(Tensor& m, std::int64_t i, std::int64_t j, double v) {
  m.data()[i * m.size(1) + j] = v;
}

void set_one_layer_by_hand(AttentionOnly& model) {
  const double beta = 30, r = 3, kappa = 1 / (2 * r), scale = std::exp(beta);
  NoGradGuard no_grad;
  for (Tensor p : model.parameters()) p.copy_(zeros(p.shape()));
  for (std::int64_t t = 0; t < kVocab; ++t) put(model.token.weight, t, t, 1);
  for (std::int64_t s = 0; s + 1 < kLength; ++s) {  // γ_h(s) = β · feature 16 + h
    put(model.position.weight, s, 16, s * std::log(r) / beta);
    put(model.position.weight, s, 17, 2 * s * std::log(r) / beta);
  }
  put(model.position.weight, kLength - 1, 16, -3);  // the query itself: γ = -3β
  put(model.position.weight, kLength - 1, 17, -3);
  auto& layer = model.layers.at<nn::MultiheadAttention>(0);
  Tensor& in = layer.in_proj_weight;  // rows: queries 0-31, keys 32-63, values 64-95
  for (std::int64_t h = 0; h < 2; ++h)
    for (std::int64_t i = 0; i < 16; ++i) {
      put(in, h * 16 + i, i, 4 * beta);  // query: 4β · the token (scaled by 1/√16)
      put(in, 32 + h * 16 + i, i, 1);    // key: the token, plus
      put(in, 32 + h * 16 + i, 16 + h,
          1);                          //   head h's position score on every feature
      put(in, 64 + h * 16 + i, i, 1);  // value: the token
    }
  for (std::int64_t i = 0; i < 16; ++i) {  // output: e^β (head 1 - κ head 2)
    put(layer.out_proj.weight, 16 + i, i, scale);
    put(layer.out_proj.weight, 16 + i, 16 + i, -kappa * scale);
  }
  for (std::int64_t a = 0; a < kVocab; ++a) {
    put(model.readout.weight, a, 16 + a, 1);  // the heads' verdict on token a
    put(model.readout.weight, a, a, -1e15);   // minus a lot for the query's token
  }
  model.readout.bias.data()[0] = 3;  // cancels the query position's features 16, 17
  model.readout.bias.data()[1] = 3;
}

// %%
// We claim these weights answer every one of 4,096 fresh test sequences right.

TEST_CASE(
    "one attention layer with two heads, its weights set by hand, answers all 4,096 "
    "test sequences of the induction task right") {
  Generator gen(0);
  AttentionOnly model(1, gen);
  set_one_layer_by_hand(model);
  const double accuracy = induction_accuracy(model, 1000);
  book::check("sequences answered right", accuracy * kTest, "of 4,096",
              book::exactly(kTest));
}

// %%
// So one layer can express an answer to this task. The trick leans on this task's
// sequences, though. Each token occurs at most once before the query, so "the copy" is
// one position. And head 2's position scores span :math:`2 \cdot 10 \ln 3 \approx 22`
// across ten positions (their exponentials a factor :math:`3^{20} \approx 3.5 \cdot
// 10^9`), a span that grows in proportion to the length: the bonus :math:`\beta` must
// exceed it, and at a few hundred positions the weights the trick reads, near
// :math:`e^{-\beta}`, fall below the smallest double.
//
// Does training find it? What the one-layer model finds, in practice, is a guess. The
// answer sits at one of positions 1 to 10, and it is never the query's own token; a
// guess uniform over the tokens at positions 1 to 10 other than the query's is right
// with probability :math:`\frac1{10} \cdot \frac1{10} + \frac9{10} \cdot \frac19 =
// 0.11` (the first term when the copy is at position 0, so that all ten candidates
// remain, the second when one of them is the copy itself). A bet on fixed positions,
// which one layer can also express, does better: a head that always attends to
// positions 5 and 6, with a read-out that prefers the token at 5 unless it is the
// query, is right whenever the copy sits at 4 or 5, 0.2 of the time.
//
// We claim what training finds as the observation it is, under the conditions we ran:
// Adam at a rate of 0.001, 0.003 or 0.01 (one seed each), 1,000 steps of 64 fresh
// sequences. The trained model's accuracy on 4,096 fresh sequences is within 4 standard
// errors of a proportion, :math:`4\sqrt{0.11 \cdot 0.89 / 4096} \approx 0.02`, of
// 0.11: not the expressible 1, nor even the 0.2 of a fixed bet. Nothing here says that
// longer training, or another optimiser, could not find more.

// Trains an attention-only model at `rate` for `steps` steps of 64 fresh sequences.
void train_induction(AttentionOnly& model, Generator& gen, double rate, int steps) {
  optim::Adam adam(model.parameters(), {rate});
  for (int step = 0; step < steps; ++step) {
    const Induction b = induction_batch(64, gen);
    adam.zero_grad();
    cross_entropy(model(b.tokens), b.answers).backward();
    adam.step();
  }
}

double one_layer_rate(std::uint64_t seed) {
  const double rates[] = {1e-3, 3e-3, 1e-2};
  return rates[(seed - 1) % 3];
}

TEST_CASE(
    "trained for 1,000 steps at rates 0.001 to 0.01, one attention layer answers "
    "within 4 standard errors of 0.11 of the test sequences, the level of a guess, "
    "for three seeds") {
  const double tolerance = 4 * std::sqrt(0.11 * 0.89 / kTest);
  book::check_seeds("accuracy of one layer", "on 4,096 fresh sequences",
                    book::within(tolerance, 0.11), kSeeds, [](std::uint64_t seed) {
                      Generator gen(seed);
                      AttentionOnly model(1, gen);
                      train_induction(model, gen, one_layer_rate(seed), 1000);
                      const double accuracy = induction_accuracy(model, 1000 + seed);
                      out() << "seed " << seed << ", rate " << one_layer_rate(seed)
                            << ": right on " << accuracy << "\n";
                      return accuracy;
                    });
}

// %%
// Two layers can do it the general way. The first can copy into each position a trace
// of the token before it (a head that attends from position :math:`t` to :math:`t - 1`,
// which the position embeddings allow); the second then matches the query against
// those traces and reads the token at the matching position, which is the answer. This
// needs no single copy and no range of weights that grows with the length. We claim the
// two-layer model, trained at a rate of 0.003 for only 500 steps, right on more than
// 90% of fresh sequences, and that the weights do what the argument says: averaged over
// the test sequences (and the two heads), layer 1 puts most of each position's weight,
// more than half, on the position before it, and layer 2 most of the last token's
// weight on the copy's successor.
//
// .. figure:: induction_weights
//
//    The trained two-layer model's attention (averaged over its two heads) on one test
//    sequence, tokens shown as letters. Layer 1 puts its weight just below the
//    diagonal: most positions put most of their weight on the one before. In layer 2
//    the last token's row picks out the position right after the earlier copy of the
//    last token.

struct InductionRun {
  double accuracy = 0;
  double previous_weight = 0;   // layer 1: mean weight of position t on t - 1, t ≥ 1
  double successor_weight = 0;  // layer 2: the last query's weight on the successor
};

// %% fold: drawing the two layers' attention on one sequence
void draw_induction(const Induction& test, const std::vector<Tensor>& weights) {
  std::vector<std::string> letters;
  for (std::int64_t t = 0; t < kLength; ++t)
    letters.push_back(
        std::string(1, static_cast<char>('a' + std::llround(test.tokens.at({0, t})))));
  std::vector<book::Json> panels;
  for (std::size_t l = 0; l < weights.size(); ++l)
    panels.push_back(book::heatmap(select(weights[l], 0, 0), letters, letters,
                                   "attends to (key)", "token (query)")
                         .set("title", "layer " + std::to_string(l + 1)));
  book::figure("induction_weights", book::side_by_side(panels));
}

InductionRun two_layer_run(std::uint64_t seed) {
  Generator gen(seed);
  AttentionOnly model(2, gen);
  train_induction(model, gen, 3e-3, 500);
  NoGradGuard no_grad;
  Generator test_gen(1000 + seed);
  const Induction test = induction_batch(kTest, test_gen);
  std::vector<Tensor> weights;
  const Tensor predicted = argmax(model(test.tokens, &weights), 1);
  InductionRun run;
  run.accuracy = sum(eq(predicted, test.answers).to(DType::Float64)).item() / kTest;
  for (std::int64_t i = 0; i < kTest; ++i) {
    for (std::int64_t t = 1; t < kLength; ++t)
      run.previous_weight +=
          weights[0].at({i, t, t - 1}) / double(kTest * (kLength - 1));
    run.successor_weight +=
        weights[1].at({i, kLength - 1, test.copy_at[i] + 1}) / double(kTest);
  }
  if (seed == kSeeds[0]) draw_induction(test, weights);
  return run;
}

// %%
// The test trains each seed's model once and checks all three numbers.

TEST_CASE(
    "two attention layers solve the induction task, above 0.9, with layer 1 putting "
    "most of its weight on the previous position and layer 2 most on the copy's "
    "successor, for three seeds") {
  std::map<std::uint64_t, InductionRun> runs;
  for (auto seed : kSeeds) {
    runs[seed] = two_layer_run(seed);
    out() << "seed " << seed << ": two layers right on " << runs[seed].accuracy
          << "; layer 1's weight on the previous position "
          << runs[seed].previous_weight << ", layer 2's on the copy's successor "
          << runs[seed].successor_weight << "\n";
  }
  book::check_seeds("accuracy of two layers", "on 4,096 fresh sequences",
                    book::above(0.9), kSeeds,
                    [&](std::uint64_t seed) { return runs[seed].accuracy; });
  book::check_seeds("previous-position weight", "layer 1's mean weight from t on t - 1",
                    book::above(0.5), kSeeds,
                    [&](std::uint64_t seed) { return runs[seed].previous_weight; });
  book::check_seeds("successor weight",
                    "layer 2's mean weight from the last token on the copy's successor",
                    book::above(0.5), kSeeds,
                    [&](std::uint64_t seed) { return runs[seed].successor_weight; });
}

// %% 6 · The packaged block
//
// :cpp:class:`litgrad::nn::TransformerEncoderLayer` is torch's block. With
// ``norm_first`` it is section 2's pre-norm block and without it the post-norm one,
// with ``activation = "gelu"`` and ``dim_feedforward`` four times the width its
// feed-forward part, and with ``dropout = 0`` nothing random. Give it the hand-built
// block's weights (its parameters, in torch's names, are ``self_attn.*``, ``linear1``,
// ``linear2``, ``norm1`` and ``norm2``), and it should compute the same thing. The test
// first draws every parameter of the hand-built block at random, the norms' scales and
// shifts included (they start at 1 and 0 in both norms, which would hide a mix-up of
// the two), and copies them over. It performs the same operations in the same order, so
// the claim is the strongest possible: the two outputs are identical in every bit,
// pre-norm and post-norm, with and without the causal mask.
//
// Why *encoder*? In the Transformer of 2017, made for translation, an encoder read the
// source sentence with blocks like these, and a decoder wrote the translation with
// blocks that also attend to the encoder's output (torch's
// ``TransformerDecoderLayer``, which has a second attention for that). A model that
// only continues text, like GPT and chapter 10's, has no source to attend to: its block
// is self-attention and a feed-forward network, that is, the encoder's block, with the
// causal mask. The names describe the roles in the translation model, not whether a
// block may look ahead.

TEST_CASE(
    "nn::TransformerEncoderLayer with GELU is the hand-built block: identical outputs, "
    "bit for bit, pre-norm and post-norm, with and without the causal mask") {
  const std::vector<std::pair<std::string, std::string>> names = {
      {"attention.in_proj_weight", "self_attn.in_proj_weight"},
      {"attention.in_proj_bias", "self_attn.in_proj_bias"},
      {"attention.out_proj.weight", "self_attn.out_proj.weight"},
      {"attention.out_proj.bias", "self_attn.out_proj.bias"},
      {"up.weight", "linear1.weight"},
      {"up.bias", "linear1.bias"},
      {"down.weight", "linear2.weight"},
      {"down.bias", "linear2.bias"},
      {"norm1.weight", "norm1.weight"},
      {"norm1.bias", "norm1.bias"},
      {"norm2.weight", "norm2.weight"},
      {"norm2.bias", "norm2.bias"}};
  const auto find = [](const std::vector<std::pair<std::string, Tensor>>& list,
                       const std::string& name) {
    for (const auto& [n, t] : list)
      if (n == name) return t;
    FAIL("no parameter " << name);
    return Tensor();
  };
  int differing = 0, copied = 0;
  for (bool pre_norm : {true, false}) {
    Generator gen(6);
    Parts parts;
    parts.pre_norm = pre_norm;
    Block block(16, 2, gen, parts);
    nn::TransformerEncoderLayerOptions o;
    o.dim_feedforward = 64, o.dropout = 0, o.activation = "gelu", o.batch_first = true,
    o.norm_first = pre_norm;
    nn::TransformerEncoderLayer layer(16, 2, o, gen);
    const auto mine = block.named_parameters(), theirs = layer.named_parameters();
    {
      NoGradGuard no_grad;
      for (const auto& [from, to] : names) {
        Tensor t = find(mine, from);
        t.copy_(randn(t.shape(), gen));  // every parameter random, the norms' included
        find(theirs, to).copy_(t), ++copied;
      }
    }
    const Tensor x = randn({3, 8, 16}, gen);
    const Tensor mask = generate_square_subsequent_mask(8);
    differing += differing_bits(block(x), layer(x)) +
                 differing_bits(block(x, mask, true), layer(x, mask, Tensor(), true));
  }
  book::check("parameters copied", copied, "12 for each arrangement",
              book::exactly(24));
  book::check("differing numbers", differing, "of 4 × 384 outputs", book::exactly(0));
}

// %%
// A stack of such blocks, with token and position embeddings below and a read-out
// above, is a Transformer. The next chapter, :doc:`10_language_model`, trains one on
// the words of a dictionary, and lets it write.

// %% fold: the end of the file's namespace
}  // namespace
