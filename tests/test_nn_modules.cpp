// The second floor's modules: moving modules, containers, Embedding, LayerNorm, activations,
// TransformerEncoderLayer's structure, and saving and loading weights.

#include <doctest/doctest.h>

#include <cmath>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <sstream>

#include <litgrad/litgrad.hpp>

#include "helpers.hpp"

using namespace litgrad;

namespace {
std::vector<std::string> names(const nn::Module& m) {
  std::vector<std::string> out;
  for (auto& [name, p] : m.named_parameters()) out.push_back(name);
  return out;
}

struct Pair : nn::Module {
  nn::Linear first, second;
  explicit Pair(Generator& gen) : Module("Pair"), first(2, 3, true, gen), second(3, 1, true, gen) {
    register_module("first", first);
    register_module("second", second);
  }
  Tensor forward(const Tensor& x) const { return second(tanh(first(x))); }
};

struct Stray : nn::Module {
  explicit Stray(nn::Linear& elsewhere) : Module("Stray") { register_module("elsewhere", elsewhere); }
};

std::string temporary(const std::string& name) {
  return (std::filesystem::temp_directory_path() / ("litgrad-test-" + name)).string();
}
}  // namespace

TEST_CASE("modules move: in a std::vector, their registries still find their own members") {
  Generator gen(1);
  std::vector<Pair> models;
  for (int i = 0; i < 5; ++i) models.emplace_back(gen);  // grows, moving the earlier ones
  const Tensor x = randn({4, 2}, gen);
  for (auto& m : models) {
    CHECK(names(m) == std::vector<std::string>{"first.weight", "first.bias", "second.weight", "second.bias"});
    CHECK(m.parameter("first.weight").is_same(m.first.weight));
    CHECK(m.parameter("second.bias").is_same(m.second.bias));
    sum(m.forward(x)).backward();
    CHECK(m.first.weight.grad().defined());
  }
  Pair moved = std::move(models[2]);
  CHECK(moved.parameter("second.weight").is_same(moved.second.weight));
  moved.eval();
  CHECK_FALSE(moved.first.is_training());
}

TEST_CASE("registering a module that cannot be a member (one on the stack, from a module on the heap) is refused, naming it") {
  Generator gen(1);
  nn::Linear outside(2, 2, true, gen);
  CHECK_THROWS_WITH_AS(std::make_unique<Stray>(outside),
                       doctest::Contains("Stray: sub-module 'elsewhere' is not a member of this module"), ValueError);
}

TEST_CASE("Sequential applies its modules in order and names their parameters by position, as torch") {
  Generator gen(2);
  nn::Sequential mlp(nn::Linear(2, 4, true, gen), nn::Tanh(), nn::Linear(4, 1, true, gen));
  CHECK(names(mlp) == std::vector<std::string>{"0.weight", "0.bias", "2.weight", "2.bias"});
  const Tensor x = randn({3, 2}, gen);
  const auto& a = mlp.at<nn::Linear>(0);
  const auto& b = mlp.at<nn::Linear>(2);
  CHECK(test::identical(mlp(x), b(tanh(a(x)))));
  CHECK(mlp.size() == 3);
  CHECK_THROWS_WITH_AS(mlp.at<nn::Linear>(1), "Sequential: module 1 is a Tanh, not the type asked for", ValueError);
  CHECK_THROWS_AS(mlp[3], IndexError);
  std::ostringstream os;
  os << mlp;
  CHECK(os.str() == "Sequential(\n  (0): Linear(in_features=2, out_features=4, bias=True)\n  (1): Tanh()\n"
                    "  (2): Linear(in_features=4, out_features=1, bias=True)\n)");
  nn::Sequential moved = std::move(mlp);  // moves, and still works
  CHECK(test::identical(moved(x), b(tanh(a(x)))));
}

TEST_CASE("ModuleList holds modules under their indices and hands them back in their type") {
  Generator gen(3);
  nn::ModuleList layers;
  for (int i = 0; i < 3; ++i) layers.push_back(nn::Linear(4, 4, i != 1, gen));
  CHECK(names(layers) == std::vector<std::string>{"0.weight", "0.bias", "1.weight", "2.weight", "2.bias"});
  CHECK(layers.size() == 3);
  CHECK_FALSE(layers.at<nn::Linear>(1).bias.defined());
  CHECK_THROWS_AS(layers.at<nn::Embedding>(0), ValueError);
  CHECK_THROWS_AS(layers[5], IndexError);
}

TEST_CASE("Embedding looks rows up, sums the gradients of repeated ids, and keeps its padding row at zero") {
  Generator gen(4);
  nn::Embedding table(5, 3, 1, gen);
  for (std::int64_t j = 0; j < 3; ++j) CHECK(table.weight.at({1, j}) == 0.0);
  const Tensor ids = tensor({2, 1, 2, 4, 1, 2}, {2, 3}, DType::Int64);
  const Tensor v = table(ids);
  CHECK(v.shape() == Shape{2, 3, 3});
  for (std::int64_t i = 0; i < 2; ++i)
    for (std::int64_t k = 0; k < 3; ++k)
      for (std::int64_t j = 0; j < 3; ++j)
        CHECK(v.at({i, k, j}) == table.weight.at({static_cast<std::int64_t>(ids.at({i, k})), j}));
  sum(v).backward();
  const Tensor g = table.weight.grad();
  for (std::int64_t j = 0; j < 3; ++j) {
    CHECK(g.at({0, j}) == 0.0);  // never looked up
    CHECK(g.at({1, j}) == 0.0);  // the padding row, looked up twice
    CHECK(g.at({2, j}) == 3.0);  // looked up three times
    CHECK(g.at({4, j}) == 1.0);
  }
  CHECK(nn::Embedding(5, 3, -1, gen).padding_idx == 4);
  std::ostringstream os;
  os << table;
  CHECK(os.str() == "Embedding(5, 3, padding_idx=1)");
}

TEST_CASE("LayerNorm gives each token mean 0 and variance var / (var + eps), then scales and shifts") {
  Generator gen(5);
  nn::LayerNorm norm(6);
  const Tensor x = randn({4, 6}, gen) * 3.0 + 1.0;
  const Tensor y = norm(x);
  const Tensor v = var(x, {1}, 0);  // each token's biased variance
  for (std::int64_t t = 0; t < 4; ++t) {
    CHECK(std::fabs(mean(select(y, 0, t)).item()) < 1e-15);
    const double expected = v.at({t}) / (v.at({t}) + 1e-5);
    CHECK(std::fabs(var(select(y, 0, t), {}, 0).item() - expected) < 1e-14);
  }
  norm.weight.data()[0] = 2.0;
  norm.bias.data()[0] = -1.0;
  const Tensor scaled = norm(x);
  for (std::int64_t t = 0; t < 4; ++t) CHECK(scaled.at({t, 0}) == y.at({t, 0}) * 2.0 + -1.0);
  CHECK(names(nn::LayerNorm(6, 1e-5, false)).empty());
  std::ostringstream os;
  os << norm;
  CHECK(os.str() == "LayerNorm((6,), eps=1e-05, elementwise_affine=True)");
  CHECK_THROWS_WITH_AS(norm(randn({4, 5}, gen)), "layer_norm: input of shape [4,5] does not end in normalized_shape [6]",
                       ShapeError);
}

TEST_CASE("the activation modules are their functions, and Dropout is the identity in evaluation") {
  Generator gen(6);
  const Tensor x = randn({3, 4}, gen);
  CHECK(test::identical(nn::ReLU()(x), relu(x)));
  CHECK(test::identical(nn::Tanh()(x), tanh(x)));
  CHECK(test::identical(nn::Sigmoid()(x), sigmoid(x)));
  CHECK(test::identical(nn::GELU("tanh")(x), gelu(x, "tanh")));
  nn::Dropout drop(0.5, gen);
  drop.eval();
  CHECK(test::identical(drop(x), x));
  drop.train();
  const Tensor dropped = drop(ones({1000}));
  std::int64_t zeros_seen = 0;
  for (std::int64_t i = 0; i < 1000; ++i) zeros_seen += dropped.at({i}) == 0.0;
  CHECK(zeros_seen > 400);  // half, within five standard deviations (sqrt(250) ≈ 16)
  CHECK(zeros_seen < 600);
  CHECK_THROWS_WITH_AS(nn::GELU("erf"), "GELU: approximate must be \"none\" or \"tanh\", got \"erf\"", ValueError);
}

TEST_CASE("TransformerEncoderLayer has torch's parameters, in torch's order and shapes") {
  nn::TransformerEncoderLayerOptions o;
  o.dim_feedforward = 16;
  nn::TransformerEncoderLayer layer(8, 2, o);
  CHECK(names(layer) == std::vector<std::string>{"self_attn.in_proj_weight", "self_attn.in_proj_bias",
                                                 "self_attn.out_proj.weight", "self_attn.out_proj.bias",
                                                 "linear1.weight", "linear1.bias", "linear2.weight", "linear2.bias",
                                                 "norm1.weight", "norm1.bias", "norm2.weight", "norm2.bias"});
  CHECK(layer.parameter("linear1.weight").shape() == Shape{16, 8});
  CHECK(layer(randn({5, 3, 8})).shape() == Shape{5, 3, 8});
  o.activation = "swish";
  CHECK_THROWS_WITH_AS(nn::TransformerEncoderLayer(8, 2, o),
                       "TransformerEncoderLayer: activation must be \"relu\" or \"gelu\", got \"swish\"", ValueError);
}

TEST_CASE("a saved and loaded module gives bit-identical outputs") {
  Generator gen(7);
  Pair a(gen), b(gen);
  const std::string path = temporary("pair.state");
  nn::save(a, path);
  nn::load(b, path);
  const Tensor x = randn({6, 2}, gen);
  CHECK(test::identical(a.forward(x), b.forward(x)));
  nn::TransformerEncoderLayer t1(8, 2), t2(8, 2);
  nn::save(t1, path);
  nn::load(t2, path);
  t1.eval(), t2.eval();
  const Tensor s = randn({4, 2, 8}, gen);
  CHECK(test::identical(t1(s), t2(s)));
  std::filesystem::remove(path);
}

TEST_CASE("loading a truncated, foreign or mismatched file is refused, naming the file and the problem, and leaves the module as it was") {
  Generator gen(8);
  Pair a(gen), b(gen);
  const std::string path = temporary("pair-bad.state");
  nn::save(a, path);
  std::string text;
  {
    std::ifstream f(path);
    std::stringstream s;
    s << f.rdbuf();
    text = s.str();
  }
  const Tensor before = b.first.weight.detach();
  const std::vector<double> saved = before.to_vector();
  auto attempt = [&](const std::string& contents, const std::string& expected) {
    {
      std::ofstream f(path, std::ios::trunc);
      f << contents;
    }
    CHECK_THROWS_WITH_AS(nn::load(b, path), doctest::Contains(expected.c_str()), ValueError);
    CHECK(b.first.weight.to_vector() == saved);
  };
  attempt(text.substr(0, text.size() / 2), "is truncated");
  attempt("PK\x03\x04 not ours", "is not a litgrad state_dict");
  attempt("litgrad state_dict 7\n", "has format version 7; this litgrad reads versions 1 and 2");
  std::string changed = text;
  changed.replace(changed.find("second.bias"), 11, "second.beta");
  attempt(changed, "the file was changed or damaged");  // the checksum sees the edit
  StateDict renamed;
  for (const auto& [key, value] : a.state_dict()) renamed.insert(key == "second.bias" ? "second.beta" : key, value);
  save(renamed, path);
  CHECK_THROWS_WITH_AS(nn::load(b, path),
                       doctest::Contains("Pair.load_state_dict: missing keys: second.bias; unexpected keys: second.beta"),
                       ValueError);
  nn::save(nn::Linear(2, 4, true, gen), path);
  CHECK_THROWS_WITH_AS(nn::load(b, path),
                       doctest::Contains("missing keys: first.weight, first.bias, second.weight, second.bias; "
                                         "unexpected keys: weight, bias"),
                       ValueError);
  Pair c(gen);
  struct Wide : nn::Module {
    nn::Linear first, second;
    explicit Wide(Generator& g) : Module("Pair"), first(2, 5, true, g), second(5, 1, true, g) {
      register_module("first", first);
      register_module("second", second);
    }
  } wide(gen);
  nn::save(wide, path);
  CHECK_THROWS_WITH_AS(nn::load(c, path), doctest::Contains("'first.weight' is Float64 [5,2] in the state_dict and Float64 [3,2] here"),
                       ValueError);
  CHECK_THROWS_WITH_AS(nn::load(c, temporary("no-such-file")), doctest::Contains("load: cannot read"), ValueError);
  std::filesystem::remove(path);
}
