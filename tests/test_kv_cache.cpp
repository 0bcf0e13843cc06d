// Decoding with a KV cache (MultiheadAttention::forward_cached and the encoder's): feeding a
// sequence in pieces gives every new token exactly the bits of running the causal layer on the
// whole sequence so far, which is what lets a decoder write a token at a time for the cost of
// one token.

#include <doctest/doctest.h>

#include <cstdint>
#include <vector>

#include "helpers.hpp"
#include "litgrad/litgrad.hpp"

using namespace litgrad;

namespace {

// The causal encoder's output for every position of x [N, T, E] (batch first), recomputed on
// each prefix: row t comes from the run on x[:, :t+1], as a decoder without a cache gets it.
Tensor recomputed(const nn::TransformerEncoder& encoder, const Tensor& x) {
  std::vector<Tensor> rows;
  for (std::int64_t t = 0; t < x.size(1); ++t) {
    const Tensor prefix = slice(x, 1, 0, t + 1);
    const Tensor out = encoder(prefix, generate_square_subsequent_mask(t + 1), {}, /*is_causal=*/true);
    rows.push_back(slice(out, 1, t, t + 1));
  }
  return cat(rows, 1);
}

// The same outputs from forward_cached, fed in pieces of the given lengths.
Tensor cached(const nn::TransformerEncoder& encoder, const Tensor& x, const std::vector<std::int64_t>& pieces) {
  std::vector<nn::KVCache> caches;
  std::vector<Tensor> outs;
  std::int64_t at = 0;
  for (const std::int64_t length : pieces) {
    outs.push_back(encoder.forward_cached(slice(x, 1, at, at + length), caches));
    at += length;
  }
  REQUIRE(at == x.size(1));
  REQUIRE(caches.size() == 2);
  CHECK(caches[0].size() == x.size(1));
  return cat(outs, 1);
}

}  // namespace

TEST_CASE("decoding with a KV cache gives every token exactly the bits of recomputing the causal stack on its prefix") {
  for (const bool norm_first : {true, false})
    for (const std::uint64_t seed : {1u, 2u, 3u}) {
      CAPTURE(norm_first);
      CAPTURE(seed);
      Generator gen(seed);
      nn::TransformerEncoderLayerOptions o;
      o.dim_feedforward = 48, o.dropout = 0.0, o.norm_first = norm_first, o.batch_first = true;
      nn::TransformerEncoder encoder(nn::TransformerEncoderLayer(24, 3, o, gen), 2,
                                     std::make_unique<nn::LayerNorm>(24));
      encoder.eval();
      NoGradGuard no_grad;
      const std::int64_t T = 21;  // past eight keys and past a SIMD width, where sums change shape
      const Tensor x = randn({2, T, 24}, gen);
      const Tensor expected = recomputed(encoder, x);
      CHECK(test::identical(cached(encoder, x, std::vector<std::int64_t>(T, 1)), expected));  // a token at a time
      CHECK(test::identical(cached(encoder, x, {5, 1, 1, 7, 3, 4}), expected));               // prompts, then pieces
      CHECK(test::identical(cached(encoder, x, {T}), expected));                              // all at once
    }
}

TEST_CASE("MultiheadAttention.forward_cached equals forward with the causal mask, unbatched and sequence first too") {
  Generator gen(7);
  nn::MultiheadAttention mha(8, 2, {}, gen);
  mha.eval();
  const std::int64_t T = 11;
  for (const bool batched : {false, true}) {
    CAPTURE(batched);
    const Tensor x = batched ? randn({T, 3, 8}, gen) : randn({T, 8}, gen);  // sequence first
    const Tensor whole = mha(x, x, x, {}, false, generate_square_subsequent_mask(T), true, true).output;
    nn::KVCache cache;
    std::vector<Tensor> outs;
    for (std::int64_t t = 0; t < T; ++t) outs.push_back(mha.forward_cached(slice(x, 0, t, t + 1), cache));
    CHECK(cache.size() == T);
    // The last token's output is the whole run's last row; every earlier one, that of its prefix.
    CHECK(test::identical(outs.back(), slice(whole, 0, T - 1, T)));
    for (std::int64_t t = 0; t < T; ++t) {
      const Tensor prefix = slice(x, 0, 0, t + 1);
      const Tensor run =
          mha(prefix, prefix, prefix, {}, false, generate_square_subsequent_mask(t + 1), true, true).output;
      CHECK(test::identical(outs[static_cast<std::size_t>(t)], slice(run, 0, t, t + 1)));
    }
  }
}

TEST_CASE("forward_cached refuses what it cannot decode, naming the shapes") {
  Generator gen(3);
  nn::MultiheadAttention mha(8, 2, {}, gen);
  nn::KVCache cache;
  CHECK_THROWS_WITH_AS(mha.forward_cached(randn({4, 2, 5}, gen), cache),
                       doctest::Contains("x of shape [4,2,5] should be [L,N,8]"), ShapeError);
  mha.forward_cached(randn({4, 2, 8}, gen), cache);
  CHECK_THROWS_WITH_AS(mha.forward_cached(randn({1, 3, 8}, gen), cache),
                       doctest::Contains("the cache holds keys of shape [4,4,4]"), ShapeError);
  nn::MultiheadAttentionOptions o;
  o.dropout = 0.1;
  nn::MultiheadAttention dropping(8, 2, o, gen);
  CHECK_THROWS_WITH_AS(dropping.forward_cached(randn({1, 8}, gen), cache), doctest::Contains("call eval() first"),
                       ValueError);
  o.dropout = 0.0;
  o.kdim = 4;
  nn::MultiheadAttention cross(8, 2, o, gen);
  nn::KVCache fresh;
  CHECK_THROWS_WITH_AS(cross.forward_cached(randn({1, 8}, gen), fresh), doctest::Contains("kdim = vdim = embed_dim"),
                       ValueError);
  nn::TransformerEncoderLayerOptions lo;
  lo.dropout = 0.0;
  nn::TransformerEncoder encoder(nn::TransformerEncoderLayer(8, 2, lo, gen), 3);
  std::vector<nn::KVCache> two(2);
  CHECK_THROWS_WITH_AS(encoder.forward_cached(randn({1, 1, 8}, gen), two), doctest::Contains("2 caches for 3 layers"),
                       ValueError);
}
