// Exercise 9.2 · Your pre-norm block, trained
// ===========================================
//
// Uses your answers to exercises 08.1 and 08.2.
//
// The next piece of your own GPT: section 2's pre-norm block, built on your multi-head
// layer of exercise 8.2. Write ``pre_norm_block(layer, x, mask)``, the forward pass
//
// .. math::
//
//    h &= x + \operatorname{Attn}(\operatorname{LN}_1(x)), \\ \text{out} &= h +
//    \mathrm{GELU}(\operatorname{LN}_2(h) W_1^T + b_1) W_2^T + b_2,
//
// for a batch ``x`` of ``[B, L, E]``, taking from ``layer`` (a
// :cpp:class:`litgrad::nn::TransformerEncoderLayer` built ``norm_first`` with GELU)
// its weights and its two norms: call ``layer.norm1`` and ``layer.norm2`` (exercise 9.1
// wrote a layer norm by hand); compute the attention with your
// ``multi_head_attention(…, layer.self_attn, mask)``; and write the feed-forward
// network yourself from ``layer.linear1`` (``weight`` ``[F, E]``, ``bias`` ``[F]``) and
// ``layer.linear2`` (``weight`` ``[E, F]``, ``bias`` ``[E]``), kept as torch keeps a
// linear layer, applied to a row :math:`z` as :math:`z W^T + b`, with
// :cpp:func:`litgrad::gelu` between them.
//
// The tests compare your block with the layer's own forward within twice the rounding
// allowance of ``chapters/exercises/rounding_allowance.hpp``, carried through the
// block; check that with both halves' last layers zeroed the block returns its input
// exactly (the residual wiring, which holds in every bit for any right answer); and
// then train it. Section 4's model, with your block in place of the chapter's, trains
// on section 4's table task as section 4 trains it (AdamW at 0.05, 300 steps of 32
// sequences) and must end below the loss of a model that reads only one of the two
// symbols it needs, as the chapter's block does for every seed.

// %% hint
// Two residual steps, each the same shape: normalise the stream, run one part on the
// normalised copy, add the part's output to the stream itself (not to its normalised
// copy). Which tensor is the stream when the second step starts? For the feed-forward
// network, write :math:`z W^T + b` with :cpp:func:`litgrad::matmul` and
// :cpp:func:`litgrad::transpose`, and check each product's shapes against ``[B, L,
// E]``, ``[F, E]`` and ``[E, F]``.

// %% fold: includes, the layers the tests use, and what a wrong block points to
#include <doctest/doctest.h>

#include <cmath>
#include <string>
#include <vector>

#include <litgrad/litgrad.hpp>

#include "exercise_checks.hpp"
#include "rounding_allowance.hpp"
#include "your_gpt.hpp"

using namespace litgrad;

namespace {
nn::TransformerEncoderLayerOptions pre_norm_options(std::int64_t feed_forward) {
  nn::TransformerEncoderLayerOptions o;
  o.dim_feedforward = feed_forward, o.dropout = 0, o.activation = "gelu",
  o.batch_first = true, o.norm_first = true;
  return o;
}

// A layer as training leaves it: its norms' scales and shifts, and its biases, no
// longer the ones and zeros they start from, and different from each other.
void look_trained(nn::TransformerEncoderLayer& layer, Generator& gen) {
  NoGradGuard no_grad;
  for (Tensor t : {layer.norm1.weight, layer.norm2.weight})
    t.copy_(1 + 0.5 * randn(t.shape(), gen));
  for (Tensor t : {layer.norm1.bias, layer.norm2.bias, layer.self_attn.in_proj_bias,
                   layer.self_attn.out_proj.bias})
    t.copy_(0.5 * randn(t.shape(), gen));
}

// Your block, with an operation on shapes that do not fit reported as a failed check
// (and the mistake it points to when the shapes say which).
Tensor your_block(const nn::TransformerEncoderLayer& layer, const Tensor& x,
                  const Tensor& mask) {
  Tensor yours;
  try {
    yours = pre_norm_block(layer, x, mask);
  } catch (const ShapeError& e) {
    const std::string what = e.what();
    for (const Tensor* W : {&layer.linear1.weight, &layer.linear2.weight}) {
      if (exercise::met_as_stored(what, W->shape()))
        FAIL("a product met a linear layer's weight as it is stored, ",
             to_string(W->shape()),
             ": this points to the feed-forward's weights not transposed (", what, ")");
    }
    FAIL("shapes that do not fit: ", what);
  }
  REQUIRE_MESSAGE(yours.defined(), "your block returned an undefined Tensor");
  return yours;
}

// The block with the parts a catalogued mistake changes, each a switch.
struct Variant {
  bool mask_dropped = false, norm1_twice = false, relu = false;
  bool attention_dropped = false, added_to_normalised = false;
};

Tensor variant_block(const nn::TransformerEncoderLayer& layer, const Tensor& x,
                     const Tensor& mask, const Variant& v) {
  const Tensor n1 = layer.norm1(x);
  const Tensor a =
      layer.self_attn(n1, n1, n1, Tensor(), false, v.mask_dropped ? Tensor() : mask)
          .output;
  const Tensor h = (v.added_to_normalised ? n1 : x) + a;
  const Tensor z = v.norm1_twice ? layer.norm1(h) : layer.norm2(h);
  const Tensor f = layer.linear1(z);
  const Tensor ff = layer.linear2(v.relu ? relu(f) : gelu(f));
  return (v.attention_dropped ? x : h) + ff;
}

// Which catalogued mistake `yours` is the output of, if any.
std::string mistake_behind(const nn::TransformerEncoderLayer& layer, const Tensor& x,
                           const Tensor& mask, const Tensor& yours) {
  NoGradGuard no_grad;
  const std::vector<std::pair<Variant, std::string>> mistakes = {
      {{true, false, false, false, false}, "the mask not passed to the attention"},
      {{false, true, false, false, false}, "norm1 used where norm2 belongs"},
      {{false, false, true, false, false}, "relu where the layer uses GELU"},
      {{false, false, false, true, false},
       "the attention's output dropped from the second residual"},
      {{false, false, false, false, true},
       "the attention's output added to the normalised stream"}};
  const std::string name = exercise::the_mistake(mistakes, [&](const Variant& v) {
    return bool(exercise::agrees(yours, variant_block(layer, x, mask, v), 1e-9));
  });
  return name.empty() ? "" : "your output is the output of " + name + " (to 1e-9)";
}

// Your block against the layer's own forward.
void check_block(const nn::TransformerEncoderLayer& layer, const Tensor& x,
                 const Tensor& mask) {
  const exercise::Untouched inputs(
      {{"x", x},
       {"mask", mask},
       {"norm1.weight", layer.norm1.weight},
       {"norm1.bias", layer.norm1.bias},
       {"self_attn.in_proj_weight", layer.self_attn.in_proj_weight},
       {"self_attn.in_proj_bias", layer.self_attn.in_proj_bias},
       {"self_attn.out_proj.weight", layer.self_attn.out_proj.weight},
       {"self_attn.out_proj.bias", layer.self_attn.out_proj.bias},
       {"norm2.weight", layer.norm2.weight},
       {"norm2.bias", layer.norm2.bias},
       {"linear1.weight", layer.linear1.weight},
       {"linear1.bias", layer.linear1.bias},
       {"linear2.weight", layer.linear2.weight},
       {"linear2.bias", layer.linear2.bias}});
  const Tensor yours = your_block(layer, x, mask);
  const std::string changed = inputs.changed();
  REQUIRE_MESSAGE(changed.empty(), changed);
  NoGradGuard no_grad;
  const Tensor expected = layer(x, mask);
  const std::string why = exercise::quietly(mistake_behind, layer, x, mask, yours);
  INFO(why);
  CHECK(exercise::within(yours, expected,
                         2 * exercise::pre_norm_block_allowance(layer, x, mask)));
}

// Section 4's table task: 8 symbols of 16; at each position after the first, the
// answer is T[previous][current] for a fixed random table T.
constexpr std::int64_t kSymbols = 16, kSequence = 8, kWidth = 16;

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

struct TableBatch {
  Tensor symbols, targets;  // [n, 8] each; a target of -100 is ignored
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

// The loss of knowing only one of the two symbols: the average entropy of the table's
// rows or of its columns, whichever is lower (section 4).
double knowing_one_symbol() {
  const auto entropy = [](const std::vector<double>& counts) {
    double total = 0, h = 0;
    for (double c : counts) total += c;
    for (double c : counts)
      if (c > 0) h -= c / total * std::log(c / total);
    return h;
  };
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

// Section 4's model of one block, the block yours: symbols [n, 8] -> scores [n, 8, 16].
struct YourTableModel : nn::Module {
  nn::Embedding symbol, position;
  nn::TransformerEncoderLayer block;  // the weights; your pre_norm_block computes
  nn::LayerNorm norm;
  nn::Linear readout;
  explicit YourTableModel(Generator& gen)
      : Module("YourTableModel"),
        symbol(kSymbols, kWidth, std::nullopt, gen),
        position(kSequence, kWidth, std::nullopt, gen),
        block(kWidth, 2, pre_norm_options(4 * kWidth), gen),
        norm({kWidth}),
        readout(kWidth, kSymbols, true, gen) {
    register_module("symbol", symbol), register_module("position", position);
    register_module("block", block), register_module("norm", norm);
    register_module("readout", readout);
  }
  Tensor forward(const Tensor& symbols) const {
    const Tensor x = symbol(symbols) + position(arange(kSequence).to(DType::Int64));
    const Tensor mask = generate_square_subsequent_mask(kSequence);
    return readout(norm(your_block(block, x, mask)));
  }
};
}  // namespace

// %%
// The function to write, in ``exercises/09_transformer/2_pre_norm.cpp``; it calls
// ``multi_head_attention``, yours from exercise 8.2 once that passes (and through it
// your head of 8.1), until then the reference solution's:

Tensor pre_norm_block(const nn::TransformerEncoderLayer& layer, const Tensor& x,
                      const Tensor& mask);

// %%
// The tests.

TEST_CASE("your block gives the layer's own forward, with and without the mask") {
  Generator gen(9);
  nn::TransformerEncoderLayer layer(8, 2, pre_norm_options(32), gen);
  look_trained(layer, gen);
  const Tensor x = randn({2, 5, 8}, gen);
  check_block(layer, x, generate_square_subsequent_mask(5));
  check_block(layer, x, Tensor());
}

TEST_CASE("with both halves' last layers zeroed, the block returns its input exactly") {
  Generator gen(10);
  nn::TransformerEncoderLayer layer(8, 2, pre_norm_options(32), gen);
  look_trained(layer, gen);
  {
    NoGradGuard no_grad;
    for (Tensor t : {layer.self_attn.out_proj.weight, layer.self_attn.out_proj.bias,
                     layer.linear2.weight, layer.linear2.bias})
      t.copy_(zeros(t.shape()));
  }
  const Tensor x = randn({2, 5, 8}, gen);
  const Tensor yours = your_block(layer, x, generate_square_subsequent_mask(5));
  CHECK_MESSAGE(exercise::agrees(yours, x),
                "each half adds its output to the stream, and both outputs are 0 here");
}

TEST_CASE(
    "section 4's model with your block learns the table: trained as section 4 trains "
    "it, its test loss ends below the loss of reading one symbol") {
  Generator gen(1);  // the chapter's first seed
  YourTableModel model(gen);
  optim::AdamW adam(model.parameters(), {0.05});
  for (int step = 0; step < 300; ++step) {
    const TableBatch b = table_batch(32, gen);
    adam.zero_grad();
    const Tensor loss = cross_entropy(model.forward(b.symbols).reshape({-1, kSymbols}),
                                      b.targets.reshape({-1}));
    loss.backward();
    adam.step();
  }
  NoGradGuard no_grad;
  Generator test_gen(2024);
  const TableBatch test = table_batch(1024, test_gen);
  const double loss = cross_entropy(model.forward(test.symbols).reshape({-1, kSymbols}),
                                    test.targets.reshape({-1}))
                          .item();
  INFO("your model's test loss: ", loss,
       " nats per prediction; reading one symbol: ", knowing_one_symbol());
  CHECK(loss < knowing_one_symbol());
}
