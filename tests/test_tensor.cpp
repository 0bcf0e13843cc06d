// Tensors: layout, making them, dtypes, printing, and the errors of misuse.

#include <doctest/doctest.h>

#include <litgrad/litgrad.hpp>

#include "helpers.hpp"

using namespace litgrad;

TEST_CASE("a tensor is contiguous and row-major: element (i, j) of an n-by-m tensor is element i*m + j of data()") {
  const Tensor t = tensor({{1, 2, 3}, {4, 5, 6}});
  CHECK(t.shape() == Shape{2, 3});
  for (std::int64_t i = 0; i < 2; ++i)
    for (std::int64_t j = 0; j < 3; ++j) CHECK(t.at({i, j}) == t.data()[i * 3 + j]);
  CHECK(t.at({-1, -1}) == 6.0);
}

TEST_CASE("tensors have any number of dimensions: a 5-D tensor sums, broadcasts and multiplies") {
  Generator gen(3);
  const Tensor a = randn({2, 1, 3, 2, 4}, gen), b = randn({4, 1, 4, 2}, gen);
  CHECK(matmul(a, b).shape() == Shape{2, 4, 3, 2, 2});
  CHECK(sum(a, {0, 2, 4}).shape() == Shape{1, 2});
  CHECK((a + randn({3, 1, 1}, gen)).shape() == Shape{2, 1, 3, 2, 4});
}

TEST_CASE("the making functions give the shapes and values their names say") {
  CHECK(test::identical(zeros({2, 2}), tensor({{0, 0}, {0, 0}})));
  CHECK(test::identical(ones({3}), tensor({1, 1, 1})));
  CHECK(test::identical(full({2}, 7), tensor({7, 7})));
  CHECK(test::identical(eye(2), tensor({{1, 0}, {0, 1}})));
  CHECK(test::identical(arange(4), tensor({0, 1, 2, 3}, {4}, DType::Int64)));
  CHECK(test::identical(arange(4.0), tensor({0, 1, 2, 3})));
  CHECK(test::identical(arange(1, 2, 0.25), tensor({1, 1.25, 1.5, 1.75})));
  CHECK(scalar_tensor(2.5).dim() == 0);
  CHECK(scalar_tensor(2.5).item() == 2.5);
  CHECK(zeros({0, 3}).numel() == 0);
}

TEST_CASE("to() converts dtypes as torch: nonzero is true, Int64 truncates toward zero") {
  const Tensor x = tensor({-1.5, 0, 2.7});
  CHECK(test::identical(to(x, DType::Bool), tensor({1, 0, 1}, {3}, DType::Bool)));
  CHECK(test::identical(to(x, DType::Int64), tensor({-1, 0, 2}, {3}, DType::Int64)));
  CHECK_THROWS_WITH_AS(to(tensor({NAN}), DType::Int64), doctest::Contains("to: cannot convert nan to Int64"),
                       ValueError);
}

TEST_CASE("a tensor prints as torch prints it, but for the name of the operation in grad_fn") {
  CHECK(to_string(tensor({{1, 2}, {3, 4}})) == "tensor([[1., 2.],\n        [3., 4.]])");
  CHECK(to_string(tensor({0.5, -1.25})) == "tensor([ 0.5000, -1.2500])");
  CHECK(to_string(scalar_tensor(3)) == "tensor(3.)");
  CHECK(to_string(tensor({1, 0}, {2}, DType::Bool)) == "tensor([ True, False], dtype=Bool)");
  CHECK(to_string(tensor({3, 1}, {2}, DType::Int64)) == "tensor([3, 1], dtype=Int64)");
  CHECK(to_string(tensor({1e-6, 1})) == "tensor([1.0000e-06, 1.0000e+00])");
  CHECK(to_string(tensor({1, -INFINITY, NAN})) == "tensor([1., -inf, nan])");
  CHECK(to_string(reshape(arange(1.0, 9.0), {2, 2, 2})) ==
        "tensor([[[1., 2.],\n         [3., 4.]],\n\n        [[5., 6.],\n         [7., 8.]]])");
  Tensor x = tensor({1.5}).requires_grad_();
  CHECK(to_string(x) == "tensor([1.5000], requires_grad=True)");
  CHECK(to_string(x * 2.0) == "tensor([3.], grad_fn=<mul>)");
  CHECK(to_string(zeros({0, 2})) == "tensor([], size=[0,2])");
}

TEST_CASE("misusing a tensor throws an error that names the operation and the shapes or values") {
  CHECK_THROWS_WITH_AS(tensor({1, 2, 3}, {2, 2}), "tensor: 3 values do not fill shape [2,2] (4 elements)", ShapeError);
  CHECK_THROWS_WITH_AS(tensor({1.5}, {1}, DType::Int64), doctest::Contains("tensor: Int64 values must be integers"),
                       ValueError);
  CHECK_THROWS_WITH_AS(tensor({2}, {1}, DType::Bool), doctest::Contains("tensor: Bool values must be 0 or 1"),
                       ValueError);
  CHECK_THROWS_WITH_AS(tensor({{1, 2}, {3}}), "tensor: rows of different lengths (2 and 1)", ShapeError);
  CHECK_THROWS_WITH_AS(zeros({2, -1}), "zeros: negative size in shape [2,-1]", ValueError);
  CHECK_THROWS_WITH_AS(ones({2}).item(), "item: expected a tensor with one element, got shape [2]", ValueError);
  CHECK_THROWS_WITH_AS(ones({2, 3}).at({0, 3}), "at: index 3 is out of range for dimension 1 of size 3", IndexError);
  CHECK_THROWS_WITH_AS(ones({2, 3}).size(2),
                       doctest::Contains("size: dimension 2 is out of range for a tensor with 2 dimensions"),
                       IndexError);
  CHECK_THROWS_WITH_AS(arange(0, 1, 0), doctest::Contains("arange: cannot step from"), ValueError);
  CHECK_THROWS_WITH_AS(Tensor().shape(), doctest::Contains("undefined"), ValueError);
  Tensor i = tensor({1}, {1}, DType::Int64);
  CHECK_THROWS_WITH_AS(i.requires_grad_(), "requires_grad_: only Float64 tensors can require grad, this one is Int64",
                       ValueError);
  Tensor x = ones({1}).requires_grad_();
  Tensor y = x * 2.0;
  CHECK_THROWS_WITH_AS(y.requires_grad_(),
                       doctest::Contains("requires_grad_: only leaves can be marked; this tensor was made by mul"),
                       ValueError);
}

TEST_CASE(
    "copy_ writes values in place as torch's: broadcast to the destination, converted to its dtype, seen through "
    "shared storage") {
  Tensor w = zeros({2, 3});
  const Tensor view = reshape(w, {6});  // shares w's storage
  w.copy_(tensor({1, 2, 3}, {3}));      // a row broadcast down both rows
  CHECK(w.to_vector() == std::vector<double>{1, 2, 3, 1, 2, 3});
  CHECK(view.to_vector() == w.to_vector());
  Tensor ids = tensor({0, 0}, {2}, DType::Int64);
  ids.copy_(tensor({2.75, -1.5}));  // to Int64 truncates, as torch
  CHECK(ids.to_vector() == std::vector<double>{2, -1});
  CHECK(ids.dtype() == DType::Int64);
  Tensor p = zeros({2}).requires_grad_();
  {
    NoGradGuard no_grad;
    p.copy_(scalar_tensor(0.25));
  }
  CHECK(p.to_vector() == std::vector<double>{0.25, 0.25});
  CHECK(p.requires_grad());
  CHECK(p.is_leaf());
}

TEST_CASE(
    "copy_ refuses a source that does not broadcast, and a tensor that requires grad while gradients are recorded") {
  Tensor w = zeros({2, 3});
  CHECK_THROWS_WITH_AS(w.copy_(ones({2})), "copy_: the source's shape [2] does not broadcast to [2,3]", ShapeError);
  CHECK_THROWS_WITH_AS(w.copy_(ones({1, 2, 3})), "copy_: the source's shape [1,2,3] does not broadcast to [2,3]",
                       ShapeError);
  Tensor p = zeros({2}).requires_grad_();
  CHECK_THROWS_WITH_AS(p.copy_(ones({2})), doctest::Contains("copy_: the destination requires grad"), AutogradError);
  CHECK_THROWS_WITH_AS(w.copy_(p * 2.0), doctest::Contains("copy_: the source requires grad"), AutogradError);
}
