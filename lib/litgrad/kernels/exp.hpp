#pragma once
// e^x for softmax, log_softmax and logsumexp (so for cross-entropy), written so that a compiler
// computes eight of them at once: the one definition of the exponential both rooms
// (kernels/room.hpp) use, the plain room a number at a time, the fast room in loops the
// compiler vectorises. Only the library's own .cpp files include this.
//
// std::exp is a call per element that no compiler can vectorise: it took 18% of a training step
// of chapter 12's GPT (perf), most of it in cross-entropy's log_softmax. This is the
// textbook method, in straight-line code: x = k ln2 + r with k an integer and |r| <= ln2/2, so
// e^x = 2^k e^r, and 2^k is built from its bits.
//  - r: ln2 is split in two, ln2_hi with trailing zero bits so that k ln2_hi is exact, and
//    r_hi = x - k ln2_hi is exact too; r = r_hi - k ln2_lo rounds, and r_err recovers what that
//    rounding lost (exactly when |r_hi| >= |k ln2_lo|, by Fast2Sum; otherwise |r| < 5e-7 and
//    r_err is off by less than 2^-75).
//  - e^r = 1 + (r + (r_err + r^2 q(r))), with q the Taylor series of (e^r - 1 - r)/r^2 to its
//    r^11 term, by Horner's rule; the first term left out adds r^14/14! < 2^-57 to e^r, under a
//    twentieth of its last place. The large parts, 1 and r, enter with one rounding each; all
//    that rounds more enters through r^2 q, which is below 0.07.
// Every element goes through the same operations, so a vectorised loop gives the same bits as a
// scalar one. tests/test_op_values.cpp derives and checks that the result is within one unit in
// the last place of the correctly rounded e^x.

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
  const double r_hi = xc - k * ln2_hi;  // exact: k has at most 11 bits, ln2_hi 32
  const double r_lo = -(k * ln2_lo);
  const double r = r_hi + r_lo;
  const double r_err = (r_hi - r) + r_lo;  // r_hi + r_lo - r, exactly
  double q = 1.0 / 6227020800.0;           // 1/13!
  q = q * r + 1.0 / 479001600.0;           // 1/12!
  q = q * r + 1.0 / 39916800.0;
  q = q * r + 1.0 / 3628800.0;
  q = q * r + 1.0 / 362880.0;
  q = q * r + 1.0 / 40320.0;
  q = q * r + 1.0 / 5040.0;
  q = q * r + 1.0 / 720.0;
  q = q * r + 1.0 / 120.0;
  q = q * r + 1.0 / 24.0;
  q = q * r + 1.0 / 6.0;
  q = q * r + 0.5;
  const double p = 1.0 + (r + (r_err + (r * r) * q));  // e^r
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
