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
void quote(const std::string& s, std::string& out) {
  out += '"';
  for (char c : s) {
    if (c == '"' || c == '\\')
      out += '\\', out += c;
    else if (c == '\n')
      out += "\\n";
    else if (static_cast<unsigned char>(c) < 0x20) {
      char buf[8];
      std::snprintf(buf, sizeof buf, "\\u%04x", c);
      out += buf;
    } else
      out += c;
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
