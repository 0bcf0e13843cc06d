#include "litgrad/optim/optimizer.hpp"

#include <cmath>
#include <string>

#include "litgrad/base/error.hpp"

namespace litgrad::optim {

// ---------------------------------------------------------------------------------------------
// ParamGroup

ParamGroup::ParamGroup(std::vector<Tensor> params_in, HyperParameters options)
    : params(std::move(params_in)), options_(std::move(options)) {}

const double* ParamGroup::find(std::string_view key) const {
  for (const auto& [name, value] : options_)
    if (name == key) return &value;
  return nullptr;
}

void ParamGroup::unknown(std::string_view key) const {
  throw ValueError("param_groups: no hyper-parameter '", key, "' in this group (it has: ", detail::join_keys(keys()),
                   ")");
}

double& ParamGroup::operator[](std::string_view key) {
  if (const double* value = find(key)) return *const_cast<double*>(value);
  unknown(key);
}

double ParamGroup::operator[](std::string_view key) const {
  if (const double* value = find(key)) return *value;
  unknown(key);
}

bool ParamGroup::contains(std::string_view key) const { return find(key) != nullptr; }

std::vector<std::string> ParamGroup::keys() const {
  std::vector<std::string> out;
  for (const auto& option : options_) out.push_back(option.first);
  return out;
}

// ---------------------------------------------------------------------------------------------
// Optimizer

Optimizer::Optimizer(std::string name, std::vector<ParamGroup> groups, HyperParameters defaults)
    : name_(std::move(name)), defaults_(std::move(defaults)) {
  for (ParamGroup& group : groups) add_param_group(std::move(group));
}

// Checks a new group's parameters and keys and fills in the defaults, in the defaults' order.
void Optimizer::adopt(ParamGroup& group, std::size_t index) {
  const std::string where = litgrad::detail::message(name_, ": param group ", index);
  HyperParameters options = defaults_;
  for (const auto& [key, value] : group.options_) {
    bool known = false;
    for (auto& option : options)
      if (option.first == key) option.second = value, known = true;
    if (!known) {
      std::vector<std::string> names;
      for (const auto& option : defaults_) names.push_back(option.first);
      throw ValueError(where, " has the hyper-parameter '", key, "', which ", name_,
                       " does not have (its are: ", detail::join_keys(names), ")");
    }
  }
  for (std::size_t i = 0; i < group.params.size(); ++i) {
    const Tensor& p = group.params[i];
    const std::string which = litgrad::detail::message(where, ", parameter ", i);
    if (!p.defined()) throw ValueError(which, " is an undefined tensor");
    if (!p.is_leaf())
      throw ValueError(
          which, " was computed (by ", p.grad_fn(),
          "), so it is not a leaf; an optimiser updates leaves, as torch's refuses to \"optimize a non-leaf Tensor\"");
    for (std::size_t j = 0; j < i; ++j)
      if (group.params[j].is_same(p))
        throw ValueError(which, " is the same tensor as parameter ", j,
                         " of the group; each tensor may be given once (torch would step it twice)");
    for (std::size_t g = 0; g < groups_.size(); ++g)
      for (std::size_t j = 0; j < groups_[g].params.size(); ++j)
        if (groups_[g].params[j].is_same(p))
          throw ValueError(which, " is already parameter ", j, " of param group ", g,
                           "; each tensor may be in one group only, as in torch");
  }
  group.options_ = std::move(options);
}

void Optimizer::add_param_group(ParamGroup group) {
  adopt(group, groups_.size());
  state_.resize(state_.size() + group.params.size());
  groups_.push_back(std::move(group));
}

void Optimizer::check_groups() const {
  for (std::size_t g = 0; g < groups_.size(); ++g) check(groups_[g], g);
}

void Optimizer::zero_grad(bool set_to_none) {
  for (ParamGroup& group : groups_)
    for (Tensor& p : group.params)
      if (set_to_none)
        p.set_grad(Tensor());
      else
        p.zero_grad();
}

StateDict Optimizer::state_dict() const {
  StateDict dict;
  for (std::size_t k = 0; k < state_.size(); ++k)
    for (const auto& [name, value] : state_[k])
      dict.insert("state." + std::to_string(k) + "." + name, litgrad::detail::snapshot(value));
  std::size_t k = 0;
  for (std::size_t g = 0; g < groups_.size(); ++g) {
    const std::string prefix = "param_groups." + std::to_string(g) + ".";
    for (const auto& [key, value] : groups_[g].options_) dict.insert(prefix + key, scalar_tensor(value));
    std::vector<double> indices;
    for (std::size_t i = 0; i < groups_[g].params.size(); ++i) indices.push_back(static_cast<double>(k++));
    const auto n = static_cast<std::int64_t>(indices.size());
    dict.insert(prefix + "params", tensor(std::move(indices), {n}, DType::Int64));
  }
  return dict;
}

namespace {
// "12" -> 12, for the numbers in keys; -1 for anything else ("01", "-1", "x").
long index_in(const std::string& word) {
  if (word.empty() || word.size() > 9 || (word.size() > 1 && word[0] == '0')) return -1;
  for (char c : word)
    if (c < '0' || c > '9') return -1;
  return std::stol(word);
}
}  // namespace

void Optimizer::load_state_dict(const StateDict& dict) {
  const std::vector<StateKey> layout = state_layout();
  // Which keys are expected: each group's hyper-parameters and params; and for a parameter
  // with state, every entry of the layout.
  IncompatibleKeys keys;
  std::vector<std::size_t> state_found(state_.size(), 0);
  for (const auto& [key, value] : dict) {
    const std::size_t first_dot = key.find('.'), second_dot = key.find('.', first_dot + 1);
    const std::string head = key.substr(0, first_dot);
    const long index =
        first_dot == std::string::npos ? -1 : index_in(key.substr(first_dot + 1, second_dot - first_dot - 1));
    const std::string rest = second_dot == std::string::npos ? "" : key.substr(second_dot + 1);
    bool known = false;
    if (head == "param_groups" && index >= 0 && static_cast<std::size_t>(index) < groups_.size())
      known = rest == "params" || groups_[static_cast<std::size_t>(index)].contains(rest);
    if (head == "state" && index >= 0 && static_cast<std::size_t>(index) < state_.size())
      for (const StateKey& entry : layout)
        if (rest == entry.name) known = true, ++state_found[static_cast<std::size_t>(index)];
    if (!known) keys.unexpected_keys.push_back(key);
  }
  for (std::size_t g = 0; g < groups_.size(); ++g) {
    const std::string prefix = "param_groups." + std::to_string(g) + ".";
    for (const std::string& key : groups_[g].keys())
      if (!dict.contains(prefix + key)) keys.missing_keys.push_back(prefix + key);
    if (!dict.contains(prefix + "params")) keys.missing_keys.push_back(prefix + "params");
  }
  for (std::size_t k = 0; k < state_.size(); ++k)
    if (state_found[k] != 0 && state_found[k] != layout.size())
      for (const StateKey& entry : layout)
        if (!dict.contains("state." + std::to_string(k) + "." + entry.name))
          keys.missing_keys.push_back("state." + std::to_string(k) + "." + entry.name);
  litgrad::detail::check_keys(name_, keys);

  // Every key is right; now every value: the groups' sizes and hyper-parameters, the shapes.
  std::vector<ParamGroup> groups = groups_;
  std::size_t k = 0;
  for (std::size_t g = 0; g < groups.size(); ++g) {
    const std::string prefix = "param_groups." + std::to_string(g) + ".";
    const Tensor& indices = dict.at(prefix + "params");
    const auto n = static_cast<std::int64_t>(groups[g].params.size());
    if (indices.dim() != 1 || indices.dtype() != DType::Int64 || indices.numel() != n)
      throw ValueError(name_, ".load_state_dict: param group ", g, " holds ",
                       (indices.dim() == 1 ? std::to_string(indices.numel()) : to_string(indices.shape())),
                       " parameters in the state_dict and ", n, " here");
    for (std::int64_t i = 0; i < n; ++i)
      if (indices.data()[i] != static_cast<double>(k + static_cast<std::size_t>(i)))
        throw ValueError(name_, ".load_state_dict: param group ", g, " lists parameter ", indices.data()[i],
                         " in place ", i, ", where state_dict() writes ", k + static_cast<std::size_t>(i));
    k += static_cast<std::size_t>(n);
    for (auto& [key, value] : groups[g].options_) {
      const Tensor& saved = dict.at(prefix + key);
      litgrad::detail::check_entry(name_, prefix + key, saved, {}, DType::Float64);
      value = saved.item();
    }
    check(groups[g], g);
  }
  std::vector<ParamState> state(state_.size());
  k = 0;
  for (const ParamGroup& group : groups)
    for (const Tensor& p : group.params) {
      if (state_found[k] != 0)
        for (const StateKey& entry : layout) {
          const std::string key = "state." + std::to_string(k) + "." + entry.name;
          const Tensor& saved = dict.at(key);
          litgrad::detail::check_entry(name_, key, saved, entry.scalar ? Shape{} : p.shape(), DType::Float64);
          // A count of steps is whole and at least 1 (a parameter has state once it was stepped):
          // Adam's 2.5 or 0 would give bias corrections no run of steps gives, silently.
          if (entry.scalar &&
              !(saved.item() >= 1 && saved.item() <= 0x1p53 && saved.item() == std::floor(saved.item())))
            throw ValueError(name_, ".load_state_dict: '", key, "' is ", saved.item(),
                             "; a count of steps must be a whole number of at least 1");
          state[k].emplace_back(entry.name, litgrad::detail::snapshot(saved));
        }
      ++k;
    }
  // Everything checked: only now does the optimiser change.
  groups_ = std::move(groups);
  state_ = std::move(state);
}

}  // namespace litgrad::optim
