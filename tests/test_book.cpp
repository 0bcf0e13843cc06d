// The book's support for chapters: JSON for figures, tables for the account, the command line.

#include <doctest/doctest.h>

#include <cmath>
#include <filesystem>
#include <random>

#include <litgrad/book/bits.hpp>
#include <litgrad/book/chapter.hpp>
#include <litgrad/book/json.hpp>
#include <litgrad/book/trained.hpp>
#include <litgrad/litgrad.hpp>

using namespace litgrad;
using book::Json;

TEST_CASE(
    "Json writes numbers exactly, keeps key order, escapes strings and writes non-finite numbers as Python reads "
    "them") {
  CHECK(Json(0.1).dump() == "0.10000000000000001");
  CHECK(Json(3).dump() == "3");
  CHECK(Json(NAN).dump() == "NaN");
  CHECK(Json(-INFINITY).dump() == "-Infinity");
  CHECK(Json("a \"b\"\n").dump() == R"("a \"b\"\n")");
  CHECK(Json::object().set("z", 1).set("a", Json::boolean(true)).set("z", 2).dump() == R"({"z":2,"a":true})");
  CHECK(Json::from(tensor({{1, 2}, {3, 4}})).dump() == "[[1,2],[3,4]]");
  CHECK(Json::from(std::vector<std::string>{"the", "cat"}).dump() == R"(["the","cat"])");
  CHECK(Json().dump() == "null");
  CHECK_THROWS_WITH_AS(Json(1).push(2), "Json::push: not an array", ValueError);
}

// The expected strings are what Python's bytes.decode("utf-8", errors="replace") gives for the
// same bytes (CPython 3.11): one U+FFFD for each maximal invalid subpart.
TEST_CASE(
    "Json keeps UTF-8 as it is and writes each run of bytes that is not UTF-8 as one U+FFFD, as Python decodes it") {
  CHECK(Json("caf\xc3\xa9 \xe2\x82\xac \xf0\x9f\x98\x80").dump() == "\"caf\xc3\xa9 \xe2\x82\xac \xf0\x9f\x98\x80\"");
  CHECK(Json("a\xe2\x82").dump() == R"("a\ufffd")");                // a character cut at the end
  CHECK(Json("\xf0\x9f\x98").dump() == R"("\ufffd")");              // three bytes of a four-byte one
  CHECK(Json("\xff(").dump() == R"("\ufffd(")");                    // a byte no character starts with
  CHECK(Json("\xed\xa0\x80").dump() == R"("\ufffd\ufffd\ufffd")");  // a surrogate
  CHECK(Json("\xe0\x80\xaf").dump() == R"("\ufffd\ufffd\ufffd")");  // an overlong '/'
  CHECK(Json("\xc0\xaf").dump() == R"("\ufffd\ufffd")");
  CHECK(Json("\xf4\x90\x80\x80").dump() == R"("\ufffd\ufffd\ufffd\ufffd")");  // past U+10FFFF
}

TEST_CASE("a table labels its rows and columns and aligns the numbers, leaving room for a sign") {
  CHECK(book::table(tensor({{1, -0.5}, {0.25, 0}}), {"a", "bb"}, {"x", "y"}, 2) ==
        "        x      y\n"
        "a    1.00  -0.50\n"
        "bb   0.25   0.00\n");
  CHECK_THROWS_AS(book::table(ones({2, 2}), {"a"}, {"x", "y"}), ShapeError);
}

TEST_CASE(
    "a chapter's command line takes --emit DIR and doctest's options, and rejects anything else with a usage line") {
  const char* good[] = {"08_attention", "--emit", "out", "--test-case=x", "-ltc", "--dt-no-colors=true"};
  const auto o = book::detail::parse_arguments(6, good);
  CHECK(o.emit_dir == "out");
  CHECK(o.doctest_args == std::vector<std::string>{"--test-case=x", "-ltc", "--dt-no-colors=true"});
  CHECK(o.test_case_filters == std::vector<std::string>{"x"});
  const char* filters[] = {"08_attention", "-tc=a*", "--dt-test-case=b, c", "--test-case-exclude=d"};
  CHECK(book::detail::parse_arguments(4, filters).test_case_filters == std::vector<std::string>{"a*", "b, c"});
  const char* bad[] = {"08_attention", "--emitt", "out"};
  CHECK_THROWS_WITH_AS(book::detail::parse_arguments(3, bad),
                       doctest::Contains("unknown option '--emitt'\nusage: 08_attention [--emit DIR]"), ValueError);
  const char* missing[] = {"08_attention", "--emit"};
  CHECK_THROWS_WITH_AS(book::detail::parse_arguments(2, missing), doctest::Contains("--emit needs a directory"),
                       ValueError);
  const char* stray[] = {"08_attention", "extra"};
  CHECK_THROWS_WITH_AS(book::detail::parse_arguments(2, stray), doctest::Contains("unknown option 'extra'"),
                       ValueError);
}

TEST_CASE(
    "differing_bits counts the elements that differ in any bit: a NaN equals only its own bits, +0 "
    "differs from -0, and two shapes are refused, named") {
  const Tensor a = tensor({1.0, 0.0, NAN, 0.1 + 0.2});
  CHECK(book::differing_bits(a, a.clone()) == 0);
  CHECK(book::differing_bits(a, tensor({1.0, -0.0, NAN, 0.3})) == 2);  // -0, and 0.3's last bit
  CHECK(book::differing_bits(a, tensor({std::nextafter(1.0, 2.0), 0.0, NAN, 0.1 + 0.2})) == 1);
  CHECK(book::kU == std::ldexp(1.0, -53));
  CHECK_THROWS_WITH_AS(book::differing_bits(a, zeros({2, 2})),
                       doctest::Contains("differing_bits: the tensors' shapes [4] and [2,2] differ"), ShapeError);
}

TEST_CASE("figure names must be plain words, since they become file names") {
  CHECK_THROWS_WITH_AS(book::figure("../x", Json()), "figure: name '../x' must be letters, digits, '_' and '-' only",
                       ValueError);
}

TEST_CASE("a measured number's bound says what it holds and shows it as the page does") {
  CHECK(book::at_most(1e-15).holds(1e-15));
  CHECK_FALSE(book::below(1e-15).holds(1e-15));
  CHECK(book::above(0.5).holds(0.51));
  CHECK(book::at_least(2).holds(2));
  CHECK(book::exactly(0).holds(0.0));
  CHECK_FALSE(book::exactly(0).holds(1e-300));
  CHECK(book::within(0.058, 0.875).holds(0.9));
  CHECK_FALSE(book::within(0.058, 0.875).holds(0.95));
  CHECK_FALSE(book::at_most(1).holds(NAN));
  CHECK(book::at_most(1e-15).text() == "≤ 1e-15");
  CHECK(book::within(0.058, 0.875).text() == "within 0.058 of 0.875");
  CHECK_THROWS_WITH_AS(book::within(0, 1), "within: tolerance 0 must be positive", ValueError);
  CHECK_THROWS_WITH_AS(book::measured("x", 1, ""), "measured: 'x' needs a description of what it is, for the page",
                       ValueError);
}

TEST_CASE("a bound given the reason its margin is large holds and reads as before, and carries the reason") {
  const book::Bound plain = book::at_most(1e-15);
  const book::Bound reasoned = plain.large_margin_because("a worst-case rounding bound");
  CHECK(plain.large_margin_reason.empty());
  CHECK(reasoned.large_margin_reason == "a worst-case rounding bound");
  CHECK(reasoned.text() == plain.text());
  CHECK(reasoned.holds(1e-15));
  CHECK_FALSE(reasoned.holds(2e-15));
  CHECK_THROWS_WITH_AS(plain.large_margin_because(""), "large_margin_because: the bound ≤ 1e-15 needs a reason",
                       ValueError);
  // What the claim records for the page (claims.json's "large_margin_because"), beside the bound.
  book::detail::begin_claim("a claim of this test", __FILE__, __LINE__);
  CHECK(book::check("error", 0.0, "a rounding error", reasoned));
  CHECK(book::check("plain error", 0.0, "a rounding error", plain));
  book::detail::end_claim(true);
  const auto& measured = book::detail::claims().back().measured;
  REQUIRE(measured.size() == 2);
  CHECK(measured[0].bound == "≤ 1e-15");
  CHECK(measured[0].large_margin_reason == "a worst-case rounding bound");
  CHECK(measured[1].large_margin_reason.empty());
}

// The page must not state a bound the number misses: this test passes only if check() fails it.
TEST_CASE("a checked number outside the bound the page states fails its claim" * doctest::should_fail()) {
  CHECK_FALSE(book::check("largest error", 2.0, "a number over its bound", book::at_most(1.0)));
}

TEST_CASE("a checked number within its bound holds, and check_seeds checks every seed" * doctest::should_fail()) {
  CHECK(book::check("largest error", 0.5, "a number under its bound", book::at_most(1.0)));
  std::vector<std::uint64_t> asked;
  // Seed 2's number misses the bound: the claim fails (should_fail), but every seed is measured.
  CHECK_FALSE(book::check_seeds("error", "per seed", book::below(1.0), {1, 2, 3}, [&](std::uint64_t seed) {
    asked.push_back(seed);
    return seed == 2 ? 3.0 : 0.5;
  }));
  CHECK(asked == std::vector<std::uint64_t>{1, 2, 3});
}

TEST_CASE("check names the caller's file and line, where the claim's sentence is") {
  const book::Where here;
  CHECK(std::string(here.file).find("test_book.cpp") != std::string::npos);
  CHECK(here.line == __LINE__ - 2);
}

namespace {
struct Tiny : nn::Module {
  nn::Linear layer{2, 1};
  Tiny() : Module("Tiny") { register_module("layer", layer); }
};
}  // namespace

TEST_CASE("train_once trains a model once and loads it, with its record, bit for bit, after that") {
  const std::string name = "tiny-" + std::to_string(std::random_device()());
  int trained = 0;
  auto train = [&](Tiny& model) {
    return [&] {
      ++trained;
      NoGradGuard no_grad;
      model.layer.weight.copy_(tensor({{0.1, -1.0 / 3}}));
      // A series name may hold spaces ("held out" once made every load fail, silently: each
      // claim of chapter 12 trained its GPT afresh).
      return book::Record{{"curve", {1.0 / 3, 0.25, NAN}}, {"held out", {2.5}}, {"empty", {}}};
    };
  };
  Tiny first, second;
  const book::Record a = book::train_once(name, 7, first, train(first));
  const book::Record b = book::train_once(name, 7, second, train(second));
  CHECK(trained == 1);
  CHECK(second.layer.weight.at({0, 1}) == -1.0 / 3);
  REQUIRE(b.at("curve").size() == 3);
  CHECK(b.at("curve")[0] == 1.0 / 3);
  CHECK(std::isnan(b.at("curve")[2]));
  CHECK(b.at("held out") == std::vector<double>{2.5});
  CHECK(b.at("empty").empty());
  CHECK(b.size() == 3);
  Tiny third;
  book::train_once(name, 8, third, train(third));  // another seed is another model
  CHECK(trained == 2);
  CHECK_THROWS_WITH_AS(book::train_once("a/b", 1, third, train(third)),
                       "train_once: name 'a/b' must be letters, digits, '_' and '-' only", ValueError);
  Tiny fourth;
  CHECK_THROWS_WITH_AS(book::train_once(name, 9, fourth,
                                        [] {
                                          return book::Record{{"two\nlines", {1.0}}};
                                        }),
                       "train_once: a Record's series name must be one line, not empty and not starting with a "
                       "space; got 'two\nlines'",
                       ValueError);
  namespace fs = std::filesystem;  // leave nothing behind
  const fs::path dir = fs::read_symlink("/proc/self/exe").parent_path();
  for (const auto& f : fs::directory_iterator(dir))
    if (f.path().filename().string().find("-" + name + "-seed") != std::string::npos) fs::remove(f.path());
}
