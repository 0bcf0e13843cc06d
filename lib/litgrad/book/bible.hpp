#pragma once
/// \file book/bible.hpp
/// \brief The text of the book's long run: the King James Bible, from Debian's `bible-kjv`, as
/// chapters of verses, split by chapter into training and held-out text.
///
/// Why this text: a small GPT learns its regular, repetitive prose visibly (chapter 12 measures
/// it). WordNet's definitions, the other chapters' text, carry a world of facts that a model of
/// a million parameters cannot hold. Its 31,102 verses are 4.1 MB of plain ASCII.
///
/// Debian's `bible-kjv-text` keeps the text compressed in a format of its own, which only its
/// program reads: read_bible() runs `bible -f gen1:1-rev22:21`, which prints one verse a line,
/// `Ge1:1 In the beginning God created the heaven and the earth.`, and parse_bible() reads
/// that: the book's abbreviation as the program gives it (`Ge`, `1Sm`, `Rev`), the chapter's
/// number, the verse's number and its text.

#include <cstdint>
#include <istream>
#include <string>
#include <vector>

namespace litgrad::book {

/// \brief One chapter of the Bible: its book, its number in the book, and its verses' text in
/// order (verse 1 first), without their numbers.
struct BibleChapter {
  std::string book;                 ///< the `bible` program's abbreviation: `"Ge"`, `"1Sm"`, `"Rev"`
  int number = 0;                   ///< the chapter's number in its book, from 1
  std::vector<std::string> verses;  ///< each verse's text, without its number or a newline
};

/// \brief The chapters of \p in, the output of `bible -f` (one verse a line, `Book C:V text`),
/// in order.
/// \throws std::runtime_error naming the line (its number and text) when a line is not a verse,
///   or when the verses of a chapter or the chapters of a book do not count up from 1 in order.
std::vector<BibleChapter> parse_bible(std::istream& in);

/// \brief Every chapter of the King James Bible, Genesis 1 to Revelation 22 (66 books, 1,189
/// chapters, 31,102 verses), read by running \p program `-f gen1:1-rev22:21`.
/// \throws std::runtime_error when the program cannot be run or fails, saying to install
///   `bible-kjv` (`tools/install-deps build`, or `apt-get install bible-kjv`); and as
///   parse_bible().
std::vector<BibleChapter> read_bible(const std::string& program = "bible");

/// \brief The chapters split into training and held-out ones, each list in the Bible's order.
struct BibleSplit {
  std::vector<BibleChapter> training;  ///< the chapters training reads
  std::vector<BibleChapter> held_out;  ///< the rest, which training never sees
};

/// \brief Splits \p chapters by chapter: `round(held_out_share · n)` of the n chapters, chosen
/// by a permutation from `Generator(seed)`, are held out. Whole chapters, so that no held-out
/// verse has its neighbours in the training text.
/// \throws ValueError for a share outside [0, 1].
BibleSplit split_bible(const std::vector<BibleChapter>& chapters, double held_out_share, std::uint64_t seed);

/// \brief The book's split: read_bible() split with a held-out share of 0.05 and seed 0, read
/// once per process.
const BibleSplit& bible();

/// \brief A chapter as running text: its verses, each followed by a newline.
std::string chapter_text(const BibleChapter& chapter);

}  // namespace litgrad::book
