#include "litgrad/nn/module.hpp"

#include <ostream>

#include "litgrad/error.hpp"

namespace litgrad::nn {

Module::Module(std::string type) : type_(std::move(type)) {}

void Module::register_parameter(const std::string& name, Tensor& slot) {
  slot.requires_grad_(true);
  parameters_.emplace_back(name, &slot);
}

void Module::register_module(const std::string& name, Module& child) { children_.emplace_back(name, &child); }

std::vector<std::pair<std::string, Tensor>> Module::named_parameters() const {
  std::vector<std::pair<std::string, Tensor>> out;
  for (const auto& [name, slot] : parameters_) out.emplace_back(name, *slot);
  for (const auto& [prefix, child] : children_)
    for (auto& [name, p] : child->named_parameters()) out.emplace_back(prefix + "." + name, p);
  return out;
}

std::vector<Tensor> Module::parameters() const {
  std::vector<Tensor> out;
  for (auto& named : named_parameters()) out.push_back(named.second);
  return out;
}

Tensor Module::parameter(const std::string& name) const {
  std::string known;
  for (auto& [n, p] : named_parameters()) {
    if (n == name) return p;
    known += (known.empty() ? "" : ", ") + n;
  }
  throw ValueError(type_ + ": no parameter named '" + name + "' (it has: " + known + ")");
}

void Module::train(bool on) {
  training_ = on;
  for (auto& child : children_) child.second->train(on);
}

void Module::zero_grad() {
  for (Tensor p : parameters()) p.zero_grad();
}

void Module::print(std::ostream& os, int indent) const {
  os << type_ << "(" << extra_repr();
  if (!children_.empty()) {
    os << "\n";
    for (const auto& [name, child] : children_) {
      os << std::string(indent + 2, ' ') << "(" << name << "): ";
      child->print(os, indent + 2);
      os << "\n";
    }
    os << std::string(indent, ' ');
  }
  os << ")";
}

std::ostream& operator<<(std::ostream& os, const Module& m) {
  m.print(os, 0);
  return os;
}

}  // namespace litgrad::nn
