// book::parse_bible, read_bible and split_bible: small texts written here, and Debian's
// bible-kjv read whole.

#include <doctest/doctest.h>

#include <set>
#include <sstream>
#include <string>

#include <litgrad/base/error.hpp>
#include <litgrad/book/bible.hpp>

using namespace litgrad;

namespace {

std::vector<book::BibleChapter> parsed(const std::string& text) {
  std::istringstream in(text);
  return book::parse_bible(in);
}

std::string error_of(const std::string& text) {
  try {
    parsed(text);
  } catch (const std::runtime_error& e) {
    return e.what();
  }
  return "";
}

}  // namespace

TEST_CASE("parse_bible reads one verse a line into chapters of books, without the verses' numbers") {
  const auto chapters = parsed(
      "Ge1:1 In the beginning.\n"
      "Ge1:2 And the earth.  \n"
      "Ge2:1 Thus the heavens.\n"
      "1Sm1:1 Now there was a certain man.\n");
  REQUIRE(chapters.size() == 3);
  CHECK(chapters[0].book == "Ge");
  CHECK(chapters[0].number == 1);
  CHECK(chapters[0].verses == std::vector<std::string>{"In the beginning.", "And the earth."});
  CHECK(chapters[1].number == 2);
  CHECK(chapters[2].book == "1Sm");
  CHECK(book::chapter_text(chapters[0]) == "In the beginning.\nAnd the earth.\n");
}

TEST_CASE("parse_bible refuses a line that is not a verse, and verses or chapters out of order, naming the line") {
  CHECK(error_of("Ge1:1 a\nthe end\n").find("line 2 ('the end') is not a verse") != std::string::npos);
  CHECK(error_of("Ge1:1\n").find("line 1") != std::string::npos);  // no text
  CHECK(error_of("Ge1:1 a\nGe1:3 c\n").find("verse 3 follows verse 1") != std::string::npos);
  CHECK(error_of("Ge1:1 a\nGe3:1 c\n").find("expected chapter 2, verse 1 of Ge") != std::string::npos);
  CHECK(error_of("Ge2:1 a\n").find("expected chapter 1, verse 1 of Ge") != std::string::npos);
  CHECK(error_of("Ge1:2 a\n").find("line 1") != std::string::npos);
  CHECK(error_of("1:1 a\n").find("is not a verse") != std::string::npos);
}

TEST_CASE("read_bible of a program that is not there says to install bible-kjv") {
  try {
    book::read_bible("/nonexistent/bible");
    FAIL("read_bible did not throw");
  } catch (const std::runtime_error& e) {
    CHECK(std::string(e.what()).find("install Debian's bible-kjv") != std::string::npos);
  }
}

TEST_CASE(
    "the King James Bible has 66 books, 1189 chapters and 31102 verses, and the book's split holds out 59 "
    "whole chapters") {
  const auto chapters = book::read_bible();
  std::set<std::string> books;
  std::size_t verses = 0;
  for (const auto& c : chapters) books.insert(c.book), verses += c.verses.size();
  CHECK(books.size() == 66);
  CHECK(chapters.size() == 1189);
  CHECK(verses == 31102);
  CHECK(chapters.front().verses.front() == "In the beginning God created the heaven and the earth.");
  CHECK(chapters.back().book == "Rev");
  CHECK(chapters.back().number == 22);
  const book::BibleSplit& split = book::bible();
  CHECK(split.held_out.size() == 59);  // round(0.05 · 1189)
  CHECK(split.training.size() + split.held_out.size() == 1189);
  std::set<std::pair<std::string, int>> seen;
  for (const auto* side : {&split.training, &split.held_out})
    for (const auto& c : *side) seen.insert({c.book, c.number});
  CHECK(seen.size() == 1189);  // every chapter on exactly one side
  const book::BibleSplit again = book::split_bible(chapters, 0.05, 0), other = book::split_bible(chapters, 0.05, 1);
  CHECK(again.held_out.front().book == split.held_out.front().book);
  CHECK(again.held_out.front().number == split.held_out.front().number);
  bool differs = false;
  for (std::size_t i = 0; i < other.held_out.size(); ++i)
    differs |= other.held_out[i].book != split.held_out[i].book || other.held_out[i].number != split.held_out[i].number;
  CHECK(differs);
  CHECK_THROWS_AS(book::split_bible(chapters, 1.5, 0), ValueError);
}
