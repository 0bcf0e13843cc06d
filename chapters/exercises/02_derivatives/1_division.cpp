// Exercise 2.1 · Division in the scalar autograd
// ==============================================
//
// Add division to section 2's autograd: ``divide(a, b)`` makes the value
// :math:`q = a / b` and records how to push :math:`q`'s gradient back to :math:`a` and
// :math:`b`. Work out :math:`\partial q / \partial a` and :math:`\partial q / \partial
// b` first. Your file starts with a copy of the chapter's ``Value``, ``push``,
// ``make``, the operations and the backward walk; write ``divide`` at its end, in the
// style of ``operator*``. The tests check your gradients against central differences
// (section 1), including where :math:`q` is not the final result and where a value is
// used twice.

// %% hint
// A backward closure has three things to combine: the gradient that arrived at
// :math:`q` (``o->grad``), the local derivative of :math:`q` with respect to each
// parent, and the chain rule's way of joining them. Write :math:`a / b` as
// :math:`a \cdot b^{-1}` to find the derivative with respect to :math:`b`.

// %% fold: includes, and the parts of the autograd your file defines
#include <doctest/doctest.h>

#include <cmath>
#include <functional>
#include <memory>

struct Value;
using V = std::shared_ptr<Value>;
V leaf(double x);
V operator+(const V& a, const V& b);
V operator*(const V& a, const V& b);
void backward(const V& result);
double data_of(const V& v);
double grad_of(const V& v);

namespace {
// The central difference of q(a, b) in input i, dividing by the step taken.
double central(const std::function<double(double, double)>& q, double a, double b,
               int i) {
  const double h = 1e-5, x = i == 0 ? a : b, up = x + h, down = x - h;
  return (i == 0 ? q(up, b) - q(down, b) : q(a, up) - q(a, down)) / (up - down);
}
// Within 1e-8 (1 + |g|): the estimates here are good to about 1e-11 (section 1: a
// truncation of h² |∂³q| / 6 and rounding of a few u |q| / h), and every mistake below
// is off by far more.
bool close(double mine, double estimate) {
  return std::fabs(mine - estimate) <= 1e-8 * (1 + std::fabs(estimate));
}
}  // namespace

// %%
// The function to write, at the end of ``exercises/02_derivatives/1_division.cpp``:

V divide(const V& a, const V& b);

// %%
// The tests.

TEST_CASE("a / b has the value a / b and the gradients 1/b and -a/b²") {
  for (const auto& [x, y] : {std::pair{1.5, -2.5}, std::pair{0.3, 4.0}}) {
    const V a = leaf(x), b = leaf(y), q = divide(a, b);
    CHECK_MESSAGE(data_of(q) == x / y, "the forward value is a / b");
    backward(q);
    const auto quotient = [](double u, double v) { return u / v; };
    INFO("a = ", x, ", b = ", y, ": your gradients ", grad_of(a), " and ", grad_of(b),
         ", central differences ", central(quotient, x, y, 0), " and ",
         central(quotient, x, y, 1));
    CHECK_MESSAGE(close(grad_of(a), central(quotient, x, y, 0)),
                  "dq/da is 1/b, dividing by b, not multiplying: another value "
                  "points to dq/da taken as b");
    CHECK_MESSAGE(close(grad_of(b), central(quotient, x, y, 1)),
                  "dq/db is -a/b²: another value points to the minus sign of dq/db "
                  "lost, or to dq/db taken as a/b");
  }
}

TEST_CASE("inside a larger expression the incoming gradient is multiplied in") {
  // r = 3 (a / b): the gradient reaching q is 3, not 1.
  const double x = 0.8, y = 1.6;
  const V a = leaf(x), b = leaf(y), r = divide(a, b) * leaf(3);
  backward(r);
  const auto triple = [](double u, double v) { return 3 * (u / v); };
  INFO("your gradients ", grad_of(a), " and ", grad_of(b), ", central differences ",
       central(triple, x, y, 0), " and ", central(triple, x, y, 1));
  CHECK_MESSAGE(close(grad_of(a), central(triple, x, y, 0)),
                "the gradient pushed to a is the incoming gradient times dq/da: 1/b "
                "instead of 3/b points to the incoming gradient ignored");
  CHECK_MESSAGE(close(grad_of(b), central(triple, x, y, 1)),
                "the gradient pushed to b is the incoming gradient times dq/db");
}

TEST_CASE("a value used twice gets both shares: (a / b) + a") {
  const double x = 2.0, y = 0.5;
  const V a = leaf(x), b = leaf(y), r = divide(a, b) + a;
  backward(r);
  const auto both = [](double u, double v) { return u / v + u; };
  INFO("your gradient for a ", grad_of(a), ", central difference ",
       central(both, x, y, 0));
  CHECK_MESSAGE(close(grad_of(a), central(both, x, y, 0)),
                "a's gradient is 1/b + 1, its two shares added: one share alone "
                "points to a's gradient set instead of pushed");
}
