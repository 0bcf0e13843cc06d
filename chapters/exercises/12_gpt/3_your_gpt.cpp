// Exercise 12.3 · Your GPT, assembled, and writing
// ================================================
//
// Uses your answers to exercises 08.1, 08.2 and 09.2.
//
// The last piece: your own GPT, from your blocks of exercise 9.2 (which run your layer
// of 8.2, which runs your head of 8.1), as section 3 builds the chapter's. Write two
// functions.
//
// ``gpt_scores(gpt, ids)`` takes ``ids`` of shape ``[N, n]`` (token numbers, Int64,
// :math:`n` at most the context :math:`T`) and returns the scores for the next token
// at every position, ``[N, n, V]``: each token's row of the token table plus its
// position's row of the position table (positions :math:`0` to :math:`n - 1`); each
// block in turn, under the causal mask; the final norm; and the tied read-out, the
// final vectors times the token table transposed. ``gpt.token`` and ``gpt.position``
// are :cpp:class:`litgrad::nn::Embedding` modules (call them on Int64 ids, or read
// their ``weight``: ``[V, d]`` and ``[T, d]``), ``gpt.blocks`` the layers for your
// ``pre_norm_block``, ``gpt.norm`` the final :cpp:class:`litgrad::nn::LayerNorm`.
//
// ``write_greedily(gpt, tokens, count)`` writes: ``count`` times, it runs your GPT on
// the text so far, at most its last :math:`T` tokens (the model has no position beyond
// :math:`T - 1`), takes the most likely next token at the last position, and appends
// it; it returns the tokens given followed by the ``count`` written.
//
// The tests hold your scores to the chapter's model's within twice the rounding
// allowance of ``chapters/exercises/rounding_allowance.hpp``, carried block by block
// through the stack; and your writing to the library model's, token for token, at
// every step where the library's two highest scores are further apart than twice
// their allowances, where no rounding can change which is higher. Last, your GPT must
// learn: trained through your ``gpt_scores`` to count in threes, it must write the
// count on.

// %% hint
// Follow one window's shape: ``[N, n]`` ids become ``[N, n, d]`` vectors, stay
// ``[N, n, d]`` through every block, and become ``[N, n, V]`` scores; the position
// table's rows broadcast over the batch. To write, keep the whole text in ``tokens``,
// but hand the model only its newest :math:`T` tokens, as a ``[1, n]`` tensor; which of
// the :math:`n` rows of scores predicts the token after the last one?

// %% fold: includes, and what a wrong GPT points to
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

std::string mistake_behind(const SmallGPT& m, const Tensor& ids, const Tensor& yours) {
  const std::vector<std::pair<Variant, std::string>> mistakes = {
      {{true, false, false, false}, "the position vectors left out"},
      {{false, true, false, false}, "positions counted from 1"},
      {{false, false, true, false}, "the final norm left out"},
      {{false, false, false, true}, "the causal mask not passed to the blocks"}};
  const std::string name = exercise::the_mistake(mistakes, [&](const Variant& v) {
    return bool(exercise::agrees(yours, library_scores(m, ids, v), 1e-9));
  });
  return name.empty() ? "" : "your scores are the scores of " + name + " (to 1e-9)";
}

// Your scores on ids, checked against the library's; shapes that do not fit are a
// failed check, naming the read-out when the shapes are exactly its.
Tensor check_scores(const SmallGPT& m, const Tensor& ids) {
  const exercise::Untouched inputs({{"ids", ids}, {"token.weight", m.token.weight}});
  Tensor yours;
  try {
    yours = gpt_scores(m.weights(), ids);
  } catch (const ShapeError& e) {
    const std::string what = e.what();
    if (exercise::met_as_stored(what, m.token.weight.shape()))
      FAIL(
          "the read-out met the token table as it is stored, [V, d]: this points to "
          "the read-out not transposed (",
          what, ")");
    FAIL("shapes that do not fit: ", what);
  }
  const std::string changed = inputs.changed();
  REQUIRE_MESSAGE(changed.empty(), changed);
  REQUIRE_MESSAGE(yours.defined(), "your gpt_scores returned an undefined Tensor");
  const std::string why = exercise::quietly(mistake_behind, m, ids, yours);
  INFO(why);
  CHECK(exercise::within(yours, library_scores(m, ids), 2 * scores_allowance(m, ids)));
  return yours;
}

// The catalogued writing mistake whose tokens yours are (exercise::the_mistake names
// one only when no other catalogued mistake writes the same tokens here).
std::string writing_mistake(const SmallGPT& m, const std::vector<std::int64_t>& prompt,
                            int count, const std::vector<std::int64_t>& yours) {
  const std::vector<std::pair<Writing, std::string>> mistakes = {
      {Writing::oldest_kept, "the window cut to the first T tokens, not the last"},
      {Writing::one_short, "the window one token short"},
      {Writing::first_position, "the next token read from the first position's scores"},
      {Writing::not_fed_back, "the written token not fed back"},
      {Writing::newest_only, "only the newest token fed back"}};
  const std::string name = exercise::the_mistake(mistakes, [&](Writing how) {
    return library_writing(m, prompt, count, how).tokens == yours;
  });
  return name.empty() ? "" : "your tokens are those of " + name;
}
// Your writing against the library model's: the prompt kept, `count` tokens written,
// each the library's wherever rounding cannot decide (the test's premise: everywhere).
void check_writing(const SmallGPT& model, const std::vector<std::int64_t>& prompt,
                   int count) {
  std::vector<std::int64_t> yours;
  try {
    yours = write_greedily(model.weights(), prompt, count);
  } catch (const std::exception& e) {
    const std::string what = e.what();
    // An id past the position table ("... out of range for T embeddings"): the window
    // or the positions. Which, the scores of one full window say.
    const std::string past =
        "out of range for " + std::to_string(kContext) + " embeddings";
    bool full_window_works = true;
    try {
      Generator gen(36);
      gpt_scores(model.weights(), random_ids(1, kContext, gen));
    } catch (const std::exception&) {
      full_window_works = false;
    }
    if (what.find(past) != std::string::npos && full_window_works)
      FAIL(
          "a window ran past the position table though a window of T tokens works: "
          "this points to the window not cut to the context (",
          what, ")");
    FAIL("writing stopped: ", what);
  }
  check_tokens(model, prompt, count, yours,
               exercise::quietly(writing_mistake, model, prompt, count, yours));
}
}  // namespace

// %%
// The functions to write, in ``exercises/12_gpt/3_your_gpt.cpp`` (``GPTWeights`` is in
// ``chapters/exercises/your_gpt.hpp``); they call ``pre_norm_block``, yours from
// exercise 9.2 once that passes, until then the reference solution's:

Tensor gpt_scores(const GPTWeights& gpt, const Tensor& ids);
std::vector<std::int64_t> write_greedily(const GPTWeights& gpt,
                                         std::vector<std::int64_t> tokens, int count);

// %%
// The tests.

TEST_CASE("your GPT's scores for three windows of 6 tokens are the library GPT's") {
  Generator gen(31);
  const SmallGPT model(gen);
  const Tensor yours = check_scores(model, random_ids(3, 6, gen));
  CHECK(yours.shape() == Shape{3, 6, kVocabulary});
}

TEST_CASE(
    "on a full window of T tokens your GPT's scores are the library's, and a "
    "position's scores do not move when a later token changes") {
  Generator gen(32);
  const SmallGPT model(gen);
  const Tensor ids = random_ids(2, kContext, gen);
  const Tensor yours = check_scores(model, ids);
  // The last token of each window changed: no earlier position may see it.
  std::vector<double> other = ids.to_vector();
  for (std::int64_t b = 0; b < 2; ++b) {
    double& last = other[b * kContext + kContext - 1];
    last = std::fmod(last + 1, static_cast<double>(kVocabulary));
  }
  const Tensor changed = tensor(other, ids.shape(), DType::Int64);
  const Tensor earlier =
      slice(gpt_scores(model.weights(), changed), 1, 0, kContext - 1);
  const Tensor allowed = slice(2 * scores_allowance(model, ids), 1, 0, kContext - 1);
  CHECK_MESSAGE(exercise::within(earlier, slice(yours, 1, 0, kContext - 1), allowed),
                "the scores of positions 0 to T - 2 changed when only the last token "
                "did: does every block get the causal mask?");
}

// %%
// The writing tests use two small models trained for the purpose, so that what they
// write shows whether they read the right tokens. One has learnt to count in threes
// (:math:`3, 6, 9, \ldots`, wrapping round after 39); writing 14 tokens after a prompt
// of 3 runs past the context of 8, so a right answer must cut its window. The other,
// from a full window of 8 tokens, writes the window's first token again (from a shorter
// one, the token one up from the last): it continues a text of 11 tokens only if it is
// handed exactly the newest 8 at every step.

TEST_CASE(
    "your GPT writes the library GPT's tokens, one by one, where rounding cannot "
    "decide, and returns the prompt followed by them") {
  check_writing(counting_model(), {3, 6, 9}, 14);
}

TEST_CASE(
    "from a prompt longer than the context, your GPT writes what the library GPT "
    "writes from the text's last T tokens") {
  check_writing(repeating_model(), {1, 2, 3, 5, 8, 13, 21, 34, 1, 2, 3}, 8);
}

// %%
// Last, your GPT learns. The same model, from the same start, is trained through your
// ``gpt_scores`` exactly as the writing test's model was trained through the library's:
// gradients flow back through every piece you wrote. Counting in threes, from a prompt
// of three, it must then write the count on, every one of 14 tokens.

TEST_CASE(
    "your GPT, trained through your gpt_scores to count in threes, writes the count on "
    "for 14 tokens") {
  Generator gen(34);
  SmallGPT model(gen);
  const auto yours = [&](const Tensor& ids) {
    const Tensor scores = gpt_scores(model.weights(), ids);
    REQUIRE_MESSAGE(scores.defined(), "your gpt_scores returned an undefined Tensor");
    return scores;
  };
  teach_counting(model, yours, gen);
  const std::vector<std::int64_t> prompt = {3, 6, 9};
  std::vector<std::int64_t> expected = prompt;
  for (int i = 0; i < 14; ++i) expected.push_back((expected.back() + 3) % kVocabulary);
  const std::vector<std::int64_t> written = write_greedily(model.weights(), prompt, 14);
  CHECK(written == expected);
}
