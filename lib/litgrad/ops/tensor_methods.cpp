// Tensor's member forms: each one line, forwarding to the free function of the same name.

#include "litgrad/base/error.hpp"
#include "litgrad/core/tensor.hpp"
#include "litgrad/ops/elementwise.hpp"
#include "litgrad/ops/indexing.hpp"
#include "litgrad/ops/matmul.hpp"
#include "litgrad/ops/reduction.hpp"
#include "litgrad/ops/reshaping.hpp"
#include "litgrad/ops/softmax.hpp"

namespace litgrad {

Tensor Tensor::sum() const { return litgrad::sum(*this); }
Tensor Tensor::sum(const std::vector<std::int64_t>& dims, bool keepdim) const {
  return litgrad::sum(*this, dims, keepdim);
}
Tensor Tensor::mean() const { return litgrad::mean(*this); }
Tensor Tensor::mean(const std::vector<std::int64_t>& dims, bool keepdim) const {
  return litgrad::mean(*this, dims, keepdim);
}
Tensor Tensor::max() const { return litgrad::max(*this); }
Tensor Tensor::min() const { return litgrad::min(*this); }
Tensor Tensor::argmax() const { return litgrad::argmax(*this); }
Tensor Tensor::argmax(std::int64_t dim, bool keepdim) const { return litgrad::argmax(*this, dim, keepdim); }
Tensor Tensor::norm(double p) const { return litgrad::norm(*this, p); }
Tensor Tensor::reshape(const Shape& shape) const { return litgrad::reshape(*this, shape); }
Tensor Tensor::flatten(std::int64_t start, std::int64_t end) const { return litgrad::flatten(*this, start, end); }
Tensor Tensor::transpose(std::int64_t dim0, std::int64_t dim1) const { return litgrad::transpose(*this, dim0, dim1); }
Tensor Tensor::permute(const std::vector<std::int64_t>& dims) const { return litgrad::permute(*this, dims); }
Tensor Tensor::unsqueeze(std::int64_t dim) const { return litgrad::unsqueeze(*this, dim); }
Tensor Tensor::squeeze(std::int64_t dim) const { return litgrad::squeeze(*this, dim); }
Tensor Tensor::expand(const Shape& sizes) const { return litgrad::expand(*this, sizes); }
Tensor Tensor::repeat(const std::vector<std::int64_t>& repeats) const { return litgrad::repeat(*this, repeats); }
Tensor Tensor::matmul(const Tensor& other) const { return litgrad::matmul(*this, other); }
Tensor Tensor::softmax(std::int64_t dim) const { return litgrad::softmax(*this, dim); }
Tensor Tensor::log_softmax(std::int64_t dim) const { return litgrad::log_softmax(*this, dim); }
Tensor Tensor::exp() const { return litgrad::exp(*this); }
Tensor Tensor::log() const { return litgrad::log(*this); }
Tensor Tensor::tanh() const { return litgrad::tanh(*this); }
Tensor Tensor::relu() const { return litgrad::relu(*this); }
Tensor Tensor::sqrt() const { return litgrad::sqrt(*this); }
Tensor Tensor::abs() const { return litgrad::abs(*this); }
Tensor Tensor::pow(double exponent) const { return litgrad::pow(*this, exponent); }
Tensor Tensor::pow(const Tensor& exponent) const { return litgrad::pow(*this, exponent); }
Tensor Tensor::masked_fill(const Tensor& mask, double value) const { return litgrad::masked_fill(*this, mask, value); }
Tensor Tensor::to(DType dtype) const { return litgrad::to(*this, dtype); }

Tensor Tensor::select(std::int64_t dim, std::int64_t index) const { return litgrad::select(*this, dim, index); }
Tensor Tensor::slice(std::int64_t dim, std::int64_t start, std::int64_t end, std::int64_t step) const {
  return litgrad::slice(*this, dim, start, end, step);
}
Tensor Tensor::narrow(std::int64_t dim, std::int64_t start, std::int64_t length) const {
  if (length < 0) throw ValueError("narrow: length must be non-negative, got ", length);
  return litgrad::slice(*this, dim, start, start + length);
}
Tensor Tensor::index_select(std::int64_t dim, const Tensor& index) const {
  return litgrad::index_select(*this, dim, index);
}
Tensor Tensor::gather(std::int64_t dim, const Tensor& index) const { return litgrad::gather(*this, dim, index); }
std::vector<Tensor> Tensor::split(std::int64_t split_size, std::int64_t dim) const {
  return litgrad::split(*this, split_size, dim);
}
std::vector<Tensor> Tensor::split(const std::vector<std::int64_t>& split_sizes, std::int64_t dim) const {
  return litgrad::split(*this, split_sizes, dim);
}
std::vector<Tensor> Tensor::chunk(std::int64_t chunks, std::int64_t dim) const {
  return litgrad::chunk(*this, chunks, dim);
}
Tensor Tensor::view(const Shape& shape) const { return litgrad::reshape(*this, shape); }
Tensor Tensor::contiguous() const { return *this; }

// x.index({...}): each entry in turn, d the dimension the next one indexes.
Tensor Tensor::index(const std::vector<indexing::TensorIndex>& indices) const {
  using namespace indexing;
  std::int64_t consumed = 0, ellipses = 0;
  for (const TensorIndex& i : indices) {
    consumed += std::holds_alternative<std::int64_t>(i.value()) || std::holds_alternative<Slice>(i.value());
    ellipses += std::holds_alternative<EllipsisIndexType>(i.value());
  }
  if (ellipses > 1) throw IndexError("index: an index can have only one Ellipsis");
  if (consumed > dim()) throw IndexError("index: too many indices (", consumed, ") for a tensor of shape ", shape());
  Tensor x = *this;
  std::int64_t d = 0;
  for (const TensorIndex& i : indices) {
    const auto& v = i.value();
    if (const auto* position = std::get_if<std::int64_t>(&v)) {
      x = litgrad::select(x, d, *position);
    } else if (const auto* s = std::get_if<Slice>(&v)) {
      const std::int64_t n = x.size(d);
      x = litgrad::slice(x, d, s->start.value_or(0), s->stop.value_or(n), s->step);
      ++d;
    } else if (std::holds_alternative<NoneIndexType>(v)) {
      x = litgrad::unsqueeze(x, d);
      ++d;
    } else {  // Ellipsis: the dimensions no other entry takes
      d += dim() - consumed;
    }
  }
  return x;
}

}  // namespace litgrad
