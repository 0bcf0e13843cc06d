// What the exercises' tests use to say where an answer differs, what was expected there,
// and which catalogued mistake the difference points to. A test reads
//
//   CHECK_MESSAGE(agrees(yours, expected, 1e-13), "why it matters; which mistake");
//
// and, when it fails, doctest prints the first element that differs, with both values to
// full precision and how many others differ, instead of CHECK( {?} == {?} ). Vectors
// print as {1, 0.25, 0.5}. Header-only, so that each exercise's tests compile with it
// alone.
#pragma once

#include <doctest/doctest.h>

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <initializer_list>
#include <sstream>
#include <string>
#include <utility>
#include <vector>

#include <litgrad/litgrad.hpp>

namespace doctest {
// A std::vector prints as {a, b, c}, each element as doctest prints it.
template <typename T>
struct StringMaker<std::vector<T>> {
  static String convert(const std::vector<T>& v) {
    std::string s = "{";
    for (std::size_t i = 0; i < v.size(); ++i)
      s += (i ? ", " : "") + std::string(toString(v[i]).c_str());
    return (s + "}").c_str();
  }
};
}  // namespace doctest

namespace exercise {

// The shortest decimal that reads back as exactly x (so 0.1 + 0.2 shows as
// 0.30000000000000004 and 0.3 as 0.3).
inline std::string number(double x) {
  if (std::isnan(x)) return "nan";
  if (std::isinf(x)) return x > 0 ? "inf" : "-inf";
  char text[32];
  for (int digits = 6; digits <= 17; ++digits) {
    std::snprintf(text, sizeof text, "%.*g", digits, x);
    if (std::strtod(text, nullptr) == x) break;
  }
  return text;
}

// The result of comparing an answer with what was expected: true when they agree, and
// otherwise printed (by doctest, in the failed CHECK) as where and by how much they differ.
struct Agreement {
  bool ok = true;
  std::string text;
  explicit operator bool() const { return ok; }
};
inline std::ostream& operator<<(std::ostream& os, const Agreement& a) {
  return os << a.text;
}

namespace detail {
inline std::string index_text(const litgrad::Shape& shape, std::int64_t flat) {
  std::vector<std::int64_t> index(shape.size());
  for (std::size_t d = shape.size(); d-- > 0;) {
    index[d] = flat % shape[d];
    flat /= shape[d];
  }
  std::string s = "[";
  for (std::size_t d = 0; d < index.size(); ++d)
    s += (d ? ", " : "") + std::to_string(index[d]);
  return s + "]";
}

inline Agreement compare(const std::vector<double>& yours,
                         const std::vector<double>& expected,
                         const litgrad::Shape& shape, double absolute,
                         double relative) {
  std::int64_t first = -1, differing = 0;
  for (std::size_t i = 0; i < yours.size(); ++i) {
    const double y = yours[i], e = expected[i];
    const bool same = y == e || (std::isnan(y) && std::isnan(e)) ||
                      std::fabs(y - e) <= absolute + relative * std::fabs(e);
    if (!same) {
      if (first < 0) first = static_cast<std::int64_t>(i);
      ++differing;
    }
  }
  if (first < 0) return {};
  const double y = yours[first], e = expected[first];
  std::ostringstream s;
  s << "element " << index_text(shape, first) << " is " << number(y) << " where "
    << number(e) << " was expected";
  if (!std::isnan(y) && !std::isinf(y) && !std::isinf(e))
    s << " (off by " << number(std::fabs(y - e)) << ")";
  s << "; " << differing << " of " << yours.size() << " elements differ";
  if (absolute > 0 || relative > 0) {
    s << " by more than ";
    if (absolute > 0) s << number(absolute);
    if (absolute > 0 && relative > 0) s << " + ";
    if (relative > 0) s << number(relative) << " of the expected value";
  }
  return {false, s.str()};
}
}  // namespace detail

// What `describe(arguments...)` says, or "" if it throws: a message about an answer must
// never be what stops a test. Call it before the checks and hand its text to INFO, rather
// than calling it inside INFO, which runs its argument only when a check fails, from
// inside doctest's reporter (where an exception or a failed check of its own has nowhere
// to go).
template <class Describe, class... Arguments>
std::string quietly(Describe describe, const Arguments&... arguments) {
  try {
    return describe(arguments...);
  } catch (const std::exception&) {
    return "";
  }
}

// Whether a product's ShapeError (`what`) says it met a matrix as it is stored, [out,
// in], where x Wᵀ needs it turned: matmul's "@ [out,in]: inner sizes in and out". The
// shapes alone then name the untransposed weight.
inline bool met_as_stored(const std::string& what, const litgrad::Shape& stored) {
  const std::string product = "@ " + litgrad::to_string(stored) + ": inner sizes " +
                              std::to_string(stored[1]) + " and " +
                              std::to_string(stored[0]);
  return what.find(product) != std::string::npos;
}

// The catalogued mistake an answer's output is: the name of the one mistake among
// `mistakes` (each a description of how it computes, and its name) for which
// `is_its(description)` says the answer's output is that mistake's, or "" when none is
// or several are (naming one of several could name a mistake the reader did not make).
// A description that throws on the tests' input is not the answer's.
template <class Description, class IsIts>
std::string the_mistake(
    const std::vector<std::pair<Description, std::string>>& mistakes, IsIts is_its) {
  std::string found;
  int matching = 0;
  for (const auto& [description, name] : mistakes) {
    bool its = false;
    try {
      its = is_its(description);
    } catch (const std::exception&) {
    }
    if (its) found = name, ++matching;
  }
  return matching == 1 ? found : "";
}

// Whether `yours` has the shape of `expected` and every element within `absolute` plus
// `relative` times the expected element's size (both 0: equal bit for bit; NaN agrees
// only with NaN).
inline Agreement agrees(const litgrad::Tensor& yours, const litgrad::Tensor& expected,
                        double absolute = 0, double relative = 0) {
  if (yours.shape() != expected.shape())
    return {false, "the shape is " + litgrad::to_string(yours.shape()) + " where " +
                       litgrad::to_string(expected.shape()) + " was expected"};
  return detail::compare(yours.to_vector(), expected.to_vector(), yours.shape(),
                         absolute, relative);
}

// Whether `yours` has the shape of `expected` and each element lies within its own
// allowance (a tensor of expected's shape): for answers whose rounding differs from the
// reference's by an amount derived element by element.
inline Agreement within(const litgrad::Tensor& yours, const litgrad::Tensor& expected,
                        const litgrad::Tensor& allowance) {
  if (yours.shape() != expected.shape())
    return {false, "the shape is " + litgrad::to_string(yours.shape()) + " where " +
                       litgrad::to_string(expected.shape()) + " was expected"};
  const std::vector<double> y = yours.to_vector(), e = expected.to_vector(),
                            a = allowance.expand(expected.shape())
                                    .contiguous()
                                    .to_vector();
  std::int64_t first = -1, differing = 0;
  for (std::size_t i = 0; i < y.size(); ++i)
    if (!(std::fabs(y[i] - e[i]) <= a[i]) && !(y[i] == e[i])) {
      if (first < 0) first = static_cast<std::int64_t>(i);
      ++differing;
    }
  if (first < 0) return {};
  std::ostringstream s;
  s << "element " << detail::index_text(expected.shape(), first) << " is "
    << number(y[first]) << " where " << number(e[first]) << " was expected";
  if (std::isfinite(y[first]))
    s << " (off by " << number(std::fabs(y[first] - e[first]))
      << ", where rounding allows " << number(a[first]) << ")";
  s << "; " << differing << " of " << y.size()
    << " elements differ by more than rounding allows";
  return {false, s.str()};
}

// Copies of the tensors an answer is handed, to check after the call that it left each
// as it was, bit for bit: an answer that changes its caller's tensors in place would
// otherwise move the expected values the tests compute from them afterwards.
class Untouched {
 public:
  Untouched(std::initializer_list<std::pair<std::string, litgrad::Tensor>> tensors)
      : given_(tensors) {
    for (const auto& [name, t] : given_) kept_.push_back(t.defined() ? t.clone() : t);
  }
  // "" when every tensor is as it was; otherwise which changed, and where.
  std::string changed() const {
    for (std::size_t i = 0; i < given_.size(); ++i) {
      const litgrad::Tensor& now = given_[i].second;
      if (!now.defined()) continue;
      const Agreement same = agrees(now, kept_[i]);
      if (!same)
        return "your answer changed the caller's " + given_[i].first +
               " in place (it must leave its inputs as they were): " + same.text;
    }
    return "";
  }

 private:
  std::vector<std::pair<std::string, litgrad::Tensor>> given_;
  std::vector<litgrad::Tensor> kept_;
};

inline Agreement agrees(const std::vector<double>& yours,
                        const std::vector<double>& expected, double absolute = 0,
                        double relative = 0) {
  if (yours.size() != expected.size())
    return {false, std::to_string(yours.size()) + " elements where " +
                       std::to_string(expected.size()) + " were expected"};
  return detail::compare(yours, expected, {static_cast<std::int64_t>(yours.size())},
                         absolute, relative);
}

}  // namespace exercise
