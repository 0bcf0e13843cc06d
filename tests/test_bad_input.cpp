// What a careless reader will try: every public function and constructor fed the inputs that
// do not fit. Each row of the table must throw the named exception type with a message that
// names the operation and the shapes or values involved; the test checks the message, not only
// the type. Objects that threw must still work afterwards.
//
// Public functions not in this table, and why: the factories zeros, ones, full, eye, arange(n)
// (covered by negative sizes through tensor()), scalar_tensor, zeros_like, ones_like and
// ramp_positional_encoding's L >= 1 rule (test_attention.cpp); NoGradGuard, is_grad_enabled and
// set_grad_enabled, live_graph_nodes, manual_seed, default_generator and Generator's own
// methods except randint and load_state_dict (they take no input that can be wrong); printing
// (any tensor prints);
// pretokenize and BPETokenizer::encode (any bytes are text they take); book::read_wordnet on a
// missing or malformed WordNet (test_corpus.cpp: a std::runtime_error, since it is the machine
// that lacks a package, not the program that is wrong).

#include <doctest/doctest.h>

#include <cmath>
#include <filesystem>
#include <fstream>
#include <functional>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include <unistd.h>

#include <litgrad/book/corpus.hpp>
#include <litgrad/litgrad.hpp>

using namespace litgrad;

namespace {

enum class Kind { Shape, Value, Index, Autograd };

struct BadInput {
  const char* what;     // the misuse, in words
  Kind kind;            // the exception type expected
  const char* message;  // a part of the message that must appear
  std::function<void()> call;
};

const char* kind_name(Kind k) {
  switch (k) {
    case Kind::Shape: return "ShapeError";
    case Kind::Value: return "ValueError";
    case Kind::Index: return "IndexError";
    case Kind::Autograd: return "AutogradError";
  }
  return "?";
}

// Runs the call; returns the type name and message of what it threw ("none" if nothing).
std::pair<std::string, std::string> outcome(const std::function<void()>& call) {
  try {
    call();
  } catch (const ShapeError& e) {
    return {"ShapeError", e.what()};
  } catch (const ValueError& e) {
    return {"ValueError", e.what()};
  } catch (const IndexError& e) {
    return {"IndexError", e.what()};
  } catch (const AutogradError& e) {
    return {"AutogradError", e.what()};
  } catch (const std::exception& e) {
    return {"another exception", e.what()};
  }
  return {"none", ""};
}

// What the rows call.
Generator gen(1);
nn::MultiheadAttention mha(4, 2, {}, gen);
nn::Linear linear(3, 2, true, gen);
const Tensor q = randn({3, 2, 4}, gen), kv = randn({5, 2, 4}, gen);
const Tensor m23 = ones({2, 3}), v4 = ones({4});
Tensor leaf = ones({3}).requires_grad_();

// A tokenizer with no merges and GPT-2's one special token, which gets the id 256.
BPETokenizer with_end_of_text() {
  BPETokenizer t;
  t.add_special_token("<|endoftext|>");
  return t;
}

// Steps an optimiser of type Opt once on a parameter of 3 elements, then loads its own state
// with the entry `key` replaced by `value`.
template <class Opt>
void load_changed_state(const std::string& key, const Tensor& value) {
  Tensor p = ones({3}).requires_grad_();
  Opt opt({p});
  sum(p * p).backward();
  opt.step();
  StateDict changed;
  for (const auto& [name, saved] : opt.state_dict()) changed.insert(name, name == key ? value : saved);
  opt.load_state_dict(changed);
}

std::vector<BadInput> bad_inputs() {
  return {
      // Shapes that do not broadcast, multiply or join.
      {"add of shapes that do not broadcast", Kind::Shape, "add: shapes [2,3] and [4] do not broadcast",
       [&] { add(m23, v4); }},
      {"sub of shapes that do not broadcast", Kind::Shape, "sub: shapes [2,3] and [4] do not broadcast",
       [&] { sub(m23, v4); }},
      {"mul of shapes that do not broadcast", Kind::Shape, "mul: shapes [2,3] and [4] do not broadcast",
       [&] { mul(m23, v4); }},
      {"div of shapes that do not broadcast", Kind::Shape, "div: shapes [2,3] and [4] do not broadcast",
       [&] { div(m23, v4); }},
      {"pow of shapes that do not broadcast", Kind::Shape, "pow_tensor: shapes [2,3] and [4] do not broadcast",
       [&] { pow(m23, v4); }},
      {"comparison of shapes that do not broadcast", Kind::Shape, "lt: shapes [2,3] and [4] do not broadcast",
       [&] { lt(m23, v4); }},
      {"where with shapes that do not broadcast", Kind::Shape, "where: shapes [2,3] and [4] do not broadcast",
       [&] { where(gt(m23, scalar_tensor(0)), m23, v4); }},
      {"matmul with inner sizes that differ", Kind::Shape, "matmul: [2,3] @ [4,5]: inner sizes 3 and 4 differ",
       [&] {
         matmul(m23, ones({4, 5}));
       }},
      {"matmul with batches that do not broadcast", Kind::Shape, "batch dimensions [2] and [3] do not broadcast",
       [&] {
         matmul(ones({2, 2, 3}), ones({3, 3, 1}));
       }},
      {"matmul of a scalar", Kind::Shape, "matmul: [] @ [2]: both operands need at least one dimension",
       [&] { matmul(scalar_tensor(1), ones({2})); }},
      {"reshape to another element count", Kind::Shape, "reshape: cannot reshape [2,3] (6 elements) into [4]",
       [&] { reshape(m23, {4}); }},
      {"reshape with two -1", Kind::Shape, "reshape: invalid shape [-1,-1]",
       [&] {
         reshape(m23, {-1, -1});
       }},
      {"permute with a repeated dimension", Kind::Shape, "permute: dimension 1 appears twice",
       [&] {
         permute(m23, {1, 1});
       }},
      {"cat of shapes that differ", Kind::Shape, "cat: shapes [2,3] and [4] differ outside dimension 0",
       [&] {
         cat({m23, v4}, 0);
       }},
      {"cat of nothing", Kind::Shape, "cat: expected at least one tensor", [&] { cat({}, 0); }},
      {"stack of shapes that differ", Kind::Shape, "stack: all tensors must have one shape, got [2,3] and [4]",
       [&] {
         stack({m23, v4});
       }},
      {"gather with an index of another rank", Kind::Shape,
       "gather: index of shape [2] must have as many dimensions as the input [2,3]",
       [&] {
         gather(m23, 1, tensor({0, 1}, {2}, DType::Int64));
       }},
      {"masked_fill with a mask larger than the input", Kind::Shape,
       "masked_fill: mask of shape [2,3] does not broadcast to the input's shape [3]",
       [&] { masked_fill(ones({3}), gt(m23, scalar_tensor(0)), 0.0); }},
      {"mse_loss of shapes that differ", Kind::Shape, "mse_loss: input of shape [4,1] and target of shape [4] differ",
       [&] {
         mse_loss(ones({4, 1}), v4);
       }},
      {"cross_entropy with too few targets", Kind::Shape,
       "cross_entropy: input of shape [2,3] and target of shape [1] do not fit",
       [&] { cross_entropy(m23, tensor({0}, {1}, DType::Int64)); }},
      {"tensor() with too few values", Kind::Shape, "tensor: 3 values do not fill shape [2,2]",
       [&] {
         tensor({1, 2, 3}, {2, 2});
       }},
      {"backward with a gradient of another shape", Kind::Shape,
       "backward: gradient of shape [2] for a tensor of shape [3]", [&] { (leaf * 2.0).backward(ones({2})); }},
      {"Linear on input of the wrong width", Kind::Shape, "Linear: input of shape [4,2] does not end in in_features=3",
       [&] {
         linear(ones({4, 2}));
       }},
      {"linear() with a bias of the wrong size", Kind::Shape, "linear: bias of shape [3] for weight of shape [2,3]",
       [&] {
         nn::linear(ones({1, 3}), ones({2, 3}), ones({3}));
       }},
      {"attention with keys of another width", Kind::Shape,
       "scaled_dot_product_attention: query of shape [4,3] and key of shape [4,2] differ",
       [&] {
         scaled_dot_product_attention(ones({4, 3}), ones({4, 2}), ones({4, 2}));
       }},
      {"attention with batches that do not broadcast", Kind::Shape,
       "scaled_dot_product_attention: the leading dimensions of query [2,3,4] and key [3,5,4] do not broadcast",
       [&] {
         scaled_dot_product_attention(ones({2, 3, 4}), ones({3, 5, 4}), ones({3, 5, 2}));
       }},
      {"attention with a mask that does not fit", Kind::Shape,
       "attn_mask of shape [3,4] does not broadcast to the scores' shape [4,4]",
       [&] {
         scaled_dot_product_attention(ones({4, 3}), ones({4, 3}), ones({4, 2}), zeros({3, 4}));
       }},
      {"MultiheadAttention with a query of the wrong width", Kind::Shape,
       "MultiheadAttention: query of shape [3,2,5] should be [3,2,4]",
       [&] {
         mha(ones({3, 2, 5}), kv, kv);
       }},
      {"MultiheadAttention with keys and values of different lengths", Kind::Shape,
       "MultiheadAttention: value of shape [6,2,4] should be [5,2,4]",
       [&] {
         mha(q, kv, ones({6, 2, 4}));
       }},
      {"MultiheadAttention with a mask of the wrong shape", Kind::Shape,
       "MultiheadAttention: attn_mask of shape [3,4] should be [3,5]",
       [&] {
         mha(q, kv, kv, {}, true, zeros({3, 4}));
       }},
      {"MultiheadAttention with a 3-D mask of the wrong size", Kind::Shape,
       "MultiheadAttention: attn_mask of shape [2,3,5] should be [4,3,5]",
       [&] {
         mha(q, kv, kv, {}, true, zeros({2, 3, 5}));
       }},
      {"MultiheadAttention with a padding mask of the wrong shape", Kind::Shape,
       "MultiheadAttention: key_padding_mask of shape [5,2] should be [2,5]",
       [&] {
         mha(q, kv, kv, full({5, 2}, 0, DType::Bool));
       }},
      {"MultiheadAttention with a 4-D query", Kind::Shape,
       "MultiheadAttention: query of shape [1,3,2,4] should be [L,N,E]",
       [&] {
         mha(ones({1, 3, 2, 4}), kv, kv);
       }},
      {"MultiheadAttention told is_causal without the causal mask", Kind::Value,
       "MultiheadAttention: is_causal is a hint that attn_mask is the causal mask; pass attn_mask = "
       "generate_square_subsequent_mask(3) with it",
       [&] { mha(q, q, q, {}, true, {}, true, /*is_causal=*/true); }},
      {"MultiheadAttention told is_causal of a mask that is not causal", Kind::Value,
       "MultiheadAttention: is_causal was given, but attn_mask of shape [3,3] is not the causal mask",
       [&] {
         mha(q, q, q, {}, true, zeros({3, 3}), true, /*is_causal=*/true);
       }},
      {"MultiheadAttention.forward_cached with tokens of the wrong width", Kind::Shape,
       "MultiheadAttention.forward_cached: x of shape [3,2,5] should be [L,N,4]",
       [&] {
         nn::KVCache cache;
         mha.forward_cached(ones({3, 2, 5}), cache);
       }},
      {"MultiheadAttention.forward_cached with a cache of another batch", Kind::Shape,
       "MultiheadAttention.forward_cached: the cache holds keys of shape [4,3,2] and values of shape [4,3,2], but "
       "this layer and x need [2,S,2]",
       [&] {
         nn::KVCache cache{zeros({4, 3, 2}), zeros({4, 3, 2})};
         mha.forward_cached(ones({1, 1, 4}), cache);
       }},
      {"xavier_uniform_ of a vector", Kind::Shape,
       "xavier_uniform_: needs a tensor with at least 2 dimensions, got [4]",
       [&] {
         Tensor v = ones({4});
         nn::init::xavier_uniform_(v);
       }},
      // Dimensions and indices out of range.
      {"sum over a dimension out of range", Kind::Index,
       "sum: dimension 2 is out of range for a tensor with 2 dimensions", [&] { sum(m23, {2}); }},
      {"softmax over a dimension out of range", Kind::Index,
       "softmax: dimension -3 is out of range for a tensor with 2 dimensions", [&] { softmax(m23, -3); }},
      {"transpose of a dimension out of range", Kind::Index, "transpose: dimension 5 is out of range",
       [&] { transpose(m23, 0, 5); }},
      {"select beyond the end", Kind::Index, "select: index 3 is out of range for dimension 0 of size 2",
       [&] { select(m23, 0, 3); }},
      {"gather with an index out of range", Kind::Index, "gather: index 3 is out of range for dimension 1 of size 3",
       [&] {
         gather(m23, 1, tensor({3, 0}, {2, 1}, DType::Int64));
       }},
      {"gather from a 0-dimensional tensor (found by the fuzzer)", Kind::Index,
       "gather: cannot gather from a 0-dimensional tensor",
       [&] { gather(scalar_tensor(1), 0, tensor({0}, {}, DType::Int64)); }},
      {"cross_entropy with a class out of range", Kind::Index,
       "cross_entropy: target class 3 is out of range for 3 classes",
       [&] {
         cross_entropy(m23, tensor({3, 0}, {2}, DType::Int64));
       }},
      {"at() with an index out of range", Kind::Index, "at: index 3 is out of range for dimension 1 of size 3",
       [&] {
         m23.at({0, 3});
       }},
      // Bad values: negative or zero sizes, wrong dtypes, impossible settings.
      {"a negative size", Kind::Value, "zeros: negative size in shape [2,-1]",
       [&] {
         zeros({2, -1});
       }},
      {"Linear with zero features", Kind::Value, "Linear: in_features and out_features must be at least 1, got 0 and 2",
       [&] { nn::Linear(0, 2); }},
      {"num_heads that does not divide embed_dim", Kind::Value,
       "MultiheadAttention: embed_dim 10 is not divisible by num_heads 3", [&] { nn::MultiheadAttention(10, 3); }},
      {"zero heads", Kind::Value, "MultiheadAttention: embed_dim and num_heads must be at least 1",
       [&] { nn::MultiheadAttention(4, 0); }},
      {"an Int64 attention mask", Kind::Value, "MultiheadAttention: attn_mask must be Bool or Float64, got Int64",
       [&] {
         mha(q, kv, kv, {}, true, tensor(std::vector<double>(15, 0), {3, 5}, DType::Int64));
       }},
      {"masked_fill with a Float64 mask", Kind::Value, "masked_fill: the mask must be a Bool tensor, got Float64",
       [&] { masked_fill(m23, m23, 0.0); }},
      {"gather with a Float64 index", Kind::Value, "gather: index must be an Int64 tensor, got Float64",
       [&] {
         gather(m23, 1, ones({2, 1}));
       }},
      {"cross_entropy with Float64 targets that are not probabilities of the input's shape", Kind::Shape,
       "cross_entropy: input of shape [2,3] and probability target of shape [2] do not fit",
       [&] { cross_entropy(m23, ones({2})); }},
      {"cross_entropy with Bool targets", Kind::Value,
       "cross_entropy: target must be an Int64 tensor of class indices or a Float64",
       [&] { cross_entropy(m23, to(ones({2}), DType::Bool)); }},
      {"an odd sinusoidal dimension", Kind::Value, "sinusoidal_positional_encoding: d must be even",
       [&] { sinusoidal_positional_encoding(8, 5); }},
      {"a dropout probability above one", Kind::Value, "dropout: probability must be between 0 and 1, got 1.5",
       [&] { dropout(v4, 1.5); }},
      {"a NaN dropout probability", Kind::Value, "dropout: probability must be between 0 and 1, got nan",
       [&] { dropout(v4, NAN); }},
      {"Adam with beta1 = 1", Kind::Value, "Adam: need lr >= 0, eps >= 0, 0 <= betas < 1",
       [&] {
         optim::Adam({leaf}, {0.1, 1.0});
       }},
      {"SGD with a negative learning rate", Kind::Value,
       "SGD: lr, momentum, dampening and weight_decay must be non-negative, got lr=-1",
       [&] { optim::SGD({leaf}, {-1}); }},
      {"an optimiser over a computed tensor", Kind::Value,
       "SGD: param group 0, parameter 0 was computed (by mul), so it is not a leaf",
       [&] { optim::SGD({leaf * 2.0}, {0.1}); }},
      {"an optimiser over an undefined tensor", Kind::Value, "SGD: param group 0, parameter 1 is an undefined tensor",
       [&] {
         optim::SGD({leaf, Tensor()}, {0.1});
       }},
      {"an optimiser given one tensor twice", Kind::Value,
       "SGD: param group 0, parameter 1 is the same tensor as parameter 0",
       [&] {
         optim::SGD({leaf, leaf}, {0.1});
       }},
      {"an optimiser given one tensor in two groups", Kind::Value,
       "Adam: param group 1, parameter 0 is already parameter 0 of param group 0",
       [&] {
         optim::Adam({optim::ParamGroup({leaf}), optim::ParamGroup({leaf})});
       }},
      {"a param group with a hyper-parameter the optimiser does not have", Kind::Value,
       "Adam: param group 1 has the hyper-parameter 'momentum', which Adam does not have (its are: lr, beta1, beta2, "
       "eps, weight_decay)",
       [&] {
         optim::Adam({{{leaf}}, {{ones({1}).requires_grad_()}, {{"momentum", 0.9}}}});
       }},
      {"reading a hyper-parameter a group does not have", Kind::Value,
       "param_groups: no hyper-parameter 'betas' in this group (it has: lr, beta1, beta2, eps, weight_decay)",
       [&] {
         optim::Adam opt({leaf});
         (void)opt.param_groups()[0]["betas"];
       }},
      {"a group's beta set to 1 after construction", Kind::Value,
       "AdamW: need lr >= 0, eps >= 0, 0 <= betas < 1, weight_decay >= 0; got lr=0.001 betas=(1, 0.999)",
       [&] {
         optim::AdamW opt({leaf});
         opt.param_groups()[0]["beta1"] = 1;
         opt.step();
       }},
      {"SGD's nesterov set to 0.5", Kind::Value, "SGD: nesterov must be 0 or 1, got 0.5 (param group 1)",
       [&] {
         optim::SGD({{{leaf}}, {{ones({1}).requires_grad_()}, {{"nesterov", 0.5}}}}, {0.1, 0.9});
       }},
      {"an optimiser's state_dict missing a key and holding an extra one", Kind::Value,
       "Adam.load_state_dict: missing keys: param_groups.0.eps; unexpected keys: param_groups.0.epsilon",
       [&] {
         optim::Adam opt({leaf});
         StateDict bad;
         for (const auto& [key, value] : opt.state_dict())
           bad.insert(key == "param_groups.0.eps" ? "param_groups.0.epsilon" : key, value);
         opt.load_state_dict(bad);
       }},
      {"an optimiser's state_dict with a moment of the wrong shape", Kind::Value,
       "Adam.load_state_dict: 'state.0.exp_avg' is Float64 [2] in the state_dict and Float64 [3] here",
       [&] { load_changed_state<optim::Adam>("state.0.exp_avg", zeros({2})); }},
      {"an Adam state whose step is not a whole number", Kind::Value,
       "Adam.load_state_dict: 'state.0.step' is 2.5; a count of steps must be a whole number of at least 1",
       [&] { load_changed_state<optim::Adam>("state.0.step", scalar_tensor(2.5)); }},
      {"an AdamW state whose step is 0", Kind::Value,
       "AdamW.load_state_dict: 'state.0.step' is 0; a count of steps must be a whole number of at least 1",
       [&] { load_changed_state<optim::AdamW>("state.0.step", scalar_tensor(0)); }},
      {"an optimiser's state_dict for more parameters than it has", Kind::Value,
       "SGD.load_state_dict: param group 0 holds 2 parameters in the state_dict and 1 here",
       [&] {
         optim::SGD two({ones({1}).requires_grad_(), ones({1}).requires_grad_()}, {0.1}), one({leaf}, {0.1});
         one.load_state_dict(two.state_dict());
       }},
      {"an optimiser's state_dict for another optimiser", Kind::Value,
       "SGD.load_state_dict: missing keys: param_groups.0.momentum, param_groups.0.dampening, param_groups.0.nesterov; "
       "unexpected keys: param_groups.0.beta1, param_groups.0.beta2, param_groups.0.eps",
       [&] { optim::SGD({leaf}, {0.1}).load_state_dict(optim::Adam({leaf}).state_dict()); }},
      {"a schedule's state_dict without last_epoch", Kind::Value,
       "LambdaLR.load_state_dict: missing keys: last_epoch; unexpected keys: none",
       [&] {
         optim::SGD opt({leaf}, {0.1});
         optim::lr_scheduler::LambdaLR s(opt, [](std::int64_t) { return 1.0; });
         StateDict bad;
         for (const auto& [key, value] : s.state_dict())
           if (key != "last_epoch") bad.insert(key, value);
         s.load_state_dict(bad);
       }},
      {"a schedule's state_dict for two groups given to one of one", Kind::Value,
       "LambdaLR.load_state_dict: 'base_lrs' is Float64 [2] in the state_dict and Float64 [1] here",
       [&] {
         optim::SGD one({leaf}, {0.1}),
             two({optim::ParamGroup({ones({1}).requires_grad_()}), optim::ParamGroup({ones({1}).requires_grad_()})},
                 {0.1});
         optim::lr_scheduler::LambdaLR s1(one, [](std::int64_t) { return 1.0; }),
             s2(two, [](std::int64_t) { return 1.0; });
         s1.load_state_dict(s2.state_dict());
       }},
      {"LambdaLR with as many lambdas as groups but one", Kind::Value, "LambdaLR: 2 lr_lambdas for 1 param groups",
       [&] {
         optim::SGD opt({leaf}, {0.1});
         optim::lr_scheduler::LambdaLR s(
             opt, std::vector<std::function<double(std::int64_t)>>(2, [](std::int64_t) { return 1.0; }));
       }},
      {"a module's state_dict missing a key and holding an extra one, strictly", Kind::Value,
       "Linear.load_state_dict: missing keys: bias; unexpected keys: bias_",
       [&] {
         StateDict bad;
         bad.insert("weight", zeros({2, 3}));
         bad.insert("bias_", zeros({2}));
         linear.load_state_dict(bad);
       }},
      {"a module's state_dict with a weight of the wrong shape, even not strictly", Kind::Value,
       "Linear.load_state_dict: 'weight' is Float64 [3,2] in the state_dict and Float64 [2,3] here",
       [&] {
         StateDict bad;
         bad.insert("weight", zeros({3, 2}));
         linear.load_state_dict(bad, false);
       }},
      {"a generator's state of all zeros", Kind::Value, "Generator.load_state_dict: the state is all zeros",
       [&] {
         StateDict bad;
         bad.insert("state", tensor(std::vector<double>(8, 0.0), {8}, DType::Int64));
         bad.insert("spare_normal", zeros({0}));
         Generator g(1);
         g.load_state_dict(bad);
       }},
      {"a generator's state with a half of 2^32", Kind::Value, "Generator.load_state_dict: state[3] is 4294967296",
       [&] {
         StateDict state = Generator(1).state_dict(), bad;
         std::vector<double> halves = state.at("state").to_vector();
         halves[3] = 4294967296.0;
         bad.insert("state", tensor(halves, {8}, DType::Int64));
         bad.insert("spare_normal", zeros({0}));
         Generator g(1);
         g.load_state_dict(bad);
       }},
      {"a generator's state_dict without its spare normal", Kind::Value,
       "Generator.load_state_dict: missing keys: spare_normal; unexpected keys: none",
       [&] {
         StateDict bad;
         bad.insert("state", Generator(1).state_dict().at("state"));
         Generator(2).load_state_dict(bad);
       }},
      {"a StateDict key given twice", Kind::Value, "StateDict: the key 'w' is already present",
       [&] {
         StateDict d;
         d.insert("w", ones({1}));
         d.insert("w", ones({1}));
       }},
      {"a StateDict key with a space", Kind::Value, "StateDict: the key 'a b' is empty or holds whitespace",
       [&] {
         StateDict d;
         d.insert("a b", ones({1}));
       }},
      {"a StateDict holding an undefined tensor", Kind::Value, "StateDict: the value of 'w' is an undefined tensor",
       [&] {
         StateDict d;
         d.insert("w", Tensor());
       }},
      {"a StateDict nested under no prefix", Kind::Value, "StateDict: update needs a prefix to put the entries under",
       [&] {
         StateDict d;
         d.update("", StateDict());
       }},
      {"a key a StateDict does not have", Kind::Value, "StateDict: no key 'bias' (it has: weight)",
       [&] {
         StateDict d;
         d.insert("weight", ones({1}));
         (void)d.at("bias");
       }},
      {"a prefix a StateDict does not have", Kind::Value,
       "StateDict: no entries under 'optim' (the keys start with: model)",
       [&] {
         StateDict d;
         d.insert("model.weight", ones({1}));
         (void)d.sub("optim");
       }},
      {"loading a file with a size larger than the file", Kind::Value,
       "load: f: line 3: a size 99999999999 is larger than this file",
       [&] {
         std::istringstream in("litgrad state_dict 2\nentries 1\nw Float64 1 99999999999\n\nchecksum 0\nend\n");
         (void)load(in, "f");
       }},
      {"loading a file whose checksum does not match", Kind::Value, "the file was changed or damaged",
       [&] {
         std::ostringstream out;
         StateDict d;
         d.insert("w", tensor({1.5}));
         save(d, out);
         std::string text = out.str();
         text.replace(text.find("0x1.8p+0"), 8, "0x1.9p+0");  // 1.5 becomes 1.5625, still a number
         std::istringstream in(text);
         (void)load(in, "f");
       }},
      {"loading a file of a future version", Kind::Value,
       "load: f has format version 4; this litgrad reads versions 1 to 3",
       [&] {
         std::istringstream in("litgrad state_dict 4\n");
         (void)load(in, "f");
       }},
      {"requires_grad_ on an Int64 tensor", Kind::Value,
       "requires_grad_: only Float64 tensors can require grad, this one is Int64",
       [&] { tensor({1}, {1}, DType::Int64).requires_grad_(); }},
      {"copy_ from a shape that does not broadcast", Kind::Shape,
       "copy_: the source's shape [3] does not broadcast to [2,2]",
       [&] {
         Tensor w = zeros({2, 2});
         w.copy_(ones({3}));
       }},
      {"copy_ into a parameter while gradients are recorded", Kind::Autograd, "copy_: the destination requires grad",
       [&] {
         Tensor w = zeros({2}).requires_grad_();
         w.copy_(ones({2}));
       }},
      {"index_put_ of values that do not broadcast to the selection", Kind::Shape,
       "index_put_: the values' shape [3] does not broadcast to [2]",
       [&] {
         Tensor w = zeros({2, 2});
         w.index_put_({indexing::Slice(), 0}, ones({3}));
       }},
      {"index_put_ at a position out of range", Kind::Index, "index_put_: select: index 2 is out of range",
       [&] {
         Tensor w = zeros({2, 2});
         w.index_put_({2}, 1.0);
       }},
      {"index_put_ into a parameter while gradients are recorded", Kind::Autograd,
       "index_put_: this tensor of shape [2] is a leaf that requires grad, and gradients are being recorded; in-place "
       "changes are not recorded, so write parameters inside a NoGradGuard, and use the out-of-place form (where or "
       "masked_fill) inside a graph",
       [&] {
         Tensor w = zeros({2}).requires_grad_();
         w.index_put_({0}, 1.0);
       }},
      {"index_fill_ with an index out of range", Kind::Index, "index_fill_: index_select: index 5 is out of range",
       [&] {
         Tensor w = zeros({3, 2});
         w.index_fill_(0, tensor({5}, {1}, DType::Int64), 1.0);
       }},
      {"scatter_ with an index out of range", Kind::Index, "scatter_: gather: index 7 is out of range for dimension 1",
       [&] {
         Tensor w = zeros({2, 4});
         w.scatter_(1, tensor({7}, {1, 1}, DType::Int64), 1.0);
       }},
      {"scatter_ from a source smaller than the index", Kind::Shape,
       "scatter_: the index, of shape [2,1], is larger than the source, of shape [1,1], in dimension 0",
       [&] {
         Tensor w = zeros({2, 4});
         w.scatter_(1, tensor({0, 1}, {2, 1}, DType::Int64), ones({1, 1}));
       }},
      {"an empty randint range", Kind::Value, "randint: empty range [3, 3)", [&] { randint(3, 3, {1}); }},
      {"arange with step 0", Kind::Value, "arange: cannot step from", [&] { arange(0, 1, 0); }},
      {"max over an empty dimension", Kind::Value, "max: cannot reduce over dimension 1 of size 0 (shape [2,0])",
       [&] {
         max(zeros({2, 0}), 1);
       }},
      {"item() of a tensor with two elements", Kind::Value, "item: expected a tensor with one element, got shape [2]",
       [&] { ones({2}).item(); }},
      {"NaN converted to Int64", Kind::Value, "to: cannot convert nan to Int64",
       [&] { to(tensor({NAN}), DType::Int64); }},
      {"an undefined tensor", Kind::Value, "Tensor: this tensor is undefined", [&] { Tensor().numel(); }},
      {"gradcheck with no input requiring grad", Kind::Value, "gradcheck: no input requires grad",
       [&] { gradcheck([](const std::vector<Tensor>& x) { return x[0]; }, {ones({1})}); }},
      {"an unknown parameter name", Kind::Value, "Linear: no parameter named 'bias_k' (it has: weight, bias)",
       [&] { linear.parameter("bias_k"); }},
      // Operations and modules of the later chapters.
      {"index_select with a Float64 index", Kind::Value, "index_select: index must be a 1-D Int64 tensor",
       [&] { index_select(m23, 0, tensor({0})); }},
      {"index_select out of range", Kind::Index, "index_select: index 2 is out of range for dimension 0 of size 2",
       [&] { index_select(m23, 0, tensor({2}, {1}, DType::Int64)); }},
      {"one_hot of Float64", Kind::Value, "one_hot: indices must be an Int64 tensor", [&] { one_hot(ones({2})); }},
      {"chunk into 0 pieces", Kind::Value, "chunk: chunks must be at least 1, got 0", [&] { chunk(m23, 0); }},
      {"split sizes that do not add up", Kind::Shape,
       "split: sizes [1,1] add up to 2, not to the size 3 of dimension 1",
       [&] {
         split(m23, std::vector<std::int64_t>{1, 1}, 1);
       }},
      {"tril of a vector", Kind::Shape, "tril: needs at least 2 dimensions, got shape [3]", [&] { tril(ones({3})); }},
      {"expand to a shape it does not broadcast to", Kind::Shape, "expand: shapes [2,3] and [2,4] do not broadcast",
       [&] {
         expand(m23, {2, 4});
       }},
      {"repeat with too few repeats", Kind::Shape, "repeat: 1 repeats for a tensor of shape [2,3]",
       [&] { repeat(m23, {2}); }},
      {"flatten with start after end", Kind::Value, "flatten: start_dim 1 comes after end_dim 0",
       [&] { flatten(m23, 1, 0); }},
      {"topk of more than there are", Kind::Value, "topk: k = 4 is out of range for dimension 1 of size 3",
       [&] { topk(m23, 4); }},
      {"multinomial with a negative weight", Kind::Value, "multinomial: weights must be finite and non-negative",
       [&] {
         multinomial(tensor({0.5, -0.1}), 1);
       }},
      {"multinomial of a row of zeros", Kind::Value, "multinomial: row 0 has no positive weight",
       [&] { multinomial(zeros({3}), 1); }},
      {"sample at a negative temperature", Kind::Value,
       "sample: temperature must be finite and >= 0 (0 is greedy), got -1", [&] { sample(m23, {-1.0}); }},
      {"sample from Int64 scores", Kind::Value, "sample: logits must be Float64 scores, got Int64 of shape [2]",
       [&] {
         sample(tensor({1, 2}, {2}, DType::Int64));
       }},
      {"sample from a 0-dimensional score", Kind::Shape, "sample: logits must have a last dimension of tokens [..., V]",
       [&] { sample(scalar_tensor(1)); }},
      {"sample from no tokens", Kind::Value, "sample: logits of shape [2,0] have no tokens (V = 0)",
       [&] {
         sample(zeros({2, 0}));
       }},
      {"sample from a NaN score", Kind::Value, "sample: the scores give no distribution to draw from",
       [&] {
         sample(tensor({0, NAN}));
       }},
      {"top_k_filter with a negative k", Kind::Value, "top_k_filter: top_k must be >= 0",
       [&] { top_k_filter(m23, -1); }},
      {"top_p_filter with p = 0", Kind::Value, "top_p_filter: top_p must be in (0, 1], got 0",
       [&] { top_p_filter(m23, 0); }},
      {"top_p_filter with a NaN p", Kind::Value, "top_p_filter: top_p must be in (0, 1], got nan",
       [&] { top_p_filter(m23, NAN); }},
      {"normal_ with a negative std", Kind::Value, "normal_: std must be >= 0, got -1",
       [&] {
         Tensor v = zeros({3});
         nn::init::normal_(v, 0, -1);
       }},
      {"norm with p = 0", Kind::Value, "norm: p must be positive", [&] { norm(m23, 0); }},
      {"clamp with no bound", Kind::Value, "clamp: give at least one of min and max",
       [&] { clamp(m23, std::nullopt); }},
      {"gelu with an unknown approximation", Kind::Value,
       "gelu: approximate must be \"none\" or \"tanh\", got \"fast\"", [&] { gelu(m23, "fast"); }},
      {"logsumexp over a dimension out of range", Kind::Index, "logsumexp", [&] { logsumexp(m23, 2); }},
      {"var with a negative correction", Kind::Value, "var: correction must be non-negative, got -1",
       [&] { var(m23, {}, -1); }},
      {"linspace with negative steps", Kind::Value, "linspace: steps must be non-negative, got -2",
       [&] { linspace(0, 1, -2); }},
      {"randn with a negative size", Kind::Value, "randn: negative size in shape [-1,3]",
       [&] {
         randn({-1, 3});
       }},
      {"an embedding id out of range", Kind::Index, "embedding: id 5 is out of range for 5 embeddings",
       [&] { nn::Embedding(5, 2)(tensor({5}, {1}, DType::Int64)); }},
      {"embedding ids of Float64", Kind::Value, "embedding: ids must be an Int64 tensor",
       [&] { nn::Embedding(5, 2)(ones({1})); }},
      {"Embedding with a padding_idx out of range", Kind::Index,
       "Embedding: padding_idx 5 is out of range for 5 embeddings", [&] { nn::Embedding(5, 2, 5); }},
      {"layer_norm of the wrong width", Kind::Shape,
       "layer_norm: input of shape [2,3] does not end in normalized_shape [4]", [&] { nn::LayerNorm(4)(m23); }},
      {"TransformerEncoderLayer whose heads do not divide d_model", Kind::Value,
       "MultiheadAttention: embed_dim 6 is not divisible by num_heads 4", [&] { nn::TransformerEncoderLayer(6, 4); }},
      {"TransformerEncoderLayer on a 4-D input", Kind::Shape, "TransformerEncoderLayer: src of shape [1,2,3,4]",
       [&] {
         nn::TransformerEncoderLayer(4, 2)(ones({1, 2, 3, 4}));
       }},
      {"cross_entropy with label smoothing above 1", Kind::Value, "cross_entropy: label_smoothing must be in [0, 1]",
       [&] {
         CrossEntropyOptions o;
         o.label_smoothing = 1.5;
         cross_entropy(m23, tensor({0, 1}, {2}, DType::Int64), o);
       }},
      {"binary_cross_entropy_with_logits with shapes that differ", Kind::Shape,
       "binary_cross_entropy_with_logits: input of shape [2,3] and target of shape [3] differ",
       [&] { binary_cross_entropy_with_logits(m23, ones({3})); }},
      {"nll_loss with Float64 targets", Kind::Value, "nll_loss: target must be an Int64 tensor",
       [&] { nll_loss(m23, ones({2})); }},
      {"AdamW with a negative weight decay", Kind::Value,
       "AdamW: need lr >= 0, eps >= 0, 0 <= betas < 1, weight_decay >= 0",
       [&] {
         optim::AdamW({leaf}, {0.1, 0.9, 0.999, 1e-8, -1});
       }},
      {"Adam's message shows eps as it is", Kind::Value, "eps=1e-08", [&] { optim::Adam({leaf}, {-1.0}); }},
      {"RMSprop with alpha above one", Kind::Value,
       "RMSprop: need lr >= 0, eps >= 0, 0 <= alpha <= 1, weight_decay >= 0, momentum >= 0; got lr=0.01 alpha=1.5",
       [&] {
         optim::RMSpropOptions o;
         o.alpha = 1.5;
         optim::RMSprop({leaf}, o);
       }},
      {"RMSprop's centered set to 2", Kind::Value, "RMSprop: centered must be 0 or 1, got 2 (param group 0)",
       [&] {
         optim::RMSprop opt({leaf});
         opt.param_groups()[0]["centered"] = 2;
         opt.step();
       }},
      {"a learning rate set to NaN", Kind::Value,
       "SGD: lr, momentum, dampening and weight_decay must be non-negative, got lr=nan",
       [&] {
         optim::SGD opt({leaf}, {0.1});
         opt.param_groups()[0]["lr"] = NAN;
         opt.step();
       }},
      {"a schedule whose factor is negative", Kind::Value, "LambdaLR: the factor at step 0 is -1",
       [&] {
         optim::SGD opt({leaf}, {0.1});
         optim::lr_scheduler::LambdaLR s(opt, [](std::int64_t) { return -1.0; });
       }},
      {"clip_grad_norm_ with a negative max_norm", Kind::Value, "clip_grad_norm_: max_norm must be at least 0",
       [&] { nn::utils::clip_grad_norm_({leaf}, -1); }},
      {"a ModuleList index out of range", Kind::Index, "ModuleList: index 0 is out of range for 0 modules",
       [&] {
         nn::ModuleList list;
         list[0];
       }},
      {"saving into a folder that does not exist", Kind::Value, "save: cannot write /no/such/folder/w",
       [&] { nn::save(linear, "/no/such/folder/w"); }},
      {"loading a file that is not there", Kind::Value, "load: cannot read /no/such/file",
       [&] { nn::load(linear, "/no/such/file"); }},
      // Tokenizing.
      {"a BPE vocabulary smaller than the bytes", Kind::Value,
       "BPETokenizer::train: vocab_size 100 is below 256, the number of byte tokens",
       [&] { BPETokenizer().train("some text", 100); }},
      {"decoding an id the vocabulary lacks", Kind::Index,
       "BPETokenizer::decode: id 300 is out of range for a vocabulary of 256 tokens (at position 1)",
       [&] {
         BPETokenizer().decode(std::vector<std::int64_t>{97, 300});
       }},
      {"decoding a negative id", Kind::Index,
       "BPETokenizer::decode: id -1 is out of range for a vocabulary of 256 tokens",
       [&] { BPETokenizer().decode(std::vector<std::int64_t>{-1}); }},
      {"decoding Float64 ids", Kind::Value,
       "BPETokenizer::decode: ids must be an Int64 tensor, got Float64 of shape [3]",
       [&] { BPETokenizer().decode(ones({3})); }},
      {"decoding a batch of ids at once", Kind::Shape, "BPETokenizer::decode: ids must be 1-D, got shape [2,3]",
       [&] {
         BPETokenizer().decode(ones({2, 3}).to(DType::Int64));
       }},
      {"the bytes of a token that does not exist", Kind::Index,
       "BPETokenizer::token: id 256 is out of range for a vocabulary of 256 tokens",
       [&] { BPETokenizer().token(256); }},
      {"truncating to more tokens than trained", Kind::Value,
       "BPETokenizer::truncated: vocab_size 300 is outside [256, 256], the sizes this tokenizer's merges give",
       [&] { BPETokenizer().truncated(300); }},
      {"an empty special token", Kind::Value, "BPETokenizer::add_special_token: a special token cannot be empty",
       [&] { BPETokenizer().add_special_token(""); }},
      {"a special token added twice", Kind::Value,
       "BPETokenizer::add_special_token: '<|endoftext|>' is already the special token 256",
       [&] { with_end_of_text().add_special_token("<|endoftext|>"); }},
      {"the id of a string that is not a special token", Kind::Value,
       "BPETokenizer::special_token_id: '<eos>' is not a special token of this tokenizer (it has '<|endoftext|>')",
       [&] { with_end_of_text().special_token_id("<eos>"); }},
      {"a special token's string in text that does not allow it", Kind::Value,
       "BPETokenizer::encode: the text holds the special token '<|endoftext|>' at byte 3, which the call does not "
       "allow; list it in allowed_special to encode it as its id 256, or use encode_ordinary to encode it as text",
       [&] { with_end_of_text().encode("one<|endoftext|>two"); }},
      {"allowing a special token the tokenizer lacks", Kind::Value,
       "BPETokenizer::encode: '<eos>' is not a special token of this tokenizer (it has none)",
       [&] { BPETokenizer().encode("text", {"<eos>"}); }},
      {"training a tokenizer that has special tokens", Kind::Value,
       "BPETokenizer::train: the tokenizer has 1 special tokens, whose ids would move; train first, then add the "
       "special tokens",
       [&] { with_end_of_text().train("some text", 260); }},
      {"truncating a tokenizer that has special tokens", Kind::Value,
       "BPETokenizer::truncated: the tokenizer has 1 special tokens, whose ids would move; truncate first, then add "
       "the special tokens",
       [&] { with_end_of_text().truncated(256); }},
      {"loading a tokenizer that is not there", Kind::Value, "BPETokenizer::load: cannot read /no/such/file.bpe",
       [&] { BPETokenizer().load("/no/such/file.bpe"); }},
      {"loading a model's state as a tokenizer", Kind::Value,
       "is not a litgrad bpe file (its first line should be 'litgrad bpe 2')",
       [&] {
         const std::string path =
             std::filesystem::temp_directory_path() / ("litgrad-bad-" + std::to_string(::getpid()) + ".state");
         nn::save(linear, path);
         BPETokenizer t;
         try {
           t.load(path);
         } catch (...) {
           std::filesystem::remove(path);
           throw;
         }
       }},
      {"a tokenizer file cut short", Kind::Value, "is truncated: it ends after 1 of its 2 merges",
       [&] {
         const std::string path =
             std::filesystem::temp_directory_path() / ("litgrad-bad-" + std::to_string(::getpid()) + ".bpe");
         std::ofstream(path) << "litgrad bpe 1\nmerges 2\n97 98\n";
         BPETokenizer t;
         try {
           t.load(path);
         } catch (...) {
           std::filesystem::remove(path);
           throw;
         }
       }},
      {"saving a tokenizer into a folder that does not exist", Kind::Value,
       "BPETokenizer::save: cannot write /no/such/folder/t.bpe", [&] { BPETokenizer().save("/no/such/folder/t.bpe"); }},
      {"a held-out share above 1", Kind::Value, "read_wordnet: held_out_share must be in [0, 1], got 1.5",
       [&] { book::read_wordnet(book::kWordNetDirectory, 1.5); }},
      {"the gradient of a non-leaf", Kind::Autograd, "grad: this tensor was made by mul, so it is not a leaf",
       [&] { (leaf * 2.0).grad(); }},
      {"log_softmax along a dimension out of range", Kind::Index, "log_softmax: dimension 2 is out of range",
       [&] { log_softmax(m23, 2); }},
      {"slice with a step of 0", Kind::Value, "slice: step must be positive, got 0", [&] { slice(m23, 1, 0, 2, 0); }},
      // Autograd out of order.
      {"backward on a non-scalar without a gradient", Kind::Autograd,
       "backward: a gradient can be implied only for a one-element output", [&] { (leaf * 2.0).backward(); }},
      {"backward on a tensor that needs no grad", Kind::Autograd, "backward: this tensor does not require grad",
       [&] { sum(m23).backward(); }},
      {"backward twice through one graph", Kind::Autograd, "backward: the graph through sum was already freed",
       [&] {
         Tensor l = sum(leaf * leaf);
         l.backward();
         l.backward();
       }},
  };
}

}  // namespace

TEST_CASE(
    "every bad input in the table throws the named error with a message naming the operation and the shapes or "
    "values") {
  int checked = 0;
  for (const auto& row : bad_inputs()) {
    const std::string what = row.what;
    CAPTURE(what);
    const auto [type, message] = outcome(row.call);
    CHECK(type == kind_name(row.kind));
    CHECK_MESSAGE(message.find(row.message) != std::string::npos, "message: " << message);
    ++checked;
  }
  CHECK(checked >= 40);

  // The objects that threw still work.
  CHECK(mha(q, kv, kv).output.shape() == Shape{3, 2, 4});
  CHECK(linear(ones({4, 3})).shape() == Shape{4, 2});
  leaf.zero_grad();
  sum(leaf * leaf).backward();
  CHECK(leaf.grad().at({0}) == 2.0);
}

TEST_CASE(
    "every operation of the library's table whose inputs can be wrong has a row in the table, whose message starts "
    "with its name") {
  // ops/registry.hpp says, for each operation no input of which can be wrong, why.
  std::set<std::string> named;
  for (const auto& row : bad_inputs()) {
    const std::string message = row.message;
    named.insert(message.substr(0, message.find(':')));
  }
  for (const Op& op : operations) {
    if (*op.no_bad_input) continue;
    INFO("operation without a row in the bad-input table: " << std::string(op.name));
    CHECK(named.count(op.name) == 1);
  }
}

TEST_CASE(
    "NaN in an input propagates to the output of every elementwise op, reduction, product and softmax: it is never "
    "hidden") {
  const Tensor x = tensor({1, NAN, 2});
  auto nan_at_1 = [](const Tensor& y) { return std::isnan(y.at({1})); };
  CHECK(nan_at_1(x + 1.0));
  CHECK(nan_at_1(x * 2.0));
  CHECK(nan_at_1(x / 2.0));
  CHECK(nan_at_1(-x));
  CHECK(nan_at_1(pow(x, 2.0)));
  CHECK(nan_at_1(exp(x)));
  CHECK(nan_at_1(log(x)));
  CHECK(nan_at_1(tanh(x)));
  CHECK(nan_at_1(sigmoid(x)));
  CHECK(nan_at_1(relu(x)));
  CHECK(nan_at_1(abs(x)));
  CHECK(nan_at_1(sin(x)));
  CHECK(nan_at_1(cos(x)));
  CHECK(std::isnan(sum(x).item()));
  CHECK(std::isnan(mean(x).item()));
  CHECK(std::isnan(max(x).item()));
  CHECK(std::isnan(matmul(x, ones({3})).item()));
  const Tensor s = softmax(x, 0), l = log_softmax(x, 0);
  for (std::int64_t i = 0; i < 3; ++i) CHECK((std::isnan(s.at({i})) && std::isnan(l.at({i}))));  // the whole slice
  CHECK(nan_at_1(mse_loss(x, zeros({3}), Reduction::None)));
}

TEST_CASE(
    "infinities follow IEEE 754 and torch: exp(-inf) = 0, tanh(inf) = 1, sigmoid(-inf) = 0, relu(inf) = inf, softmax "
    "of an infinite score is NaN") {
  const Tensor x = tensor({-INFINITY, INFINITY});
  CHECK(exp(x).at({0}) == 0.0);
  CHECK(exp(x).at({1}) == INFINITY);
  CHECK(tanh(x).at({1}) == 1.0);
  CHECK(sigmoid(x).at({0}) == 0.0);
  CHECK(sigmoid(x).at({1}) == 1.0);
  CHECK(relu(x).at({1}) == INFINITY);
  CHECK(relu(x).at({0}) == 0.0);
  CHECK(log(tensor({0.0})).item() == -INFINITY);
  CHECK(std::isnan(softmax(tensor({0, INFINITY}), 0).at({0})));  // inf - inf in the shift, as torch
  CHECK(softmax(tensor({0, -INFINITY}), 0).at({1}) == 0.0);      // a -inf score: weight exactly 0
}

TEST_CASE(
    "an error message writes each number in full: an integer as is, a double in the fewest digits that read back as "
    "the same double") {
  const ValueError made("parts: ", std::int64_t{-3}, " ", std::size_t{7}, " ", 0.1, " ", 1e-8, " ", 2.5e300, " ",
                        Shape{2, 3}, " ", DType::Bool, " ", std::string("text"), " ", 'c');
  CHECK(std::string(made.what()) == "parts: -3 7 0.1 1e-08 2.5e+300 [2,3] Bool text c");
  // The value that was wrong, whole: a probability one ulp above 1 is not written as "1".
  const double above_one = std::nextafter(1.0, 2.0);
  const auto [type, message] = outcome([&] { dropout(ones({2}), above_one); });
  CHECK(type == "ValueError");
  CHECK(message == "dropout: probability must be between 0 and 1, got 1.0000000000000002");
  CHECK(std::stod(message.substr(message.rfind(' ') + 1)) == above_one);
}
