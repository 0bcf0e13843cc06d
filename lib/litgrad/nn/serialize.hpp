#pragma once
/// \file nn/serialize.hpp
/// \brief `nn::save` and `nn::load`: a module's parameters to and from a file, as torch's
/// `torch.save(model.state_dict(), path)` and `model.load_state_dict(torch.load(path))`.
///
/// The file is a StateDict in the format of core/state_dict.hpp (version 2, text with a
/// checksum, or version 3, the same with its values in binary, for large models; files of
/// version 1, which litgrad 0.2 wrote, are still read). To keep an optimiser, a schedule and
/// a generator in the same file, put their state_dict()s under prefixes of one StateDict and
/// save that (core/state_dict.hpp shows how).

#include <string>

#include "litgrad/core/state_dict.hpp"
#include "litgrad/nn/module.hpp"

namespace litgrad::nn {

/// \brief Writes `module.state_dict()` to \p path (save() of core/state_dict.hpp): every parameter
/// under every name, in registration order. The file is written beside \p path and renamed
/// into place, so a reader never sees half a file. \p format chooses text (the default) or
/// binary values. \throws ValueError when the file cannot be written.
void save(const Module& module, const std::string& path, StateDictFormat format = StateDictFormat::Text);

/// \brief Reads a file written by save() into \p module: `module.load_state_dict(load(path))`,
/// strict. The file is read and checked whole, and every key, shape and dtype matched against
/// the module, before any parameter changes, so on any error the module is left as it was.
/// \throws ValueError naming the file and what is wrong: it cannot be read, is not a litgrad
///   state_dict, has a version this library does not read, is truncated, malformed or fails
///   its checksum, or lacks a parameter the module has, holds one it has not, or holds one of
///   another shape.
void load(Module& module, const std::string& path);

}  // namespace litgrad::nn
