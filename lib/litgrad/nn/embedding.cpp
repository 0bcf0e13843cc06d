#include "litgrad/nn/embedding.hpp"

#include <algorithm>

#include "litgrad/base/error.hpp"
#include "litgrad/core/detail/node.hpp"
#include "litgrad/core/detail/tensor_impl.hpp"
#include "litgrad/kernels/copy.hpp"
#include "litgrad/ops/detail/scatter.hpp"
#include "litgrad/ops/elementwise.hpp"
#include "litgrad/ops/registry.hpp"
#include "litgrad/ops/reshaping.hpp"

namespace litgrad::nn {

namespace {
std::int64_t checked_padding(const char* op, std::int64_t padding, std::int64_t rows) {
  if (padding < -rows || padding >= rows)
    throw IndexError(op, ": padding_idx ", padding, " is out of range for ", rows, " embeddings");
  return padding < 0 ? padding + rows : padding;
}
}  // namespace

// ids: S, Int64; weight: [V, D]; result: S + [D].  y[s, :] = weight[ids[s], :];
// dweight[ids[s], :] += g[s, :] for every s, except the row padding_idx.
Tensor embedding(const Tensor& ids, const Tensor& weight, std::optional<std::int64_t> padding_idx) {
  if (ids.dtype() != DType::Int64)
    throw ValueError("embedding: ids must be an Int64 tensor, got ", ids.dtype(), " of shape ", ids.shape());
  if (weight.dim() != 2) throw ValueError("embedding: weight must be 2-D [V, D], got shape ", weight.shape());
  const std::int64_t V = weight.size(0), D = weight.size(1), n = ids.numel();
  const std::int64_t pad = padding_idx ? checked_padding("embedding", *padding_idx, V) : -1;
  const std::int64_t bad = kernels::first_outside(ids.data(), n, static_cast<double>(V));
  if (bad >= 0)
    throw IndexError("embedding: id ", static_cast<std::int64_t>(ids.data()[bad]), " is out of range for ", V,
                     " embeddings");
  const std::vector<double> picked = ids.to_vector();
  const std::vector<std::int64_t> rows(picked.begin(), picked.end());
  Shape out = ids.shape();
  out.push_back(D);
  Tensor y = detail::uninitialized_tensor(out);
  kernels::index_rows(weight.data(), 1, V, D, rows, y.data());
  // The ids are an input (with no gradient, as an index is) so that the record shows where the
  // rows came from (autograd::recorded_graph); the backward reads `rows`, its own copy.
  return detail::record(
      op::embedding, y, {weight, ids},
      [rows, V, D, pad](const Tensor& g) -> std::vector<Tensor> {
        Tensor gw = detail::uninitialized_tensor({V, D});  // the padding row learns nothing
        kernels::index_rows_backward(g.data(), 1, V, D, rows, gw.data(), /*skip=*/pad);
        return {gw, Tensor()};
      },
      // From the ids as they were (rows), not the ids tensor, which may have changed since.
      [rows, V, D, pad](const Tensor& g, const Tensor&, const std::vector<Tensor>&) -> std::vector<Tensor> {
        const std::int64_t n = static_cast<std::int64_t>(rows.size());
        Tensor per_id = reshape(g, {n, D});  // one row per id
        if (pad >= 0) {
          std::vector<double> padded(rows.size());
          for (std::size_t i = 0; i < rows.size(); ++i) padded[i] = rows[i] == pad;
          per_id = masked_fill(per_id, tensor(padded, {n, 1}, DType::Bool), 0.0);
        }
        return {detail::index_add(per_id, {V, D}, 0, rows), Tensor()};
      },
      detail::Saved::nothing());
}

Embedding::Embedding(std::int64_t n, std::int64_t d, std::optional<std::int64_t> padding, Generator& gen)
    : Module("Embedding"), num_embeddings(n), embedding_dim(d) {
  if (n < 1 || d < 1)
    throw ValueError("Embedding: num_embeddings and embedding_dim must be at least 1, got ", n, " and ", d);
  if (padding) padding_idx = checked_padding("Embedding", *padding, n);
  weight = randn({n, d}, gen);
  if (padding_idx) std::fill_n(weight.data() + *padding_idx * d, d, 0.0);
  register_parameter("weight", weight);
}

Tensor Embedding::forward(const Tensor& ids) const { return embedding(ids, weight, padding_idx); }

std::string Embedding::extra_repr() const {
  return std::to_string(num_embeddings) + ", " + std::to_string(embedding_dim) +
         (padding_idx ? ", padding_idx=" + std::to_string(*padding_idx) : "");
}

}  // namespace litgrad::nn
