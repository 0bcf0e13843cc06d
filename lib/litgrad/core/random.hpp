#pragma once
/// \file random.hpp
/// \brief A seedable random generator whose numbers are bit-identical on every platform.
///
/// `std::normal_distribution` and friends are not specified to the bit: each standard library
/// uses its own algorithm, so the same seed gives different tensors with libstdc++, libc++ and
/// MSVC. litgrad's Generator pins everything down: xoshiro256** (Blackman and Vigna, 2018)
/// seeded through SplitMix64 for the bits, 53 bits per uniform double, Marsaglia's polar method
/// for normals with a logarithm computed by the library itself from additions, multiplications
/// and divisions only (IEEE 754 rounds those identically everywhere). The same seed therefore
/// gives bit-identical tensors on every machine.

#include <cstdint>
#include <optional>

#include "litgrad/core/state_dict.hpp"
#include "litgrad/core/tensor.hpp"

namespace litgrad {

/// \brief The source of every random number in litgrad: seeded explicitly, reproducible to
/// the bit.
///
/// \code
/// Generator gen(42);
/// Tensor w = randn({3, 4}, gen);   // the same 12 numbers on every machine, every run
/// \endcode
class Generator {
 public:
  /// \brief A generator started from \p seed.
  explicit Generator(std::uint64_t seed = 0) { manual_seed(seed); }
  /// \brief Restarts the sequence from \p seed.
  void manual_seed(std::uint64_t seed);
  /// \brief The next 64 random bits.
  std::uint64_t next_u64();
  /// \brief Uniform in `[0, 1)`, a multiple of 2^-53.
  double uniform();
  /// \brief Standard normal (mean 0, variance 1).
  double normal();
  /// \brief Uniform integer in `[low, high)`, without modulo bias. \throws ValueError if low >= high.
  std::int64_t randint(std::int64_t low, std::int64_t high);

  /// \brief Where the generator is in its sequence, so that a resumed run draws the same
  /// numbers (torch's `get_state()`, as a StateDict): `state`, the four 64-bit words of
  /// xoshiro256** as eight Int64 halves, high half first (a tensor's elements are doubles,
  /// which hold 32 bits exactly but not 64), and `spare_normal`, the second normal of the last
  /// pair the polar method made, `[1]`, or `[0]` when there is none.
  StateDict state_dict() const;
  /// \brief Moves the generator to a place given by state_dict() (torch's `set_state()`).
  /// \throws ValueError for a missing or unexpected key, a wrong shape or dtype, a half that is
  ///   not a whole number in [0, 2^32), or a state of all zeros, where xoshiro256** would stay.
  void load_state_dict(const StateDict& dict);

 private:
  std::uint64_t state_[4];
  std::optional<double> spare_normal_;  // the polar method makes normals in pairs
};

/// \brief The generator used when none is passed, as torch's global one.
Generator& default_generator();
/// \brief Re-seeds default_generator(), as `torch.manual_seed`.
void manual_seed(std::uint64_t seed);

/// \brief Uniform in `[0, 1)`.
Tensor rand(const Shape& shape, Generator& gen = default_generator());
/// \brief Standard normal.
Tensor randn(const Shape& shape, Generator& gen = default_generator());
/// \brief Uniform in `[low, high)`. \throws ValueError unless low < high.
Tensor uniform(const Shape& shape, double low, double high, Generator& gen = default_generator());
/// \brief Int64 integers uniform in `[low, high)`.
Tensor randint(std::int64_t low, std::int64_t high, const Shape& shape, Generator& gen = default_generator());
/// \brief A random permutation of `0..n-1` (Int64), by Fisher and Yates's shuffle.
Tensor randperm(std::int64_t n, Generator& gen = default_generator());
/// \brief \p num_samples category indices (Int64) drawn from the non-negative weights in each
/// row of \p input (`[C]` gives `[num_samples]`, `[N, C]` gives `[N, num_samples]`), as
/// `torch.multinomial`: with \p replacement each draw is independent; without it a category
/// drawn is not drawn again. The weights need not sum to one. Each draw takes one uniform u
/// from \p gen and picks the first category whose running sum of weights exceeds u times the
/// total, so the same seed gives the same draws on every platform (torch's own draws differ).
/// \throws ValueError for a negative, NaN or infinite weight, a row of zeros, or more draws
/// without replacement than categories with weight.
Tensor multinomial(const Tensor& input, std::int64_t num_samples, bool replacement = false,
                   Generator& gen = default_generator());

namespace detail {
/// The natural logarithm of a positive finite x from +, -, * and / only: the same bits on
/// every platform, within a few ulps of std::log. Used by Generator::normal().
double portable_log(double x);
}  // namespace detail

}  // namespace litgrad
