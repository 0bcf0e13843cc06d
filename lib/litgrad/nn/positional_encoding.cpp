#include "litgrad/nn/positional_encoding.hpp"

#include <cmath>

#include "litgrad/base/error.hpp"

namespace litgrad {

Tensor ramp_positional_encoding(std::int64_t length) {
  if (length < 1) throw ValueError("ramp_positional_encoding: length must be at least 1, got ", length);
  Tensor pe = zeros({length, 1});
  for (std::int64_t t = 0; t < length && length > 1; ++t)
    pe.data()[t] = static_cast<double>(t) / static_cast<double>(length - 1);
  return pe;
}

Tensor sinusoidal_positional_encoding(std::int64_t length, std::int64_t d) {
  if (length < 1) throw ValueError("sinusoidal_positional_encoding: length must be at least 1, got ", length);
  if (d < 2 || d % 2 != 0)
    throw ValueError(
        "sinusoidal_positional_encoding: d must be even and at least 2 (features come in sin/cos pairs), got ", d);
  Tensor pe = zeros({length, d});
  for (std::int64_t i = 0; i < d / 2; ++i) {
    const double wavelength_over_2pi = std::pow(10000.0, static_cast<double>(2 * i) / static_cast<double>(d));
    for (std::int64_t t = 0; t < length; ++t) {
      const double angle = static_cast<double>(t) / wavelength_over_2pi;
      pe.data()[t * d + 2 * i] = std::sin(angle);
      pe.data()[t * d + 2 * i + 1] = std::cos(angle);
    }
  }
  return pe;
}

}  // namespace litgrad
