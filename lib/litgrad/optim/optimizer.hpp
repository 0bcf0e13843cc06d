#pragma once
/// \file optim/optimizer.hpp
/// \brief The base of the optimisers: parameter groups with their hyper-parameters,
/// `zero_grad()`, `step()`, and the optimiser's state to save and restore.

#include <cstddef>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "litgrad/core/state_dict.hpp"
#include "litgrad/core/tensor.hpp"

namespace litgrad::optim {

/// \brief Hyper-parameters by name, e.g. `{{"lr", 0.01}, {"weight_decay", 0.0}}`.
using HyperParameters = std::vector<std::pair<std::string, double>>;

/// \brief Parameters and the hyper-parameters they are updated with, as one of torch's
/// `param_groups`: `opt.param_groups()[1]["lr"] = 0.01` is torch's
/// `opt.param_groups[1]["lr"] = 0.01`, and the next step() uses it.
///
/// A group is the one place where its hyper-parameters live. Made by hand, it holds only the
/// ones that differ from the optimiser's defaults; the optimiser fills in the others, in its
/// own order. Flags are numbers here (SGD's `nesterov` is 0 or 1), and Adam's betas are two
/// entries, `beta1` and `beta2`, as in AdamOptions. Unlike a Python dictionary, a group refuses
/// a key its optimiser does not have: in torch, `group["momentum"] = 0.9` on an Adam group
/// adds a key that nothing reads.
///
/// \code
/// // AdamW with no weight decay for biases and norms, as is usual for Transformers:
/// optim::AdamW opt({{weights}, {no_decay, {{"weight_decay", 0.0}}}}, {3e-3});
/// opt.param_groups()[0]["lr"] *= 0.5;
/// \endcode
///
/// When no group sets a hyper-parameter, `{{a}, {b}}` could also be read as a list of tensors;
/// name the type then: `{optim::ParamGroup({a}), optim::ParamGroup({b})}`.
class ParamGroup {
 public:
  /// \brief A group of \p params whose hyper-parameters in \p options override the optimiser's
  /// defaults. Checked when an optimiser takes the group.
  ParamGroup(std::vector<Tensor> params, HyperParameters options = {});

  std::vector<Tensor> params;  ///< the tensors this group updates

  /// \brief The hyper-parameter \p key, to read or set. \throws ValueError for a key the group
  /// does not have, naming the ones it has.
  double& operator[](std::string_view key);
  /// \brief The hyper-parameter \p key. \throws ValueError for a key the group does not have.
  double operator[](std::string_view key) const;
  /// \brief Whether the group has the hyper-parameter \p key.
  bool contains(std::string_view key) const;
  /// \brief The hyper-parameters' names, in order.
  std::vector<std::string> keys() const;
  /// \brief The hyper-parameters and their values, in order.
  const HyperParameters& options() const { return options_; }

 private:
  friend class Optimizer;
  const double* find(std::string_view key) const;
  [[noreturn]] void unknown(std::string_view key) const;
  HyperParameters options_;
};

/// \brief Updates parameters from their gradients, one step() at a time, in groups that each
/// have their own hyper-parameters, as `torch.optim.Optimizer`.
///
/// The usual loop, as in torch:
/// \code
/// opt.zero_grad();
/// Tensor loss = mse_loss(model(x), y);
/// loss.backward();
/// opt.step();
/// \endcode
///
/// Parameters are tensors that are leaves (made directly, not computed). A parameter that does
/// not require grad (frozen) or has no gradient is accepted and skipped by step(), as in
/// torch 2; torch would still move a frozen tensor that kept an old gradient, litgrad does not.
/// Each tensor may appear once among all groups: torch refuses a tensor in two groups and
/// warns, then steps twice, for one listed twice in a group; litgrad refuses both.
///
/// **State.** state_dict() gives, as torch's with its nested dictionaries written as dotted
/// keys, `state.K.NAME` for each parameter K (counted across the groups in order) that has
/// state (Adam's `step`, `exp_avg`, `exp_avg_sq`; SGD's `momentum_buffer`), then
/// `param_groups.G.KEY` for each hyper-parameter of group G and `param_groups.G.params`, the
/// indices K of its parameters. load_state_dict() takes it back into an optimiser made over
/// parameters of the same shapes in the same groups.
class Optimizer {
 public:
  virtual ~Optimizer() = default;
  /// \brief Zeros every parameter's gradient, or clears it with \p set_to_none, as
  /// nn::Module::zero_grad().
  void zero_grad(bool set_to_none = false);
  /// \brief Moves every parameter that requires grad and has a gradient. \throws ValueError
  /// when a group's hyper-parameters have been set out of range, naming the group.
  virtual void step() = 0;
  /// \brief The parameter groups, whose hyper-parameters may be read and set.
  std::vector<ParamGroup>& param_groups() { return groups_; }
  /// \brief The parameter groups, read only.
  const std::vector<ParamGroup>& param_groups() const { return groups_; }
  /// \brief Adds a group, its missing hyper-parameters taken from the defaults the optimiser
  /// was made with, as torch's `add_param_group`. \throws ValueError as the constructor.
  void add_param_group(ParamGroup group);
  /// \brief The optimiser's name as its messages give it: `"SGD"`, `"Adam"`, `"AdamW"`.
  const std::string& name() const { return name_; }

  /// \brief The state (see above), each tensor a copy of the values of the moment.
  StateDict state_dict() const;
  /// \brief Restores a state given by state_dict(): the groups' hyper-parameters and every
  /// parameter's state. The whole dictionary is checked before anything changes, as torch's
  /// (which has no `strict` flag either): the same number of groups of the same sizes, no key
  /// missing or unexpected, every shape right, every hyper-parameter in range.
  /// \throws ValueError naming the optimiser and what does not match.
  void load_state_dict(const StateDict& dict);

 protected:
  /// \brief The optimiser \p name over \p groups, whose missing hyper-parameters come from
  /// \p defaults (which also fix the keys a group may have and their order). A subclass calls
  /// check_groups() at the end of its constructor. \throws ValueError for a group with a key
  /// not in \p defaults, or a parameter that is undefined, not a leaf, or already given.
  Optimizer(std::string name, std::vector<ParamGroup> groups, HyperParameters defaults);

  /// \brief One entry of a parameter's state: its name and whether it is a scalar (else it
  /// has the parameter's shape).
  struct StateKey {
    const char* name;  ///< e.g. `"exp_avg"`
    bool scalar;       ///< a count of steps such as `step` (whole, at least 1), rather than one number per element
  };
  /// \brief The entries a parameter's state has once it has been stepped, in order.
  virtual std::vector<StateKey> state_layout() const = 0;
  /// \brief Throws ValueError, naming the optimiser and group \p index, when \p group's
  /// hyper-parameters are out of range.
  virtual void check(const ParamGroup& group, std::size_t index) const = 0;
  /// \brief check() of every group.
  void check_groups() const;

  /// \brief A parameter's state: its entries in state_layout()'s order, or none before its
  /// first step.
  using ParamState = std::vector<std::pair<std::string, Tensor>>;
  /// \brief The state of parameter \p k, counted across the groups in order.
  ParamState& state(std::size_t k) { return state_[k]; }

 private:
  void adopt(ParamGroup& group, std::size_t index);
  std::string name_;
  HyperParameters defaults_;
  std::vector<ParamGroup> groups_;
  std::vector<ParamState> state_;  // one per parameter, in group order
};

}  // namespace litgrad::optim
