// Tensor's member forms: each one line, forwarding to the free function of the same name.

#include "litgrad/elementwise.hpp"
#include "litgrad/matmul.hpp"
#include "litgrad/reduction.hpp"
#include "litgrad/reshaping.hpp"
#include "litgrad/softmax.hpp"
#include "litgrad/tensor.hpp"

namespace litgrad {

Tensor Tensor::sum() const { return litgrad::sum(*this); }
Tensor Tensor::sum(const std::vector<std::int64_t>& dims, bool keepdim) const { return litgrad::sum(*this, dims, keepdim); }
Tensor Tensor::mean() const { return litgrad::mean(*this); }
Tensor Tensor::mean(const std::vector<std::int64_t>& dims, bool keepdim) const { return litgrad::mean(*this, dims, keepdim); }
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
Tensor Tensor::masked_fill(const Tensor& mask, double value) const { return litgrad::masked_fill(*this, mask, value); }
Tensor Tensor::to(DType dtype) const { return litgrad::to(*this, dtype); }

}  // namespace litgrad
