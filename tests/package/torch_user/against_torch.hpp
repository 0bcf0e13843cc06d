// What the torch user's programs that run a program of Python torch's again share: the file
// of what torch computed (tests/reference/make_torch_user_reference.py wrote it as a litgrad
// state_dict, so it is read as a checkpoint is) and the comparison with it. This is the
// harness around a program, not part of what a torch user writes.
#pragma once

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <iostream>
#include <string>

#include <litgrad/litgrad.hpp>

namespace against_torch {

// The reference file named on the command line: `program reference/NAME.state`.
inline litgrad::StateDict reference(int argc, char** argv) {
  if (argc != 2) {
    std::cerr << "usage: " << argv[0] << " reference/NAME.state\n";
    std::exit(2);
  }
  return litgrad::load(argv[1]);
}

// Collects each comparison with torch; the program exits with failures() as its status.
class Comparison {
 public:
  // Holds `got` to within `tolerance` of torch's `expected`, relative to the largest
  // magnitude in `expected` (so a tensor of gradients near 1e-3 is held to 1e-15 absolute).
  // Shapes must agree, and a value compared with NaN or infinity must be the same.
  void check(const std::string& what, const litgrad::Tensor& got, const litgrad::Tensor& expected,
             double tolerance = 1e-12) {
    if (got.shape() != expected.shape()) {
      std::cout << "  " << what << ": shape " << got.shape() << ", torch's " << expected.shape() << "\n";
      ++failures_;
      return;
    }
    const std::vector<double> g = got.to(litgrad::DType::Float64).to_vector();
    const std::vector<double> e = expected.to(litgrad::DType::Float64).to_vector();
    double scale = 0.0, worst = 0.0;
    for (double v : e) scale = std::max(scale, std::fabs(v));
    bool special_differs = false;
    for (std::size_t i = 0; i < e.size(); ++i) {
      if (!std::isfinite(e[i]) || !std::isfinite(g[i]))
        special_differs |= !(std::isnan(e[i]) ? std::isnan(g[i]) : g[i] == e[i]);
      else
        worst = std::max(worst, std::fabs(g[i] - e[i]));
    }
    const double relative = scale > 0 ? worst / scale : worst;
    const bool ok = relative <= tolerance && !special_differs;
    std::cout << "  " << (ok ? "ok  " : "FAIL") << "  " << what << ": largest difference from torch " << relative
              << " of its largest value\n";
    if (!ok) ++failures_;
  }
  int failures() const { return failures_; }

 private:
  int failures_ = 0;
};

}  // namespace against_torch
