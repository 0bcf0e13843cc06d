#include "litgrad/core/state_dict.hpp"

#include <cctype>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <functional>
#include <istream>
#include <optional>
#include <ostream>
#include <sstream>
#include <string_view>

#include "litgrad/base/checksum.hpp"
#include "litgrad/base/error.hpp"

namespace litgrad {

// ---------------------------------------------------------------------------------------------
// StateDict

namespace {
bool valid_key(const std::string& key) {
  if (key.empty()) return false;
  for (unsigned char c : key)
    if (std::isspace(c)) return false;
  return true;
}
}  // namespace

void StateDict::insert(const std::string& key, Tensor value) {
  if (!valid_key(key))
    throw ValueError("StateDict: the key '", key,
                     "' is empty or holds whitespace; keys are written to files as one word");
  if (!value.defined()) throw ValueError("StateDict: the value of '", key, "' is an undefined tensor");
  if (contains(key)) throw ValueError("StateDict: the key '", key, "' is already present");
  entries_.emplace_back(key, std::move(value));
}

bool StateDict::contains(const std::string& key) const {
  for (const auto& entry : entries_)
    if (entry.first == key) return true;
  return false;
}

const Tensor& StateDict::at(const std::string& key) const {
  for (const auto& entry : entries_)
    if (entry.first == key) return entry.second;
  throw ValueError("StateDict: no key '", key, "' (it has: ", detail::join_keys(keys()), ")");
}

std::vector<std::string> StateDict::keys() const {
  std::vector<std::string> out;
  for (const auto& entry : entries_) out.push_back(entry.first);
  return out;
}

void StateDict::update(const std::string& prefix, const StateDict& other) {
  if (prefix.empty()) throw ValueError("StateDict: update needs a prefix to put the entries under");
  for (const auto& [key, value] : other) insert(prefix + "." + key, value);
}

StateDict StateDict::sub(const std::string& prefix) const {
  StateDict out;
  const std::string start = prefix + ".";
  std::vector<std::string> prefixes;
  for (const auto& [key, value] : entries_) {
    if (key.compare(0, start.size(), start) == 0) out.entries_.emplace_back(key.substr(start.size()), value);
    const std::string first = key.substr(0, key.find('.'));
    if (prefixes.empty() || prefixes.back() != first) prefixes.push_back(first);
  }
  if (out.empty())
    throw ValueError("StateDict: no entries under '", prefix, "' (the keys start with: ", detail::join_keys(prefixes),
                     ")");
  return out;
}

namespace detail {

Tensor snapshot(const Tensor& t) { return tensor(t.to_vector(), t.shape(), t.dtype()); }

std::string join_keys(const std::vector<std::string>& keys) {
  if (keys.empty()) return "none";
  std::string out;
  for (const auto& k : keys) out += (out.empty() ? "" : ", ") + k;
  return out;
}

void check_keys(const std::string& owner, const IncompatibleKeys& keys) {
  if (keys.missing_keys.empty() && keys.unexpected_keys.empty()) return;
  throw ValueError(owner, ".load_state_dict: missing keys: ", join_keys(keys.missing_keys),
                   "; unexpected keys: ", join_keys(keys.unexpected_keys));
}

void check_entry(const std::string& owner, const std::string& key, const Tensor& value, const Shape& shape,
                 DType dtype) {
  if (value.shape() != shape || value.dtype() != dtype)
    throw ValueError(owner, ".load_state_dict: '", key, "' is ", value.dtype(), " ", value.shape(),
                     " in the state_dict and ", dtype, " ", shape, " here");
}

}  // namespace detail

// ---------------------------------------------------------------------------------------------
// The file format (see core/state_dict.hpp)

namespace {

constexpr const char* kMagic = "litgrad state_dict";
constexpr int kVersion = 2, kBinaryVersion = 3;  // 1, without a checksum, is still read

using detail::fnv1a;
using detail::hex16;

std::optional<DType> dtype_named(std::string_view name) {
  if (name == "Float64") return DType::Float64;
  if (name == "Int64") return DType::Int64;
  if (name == "Bool") return DType::Bool;
  return std::nullopt;
}

// Reads a whole file's text line by line; every error names the file and the line.
class Reader {
 public:
  Reader(const std::string& text, std::string where) : text_(text), where_(std::move(where)) {}

  // The next line, without its '\n'. A last line without '\n' means the file was cut.
  std::string_view line(const std::string& what) {
    const std::size_t newline = text_.find('\n', at_);
    if (newline == std::string::npos) truncated("it ends before ", what);
    std::string_view out(text_.data() + at_, newline - at_);
    start_ = at_;
    at_ = newline + 1;
    ++number_;
    return out;
  }
  // The next n bytes, which must be followed by '\n' (a binary entry's values).
  std::string_view bytes(std::size_t n, const std::string& what) {
    if (text_.size() - at_ < n + 1) truncated("it ends inside ", what);
    std::string_view out(text_.data() + at_, n);
    if (text_[at_ + n] != '\n') {
      start_ = at_;
      ++number_;
      fail(what, " should be followed by the end of its line");
    }
    start_ = at_;
    at_ += n + 1;
    ++number_;
    return out;
  }
  bool at_end() const { return at_ == text_.size(); }
  std::size_t line_start() const { return start_; }
  std::size_t size() const { return text_.size(); }

  // The parts of what is wrong, as error.hpp's exceptions take them.
  template <class... Parts>
  [[noreturn]] void fail(const Parts&... what) const {
    throw ValueError("load: ", where_, ": line ", number_, ": ", what...);
  }
  template <class... Parts>
  [[noreturn]] void truncated(const Parts&... what) const {
    throw ValueError("load: ", where_, " is truncated: ", what...);
  }

 private:
  const std::string& text_;
  std::string where_;
  std::size_t at_ = 0, start_ = 0, number_ = 0;
};

// The words of a line, split at single spaces; an empty word (two spaces, or a space at
// either end) is malformed.
std::vector<std::string_view> words(std::string_view line, const Reader& reader) {
  std::vector<std::string_view> out;
  if (line.empty()) return out;
  std::size_t start = 0;
  while (true) {
    const std::size_t space = line.find(' ', start);
    const std::string_view word =
        line.substr(start, space == std::string_view::npos ? line.size() - start : space - start);
    if (word.empty()) reader.fail("two spaces in a row, or a space at the start or end of the line");
    out.push_back(word);
    if (space == std::string_view::npos) return out;
    start = space + 1;
  }
}

// A count or size written in decimal: digits only, no sign, no leading zero, at most `limit`.
std::int64_t count(std::string_view word, std::int64_t limit, const std::string& what, const Reader& reader) {
  const bool digits = !word.empty() && word.size() <= 19 && (word.size() == 1 || word[0] != '0');
  std::int64_t value = 0;
  for (char c : word) {
    if (!digits || c < '0' || c > '9') reader.fail(what, " '", word, "' is not a whole number");
    value = value * 10 + (c - '0');
  }
  if (value > limit) reader.fail(what, " ", word, " is larger than this file of ", reader.size(), " bytes could hold");
  return value;
}

// The 8 bytes of v, least significant first: the same file on every machine.
void append_binary(std::string& out, double v) {
  std::uint64_t bits;
  std::memcpy(&bits, &v, sizeof bits);
  for (int b = 0; b < 8; ++b) out += static_cast<char>(bits >> (8 * b) & 0xff);
}

double binary_at(std::string_view bytes, std::size_t i) {
  std::uint64_t bits = 0;
  for (int b = 0; b < 8; ++b) bits |= std::uint64_t{static_cast<unsigned char>(bytes[8 * i + b])} << (8 * b);
  double v;
  std::memcpy(&v, &bits, sizeof v);
  return v;
}

// What an Int64 or Bool entry may hold; any double is a Float64 value.
void check_kind(double v, DType dtype, const std::string& key, std::int64_t i, std::string_view written,
                const Reader& reader) {
  if (dtype == DType::Int64 && !(v == std::floor(v) && std::fabs(v) <= 0x1p53))
    reader.fail("value ", i, " of the Int64 entry '", key, "' is ", written, ", not a whole number");
  if (dtype == DType::Bool && !(v == 0 || v == 1))
    reader.fail("value ", i, " of the Bool entry '", key, "' is ", written, ", not 0 or 1");
}

// One value: a whole word that strtod reads to its end (the word lies inside the text, and
// the character after it is a space or '\n', where strtod stops).
double number(std::string_view word, DType dtype, const std::string& key, std::int64_t i, const Reader& reader) {
  for (unsigned char c : word)
    if (std::isspace(c)) reader.fail("value ", i, " of '", key, "' holds whitespace");
  char* end = nullptr;
  const double v = std::strtod(word.data(), &end);
  if (end != word.data() + word.size()) reader.fail("value ", i, " of '", key, "', '", word, "', is not a number");
  check_kind(v, dtype, key, i, word, reader);
  return v;
}

std::string read_all(std::istream& in) {
  std::stringstream whole;
  whole << in.rdbuf();
  return whole.str();
}

}  // namespace

void save(const StateDict& dict, std::ostream& out, StateDictFormat format) {
  const bool binary = format == StateDictFormat::Binary;
  std::string text = std::string(kMagic) + " " + std::to_string(binary ? kBinaryVersion : kVersion) + "\n";
  text += "entries " + std::to_string(dict.size()) + "\n";
  char number[40];
  for (const auto& [key, value] : dict) {
    text += key + " " + to_string(value.dtype()) + " " + std::to_string(value.dim());
    for (std::int64_t n : value.shape()) text += " " + std::to_string(n);
    text += "\n";
    const double* v = value.data();
    for (std::int64_t i = 0; i < value.numel(); ++i) {
      if (binary) {
        append_binary(text, v[i]);
        continue;
      }
      std::snprintf(number, sizeof number, "%a", v[i]);
      if (i) text += ' ';
      text += number;
    }
    text += "\n";
  }
  text += "checksum " + hex16(fnv1a(text)) + "\nend\n";
  out << text;
  out.flush();
  if (!out) throw ValueError("save: the stream failed while writing");
}

void save(const StateDict& dict, const std::string& path, StateDictFormat format) {
  const std::string temporary = path + ".tmp." +
                                std::to_string(static_cast<unsigned long long>(
                                    std::hash<std::string>{}(path) ^ reinterpret_cast<std::uintptr_t>(&dict)));
  {
    std::ofstream f(temporary, std::ios::binary);
    if (!f) throw ValueError("save: cannot write ", path);
    try {
      save(dict, f, format);
    } catch (const ValueError&) {
      std::filesystem::remove(temporary);
      throw ValueError("save: cannot write ", path);
    }
  }
  std::error_code error;
  std::filesystem::rename(temporary, path, error);
  if (error) {
    std::filesystem::remove(temporary);
    throw ValueError("save: cannot move the written file to ", path, ": ", error.message());
  }
}

StateDict load(std::istream& in, const std::string& name) {
  const std::string text = read_all(in);
  Reader reader(text, name);
  // Line 1: the magic words and the version.
  const std::string_view first = std::string_view(text).substr(0, text.find('\n'));
  const std::string magic = std::string(kMagic) + " ";
  if (first.compare(0, magic.size(), magic) != 0)
    throw ValueError("load: ", name, " is not a litgrad state_dict (its first line should be '", kMagic, " ", kVersion,
                     "')");
  const std::string_view version = first.substr(magic.size());
  if (version != "1" && version != "2" && version != "3")
    throw ValueError("load: ", name, " has format version ", version, "; this litgrad reads versions 1 to 3");
  reader.line("the version line");
  const bool binary = version == "3", checksummed = version != "1";
  // Line 2: how many entries. Each takes at least two lines of at least one byte, so a count
  // larger than the file is malformed.
  const std::vector<std::string_view> header = words(reader.line("the count of entries"), reader);
  const char* counted = checksummed ? "entries" : "parameters";
  if (header.size() != 2 || header[0] != counted) reader.fail("should be '", counted, " N'");
  const std::int64_t n = count(header[1], static_cast<std::int64_t>(text.size()), "the count of entries", reader);
  StateDict dict;
  for (std::int64_t k = 0; k < n; ++k) {
    const std::string entry = "entry " + std::to_string(k + 1) + " of " + std::to_string(n);
    const std::vector<std::string_view> w = words(reader.line(entry), reader);
    if (w.size() < 3) reader.fail(entry, " should be 'key dtype ndim sizes...'");
    const std::string key(w[0]);
    if (dict.contains(key)) reader.fail("the key '", key, "' appears twice");
    const std::optional<DType> dtype = dtype_named(w[1]);
    if (!dtype) reader.fail("'", key, "' has the unknown dtype '", w[1], "'");
    const std::int64_t ndim = count(w[2], static_cast<std::int64_t>(text.size()), "the number of dimensions", reader);
    if (static_cast<std::int64_t>(w.size()) != 3 + ndim)
      reader.fail("'", key, "' has ", ndim, " dimensions but ", w.size() - 3, " sizes");
    // Sizes, each at most the file's length, and a product checked before it can overflow.
    Shape shape;
    std::int64_t elements = 1;
    bool empty = false;
    for (std::int64_t d = 0; d < ndim; ++d) {
      shape.push_back(count(w[3 + d], static_cast<std::int64_t>(text.size()), "a size", reader));
      empty = empty || shape.back() == 0;
      if (!empty && elements > static_cast<std::int64_t>(text.size()) / shape.back())
        reader.fail("'", key, "' of shape ", shape, "... holds more values than the file could");
      if (!empty) elements *= shape.back();
    }
    if (empty) elements = 0;
    std::vector<double> data(static_cast<std::size_t>(elements));
    if (binary) {
      const std::string_view bytes = reader.bytes(8 * data.size(), "the values of '" + key + "'");
      for (std::size_t i = 0; i < data.size(); ++i) {
        data[i] = binary_at(bytes, i);
        char written[32];
        std::snprintf(written, sizeof written, "%.17g", data[i]);
        check_kind(data[i], *dtype, key, static_cast<std::int64_t>(i), written, reader);
      }
    } else {
      const std::vector<std::string_view> values = words(reader.line("the values of '" + key + "'"), reader);
      if (static_cast<std::int64_t>(values.size()) != elements)
        reader.fail("'", key, "' of shape ", shape, " should have ", elements, " values, the line has ", values.size());
      for (std::size_t i = 0; i < values.size(); ++i)
        data[i] = number(values[i], *dtype, key, static_cast<std::int64_t>(i), reader);
    }
    dict.insert(key, tensor(std::move(data), shape, *dtype));
  }
  if (checksummed) {
    const std::string_view line = reader.line("its checksum line");
    const std::string computed = hex16(fnv1a(std::string_view(text.data(), reader.line_start())));
    if (line.substr(0, 9) != "checksum ") reader.fail("should be 'checksum' and 16 hexadecimal digits");
    if (line.substr(9) != computed)
      reader.fail("the checksum is '", line.substr(9), "', the file's bytes hash to ", computed,
                  ": the file was changed or damaged");
  }
  if (reader.line("its last line, 'end'") != "end") reader.fail("should be 'end'");
  if (!reader.at_end()) reader.fail("something follows the line 'end'");
  return dict;
}

StateDict load(const std::string& path) {
  std::ifstream file(path, std::ios::binary);
  if (!file) throw ValueError("load: cannot read ", path);
  return load(file, path);
}

}  // namespace litgrad
