#pragma once
/// \file indexing.hpp
/// \brief Picking parts of tensors and joining tensors: select, slice, gather, cat, stack, and
/// Python's indexing syntax (`x.index({Slice(), -1})`). All differentiable; the gradient of a
/// part is put back where the part came from.

#include <cstdint>
#include <optional>
#include <type_traits>
#include <variant>
#include <vector>

#include "litgrad/core/tensor.hpp"

namespace litgrad {

/// \brief The pieces of Tensor::index(), as libtorch's `torch::indexing`.
namespace indexing {

/// \brief The type of Ellipsis.
struct EllipsisIndexType {};
/// \brief The type of None.
struct NoneIndexType {};
/// \brief `...`: as many whole dimensions as the other entries leave.
inline constexpr EllipsisIndexType Ellipsis{};
/// \brief `None`: a new dimension of size 1 here; as a bound of a Slice, no bound.
inline constexpr NoneIndexType None{};

/// \brief One bound of a Slice: a position, or none (`None` or `std::nullopt`), so that
/// libtorch's `Slice(1, None)` for Python's `1:` is written as there.
struct SliceBound {
  std::optional<std::int64_t> value;  ///< the position, or empty for no bound
  /// \brief A position; any integer type, as `v.size()`.
  template <class I, class = std::enable_if_t<std::is_integral_v<I>>>
  SliceBound(I i) : value(static_cast<std::int64_t>(i)) {}
  /// \brief No bound.
  SliceBound(NoneIndexType) {}
  /// \brief No bound.
  SliceBound(std::nullopt_t) {}
  /// \brief A position or none, as held.
  SliceBound(std::optional<std::int64_t> v) : value(v) {}
};

/// \brief `start:stop:step` of Python's indexing, each part optional (as `Slice()`, `:`).
struct Slice {
  std::optional<std::int64_t> start;  ///< the first position (default 0); negative counts from the end
  std::optional<std::int64_t> stop;   ///< one past the last (default the size); negative counts from the end
  std::int64_t step = 1;              ///< positive
  /// \brief `Slice()`, `Slice(1)`, `Slice(1, -1)`, `Slice(1, None)`, `Slice(None, None, 2)`.
  Slice(SliceBound start = None, SliceBound stop = None, std::int64_t step = 1)
      : start(start.value), stop(stop.value), step(step) {}
};

/// \brief One entry of Tensor::index(): an integer, a Slice, Ellipsis or None.
class TensorIndex {
 public:
  /// \brief Selects position \p i (negative counts from the end) and removes the dimension.
  TensorIndex(std::int64_t i) : value_(i) {}
  /// \brief As the std::int64_t form.
  TensorIndex(int i) : value_(static_cast<std::int64_t>(i)) {}
  /// \brief Slices the dimension.
  TensorIndex(Slice s) : value_(s) {}
  /// \brief Whole dimensions.
  TensorIndex(EllipsisIndexType e) : value_(e) {}
  /// \brief A new dimension.
  TensorIndex(NoneIndexType n) : value_(n) {}
  /// \brief The entry.
  const std::variant<std::int64_t, Slice, EllipsisIndexType, NoneIndexType>& value() const { return value_; }

 private:
  std::variant<std::int64_t, Slice, EllipsisIndexType, NoneIndexType> value_;
};

}  // namespace indexing

/// \brief The sub-tensor at position \p index along \p dim, with that dimension removed:
/// `select(x, 0, 2)` of a `[5,3]` tensor is its row 2, shape `[3]` (Python's `x[2]`).
/// Negative \p index counts from the end. \throws IndexError when out of range.
Tensor select(const Tensor& x, std::int64_t dim, std::int64_t index);

/// \brief Positions `start, start+step, ...` below \p end along \p dim (Python's
/// `x[start:end:step]`): negative bounds count from the end and bounds are clipped to the
/// size, as in Python. \throws ValueError when step is not positive.
///
/// \code
/// Tensor x = reshape(arange(12), {3, 4});
/// slice(x, 1, 1, -1);      // columns 1 and 2, shape [3,2]
/// select(x, 0, -1);        // the last row, [8, 9, 10, 11]
/// \endcode
Tensor slice(const Tensor& x, std::int64_t dim, std::int64_t start, std::int64_t end, std::int64_t step = 1);

/// \brief Picks along \p dim by an Int64 index tensor, as `torch.gather`:
/// for dim 1 of a 3-D input, `out[i][j][k] = x[i][index[i][j][k]][k]`.
///
/// Shapes: index has x's number of dimensions and no larger size than x in any dimension
/// but \p dim; the result has index's shape. Used by cross_entropy() to pick each row's
/// target class. \throws ValueError when index is not Int64; IndexError for an index out of
/// range; ShapeError for mismatched shapes.
///
/// \code
/// Tensor x = tensor({{1, 2, 3}, {4, 5, 6}});
/// gather(x, 1, tensor({2, 0}, {2, 1}, DType::Int64));   // [[3], [4]]
/// \endcode
Tensor gather(const Tensor& x, std::int64_t dim, const Tensor& index);

/// \brief Joins tensors along an existing dimension: `[2,3]` and `[4,3]` along 0 give `[6,3]`.
/// \throws ShapeError when the list is empty or the other dimensions differ.
Tensor cat(const std::vector<Tensor>& tensors, std::int64_t dim = 0);

/// \brief Joins equally shaped tensors along a new dimension: three `[2]` give `[3,2]` (dim 0).
/// \throws ShapeError when the list is empty or the shapes differ.
Tensor stack(const std::vector<Tensor>& tensors, std::int64_t dim = 0);

/// \brief The entries of \p x at the positions \p index along \p dim, as `torch.index_select`:
/// `[..., n, ...]` with a 1-D Int64 index of m positions gives `[..., m, ...]`. A position may
/// appear several times; its gradient is then the sum over its copies.
/// \throws ValueError unless \p index is a 1-D (or 0-D) Int64 tensor; IndexError for a
/// position out of range.
Tensor index_select(const Tensor& x, std::int64_t dim, const Tensor& index);

/// \brief \p x cut into \p chunks pieces along \p dim, as `torch.chunk`: each piece has
/// `ceil(n / chunks)` positions, the last what is left, so there may be fewer than \p chunks
/// pieces. \throws ValueError for chunks < 1.
std::vector<Tensor> chunk(const Tensor& x, std::int64_t chunks, std::int64_t dim = 0);
/// \brief \p x cut along \p dim into pieces of \p split_size positions, the last possibly
/// smaller, as `torch.split` with an integer. \throws ValueError for split_size < 1.
std::vector<Tensor> split(const Tensor& x, std::int64_t split_size, std::int64_t dim = 0);
/// \brief \p x cut along \p dim into pieces of the listed sizes, as `torch.split` with a list.
/// \throws ShapeError when the sizes do not add up to the dimension's size.
std::vector<Tensor> split(const Tensor& x, const std::vector<std::int64_t>& split_sizes, std::int64_t dim = 0);

/// \brief The lower triangle of the last two dimensions, as `torch.tril`: entries (i, j) with
/// `j - i <= diagonal` kept, the others exactly 0 (whatever they held, NaN included).
/// \throws ShapeError for fewer than 2 dimensions.
Tensor tril(const Tensor& x, std::int64_t diagonal = 0);
/// \brief The upper triangle, as `torch.triu`: entries with `j - i >= diagonal` kept, the
/// others exactly 0. \throws ShapeError for fewer than 2 dimensions.
Tensor triu(const Tensor& x, std::int64_t diagonal = 0);

/// \brief One-hot rows, as `torch.nn.functional.one_hot`: an Int64 tensor of class indices of
/// shape S gives an Int64 tensor of shape `S + [num_classes]` with a 1 at each index;
/// \p num_classes -1 means one more than the largest index. \throws ValueError for a
/// non-Int64 input; IndexError for an index outside `[0, num_classes)`.
Tensor one_hot(const Tensor& indices, std::int64_t num_classes = -1);

}  // namespace litgrad
