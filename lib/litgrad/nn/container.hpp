#pragma once
/// \file nn/container.hpp
/// \brief `nn::Sequential` and `nn::ModuleList`: modules held in order, named `0`, `1`, ...;
/// `nn::ModuleDict`: modules held by name.

#include <cstddef>
#include <cstdint>
#include <functional>
#include <iterator>
#include <map>
#include <memory>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#include "litgrad/base/error.hpp"
#include "litgrad/nn/module.hpp"

namespace litgrad::nn {

/// \brief Modules in a list, as `torch.nn.ModuleList`: each is a sub-module, named by its index
/// (`layers.0.weight`, ...), and the list does nothing with them itself.
///
/// \code
/// nn::ModuleList layers;
/// for (int i = 0; i < 4; ++i) layers.push_back(nn::Linear(8, 8));
/// for (std::size_t i = 0; i < layers.size(); ++i) x = layers.at<nn::Linear>(i)(x);
/// for (nn::Module& layer : layers) std::cout << layer << "\n";  // in order, as Python's for
/// \endcode
class ModuleList : public Module {
 public:
  ModuleList() : Module("ModuleList") {}

  /// \brief Appends \p module (moved in) as the next sub-module; returns it, in its own type.
  template <class M>
  M& push_back(M&& module) {
    static_assert(std::is_base_of_v<Module, std::decay_t<M>>, "ModuleList holds modules");
    auto held = std::make_unique<std::decay_t<M>>(std::forward<M>(module));
    auto& ref = *held;
    add_module(std::to_string(modules_.size()), std::move(held));
    modules_.push_back(&ref);
    return ref;
  }

  /// \brief How many modules the list holds.
  std::size_t size() const { return modules_.size(); }
  /// \brief Whether the list is empty.
  bool empty() const { return modules_.empty(); }
  /// \brief The module at \p index. \throws IndexError when out of range.
  Module& operator[](std::size_t index) const { return *checked(index); }

  /// \cond INTERNAL
  // Walks the modules in order, each a `Module&` (begin() and end() below).
  class iterator {
   public:
    using iterator_category = std::forward_iterator_tag;  ///< a forward iterator
    using value_type = Module;                            ///< what it walks
    using difference_type = std::ptrdiff_t;               ///< a distance between two
    using pointer = Module*;                              ///< a pointer to one
    using reference = Module&;                            ///< what `*it` gives
    /// \brief At \p at in the list's modules.
    explicit iterator(std::vector<Module*>::const_iterator at) : at_(at) {}
    Module& operator*() const { return **at_; }  ///< the module here
    Module* operator->() const { return *at_; }  ///< the module here
    iterator& operator++() {                     ///< the next module
      ++at_;
      return *this;
    }
    iterator operator++(int) {  ///< the next module, returning this one
      iterator was = *this;
      ++at_;
      return was;
    }
    bool operator==(const iterator& other) const { return at_ == other.at_; }  ///< the same place
    bool operator!=(const iterator& other) const { return at_ != other.at_; }  ///< another place

   private:
    std::vector<Module*>::const_iterator at_;
  };
  /// \endcond
  /// \brief The first module: `for (nn::Module& m : list)` walks them in order, as Python's
  /// `for m in list`.
  iterator begin() const { return iterator(modules_.begin()); }
  iterator end() const { return iterator(modules_.end()); }  ///< past the last

  /// \brief The module at \p index, as the type it was added as.
  /// \throws IndexError when out of range, ValueError when it is of another type.
  template <class M>
  M& at(std::size_t index) const {
    auto* typed = dynamic_cast<M*>(checked(index));
    if (!typed)
      throw ValueError("ModuleList: module ", index, " is a ", checked(index)->type(), ", not the type asked for");
    return *typed;
  }

 private:
  Module* checked(std::size_t index) const {
    if (index >= modules_.size())
      throw IndexError("ModuleList: index ", index, " is out of range for ", modules_.size(), " modules");
    return modules_[index];
  }
  std::vector<Module*> modules_;  // owned by the Module base, which does not move them
};

/// \brief Modules by name, as `torch.nn.ModuleDict`: each is a sub-module under its key
/// (`transformer.wte.weight`, ...), in the order inserted, and the dictionary does nothing with
/// them itself. nanoGPT's `self.transformer = nn.ModuleDict(dict(wte=..., wpe=..., h=...))`
/// is a ModuleDict with those insertions, and `self.transformer.wte(idx)` is
/// `transformer.at<nn::Embedding>("wte")(idx)`: C++ needs the type Python finds at run time.
///
/// \code
/// nn::ModuleDict heads;
/// heads.insert("start", nn::Linear(8, 2));
/// heads.insert("end", nn::Linear(8, 2));
/// Tensor s = heads.at<nn::Linear>("start")(x);  // x [.., 8] -> [.., 2]
/// for (const std::string& key : heads.keys()) std::cout << key << ": " << heads[key] << "\n";
/// \endcode
class ModuleDict : public Module {
 public:
  ModuleDict() : Module("ModuleDict") {}

  /// \brief Adds \p module (moved in) under \p key; returns it, in its own type.
  /// \throws ValueError when \p key is empty, holds a dot (a key is one part of a dotted
  /// parameter name) or is already taken. (torch's `d[key] = m` replaces a module under a
  /// key already taken; here that is an error, since the replaced module's parameters may
  /// already be in an optimiser.)
  template <class M>
  M& insert(const std::string& key, M&& module) {
    static_assert(std::is_base_of_v<Module, std::decay_t<M>>, "ModuleDict holds modules");
    if (key.empty() || key.find('.') != std::string::npos)
      throw ValueError("ModuleDict: the key '", key, "' is empty or holds a dot; a key is one part of a dotted name");
    if (contains(key)) throw ValueError("ModuleDict: the key '", key, "' is already taken");
    auto held = std::make_unique<std::decay_t<M>>(std::forward<M>(module));
    auto& ref = *held;
    add_module(key, std::move(held));
    keys_.push_back(key);
    modules_.emplace(key, &ref);
    return ref;
  }

  /// \brief How many modules.
  std::size_t size() const { return keys_.size(); }
  /// \brief Whether the dictionary is empty.
  bool empty() const { return keys_.empty(); }
  /// \brief Whether a module is held under \p key, as Python's `key in d`.
  bool contains(const std::string& key) const { return modules_.count(key) > 0; }
  /// \brief The keys, in the order inserted, as `d.keys()`.
  const std::vector<std::string>& keys() const { return keys_; }
  /// \brief The module under \p key. \throws ValueError naming the keys there are.
  Module& operator[](const std::string& key) const { return *checked(key); }
  /// \brief The module under \p key, as the type it was inserted as.
  /// \throws ValueError when there is none under \p key or it is of another type.
  template <class M>
  M& at(const std::string& key) const {
    auto* typed = dynamic_cast<M*>(checked(key));
    if (!typed)
      throw ValueError("ModuleDict: the module under '", key, "' is a ", checked(key)->type(),
                       ", not the type asked for");
    return *typed;
  }

 private:
  Module* checked(const std::string& key) const {
    const auto found = modules_.find(key);
    if (found == modules_.end()) {
      std::string known;
      for (const std::string& k : keys_) known += (known.empty() ? "" : ", ") + k;
      throw ValueError("ModuleDict: no module under '", key, "' (it has: ", known.empty() ? "none" : known, ")");
    }
    return found->second;
  }
  std::vector<std::string> keys_;           // in the order inserted
  std::map<std::string, Module*> modules_;  // owned by the Module base, which does not move them
};

/// \brief Modules applied one after another, as `torch.nn.Sequential`: `seq(x)` is
/// `m_n(...m_1(m_0(x)))`. Each module is anything with `Tensor forward(const Tensor&) const`.
///
/// \code
/// nn::Sequential mlp(nn::Linear(2, 8), nn::Tanh(), nn::Linear(8, 1));
/// Tensor y = mlp(randn({5, 2}));   // [5, 1]; parameters named 0.weight, 0.bias, 2.weight, ...
/// \endcode
class Sequential : public Module {
 public:
  /// \brief The modules, in order (each moved in).
  template <class... Ms>
  explicit Sequential(Ms&&... modules) : Module("Sequential") {
    (push_back(std::forward<Ms>(modules)), ...);
  }

  /// \brief Appends \p module as the last step; returns it, in its own type.
  template <class M>
  M& push_back(M&& module) {
    using T = std::decay_t<M>;
    static_assert(std::is_base_of_v<Module, T>, "Sequential holds modules");
    auto held = std::make_unique<T>(std::forward<M>(module));
    T& ref = *held;
    add_module(std::to_string(steps_.size()), std::move(held));
    steps_.push_back({&ref, [&ref](const Tensor& x) { return ref.forward(x); }});
    return ref;
  }

  /// \brief Applies every module in turn. Shapes are whatever the modules take and give.
  Tensor forward(const Tensor& x) const;
  /// \brief forward().
  Tensor operator()(const Tensor& x) const {
    const auto in_scope = scope();
    return forward(x);
  }

  /// \brief How many modules.
  std::size_t size() const { return steps_.size(); }
  /// \brief The module at \p index. \throws IndexError when out of range.
  Module& operator[](std::size_t index) const;
  /// \brief The module at \p index, as the type it was added as.
  /// \throws IndexError when out of range, ValueError when it is of another type.
  template <class M>
  M& at(std::size_t index) const {
    auto* typed = dynamic_cast<M*>(&(*this)[index]);
    if (!typed)
      throw ValueError("Sequential: module ", index, " is a ", (*this)[index].type(), ", not the type asked for");
    return *typed;
  }

 private:
  struct Step {
    Module* module;
    std::function<Tensor(const Tensor&)> forward;
  };
  std::vector<Step> steps_;  // the modules are owned by the Module base, which does not move them
};

}  // namespace litgrad::nn
