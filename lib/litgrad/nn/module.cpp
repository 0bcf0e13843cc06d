#include "litgrad/nn/module.hpp"

#include <ostream>

#include "litgrad/error.hpp"

namespace litgrad::nn {

Module::Module(std::string type) : type_(std::move(type)) {}
Module::~Module() = default;
Module::Module(Module&& other) noexcept = default;
Module& Module::operator=(Module&& other) noexcept = default;

// Where `member` sits inside this module. A module's members lie within a few kilobytes of
// its start (they are handles, not data); anything farther is not a member.
std::ptrdiff_t Module::member_offset(const char* what, const std::string& name, const void* member) const {
  const std::ptrdiff_t offset = static_cast<const char*>(member) - reinterpret_cast<const char*>(this);
  constexpr std::ptrdiff_t kLargestModule = 1 << 16;
  if (offset <= 0 || offset >= kLargestModule)
    throw ValueError(type_ + ": " + what + " '" + name + "' is not a member of this module; register members "
                     "only (a module held by pointer is handed over with add_module)");
  return offset;
}

Tensor& Module::parameter_at(std::ptrdiff_t offset) const {
  return *reinterpret_cast<Tensor*>(const_cast<char*>(reinterpret_cast<const char*>(this)) + offset);
}

Module& Module::child_at(std::size_t i) const {
  const Child& c = children_[i];
  if (c.owned) return *c.owned;
  return *reinterpret_cast<Module*>(const_cast<char*>(reinterpret_cast<const char*>(this)) + c.offset);
}

void Module::register_parameter(const std::string& name, Tensor& slot) {
  const std::ptrdiff_t offset = member_offset("parameter", name, &slot);
  slot.requires_grad_(true);
  parameters_.emplace_back(name, offset);
}

void Module::register_module(const std::string& name, Module& child) {
  children_.push_back({name, member_offset("sub-module", name, &child), nullptr});
}

Module& Module::add_module(const std::string& name, std::unique_ptr<Module> child) {
  if (!child) throw ValueError(type_ + ": add_module '" + name + "' was given no module");
  owned_.push_back(std::move(child));
  children_.push_back({name, 0, owned_.back().get()});
  return *owned_.back();
}

std::vector<std::pair<std::string, Tensor>> Module::named_parameters() const {
  std::vector<std::pair<std::string, Tensor>> out;
  for (const auto& [name, offset] : parameters_) out.emplace_back(name, parameter_at(offset));
  for (std::size_t i = 0; i < children_.size(); ++i)
    for (auto& [name, p] : child_at(i).named_parameters()) out.emplace_back(children_[i].name + "." + name, p);
  return out;
}

std::vector<std::pair<std::string, Module*>> Module::named_children() const {
  std::vector<std::pair<std::string, Module*>> out;
  for (std::size_t i = 0; i < children_.size(); ++i) out.emplace_back(children_[i].name, &child_at(i));
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
  for (std::size_t i = 0; i < children_.size(); ++i) child_at(i).train(on);
}

void Module::zero_grad() {
  for (Tensor p : parameters()) p.zero_grad();
}

void Module::print(std::ostream& os, int indent) const {
  os << type_ << "(" << extra_repr();
  if (!children_.empty()) {
    os << "\n";
    for (std::size_t i = 0; i < children_.size(); ++i) {
      os << std::string(indent + 2, ' ') << "(" << children_[i].name << "): ";
      child_at(i).print(os, indent + 2);
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
