// autograd::recorded_graph: the graph a computation recorded, read out as data, with the
// modules each operation ran inside (the book draws its diagrams from it).

#include <doctest/doctest.h>

#include <map>
#include <string>
#include <vector>

#include <litgrad/book/diagrams.hpp>
#include <litgrad/litgrad.hpp>

using namespace litgrad;

namespace {

std::vector<std::string> ops(const autograd::RecordedGraph& g) {
  std::vector<std::string> out;
  for (const auto& v : g.vertices) out.push_back(v.op.empty() ? "(" + v.name + ")" : v.op);
  return out;
}

}  // namespace

TEST_CASE(
    "recorded_graph lists every operation after its inputs, each tensor once, with shapes and edges in input order") {
  Tensor a = randn({2, 3}).requires_grad_(), b = randn({3, 4}).requires_grad_();
  const Tensor c = ones({2, 4});  // a constant: no history, no grad
  const Tensor y = sum(tanh(matmul(a, b)) * a.sum() + c);
  const auto g = autograd::recorded_graph(y, {{"a", a}, {"b", b}});
  // a is read twice (by matmul and sum) and is one vertex; c is a constant with no name.
  CHECK(ops(g) == std::vector<std::string>{"(a)", "(b)", "matmul", "tanh", "sum", "mul", "()", "add", "sum"});
  CHECK(g.vertices[2].shape == Shape{2, 4});
  CHECK(g.vertices[4].shape == Shape{});
  CHECK(g.vertices[6].requires_grad == false);
  CHECK(g.vertices[0].requires_grad == true);
  using E = std::pair<std::size_t, std::size_t>;
  CHECK(g.edges == std::vector<E>{{0, 2}, {1, 2}, {2, 3}, {0, 4}, {3, 5}, {4, 5}, {5, 7}, {6, 7}, {7, 8}});
  // Without a capture no operation has scopes.
  for (const auto& v : g.vertices) CHECK(v.scopes.empty());
}

TEST_CASE("recorded_graph of a tensor with no history is that tensor alone") {
  Tensor x = randn({3}).requires_grad_();
  const auto g = autograd::recorded_graph(x, {{"x", x}});
  REQUIRE(g.vertices.size() == 1);
  CHECK(g.vertices[0].name == "x");
  CHECK(g.edges.empty());
}

TEST_CASE("recorded_graph refuses a graph a backward pass freed, and names the operation") {
  Tensor x = randn({3}).requires_grad_();
  Tensor y = sum(exp(x));
  y.backward();
  CHECK_THROWS_WITH_AS(autograd::recorded_graph(y), doctest::Contains("made by sum) was freed by a backward pass"),
                       AutogradError);
  Tensor z = sum(exp(x));
  z.backward({}, /*retain_graph=*/true);
  CHECK(autograd::recorded_graph(z).vertices.size() == 3);
  CHECK_THROWS_AS(autograd::recorded_graph(Tensor()), ValueError);
}

TEST_CASE("recorded_graph shows what an operation reads besides its inputs: where's condition") {
  Tensor a = randn({3}).requires_grad_();
  const Tensor condition = tensor({1, 0, 1}, {3}, DType::Bool), b = zeros({3});
  const auto g = autograd::recorded_graph(where(condition, a, b), {{"a", a}, {"condition", condition}});
  CHECK(ops(g) == std::vector<std::string>{"(a)", "()", "(condition)", "where"});
  using E = std::pair<std::size_t, std::size_t>;
  CHECK(g.edges == std::vector<E>{{0, 3}, {1, 3}, {2, 3}});
}

TEST_CASE("under a ScopeCapture each operation carries the modules it ran inside, opened by their call operators") {
  Generator gen(1);
  nn::TransformerEncoderLayerOptions o;
  o.dim_feedforward = 8, o.dropout = 0, o.batch_first = true, o.norm_first = true;
  nn::TransformerEncoderLayer layer(4, 2, o, gen);
  const Tensor x = randn({1, 3, 4});
  std::map<const void*, std::string> names;  // named_modules, as torch's
  for (const auto& [name, m] : layer.named_modules()) names[m] = name;
  CHECK(names.size() == 10);  // itself, self_attn and its out_proj, linear1 and 2, norm1 and 2, 3 dropouts
  CHECK(names.at(&layer) == "");
  CHECK(names.at(&layer.self_attn) == "self_attn");
  CHECK(names.at(&layer.self_attn.out_proj) == "self_attn.out_proj");
  Tensor y;
  autograd::RecordedGraph g;
  {
    autograd::ScopeCapture capture;
    y = layer(x);
    g = autograd::recorded_graph(y, layer.named_parameters(), &capture);
  }
  // The output is the residual sum, in the layer itself; linear2's product is in linear2.
  REQUIRE(!g.vertices.back().scopes.empty());
  CHECK(g.vertices.back().scopes == std::vector<const void*>{&layer});
  bool saw_linear2 = false, saw_out_proj = false;
  for (const auto& v : g.vertices) {
    if (v.op == "linear" && v.scopes.back() == &layer.linear2) {
      saw_linear2 = true;
      CHECK(v.scopes == std::vector<const void*>{&layer, &layer.linear2});
    }
    if (v.op == "linear" && v.scopes.back() == &layer.self_attn.out_proj) saw_out_proj = true;
    if (v.op.empty() && v.requires_grad) CHECK(!v.name.empty());  // every parameter named
  }
  CHECK(saw_linear2);
  CHECK(saw_out_proj);
  // Without a capture the same forward records no scopes; forward() called directly opens
  // no scope of the layer's own (as torch's hooks run in __call__).
  const auto plain = autograd::recorded_graph(layer(x), layer.named_parameters());
  for (const auto& v : plain.vertices) CHECK(v.scopes.empty());
  CHECK(ops(plain) == ops(g));
  autograd::ScopeCapture capture;
  const auto direct = autograd::recorded_graph(layer.forward(x), {}, &capture);
  CHECK(direct.vertices.back().scopes.empty());
}

TEST_CASE("recorded_diagram draws each operation and named tensor once, constants by their value, an arrow per shape") {
  Tensor w = randn({3, 2}).requires_grad_();
  const Tensor x = randn({4, 3});
  const Tensor y = matmul(x, w) / 2.0;
  const auto d = book::recorded_diagram(autograd::recorded_graph(y, {{"x", x}, {"w", w}}));
  std::vector<std::string> labels, roles;
  for (const auto& node : d.nodes) labels.push_back(node.label), roles.push_back(node.role);
  CHECK(labels == std::vector<std::string>{"x", "w", "matmul", "2", "div", "output"});
  CHECK(roles == std::vector<std::string>{"input", "parameter", "operation", "constant", "operation", "output"});
  REQUIRE(d.edges.size() == 5);
  CHECK(d.edges[0].label == "[4,3]");
  CHECK(d.edges[4].label == "[4,2]");
  book::DiagramView no_model;
  no_model.depth = 1;
  CHECK_THROWS_WITH_AS(book::recorded_diagram(autograd::recorded_graph(y), no_model),
                       doctest::Contains("depth 1 needs a model"), ValueError);
  book::Diagram bad = d;
  bad.nodes[0].role = "weights";
  CHECK_THROWS_WITH_AS(bad.json(), doctest::Contains("has role 'weights'"), ValueError);
  CHECK_THROWS_WITH_AS(book::diagram({{"a", "input"}}, {{0, 3, ""}}), doctest::Contains("edge 0 -> 3 for 1 nodes"),
                       ValueError);
}
