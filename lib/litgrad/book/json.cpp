#include "litgrad/book/json.hpp"

#include <cmath>
#include <cstdio>

#include "litgrad/base/error.hpp"
#include "litgrad/ops/indexing.hpp"

namespace litgrad::book {

Json::Json(double number) : kind_(Kind::Number), number_(number) {}
Json::Json(const char* text) : kind_(Kind::String), text_(text) {}
Json::Json(std::string text) : kind_(Kind::String), text_(std::move(text)) {}

Json Json::array() {
  Json j;
  j.kind_ = Kind::Array;
  return j;
}

Json Json::object() {
  Json j;
  j.kind_ = Kind::Object;
  return j;
}

Json Json::boolean(bool value) {
  Json j;
  j.kind_ = Kind::Bool;
  j.number_ = value ? 1 : 0;
  return j;
}

Json Json::from(const Tensor& t) {
  if (t.dim() == 0) return Json(t.item());
  Json a = array();
  for (std::int64_t i = 0; i < t.size(0); ++i) a.push(from(select(t, 0, i)));
  return a;
}

Json Json::from(const std::vector<double>& values) {
  Json a = array();
  for (double v : values) a.push(v);
  return a;
}

Json Json::from(const std::vector<std::string>& values) {
  Json a = array();
  for (const auto& v : values) a.push(v);
  return a;
}

Json& Json::push(Json value) {
  if (kind_ != Kind::Array) throw ValueError("Json::push: not an array");
  items_.push_back(std::move(value));
  return *this;
}

Json& Json::set(const std::string& key, Json value) {
  if (kind_ != Kind::Object) throw ValueError("Json::set: not an object");
  for (auto& field : fields_)
    if (field.first == key) {
      field.second = std::move(value);
      return *this;
    }
  fields_.emplace_back(key, std::move(value));
  return *this;
}

std::string Json::dump() const {
  std::string out;
  dump_to(out);
  return out;
}

namespace {

// The length of the UTF-8 character that starts at s[i], or 0 when none does; then \p invalid
// is the length of the maximal invalid subpart there (Unicode's term, at least 1), which one
// U+FFFD replaces, as Python's bytes.decode("utf-8", errors="replace") does. The second byte's
// range excludes overlong forms (E0, F0), surrogates (ED) and code points past U+10FFFF (F4).
std::size_t utf8_character(const std::string& s, std::size_t i, std::size_t& invalid) {
  const auto byte = [&](std::size_t k) { return static_cast<unsigned char>(s[k]); };
  const unsigned char lead = byte(i);
  if (lead < 0x80) return 1;
  std::size_t length = 0;
  unsigned char low = 0x80, high = 0xBF;  // the second byte's range
  if (lead >= 0xC2 && lead <= 0xDF) {
    length = 2;
  } else if (lead >= 0xE0 && lead <= 0xEF) {
    length = 3;
    if (lead == 0xE0) low = 0xA0;
    if (lead == 0xED) high = 0x9F;
  } else if (lead >= 0xF0 && lead <= 0xF4) {
    length = 4;
    if (lead == 0xF0) low = 0x90;
    if (lead == 0xF4) high = 0x8F;
  } else {
    invalid = 1;
    return 0;
  }
  std::size_t k = 1;
  for (; k < length && i + k < s.size(); ++k) {
    const unsigned char c = byte(i + k);
    if (c < (k == 1 ? low : 0x80) || c > (k == 1 ? high : 0xBF)) break;
  }
  if (k == length) return length;
  invalid = k;
  return 0;
}

// A JSON string of \p s. Bytes that are not UTF-8 (a model's text cut inside a character,
// say) become U+FFFD, so that the file is always valid UTF-8 and Python reads it.
void quote(const std::string& s, std::string& out) {
  out += '"';
  for (std::size_t i = 0; i < s.size();) {
    std::size_t invalid = 0;
    const std::size_t length = utf8_character(s, i, invalid);
    const char c = s[i];
    if (length == 0) {
      out += "\\ufffd";
      i += invalid;
      continue;
    }
    if (c == '"' || c == '\\')
      out += '\\', out += c;
    else if (c == '\n')
      out += "\\n";
    else if (static_cast<unsigned char>(c) < 0x20) {
      char buf[8];
      std::snprintf(buf, sizeof buf, "\\u%04x", c);
      out += buf;
    } else
      out.append(s, i, length);
    i += length;
  }
  out += '"';
}

}  // namespace

void Json::dump_to(std::string& out) const {
  switch (kind_) {
    case Kind::Null: out += "null"; break;
    case Kind::Bool: out += number_ != 0 ? "true" : "false"; break;
    case Kind::String: quote(text_, out); break;
    case Kind::Number: {
      if (std::isnan(number_))
        out += "NaN";
      else if (std::isinf(number_))
        out += number_ > 0 ? "Infinity" : "-Infinity";
      else {
        char buf[32];
        std::snprintf(buf, sizeof buf, "%.17g", number_);
        out += buf;
      }
      break;
    }
    case Kind::Array:
      out += '[';
      for (std::size_t i = 0; i < items_.size(); ++i) {
        if (i) out += ',';
        items_[i].dump_to(out);
      }
      out += ']';
      break;
    case Kind::Object:
      out += '{';
      for (std::size_t i = 0; i < fields_.size(); ++i) {
        if (i) out += ',';
        quote(fields_[i].first, out);
        out += ':';
        fields_[i].second.dump_to(out);
      }
      out += '}';
      break;
  }
}

}  // namespace litgrad::book
