#pragma once
/// \file nn/embedding.hpp
/// \brief `nn::Embedding`: a table of vectors looked up by index, as `torch.nn.Embedding`.

#include <cstdint>
#include <optional>

#include "litgrad/core/random.hpp"
#include "litgrad/nn/module.hpp"

namespace litgrad::nn {

/// \brief The rows of \p weight at \p ids, as `torch.nn.functional.embedding`: Int64 ids of any
/// shape S and weight `[V, D]` give `[S..., D]`. The gradient of a row is the sum of the
/// gradients of its copies; the row \p padding_idx, if given, gets none (exactly 0).
/// \throws ValueError for ids that are not Int64 or a weight that is not 2-D; IndexError for
/// an id outside `[0, V)` or a padding_idx outside `[-V, V)`.
Tensor embedding(const Tensor& ids, const Tensor& weight, std::optional<std::int64_t> padding_idx = std::nullopt);

/// \brief A table of `num_embeddings` vectors of `embedding_dim` numbers, looked up by index.
///
/// `weight` `[num_embeddings, embedding_dim]` starts standard normal, as torch's, with the row
/// `padding_idx` (if given) zero; that row then receives no gradient, so it stays zero.
///
/// \code
/// nn::Embedding table(27, 16);
/// Tensor v = table(tensor({3, 1, 4}, {3}, DType::Int64));   // [3, 16]
/// \endcode
class Embedding : public Module {
 public:
  /// \brief \p padding_idx may be negative, counting from the end, as in torch.
  /// \throws ValueError for a size below 1; IndexError for a padding_idx out of range.
  Embedding(std::int64_t num_embeddings, std::int64_t embedding_dim,
            std::optional<std::int64_t> padding_idx = std::nullopt, Generator& gen = default_generator());

  /// \brief The rows at \p ids: Int64 `S` gives `[S..., embedding_dim]`.
  Tensor forward(const Tensor& ids) const;
  /// \brief forward().
  Tensor operator()(const Tensor& ids) const {
    const auto in_scope = scope();
    return forward(ids);
  }

  std::string extra_repr() const override;

  std::int64_t num_embeddings;              ///< how many vectors the table holds
  std::int64_t embedding_dim;               ///< the size of each
  std::optional<std::int64_t> padding_idx;  ///< the row that stays zero, made non-negative
  Tensor weight;                            ///< `[num_embeddings, embedding_dim]`
};

}  // namespace litgrad::nn
