// Exercise 8.2 · Several heads, and the layer torch calls MultiheadAttention
// ==========================================================================
//
// Uses your answer to exercise 08.1.
//
// Section 5 showed that :cpp:class:`litgrad::nn::MultiheadAttention` is several heads
// side by side. Build it from your head of exercise 8.1: write
// ``multi_head_attention(x, layer, mask)``, which computes what ``layer(x, x, x)``
// gives with the same mask, every step yours, taking from ``layer`` only its weights.
//
// ``x`` is ``[L, E]`` or ``[B, L, E]``, batch first whatever the layer's options say
// (the tests' layers are built ``batch_first``, so that ``layer(x, x, x)`` reads it so
// too; section 5 shows what the default layer would do); ``layer`` has :math:`H` heads
// (``layer.num_heads``) of :math:`d = E / H` features each, and keeps its weights as
// torch does, each projection as ``[out, in]`` so that a token :math:`x` (a row)
// becomes :math:`x W^T + b`:
//
// * ``layer.in_proj_weight``, ``[3E, E]``: rows :math:`0` to :math:`E - 1` are
//   :math:`W_q^T`, rows :math:`E` to :math:`2E - 1` are :math:`W_k^T`, rows :math:`2E`
//   to :math:`3E - 1` are :math:`W_v^T`, with :math:`W_q, W_k, W_v` the ``[E, E]``
//   matrices of section 3 (a token becomes :math:`x W_q`);
// * ``layer.in_proj_bias``, ``[3E]``: :math:`b_q`, :math:`b_k`, :math:`b_v`, in that
//   order;
// * ``layer.out_proj.weight``, ``[E, E]``, is :math:`W_o^T`, and
//   ``layer.out_proj.bias`` is :math:`b_o`.
//
// Head :math:`h` owns features :math:`hd` to :math:`(h + 1)d - 1` of the queries, keys
// and values: its projections are those :math:`d` columns of :math:`W_q`, :math:`W_k`,
// :math:`W_v` and the same entries of their biases. Run your head on each, lay the
// :math:`H` outputs side by side (head :math:`h`'s :math:`d` features at :math:`hd`, so
// each token has :math:`E` again), then project once: :math:`o W_o + b_o`. The tests
// hold your numbers to the layer's within twice the rounding allowance of
// ``chapters/exercises/rounding_allowance.hpp``, carried through the output
// projection.

// %% hint
// Draw the ``[3E, E]`` matrix as three stacked blocks of :math:`E` rows and mark the
// rows that belong to head 1 when :math:`H = 2`: which rows, and does your head want
// them as ``[d, E]`` or ``[E, d]``? :cpp:func:`litgrad::slice` takes rows,
// :cpp:func:`litgrad::transpose` turns them, :cpp:func:`litgrad::cat` lays tensors side
// by side along a dimension you name: which dimension holds a token's features, in both
// ``[L, d]`` and ``[B, L, d]``? Check the last step against :math:`x W^T + b` once
// more.

// %% fold: includes, the library's head, and what each catalogued mistake computes
#include <doctest/doctest.h>

#include <array>
#include <cmath>
#include <string>
#include <vector>

#include <litgrad/litgrad.hpp>

#include "rounding_allowance.hpp"
#include "exercise_checks.hpp"
#include "your_gpt.hpp"

using namespace litgrad;

namespace {
// The options of the tests' layers: batch_first, so that a batch is [B, L, E].
nn::MultiheadAttentionOptions batch_first() {
  nn::MultiheadAttentionOptions options;
  options.batch_first = true;
  return options;
}

// Random biases for the layer (torch starts them at 0, which would hide a forgotten
// one).
void randomise_biases(nn::MultiheadAttention& layer, Generator& gen) {
  NoGradGuard no_grad;
  layer.in_proj_bias.copy_(randn({3 * layer.embed_dim}, gen) * 0.5);
  layer.out_proj.bias.copy_(randn({layer.embed_dim}, gen) * 0.5);
}

// The ways of assembling heads that the catalogue's mistakes take, and the right one.
struct Assembly {
  bool interleaved = false;          // head h takes every H-th feature from h
  std::int64_t q = 0, k = 1, v = 2;  // the blocks taken as queries, keys, values
  bool mask_dropped = false;         // the heads attend without the mask
  bool in_not_transposed = false;    // in_proj_weight's rows used as [E, d] columns
  bool out_not_transposed = false, out_bias_left_out = false;
  bool joined_along_tokens = false;  // heads concatenated along L, then reshaped
};

// Head h's projections as the assembly `a` takes them.
HeadProjections projections(const nn::MultiheadAttention& layer, std::int64_t h,
                            const Assembly& a) {
  const std::int64_t E = layer.embed_dim, H = layer.num_heads, d = E / H;
  const auto rows = [&](const Tensor& t, std::int64_t block) {
    return a.interleaved ? slice(t, 0, block * E + h, (block + 1) * E, H)
                         : slice(t, 0, block * E + h * d, block * E + (h + 1) * d);
  };
  const auto W = [&](std::int64_t block) {
    const Tensor r = rows(layer.in_proj_weight, block);
    return a.in_not_transposed ? r : transpose(r, 0, 1);
  };
  return {W(a.q),
          W(a.k),
          W(a.v),
          rows(layer.in_proj_bias, a.q),
          rows(layer.in_proj_bias, a.k),
          rows(layer.in_proj_bias, a.v)};
}

// The library's head on the projections.
Tensor library_head(const Tensor& x, const HeadProjections& p, const Tensor& mask) {
  return scaled_dot_product_attention(matmul(x, p.W_q) + p.b_q,
                                      matmul(x, p.W_k) + p.b_k,
                                      matmul(x, p.W_v) + p.b_v, mask)
      .output;
}

Tensor assembled(const Tensor& x, const nn::MultiheadAttention& layer,
                 const Tensor& mask, const Assembly& a) {
  std::vector<Tensor> heads;
  for (std::int64_t h = 0; h < layer.num_heads; ++h)
    heads.push_back(
        library_head(x, projections(layer, h, a), a.mask_dropped ? Tensor() : mask));
  const Tensor joined =
      a.joined_along_tokens ? reshape(cat(heads, -2), x.shape()) : cat(heads, -1);
  const Tensor W_o = a.out_not_transposed ? layer.out_proj.weight
                                          : transpose(layer.out_proj.weight, 0, 1);
  const Tensor out = matmul(joined, W_o);
  return a.out_bias_left_out ? out : out + layer.out_proj.bias;
}

std::string mistake_behind(const Tensor& x, const nn::MultiheadAttention& layer,
                           const Tensor& mask, const Tensor& yours) {
  std::vector<std::pair<Assembly, std::string>> mistakes;
  const auto add = [&](Assembly a, const std::string& name) {
    mistakes.push_back({a, name});
  };
  Assembly a;
  a.interleaved = true;
  add(a,
      "heads split along the wrong axis: head 0 has every H-th feature, not the "
      "first d");
  const char* names[] = {"queries", "keys", "values"};
  for (const std::array<std::int64_t, 3>& order :
       std::vector<std::array<std::int64_t, 3>>{
           {1, 0, 2}, {0, 2, 1}, {2, 1, 0}, {1, 2, 0}, {2, 0, 1}}) {
    a = {}, a.q = order[0], a.k = order[1], a.v = order[2];
    add(a, std::string("the blocks of in_proj_weight taken in the wrong order: your "
                       "queries, keys and values come from the blocks of the ") +
               names[order[0]] + ", " + names[order[1]] + " and " + names[order[2]]);
  }
  a = {}, a.mask_dropped = true;
  add(a, "the mask not passed to the heads");
  a = {}, a.in_not_transposed = true;
  add(a, "the input projections not transposed");
  a = {}, a.out_not_transposed = true;
  add(a, "the output projection not transposed");
  a = {}, a.out_bias_left_out = true;
  add(a, "the output projection's bias left out");
  a = {}, a.joined_along_tokens = true;
  add(a, "heads concatenated along the tokens");
  const std::string name = exercise::the_mistake(mistakes, [&](const Assembly& m) {
    return bool(exercise::agrees(yours, assembled(x, layer, mask, m), 1e-9));
  });
  return name.empty() ? "" : "your output is the output of " + name + " (to 1e-9)";
}

// Your layer on x, run with copies of what it is handed kept (a layer that changes its
// inputs in place is told so), then checked against the library's; a product of the
// wrong shapes is reported as a failed check, naming the mistake when the shapes are
// exactly that mistake's: a head's stored rows [d, E] met by tokens [.., E].
void check_layer(const Tensor& x, const nn::MultiheadAttention& layer,
                 const Tensor& mask) {
  const exercise::Untouched inputs({{"x", x},
                                    {"mask", mask},
                                    {"in_proj_weight", layer.in_proj_weight},
                                    {"in_proj_bias", layer.in_proj_bias},
                                    {"out_proj.weight", layer.out_proj.weight},
                                    {"out_proj.bias", layer.out_proj.bias}});
  Tensor yours;
  const std::int64_t E = layer.embed_dim, d = E / layer.num_heads;
  try {
    yours = multi_head_attention(x, layer, mask);
  } catch (const ShapeError& e) {
    const std::string what = e.what();
    if (exercise::met_as_stored(what, Shape{d, E}))
      FAIL("a product met a head's rows of in_proj_weight as they are stored, ",
           to_string(Shape{d, E}),
           ": this points to the input projections not transposed (", what, ")");
    FAIL("shapes that do not fit: ", what);
  }
  const std::string changed = inputs.changed();
  REQUIRE_MESSAGE(changed.empty(), changed);
  REQUIRE_MESSAGE(yours.defined(), "your layer returned an undefined Tensor");
  NoGradGuard no_grad;
  const Tensor expected = layer(x, x, x, {}, false, mask).output;
  const std::string why = exercise::quietly(mistake_behind, x, layer, mask, yours);
  INFO(why);
  CHECK(exercise::within(yours, expected,
                         2 * exercise::attention_layer_allowance(x, layer, mask)));
}
}  // namespace

// %%
// The function to write, in ``exercises/08_attention/2_multi_head.cpp``; it calls
// ``attention_head``, yours from exercise 8.1 once that passes, until then the
// reference solution's:

Tensor multi_head_attention(const Tensor& x, const nn::MultiheadAttention& layer,
                            const Tensor& mask);

// %%
// The tests.

TEST_CASE("one head, one sentence: your layer gives nn::MultiheadAttention's output") {
  Generator gen(21);
  nn::MultiheadAttention layer(8, 1, batch_first(), gen);
  randomise_biases(layer, gen);
  check_layer(randn({6, 8}, gen), layer, Tensor());
}

TEST_CASE("two heads of four features: your layer gives the library layer's output") {
  Generator gen(22);
  nn::MultiheadAttention layer(8, 2, batch_first(), gen);
  randomise_biases(layer, gen);
  check_layer(randn({6, 8}, gen), layer, Tensor());
}

TEST_CASE(
    "a batch [3, 5, 8], four heads of two features and the causal mask: your layer "
    "gives the library layer's output") {
  Generator gen(23);
  nn::MultiheadAttention layer(8, 4, batch_first(), gen);
  randomise_biases(layer, gen);
  check_layer(randn({3, 5, 8}, gen), layer, generate_square_subsequent_mask(5));
}

TEST_CASE(
    "your layer leaves the caller's x, mask and the layer's weights exactly as they "
    "were, and gives E features per token") {
  Generator gen(24);
  nn::MultiheadAttention layer(6, 2, batch_first(), gen);
  randomise_biases(layer, gen);
  const Tensor x = randn({2, 4, 6}, gen), mask = generate_square_subsequent_mask(4);
  check_layer(x, layer, mask);
  CHECK(multi_head_attention(x, layer, mask).shape() == Shape{2, 4, 6});
}
