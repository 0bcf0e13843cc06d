// The reductions at their degenerate points, where a formula for the gradient divides by zero
// or has to choose among equal elements, give torch's gradient to the bit: a constant row's
// standard deviation (torch: 0 where sqrt's derivative is infinite), ties for the largest or
// smallest element of a whole tensor (torch's max() shares the gradient evenly; max along a
// dimension gives it to the first), the zero vector's norm, a variance of too few elements.
// (One exception to the bit: min is max of the negation, so its zeros are -0 where torch's are +0.)

#include <doctest/doctest.h>
#include <torch/torch.h>  // whose glog defines a CHECK that aborts: doctest's is DOCTEST_CHECK here

#include <cmath>
#include <cstring>
#include <functional>
#include <string>
#include <vector>

#include <litgrad/litgrad.hpp>

namespace {

// The gradient of f(x) summed, with respect to x, in both libraries, from the same values.
struct Both {
  std::vector<double> value_ours, value_torch, grad_ours, grad_torch;
};

Both gradients(const std::vector<double>& x, const std::vector<std::int64_t>& shape,
               const std::function<litgrad::Tensor(const litgrad::Tensor&)>& ours,
               const std::function<torch::Tensor(const torch::Tensor&)>& theirs) {
  Both b;
  litgrad::Tensor a = litgrad::tensor(x, shape).requires_grad_();
  const litgrad::Tensor ya = ours(a);
  litgrad::sum(ya).backward();
  b.value_ours = ya.to_vector();
  b.grad_ours = a.grad().to_vector();
  torch::Tensor t = torch::tensor(x, torch::kFloat64).reshape(shape).requires_grad_();
  const torch::Tensor yt = theirs(t);
  yt.sum().backward();
  const torch::Tensor vt = yt.detach().contiguous().reshape({-1}), gt = t.grad().contiguous().reshape({-1});
  b.value_torch.assign(vt.data_ptr<double>(), vt.data_ptr<double>() + vt.numel());
  b.grad_torch.assign(gt.data_ptr<double>(), gt.data_ptr<double>() + gt.numel());
  return b;
}

// Every element the same bit pattern, but that a NaN matches any NaN: torch's reductions may
// return one with its sign bit set, which no operation may rely on.
bool same_bits(const std::vector<double>& a, const std::vector<double>& b) {
  if (a.size() != b.size()) return false;
  for (std::size_t i = 0; i < a.size(); ++i)
    if (!(std::isnan(a[i]) && std::isnan(b[i])) && std::memcmp(&a[i], &b[i], sizeof(double)) != 0) return false;
  return true;
}

std::string text(const std::vector<double>& v) {
  std::string s;
  for (double x : v) s += std::to_string(x) + " ";
  return s;
}

void check_same(const Both& b, bool zeros_signed = true) {
  DOCTEST_INFO("values ", text(b.value_ours), "against torch's ", text(b.value_torch), "; gradients ",
               text(b.grad_ours), "against ", text(b.grad_torch));
  DOCTEST_CHECK(same_bits(b.value_ours, b.value_torch));
  if (zeros_signed)
    DOCTEST_CHECK(same_bits(b.grad_ours, b.grad_torch));
  else  // the same values, but a zero may be -0 where torch's is +0
    DOCTEST_CHECK(b.grad_ours == b.grad_torch);
}

}  // namespace

TEST_CASE("at their degenerate points the reductions give torch's values and gradients to the bit") {
  const double nan = std::nan("");
  SUBCASE("std of a constant row: gradient 0, not NaN; of one element with correction 1: NaN, as torch") {
    for (const std::vector<double>& x :
         {std::vector<double>{2, 2, 2, 1, 5, 3}, std::vector<double>{7, 7, 7, 7, 7, 7}}) {
      check_same(gradients(
          x, {2, 3}, [](const litgrad::Tensor& t) { return litgrad::std(t, {1}); },
          [](const torch::Tensor& t) { return t.std(1); }));
    }
    check_same(gradients(
        {2, 3}, {2, 1}, [](const litgrad::Tensor& t) { return litgrad::std(t, {1}); },
        [](const torch::Tensor& t) { return t.std(1); }));
    check_same(gradients(
        {4, 4, 4, 4}, {4}, [](const litgrad::Tensor& t) { return litgrad::std(t); },
        [](const torch::Tensor& t) { return t.std(); }));
  }
  SUBCASE("var of a constant row and of too few elements") {
    check_same(gradients(
        {2, 2, 2, 1, 5, 3}, {2, 3}, [](const litgrad::Tensor& t) { return var(t, {1}); },
        [](const torch::Tensor& t) { return t.var(1); }));
    check_same(gradients(
        {2, 3}, {2, 1}, [](const litgrad::Tensor& t) { return var(t, {1}); },
        [](const torch::Tensor& t) { return t.var(1); }));
  }
  SUBCASE("max and min of a whole tensor with ties share the gradient evenly; along a dimension the first wins") {
    for (const std::vector<double>& x :
         {std::vector<double>{1, 3, 3, 2, 3, 0}, std::vector<double>{1, nan, 3, nan, 2, 0},
          std::vector<double>{5, 5, 5, 5, 5, 5}}) {
      DOCTEST_CAPTURE(x[1]);
      check_same(gradients(
          x, {2, 3}, [](const litgrad::Tensor& t) { return max(t); }, [](const torch::Tensor& t) { return t.max(); }));
      check_same(gradients(
                     x, {2, 3}, [](const litgrad::Tensor& t) { return min(t); },
                     [](const torch::Tensor& t) { return t.min(); }),
                 /*zeros_signed=*/false);  // min is max of the negation: the gradients not shared are -0
      check_same(gradients(
          x, {2, 3}, [](const litgrad::Tensor& t) { return max(t, 1).values; },
          [](const torch::Tensor& t) { return std::get<0>(t.max(1)); }));
    }
  }
  SUBCASE("the norm of the zero vector: gradient 0") {
    check_same(gradients(
        {0, 0, 0}, {3}, [](const litgrad::Tensor& t) { return norm(t); },
        [](const torch::Tensor& t) { return t.norm(); }));
  }
}
