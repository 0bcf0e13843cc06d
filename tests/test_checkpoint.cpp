// Checkpoints and what they rest on: a tied weight listed once, parameter groups and frozen
// parameters as torch 2 has them, state_dict() and load_state_dict() for modules, optimisers,
// schedules and generators, strict loading tried on every damaged copy of a file, and a run
// resumed from a checkpoint that ends in the bits of the run that never stopped.

#include <doctest/doctest.h>

#include <cmath>
#include <cstring>
#include <filesystem>
#include <functional>
#include <map>
#include <set>
#include <sstream>
#include <string_view>

#include <litgrad/base/checksum.hpp>
#include <litgrad/litgrad.hpp>

#include "helpers.hpp"
#include "reference_file.hpp"

using namespace litgrad;

namespace {

std::vector<std::string> names(const nn::Module& m) {
  std::vector<std::string> out;
  for (auto& [name, p] : m.named_parameters()) out.push_back(name);
  return out;
}

bool same_bits(double a, double b) { return std::memcmp(&a, &b, sizeof a) == 0; }

// A leaf with the values of t in storage of its own.
Tensor fresh(const Tensor& t) { return tensor(t.to_vector(), t.shape()).requires_grad_(); }

// Every value of a StateDict, in order, and its keys: equal dictionaries give equal lists.
std::vector<double> values_of(const StateDict& dict) {
  std::vector<double> out;
  for (const auto& [key, value] : dict)
    for (double v : value.to_vector()) out.push_back(v);
  return out;
}

bool identical(const StateDict& a, const StateDict& b) {
  if (a.keys() != b.keys()) return false;
  for (const auto& [key, value] : a)
    if (!test::identical(value, b.at(key))) return false;
  return true;
}

// A language model's ends with the output layer tied to the embedding, as GPT-2 does.
struct Tied : nn::Module {
  nn::Embedding tok;
  nn::Linear head;
  explicit Tied(Generator& gen) : Module("Tied"), tok(5, 3, std::nullopt, gen), head(3, 5, false, gen) {
    register_module("tok", tok);
    register_module("head", head);
    head.weight = tok.weight;  // weight tying: one tensor, two names
  }
  Tensor forward(const Tensor& ids) const { return head(tok(ids)); }
};

struct Pair : nn::Module {
  nn::Linear first, second;
  explicit Pair(Generator& gen) : Module("Pair"), first(2, 3, true, gen), second(3, 1, true, gen) {
    register_module("first", first);
    register_module("second", second);
  }
  Tensor forward(const Tensor& x) const { return second(tanh(first(x))); }
};

}  // namespace

// ---------------------------------------------------------------------------------------------
// A tied weight

TEST_CASE("a tied weight is listed once by parameters() and stepped once by the optimiser, as torch does") {
  Generator gen(3);
  Tied model(gen);
  CHECK(names(model) == std::vector<std::string>{"tok.weight"});
  CHECK(model.parameters().size() == 1);
  CHECK(model.named_parameters(false).size() == 2);  // every name, as state_dict() keeps them
  optim::SGD opt(model.parameters(), {0.5});
  const Tensor ids = tensor({0, 3, 1, 3}, {4}, DType::Int64), targets = tensor({2, 2, 4, 0}, {4}, DType::Int64);
  cross_entropy(model.forward(ids), targets).backward();
  const std::vector<double> before = model.tok.weight.to_vector(), grad = model.tok.weight.grad().to_vector();
  opt.step();
  const std::vector<double> after = model.tok.weight.to_vector();
  // One step is p - 0.5 g, rounded once; a tensor stepped twice would move by 2 (0.5 g).
  double largest_ratio = 0;
  for (std::size_t i = 0; i < before.size(); ++i) {
    CHECK(same_bits(after[i], before[i] - 0.5 * grad[i]));
    if (grad[i] != 0) largest_ratio = std::max(largest_ratio, (before[i] - after[i]) / (0.5 * grad[i]));
  }
  MESSAGE("largest step / (lr * gradient) over the tied weight: " << largest_ratio);
  CHECK(largest_ratio == doctest::Approx(1).epsilon(1e-12));
}

TEST_CASE("a tied weight's state_dict holds it under both names, and loading it fills the one tensor") {
  Generator gen(4);
  Tied a(gen), b(gen);
  const StateDict dict = a.state_dict();
  CHECK(dict.keys() == std::vector<std::string>{"tok.weight", "head.weight"});
  b.load_state_dict(dict);
  CHECK(test::identical(b.tok.weight, a.tok.weight));
  CHECK(b.head.weight.is_same(b.tok.weight));
}

// ---------------------------------------------------------------------------------------------
// Parameter groups and frozen parameters

TEST_CASE(
    "parameter groups take their own hyper-parameters and the optimiser's defaults for the rest, readable and settable "
    "by name") {
  Tensor w = ones({2, 2}).requires_grad_(), b = ones({2}).requires_grad_();
  optim::AdamW opt({{{w}}, {{b}, {{"weight_decay", 0.0}, {"lr", 0.5}}}}, {0.1});
  REQUIRE(opt.param_groups().size() == 2);
  const auto& g0 = opt.param_groups()[0];
  const auto& g1 = opt.param_groups()[1];
  CHECK(g0.keys() == std::vector<std::string>{"lr", "beta1", "beta2", "eps", "weight_decay"});
  CHECK(g1.keys() == g0.keys());  // the optimiser's order, whatever order the group gave
  CHECK(g0["lr"] == 0.1);
  CHECK(g0["weight_decay"] == 0.01);  // AdamW's default
  CHECK(g1["lr"] == 0.5);
  CHECK(g1["weight_decay"] == 0.0);
  CHECK(g1["beta2"] == 0.999);
  opt.param_groups()[1]["lr"] = 0.25;
  CHECK(opt.param_groups()[1]["lr"] == 0.25);
  CHECK_THROWS_WITH_AS(opt.param_groups()[0]["momentum"],
                       "param_groups: no hyper-parameter 'momentum' in this group (it has: lr, beta1, beta2, eps, "
                       "weight_decay)",
                       ValueError);
}

TEST_CASE("each group steps with its own rate and decay: one AdamW with two groups equals two AdamWs, bit for bit") {
  Generator gen(5);
  const Tensor w0 = randn({3, 2}, gen), b0 = randn({2}, gen), x = randn({4, 3}, gen);
  // Copies with their own storage (detach() would share it, and one tensor stepped twice
  // would equal itself).
  Tensor w = fresh(w0), b = fresh(b0), w2 = fresh(w0), b2 = fresh(b0);
  optim::AdamW together({{{w}}, {{b}, {{"weight_decay", 0.0}, {"lr", 0.02}}}}, {0.05, 0.8, 0.99, 1e-8, 0.1});
  optim::AdamW alone_w({w2}, {0.05, 0.8, 0.99, 1e-8, 0.1}), alone_b({b2}, {0.02, 0.8, 0.99, 1e-8, 0.0});
  for (int t = 0; t < 5; ++t) {
    together.zero_grad(), alone_w.zero_grad(), alone_b.zero_grad();
    sum(tanh(matmul(x, w) + b)).backward();
    sum(tanh(matmul(x, w2) + b2)).backward();
    together.step(), alone_w.step(), alone_b.step();
  }
  CHECK(test::identical(w, w2));
  CHECK(test::identical(b, b2));
}

TEST_CASE(
    "frozen parameters are accepted and left alone: requires_grad false, or no gradient, even with Adam's weight "
    "decay") {
  Tensor live = ones({2}).requires_grad_(), frozen = ones({2}), unused = ones({2}).requires_grad_();
  Tensor was_live = ones({2}).requires_grad_();
  optim::AdamW opt({live, frozen, unused, was_live}, {0.1});
  sum(live * live + was_live * was_live).backward();
  was_live.requires_grad_(false);  // frozen after its gradient was computed: torch would still step it
  opt.step();
  CHECK(live.at({0}) < 1.0);
  CHECK(frozen.to_vector() == std::vector<double>{1.0, 1.0});
  CHECK(unused.to_vector() == std::vector<double>{1.0, 1.0});
  CHECK(was_live.to_vector() == std::vector<double>{1.0, 1.0});
  CHECK(opt.state_dict().keys() == std::vector<std::string>{"state.0.step", "state.0.exp_avg", "state.0.exp_avg_sq",
                                                            "param_groups.0.lr", "param_groups.0.beta1",
                                                            "param_groups.0.beta2", "param_groups.0.eps",
                                                            "param_groups.0.weight_decay", "param_groups.0.params"});
}

TEST_CASE("a schedule sets every group's rate from the group's own base rate") {
  Tensor a = ones({1}).requires_grad_(), b = ones({1}).requires_grad_();
  optim::SGD opt({{{a}}, {{b}, {{"lr", 0.3}}}}, {0.1});
  optim::lr_scheduler::LambdaLR schedule(opt, [](std::int64_t t) { return 1.0 / static_cast<double>(1 + t); });
  schedule.step();
  CHECK(opt.param_groups()[0]["lr"] == 0.1 * 0.5);
  CHECK(opt.param_groups()[1]["lr"] == 0.3 * 0.5);
  CHECK(schedule.get_last_lrs() == std::vector<double>{0.1 * 0.5, 0.3 * 0.5});
}

// ---------------------------------------------------------------------------------------------
// Against torch: two groups, and the state_dicts' keys and values

namespace {
// torch's keys that litgrad has no counterpart for: flags of code paths it does not have
// (amsgrad, maximize, capturable, differentiable, foreach), the `initial_lr` a torch schedule
// writes into each group, and a schedule's bookkeeping of its own calls.
bool torch_only(const std::string& key) {
  for (const char* word : {"amsgrad", "maximize", "capturable", "differentiable", "foreach", "initial_lr", "verbose",
                           "_step_count", "_get_lr_called_within_step"})
    if (key.size() >= std::strlen(word) && key.compare(key.size() - std::strlen(word), std::string::npos, word) == 0)
      return true;
  return false;
}

// torch's flattened state, with its tuple `betas` split into litgrad's beta1 and beta2.
std::map<std::string, Tensor> torch_state(const test::ReferenceCase& c, const std::string& role) {
  std::map<std::string, Tensor> out;
  for (const auto& t : c.tensors) {
    if (t.role != role || torch_only(t.name)) continue;
    const std::size_t at = t.name.rfind(".betas");
    if (at != std::string::npos && at + 6 == t.name.size()) {
      out[t.name.substr(0, at) + ".beta1"] = scalar_tensor(t.value.at({0}));
      out[t.name.substr(0, at) + ".beta2"] = scalar_tensor(t.value.at({1}));
    } else {
      out[t.name] = t.value;
    }
  }
  return out;
}

void check_against_torch(const test::ReferenceCase& c, optim::Optimizer& opt, Tensor& a, Tensor& b,
                         optim::lr_scheduler::LambdaLR& schedule) {
  const Tensor w = c.get("input", "w"), target = c.get("input", "target");
  for (int step = 1; step <= 4; ++step) {
    CAPTURE(step);
    opt.zero_grad();
    (sum(w * pow(a - target, 2.0)) + sum(pow(a, 3.0)) / 10.0 + sum(pow(b - 1.0, 2.0)) * 3.0).backward();
    opt.step();
    schedule.step();
    CHECK(test::relative_error(a.detach(), c.get("output", "a" + std::to_string(step))) <= 1e-13);
    CHECK(test::relative_error(b.detach(), c.get("output", "b" + std::to_string(step))) <= 1e-13);
  }
  for (const auto& [role, dict] :
       {std::pair{"state", opt.state_dict()}, std::pair{"schedule", schedule.state_dict()}}) {
    const auto expected = torch_state(c, role);
    std::set<std::string> ours, theirs;
    for (const auto& key : dict.keys()) ours.insert(key);
    for (const auto& entry : expected) theirs.insert(entry.first);
    CHECK(ours == theirs);
    for (const auto& [key, value] : dict) {
      if (!expected.count(key)) continue;
      CAPTURE(key);
      const Tensor& torch_value = expected.at(key);
      CHECK(value.shape() == torch_value.shape());
      if (value.shape() == torch_value.shape())
        CHECK(test::relative_error(value.to(DType::Float64), torch_value) <= 1e-13);
    }
  }
}
}  // namespace

// Thresholds: as test_optim_vs_python.cpp's, the updates round as torch's do except the
// gradient's sum of terms, a few units of 2^-53 per step; four steps stay below 1e-14 and
// 1e-13 is allowed. Hyper-parameters and step counts are the same numbers and compare within
// the same bound.
TEST_CASE(
    "AdamW and SGD with two parameter groups and a LambdaLR follow torch's trajectories, and their state_dicts have "
    "torch's keys and values") {
  const auto cases = test::read_reference_file("checkpoint_python.txt");
  for (const auto& c : cases) {
    CAPTURE(c.name);
    Tensor a = c.get("input", "a0").detach().requires_grad_(), b = c.get("input", "b0").detach().requires_grad_();
    std::unique_ptr<optim::Optimizer> opt;
    if (c.name == "adamw_two_groups")
      opt = std::make_unique<optim::AdamW>(
          std::vector<optim::ParamGroup>{{{a}, {{"weight_decay", 0.1}}}, {{b}, {{"weight_decay", 0.0}, {"lr", 0.02}}}},
          optim::AdamWOptions{0.05, 0.8, 0.99});
    else if (c.name == "sgd_two_groups")
      opt = std::make_unique<optim::SGD>(
          std::vector<optim::ParamGroup>{{{a}, {{"nesterov", 1}, {"weight_decay", 0.01}}},
                                         {{b}, {{"momentum", 0.5}, {"dampening", 0.3}, {"lr", 0.03}}}},
          optim::SGDOptions{0.05, 0.9});
    else
      FAIL("no optimiser for case " << c.name);
    optim::lr_scheduler::LambdaLR schedule(*opt, [](std::int64_t t) { return 1.0 / static_cast<double>(1 + t); });
    check_against_torch(c, *opt, a, b, schedule);
  }
}

// ---------------------------------------------------------------------------------------------
// Strict loading, tried on every damaged copy of a small model's file

namespace {
struct Tally {
  std::int64_t tried = 0, threw = 0, loaded_same = 0, loaded_as_written = 0;
};

// Loads `text` into `module`: returns true when it loaded; a ValueError leaves it unchanged.
bool try_load(nn::Module& module, const std::string& text) {
  std::istringstream in(text);
  try {
    module.load_state_dict(load(in, "the file"));
    return true;
  } catch (const ValueError&) {
    return false;
  }
}

// The file's text in version 1, as litgrad 0.2 wrote it: `parameters N` and no checksum.
std::string as_version_1(const std::string& text) {
  std::string v1 = text;
  v1.replace(v1.find(" 2\nentries "), 11, " 1\nparameters ");
  const std::size_t checksum = v1.rfind("checksum ");
  v1.erase(checksum, v1.find('\n', checksum) + 1 - checksum);
  return v1;
}

// For each byte of `text`: the index of the value whose number it is part of, counted over
// the whole file, or -1 for a byte of anything else (a key, a size, a space, a newline).
std::vector<std::int64_t> value_of_each_byte(const std::string& text) {
  std::vector<std::int64_t> owner(text.size(), -1);
  std::size_t line_start = 0;
  std::int64_t line = 0, value = 0;
  while (line_start < text.size()) {
    const std::size_t end = text.find('\n', line_start);
    // Lines 0 and 1 are the version and the count; then header and values alternate, up to
    // the checksum and the end.
    const std::string_view content(text.data() + line_start, end - line_start);
    const bool last = content == "end" || content.substr(0, 9) == "checksum ";
    if (line >= 2 && line % 2 == 1 && !last) {
      bool in_word = false;
      for (std::size_t i = line_start; i < end; ++i) {
        if (text[i] == ' ') {
          in_word = false;
          continue;
        }
        if (!in_word) ++value, in_word = true;
        owner[i] = value - 1;
      }
    }
    line_start = end + 1, ++line;
  }
  return owner;
}

// Every truncation and every single-byte change of `text` loaded into `module`, whose values
// must be `original` after every failure; a load that succeeds must give `saved`, except the
// one value a changed number spells, which must be what that number says (allowed only when
// `numbers_may_change`, i.e. without a checksum).
void try_every_damage(const std::string& text, nn::Module& module, const std::vector<double>& saved,
                      bool numbers_may_change, Tally& truncations, Tally& changes) {
  const StateDict original = module.state_dict();
  const std::vector<double> original_values = values_of(original);
  const std::vector<std::int64_t> owner = value_of_each_byte(text);
  auto unchanged = [&] { return values_of(module.state_dict()) == original_values; };
  for (std::size_t length = 0; length < text.size(); ++length) {
    ++truncations.tried;
    if (try_load(module, text.substr(0, length))) {
      FAIL_CHECK("a file cut to " << length << " of " << text.size() << " bytes loaded");
      module.load_state_dict(original);
    } else {
      ++truncations.threw;
      if (!unchanged()) FAIL_CHECK("a file cut to " << length << " bytes changed the module");
    }
  }
  for (std::size_t i = 0; i < text.size(); ++i)
    for (int byte = 0; byte < 256; ++byte) {
      if (static_cast<char>(byte) == text[i]) continue;
      std::string damaged = text;
      damaged[i] = static_cast<char>(byte);
      ++changes.tried;
      if (!try_load(module, damaged)) {
        ++changes.threw;
        if (!unchanged()) FAIL_CHECK("byte " << i << " set to " << byte << " threw but changed the module");
        continue;
      }
      // It loaded: every value must be the saved one, but for the number the change is in.
      std::vector<double> expected = saved;
      if (owner[i] >= 0 && numbers_may_change) {  // (a version 3 file's values are not words)
        std::size_t start = i, end = i;
        while (start > 0 && damaged[start - 1] != ' ' && damaged[start - 1] != '\n') --start;
        while (end < damaged.size() && damaged[end] != ' ' && damaged[end] != '\n') ++end;
        expected[static_cast<std::size_t>(owner[i])] = std::strtod(damaged.substr(start, end - start).c_str(), nullptr);
      }
      const std::vector<double> loaded = values_of(module.state_dict());
      bool same = loaded.size() == saved.size(), as_expected = loaded.size() == expected.size();
      for (std::size_t k = 0; k < loaded.size(); ++k) {
        same = same && same_bits(loaded[k], saved[k]);
        as_expected = as_expected && same_bits(loaded[k], expected[k]);
      }
      if (same) {
        ++changes.loaded_same;
      } else if (as_expected && owner[i] >= 0 && numbers_may_change) {
        ++changes.loaded_as_written;
      } else {
        FAIL_CHECK("byte " << i << " ('" << text[i] << "') set to " << byte << " loaded other values silently");
      }
      module.load_state_dict(original);
    }
}
}  // namespace

TEST_CASE(
    "every truncation and every single-byte change of a saved file throws ValueError and leaves the module unchanged") {
  Generator gen(6);
  Pair a(gen), b(gen);
  std::ostringstream out;
  save(a.state_dict(), out);
  const std::string text = out.str();
  Tally truncations, changes;
  try_every_damage(text, b, values_of(a.state_dict()), false, truncations, changes);
  MESSAGE("version 2, " << text.size() << " bytes: " << truncations.tried << " truncations, " << truncations.threw
                        << " threw; " << changes.tried << " single-byte changes, " << changes.threw << " threw, "
                        << changes.loaded_same << " loaded the saved values");
  CHECK(truncations.threw == static_cast<std::int64_t>(text.size()));
  CHECK(changes.tried == 255 * static_cast<std::int64_t>(text.size()));
  CHECK(changes.threw == changes.tried);  // the checksum sees every single-byte change
  CHECK(try_load(b, text));
  CHECK(values_of(b.state_dict()) == values_of(a.state_dict()));
}

TEST_CASE(
    "a binary (version 3) file holds every value's bits in 8 bytes, and every truncation and every single-byte change "
    "of it throws ValueError and leaves the module unchanged") {
  Generator gen(6);
  Pair a(gen), b(gen);
  std::ostringstream text_out, binary_out;
  save(a.state_dict(), text_out);
  save(a.state_dict(), binary_out, StateDictFormat::Binary);
  const std::string binary = binary_out.str();
  CHECK(binary.rfind("litgrad state_dict 3\nentries ", 0) == 0);
  std::int64_t values = 0;
  for (const auto& [key, value] : a.state_dict()) values += value.numel();
  // The header lines as in version 2; each value line holds 8 bytes a value and its '\n'.
  std::size_t value_bytes = 0, text_value_bytes = 0;
  {
    std::istringstream in(text_out.str());
    std::string line;
    for (int n = 0; std::getline(in, line); ++n)
      if (n >= 2 && n % 2 == 1 && line.rfind("checksum ", 0) != 0 && line != "end") text_value_bytes += line.size();
  }
  value_bytes = static_cast<std::size_t>(8 * values);
  MESSAGE("version 3, " << binary.size() << " bytes, " << value_bytes << " of them values; version 2, "
                        << text_out.str().size() << " bytes, " << text_value_bytes << " of them values");
  CHECK(binary.size() - value_bytes == text_out.str().size() - text_value_bytes);
  Tally truncations, changes;
  try_every_damage(binary, b, values_of(a.state_dict()), false, truncations, changes);
  CHECK(truncations.threw == static_cast<std::int64_t>(binary.size()));
  CHECK(changes.tried == 255 * static_cast<std::int64_t>(binary.size()));
  CHECK(changes.threw == changes.tried);
  CHECK(try_load(b, binary));
  CHECK(values_of(b.state_dict()) == values_of(a.state_dict()));
}

TEST_CASE(
    "a binary file keeps every double's bits (signed zeros, infinities, NaN, subnormals), Int64 and Bool entries, "
    "and refuses an Int64 value that is not whole") {
  StateDict d;
  const std::vector<double> awkward = {
      -0.0, 0.0, 1.0 / 3, -INFINITY, INFINITY, NAN, 0x1p-1074, -0x1.fffffffffffffp+1023, 0x1p-1022, 0.1};
  d.insert("awkward", tensor(awkward, {2, 5}));
  d.insert("ids", tensor({0, -7, 0x1p53}, {3}, DType::Int64));
  d.insert("mask", tensor({1, 0}, {2}, DType::Bool));
  d.insert("empty", zeros({0, 3}));
  d.insert("scalar", tensor({2.5}, {}));
  std::ostringstream out;
  save(d, out, StateDictFormat::Binary);
  std::istringstream in(out.str());
  const StateDict back = load(in, "binary");
  CHECK(back.keys() == d.keys());
  for (const auto& [key, value] : d) {
    CAPTURE(key);
    const Tensor& got = back.at(key);
    CHECK(got.shape() == value.shape());
    CHECK(got.dtype() == value.dtype());
    for (std::int64_t i = 0; i < value.numel(); ++i) CHECK(same_bits(got.data()[i], value.data()[i]));
  }
  // An Int64 entry holding 2.5, written by hand with a correct checksum: refused by its kind.
  std::string text = "litgrad state_dict 3\nentries 1\nn Int64 1 1\n";
  text += std::string("\x00\x00\x00\x00\x00\x00\x04\x40", 8) + "\n";  // 2.5, little-endian
  text += "checksum " + detail::hex16(detail::fnv1a(text)) + "\nend\n";
  std::istringstream bad(text);
  CHECK_THROWS_WITH_AS(load(bad, "f"), doctest::Contains("value 0 of the Int64 entry 'n' is 2.5"), ValueError);
}

TEST_CASE(
    "a version 1 file without a checksum is read strictly: a damaged copy throws, or loads the saved values or the one "
    "number it now spells") {
  Generator gen(6);
  Pair a(gen), b(gen);
  std::ostringstream out;
  save(a.state_dict(), out);
  const std::string text = as_version_1(out.str());
  Tally truncations, changes;
  try_every_damage(text, b, values_of(a.state_dict()), true, truncations, changes);
  MESSAGE("version 1, " << text.size() << " bytes: " << truncations.tried << " truncations, " << truncations.threw
                        << " threw; " << changes.tried << " single-byte changes, " << changes.threw << " threw, "
                        << changes.loaded_same << " loaded the saved values, " << changes.loaded_as_written
                        << " loaded one number as the changed digits spell it");
  CHECK(truncations.threw == static_cast<std::int64_t>(text.size()));
  CHECK(changes.threw + changes.loaded_same + changes.loaded_as_written == changes.tried);
  CHECK(try_load(b, text));
  CHECK(values_of(b.state_dict()) == values_of(a.state_dict()));
}

TEST_CASE(
    "a size too large for the file, trailing characters and an extra value are refused with ValueError, not "
    "bad_alloc") {
  auto attempt = [](const std::string& text, const std::string& expected) {
    std::istringstream in(text);
    CHECK_THROWS_WITH_AS(load(in, "f"), doctest::Contains(expected.c_str()), ValueError);
  };
  attempt("litgrad state_dict 1\nparameters 1\nw Float64 2 99999999999 99999999999\n0x0p+0\nend\n",
          "is larger than this file of");
  attempt("litgrad state_dict 1\nparameters 1\nw Float64 3 60 60 60\n0x0p+0\nend\n",
          "holds more values than the file could");
  attempt("litgrad state_dict 1\nparameters 99999999999999\nw Float64 1 1\n0x0p+0\nend\n", "is larger than this file");
  attempt("litgrad state_dict 1\nparameters 1\nw Float64 1 2\n0x1p+0 0x1p+1 0x1p+2\nend\n",
          "should have 2 values, the line has 3");
  attempt("litgrad state_dict 1\nparameters 1\nw Float64 1 2\n0x1p+0 0x1p+1xyz\nend\n", "'0x1p+1xyz', is not a number");
  attempt("litgrad state_dict 1\nparameters 1\nw Float64 1 2 7\n0x1p+0 0x1p+1\nend\n", "has 1 dimensions but 2 sizes");
  attempt("litgrad state_dict 1\nparameters 1\nw Float64 1 2\n0x1p+0 0x1p+1\nend\nmore\n",
          "something follows the line 'end'");
  attempt("litgrad state_dict 1\nparameters 1\nw Int64 1 1\n0x1.8p+0\nend\n", "not a whole number");
}

// ---------------------------------------------------------------------------------------------
// Resuming

namespace {
// A small network with dropout, so that the generator's place matters to every step.
struct Net : nn::Module {
  nn::Linear hidden, out;
  Generator* gen;
  explicit Net(Generator& init, Generator& noise)
      : Module("Net"), hidden(4, 8, true, init), out(8, 2, true, init), gen(&noise) {
    register_module("hidden", hidden);
    register_module("out", out);
  }
  Tensor forward(const Tensor& x) const { return out(dropout(tanh(hidden(x)), 0.25, is_training(), *gen)); }
};

// Everything a run has: the model, its optimiser and schedule, and the generator that draws
// the batches and the dropout masks.
struct Run {
  Generator init, noise;
  Net net;
  std::unique_ptr<optim::Optimizer> opt;
  std::unique_ptr<optim::lr_scheduler::LambdaLR> schedule;
  Run(std::uint64_t init_seed, const std::function<std::unique_ptr<optim::Optimizer>(Net&)>& make)
      : init(init_seed), noise(77), net(init, noise), opt(make(net)) {
    schedule =
        std::make_unique<optim::lr_scheduler::LambdaLR>(*opt, optim::lr_scheduler::cosine_with_warmup(3, 20, 0.1));
  }
  void train(int steps) {
    for (int s = 0; s < steps; ++s) {
      // 21 normals a step, made in pairs by the polar method: after an odd number of steps
      // the second of a pair is left over, and a checkpoint must carry it.
      const Tensor x = randn({5, 4}, noise);
      const Tensor y = randint(0, 2, {5}, noise);
      (void)noise.normal();
      opt->zero_grad();
      cross_entropy(net.forward(x), y).backward();
      opt->step();
      schedule->step();
    }
  }
  StateDict checkpoint() const {
    StateDict c;
    c.update("model", net.state_dict());
    c.update("optimizer", opt->state_dict());
    c.update("scheduler", schedule->state_dict());
    c.update("generator", noise.state_dict());
    return c;
  }
  void restore(const StateDict& c) {
    net.load_state_dict(c.sub("model"));
    opt->load_state_dict(c.sub("optimizer"));
    schedule->load_state_dict(c.sub("scheduler"));
    noise.load_state_dict(c.sub("generator"));
  }
};

std::vector<optim::ParamGroup> decay_and_not(Net& net) {
  return {{{net.hidden.weight, net.out.weight}}, {{net.hidden.bias, net.out.bias}, {{"weight_decay", 0.0}}}};
}
}  // namespace

TEST_CASE(
    "2N steps equal N steps, a checkpoint saved to a file and loaded into fresh objects, and N more: parameters, "
    "optimiser state and the generator's next draws, bit for bit") {
  const std::map<std::string, std::function<std::unique_ptr<optim::Optimizer>(Net&)>> optimisers = {
      {"AdamW with a group without decay",
       [](Net& n) { return std::make_unique<optim::AdamW>(decay_and_not(n), optim::AdamWOptions{0.05}); }},
      {"SGD with Nesterov momentum",
       [](Net& n) {
         return std::make_unique<optim::SGD>(decay_and_not(n), optim::SGDOptions{0.1, 0.9, 0, 1e-3, true});
       }},
      {"RMSprop centered with momentum",
       [](Net& n) {
         return std::make_unique<optim::RMSprop>(decay_and_not(n),
                                                 optim::RMSpropOptions{0.01, 0.9, 1e-8, 1e-3, 0.5, true});
       }},
  };
  const int N = 5;  // odd, so that the generator holds a spare normal at the checkpoint
  const std::string path = (std::filesystem::temp_directory_path() / "litgrad-test-resume.ckpt").string();
  for (const auto& [name, make] : optimisers) {
    CAPTURE(name);
    Run straight(1, make);
    straight.train(2 * N);

    Run first_half(1, make);
    first_half.train(N);
    CHECK(first_half.noise.state_dict().at("spare_normal").numel() == 1);
    save(first_half.checkpoint(), path);
    Run resumed(99, make);  // another start, which the checkpoint must overwrite completely
    resumed.restore(load(path));
    resumed.train(N);

    CHECK(identical(resumed.net.state_dict(), straight.net.state_dict()));
    CHECK(identical(resumed.opt->state_dict(), straight.opt->state_dict()));
    CHECK(identical(resumed.schedule->state_dict(), straight.schedule->state_dict()));
    CHECK(identical(resumed.noise.state_dict(), straight.noise.state_dict()));
    for (int i = 0; i < 3; ++i) CHECK(same_bits(resumed.noise.normal(), straight.noise.normal()));
    CHECK(resumed.noise.next_u64() == straight.noise.next_u64());
  }
  std::filesystem::remove(path);
}

TEST_CASE("a generator's state_dict resumes its sequence, a spare normal included") {
  Generator a(12);
  (void)a.normal();  // leaves the pair's second normal as the spare
  const StateDict state = a.state_dict();
  CHECK(state.at("spare_normal").numel() == 1);
  Generator b(0);
  b.load_state_dict(state);
  for (int i = 0; i < 5; ++i) CHECK(same_bits(a.normal(), b.normal()));
  CHECK(a.next_u64() == b.next_u64());
}

TEST_CASE("a module's non-strict load reports the missing and unexpected keys and loads the rest") {
  Generator gen(8);
  Pair a(gen), b(gen);
  StateDict partial;
  partial.insert("first.weight", a.first.weight.detach());
  partial.insert("extra.weight", zeros({1}));
  const IncompatibleKeys keys = b.load_state_dict(partial, false);
  CHECK(keys.missing_keys == std::vector<std::string>{"first.bias", "second.weight", "second.bias"});
  CHECK(keys.unexpected_keys == std::vector<std::string>{"extra.weight"});
  CHECK(test::identical(b.first.weight, a.first.weight));
  CHECK_FALSE(test::identical(b.first.bias, a.first.bias));
}
