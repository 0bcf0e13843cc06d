// BPETokenizer and pretokenize: the merges against a plain trainer that recounts everything at
// every step, encode and decode for any bytes, truncation, and the file format, strictly read.

#include <doctest/doctest.h>

#include <algorithm>
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <map>
#include <random>
#include <set>
#include <string>
#include <vector>

#include <unistd.h>

#include <litgrad/book/trained.hpp>
#include <litgrad/litgrad.hpp>

using namespace litgrad;

namespace {

using Merges = std::vector<std::pair<std::int64_t, std::int64_t>>;

std::string temporary(const std::string& name) {
  return (std::filesystem::temp_directory_path() / ("litgrad-test-" + std::to_string(::getpid()) + "-" + name))
      .string();
}

// How many occurrences of (a, b) a left-to-right replacement makes in s, and the result.
std::int64_t replace_all(std::vector<std::int64_t>& s, std::int64_t a, std::int64_t b, std::int64_t merged) {
  std::vector<std::int64_t> out;
  std::int64_t replaced = 0;
  for (std::size_t i = 0; i < s.size(); ++i) {
    if (i + 1 < s.size() && s[i] == a && s[i + 1] == b) {
      out.push_back(merged), ++i, ++replaced;
    } else {
      out.push_back(s[i]);
    }
  }
  s = out;
  return replaced;
}

// The plain trainer: at every step, every pair's count is the number of replacements merging it
// would make in the whole text (piece by piece), found by trying; the largest count wins, ties to
// the smaller (left, right). Returns the merges and each step's count and length.
struct Plain {
  Merges merges;
  std::vector<BPEStep> steps;
  std::vector<std::vector<std::int64_t>> pieces;  // the text's pieces at the end
};

Plain plain_train(const std::string& text, std::int64_t vocab_size) {
  Plain p;
  for (std::string_view piece : pretokenize(text)) {
    std::vector<std::int64_t> s;
    for (char c : piece) s.push_back(static_cast<unsigned char>(c));
    p.pieces.push_back(s);
  }
  while (256 + static_cast<std::int64_t>(p.merges.size()) < vocab_size) {
    std::map<std::pair<std::int64_t, std::int64_t>, std::int64_t> counts;
    for (const auto& s : p.pieces)
      for (std::size_t i = 0; i + 1 < s.size(); ++i) counts[{s[i], s[i + 1]}] = 0;
    if (counts.empty()) break;
    for (auto& [pair, count] : counts)
      for (auto s : p.pieces) count += replace_all(s, pair.first, pair.second, -1);
    auto best = counts.begin();  // std::map is ordered by (left, right): the first of a tie wins
    for (auto it = counts.begin(); it != counts.end(); ++it)
      if (it->second > best->second) best = it;
    const std::int64_t merged = 256 + static_cast<std::int64_t>(p.merges.size());
    std::int64_t length = 0;
    std::set<std::vector<std::int64_t>> holding;  // the distinct pieces that hold the pair
    for (auto& s : p.pieces) {
      const auto before = s;
      if (replace_all(s, best->first.first, best->first.second, merged) > 0) holding.insert(before);
      length += static_cast<std::int64_t>(s.size());
    }
    p.merges.push_back(best->first);
    p.steps.push_back({best->second, length, static_cast<std::int64_t>(holding.size())});
  }
  return p;
}

// Random text over a few letters, spaces and punctuation, with runs of one letter.
std::string random_text(std::mt19937_64& rng, std::size_t length) {
  const std::string alphabet = "aab c.  aaaa";
  std::string text;
  while (text.size() < length) {
    const char c = alphabet[rng() % alphabet.size()];
    text.append(1 + rng() % 3, c);
  }
  return text;
}

std::string all_bytes() {
  std::string s;
  for (int b = 0; b < 256; ++b) s += static_cast<char>(b);
  return s;
}

}  // namespace

TEST_CASE("pretokenize cuts text into runs of letters, digits or punctuation, each with the space before it") {
  const auto pieces = pretokenize("the cat's 9 lives,  twice\n\nover ");
  const std::vector<std::string_view> expected = {"the", " cat", "'",      "s",    " 9",   " lives",
                                                  ",",   " ",    " twice", "\n\n", "over", " "};
  CHECK(pieces == expected);
  CHECK(pretokenize("").empty());
  CHECK(pretokenize("café") == std::vector<std::string_view>{"café"});  // UTF-8 bytes are letters
  // From the lowest such byte, 0x80 (À is C3 80, Ā is C4 80): a character is never cut.
  CHECK(pretokenize("\xC3\x80 la \xC4\x80x") == std::vector<std::string_view>{"\xC3\x80", " la", " \xC4\x80x"});
  CHECK(pretokenize(" x") == std::vector<std::string_view>{" x"});
  CHECK(pretokenize("x  ") == std::vector<std::string_view>{"x", "  "});
}

TEST_CASE("the pieces of any bytes, concatenated, are the bytes") {
  std::mt19937_64 rng(5);
  for (int trial = 0; trial < 200; ++trial) {
    std::string text;
    for (std::size_t i = rng() % 40; i > 0; --i) text += static_cast<char>(rng() % 256);
    std::string joined;
    for (std::string_view piece : pretokenize(text)) {
      CHECK(!piece.empty());
      joined += piece;
    }
    CHECK(joined == text);
  }
}

TEST_CASE(
    "on aaabdaaabac the pair aa counts 2, not 4, ties go to the smaller ids, and the merges are as worked by hand") {
  BPETokenizer t;
  std::vector<BPEStep> steps;
  t.train("aaabdaaabac", 260, &steps);
  // aa (2) ties ab (2): aa, whose right id is smaller, first; then ab (2) beats Za (2) by its
  // left id; then ZY (2); then the rest count 1, and the smallest pair of them goes first.
  const Merges expected = {{'a', 'a'}, {'a', 'b'}, {256, 257}, {'a', 'c'}};
  CHECK(t.merges() == expected);
  REQUIRE(steps.size() == 4);
  CHECK(steps[0].count == 2);
  CHECK(steps[0].length == 9);
  CHECK(steps[2].count == 2);
  CHECK(steps[2].length == 5);
  CHECK(t.encode("aaabdaaabac") == std::vector<std::int64_t>{258, 'd', 258, 259});
  CHECK(t.token(258) == "aaab");
}

TEST_CASE(
    "training with incremental counts makes the same merges, counts, lengths and rewritten pieces as recounting "
    "everything at every step, on 60 random texts") {
  std::mt19937_64 rng(11);
  for (int trial = 0; trial < 60; ++trial) {
    const std::string text = random_text(rng, 50 + rng() % 250);
    const std::int64_t vocab = 256 + static_cast<std::int64_t>(rng() % 40);
    CAPTURE(text);
    BPETokenizer t;
    std::vector<BPEStep> steps;
    t.train(text, vocab, &steps);
    const Plain p = plain_train(text, vocab);
    CHECK(t.merges() == p.merges);
    REQUIRE(steps.size() == p.steps.size());
    for (std::size_t k = 0; k < steps.size(); ++k) {
      CHECK(steps[k].count == p.steps[k].count);
      CHECK(steps[k].length == p.steps[k].length);
      CHECK(steps[k].pieces == p.steps[k].pieces);
    }
    // Encoding the training text replays the merges to the very tokens training ended with.
    std::vector<std::int64_t> ended;
    for (const auto& s : p.pieces) ended.insert(ended.end(), s.begin(), s.end());
    CHECK(t.encode(text) == ended);
  }
}

TEST_CASE(
    "each merge shortens the training text by its pair's count, rewrites at most that many pieces, and the counts "
    "never increase") {
  std::mt19937_64 rng(12);
  const std::string text = random_text(rng, 5000);
  BPETokenizer t;
  std::vector<BPEStep> steps;
  t.train(text, 400, &steps);
  REQUIRE(steps.size() == 144);
  std::int64_t before = static_cast<std::int64_t>(text.size());
  for (std::size_t k = 0; k < steps.size(); ++k) {
    CHECK(before - steps[k].length == steps[k].count);
    CHECK(steps[k].pieces >= 1);
    CHECK(steps[k].pieces <= steps[k].count);
    if (k > 0) CHECK(steps[k].count <= steps[k - 1].count);
    before = steps[k].length;
  }
  CHECK(static_cast<std::int64_t>(t.encode(text).size()) == steps.back().length);
}

TEST_CASE("decode(encode(text)) is text for any bytes, including bytes the training text never had") {
  std::mt19937_64 rng(13);
  BPETokenizer t;
  t.train(random_text(rng, 3000), 320);
  CHECK(t.decode(t.encode(all_bytes())) == all_bytes());
  for (int trial = 0; trial < 200; ++trial) {
    std::string text;
    for (std::size_t i = rng() % 60; i > 0; --i)
      text += rng() % 2 ? static_cast<char>(rng() % 256) : "ab c."[rng() % 5];
    CHECK(t.decode(t.encode(text)) == text);
  }
  CHECK(t.encode("").empty());
  CHECK(t.decode(std::vector<std::int64_t>{}).empty());
  // A byte the training text never had is its own token.
  CHECK(t.encode("\xc3\xa9") == std::vector<std::int64_t>{0xc3, 0xa9});
}

TEST_CASE("decode takes a 1-D Int64 tensor as well as a vector") {
  BPETokenizer t;
  t.train("hello hello hello", 260);
  const auto ids = t.encode("hello");
  const Tensor as_tensor =
      tensor(std::vector<double>(ids.begin(), ids.end()), {static_cast<std::int64_t>(ids.size())}, DType::Int64);
  CHECK(t.decode(as_tensor) == "hello");
}

TEST_CASE("a tokenizer truncated to a size is the one trained to that size, and encodes alike") {
  std::mt19937_64 rng(14);
  const std::string text = random_text(rng, 4000);
  BPETokenizer big, small;
  big.train(text, 380);
  small.train(text, 300);
  const BPETokenizer cut = big.truncated(300);
  CHECK(cut.merges() == small.merges());
  CHECK(cut.vocab_size() == 300);
  CHECK(cut.encode(text) == small.encode(text));
  CHECK(big.truncated(256).merges().empty());
}

TEST_CASE("training stops early when no pair is left, and a new tokenizer has the 256 bytes only") {
  BPETokenizer t;
  CHECK(t.vocab_size() == 256);
  CHECK(t.encode("ab") == std::vector<std::int64_t>{'a', 'b'});
  t.train("ab", 1000);
  CHECK(t.vocab_size() == 257);
  t.train("", 300);
  CHECK(t.vocab_size() == 256);
}

TEST_CASE("save and load keep every merge, and the loaded tokenizer encodes every text alike") {
  std::mt19937_64 rng(15);
  const std::string text = random_text(rng, 3000);
  BPETokenizer t, u;
  t.train(text, 330);
  const std::string path = temporary("round.bpe");
  t.save(path);
  u.load(path);
  CHECK(u.merges() == t.merges());
  CHECK(u.encode(text) == t.encode(text));
  std::filesystem::remove(path);
}

TEST_CASE(
    "loading a corrupt file throws ValueError naming the file and the fault, and leaves the tokenizer as it was") {
  std::mt19937_64 rng(16);
  BPETokenizer good;
  good.train(random_text(rng, 2000), 300);
  const std::string path = temporary("good.bpe");
  good.save(path);
  std::string text;
  {
    std::ifstream f(path);
    text.assign(std::istreambuf_iterator<char>(f), {});
  }
  const std::string bad = temporary("bad.bpe");
  auto attempt = [&](const std::string& contents, const std::string& expected) {
    CAPTURE(expected);
    {
      std::ofstream f(bad, std::ios::binary);
      f << contents;
    }
    BPETokenizer t = good;
    CHECK_THROWS_WITH_AS(t.load(bad), doctest::Contains(expected.c_str()), ValueError);
    CHECK_THROWS_WITH_AS(t.load(bad), doctest::Contains(bad.c_str()), ValueError);
    CHECK(t.merges() == good.merges());
  };
  attempt("", "is not a litgrad bpe file");
  attempt("litgrad state_dict 1\n", "is not a litgrad bpe file");
  attempt("litgrad bpe 9\nmerges 0\nend\n", "has format version '9'; this litgrad reads versions 1 to 3");
  attempt("litgrad bpe 2\nmerges 0\nend\n", "after 0 merges the line should be 'checksum' and 16 hexadecimal digits");
  attempt("litgrad bpe 2\nmerges 0\n", "is truncated: it ends before its checksum line");
  {  // one id of the first merge changed to another valid one: only the checksum can tell
    const std::size_t first = text.find('\n', text.find('\n') + 1) + 1, space = text.find(' ', first);
    const auto [left, right] = good.merges()[0];
    std::int64_t other = 32;
    while (other == right || std::count(good.merges().begin(), good.merges().end(), std::pair{left, other}) > 0)
      ++other;
    const std::string changed = text.substr(0, space + 1) + std::to_string(other) + text.substr(text.find('\n', first));
    attempt(changed, "the checksum is '");
    attempt(changed, ": the file was changed or damaged");
  }
  {
    std::string renamed = text;
    renamed.replace(renamed.find("checksum "), 9, "checksun ");
    attempt(renamed, "the line should be 'checksum' and 16 hexadecimal digits, got 'checksun ");
  }
  attempt("litgrad bpe 1\n", "is truncated: it ends after its first line");
  attempt("litgrad bpe 1\nmerges x\nend\n", "the second line should be 'merges N', got 'merges x'");
  attempt("litgrad bpe 1\nmerges -1\nend\n", "the second line should be 'merges N'");
  attempt(text.substr(0, text.find('\n', text.size() / 2) + 1), "is truncated: it ends after");
  attempt(text.substr(0, text.find('\n', text.size() / 2) + 1) + "25", "should be two ids, got '25'");
  attempt(text.substr(0, text.size() - 4), "is truncated: it does not end with the line 'end'");
  attempt("litgrad bpe 1\nmerges 1\n97\nend\n", "merge 0 should be two ids, got '97'");
  attempt("litgrad bpe 1\nmerges 1\n97 98 99\nend\n", "merge 0 should be two ids, got '97 98 99'");
  attempt("litgrad bpe 1\nmerges 1\n97 -98\nend\n", "merge 0 should be two ids");
  attempt("litgrad bpe 1\nmerges 1\n97 1e2\nend\n", "merge 0 should be two ids");
  attempt("litgrad bpe 1\nmerges 1\n97 256\nend\n",
          "merge 0 (97 256) names an id that does not exist before it; ids then are 0 to 255");
  attempt("litgrad bpe 1\nmerges 2\n97 98\n97 98\nend\n", "merge 1 (97 98) repeats merge 0");
  attempt("litgrad bpe 1\nmerges 1\n97 98\nfin\n", "after 1 merges the line should be 'end', got 'fin'");
  attempt("litgrad bpe 1\nmerges 0\nend\nmore\n", "there is more after the line 'end'");
  CHECK_THROWS_WITH_AS(good.load(temporary("no-such.bpe")), doctest::Contains("BPETokenizer::load: cannot read"),
                       ValueError);
  std::filesystem::remove(path);
  std::filesystem::remove(bad);
}

TEST_CASE("the file format's example in bpe.hpp, checksum and all, loads as the two merges it lists") {
  const std::string path = temporary("example.bpe");
  std::ofstream(path, std::ios::binary)
      << "litgrad bpe 2\nmerges 2\n104 101\n256 108\nchecksum ea748a497c677633\nend\n";
  BPETokenizer t;
  t.load(path);
  CHECK(t.merges() == std::vector<std::pair<std::int64_t, std::int64_t>>{{104, 101}, {256, 108}});
  CHECK(t.decode(t.encode("hello")) == "hello");
  CHECK(t.encode("hel").size() == 1);
  std::filesystem::remove(path);
}

TEST_CASE("train_once keeps a tokenizer as it keeps a module: trained by the first call, loaded by the next") {
  const std::string name = "bpe-" + std::to_string(std::random_device()());
  int trained = 0;
  auto keep = [&](BPETokenizer& t) {
    return book::train_once(
        name, 1, [&](const std::string& path) { t.save(path); }, [&](const std::string& path) { t.load(path); },
        [&] {
          ++trained;
          t.train("the cat sat on the mat", 260);
          return book::Record{{"size", {static_cast<double>(t.vocab_size())}}};
        });
  };
  BPETokenizer first, second;
  keep(first);
  const book::Record r = keep(second);
  CHECK(trained == 1);
  CHECK(second.merges() == first.merges());
  CHECK(r.at("size") == std::vector<double>{260});
  namespace fs = std::filesystem;  // leave nothing behind
  const fs::path dir = fs::read_symlink("/proc/self/exe").parent_path();
  for (const auto& f : fs::directory_iterator(dir))
    if (f.path().filename().string().find("-" + name + "-seed") != std::string::npos) fs::remove(f.path());
}

TEST_CASE(
    "encode's memory of pieces never outlives the merges: retraining, loading or copying gives the ids the merges "
    "give") {
  BPETokenizer t;
  t.train("the cat sat on the mat", 262);
  const std::string probe = "the mat sat on the cat";
  const auto before = t.encode(probe);
  BPETokenizer copy = t;
  t.train("a hat on a bat on a rat", 262);
  BPETokenizer fresh;
  fresh.train("a hat on a bat on a rat", 262);
  CHECK(t.encode(probe) == fresh.encode(probe));
  CHECK(t.encode(probe) != before);
  CHECK(copy.encode(probe) == before);  // the copy kept its merges, and its ids
  const std::string path = temporary("memo.bpe");
  copy.save(path);
  t.load(path);
  CHECK(t.encode(probe) == before);
  std::filesystem::remove(path);
}

TEST_CASE("encoding more distinct pieces than encode remembers still gives every piece's ids") {
  BPETokenizer t;
  t.train("ab ab ab abc abc", 260);
  std::string text;
  for (int i = 0; i < (1 << 18) + 5000; ++i) {  // distinct words of letters: i in base 26
    text += ' ';
    for (int n = i; n > 0 || text.back() == ' '; n /= 26) text += static_cast<char>('a' + n % 26);
  }
  const auto ids = t.encode(text);
  CHECK(t.decode(ids) == text);
  CHECK(ids == t.encode(text));  // and again, after the memory was cleared on the way
}

TEST_CASE(
    "special tokens take the ids after the merges, is_special names exactly those, allowed ones become their ids, "
    "the text between encodes as without them, and decode gives the text back for any bytes") {
  std::mt19937_64 rng(17);
  // Training text full of the special strings, so that merges cover their bytes: a special id
  // must still come only from an allowed occurrence, never from a merge.
  std::string training;
  for (int i = 0; i < 40; ++i) training += random_text(rng, 80) + "<|endoftext|>";
  BPETokenizer t;
  t.train(training, 340);
  const BPETokenizer plain = t;  // the same merges, no special tokens
  const std::vector<std::string> special = {"<|endoftext|>", "\n<sep>\n"};
  CHECK(t.add_special_token(special[0]) == 340);
  CHECK(t.add_special_token(special[1]) == 341);
  CHECK(t.vocab_size() == 342);
  CHECK(t.special_tokens() == special);
  CHECK(t.special_token_id("\n<sep>\n") == 341);
  CHECK(t.token(340) == "<|endoftext|>");
  for (std::int64_t id : {-1, 0, 255, 256, 339, 340, 341, 342}) {
    CAPTURE(id);
    CHECK(t.is_special(id) == (id == 340 || id == 341));
    CHECK_FALSE(plain.is_special(id));
  }
  CHECK(plain.encode("<|endoftext|>").size() < 13);  // the merges did learn its bytes
  for (int trial = 0; trial < 200; ++trial) {
    // Up to three special tokens at random, between stretches of ordinary text; each stretch
    // encodes as the tokenizer without special tokens encodes it.
    std::string text, stretch;
    std::vector<std::int64_t> expected;
    const auto end_stretch = [&] {
      const std::vector<std::int64_t> ids = plain.encode_ordinary(stretch);
      expected.insert(expected.end(), ids.begin(), ids.end());
      text += stretch;
      stretch.clear();
    };
    for (int part = 0; part < 4; ++part) {
      for (std::size_t i = rng() % 30; i > 0; --i)
        stretch += rng() % 4 ? "ab c.<|"[rng() % 7] : static_cast<char>(rng() % 256);
      if (part < 3 && rng() % 3) {
        end_stretch();
        const std::size_t k = rng() % 2;
        text += special[k];
        expected.push_back(340 + static_cast<std::int64_t>(k));
      }
    }
    end_stretch();
    CAPTURE(text);
    const bool has_special = text.find(special[0]) != std::string::npos || text.find(special[1]) != std::string::npos;
    if (has_special) {
      CHECK_THROWS_AS(t.encode(text), ValueError);
    } else {
      CHECK(t.encode(text) == plain.encode(text));
    }
    const std::vector<std::int64_t> ids = t.encode(text, t.special_tokens());
    CHECK(ids == expected);
    CHECK(t.decode(ids) == text);
    const std::vector<std::int64_t> ordinary = t.encode_ordinary(text);
    CHECK(ordinary == plain.encode_ordinary(text));
    CHECK(std::all_of(ordinary.begin(), ordinary.end(), [](std::int64_t id) { return id < 340; }));
    CHECK(t.decode(ordinary) == text);
  }
}

TEST_CASE(
    "where two special tokens start at one byte the longer is taken, and one not allowed is refused even inside an "
    "allowed one") {
  BPETokenizer t;
  const std::int64_t ab = t.add_special_token("ab"), abc = t.add_special_token("abc");
  CHECK(t.encode("xabcab", t.special_tokens()) == std::vector<std::int64_t>{'x', abc, ab});
  CHECK(t.encode("xab abab", {"ab"}) == std::vector<std::int64_t>{'x', ab, ' ', ab, ab});
  CHECK_THROWS_WITH_AS(t.encode("abc", {"abc"}), doctest::Contains("the special token 'ab' at byte 0"), ValueError);
  CHECK(t.encode("x", {}) == std::vector<std::int64_t>{'x'});
}

TEST_CASE(
    "a tokenizer with special tokens saves as version 3 and loads with the same ids, whatever bytes the tokens hold, "
    "and one without still saves as version 2, byte for byte as before") {
  std::mt19937_64 rng(18);
  const std::string text = random_text(rng, 3000);
  BPETokenizer t;
  t.train(text, 300);
  const std::vector<std::string> special = {"<|endoftext|>", std::string("a \n\0\xff", 5), "end"};
  for (const std::string& s : special) t.add_special_token(s);
  const std::string path = temporary("special.bpe");
  t.save(path);
  std::string saved;
  {
    std::ifstream f(path, std::ios::binary);
    saved.assign(std::istreambuf_iterator<char>(f), {});
  }
  CHECK(saved.rfind("litgrad bpe 3\n", 0) == 0);
  CHECK(saved.find("special 3\n3c7c656e646f66746578747c3e\n61200a00ff\n656e64\nchecksum ") != std::string::npos);
  BPETokenizer u;
  u.load(path);
  CHECK(u.merges() == t.merges());
  CHECK(u.special_tokens() == special);
  CHECK(u.vocab_size() == 303);
  const std::string mixed = text.substr(0, 500) + special[1] + "end" + text.substr(500, 500);
  CHECK(u.encode(mixed, special) == t.encode(mixed, special));
  CHECK(u.decode(u.encode(mixed, special)) == mixed);
  // The example in bpe.hpp, saved again, is the same bytes.
  const std::string example = "litgrad bpe 2\nmerges 2\n104 101\n256 108\nchecksum ea748a497c677633\nend\n";
  std::ofstream(path, std::ios::binary) << example;
  BPETokenizer v;
  v.load(path);
  v.save(path);
  std::ifstream f(path, std::ios::binary);
  CHECK(std::string(std::istreambuf_iterator<char>(f), {}) == example);
  std::filesystem::remove(path);
}

TEST_CASE("a version 3 file with a malformed special token is refused, naming the fault") {
  const std::string bad = temporary("bad-special.bpe");
  const auto attempt = [&](const std::string& contents, const std::string& expected) {
    CAPTURE(expected);
    std::ofstream(bad, std::ios::binary) << contents;
    BPETokenizer t;
    t.add_special_token("<keep>");
    CHECK_THROWS_WITH_AS(t.load(bad), doctest::Contains(expected.c_str()), ValueError);
    CHECK(t.special_tokens() == std::vector<std::string>{"<keep>"});
  };
  attempt("litgrad bpe 3\nmerges 0\n", "is truncated: it ends before its special tokens");
  attempt("litgrad bpe 3\nmerges 0\nspecial 0\n", "the line should be 'special N' with N at least 1, got 'special 0'");
  attempt("litgrad bpe 3\nmerges 0\nspecials 1\n", "the line should be 'special N' with N at least 1");
  attempt("litgrad bpe 3\nmerges 0\nspecial 2\n6162\n", "is truncated: it ends after 1 of its 2 special tokens");
  attempt("litgrad bpe 3\nmerges 0\nspecial 1\n616\n", "special token 0 should be its bytes in lowercase hexadecimal");
  attempt("litgrad bpe 3\nmerges 0\nspecial 1\n6A\n", "special token 0 should be its bytes in lowercase hexadecimal");
  attempt("litgrad bpe 3\nmerges 0\nspecial 1\n\n", "special token 0 should be its bytes in lowercase hexadecimal");
  attempt("litgrad bpe 3\nmerges 0\nspecial 2\n6162\n6162\n", "special token 1 ('ab') repeats an earlier one");
  attempt("litgrad bpe 3\nmerges 0\nspecial 1\n6162\nend\n", "after 1 special tokens the line should be 'checksum'");
  // A special token's byte changed: only the checksum can tell.
  BPETokenizer good;
  good.add_special_token("<|endoftext|>");
  good.save(bad);
  std::string text;
  {
    std::ifstream f(bad, std::ios::binary);
    text.assign(std::istreambuf_iterator<char>(f), {});
  }
  text.replace(text.find("3c7c"), 4, "3c7d");
  attempt(text, ": the file was changed or damaged");
  std::filesystem::remove(bad);
}
