#pragma once
/// \file book/json.hpp
/// \brief A small JSON writer for the data chapters emit for the book's figures and pages.
///
/// Objects keep their keys in insertion order and numbers print with 17 significant digits,
/// so the same data always give the same bytes. Non-finite numbers print as `NaN`,
/// `Infinity` and `-Infinity`, which Python's `json` module reads.
/// Strings are written as UTF-8; bytes in them that are not UTF-8 (a model's text cut inside a
/// character) become U+FFFD, one for each maximal invalid run, as Python's
/// `bytes.decode("utf-8", errors="replace")` gives, so every file written is valid UTF-8.

#include <string>
#include <utility>
#include <vector>

#include "litgrad/core/tensor.hpp"

namespace litgrad::book {

/// \brief A JSON value: null, a number, a string, a boolean, an array or an object.
///
/// \code
/// book::Json fig = book::Json::object().set("title", "weights").set("values", book::Json::from(w));
/// std::string text = fig.dump();
/// \endcode
class Json {
 public:
  /// \brief null.
  Json() = default;
  /// \brief A number.
  Json(double number);
  /// \brief A number.
  Json(int number) : Json(static_cast<double>(number)) {}
  /// \brief A number.
  Json(std::int64_t number) : Json(static_cast<double>(number)) {}
  /// \brief A string.
  Json(const char* text);
  /// \brief A string.
  Json(std::string text);
  /// \brief An empty array.
  static Json array();
  /// \brief An empty object.
  static Json object();
  /// \brief true or false.
  static Json boolean(bool value);
  /// \brief A tensor as nested arrays of numbers (a scalar as a number).
  static Json from(const Tensor& t);
  /// \brief An array of numbers.
  static Json from(const std::vector<double>& values);
  /// \brief An array of strings.
  static Json from(const std::vector<std::string>& values);

  /// \brief Appends to an array; returns `*this`. \throws ValueError if this is not an array.
  Json& push(Json value);
  /// \brief Sets a key of an object (replacing an earlier value); returns `*this`.
  /// \throws ValueError if this is not an object.
  Json& set(const std::string& key, Json value);
  /// \brief The JSON text, compact.
  std::string dump() const;

 private:
  enum class Kind { Null, Number, String, Bool, Array, Object } kind_ = Kind::Null;
  double number_ = 0;
  std::string text_;
  std::vector<Json> items_;
  std::vector<std::pair<std::string, Json>> fields_;
  void dump_to(std::string& out) const;
};

}  // namespace litgrad::book
