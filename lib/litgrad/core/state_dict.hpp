#pragma once
/// \file state_dict.hpp
/// \brief `StateDict`: named tensors in order, as torch's `state_dict()`, and `save` and
/// `load` to carry them to and from a file, as `torch.save` and `torch.load`.
///
/// Modules, optimisers, learning-rate schedules and generators each give their state as a
/// StateDict (`state_dict()`) and take it back (`load_state_dict()`). torch nests dictionaries
/// (an optimiser's `state_dict()["state"][0]["exp_avg"]`); a StateDict is flat and writes the
/// same path with dots (`state.0.exp_avg`), so one checkpoint holds everything under a prefix
/// per object:
///
/// \code
/// StateDict checkpoint;
/// checkpoint.update("model", model.state_dict());
/// checkpoint.update("optimizer", opt.state_dict());
/// checkpoint.update("scheduler", schedule.state_dict());
/// checkpoint.update("generator", gen.state_dict());
/// save(checkpoint, "run.ckpt");
/// // ... later, in fresh objects built the same way:
/// const StateDict loaded = load("run.ckpt");
/// model.load_state_dict(loaded.sub("model"));
/// opt.load_state_dict(loaded.sub("optimizer"));
/// \endcode
///
/// **The file format** is text, so that it reads the same on every machine. Version 2:
///
///     litgrad state_dict 2
///     entries 2
///     weight Float64 2 3 4
///     0x1.8p+0 -0x1.4p-2 ...            (12 numbers, as C's %a writes them)
///     bias Float64 1 3
///     0x0p+0 0x1p-1 0x1p+0
///     checksum 3f0c...             (16 hexadecimal digits)
///     end
///
/// Each entry is its key, its dtype, its number of dimensions and sizes, then its elements in
/// row-major order as hexadecimal floating-point numbers, which carry every bit, separated by
/// single spaces (an empty line for an empty tensor). The checksum is the 64-bit FNV-1a hash
/// of every byte before its line: a changed digit that still reads as a number is caught by
/// it, since each byte of FNV-1a passes through a one-to-one step, so two files that differ in
/// one byte always hash differently. Version 1 (written by litgrad 0.2's `nn::save`) is the
/// same with `parameters N` in place of `entries N` and no checksum line; it is still read.
///
/// **Version 3** is the same lines with each entry's values in binary, for large models: where
/// version 2 writes a line of `%a` numbers, version 3 writes 8 bytes a value, each the IEEE
/// 754 double in little-endian byte order (whatever the machine's own order), then `\n`. A
/// value costs 8 bytes instead of about 22, and is read without parsing; the header lines
/// stay text, so `head -c 200` still shows what a file holds. Write it with
/// `save(dict, path, StateDictFormat::Binary)`; load() reads either.
///
/// Reading is strict: a file that is not exactly in this form (a missing or extra value or
/// line, trailing characters, a size larger than the file could hold, a wrong checksum, a
/// repeated key, an Int64 or Bool entry holding another number) is refused with a ValueError
/// naming the file and the place; nothing is partly read.

#include <cstddef>
#include <iosfwd>
#include <string>
#include <utility>
#include <vector>

#include "litgrad/core/tensor.hpp"

namespace litgrad {

/// \brief Named tensors in the order they were inserted, as torch's `OrderedDict` of a
/// `state_dict()`. Keys are unique, non-empty and contain no whitespace (they are written to
/// files); nested states are joined with dots (`optimizer.state.0.step`).
class StateDict {
 public:
  /// \brief One key and its tensor.
  using Entry = std::pair<std::string, Tensor>;

  /// \brief An empty StateDict.
  StateDict() = default;

  /// \brief Adds \p value under \p key, after the others. The tensor is kept as given (a
  /// handle: `state_dict()` methods insert copies). \throws ValueError for a key already
  /// present, an empty key, a key with whitespace, or an undefined tensor.
  void insert(const std::string& key, Tensor value);
  /// \brief Whether \p key is present.
  bool contains(const std::string& key) const;
  /// \brief The tensor under \p key. \throws ValueError naming the key and the keys present.
  const Tensor& at(const std::string& key) const;
  /// \brief How many entries.
  std::size_t size() const { return entries_.size(); }
  /// \brief Whether there are no entries.
  bool empty() const { return entries_.empty(); }
  /// \brief The keys, in order.
  std::vector<std::string> keys() const;
  /// \brief The first entry, for range-for: `for (const auto& [key, value] : dict)`.
  std::vector<Entry>::const_iterator begin() const { return entries_.begin(); }
  /// \brief Past the last entry.
  std::vector<Entry>::const_iterator end() const { return entries_.end(); }

  /// \brief Adds every entry of \p other under `prefix.key`, as torch nests one dictionary in
  /// another. \throws ValueError for an empty \p prefix or a key already present.
  void update(const std::string& prefix, const StateDict& other);
  /// \brief The entries whose key starts with `prefix.`, with that start removed: the inverse
  /// of update(). \throws ValueError when there is none, naming the prefixes present.
  StateDict sub(const std::string& prefix) const;

 private:
  std::vector<Entry> entries_;
};

/// \brief How save() writes values: as text (version 2, the default) or in binary (version 3).
enum class StateDictFormat {
  Text,   ///< each value as C's `%a` writes it: readable, about 22 bytes a value
  Binary  ///< each value as its 8 bytes, little-endian: for large models
};

/// \brief Writes \p dict to \p path in the format above (version 2, or 3 when \p format is
/// StateDictFormat::Binary). The file is written beside \p path and renamed into place, so a
/// reader never sees half a file. \throws ValueError when the file cannot be written.
void save(const StateDict& dict, const std::string& path, StateDictFormat format = StateDictFormat::Text);
/// \brief Writes \p dict to \p out in the format above, as `torch.save` does to a file
/// object. \throws ValueError when the stream fails.
void save(const StateDict& dict, std::ostream& out, StateDictFormat format = StateDictFormat::Text);

/// \brief Reads a StateDict written by save() (version 2 or 3) or by litgrad 0.2's nn::save()
/// (version 1). \throws ValueError naming \p path and what is wrong: it cannot be read, is not
/// a litgrad state_dict, has another version, is truncated or malformed, or fails its checksum.
StateDict load(const std::string& path);
/// \brief Reads a StateDict from \p in; \p name stands for the stream in error messages.
/// \throws ValueError as load(path).
StateDict load(std::istream& in, const std::string& name = "stream");

/// \brief What a non-strict `load_state_dict` did not match, as torch's `_IncompatibleKeys`:
/// keys the object has and the dictionary lacks, and keys the dictionary has that the object
/// does not know.
struct IncompatibleKeys {
  std::vector<std::string> missing_keys;     ///< expected but absent from the dictionary
  std::vector<std::string> unexpected_keys;  ///< present in the dictionary, not expected
};

/// \cond INTERNAL
namespace detail {
/// A copy of \p t with its own storage and no history (a state_dict holds values, not the
/// live tensors, so training after state_dict() does not change it).
Tensor snapshot(const Tensor& t);
/// "a, b, c" of the keys, or "none".
std::string join_keys(const std::vector<std::string>& keys);
/// Throws ValueError "<owner>.load_state_dict: missing keys: ...; unexpected keys: ..." when
/// either list is not empty.
void check_keys(const std::string& owner, const IncompatibleKeys& keys);
/// Throws ValueError unless \p value has \p shape and \p dtype, naming \p owner and \p key.
void check_entry(const std::string& owner, const std::string& key, const Tensor& value, const Shape& shape,
                 DType dtype);
}  // namespace detail
/// \endcond

}  // namespace litgrad
