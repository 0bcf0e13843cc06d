// book::read_bible: the King James Bible from Debian's bible-kjv, as chapters of verses.

#include "litgrad/book/bible.hpp"

#include <cctype>
#include <cmath>
#include <cstdio>
#include <sstream>
#include <stdexcept>

#include <sys/wait.h>

#include "litgrad/base/error.hpp"
#include "litgrad/core/random.hpp"
#include "litgrad/core/tensor.hpp"

namespace litgrad::book {

namespace {

struct Verse {
  std::string book;
  int chapter = 0, number = 0;
  std::string text;
};

// A number of one to three digits at line[at], which `at` then passes; -1 if there is none.
int read_number(const std::string& line, std::size_t& at) {
  int n = 0;
  std::size_t digits = 0;
  while (at < line.size() && std::isdigit(static_cast<unsigned char>(line[at])) && digits < 3)
    n = 10 * n + (line[at++] - '0'), ++digits;
  return digits == 0 ? -1 : n;
}

// "1Sm12:3 text": a book (an optional digit, then letters), a chapter, ':', a verse, ' ', text.
bool parse_verse(const std::string& line, Verse& v) {
  std::size_t at = 0;
  if (at < line.size() && std::isdigit(static_cast<unsigned char>(line[at]))) ++at;
  while (at < line.size() && std::isalpha(static_cast<unsigned char>(line[at]))) ++at;
  if (at == 0 || !std::isalpha(static_cast<unsigned char>(line[at - 1]))) return false;
  v.book = line.substr(0, at);
  v.chapter = read_number(line, at);
  if (v.chapter < 1 || at >= line.size() || line[at++] != ':') return false;
  v.number = read_number(line, at);
  if (v.number < 1 || at >= line.size() || line[at++] != ' ') return false;
  v.text = line.substr(at);
  while (!v.text.empty() && (v.text.back() == ' ' || v.text.back() == '\r')) v.text.pop_back();
  return !v.text.empty();
}

}  // namespace

std::vector<BibleChapter> parse_bible(std::istream& in) {
  std::vector<BibleChapter> chapters;
  std::string line;
  for (std::size_t number = 1; std::getline(in, line); ++number) {
    const std::string where = "parse_bible: line " + std::to_string(number) + " ('" + line.substr(0, 60) + "')";
    Verse v;
    if (!parse_verse(line, v)) throw std::runtime_error(where + " is not a verse, 'Book C:V text'");
    const bool same_book = !chapters.empty() && chapters.back().book == v.book;
    if (same_book && v.chapter == chapters.back().number) {
      if (v.number != static_cast<int>(chapters.back().verses.size()) + 1)
        throw std::runtime_error(where + ": verse " + std::to_string(v.number) + " follows verse " +
                                 std::to_string(chapters.back().verses.size()));
    } else {
      const int expected = same_book ? chapters.back().number + 1 : 1;
      if (v.chapter != expected || v.number != 1)
        throw std::runtime_error(where + ": expected chapter " + std::to_string(expected) + ", verse 1 of " + v.book);
      chapters.push_back({v.book, v.chapter, {}});
    }
    chapters.back().verses.push_back(std::move(v.text));
  }
  return chapters;
}

std::vector<BibleChapter> read_bible(const std::string& program) {
  const std::string command = program + " -f gen1:1-rev22:21 2>/dev/null";
  const std::string install =
      ": install Debian's bible-kjv with `tools/install-deps build` (or `sudo apt-get install bible-kjv`)";
  FILE* pipe = ::popen(command.c_str(), "r");
  if (!pipe) throw std::runtime_error("read_bible: could not run '" + command + "'" + install);
  std::string output;
  char buffer[65536];
  for (std::size_t n; (n = std::fread(buffer, 1, sizeof buffer, pipe)) > 0;) output.append(buffer, n);
  const int status = ::pclose(pipe);
  if (status != 0 || output.empty())
    throw std::runtime_error("read_bible: '" + command + "' failed (exit status " +
                             std::to_string(WIFEXITED(status) ? WEXITSTATUS(status) : -1) + ")" + install);
  std::istringstream in(output);
  return parse_bible(in);
}

BibleSplit split_bible(const std::vector<BibleChapter>& chapters, double held_out_share, std::uint64_t seed) {
  if (!(held_out_share >= 0 && held_out_share <= 1))
    throw ValueError("split_bible: held_out_share must be in [0, 1], got ", held_out_share);
  const auto n = static_cast<std::int64_t>(chapters.size());
  std::vector<bool> held(chapters.size(), false);
  Generator gen(seed);
  const Tensor order = randperm(n, gen);
  const auto n_held = static_cast<std::int64_t>(std::llround(held_out_share * static_cast<double>(n)));
  for (std::int64_t k = 0; k < n_held; ++k) held[static_cast<std::size_t>(std::llround(order.at({k})))] = true;
  BibleSplit split;
  for (std::size_t i = 0; i < chapters.size(); ++i) (held[i] ? split.held_out : split.training).push_back(chapters[i]);
  return split;
}

const BibleSplit& bible() {
  static const BibleSplit split = split_bible(read_bible(), 0.05, 0);
  return split;
}

std::string chapter_text(const BibleChapter& chapter) {
  std::string text;
  for (const std::string& verse : chapter.verses) text += verse + "\n";
  return text;
}

}  // namespace litgrad::book
