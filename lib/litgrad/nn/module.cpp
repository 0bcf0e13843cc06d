#include "litgrad/nn/module.hpp"

#include <algorithm>
#include <cstdint>
#include <iostream>
#include <mutex>
#include <ostream>
#include <sstream>
#include <unordered_map>

#include "litgrad/base/error.hpp"
#include "litgrad/core/detail/node.hpp"

namespace litgrad::nn {

namespace {

// Every module alive, with the count of modules made before it (its birth), for the check that
// sub-module members are registered. Made once and never destroyed, so that a module with static
// storage can still leave it at exit; a mutex, since modules may be made on any thread.
struct Alive {
  std::mutex mutex;
  std::unordered_map<const Module*, std::uint64_t> birth;
  std::uint64_t made = 0;
};
Alive& alive() {
  static Alive* const everyone = new Alive;
  return *everyone;
}
std::uint64_t born(const Module* m) {
  Alive& a = alive();
  const std::lock_guard<std::mutex> lock(a.mutex);
  a.birth[m] = a.made;
  return a.made++;
}

// The largest a module can be, in bytes: a module is handles, a few dozen bytes each, so
// anything farther from its start is an object elsewhere.
constexpr std::ptrdiff_t kLargestModule = 1 << 16;

}  // namespace

Module::Module(std::string type) : type_(std::move(type)), born_(born(this)) {}

Module::~Module() {
  Alive& a = alive();
  const std::lock_guard<std::mutex> lock(a.mutex);
  a.birth.erase(this);
}

// A moved module is a new object, born now: its members, moved after it, are born after it.
Module::Module(Module&& other) noexcept
    : type_(std::move(other.type_)),
      training_(other.training_),
      parameters_(std::move(other.parameters_)),
      buffers_(std::move(other.buffers_)),
      children_(std::move(other.children_)),
      owned_(std::move(other.owned_)),
      born_(born(this)),
      registered_(other.registered_),
      members_listed_(other.members_listed_),
      warned_(other.warned_),
      unclaimed_(std::move(other.unclaimed_)) {}

Module& Module::operator=(Module&& other) noexcept {
  type_ = std::move(other.type_);
  training_ = other.training_;
  parameters_ = std::move(other.parameters_);
  buffers_ = std::move(other.buffers_);
  children_ = std::move(other.children_);
  owned_ = std::move(other.owned_);
  members_listed_ = other.members_listed_;
  warned_ = other.warned_;
  unclaimed_ = std::move(other.unclaimed_);
  return *this;
}

// At a module's first registration its constructor's body has begun, so its members are all
// made, after the module itself. The modules made since then, alive, registered by none and
// lying inside this one are its members (and their members that their own modules left
// unregistered); temporaries of the body are gone by now, a local of the constructor is on
// another frame, and a module made after this one's constructor, such as the next element
// of a std::vector, is made after the first registration. Each waits in unclaimed_ until
// registered.
void Module::list_members() {
  if (members_listed_) return;
  members_listed_ = true;
  Alive& a = alive();
  const std::lock_guard<std::mutex> lock(a.mutex);
  for (const auto& [m, birth] : a.birth) {
    // As integers: the other module may be any object, and pointers to different objects
    // cannot be subtracted.
    const auto offset =
        static_cast<std::ptrdiff_t>(reinterpret_cast<std::uintptr_t>(m) - reinterpret_cast<std::uintptr_t>(this));
    if (birth > born_ && !m->registered_ && offset >= static_cast<std::ptrdiff_t>(sizeof(Module)) &&
        offset < kLargestModule)
      unclaimed_.push_back(offset);
  }
}

// Once, at the first listing of this module's parameters, buffers, state or mode (its
// constructor is then done): a warning for each member module still unregistered, which
// parameters(), state_dict() and train() would otherwise leave out without a word. Sub-modules
// first, so a member is reported by the module that holds it.
void Module::warn_of_unregistered_members() const {
  if (warned_) return;
  warned_ = true;
  for (std::size_t i = 0; i < children_.size(); ++i) child_at(i).warn_of_unregistered_members();
  for (std::ptrdiff_t offset : unclaimed_) {
    // Where the member was; looked up among the modules alive before it is read.
    const auto* m = reinterpret_cast<const Module*>(reinterpret_cast<std::uintptr_t>(this) + offset);
    {
      Alive& a = alive();
      const std::lock_guard<std::mutex> lock(a.mutex);
      const auto found = a.birth.find(m);
      if (found == a.birth.end() || found->second < born_) continue;  // not the member any more
    }
    if (m->registered_ || m->reported_) continue;
    m->reported_ = true;  // once, by the innermost module that holds it
    std::ostringstream repr;
    m->print(repr, 0);
    std::cerr << "litgrad: warning: " << type_ << " holds a " << repr.str() << " (" << offset
              << " bytes in) that was never registered, so " << type_
              << "'s parameters() leave it out (an optimiser never trains it), as do state_dict() and "
                 "train()/eval(); register it in "
              << type_ << "'s constructor: register_module(\"name\", member)\n";
  }
}

// A member's place: how many bytes it lies from the start of this module. A move carries the
// members along with the module, so the place stays right (module.hpp says why places, not
// addresses, handles or pointers to members). A member of a class derived from Module lies
// after the Module part of the object; and a module is handles, a few dozen bytes each, so
// anything more than 64 KiB away is taken to be an object elsewhere, not a member.
std::ptrdiff_t Module::member_offset(const char* what, const std::string& name, const void* member) const {
  const std::ptrdiff_t offset = static_cast<const char*>(member) - reinterpret_cast<const char*>(this);
  if (offset < static_cast<std::ptrdiff_t>(sizeof(Module)) || offset >= kLargestModule)
    throw ValueError(type_, ": ", what, " '", name,
                     "' is not a member of this module; register members only (a module held by pointer is handed over "
                     "with add_module)");
  return offset;
}

// The member at a place: the inverse of member_offset(), for this module wherever it now is.
template <class T>
T& Module::member_at(std::ptrdiff_t offset) const {
  return *reinterpret_cast<T*>(const_cast<char*>(reinterpret_cast<const char*>(this)) + offset);
}

Tensor& Module::parameter_at(std::ptrdiff_t offset) const { return member_at<Tensor>(offset); }

Module& Module::child_at(std::size_t i) const {
  const Child& c = children_[i];
  return c.owned ? *c.owned : member_at<Module>(c.offset);
}

void Module::register_parameter(const std::string& name, Tensor& slot) {
  list_members();
  const std::ptrdiff_t offset = member_offset("parameter", name, &slot);
  slot.requires_grad_(true);
  parameters_.emplace_back(name, offset);
}

// torch refuses an attribute name taken twice; so does the registry, for a buffer (the names
// of parameters and sub-modules are the library's own, written once in each constructor).
void Module::check_new_name(const std::string& name) const {
  bool taken = false;
  for (const auto& p : parameters_) taken = taken || p.first == name;
  for (const auto& b : buffers_) taken = taken || b.name == name;
  for (const auto& c : children_) taken = taken || c.name == name;
  if (taken) throw ValueError(type_, ": the name '", name, "' is already registered");
}

void Module::register_buffer(const std::string& name, Tensor& slot, bool persistent) {
  list_members();
  check_new_name(name);
  buffers_.push_back({name, member_offset("buffer", name, &slot), persistent});
}

void Module::register_module(const std::string& name, Module& child) {
  list_members();
  const std::ptrdiff_t offset = member_offset("sub-module", name, &child);
  children_.push_back({name, offset, nullptr});
  child.registered_ = true;
  unclaimed_.erase(std::remove(unclaimed_.begin(), unclaimed_.end(), offset), unclaimed_.end());
}

Module& Module::add_module(const std::string& name, std::unique_ptr<Module> child) {
  list_members();
  if (!child) throw ValueError(type_, ": add_module '", name, "' was given no module");
  child->registered_ = true;
  owned_.push_back(std::move(child));
  children_.push_back({name, 0, owned_.back().get()});
  return *owned_.back();
}

void Module::collect(const std::string& prefix, std::vector<std::pair<std::string, Tensor>>& out, Collect what) const {
  if (what != Collect::buffers)
    for (const auto& [name, offset] : parameters_) out.emplace_back(prefix + name, parameter_at(offset));
  for (const Buffer& b : buffers_)
    if (what == Collect::buffers || (what == Collect::state && b.persistent))
      out.emplace_back(prefix + b.name, parameter_at(b.offset));
  for (std::size_t i = 0; i < children_.size(); ++i) child_at(i).collect(prefix + children_[i].name + ".", out, what);
}

namespace {

// Each tensor under its first name only, as torch's remove_duplicate=True: a tensor
// registered twice (a tied weight, a shared buffer) is listed once.
std::vector<std::pair<std::string, Tensor>> each_tensor_once(std::vector<std::pair<std::string, Tensor>> all) {
  std::vector<std::pair<std::string, Tensor>> out;
  for (auto& named : all) {
    bool seen = false;
    for (const auto& kept : out) seen = seen || kept.second.is_same(named.second);
    if (!seen) out.push_back(std::move(named));
  }
  return out;
}

}  // namespace

std::vector<std::pair<std::string, Tensor>> Module::named_buffers() const {
  warn_of_unregistered_members();
  std::vector<std::pair<std::string, Tensor>> all;
  collect("", all, Collect::buffers);
  return each_tensor_once(std::move(all));
}

std::vector<Tensor> Module::buffers() const {
  std::vector<Tensor> out;
  for (auto& named : named_buffers()) out.push_back(named.second);
  return out;
}

// What state_dict() saves and load_state_dict() loads: every parameter under every name, and
// the persistent buffers.
std::vector<std::pair<std::string, Tensor>> Module::state_entries() const {
  warn_of_unregistered_members();
  std::vector<std::pair<std::string, Tensor>> out;
  collect("", out, Collect::state);
  return out;
}

std::vector<std::pair<std::string, Tensor>> Module::named_parameters(bool remove_duplicate) const {
  warn_of_unregistered_members();
  std::vector<std::pair<std::string, Tensor>> all;
  collect("", all);
  // A tied weight is one tensor under two names: by default keep its first name only, as torch
  // does, so that an optimiser steps it once.
  return remove_duplicate ? each_tensor_once(std::move(all)) : all;
}

std::vector<std::pair<std::string, Module*>> Module::named_children() const {
  std::vector<std::pair<std::string, Module*>> out;
  for (std::size_t i = 0; i < children_.size(); ++i) out.emplace_back(children_[i].name, &child_at(i));
  return out;
}

std::vector<Module*> Module::modules() {
  std::vector<Module*> out{this};
  for (std::size_t i = 0; i < children_.size(); ++i)
    for (Module* m : child_at(i).modules()) out.push_back(m);
  return out;
}

std::vector<std::pair<std::string, Module*>> Module::named_modules() {
  std::vector<std::pair<std::string, Module*>> out{{"", this}};
  for (std::size_t i = 0; i < children_.size(); ++i)
    for (auto& [name, m] : child_at(i).named_modules())
      out.emplace_back(name.empty() ? children_[i].name : children_[i].name + "." + name, m);
  return out;
}

Module& Module::apply(const std::function<void(Module&)>& fn) {
  for (std::size_t i = 0; i < children_.size(); ++i) child_at(i).apply(fn);
  fn(*this);
  return *this;
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
  throw ValueError(type_, ": no parameter named '", name, "' (it has: ", known, ")");
}

StateDict Module::state_dict() const {
  StateDict dict;
  for (const auto& [name, p] : state_entries()) dict.insert(name, detail::snapshot(p));
  return dict;
}

IncompatibleKeys Module::load_state_dict(const StateDict& dict, bool strict) {
  const auto params = state_entries();
  IncompatibleKeys keys;
  for (const auto& [name, p] : params) {
    if (!dict.contains(name)) {
      keys.missing_keys.push_back(name);
      continue;
    }
    detail::check_entry(type_, name, dict.at(name), p.shape(), p.dtype());
  }
  for (const auto& [key, value] : dict) {
    bool known = false;
    for (const auto& named : params) known = known || named.first == key;
    if (!known) keys.unexpected_keys.push_back(key);
  }
  if (strict) detail::check_keys(type_, keys);
  // Everything checked: only now does any parameter change.
  for (const auto& [name, p] : params) {
    if (!dict.contains(name)) continue;
    const Tensor& value = dict.at(name);
    Tensor target = p;
    std::copy(value.data(), value.data() + value.numel(), target.data());
    litgrad::detail::bump_version(target);
  }
  return keys;
}

void Module::train(bool on) {
  warn_of_unregistered_members();
  training_ = on;
  for (std::size_t i = 0; i < children_.size(); ++i) child_at(i).train(on);
}

void Module::zero_grad(bool set_to_none) {
  for (Tensor p : parameters())
    if (set_to_none)
      p.set_grad(Tensor());
    else
      p.zero_grad();
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
