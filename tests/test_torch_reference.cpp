// Values and gradients of composite expressions, compared with PyTorch 1.13.
//
// reference/make_torch_reference.py computed each expression below in torch (double precision)
// and wrote its inputs, output and the gradients of sum(output²) to reference/torch_composites.txt.
// This test builds the same expression from the same inputs in litgrad and compares.
//
// Threshold: both sides compute in double with the same formulas but may add in other orders.
// Each result is a few dozen operations deep with condition numbers of order 10, so both are
// within about 1e-14 of the exact value; we require agreement to 1e-12 relative to
// max(1, |value|), which a wrong formula misses by many orders of magnitude.

#include <doctest/doctest.h>

#include <cmath>
#include <fstream>
#include <functional>
#include <map>
#include <sstream>

#include <litgrad/litgrad.hpp>

using namespace litgrad;

namespace {

struct Case {
  std::vector<std::string> input_names;
  std::vector<Tensor> inputs;
  Shape output_shape;
  std::vector<double> output;
  std::map<std::string, std::vector<double>> grads;
};

// The same expressions as make_torch_reference.py, by name; `in` holds the inputs in file order.
using Expr = std::function<Tensor(const std::vector<Tensor>& in)>;
const std::map<std::string, Expr>& expressions() {
  static const std::map<std::string, Expr> e = {
      {"attention_by_hand", [](auto& in) { return matmul(softmax(matmul(in[0], transpose(in[1], 0, 1)) / 2.0, -1), in[2]); }},
      {"mlp_tanh_sigmoid",
       [](auto& in) { return sigmoid(matmul(tanh(matmul(in[0], transpose(in[1], 0, 1)) + in[2]), transpose(in[3], 0, 1))); }},
      {"cross_entropy_mean", [](auto& in) { return reshape(cross_entropy(in[0], in[1]), {1}); }},
      {"broadcast_exp_log_div", [](auto& in) { return log(exp(in[0]) + in[1] * in[1]) / (1.0 + in[1] * in[1]); }},
      {"causal_masked_softmax_mean", [](auto& in) { return mean(softmax(masked_fill(in[0], in[1], -INFINITY), -1), {0}); }},
      {"relu_max_mse", [](auto& in) { return reshape(mse_loss(max(relu(in[0]), 1).values, in[1]), {1}); }},
      {"batched_matmul_broadcast_permute", [](auto& in) { return sum(permute(matmul(in[0], in[1]), {3, 0, 2, 1}), {0, 3}, true); }},
      {"gather_cat_stack_slice",
       [](auto& in) { return stack({slice(cat({in[0], in[1]}, 1), 1, 1, 5, 2), gather(in[0], 1, in[2]) * in[1]}, 0); }},
      {"sin_cos_pow_where",
       [](auto& in) { return where(gt(in[0], scalar_tensor(0)), pow(sin(in[0]), 2.0), cos(in[0]) * in[0]) + pow(in[0], 3.0); }},
      {"log_softmax_sum_over_dims", [](auto& in) { return sum(log_softmax(in[0], 1), {-1}) - mean(in[0]); }},
  };
  return e;
}

std::vector<double> numbers(std::istringstream& s) {
  std::vector<double> v;
  std::string word;
  while (s >> word) v.push_back(std::stod(word));
  return v;
}

std::map<std::string, Case> read_reference() {
  std::ifstream file(LITGRAD_TEST_DATA_DIR "/torch_composites.txt");
  REQUIRE_MESSAGE(file.good(), "missing " LITGRAD_TEST_DATA_DIR "/torch_composites.txt");
  std::map<std::string, Case> cases;
  Case* current = nullptr;
  std::string line;
  while (std::getline(file, line)) {
    std::istringstream s(line);
    std::string kind, name, word;
    s >> kind;
    if (kind == "case") {
      s >> name;
      current = &cases[name];
    } else if (kind == "input" || kind == "output") {
      std::string dtype = "f";
      if (kind == "input") s >> name >> dtype;
      Shape shape;
      while (s >> word && word != ":") shape.push_back(std::stoll(word));
      const std::vector<double> values = numbers(s);
      if (kind == "output") {
        current->output_shape = shape;
        current->output = values;
      } else {
        const DType t = dtype == "f" ? DType::Float64 : dtype == "i" ? DType::Int64 : DType::Bool;
        Tensor x = tensor(values, shape, t);
        if (t == DType::Float64) x.requires_grad_();
        current->input_names.push_back(name);
        current->inputs.push_back(x);
      }
    } else if (kind == "grad") {
      s >> name >> word;
      current->grads[name] = numbers(s);
    }
  }
  return cases;
}

double worst_relative(const double* a, const std::vector<double>& b) {
  double worst = 0;
  for (std::size_t i = 0; i < b.size(); ++i) worst = std::max(worst, std::fabs(a[i] - b[i]) / std::max(1.0, std::fabs(b[i])));
  return worst;
}

}  // namespace

TEST_CASE("composite expressions agree with PyTorch to 1e-12 in value and in every gradient") {
  const auto cases = read_reference();
  REQUIRE(cases.size() == expressions().size());
  for (const auto& [name, c] : cases) {
    CAPTURE(name);
    REQUIRE(expressions().count(name) == 1);
    const Tensor y = expressions().at(name)(c.inputs);
    REQUIRE(y.shape() == c.output_shape);
    CHECK(worst_relative(y.data(), c.output) <= 1e-12);
    sum(y * y).backward();
    for (std::size_t k = 0; k < c.inputs.size(); ++k) {
      if (c.inputs[k].dtype() != DType::Float64) continue;
      CAPTURE(c.input_names[k]);
      REQUIRE(c.inputs[k].grad().defined());
      CHECK(worst_relative(c.inputs[k].grad().data(), c.grads.at(c.input_names[k])) <= 1e-12);
    }
  }
}
