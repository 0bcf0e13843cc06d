#pragma once
/// \file checksum.hpp
/// \brief The checksum the library's files end with (a state_dict, a tokenizer's merges), so
/// that a file changed by even one byte is refused instead of read as other numbers.

#include <cstdint>
#include <cstdio>
#include <string>
#include <string_view>

namespace litgrad::detail {

/// FNV-1a, 64 bits: each byte is xored into the state, which is then multiplied by an odd
/// prime modulo 2^64. Both steps are one-to-one, so texts that differ in a single byte hash
/// differently.
inline std::uint64_t fnv1a(std::string_view bytes) {
  std::uint64_t hash = 0xcbf29ce484222325ULL;
  for (unsigned char c : bytes) {
    hash ^= c;
    hash *= 0x100000001b3ULL;
  }
  return hash;
}

/// A 64-bit value as the 16 lower-case hexadecimal digits a file's checksum line holds.
inline std::string hex16(std::uint64_t x) {
  char text[17];
  std::snprintf(text, sizeof text, "%016llx", static_cast<unsigned long long>(x));
  return text;
}

}  // namespace litgrad::detail
