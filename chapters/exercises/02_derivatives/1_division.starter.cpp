// Exercise 2.1 · Division in the scalar autograd. This is your file: write divide at
// its end, then run `tools/exercise check 02.1`; `tools/exercise hint 02.1` prints
// a hint.
#include <functional>
#include <memory>
#include <set>
#include <string>
#include <vector>

// ---- The chapter's autograd (section 2), as it stands: leave it as it is. ----

struct Value;
using V = std::shared_ptr<Value>;

struct Value {
  double data = 0, grad = 0;
  std::vector<V> parents;          // the values this one was made from
  std::function<void()> backward;  // adds this value's share into its parents' grads
  std::string op;                  // how it was made
};

V leaf(double x) {
  return std::make_shared<Value>(Value{x, 0, {}, [] {}, ""});
}
double data_of(const V& v) { return v->data; }
double grad_of(const V& v) { return v->grad; }

void push(Value& parent, double amount) { parent.grad += amount; }

V make(double data, std::vector<V> parents, std::string op) {
  return std::make_shared<Value>(
      Value{data, 0, std::move(parents), [] {}, std::move(op)});
}

V operator+(const V& a, const V& b) {
  V out = make(a->data + b->data, {a, b}, "+");
  Value* o = out.get();
  out->backward = [a, b, o] { push(*a, o->grad), push(*b, o->grad); };
  return out;
}

V operator*(const V& a, const V& b) {
  V out = make(a->data * b->data, {a, b}, "*");
  Value* o = out.get();
  out->backward = [a, b, o] {
    push(*a, o->grad * b->data), push(*b, o->grad * a->data);
  };
  return out;
}

void topological(const V& v, std::set<Value*>& seen, std::vector<V>& order) {
  if (!seen.insert(v.get()).second) return;
  for (const V& p : v->parents) topological(p, seen, order);
  order.push_back(v);
}

void backward(const V& result) {
  std::set<Value*> seen;
  std::vector<V> order;
  topological(result, seen, order);
  result->grad = 1;
  for (auto it = order.rbegin(); it != order.rend(); ++it) (*it)->backward();
}

// ---- Yours: division. ----

// q = a / b, with its backward.
V divide(const V& a, const V& b) {
  // The forward value is right; the closure pushing the gradient back is still empty.
  return make(a->data / b->data, {a, b}, "/");
}
