#pragma once
/// \file nn/serialize.hpp
/// \brief `nn::save` and `nn::load`: a module's parameters to and from a file, as torch's
/// `torch.save(model.state_dict(), path)` and `model.load_state_dict(torch.load(path))`.
///
/// **The file format** (version 1) is text, so that it reads the same on every machine:
///
///     litgrad state_dict 1
///     parameters 2
///     weight Float64 2 3 4
///     0x1.8p+0 -0x1.4p-2 ...            (12 numbers, as C's %a writes them)
///     bias Float64 1 3
///     0x0p+0 ...
///     end
///
/// Each parameter is its dotted name, its dtype, its number of dimensions and sizes, then its
/// elements in row-major order as hexadecimal floating-point numbers, which carry every bit: a
/// loaded module gives bit-identical outputs. A later version of the format may add fields;
/// this one reads version 1 only.

#include <string>

#include "litgrad/nn/module.hpp"

namespace litgrad::nn {

/// \brief Writes the parameters of \p module (named_parameters(), in order) to \p path. The
/// file is written beside \p path and renamed into place, so a reader never sees half a file.
/// \throws ValueError when the file cannot be written.
void save(const Module& module, const std::string& path);

/// \brief Reads parameters written by save() into \p module. Every name and shape in the file
/// must match the module's, in order; the file is read and checked whole before any parameter
/// changes, so on any error the module is left as it was.
/// \throws ValueError naming the file and what is wrong: it cannot be read, is not a litgrad
///   state_dict, has a version this library does not read, is truncated, or names a
///   parameter or a shape the module does not have (or misses one it has).
void load(Module& module, const std::string& path);

}  // namespace litgrad::nn
