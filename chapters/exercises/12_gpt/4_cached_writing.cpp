// Exercise 12.4 · Your GPT writes with a cache
// ============================================
//
// Uses your answer to exercise 12.2.
//
// Writing by recomputing, as your ``write_greedily`` of exercise 12.3 does, runs the
// whole window through every block again for each new token. Section 5's cache runs
// only the new token: in every block, every head keeps the keys and values of the
// tokens it has seen, and the new token's query attends to those and its own. Your
// ``decode_step`` of exercise 12.2 is one head's step; here you run it in every head
// of every block, and write with it. Write two functions.
//
// ``cached_scores(gpt, token, cache)`` feeds one token id at the next position (the
// number of keys any head's cache holds: 0 for the first token, when a
// ``HeadCache``'s tensors are still undefined) and returns the scores for the token
// after it, ``[V]``. ``cache.blocks`` is empty until the first token: size it then, one
// ``HeadCache`` for each of each block's heads. The step does, for one vector of
// ``[E]`` numbers, what exercise 12.3's GPT does for a window:
//
// 1. the vector: the token's row of the token table plus the position's row of the
//    position table;
// 2. in each block ``l``, the first norm (``block.norm1``); the query, key and value,
//    ``W x + b`` with ``self_attn.in_proj_weight``, stored ``[3E, E]``, and
//    ``in_proj_bias``, the three one after the other; for each head :math:`h` its
//    :math:`d = E / H` numbers of each, through ``decode_step`` with the cache
//    ``cache.blocks[l][h]``; the heads' outputs joined in order, through
//    ``self_attn.out_proj`` (weight stored ``[E, E]``), added to the vector;
// 3. still in the block, the second norm (``block.norm2``), the feed-forward network
//    ``block.linear1`` (weight ``[F, E]``), GELU and ``block.linear2`` (``[E, F]``),
//    added to the vector again;
// 4. after the last block, the final norm and the tied read-out: the token table
//    times the vector.
//
// Call the modules (``block.norm1(x)``, ``out_proj(y)``, ...) or write their products
// yourself, as you like.
//
// ``write_with_cache(gpt, tokens, count)`` writes as ``write_greedily`` does: the
// prompt ``tokens`` (at least one) followed by ``count`` tokens, each the most likely
// after at most the :math:`T` newest. Feed the prompt's newest :math:`T` tokens one by
// one; the last step's scores choose the first token written. Then feed each token
// written, once, to choose the next. A cache full of :math:`T` tokens cannot take
// another: the position table ends at :math:`T - 1`, and every cached key was computed
// from its token's position, so dropping the oldest would leave keys whose positions
// no longer count from 0. Start a fresh cache instead, and feed it the newest
// :math:`T` tokens, the one just written included, at positions 0 to :math:`T - 1`.
//
// The tests hold your scores to the library GPT's within twice the rounding allowance
// of exercise 12.3, and what your caches hold to the keys and values the library's
// blocks compute; your writing to the library's, token for token, where rounding
// cannot decide; and they count your writing's arithmetic with ``FlopCounter``.

// %% hint
// Keep one vector, ``[E]``, for the token from the start to the read-out:
// ``select`` gives a table's row; ``matmul`` of a stored ``[out, in]`` matrix and a
// vector ``[in]`` gives ``[out]``; ``slice`` cuts a head's numbers out of the
// ``[3E]``. The position of the next token is how many keys any head's cache holds.
// When writing, which tokens must be fed before the first token is chosen, and does
// the last token written need feeding?

// %% fold: includes, a cached step with each catalogued mistake, and what yours is
#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <string>
#include <vector>

#include <litgrad/litgrad.hpp>

#include "exercise_checks.hpp"
#include "rounding_allowance.hpp"
#include "small_gpt.hpp"  // the chapter's model made small, and its writing
#include "your_gpt.hpp"

using namespace litgrad;

namespace {
using namespace small_gpt;

// What a variant of the cached step changes: the catalogued mistakes, each a switch.
struct Step {
  bool position_stays = false;  // every token at position 0
  bool one_cache = false;       // every block appends to the first block's caches,
  bool counted = false;        // the position their length, or (counted) the tokens fed
  bool no_first_norm = false;  // q, k, v from the stream itself
  bool query_thrice = false;   // the key's and value's numbers read from the query's
};

// The caches of the test's own step: per block, keys and values [H, s, d].
struct Caches {
  std::vector<Tensor> keys = std::vector<Tensor>(kLayers),
                      values = std::vector<Tensor>(kLayers);
  std::int64_t seen = 0;
  bool slide = false;  // when full, the oldest dropped (a catalogued writing mistake)
};

// One cached step of the library's modules, all heads at once: the token's scores [V].
Tensor step(const SmallGPT& m, std::int64_t token, Caches& c, const Step& v = {}) {
  NoGradGuard no_grad;
  const auto at = [](std::int64_t i) { return tensor({double(i)}, {1}, DType::Int64); };
  std::int64_t position = v.position_stays ? 0 : c.seen;
  if (v.one_cache && !v.counted) position = c.keys[0].defined() ? c.keys[0].size(1) : 0;
  if (c.slide && c.seen == kContext) {
    for (std::int64_t l = 0; l < kLayers; ++l) {
      c.keys[l] = slice(c.keys[l], 1, 1, kContext);
      c.values[l] = slice(c.values[l], 1, 1, kContext);
    }
    position = c.seen = kContext - 1;
  }
  Tensor x = m.token(at(token)) + m.position(at(position));  // [1, E]
  for (std::int64_t l = 0; l < kLayers; ++l) {
    const nn::TransformerEncoderLayer& block = m.block(l);
    const nn::MultiheadAttention& a = block.self_attn;
    const std::int64_t E = a.embed_dim, H = a.num_heads, d = E / H;
    const Tensor qkv = nn::linear(v.no_first_norm ? x : block.norm1(x),
                                  a.in_proj_weight, a.in_proj_bias);
    const auto heads = [&](std::int64_t b) {  // [1, E] -> [H, 1, d]
      return slice(qkv, 1, b * E, (b + 1) * E).reshape({H, 1, d});
    };
    const Tensor q = heads(0), k = heads(v.query_thrice ? 0 : 1),
                 value = heads(v.query_thrice ? 0 : 2);
    const std::int64_t slot = v.one_cache ? 0 : l;
    Tensor &keys = c.keys[slot], &values = c.values[slot];
    keys = keys.defined() ? cat({keys, k}, 1) : k;  // [H, s + 1, d]
    values = values.defined() ? cat({values, value}, 1) : value;
    const Tensor w =
        softmax(matmul(q, transpose(keys, 1, 2)) / std::sqrt(double(d)), -1);
    x = x + a.out_proj(matmul(w, values).reshape({1, E}));
    x = x + block.linear2(gelu(block.linear1(block.norm2(x))));
  }
  ++c.seen;
  return matmul(m.norm(x), transpose(m.token.weight, 0, 1)).reshape({kVocabulary});
}

// The test's own steps over `tokens` from empty caches: the scores after each, [n, V].
Tensor stepped(const SmallGPT& m, const std::vector<std::int64_t>& tokens,
               const Step& v = {}) {
  Caches c;
  std::vector<Tensor> rows;
  for (std::int64_t token : tokens)
    rows.push_back(step(m, token, c, v).reshape({1, -1}));
  return cat(rows, 0);
}

const std::vector<std::pair<Step, std::string>> kStepMistakes = {
    {{true, false, false, false, false}, "the position not advanced"},
    {{false, true, false, false, false}, "one cache shared by every block"},
    {{false, true, true, false, false}, "one cache shared by every block"},
    {{false, false, false, true, false}, "the block's first norm left out"},
    {{false, false, false, false, true},
     "the query's numbers used as the key and value"}};

std::string step_mistake(const SmallGPT& m, const std::vector<std::int64_t>& tokens,
                         const Tensor& yours) {
  const std::string name = exercise::the_mistake(kStepMistakes, [&](const Step& v) {
    return bool(exercise::agrees(yours, stepped(m, tokens, v), 1e-9));
  });
  return name.empty() ? "" : "your scores are those of " + name + " (to 1e-9)";
}

// The catalogued mistake whose steps stop, as yours did, at token `at` of `tokens`.
std::string stopping_mistake(const SmallGPT& m, const std::vector<std::int64_t>& tokens,
                             std::size_t at) {
  const std::string name = exercise::the_mistake(kStepMistakes, [&](const Step& v) {
    Caches c;
    for (std::size_t t = 0; t < tokens.size(); ++t) try {
        step(m, tokens[t], c, v);
      } catch (const std::exception&) {
        return t == at;
      }
    return false;
  });
  return name.empty() ? "" : ": the test's own step with " + name + " stops there too";
}

std::vector<std::int64_t> ids_of(const Tensor& ids) {  // [1, n] -> n ids
  std::vector<std::int64_t> out;
  for (double id : ids.to_vector()) out.push_back(static_cast<std::int64_t>(id));
  return out;
}

// Your cached_scores on `tokens`, one by one, from an empty cache: [n, V]; an
// exception, an undefined or misshapen result, or a weight changed is a failed check.
Tensor yours_stepped(const SmallGPT& m, const std::vector<std::int64_t>& tokens,
                     GPTCache& cache) {
  const exercise::Untouched weights(
      {{"token.weight", m.token.weight}, {"position.weight", m.position.weight}});
  std::vector<Tensor> rows;
  for (std::size_t t = 0; t < tokens.size(); ++t) {
    Tensor scores;
    try {
      scores = cached_scores(m.weights(), tokens[t], cache);
    } catch (const std::exception& e) {
      const std::string what = e.what();
      FAIL("your cached_scores stopped at token ", t, " of ", tokens.size(), " (", what,
           ")", exercise::quietly(stopping_mistake, m, tokens, t));
    }
    REQUIRE_MESSAGE(scores.defined(),
                    "your cached_scores returned an undefined Tensor");
    REQUIRE_MESSAGE(scores.shape() == Shape{kVocabulary}, "at token ", t,
                    " your scores have the shape ", to_string(scores.shape()),
                    " where [V] = [", kVocabulary, "] was expected");
    rows.push_back(scores.reshape({1, kVocabulary}));
  }
  const std::string changed = weights.changed();
  REQUIRE_MESSAGE(changed.empty(), changed);
  return cat(rows, 0);
}

// How your writing goes wrong, as the test's own writing with each catalogued mistake.
enum class Feeding { right, slide, prompt_twice };

std::vector<std::int64_t> stepped_writing(const SmallGPT& m,
                                          std::vector<std::int64_t> tokens, int count,
                                          Feeding how) {
  Caches c;
  c.slide = how == Feeding::slide;
  Tensor scores;
  const auto fill = [&](std::int64_t n) {
    c = Caches{};
    c.slide = how == Feeding::slide;
    for (auto t = tokens.end() - n; t != tokens.end(); ++t) scores = step(m, *t, c);
  };
  fill(std::min<std::int64_t>(tokens.size(), kContext));
  if (how == Feeding::prompt_twice) scores = step(m, tokens.back(), c);
  for (int i = 0; i < count; ++i) {
    tokens.push_back(static_cast<std::int64_t>(argmax(scores).item()));
    if (i + 1 == count) break;
    if (c.seen < kContext || c.slide)
      scores = step(m, tokens.back(), c);
    else
      fill(kContext);
  }
  return tokens;
}

std::string writing_mistake(const SmallGPT& m, const std::vector<std::int64_t>& prompt,
                            int count, const std::vector<std::int64_t>& yours) {
  const std::vector<std::pair<Feeding, std::string>> mistakes = {
      {Feeding::slide, "the oldest key dropped when the cache is full"},
      {Feeding::prompt_twice, "the prompt's last token fed twice"}};
  const std::string name = exercise::the_mistake(mistakes, [&](Feeding how) {
    return stepped_writing(m, prompt, count, how) == yours;
  });
  return name.empty() ? "" : "your tokens are those of " + name;
}

void check_writing(const SmallGPT& model, const std::vector<std::int64_t>& prompt,
                   int count) {
  std::vector<std::int64_t> yours;
  try {
    yours = write_with_cache(model.weights(), prompt, count);
  } catch (const std::exception& e) {
    const std::string what = e.what();
    const bool past = what.find("out of range") != std::string::npos;
    const std::string why = past ? "; the position table has rows 0 to T - 1 = 7, so a "
                                   "cache that holds T tokens cannot take another"
                                 : "";
    FAIL("writing stopped: ", what, why);
  }
  check_tokens(model, prompt, count, yours,
               exercise::quietly(writing_mistake, model, prompt, count, yours));
}
}  // namespace

// %%
// The functions to write, in ``exercises/12_gpt/4_cached_writing.cpp`` (``GPTCache``
// and ``HeadCache`` are in ``chapters/exercises/your_gpt.hpp``); they call
// ``decode_step``, yours from exercise 12.2 once that passes, until then the reference
// solution's:

Tensor cached_scores(const GPTWeights& gpt, std::int64_t token, GPTCache& cache);
std::vector<std::int64_t> write_with_cache(const GPTWeights& gpt,
                                           std::vector<std::int64_t> tokens, int count);

// %%
// The tests.

TEST_CASE(
    "fed a full window one token at a time, your cached_scores gives at each step the "
    "library GPT's scores for that position") {
  Generator gen(41);
  const SmallGPT model(gen);
  const Tensor ids = random_ids(1, kContext, gen);
  GPTCache cache;
  const Tensor yours = yours_stepped(model, ids_of(ids), cache);
  const std::string why = exercise::quietly(step_mistake, model, ids_of(ids), yours);
  INFO(why);
  CHECK(exercise::within(yours, select(library_scores(model, ids), 0, 0),
                         2 * select(scores_allowance(model, ids), 0, 0)));
}

TEST_CASE(
    "after 5 tokens each head of each block caches the 5 keys and values the library's "
    "block computes for it") {
  Generator gen(42);
  const SmallGPT model(gen);
  const Tensor ids = random_ids(1, 5, gen);
  GPTCache cache;
  const Tensor yours = yours_stepped(model, ids_of(ids), cache);
  const std::string why = exercise::quietly(step_mistake, model, ids_of(ids), yours);
  INFO(why);
  REQUIRE_MESSAGE(cache.blocks.size() == std::size_t(kLayers), "your cache has ",
                  cache.blocks.size(), " blocks where the model has ", kLayers);
  // Block by block, the library's input to the block and how far rounding may put the
  // reader's from it; then each head's keys and values, as the library computes them.
  NoGradGuard no_grad;
  const Tensor mask = generate_square_subsequent_mask(5);
  Tensor x = model.token(ids) + model.position(arange(5)), error;
  for (std::int64_t l = 0; l < kLayers; ++l) {
    const nn::TransformerEncoderLayer& block = model.block(l);
    const nn::MultiheadAttention& a = block.self_attn;
    REQUIRE_MESSAGE(cache.blocks[l].size() == std::size_t(a.num_heads), "block ", l,
                    " of your cache has ", cache.blocks[l].size(),
                    " heads where the block has ", a.num_heads);
    const Tensor n1 = block.norm1(x);
    const Tensor n1_error = error.defined()
                                ? exercise::layer_norm_allowance(x, error, block.norm1)
                                : Tensor();
    for (std::int64_t h = 0; h < a.num_heads; ++h) {
      const HeadProjections p = exercise::head_projections(a, h);
      const HeadCache& held = cache.blocks[l][h];
      INFO("block ", l, ", head ", h);
      REQUIRE_MESSAGE(held.keys.defined(), "no keys cached");
      REQUIRE_MESSAGE(held.values.defined(), "no values cached");
      for (const auto& [what, W, b, cached] :
           {std::tuple{std::string("keys"), p.W_k, p.b_k, held.keys},
            std::tuple{std::string("values"), p.W_v, p.b_v, held.values}}) {
        const Tensor expected = select(matmul(n1, W) + b, 0, 0);  // [5, d]
        const Tensor allowed =
            select(exercise::linear_allowance(n1, n1_error, W, b), 0, 0);
        CHECK_MESSAGE(exercise::within(cached, expected, 2 * allowed), "the cached ",
                      what);
      }
    }
    error = exercise::pre_norm_block_allowance(block, x, mask, error);
    x = block(x, mask);
  }
}

// %%
// The writing tests use exercise 12.3's two trained models: one counts in threes, and
// 14 tokens after a prompt of 3 run past the context of 8, so the cache fills and must
// start again; the other, from a full window of 8, writes the window's first token
// again (from a shorter one, the token one up from the last), so from a prompt of 11
// it continues only if every step sees exactly the newest 8 tokens at positions 0 to
// 7, and from a prompt of 7 its first token is one up from the prompt's last only if
// the cache holds the 7 tokens, each once.

TEST_CASE(
    "your cached writing writes the library GPT's tokens where rounding cannot decide, "
    "past the context") {
  check_writing(counting_model(), {3, 6, 9}, 14);
}

TEST_CASE(
    "from a prompt one token short of the context, your cached writing writes what the "
    "library GPT writes") {
  check_writing(repeating_model(), {30, 1, 4, 1, 5, 9, 2}, 3);
}

TEST_CASE(
    "from a prompt longer than the context, your cached writing writes what the "
    "library GPT writes from the text's last T tokens") {
  check_writing(repeating_model(), {1, 2, 3, 5, 8, 13, 21, 34, 1, 2, 3}, 8);
}

// %%
// What the cache saves. Writing 7 tokens after a prompt of 1, all within the context,
// feeds 7 tokens through the model one at a time; the last one written needs no
// feeding, but an answer that feeds it anyway feeds 8, at most 8/7 of the work. Writing
// that starts a fresh cache for each token feeds 1 + 2 + ... + 7 = 28, four times as
// many. ``FlopCounter`` counts the matrix products' operations of your writing, and the
// test allows 1.5 times those of the test's own 7 steps, between the two.

TEST_CASE(
    "within the context, your cached writing does at most 1.5 times the arithmetic of "
    "feeding each token through once") {
  const SmallGPT& model = counting_model();
  check_writing(model, {3}, 7);  // first, the right tokens
  // The operations of the test's own steps over n tokens (they depend on n alone).
  const auto steps_of = [&](std::int64_t n) {
    FlopCounter counter;
    stepped(model, std::vector<std::int64_t>(n, 3));
    return counter.total_flops();
  };
  std::int64_t anew = 0;  // a fresh cache for each token: 1 + 2 + ... + 7 steps
  for (std::int64_t n = 1; n <= 7; ++n) anew += steps_of(n);
  const std::int64_t once = steps_of(7);
  std::int64_t yours = 0;
  {
    FlopCounter counter;
    try {
      write_with_cache(model.weights(), {3}, 7);
    } catch (const std::exception& e) {
      const std::string what = e.what();
      FAIL("writing stopped: ", what);
    }
    yours = counter.total_flops();
  }
  const std::string why =
      std::fabs(double(yours - anew)) <= 0.02 * double(anew)
          ? "your writing does the operations of a fresh cache for each token: this "
            "points to the cache started again for every token written"
          : "";
  INFO(why);
  INFO("operations: yours ", yours, ", feeding each token once ", once,
       ", a fresh cache for each token ", anew);
  CHECK(double(yours) <= 1.5 * double(once));
}
