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

#include <cstdint>
#include <functional>
#include <ostream>
#include <string>
#include <utility>
#include <vector>

#include "litgrad/book/json.hpp"
#include "litgrad/core/tensor.hpp"

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
  /// \brief Why the measured number is meant to sit far inside this bound, or empty: see
  /// large_margin_because().
  std::string large_margin_reason;
  /// \brief This bound, with the reason a number far inside it is the point rather than a sign
  /// that the claim could say more: a worst-case rounding bound, which typical roundings stay
  /// far under; a tail bound on a count, whose usual value is 0. The Claims page lists every
  /// number more than 50 times inside its bound, and shows these apart, with their reasons.
  /// \throws ValueError for an empty reason.
  ///
  /// \code
  /// book::check("largest |mean|", worst, "over the rounding bound 2Du(max|y| + 1)",
  ///             book::at_most(1).large_margin_because("a worst-case rounding bound"));
  /// \endcode
  Bound large_margin_because(const std::string& why) const;
};
/// \brief The reason, for Bound::large_margin_because(), that a worst-case rounding bound sits
/// far above the errors measured.
extern const char* const kWorstCaseRounding;
/// \brief The reason, for Bound::large_margin_because(), that a count of steps held to one step
/// of its formula usually misses by none.
extern const char* const kWholeSteps;
/// \brief The reason, for Bound::large_margin_because(), that a trained model ends far past a
/// level its chapter's argument fixed before the claim.
extern const char* const kTrainedPastTheLevel;

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

/// \brief Where a call was written: a default argument of check(), filled in at the caller.
struct Where {
  const char* file;  ///< the caller's file
  int line;          ///< the caller's line
  /// \brief Captures the place of the call it is a default argument of.
  Where(const char* file = __builtin_FILE(), int line = __builtin_LINE()) : file(file), line(line) {}
};

/// \brief Records a number the claim measured and holds it to \p bound, in one call: the page
/// shows the number, what it is and the bound, and the claim fails (at the caller's line, with
/// the number and the bound in the message) when the number misses the bound. Returns whether
/// it held. This is how a claim asserts a measured number; a further `CHECK` would restate it.
///
/// \code
/// book::check("largest |row sum - 1|", worst, "the worst row's distance from one",
///             book::at_most(6 * kU));
/// \endcode
bool check(const std::string& name, double value, const std::string& description, const Bound& bound,
           Where where = Where());

/// \brief check() for a claim that holds over several seeds: calls \p measure once per seed,
/// and checks each result as `name (seed N)`, so the page shows every seed's number. Returns
/// whether all held.
///
/// \code
/// book::check_seeds("lead over the bigram", "in standard errors", book::above(4), {1, 2, 3},
///                   [&](std::uint64_t seed) { return lead(trained(seed)); });
/// \endcode
bool check_seeds(const std::string& name, const std::string& description, const Bound& bound,
                 const std::vector<std::uint64_t>& seeds, const std::function<double(std::uint64_t)>& measure,
                 Where where = Where());

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
  std::string bound;                // as Bound::text(), or empty
  std::string large_margin_reason;  // Bound::large_margin_reason
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
  std::vector<std::string> doctest_args;       // passed on to doctest (filters, reporters, ...)
  std::vector<std::string> test_case_filters;  // the values of --test-case, as written
};

Options parse_arguments(int argc, const char* const* argv);  // throws ValueError with a usage line
std::string usage(const std::string& program);

void begin_claim(const std::string& name, const std::string& file, int line);
void end_claim(bool passed);
const std::vector<Claim>& claims();
std::string summary_line();                  // "12 claims checked, 12 held."
void write_emitted(const std::string& dir);  // output.txt, claims.json, figures/<name>.json

}  // namespace detail
/// \endcond

}  // namespace litgrad::book
