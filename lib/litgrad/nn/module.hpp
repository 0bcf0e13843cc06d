#pragma once
/// \file nn/module.hpp
/// \brief `nn::Module`: a model made of parameters and sub-modules, with torch's dotted names.

#include <iosfwd>
#include <string>
#include <utility>
#include <vector>

#include "litgrad/tensor.hpp"

namespace litgrad::nn {

/// \brief The base of every layer: it owns named parameters and sub-modules, switches between
/// training and evaluation, and prints itself as torch does.
///
/// A subclass keeps its parameters and sub-modules as members and registers them once in its
/// constructor; the registry holds pointers to those members. For that reason a module can be
/// neither copied nor moved. Parameter names are dotted paths as in torch, e.g.
/// `out_proj.weight`, so that weights can be matched one to one with a torch model.
///
/// \code
/// struct TwoLayer : nn::Module {
///   nn::Linear hidden{2, 8}, out{8, 1};
///   TwoLayer() : Module("TwoLayer") { register_module("hidden", hidden); register_module("out", out); }
/// };
/// \endcode
class Module {
 public:
  /// \brief \p type is the class name the printout shows, e.g. `"Linear"`.
  explicit Module(std::string type);
  virtual ~Module() = default;
  Module(const Module&) = delete;
  Module& operator=(const Module&) = delete;

  /// \brief Every parameter of this module and its sub-modules, with dotted names, in
  /// registration order (the order torch's `named_parameters()` gives for the same layer).
  std::vector<std::pair<std::string, Tensor>> named_parameters() const;
  /// \brief The parameters of named_parameters(), without the names.
  std::vector<Tensor> parameters() const;
  /// \brief The parameter with dotted name \p name. \throws ValueError naming the known names.
  Tensor parameter(const std::string& name) const;

  /// \brief Switches this module and every sub-module to training (\p on) or evaluation mode.
  void train(bool on = true);
  /// \brief `train(false)`: dropout and the like stop acting.
  void eval() { train(false); }
  /// \brief True in training mode (the initial mode, as in torch).
  bool is_training() const { return training_; }
  /// \brief Zeros the gradient of every parameter.
  void zero_grad();

  /// \brief The class name given to the constructor.
  const std::string& type() const { return type_; }
  /// \brief The part of the printout between the parentheses, e.g.
  /// `in_features=2, out_features=3, bias=True`; empty by default.
  virtual std::string extra_repr() const { return ""; }

 protected:
  /// \brief Makes \p slot a parameter named \p name: it will require grad and be listed.
  void register_parameter(const std::string& name, Tensor& slot);
  /// \brief Makes \p child a sub-module named \p name.
  void register_module(const std::string& name, Module& child);

 private:
  friend std::ostream& operator<<(std::ostream& os, const Module& m);
  void print(std::ostream& os, int indent) const;

  std::string type_;
  bool training_ = true;
  std::vector<std::pair<std::string, Tensor*>> parameters_;
  std::vector<std::pair<std::string, Module*>> children_;
};

/// \brief Prints like torch: `Linear(in_features=2, out_features=3, bias=True)`, sub-modules
/// indented one per line.
std::ostream& operator<<(std::ostream& os, const Module& m);

}  // namespace litgrad::nn
