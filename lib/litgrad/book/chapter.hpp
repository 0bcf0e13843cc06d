#pragma once
/// \file book/chapter.hpp
/// \brief What a chapter uses to speak: its printed account, its measured numbers and its
/// figures' data.
///
/// A chapter is one C++ file of doctest cases, each named as the claim it proves. Linked with
/// `litgrad::book_main` it becomes a program that runs its claims, prints an account of them
/// (what the claims wrote with out(), each claim's verdict and measured numbers, and a last
/// line counting the claims that held) and, with `--emit DIR`, writes the account, the claims
/// and the figures' data into DIR for the book's pages.

#include <ostream>
#include <string>
#include <utility>
#include <vector>

#include "litgrad/book/json.hpp"
#include "litgrad/tensor.hpp"

namespace litgrad::book {

/// \brief The chapter's account: what is written here is printed, and kept with the claim
/// being checked for the book's page.
std::ostream& out();

/// \brief The bound a measured number was held to, shown beside the number on the page:
/// made by at_most(), below(), at_least(), above(), exactly() or within().
struct Bound {
  std::string relation;  ///< "≤", "<", "≥", ">", "=", "within" or "between"
  double value = 0;      ///< the bound, the centre of a `within` interval, or the bottom of `between`
  double tolerance = 0;  ///< the half-width of a `within` interval, or the top of `between`
  /// \brief Whether \p x satisfies the bound (NaN satisfies none).
  bool holds(double x) const;
  /// \brief The bound as the page shows it, e.g. `≤ 1e-15` or `within 0.058 of 0.875`.
  std::string text() const;
};
Bound at_most(double bound);   ///< \brief x ≤ bound.
Bound below(double bound);     ///< \brief x < bound.
Bound at_least(double bound);  ///< \brief x ≥ bound.
Bound above(double bound);     ///< \brief x > bound.
Bound exactly(double value);   ///< \brief x == value.
/// \brief |x - centre| < tolerance.
Bound within(double tolerance, double centre);
/// \brief low < x < high.
Bound between(double low, double high);

/// \brief Records a number the claim now being checked has measured, with a few words of what
/// it is, so that the book can show both next to the claim; also prints
/// `  measured: name = value`.
///
/// \code
/// book::measured("largest |row sum - 1|", worst, "how far the worst row's sum is from one");
/// \endcode
void measured(const std::string& name, double value, const std::string& description);

/// \brief As measured(name, value, description), and shows the bound the claim held the number
/// to. The page must not state a bound the number misses: if \p value does not satisfy
/// \p bound, the claim fails here, whatever its own checks say. Keep the bound in one constant
/// that the claim's `CHECK` uses too.
///
/// \code
/// const double tolerance = 1e-15;
/// book::measured("largest |row sum - 1|", worst, "the worst row's distance from one",
///                book::at_most(tolerance));
/// CHECK(worst <= tolerance);
/// \endcode
void measured(const std::string& name, double value, const std::string& description,
              const Bound& bound);

/// \brief Records the data of a figure; `--emit DIR` writes it to `DIR/figures/<name>.json`, from
/// which the book draws the figure. \throws ValueError for a name that is not a plain word
/// (letters, digits, `_` and `-`).
void figure(const std::string& name, const Json& data);

/// \brief A matrix as a text table with labelled rows and columns, for out().
/// \throws ShapeError unless \p m is 2-D with as many rows and columns as labels.
std::string table(const Tensor& m, const std::vector<std::string>& row_labels,
                  const std::vector<std::string>& column_labels, int decimals = 3);

/// \cond INTERNAL
namespace detail {

// One claim: its test case, where it is, its verdict, what it measured and printed.
struct Measured {
  std::string name;
  double value = 0;
  std::string description;
  std::string bound;  // as Bound::text(), or empty
};

struct Claim {
  std::string name, file;
  int line = 0;
  bool passed = false;
  std::vector<Measured> measured;
  std::string output;  // what out() printed during the claim (the measured lines excepted)
};

// The chapter program's command line: --emit DIR, --help, and doctest's own options.
struct Options {
  std::string emit_dir;
  bool help = false;
  std::vector<std::string> doctest_args;  // passed on to doctest (filters, reporters, ...)
};

Options parse_arguments(int argc, const char* const* argv);  // throws ValueError with a usage line
std::string usage(const std::string& program);

void begin_claim(const std::string& name, const std::string& file, int line);
void end_claim(bool passed);
const std::vector<Claim>& claims();
std::string summary_line();            // "12 claims checked, 12 held."
void write_emitted(const std::string& dir);  // output.txt, claims.json, figures/<name>.json

}  // namespace detail
/// \endcond

}  // namespace litgrad::book
