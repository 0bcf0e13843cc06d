#pragma once
// e^x for softmax, written so that a compiler computes eight of them at once: the one
// definition of the exponential both rooms (kernels/room.hpp) use in softmax, the plain room a
// number at a time, the fast room in loops the compiler vectorises. Only the library's own .cpp
// files include this.
//
// std::exp is a call per element that no compiler can vectorise; in attention's softmax it
// took a tenth of a forward and backward step (L=128). This is the textbook method, in
// straight-line code: x = k ln2 + r with k an integer and |r| <= ln2/2, so e^x = 2^k e^r; e^r is
// its Taylor series to the r^13 term (the first term left out, r^14/14!, is below 2^-57 of the
// result for |r| <= ln2/2, a twentieth of a double's last place), summed by Horner's rule; and
// 2^k is built from its bits. ln2 is split in two (hi with trailing zero bits, so k ln2_hi is
// exact) so that r keeps full precision. Every element goes through the same operations, so a
// vectorised loop gives the same bits as a scalar one. tests/test_op_values.cpp derives and checks
// that the result is within two units in the last place of std::exp's.

#include <cstdint>
#include <cstring>
#include <limits>

namespace litgrad::kernels {

inline double vector_exp(double x) {
  constexpr double log2e = 1.4426950408889634074;
  constexpr double ln2_hi = 6.93147180369123816490e-01;  // ln 2 rounded to 32 bits
  constexpr double ln2_lo = 1.90821492927058770002e-10;  // ln 2 - ln2_hi
  constexpr double shifter = 6755399441055744.0;         // 1.5 * 2^52: adding it rounds to an integer
  // e^x overflows above 709.79 and is below half the smallest double under -745.14; clamping to
  // just beyond both keeps 2^k representable in two factors (below). max/min written as
  // comparisons let NaN through.
  const double xc = x < -745.5 ? -745.5 : (x > 709.9 ? 709.9 : x);
  const double t = xc * log2e + shifter;  // shifter + k, k = round(x / ln 2)
  const double k = t - shifter;
  const double r = (xc - k * ln2_hi) - k * ln2_lo;
  double p = 1.0 / 6227020800.0;  // 1/13!
  p = p * r + 1.0 / 479001600.0;  // 1/12!
  p = p * r + 1.0 / 39916800.0;
  p = p * r + 1.0 / 3628800.0;
  p = p * r + 1.0 / 362880.0;
  p = p * r + 1.0 / 40320.0;
  p = p * r + 1.0 / 5040.0;
  p = p * r + 1.0 / 720.0;
  p = p * r + 1.0 / 120.0;
  p = p * r + 1.0 / 24.0;
  p = p * r + 1.0 / 6.0;
  p = p * r + 0.5;
  p = p * r + 1.0;
  p = p * r + 1.0;
  // k from t's bits (t and shifter share their exponent, so their bit patterns differ by k),
  // then 2^k = 2^k1 2^k2 with both halves in the range of normal doubles, even for k = -1076.
  std::uint64_t tb, sb;
  std::memcpy(&tb, &t, sizeof t);
  std::memcpy(&sb, &shifter, sizeof shifter);
  const std::int64_t ki = static_cast<std::int64_t>(tb - sb), k1 = ki / 2, k2 = ki - k1;
  const std::uint64_t b1 = static_cast<std::uint64_t>(k1 + 1023) << 52, b2 = static_cast<std::uint64_t>(k2 + 1023)
                                                                             << 52;
  double s1, s2;
  std::memcpy(&s1, &b1, sizeof s1);
  std::memcpy(&s2, &b2, sizeof s2);
  const double y = p * s1 * s2;  // p s1 is exact; the second product rounds once, also to a subnormal
  return x < -745.5 ? 0.0 : y;   // -inf (and what rounds to 0) gives exactly 0
}

}  // namespace litgrad::kernels
