// MultiheadAttention, step by step as torch 1.13's F.multi_head_attention_forward computes it.

#include "litgrad/nn/multihead_attention.hpp"

#include <cmath>

#include "litgrad/base/error.hpp"
#include "litgrad/nn/init.hpp"
#include "litgrad/ops/detail/attention_weights.hpp"
#include "litgrad/ops/elementwise.hpp"
#include "litgrad/ops/indexing.hpp"
#include "litgrad/ops/reduction.hpp"
#include "litgrad/ops/reshaping.hpp"

namespace litgrad::nn {

namespace {

constexpr const char* kOp = "MultiheadAttention";

std::int64_t checked_embed_dim(std::int64_t embed_dim, std::int64_t num_heads, const MultiheadAttentionOptions& o) {
  if (embed_dim < 1 || num_heads < 1 || o.kdim < 0 || o.vdim < 0)
    throw ValueError(kOp, ": embed_dim and num_heads must be at least 1 and kdim, vdim not negative, got embed_dim=",
                     embed_dim, " num_heads=", num_heads, " kdim=", o.kdim, " vdim=", o.vdim);
  if (embed_dim % num_heads != 0)
    throw ValueError(kOp, ": embed_dim ", embed_dim, " is not divisible by num_heads ", num_heads);
  if (!(o.dropout >= 0 && o.dropout < 1)) throw ValueError(kOp, ": dropout must be in [0, 1), got ", o.dropout);
  return embed_dim;
}

MultiheadAttentionOptions resolved(MultiheadAttentionOptions o, std::int64_t embed_dim) {
  if (o.kdim == 0) o.kdim = embed_dim;
  if (o.vdim == 0) o.vdim = embed_dim;
  return o;
}

// A Bool mask (true = forbidden) as numbers to add: 0 or -inf. A Float64 mask as it is.
Tensor additive(const char* name, const Tensor& mask) {
  if (mask.dtype() == DType::Bool) return masked_fill(zeros(mask.shape()), mask, -INFINITY);
  if (mask.dtype() != DType::Float64) throw ValueError(kOp, ": ", name, " must be Bool or Float64, got ", mask.dtype());
  return mask;
}

// A zero column appended to the last dimension: the key added by add_bias_kv or add_zero_attn
// may be attended to by every query.
Tensor pad_last(const Tensor& mask) {
  Shape s = mask.shape();
  s.back() = 1;
  return cat({mask, zeros(s)}, -1);
}

void require_shape(const char* what, const Tensor& t, const Shape& expected) {
  if (t.shape() != expected) throw ShapeError(kOp, ": ", what, " of shape ", t.shape(), " should be ", expected);
}

}  // namespace

MultiheadAttention::MultiheadAttention(std::int64_t e, std::int64_t h, MultiheadAttentionOptions o, Generator& gen)
    : Module("MultiheadAttention"),
      embed_dim(checked_embed_dim(e, h, o)),
      num_heads(h),
      head_dim(e / h),
      kdim(o.kdim ? o.kdim : e),
      vdim(o.vdim ? o.vdim : e),
      options(resolved(o, e)),
      out_proj(e, e, o.bias, gen),
      gen_(&gen) {
  // Registration order gives torch's parameter order: in_proj, in_proj_bias, bias_k, bias_v, out_proj.
  if (kdim == e && vdim == e) {
    in_proj_weight = zeros({3 * e, e});
    init::xavier_uniform_(in_proj_weight, 1.0, gen);
    register_parameter("in_proj_weight", in_proj_weight);
  } else {
    q_proj_weight = zeros({e, e});
    k_proj_weight = zeros({e, kdim});
    v_proj_weight = zeros({e, vdim});
    for (Tensor* w : {&q_proj_weight, &k_proj_weight, &v_proj_weight}) init::xavier_uniform_(*w, 1.0, gen);
    register_parameter("q_proj_weight", q_proj_weight);
    register_parameter("k_proj_weight", k_proj_weight);
    register_parameter("v_proj_weight", v_proj_weight);
  }
  if (o.bias) {
    in_proj_bias = zeros({3 * e});
    register_parameter("in_proj_bias", in_proj_bias);
    std::fill(out_proj.bias.data(), out_proj.bias.data() + e, 0.0);  // torch zeroes it too
  }
  if (o.add_bias_kv) {
    bias_k = zeros({1, 1, e});
    bias_v = zeros({1, 1, e});
    init::xavier_normal_(bias_k, 1.0, gen);
    init::xavier_normal_(bias_v, 1.0, gen);
    register_parameter("bias_k", bias_k);
    register_parameter("bias_v", bias_v);
  }
  register_module("out_proj", out_proj);
}

AttentionOutput MultiheadAttention::forward(const Tensor& query, const Tensor& key, const Tensor& value,
                                            const Tensor& key_padding_mask, bool need_weights, const Tensor& attn_mask,
                                            bool average_attn_weights, bool is_causal) const {
  const std::int64_t E = embed_dim, H = num_heads;

  // 1. Bring the inputs to torch's internal layout, [L, N, E] (sequence first).
  if (query.dim() != 2 && query.dim() != 3)
    throw ShapeError(kOp, ": query of shape ", query.shape(),
                     " should be [L,N,E], [N,L,E] with batch_first, or [L,E] unbatched");
  if (key.dim() != query.dim() || value.dim() != query.dim())
    throw ShapeError(kOp, ": query, key and value should have the same number of dimensions, got ", query.shape(), ", ",
                     key.shape(), " and ", value.shape());
  const bool batched = query.dim() == 3;
  Tensor q = query, k = key, v = value, padding = key_padding_mask;
  if (!batched) {
    q = unsqueeze(q, 1), k = unsqueeze(k, 1), v = unsqueeze(v, 1);
    if (padding.defined()) padding = unsqueeze(padding, 0);
  } else if (options.batch_first) {
    q = transpose(q, 0, 1), k = transpose(k, 0, 1), v = transpose(v, 0, 1);
  }
  const std::int64_t L = q.size(0), N = q.size(1), S = k.size(0);
  auto layout = [&](std::int64_t len, std::int64_t features) {
    if (!batched) return Shape{len, features};
    return options.batch_first ? Shape{N, len, features} : Shape{len, N, features};
  };
  require_shape("query", query, layout(L, E));
  require_shape("key", key, layout(S, kdim));
  require_shape("value", value, layout(S, vdim));

  // 2. The masks, as numbers to add to the scores: attn_mask [1 or N*H, L, S], padding [N, S].
  Tensor mask;
  if (attn_mask.defined()) {
    mask = additive("attn_mask", attn_mask);
    if (mask.dim() == 2) {
      require_shape("attn_mask", mask, {L, S});
      mask = unsqueeze(mask, 0);
    } else if (mask.dim() == 3) {
      require_shape("attn_mask", attn_mask, batched ? Shape{N * H, L, S} : Shape{H, L, S});
    } else {
      throw ShapeError(kOp, ": attn_mask of shape ", attn_mask.shape(), " should be [L,S] = ", Shape{L, S},
                       " or [N*H,L,S] = ", Shape{N * H, L, S});
    }
  }
  // is_causal: a hint that attn_mask is the causal mask, checked; the causality then becomes a
  // structure that the attention's kernels use (unless a key is appended, which every query sees).
  bool causal = false;
  if (is_causal) {
    if (!mask.defined())
      throw ValueError(
          kOp,
          ": is_causal is a hint that attn_mask is the causal mask; pass attn_mask = generate_square_subsequent_mask(",
          L, ") with it, as torch asks");
    if (!detail::is_causal_mask(mask))
      throw ValueError(kOp, ": is_causal was given, but attn_mask of shape ", attn_mask.shape(),
                       " is not the causal mask (0 where key j <= query i, -inf after)");
    if (!bias_k.defined() && !options.add_zero_attn) {
      causal = true;
      mask = Tensor();
    }
  }
  if (padding.defined()) {
    padding = additive("key_padding_mask", padding);
    require_shape("key_padding_mask", key_padding_mask, batched ? Shape{N, S} : Shape{S});
  }

  // 3. Input projections: [L, N, E] -> [L, N, E], [S, N, kdim] -> [S, N, E], [S, N, vdim] -> [S, N, E].
  auto block = [&](const Tensor& w, std::int64_t i) { return w.defined() ? slice(w, 0, i * E, (i + 1) * E) : w; };
  const Tensor b = in_proj_bias;
  Tensor qp = linear(q, in_proj_weight.defined() ? block(in_proj_weight, 0) : q_proj_weight, block(b, 0));
  Tensor kp = linear(k, in_proj_weight.defined() ? block(in_proj_weight, 1) : k_proj_weight, block(b, 1));
  Tensor vp = linear(v, in_proj_weight.defined() ? block(in_proj_weight, 2) : v_proj_weight, block(b, 2));

  // 4. add_bias_kv: one more key and value, [1, N, E], the same for every sequence.
  if (bias_k.defined()) {
    kp = cat({kp, bias_k * ones({1, N, 1})}, 0);
    vp = cat({vp, bias_v * ones({1, N, 1})}, 0);
    if (mask.defined()) mask = pad_last(mask);
    if (padding.defined()) padding = pad_last(padding);
  }

  // 5. Split the heads: [len, N, E] -> [len, N*H, E/H] -> [N*H, len, E/H]; index b*H + h.
  auto heads = [&](const Tensor& x) { return transpose(reshape(x, {x.size(0), N * H, head_dim}), 0, 1); };
  Tensor qh = heads(qp), kh = heads(kp), vh = heads(vp);

  // 6. add_zero_attn: one more key and value of zeros, after the projections.
  if (options.add_zero_attn) {
    kh = cat({kh, zeros({N * H, 1, head_dim})}, 1);
    vh = cat({vh, zeros({N * H, 1, head_dim})}, 1);
    if (mask.defined()) mask = pad_last(mask);
    if (padding.defined()) padding = pad_last(padding);
  }

  // 7. Merge the padding mask into the attention mask: [N, S'] -> [N*H, 1, S'], broadcast over L.
  if (padding.defined()) {
    const std::int64_t s = padding.size(1);
    const Tensor per_head = reshape(reshape(padding, {N, 1, 1, s}) + zeros({1, H, 1, 1}), {N * H, 1, s});
    mask = mask.defined() ? mask + per_head : per_head;
  }

  // 8. Attention in every head at once: [N*H, L, E/H] -> [N*H, L, E/H], weights [N*H, L, S'].
  const double p = is_training() ? options.dropout : 0.0;
  const AttentionOutput a = detail::attention(qh, kh, vh, mask, causal, p, *gen_);

  // 9. Concatenate the heads and project.
  Tensor out = merge_heads(a.output, L, N);
  Tensor weights;
  if (need_weights) {
    weights = reshape(a.weights, {N, H, L, a.weights.size(-1)});
    if (average_attn_weights) weights = sum(weights, {1}) / static_cast<double>(H);  // torch 1.13: sum / H
  }
  if (!batched) {
    out = squeeze(out, 1);
    if (weights.defined()) weights = squeeze(weights, 0);
  } else if (options.batch_first) {
    out = transpose(out, 0, 1);
  }
  return {out, weights};
}

// The heads' outputs side by side, projected: [N*H, L, E/H] -> [L, N*H, E/H] -> [L, N, E] -> out_proj.
Tensor MultiheadAttention::merge_heads(const Tensor& heads, std::int64_t L, std::int64_t N) const {
  return out_proj(reshape(transpose(heads, 0, 1), {L, N, embed_dim}));
}

Tensor MultiheadAttention::forward_cached(const Tensor& x, KVCache& cache) const {
  const auto in_scope = scope();  // it has no call operator to open it
  const std::int64_t E = embed_dim, H = num_heads;
  const std::string op = std::string(kOp) + ".forward_cached";
  if (!in_proj_weight.defined() || bias_k.defined() || options.add_zero_attn)
    throw ValueError(op,
                     ": decodes self-attention with kdim = vdim = embed_dim and without add_bias_kv or add_zero_attn");
  if (is_training() && options.dropout > 0)
    throw ValueError(op, ": decoding is done in evaluation, where dropout is off; call eval() first (dropout ",
                     options.dropout, ")");
  if ((x.dim() != 2 && x.dim() != 3) || x.size(-1) != E)
    throw ShapeError(op, ": x of shape ", x.shape(), " should be [L,N,", E, "], [N,L,", E, "] with batch_first, or [L,",
                     E, "] unbatched");
  // 1. To [L, N, E], as forward() does.
  const bool batched = x.dim() == 3;
  const Tensor q = !batched ? unsqueeze(x, 1) : options.batch_first ? transpose(x, 0, 1) : x;
  const std::int64_t L = q.size(0), N = q.size(1), seen = cache.size();
  if (seen > 0 && (cache.keys.size(0) != N * H || cache.keys.size(2) != head_dim || !cache.values.defined() ||
                   cache.values.shape() != cache.keys.shape()))
    throw ShapeError(op, ": the cache holds keys of shape ", cache.keys.shape(), " and values of shape ",
                     (cache.values.defined() ? to_string(cache.values.shape()) : std::string("(none)")),
                     ", but this layer and x need [", N * H, ",S,", head_dim, "]");
  // 2. The new tokens' projections and heads: [L, N, E] -> [N*H, L, E/H] (forward()'s steps 3 and 5).
  auto block = [&](const Tensor& w, std::int64_t i) { return w.defined() ? slice(w, 0, i * E, (i + 1) * E) : w; };
  auto heads = [&](const Tensor& t) { return transpose(reshape(t, {L, N * H, head_dim}), 0, 1); };
  const Tensor qh = heads(linear(q, block(in_proj_weight, 0), block(in_proj_bias, 0)));
  const Tensor kh = heads(linear(q, block(in_proj_weight, 1), block(in_proj_bias, 1)));
  const Tensor vh = heads(linear(q, block(in_proj_weight, 2), block(in_proj_bias, 2)));
  // 3. Every key and value so far: [N*H, seen + L, E/H].
  const Tensor keys = seen > 0 ? cat({cache.keys, kh}, 1) : kh;
  const Tensor values = seen > 0 ? cat({cache.values, vh}, 1) : vh;
  // 4. New token i sits at position seen + i and sees keys 0 .. seen + i. One token sees every
  //    key; a first piece is the causal square; a later piece of several, a mask [1, L, seen + L].
  Tensor mask;
  const bool causal = seen == 0 && L > 1;
  if (seen > 0 && L > 1) {
    const Tensor position = reshape(arange(seen, seen + L), {L, 1}), key = reshape(arange(seen + L), {1, seen + L});
    mask = unsqueeze(masked_fill(zeros({L, seen + L}), gt(key, position), -INFINITY), 0);
  }
  const AttentionOutput a = detail::attention(qh, keys, values, mask, causal, 0.0, *gen_);
  cache.keys = keys;
  cache.values = values;
  // 5. Concatenate the heads and project, and back to x's layout.
  Tensor out = merge_heads(a.output, L, N);
  if (!batched) return squeeze(out, 1);
  return options.batch_first ? transpose(out, 0, 1) : out;
}

std::string MultiheadAttention::extra_repr() const {
  std::string s = "embed_dim=" + std::to_string(embed_dim) + ", num_heads=" + std::to_string(num_heads);
  if (kdim != embed_dim) s += ", kdim=" + std::to_string(kdim);
  if (vdim != embed_dim) s += ", vdim=" + std::to_string(vdim);
  if (options.batch_first) s += ", batch_first=True";
  return s;
}

}  // namespace litgrad::nn
