#pragma once
/// \file nn/module.hpp
/// \brief `nn::Module`: a model made of parameters and sub-modules, with torch's dotted names.

#include <cstddef>
#include <cstdint>
#include <functional>
#include <iosfwd>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "litgrad/autograd/graph.hpp"
#include "litgrad/core/state_dict.hpp"
#include "litgrad/core/tensor.hpp"

namespace litgrad::nn {

/// \brief The base of every layer: it owns named parameters and sub-modules, switches between
/// training and evaluation, gives and takes its state, and prints itself as torch does.
///
/// A subclass keeps its parameters and sub-modules as members and registers them once in its
/// constructor. Parameter names are dotted paths as in torch, e.g. `out_proj.weight`, so that
/// weights can be matched one to one with a torch model. Sub-modules that a module holds by
/// pointer, as nn::ModuleList and nn::Sequential do, are handed over with add_module().
///
/// **How the registry finds members.** Modules are values: they move into a `std::vector` and
/// out of functions, and a moved module's members are at new addresses. So the registry keeps
/// not a member's address but its *place*: how many bytes it lies from the start of its module,
/// which a move does not change. Two alternatives were weighed and left: keeping the tensor
/// handles themselves (as libtorch does) survives a move but misses a member assigned after
/// registration, as weight tying does (`head.weight = tok.weight`), and gives nothing to hold
/// for a sub-module kept by value; keeping pointers to members (`&TwoLayer::hidden`) would be
/// exact but makes every registration name its class, `register_module("hidden",
/// &TwoLayer::hidden)`, where the reader writes `register_module("hidden", hidden)`. The price
/// of places is a cast from the module's start to the member (module.cpp's member_offset() and
/// member_at(), the only two places that compute with bytes) and a check that a registered
/// member lies plausibly inside its module: after the Module base and at most 64 KiB from it
/// (members are handles of a few dozen bytes). That check refuses an object elsewhere, such
/// as a module on the stack registered by one on the heap, but it cannot see a stray object
/// that happens to lie within those bytes: register only members. Copying is not allowed,
/// since a copy would share the parameters' data.
///
/// **A member left unregistered.** torch sees each attribute set in `__init__`; here a
/// member is in the model only once registered. So every module notes when it was made, and
/// at its first registration (its members are made by then, and its constructor's body has
/// begun) it lists the modules made since that lie inside it and that no module has
/// registered: its members. The first listing of its parameters, buffers, state or mode
/// (named_parameters(), named_buffers(), state_dict(), train()) prints a warning on standard
/// error for each one still unregistered, once. A Tensor member left unregistered is not
/// found: tensors are not followed so.
///
/// \code
/// struct TwoLayer : nn::Module {
///   nn::Linear hidden{2, 8}, out{8, 1};
///   TwoLayer() : Module("TwoLayer") { register_module("hidden", hidden); register_module("out", out); }
/// };
/// std::vector<TwoLayer> models(3);   // modules move, so they live in containers
/// \endcode
class Module {
 public:
  /// \brief \p type is the class name the printout shows, e.g. `"Linear"`.
  explicit Module(std::string type);
  virtual ~Module();
  Module(const Module&) = delete;
  Module& operator=(const Module&) = delete;
  /// \brief Moves the module: its members move with it and its registry still finds them.
  Module(Module&& other) noexcept;
  /// \brief Moves the module: its members move with it and its registry still finds them.
  Module& operator=(Module&& other) noexcept;

  /// \brief Every parameter of this module and its sub-modules, with dotted names, in
  /// registration order (the order torch's `named_parameters()` gives for the same layer).
  /// A tensor registered under several names (a tied weight, `head.weight = tok.weight`) is
  /// listed once, under its first name, as torch's default `remove_duplicate=True`; with
  /// \p remove_duplicate false it is listed under every name.
  std::vector<std::pair<std::string, Tensor>> named_parameters(bool remove_duplicate = true) const;
  /// \brief The parameters of named_parameters(), without the names: each tensor once, so an
  /// optimiser given them steps a tied weight once.
  std::vector<Tensor> parameters() const;
  /// \brief The parameter with dotted name \p name. \throws ValueError naming the known names.
  Tensor parameter(const std::string& name) const;
  /// \brief The direct sub-modules with their names, in registration order.
  std::vector<std::pair<std::string, Module*>> named_children() const;
  /// \brief This module and every module under it, depth first with this one first, as torch's
  /// `modules()`: `for (nn::Module* m : model.modules())`.
  std::vector<Module*> modules();
  /// \brief This module and every module under it with their dotted names (`""` for this
  /// one, then `"blocks.0"`, `"blocks.0.self_attn"`, ...), depth first, as torch's
  /// `named_modules()`.
  std::vector<std::pair<std::string, Module*>> named_modules();
  /// \brief Calls \p fn on every sub-module, children before parents, then on this module,
  /// as torch's `model.apply(init_weights)`; returns this module. \p fn tells the kinds apart
  /// with `dynamic_cast`, where Python uses `isinstance`.
  Module& apply(const std::function<void(Module&)>& fn);

  /// \brief Switches this module and every sub-module to training (\p on) or evaluation mode.
  void train(bool on = true);
  /// \brief `train(false)`: dropout and the like stop acting.
  void eval() { train(false); }
  /// \brief True in training mode (the initial mode, as in torch).
  bool is_training() const { return training_; }
  /// \brief Zeros the gradient of every parameter; with \p set_to_none, clears it instead
  /// (Tensor::set_grad(Tensor())), as torch's `zero_grad(set_to_none=True)`, the default from
  /// torch 2.0 on: the next backward then starts from nothing, and an optimiser skips a
  /// parameter that gets no gradient (AdamW does not decay it). litgrad keeps torch 1.13's
  /// default, zeros.
  void zero_grad(bool set_to_none = false);

  /// \brief Every buffer of this module and its sub-modules (see register_buffer()), with
  /// dotted names, in registration order, each tensor once, as torch's `named_buffers()`.
  std::vector<std::pair<std::string, Tensor>> named_buffers() const;
  /// \brief The buffers of named_buffers(), without the names.
  std::vector<Tensor> buffers() const;

  /// \brief Every parameter under every name (a tied weight under each) and every persistent
  /// buffer, each a copy of its values, as torch's `state_dict()`, in torch's order: each
  /// module's parameters, then its buffers, then its sub-modules'. torch's holds the live
  /// tensors, so that training after the call changes a dictionary kept in memory; this one
  /// keeps the values of the moment.
  StateDict state_dict() const;
  /// \brief Copies the values of \p dict into the parameters and persistent buffers of the
  /// same names, as torch's
  /// `load_state_dict`. Every shape and dtype is checked, and with \p strict every key must
  /// match (none missing, none unexpected), before any parameter changes, so on an error the
  /// module is as it was. \returns the keys that did not match (empty lists under \p strict).
  /// \throws ValueError naming the module, the missing and unexpected keys (under \p strict)
  ///   or the entry whose shape or dtype differs.
  IncompatibleKeys load_state_dict(const StateDict& dict, bool strict = true);

  /// \brief The class name given to the constructor.
  const std::string& type() const { return type_; }
  /// \brief The part of the printout between the parentheses, e.g.
  /// `in_features=2, out_features=3, bias=True`; empty by default.
  virtual std::string extra_repr() const { return ""; }

 protected:
  /// \brief Makes the member \p slot a parameter named \p name: it will require grad and be
  /// listed. \throws ValueError when \p slot cannot be a member (see register_module()).
  void register_parameter(const std::string& name, Tensor& slot);
  /// \brief Makes the member \p slot a buffer named \p name, as torch's `register_buffer`: a
  /// tensor the module keeps and computes with but does not learn, such as nanoGPT's causal
  /// mask or a running mean. It is not a parameter (an optimiser given parameters() never
  /// sees it, and it keeps its requires_grad as it is); it is listed by named_buffers(), and,
  /// when \p persistent, saved by state_dict() and loaded by load_state_dict() (torch's
  /// `persistent=False` keeps a buffer that can be recomputed out of checkpoints).
  /// \throws ValueError when \p slot cannot be a member, or \p name is already a
  ///   parameter's, a buffer's or a sub-module's.
  void register_buffer(const std::string& name, Tensor& slot, bool persistent = true);
  /// \brief Makes the member \p child a sub-module named \p name. Register members only: the
  /// registry keeps where a member sits inside the module, so a child that lives elsewhere
  /// would be lost when the module moves; hand such a module over with add_module().
  /// \throws ValueError when \p child cannot be a member (it lies farther from the module
  ///   than any member could, as a heap object from one on the stack).
  void register_module(const std::string& name, Module& child);
  /// \brief Opens this module's scope until the returned guard is destroyed: while an
  /// autograd::ScopeCapture lives, the operations recorded meanwhile are noted as this
  /// module's, so that autograd::recorded_graph() can draw a model module by module. Every
  /// library module's call operator opens one (`const auto in_scope = scope();`) and then
  /// calls forward(), as torch runs a module's hooks in `__call__` and not in `forward`: a
  /// direct call of forward() is grouped under no module. (forward_cached(), which has no call
  /// operator, opens it itself.) A module of your own opens one the
  /// same way when its operations should be grouped under it.
  autograd::Scope scope() const { return autograd::Scope(this); }
  /// \brief Takes ownership of \p child and makes it a sub-module named \p name; returns it.
  Module& add_module(const std::string& name, std::unique_ptr<Module> child);

 private:
  friend std::ostream& operator<<(std::ostream& os, const Module& m);
  void print(std::ostream& os, int indent) const;
  // A member's place: how many bytes it lies from the start of this module (see above).
  std::ptrdiff_t member_offset(const char* what, const std::string& name, const void* member) const;
  template <class T>
  T& member_at(std::ptrdiff_t offset) const;
  Tensor& parameter_at(std::ptrdiff_t offset) const;
  Module& child_at(std::size_t i) const;
  // What collect() lists: the parameters, the buffers, or the state (the parameters and the
  // persistent buffers).
  enum class Collect { parameters, buffers, state };
  // The tensors of this module and those under it, with dotted names: each module's
  // parameters, then its buffers, then its sub-modules', as torch walks them.
  void collect(const std::string& prefix, std::vector<std::pair<std::string, Tensor>>& out,
               Collect what = Collect::parameters) const;
  std::vector<std::pair<std::string, Tensor>> state_entries() const;
  void check_new_name(const std::string& name) const;

  struct Child {
    std::string name;
    std::ptrdiff_t offset;  // a member: its place inside this module
    Module* owned;          // or a module this one owns (in owned_), which does not move
  };
  std::string type_;
  bool training_ = true;
  std::vector<std::pair<std::string, std::ptrdiff_t>> parameters_;  // name, offset of the member
  struct Buffer {
    std::string name;
    std::ptrdiff_t offset;  // the member's place inside this module
    bool persistent;        // saved by state_dict()
  };
  std::vector<Buffer> buffers_;
  std::vector<Child> children_;
  std::vector<std::unique_ptr<Module>> owned_;

  // The check that every sub-module member is registered (module.cpp). A module knows when it
  // was made (born_, counting the modules made before it on this machine's run); at its first
  // registration, its members are all made and the constructor's body has begun, so the
  // unregistered modules made since and lying inside it are its members: their places wait in
  // unclaimed_ until registered. The first listing of its parameters, buffers, state or mode
  // warns once of any left.
  void list_members();
  void warn_of_unregistered_members() const;
  std::uint64_t born_ = 0;
  bool registered_ = false;        // some module registered or adopted this one
  bool members_listed_ = false;    // list_members() has run
  mutable bool warned_ = false;    // warn_of_unregistered_members() has run
  mutable bool reported_ = false;  // a warning named this module as unregistered
  std::vector<std::ptrdiff_t> unclaimed_;
};

/// \brief Prints like torch: `Linear(in_features=2, out_features=3, bias=True)`, sub-modules
/// indented one per line.
std::ostream& operator<<(std::ostream& os, const Module& m);

}  // namespace litgrad::nn
