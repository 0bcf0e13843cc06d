#pragma once
// The fuzzer's bytes read as the choices of a test: the few methods of libFuzzer's
// FuzzedDataProvider that fuzz_ops.cpp uses, on a plain byte string, so that the same program
// builds with any compiler (tests/test_fuzz_reach.cpp runs it on fixed bytes under g++; tools/fuzz
// runs it under libFuzzer with clang). Once the bytes run out every choice is its smallest.

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <limits>
#include <string>
#include <type_traits>

namespace litgrad_fuzz {

class Bytes {
 public:
  Bytes(const std::uint8_t* data, std::size_t size) : data_(data), size_(size) {}

  std::size_t remaining_bytes() const { return size_ - at_; }

  // A whole number in [lo, hi], from as many bytes as the range needs.
  template <class T>
  T ConsumeIntegralInRange(T lo, T hi) {
    static_assert(std::is_integral_v<T>);
    if (hi <= lo) return lo;
    const std::uint64_t range = static_cast<std::uint64_t>(hi) - static_cast<std::uint64_t>(lo);
    std::uint64_t value = 0;
    for (std::uint64_t covered = 0; covered < range && at_ < size_; covered = (covered << 8) | 0xff)
      value = (value << 8) | data_[at_++];
    if (range != std::numeric_limits<std::uint64_t>::max()) value %= range + 1;
    return static_cast<T>(static_cast<std::uint64_t>(lo) + value);
  }

  template <class T>
  T ConsumeIntegral() {
    return ConsumeIntegralInRange<T>(std::numeric_limits<T>::min(), std::numeric_limits<T>::max());
  }

  bool ConsumeBool() { return ConsumeIntegralInRange<std::uint8_t>(0, 1) == 1; }

  // A number in [lo, hi], in 2^32 steps.
  template <class T>
  T ConsumeFloatingPointInRange(T lo, T hi) {
    static_assert(std::is_floating_point_v<T>);
    const T step = static_cast<T>(ConsumeIntegral<std::uint32_t>() / 4294967295.0);
    return lo + (hi - lo) * step;
  }

  std::string ConsumeBytesAsString(std::size_t n) {
    n = std::min(n, remaining_bytes());
    std::string s(reinterpret_cast<const char*>(data_ + at_), n);
    at_ += n;
    return s;
  }

 private:
  const std::uint8_t* data_;
  std::size_t size_, at_ = 0;
};

}  // namespace litgrad_fuzz
