// torch's ways of writing into part of a tensor, index_put_, index_fill_ and scatter_, write
// the same elements with the same values as libtorch's on the same arguments, to the bit.

#include <doctest/doctest.h>
#include <torch/torch.h>  // whose glog defines a CHECK that aborts: doctest's is DOCTEST_CHECK here

#include <cstring>
#include <vector>

#include <litgrad/litgrad.hpp>

namespace {

using litgrad::indexing::Slice;
using litgrad::indexing::TensorIndex;
namespace ti = torch::indexing;

std::vector<double> values(const torch::Tensor& t) {
  const torch::Tensor c = t.to(torch::kFloat64).contiguous().reshape({-1});
  return {c.data_ptr<double>(), c.data_ptr<double>() + c.numel()};
}

bool same_bits(const std::vector<double>& a, const std::vector<double>& b) {
  return a.size() == b.size() && std::memcmp(a.data(), b.data(), a.size() * sizeof(double)) == 0;
}

// The same 3 x 4 values in both libraries, 0.5, 1.5, ..., 11.5.
litgrad::Tensor ours() { return litgrad::reshape(litgrad::arange(12.0), {3, 4}) + 0.5; }
torch::Tensor theirs() { return torch::arange(12, torch::kFloat64).reshape({3, 4}) + 0.5; }

}  // namespace

TEST_CASE("index_put_, index_fill_ and scatter_ write what libtorch's write, to the bit") {
  SUBCASE("index_put_: a row, a column, a strided slice, one element, broadcast values") {
    litgrad::Tensor a = ours();
    torch::Tensor t = theirs();
    a.index_put_({1}, litgrad::tensor({-1.0, -2.0, -3.0, -4.0}));
    t.index_put_({1}, torch::tensor({-1.0, -2.0, -3.0, -4.0}, torch::kFloat64));
    a.index_put_({Slice(), 2}, litgrad::tensor({7.0, 8.0, 9.0}));
    t.index_put_({ti::Slice(), 2}, torch::tensor({7.0, 8.0, 9.0}, torch::kFloat64));
    a.index_put_({Slice(0, 3, 2), Slice(1)}, 0.25);
    t.index_put_({ti::Slice(0, 3, 2), ti::Slice(1, ti::None)}, 0.25);
    a.index_put_({2, -1}, -9.0);
    t.index_put_({2, -1}, -9.0);
    a.index_put_({litgrad::indexing::Ellipsis, 0}, litgrad::tensor({100.0}));
    t.index_put_({ti::Ellipsis, 0}, torch::tensor({100.0}, torch::kFloat64));
    DOCTEST_CHECK(same_bits(a.to_vector(), values(t)));
  }
  SUBCASE("index_fill_ along each dimension, an index repeated") {
    for (std::int64_t dim : {0, 1, -1}) {
      litgrad::Tensor a = ours();
      torch::Tensor t = theirs();
      a.index_fill_(dim, litgrad::tensor({2.0, 0.0, 2.0}, {3}, litgrad::DType::Int64), -1.5);
      t.index_fill_(dim, torch::tensor({2, 0, 2}, torch::kInt64), -1.5);
      DOCTEST_CAPTURE(dim);
      DOCTEST_CHECK(same_bits(a.to_vector(), values(t)));
    }
  }
  SUBCASE("scatter_ of a source and of a value along each dimension, the source larger than the index") {
    for (std::int64_t dim : {0, 1}) {
      litgrad::Tensor a = ours();
      torch::Tensor t = theirs();
      const std::vector<double> picks =
          dim == 0 ? std::vector<double>{2, 0, 1, 1, 0, 2} : std::vector<double>{3, 0, 1, 2, 0, 1};
      a.scatter_(dim, litgrad::tensor(picks, {2, 3}, litgrad::DType::Int64),
                 litgrad::reshape(litgrad::arange(12.0), {3, 4}) * -1.0);
      t.scatter_(dim, torch::tensor(std::vector<double>(picks)).to(torch::kInt64).reshape({2, 3}),
                 torch::arange(12, torch::kFloat64).reshape({3, 4}) * -1.0);
      DOCTEST_CAPTURE(dim);
      DOCTEST_CHECK(same_bits(a.to_vector(), values(t)));
      a.scatter_(dim, litgrad::tensor({1.0, 2.0}, {1, 2}, litgrad::DType::Int64), 42.0);
      t.scatter_(dim, torch::tensor({1, 2}, torch::kInt64).reshape({1, 2}), 42.0);
      DOCTEST_CHECK(same_bits(a.to_vector(), values(t)));
    }
  }
}
