#include "litgrad/book/chapter.hpp"

#include <cmath>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <sstream>

#include <doctest/doctest.h>

#include "litgrad/base/error.hpp"

namespace litgrad::book {

namespace {

struct State {
  std::vector<detail::Claim> claims;
  bool in_claim = false;
  std::string account;  // everything printed, in order
  std::vector<std::pair<std::string, Json>> figures;
};

State& state() {
  static State s;
  return s;
}

// Writes to stdout, to the whole account and to the current claim's own output.
class AccountBuffer : public std::streambuf {
 protected:
  int overflow(int c) override {
    if (c == EOF) return 0;
    const char ch = static_cast<char>(c);
    std::cout.put(ch);
    state().account += ch;
    if (state().in_claim) state().claims.back().output += ch;
    return c;
  }
};

std::string format_number(double v) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.4g", v);
  return buf;
}

}  // namespace

std::ostream& out() {
  static AccountBuffer buffer;
  static std::ostream stream(&buffer);
  return stream;
}

bool Bound::holds(double x) const {
  if (relation == "≤") return x <= value;
  if (relation == "<") return x < value;
  if (relation == "≥") return x >= value;
  if (relation == ">") return x > value;
  if (relation == "=") return x == value;
  if (relation == "within") return std::fabs(x - value) < tolerance;
  if (relation == "between") return x > value && x < tolerance;
  throw ValueError("Bound: unknown relation '", relation, "'");
}

std::string Bound::text() const {
  if (relation == "within") return "within " + format_number(tolerance) + " of " + format_number(value);
  if (relation == "between") return "between " + format_number(value) + " and " + format_number(tolerance);
  return relation + " " + format_number(value);
}

const char* const kWorstCaseRounding =
    "a worst-case rounding bound: it lets every rounding err by a full half-unit, all in one "
    "direction, where most are exact or cancel, so an error far below it, or 0, is the usual case";
const char* const kWholeSteps =
    "counts are whole steps: the allowance is the one step by which rounding can move where a "
    "count crosses its target, so a miss of 0 is the usual case";
const char* const kTrainedPastTheLevel =
    "a level the argument before the claim fixes, not a guess at where training ends: a model "
    "trained too little stays above it (the catalogue's under-training mutation turns the claim "
    "red), and one trained to the end goes far past it, by an amount that differs from seed to "
    "seed";

Bound Bound::large_margin_because(const std::string& why) const {
  if (why.empty()) throw ValueError("large_margin_because: the bound ", text(), " needs a reason");
  Bound reasoned = *this;
  reasoned.large_margin_reason = why;
  return reasoned;
}

Bound at_most(double bound) { return {"≤", bound, 0, ""}; }
Bound below(double bound) { return {"<", bound, 0, ""}; }
Bound at_least(double bound) { return {"≥", bound, 0, ""}; }
Bound above(double bound) { return {">", bound, 0, ""}; }
Bound exactly(double value) { return {"=", value, 0, ""}; }
Bound between(double low, double high) {
  if (!(low < high)) throw ValueError("between: need low < high, got ", low, " and ", high);
  return {"between", low, high, ""};
}
Bound within(double tolerance, double centre) {
  if (!(tolerance > 0)) throw ValueError("within: tolerance ", tolerance, " must be positive");
  return {"within", centre, tolerance, ""};
}

namespace {

void record(const std::string& name, double value, const std::string& description, const std::string& bound,
            const std::string& large_margin_reason = "") {
  if (description.empty()) throw ValueError("measured: '", name, "' needs a description of what it is, for the page");
  if (state().in_claim)
    state().claims.back().measured.push_back({name, value, description, bound, large_margin_reason});
  // The account shows it; the claim's own printed output does not (the page shows it apart).
  const bool in_claim = state().in_claim;
  state().in_claim = false;
  out() << "  measured: " << name << " = " << format_number(value) << (bound.empty() ? "" : " (" + bound + ")") << "\n";
  state().in_claim = in_claim;
}

}  // namespace

void measured(const std::string& name, double value, const std::string& description) {
  record(name, value, description, "");
}

bool check(const std::string& name, double value, const std::string& description, const Bound& bound, Where where) {
  record(name, value, description, bound.text(), bound.large_margin_reason);
  if (bound.holds(value)) return true;
  const std::string broken =
      "check: " + name + " = " + format_number(value) + " (" + description + ") is not " + bound.text();
  ADD_FAIL_CHECK_AT(where.file, where.line, broken);
  return false;
}

bool check_seeds(const std::string& name, const std::string& description, const Bound& bound,
                 const std::vector<std::uint64_t>& seeds, const std::function<double(std::uint64_t)>& measure,
                 Where where) {
  if (seeds.empty()) throw ValueError("check_seeds: '", name, "' needs at least one seed");
  bool all = true;
  for (const std::uint64_t seed : seeds)
    all = check(name + " (seed " + std::to_string(seed) + ")", measure(seed), description, bound, where) && all;
  return all;
}

void figure(const std::string& name, const Json& data) {
  if (name.empty() ||
      name.find_first_not_of("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_-") != std::string::npos)
    throw ValueError("figure: name '", name, "' must be letters, digits, '_' and '-' only");
  for (auto& f : state().figures)
    if (f.first == name) {
      f.second = data;
      return;
    }
  state().figures.emplace_back(name, data);
}

std::string table(const Tensor& m, const std::vector<std::string>& rows, const std::vector<std::string>& cols,
                  int decimals) {
  if (m.dim() != 2 || m.size(0) != static_cast<std::int64_t>(rows.size()) ||
      m.size(1) != static_cast<std::int64_t>(cols.size()))
    throw ShapeError("table: a matrix of shape ", m.shape(), " with ", rows.size(), " row and ", cols.size(),
                     " column labels");
  std::size_t label = 0, width = static_cast<std::size_t>(decimals) + 3;
  for (const auto& r : rows) label = std::max(label, r.size());
  for (const auto& c : cols) width = std::max(width, c.size());
  std::ostringstream os;
  os << std::string(label, ' ');
  for (const auto& c : cols) os << "  " << std::string(width - c.size(), ' ') << c;
  os << "\n";
  for (std::size_t i = 0; i < rows.size(); ++i) {
    os << rows[i] << std::string(label - rows[i].size(), ' ');
    for (std::size_t j = 0; j < cols.size(); ++j) {
      char buf[64];
      std::snprintf(buf, sizeof buf, "%*.*f", static_cast<int>(width), decimals,
                    m.at({static_cast<std::int64_t>(i), static_cast<std::int64_t>(j)}));
      os << "  " << buf;
    }
    os << "\n";
  }
  return os.str();
}

namespace detail {

std::string usage(const std::string& program) {
  return "usage: " + program +
         " [--emit DIR] [doctest options, e.g. --test-case=NAME or --list-test-cases]\n"
         "  --emit DIR   also write the printed account, the claims and the figures' data into DIR\n"
         "  --help       show this message";
}

Options parse_arguments(int argc, const char* const* argv) {
  // doctest's own options (long names; each may also be written --dt-NAME or with its short form).
  // clang-format off
  static const char* const doctest_options[] = {
      "test-case", "tc", "test-case-exclude", "tce", "source-file", "sf", "source-file-exclude", "sfe",
      "test-suite", "ts", "test-suite-exclude", "tse", "subcase", "sc", "subcase-exclude", "sce",
      "reporters", "r", "out", "o", "order-by", "ob", "rand-seed", "rs", "first", "f", "last", "l",
      "abort-after", "aa", "subcase-filter-levels", "scfl", "success", "s", "case-sensitive", "cs",
      "exit", "e", "duration", "d", "minimal", "m", "quiet", "q", "no-throw", "nt", "no-exitcode", "ne",
      "no-run", "nr", "no-intro", "ni", "no-version", "nv", "no-colors", "nc", "force-colors", "fc",
      "no-breaks", "nb", "no-skip", "ns", "gnu-file-line", "gfl", "no-path-filenames", "npf",
      "no-line-numbers", "nln", "no-debug-output", "ndo", "no-skipped-summary", "nss",
      "no-time-in-output", "ntio", "count", "c", "list-test-cases", "ltc", "list-test-suites", "lts",
      "list-reporters", "lr", "version", "v"};
  // clang-format on
  const std::string program = argc > 0 ? std::filesystem::path(argv[0]).filename().string() : "chapter";
  Options o;
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    if (a == "--emit") {
      if (i + 1 >= argc) throw ValueError("--emit needs a directory\n", usage(program));
      o.emit_dir = argv[++i];
      continue;
    }
    if (a.rfind("--emit=", 0) == 0) {
      o.emit_dir = a.substr(7);
      continue;
    }
    if (a == "--help" || a == "-h" || a == "-?") {
      o.help = true;
      continue;
    }
    std::string name = a.substr(a.find_first_not_of('-') == std::string::npos ? a.size() : a.find_first_not_of('-'));
    name = name.substr(0, name.find('='));
    if (name.rfind("dt-", 0) == 0) name = name.substr(3);
    bool known = a.size() > 1 && a[0] == '-';
    if (known) {
      known = false;
      for (const char* d : doctest_options) known = known || name == d;
    }
    if (!known) throw ValueError("unknown option '", a, "'\n", usage(program));
    if ((name == "test-case" || name == "tc") && a.find('=') != std::string::npos)
      o.test_case_filters.push_back(a.substr(a.find('=') + 1));
    o.doctest_args.push_back(a);
  }
  return o;
}

void begin_claim(const std::string& name, const std::string& file, int line) {
  Claim c;
  c.name = name;
  c.file = std::filesystem::path(file).filename().string();
  c.line = line;
  state().claims.push_back(c);
  state().in_claim = true;
}

void end_claim(bool passed) {
  if (!state().in_claim) return;
  Claim& c = state().claims.back();
  c.passed = passed;
  state().in_claim = false;
  out() << (passed ? "[held]   " : "[FAILED] ") << c.name << "\n";
}

const std::vector<Claim>& claims() { return state().claims; }

std::string summary_line() {
  std::size_t held = 0;
  for (const auto& c : claims()) held += c.passed;
  const std::size_t n = claims().size();
  return std::to_string(n) + (n == 1 ? " claim" : " claims") + " checked, " + std::to_string(held) + " held.";
}

void write_emitted(const std::string& dir) {
  namespace fs = std::filesystem;
  fs::create_directories(dir);
  auto write = [&](const std::string& name, const std::string& text) {
    std::ofstream f(fs::path(dir) / name, std::ios::binary);
    f << text;
    if (!f) throw ValueError("--emit: cannot write ", (fs::path(dir) / name).string());
  };
  write("output.txt", state().account);
  Json list = Json::array();
  for (const auto& c : claims()) {
    Json m = Json::array();
    for (const auto& x : c.measured) {
      Json entry = Json::object().set("name", x.name).set("value", x.value).set("description", x.description);
      if (!x.bound.empty()) entry.set("bound", x.bound);
      if (!x.large_margin_reason.empty()) entry.set("large_margin_because", x.large_margin_reason);
      m.push(entry);
    }
    list.push(Json::object()
                  .set("name", c.name)
                  .set("file", c.file)
                  .set("line", c.line)
                  .set("passed", Json::boolean(c.passed))
                  .set("measured", m)
                  .set("output", c.output));
  }
  write("claims.json", list.dump() + "\n");
  if (!state().figures.empty()) fs::create_directories(fs::path(dir) / "figures");
  for (const auto& [name, data] : state().figures) write("figures/" + name + ".json", data.dump() + "\n");
}

}  // namespace detail

}  // namespace litgrad::book
