#pragma once
// The fuzzer's one run (fuzz_ops.cpp), callable from a test.

#include <cstddef>
#include <cstdint>
#include <vector>

#include <litgrad/litgrad.hpp>

namespace litgrad_fuzz {

/// Builds and runs what the bytes choose (a graph of operations, an in-place change, a module, a
/// damaged file, gradients with and without create_graph); returns the tensors it made, each
/// with its history. Only litgrad's own exceptions are caught.
std::vector<litgrad::Tensor> run(const std::uint8_t* data, std::size_t size);

}  // namespace litgrad_fuzz
