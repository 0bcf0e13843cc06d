// Chapter 11 · Tokens
// ===================
//
// Chapter 10's model read words one letter at a time, from an alphabet of 27 symbols
// fixed in advance. Running text is less tidy. It has capitals, digits and punctuation,
// and as soon as a person types it, characters from any language. And letters are a
// slow way to read: a model that looks back over 64 positions sees 64 characters, a
// dozen or so words of English. This chapter builds the kind of tokenizer GPT-2
// introduced for both problems, which many models since use (OpenAI's later GPTs,
// RoBERTa, Llama 3). Text is stored as bytes, and with one token for each of the 256
// byte values no text is ever unknown. *Byte-pair encoding* then grows the vocabulary
// from the text itself: count every pair of neighbouring tokens, make the most frequent
// pair a token of its own, and repeat.
//
// We take one merge by hand on a small text, show that the library's tokenizer makes
// the same merges, train it on English running text, WordNet's definitions, and
// measure what a larger vocabulary buys (more text in each position) and what it costs
// (parameters). Chapter 12 will train a GPT on the same definitions, each after the
// word it defines, with a tokenizer trained this way on that text, to a smaller
// vocabulary.

// %% about: Text as bytes, and byte-pair encoding learned from WordNet's definitions:
// one merge by hand and the library's tokenizer equal to it; exact round trips and
// exact savings; frequent words as single tokens; and what a larger vocabulary buys
// and costs.
// %% assumes: 7, 10
// %% budget: 15 s, because it trains byte-pair tokenizers of 4,096 tokens on three
// splits of WordNet's definitions and encodes the corpus with each

// %% fold: includes, and the names this file uses
#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <filesystem>
#include <map>
#include <set>
#include <string>
#include <unordered_map>
#include <utility>
#include <vector>

#include <unistd.h>  // getpid

#include <litgrad/book/chapter.hpp>
#include <litgrad/book/corpus.hpp>
#include <litgrad/book/figures.hpp>
#include <litgrad/book/trained.hpp>
#include <litgrad/litgrad.hpp>

using namespace litgrad;
using book::out;

namespace {

// A token's bytes as the account prints them: a space as ␣, a newline as ↵, and a byte
// of 128 or more, a piece of a character, in hexadecimal.
std::string shown(const std::string& bytes) {
  std::string s;
  for (unsigned char c : bytes) {
    if (c == ' ')
      s += "␣";
    else if (c == '\n')
      s += "↵";
    else if (c >= 128) {
      char hex[8];
      std::snprintf(hex, sizeof hex, "<%02x>", c);
      s += hex;
    } else {
      s += static_cast<char>(c);
    }
  }
  return s;
}

// At most `n` bytes of a UTF-8 text, cut between characters, with … if anything was
// cut.
std::string cut(const std::string& text, std::size_t n) {
  if (text.size() <= n) return text;
  while (n > 0 && (static_cast<unsigned char>(text[n]) & 0xC0) == 0x80) --n;
  return text.substr(0, n) + "…";
}

// A number as printf's `format` writes it, for compact lines in the account.
std::string printed(const char* format, double x) {
  char text[32];
  std::snprintf(text, sizeof text, format, x);
  return text;
}

// Tokens as the account prints them, separated by |, in lines of about 72 characters.
std::string shown(const BPETokenizer& t, const std::vector<std::int64_t>& ids) {
  std::string s, line;
  for (std::int64_t id : ids) {
    const std::string token = shown(t.token(id));
    if (line.size() + token.size() > 72) s += line + "\n", line.clear();
    line += (line.empty() ? "" : "|") + token;
  }
  return s + line;
}

// %% 1 · The text
//
// The text is WordNet's, the lexical database of English from Princeton, which Debian
// packages as ``wordnet-base`` (``tools/install-deps`` installs it). WordNet groups
// words into sets of synonyms, *synsets*, and gives each a short definition, often
// followed by quoted examples of use. The definitions of its 117,659 synsets make
// plain, careful English prose.
//
// :cpp:func:`litgrad::book::read_wordnet` reads them from
// ``/usr/share/wordnet/data.{noun,verb,adj,adv}``. It keeps each synset's words, with
// WordNet's underscores turned into spaces (*dress uniform*), and its definition
// without the examples; the examples are kept apart. It then holds out a tenth of the
// distinct definitions, drawn with a fixed seed, together with every synset that has
// one of them, so that no held-out definition appears in the training text even word
// for word. The training text is the training definitions, one per line. Chapter 12
// will pair each definition with its words, to write a definition for a word it is
// given.

// %% fold: the split and its training text, read once per process
// The split drawn with seed `split`: the book's is 0 (book::wordnet()); section 6 also
// looks at others.
const book::Glosses& glosses(std::uint64_t split = 0) {
  if (split == 0) return book::wordnet();
  static std::map<std::uint64_t, book::Glosses> others;
  auto found = others.find(split);
  if (found == others.end())
    found =
        others.emplace(split, book::read_wordnet(book::kWordNetDirectory, 0.1, split))
            .first;
  return found->second;
}

const std::string& training_text(std::uint64_t split = 0) {
  static std::map<std::uint64_t, std::string> texts;
  auto found = texts.find(split);
  if (found == texts.end())
    found = texts.emplace(split, book::definitions_text(glosses(split).training)).first;
  return found->second;
}

// %%
// The test counts the synsets and the distinct definitions on each side, and prints the
// first few (word, definition) pairs.

TEST_CASE(
    "WordNet gives 117,659 synsets, a tenth of whose distinct definitions are held "
    "out, none of them among the training definitions") {
  const book::Glosses& wordnet = book::wordnet();
  std::set<std::string> training, held_out;
  for (const book::Gloss& g : wordnet.training) training.insert(g.definition);
  for (const book::Gloss& g : wordnet.held_out) held_out.insert(g.definition);
  int shared = 0;
  for (const std::string& d : held_out) shared += training.count(d) > 0;
  const double distinct = static_cast<double>(training.size() + held_out.size());
  out() << wordnet.training.size() << " training synsets, " << wordnet.held_out.size()
        << " held out; " << training.size() << " and " << held_out.size()
        << " distinct definitions\n";
  for (const auto& [word, definition] : book::word_definition_pairs(
           {wordnet.training.begin(), wordnet.training.begin() + 4}))
    out() << "  " << word << ": " << cut(definition, 63) << "\n";
  book::check("synsets",
              static_cast<double>(wordnet.training.size() + wordnet.held_out.size()),
              "in all", book::exactly(117659));
  book::check("held-out definitions", static_cast<double>(held_out.size()),
              "distinct, a tenth of all rounded",
              book::exactly(std::round(distinct / 10)));
  book::check("shared definitions", shared, "held out and also in training",
              book::exactly(0));
}

// %%
// A text is stored as bytes. The test counts the distinct bytes of the training text
// and finds every one below 128: WordNet's definitions are ASCII, so each of their
// characters is exactly one byte.

TEST_CASE(
    "every byte of the training definitions is below 128: the text is ASCII, one byte "
    "for each character") {
  const std::string& text = training_text();
  std::vector<std::int64_t> seen(256, 0);
  for (unsigned char c : text) ++seen[c];
  int distinct = 0, largest = 0;
  for (int b = 0; b < 256; ++b)
    if (seen[b] > 0) ++distinct, largest = b;
  out() << "the training text has " << text.size() << " bytes\n";
  book::measured("distinct bytes", distinct, "in the training text");
  book::check("largest byte", largest, "in the training text", book::below(128));
}

// %% 2 · Characters and bytes
//
// Chapter 10 gave each of its 27 symbols an id. A vocabulary of characters built the
// same way from this text would list the characters it has and nothing else: a reader
// who types *Zoë's café — 東京 🙂* gives it characters it has no id for.
// Unicode has far too many characters for a vocabulary, and most of them would never be
// seen in training.
//
// Bytes solve this. UTF-8, the usual encoding of text, writes each character
// as one to four bytes: the 128 ASCII characters as themselves, and every other
// character as a *lead* byte, which says how many bytes follow, and one to three
// *continuation* bytes, of the form ``10xxxxxx`` (exercise 2 writes the encoder). So a
// vocabulary of the 256 byte values spells every text there is. The price is length: a
// character outside ASCII costs two to four tokens. The test splits the sentence into
// characters (a character starts at every byte that is not a continuation byte), finds
// which never occur in the training text, and spells the sentence with a tokenizer that
// has no merges, only the 256 bytes.

const std::string kStranger = "Zoë's café — 東京 🙂";

// The characters of a UTF-8 text, each as its bytes, in order.
std::vector<std::string> characters(const std::string& text) {
  std::vector<std::string> out;
  for (unsigned char c : text) {
    if ((c & 0xC0) != 0x80) out.emplace_back();  // a byte that starts a character
    out.back() += static_cast<char>(c);
  }
  return out;
}

// The distinct characters of a UTF-8 text.
std::set<std::string> character_set(const std::string& text) {
  std::set<std::string> known;
  std::string c;
  for (unsigned char b : text) {
    if ((b & 0xC0) != 0x80 && !c.empty()) known.insert(c), c.clear();
    c += static_cast<char>(b);
  }
  if (!c.empty()) known.insert(c);
  return known;
}

TEST_CASE(
    "six characters of the sentence never occur in the training text, each is 2 to 4 "
    "bytes, and the 256 byte tokens spell the sentence and decode it exactly") {
  const std::set<std::string> known = character_set(training_text());
  int missing = 0;
  std::size_t shortest = 99, longest = 0;
  out() << "characters the training text never has:\n ";
  for (const std::string& c : characters(kStranger)) {
    if (known.count(c)) continue;
    ++missing, shortest = std::min(shortest, c.size()),
               longest = std::max(longest, c.size());
    const bool whole = c.size() > 1 || static_cast<unsigned char>(c[0]) < 128;
    out() << " " << (whole ? c : shown(c)) << " (" << c.size() << " bytes)";
  }
  const BPETokenizer bytes_only;  // 256 tokens, no merges
  const auto ids = bytes_only.encode(kStranger);
  out() << "\n"
        << characters(kStranger).size() << " characters, " << ids.size()
        << " byte tokens:\n"
        << shown(bytes_only, ids) << "\n";
  book::measured("known characters", static_cast<double>(known.size()),
                 "distinct characters in the training text");
  book::check("missing characters", missing, "of the sentence's", book::exactly(6));
  book::check("fewest bytes", static_cast<double>(shortest), "of a missing character",
              book::exactly(2));
  book::check("most bytes", static_cast<double>(longest), "of a missing character",
              book::exactly(4));
  book::check("decoded right", bytes_only.decode(ids) == kStranger,
              "1 if the tokens decode to the sentence", book::exactly(1));
}

// %% 3 · One merge, by hand
//
// Byte-pair encoding (a compression scheme of Gage, 1994, brought to neural translation
// by Sennrich, Haddow and Birch, 2016, and run on bytes by GPT-2's authors, Radford and
// others, 2019) starts from the bytes and repeats one step: count how often each pair
// of neighbouring tokens occurs, take the most frequent pair, and make it a new token,
// replacing the pair wherever it occurs. A merge learned at step :math:`k` gets the id
// :math:`256 + k`.
//
// Take a small text of lower-case words. Two rules first. The text is cut into
// *pieces*, each word with the space before it (``the``, ``␣cat``, ``␣sat``, ...), and
// pairs are counted within pieces only, so no token ever joins the end of one word to
// the start of the next. And a pair's count is the number of its occurrences that a
// replacement from left to right would replace: in ``aaa`` the two occurrences of
// ``aa`` overlap, only one can become a token, so it counts once. That rule is this
// book's: the common trainers (minbpe's, subword-nmt's, Hugging Face's) count every
// adjacent pair, overlaps included, so that ``aaa`` counts ``aa`` twice. The two differ
// only on runs of one token, and ours is chosen for what it makes exact: replacing a
// pair shortens the text by exactly its count, a claim section 4 tests on all of
// WordNet. Ties between equal counts go to the pair with the smaller left id, then the
// smaller right id.
//
// The code below is the whole algorithm.

const std::string kSmall = "the cat sat on the mat and the rat sat on the hat";

using Symbols = std::vector<std::int64_t>;
using Pair = std::pair<std::int64_t, std::int64_t>;

// A text of lower-case words and single spaces, cut before each space: its pieces'
// bytes.
std::vector<Symbols> pieces_of(const std::string& text) {
  std::vector<Symbols> pieces;
  for (std::size_t i = 0; i < text.size(); ++i) {
    if (i == 0 || text[i] == ' ') pieces.emplace_back();
    pieces.back().push_back(static_cast<unsigned char>(text[i]));
  }
  return pieces;
}

// How often each pair of neighbours occurs, counting in a run such as a a a only the
// occurrences a replacement from the left would replace.
std::map<Pair, std::int64_t> count_pairs(const std::vector<Symbols>& pieces) {
  std::map<Pair, std::int64_t> counts;
  for (const Symbols& s : pieces)
    for (std::size_t i = 0; i + 1 < s.size(); ++i) {
      ++counts[{s[i], s[i + 1]}];
      if (i + 2 < s.size() && s[i] == s[i + 1] && s[i + 1] == s[i + 2]) ++i;  // overlap
    }
  return counts;
}

// The pair with the largest count. std::map visits pairs in order of (left, right), so
// keeping the first of equal counts is the tie rule.
std::pair<Pair, std::int64_t> most_frequent(
    const std::map<Pair, std::int64_t>& counts) {
  std::pair<Pair, std::int64_t> best{{0, 0}, 0};
  for (const auto& [pair, count] : counts)
    if (count > best.second) best = {pair, count};
  return best;
}

// Replaces every occurrence of `pair`, left to right, by the token `id`.
void merge(std::vector<Symbols>& pieces, const Pair& pair, std::int64_t id) {
  for (Symbols& s : pieces) {
    Symbols merged;
    for (std::size_t i = 0; i < s.size(); ++i) {
      if (i + 1 < s.size() && s[i] == pair.first && s[i + 1] == pair.second) {
        merged.push_back(id);
        ++i;  // the pair's right token is used up
      } else {
        merged.push_back(s[i]);
      }
    }
    s = merged;
  }
}

std::int64_t length_of(const std::vector<Symbols>& pieces) {
  std::int64_t n = 0;
  for (const Symbols& s : pieces) n += static_cast<std::int64_t>(s.size());
  return n;
}

// %% fold: the bytes of hand-made tokens, and the pair counts drawn as a table
// The bytes of every token id made so far: the 256 bytes, then one per merge.
std::vector<std::string> byte_tokens() {
  std::vector<std::string> tokens;
  for (int b = 0; b < 256; ++b) tokens.push_back(std::string(1, static_cast<char>(b)));
  return tokens;
}

void draw_pair_counts(const std::map<Pair, std::int64_t>& counts) {
  std::vector<std::int64_t> symbols;  // every byte of the text, in order
  for (const auto& [pair, count] : counts)
    for (std::int64_t s : {pair.first, pair.second})
      if (std::find(symbols.begin(), symbols.end(), s) == symbols.end())
        symbols.push_back(s);
  std::sort(symbols.begin(), symbols.end());
  const auto n = static_cast<std::int64_t>(symbols.size());
  std::vector<double> grid(n * n, 0);
  std::vector<std::string> labels;
  for (std::int64_t s : symbols) labels.push_back(shown(std::string(1, char(s))));
  for (const auto& [pair, count] : counts) {
    const auto row =
        std::find(symbols.begin(), symbols.end(), pair.first) - symbols.begin();
    const auto col =
        std::find(symbols.begin(), symbols.end(), pair.second) - symbols.begin();
    grid[row * n + col] = static_cast<double>(count);
  }
  book::figure("pair_counts", book::heatmap(tensor(grid, {n, n}), labels, labels,
                                            "right token", "left token")
                                  .set("numbers", false));
}

// %%
// The test counts the pairs of the small text, prints the most frequent, merges the
// first and compares the text's length before and after.
//
// .. figure:: pair_counts
//
//    How often each byte of the small text is followed by each other byte, within a
//    piece (␣ is the space). The brightest cell, ``a`` then ``t``, is the first merge;
//    ``t`` then ``h`` and ``h`` then ``e`` come next.

TEST_CASE(
    "in the small text the most frequent pair is a then t, 6 times, and merging it "
    "shortens the text by exactly 6 tokens, from 49 to 43") {
  std::vector<Symbols> pieces = pieces_of(kSmall);
  const std::int64_t before = length_of(pieces);
  const auto counts = count_pairs(pieces);
  std::vector<std::pair<std::int64_t, Pair>> by_count;
  for (const auto& [pair, count] : counts) by_count.push_back({-count, pair});
  std::sort(by_count.begin(), by_count.end());
  out() << "the most frequent pairs:";
  for (std::size_t i = 0; i < 8; ++i)
    out() << (i % 4 ? "  (" : "\n  (")
          << shown(std::string(1, char(by_count[i].second.first))) << ", "
          << shown(std::string(1, char(by_count[i].second.second))) << ") "
          << -by_count[i].first;
  out() << "\n";
  draw_pair_counts(counts);
  const auto [pair, count] = most_frequent(counts);
  merge(pieces, pair, 256);
  const std::int64_t after = length_of(pieces);
  out() << "merging (" << char(pair.first) << ", " << char(pair.second)
        << "): " << before << " tokens become " << after << "\n";
  book::check("first pair is a, t", pair == Pair{'a', 't'}, "1 if so",
              book::exactly(1));
  book::check("its count", static_cast<double>(count), "occurrences", book::exactly(6));
  book::check("tokens saved", static_cast<double>(before - after), "by the merge",
              book::exactly(6));
  book::check("tokens after", static_cast<double>(after), "in the small text",
              book::exactly(43));
}

// %%
// Now repeat. The loop below merges eight times, printing the vocabulary as it grows:
// each new token, the count of its pair and the text's length after it. Its second
// step meets a tie, ``t h`` and ``h e`` four times each; the tie rule takes ``h e``,
// whose left byte comes first, and ``the`` follows. The fourth merge makes ``␣the`` one
// token. After the eighth, no pair is left that occurs more than once, and merging
// one-offs buys nothing a reader would call a pattern.
//
// Then the same text goes to the library. :cpp:class:`litgrad::BPETokenizer` does all
// of this in :cpp:func:`litgrad::BPETokenizer::train`, which stops when the vocabulary
// has the size asked for, here 256 + 8 = 264; with a ``history`` it also records each
// merge's count. The claim is that the library makes the same eight merges, in the same
// order, with the same counts, and that its
// :cpp:func:`litgrad::BPETokenizer::encode`, which replays the merges on a text,
// ends on the same tokens as the hand loop.

TEST_CASE(
    "trained on the small text to 264 tokens, the library's tokenizer makes the same "
    "eight merges as the hand loop, in the same order and with the same counts, and "
    "encodes the text to the same tokens") {
  std::vector<Symbols> pieces = pieces_of(kSmall);
  std::vector<std::string> tokens = byte_tokens();
  std::vector<Pair> merges;
  std::vector<std::int64_t> counts;
  std::int64_t tied = 0;  // the count of t h when the second merge is chosen
  for (std::int64_t k = 0; k < 8; ++k) {
    const auto all = count_pairs(pieces);
    if (k == 1) tied = all.at({'t', 'h'});
    const auto [pair, count] = most_frequent(all);
    merge(pieces, pair, 256 + k);
    tokens.push_back(tokens[pair.first] + tokens[pair.second]);
    merges.push_back(pair), counts.push_back(count);
    out() << "token " << 256 + k << " = " << shown(tokens[pair.first]) << " + "
          << shown(tokens[pair.second]) << " = " << shown(tokens.back()) << ", count "
          << count << ", text now " << length_of(pieces) << " tokens\n";
  }
  const std::int64_t left_over = most_frequent(count_pairs(pieces)).second;
  Symbols by_hand;
  for (const Symbols& s : pieces) by_hand.insert(by_hand.end(), s.begin(), s.end());
  BPETokenizer tokenizer;
  std::vector<BPEStep> steps;
  tokenizer.train(kSmall, 264, &steps);
  const auto encoded = tokenizer.encode(kSmall);
  int differing = 0;
  for (std::size_t k = 0; k < 8; ++k)
    differing +=
        tokenizer.merges().at(k) != merges[k] || steps.at(k).count != counts[k];
  int differing_tokens = encoded.size() != by_hand.size();
  for (std::size_t i = 0; i < std::min(encoded.size(), by_hand.size()); ++i)
    differing_tokens += encoded[i] != by_hand[i];
  out() << "the library's tokens: " << shown(tokenizer, encoded) << "\n";
  book::check("second merge", merges[1] == Pair{'h', 'e'}, "1 if it is h, e",
              book::exactly(1));
  book::check("tie", static_cast<double>(tied - counts[1]),
              "count of t h minus count of h e, at the second merge", book::exactly(0));
  book::check("fourth token is ␣the", tokens[259] == " the", "1 if so",
              book::exactly(1));
  book::check("largest count left", static_cast<double>(left_over),
              "after eight merges", book::exactly(1));
  book::check("merges", static_cast<double>(tokenizer.merges().size()),
              "the library made", book::exactly(8));
  book::check("differing merges", differing, "in pair or count", book::exactly(0));
  book::check("differing tokens", differing_tokens, "of the encoded text",
              book::exactly(0));
}

// %% 4 · Many merges, fast
//
// Training on WordNet's training text to a vocabulary of 4,096 tokens takes 3,840
// merges, and counting every pair of the whole text again for each of them, as the hand
// loop does, would read the text 3,840 times. The library does much less, in two ways.
// First, it cuts the text into pieces as section 3 did
// (:cpp:func:`litgrad::pretokenize`, which also makes runs of digits and of punctuation
// pieces of their own), and keeps each *distinct* piece once, with the number of times
// it occurs as a weight. Second, it counts the pairs once, and after each merge it
// rewrites only the pieces that held the merged pair, taking their old pairs' counts
// away and adding their new ones; the largest count is kept in a priority queue.
//
// The tokenizer is trained once for the whole chapter: each claim runs as its own
// process, so :cpp:func:`litgrad::book::train_once` trains it in the first and saves
// it (:cpp:func:`litgrad::BPETokenizer::save`) with its ``history``, one
// :cpp:struct:`litgrad::BPEStep` per merge, and the others load both.

constexpr std::int64_t kVocabulary = 4096;
const std::vector<std::int64_t> kSizes = {256, 512, 1024, 2048, 4096};

// %% fold: training the tokenizer once for the chapter, and the text's distinct pieces
struct Trained {
  BPETokenizer tokenizer;
  std::vector<BPEStep> steps;  // one per merge: its count, the length after, its pieces
};

// The tokenizer trained on the training text of the split `split` (the book's is 0).
const Trained& trained(std::uint64_t split = 0) {
  static std::map<std::uint64_t, Trained> cache;
  auto found = cache.find(split);
  if (found != cache.end()) return found->second;
  Trained& t = cache[split];
  const book::Record record = book::train_once(
      "tokenizer", split, [&](const std::string& path) { t.tokenizer.save(path); },
      [&](const std::string& path) { t.tokenizer.load(path); },
      [&] {
        t.tokenizer.train(training_text(split), kVocabulary, &t.steps);
        book::Record r;
        for (const BPEStep& s : t.steps) {
          r["count"].push_back(static_cast<double>(s.count));
          r["length"].push_back(static_cast<double>(s.length));
          r["pieces"].push_back(static_cast<double>(s.pieces));
        }
        return r;
      });
  t.steps.resize(record.at("count").size());
  for (std::size_t k = 0; k < t.steps.size(); ++k)
    t.steps[k] = {static_cast<std::int64_t>(record.at("count")[k]),
                  static_cast<std::int64_t>(record.at("length")[k]),
                  static_cast<std::int64_t>(record.at("pieces")[k])};
  return t;
}

// Each distinct piece of the training text, with how often it occurs.
const std::unordered_map<std::string_view, std::int64_t>& occurrences() {
  static const auto counted = [] {
    std::unordered_map<std::string_view, std::int64_t> n;
    for (std::string_view piece : pretokenize(training_text())) ++n[piece];
    return n;
  }();
  return counted;
}

// %%
// How much work is that? A distinct piece that holds the pair holds at least one
// occurrence of it and occurs at least once, so it adds at least 1 to the pair's count:
// a merge rewrites at most as many pieces as its count, and all merges together at most
// as many as the tokens they take out of the text.
//
// Keeping counts up to date by taking away and adding is where such code goes wrong,
// so the claim checks the library's bookkeeping against the slow way. At five points
// of training (before the first merge, and after 256, 768, 1,792 and 3,839 merges) the
// test cuts the trained tokenizer back to that point, encodes every distinct piece of
// the training text, counts all the pairs from scratch with section 3's
// ``count_pairs``, each piece weighted by its occurrences, and asks section 3's
// ``most_frequent`` for the winner. It must be the pair the library merged next, with
// the very count the library kept. The test also checks the bound on the work at every
// merge, and prints the totals.

// Every pair of the training text, counted from scratch as section 3 does, with the
// text encoded by `tokenizer`: each distinct piece once, weighted by its occurrences.
std::map<Pair, std::int64_t> recount(const BPETokenizer& tokenizer) {
  std::map<Pair, std::int64_t> all;
  for (const auto& [piece, n] : occurrences())
    for (const auto& [pair, count] : count_pairs({tokenizer.encode(piece)}))
      all[pair] += n * count;
  return all;
}

TEST_CASE(
    "at five points of training, recounting every pair of the training text from "
    "scratch finds the next merge's pair the most frequent, with exactly the count the "
    "library kept, and no merge rewrites more pieces than its count") {
  const Trained& t = trained();
  int disagreements = 0;
  for (std::int64_t done : {0, 256, 768, 1792, 3839}) {
    const auto [pair, count] =
        most_frequent(recount(t.tokenizer.truncated(256 + done)));
    const auto& merged = t.tokenizer.merges()[done];
    disagreements += pair != merged || count != t.steps[done].count;
    const auto name = [&](const Pair& p) {
      return shown(t.tokenizer.token(p.first)) + " + " +
             shown(t.tokenizer.token(p.second));
    };
    out() << "after " << done << " merges: recounted " << name(pair) << ", " << count
          << " times; the library merged " << name(merged) << ", count "
          << t.steps[done].count << "\n";
  }
  std::int64_t over = 0, rewritten = 0, saved = 0;
  for (const BPEStep& s : t.steps)
    over += s.pieces > s.count, rewritten += s.pieces, saved += s.count;
  out() << occurrences().size() << " distinct pieces; " << t.steps.size()
        << " merges rewrote " << rewritten << " pieces in all\nand took " << saved
        << " tokens out of the text\n";
  book::measured("pieces rewritten", static_cast<double>(rewritten), "by all merges");
  book::check("disagreements", disagreements, "of 5 recounts with the library's merge",
              book::exactly(0));
  book::check("merges over the bound", static_cast<double>(over),
              "rewriting more pieces than their count", book::exactly(0));
}

// %%
// Why does a merge shorten the text by exactly its count? Each counted occurrence is
// replaced, two tokens by one, and no two of them overlap, by the way they were
// counted. The test takes the length after every merge from the history, which the
// library measures from the rewritten pieces and not from the counts, and checks the
// identity at each of the 3,840 merges. Then it checks the lengths against something
// else again: it encodes the whole training text with the trained tokenizer, and with
// the tokenizer cut back to 512, 1,024 and 2,048 tokens
// (:cpp:func:`litgrad::BPETokenizer::truncated`), and compares the tokens it gets with
// the lengths training recorded after that many merges.

// %% fold: each definition's tokens at each vocabulary size, computed once per process
struct Compression {
  std::vector<double> training, held_out;  // tokens of each definition
};

const std::map<std::int64_t, Compression>& compression(std::uint64_t split = 0) {
  static std::map<std::uint64_t, std::map<std::int64_t, Compression>> cache;
  auto found = cache.find(split);
  if (found != cache.end()) return found->second;
  std::map<std::int64_t, Compression>& m = cache[split];
  for (std::int64_t size : kSizes) {
    const BPETokenizer t = trained(split).tokenizer.truncated(size);
    for (const book::Gloss& g : glosses(split).training)
      m[size].training.push_back(static_cast<double>(t.encode(g.definition).size()));
    for (const book::Gloss& g : glosses(split).held_out)
      m[size].held_out.push_back(static_cast<double>(t.encode(g.definition).size()));
  }
  return m;
}

// %%
// (The text encoded line by line gives the same tokens as encoded whole: a newline is
// a piece of its own, so no token crosses one.)

TEST_CASE(
    "each merge shortens the training text by exactly its pair's count, and encoding "
    "the text at 512, 1,024, 2,048 and 4,096 tokens gives exactly the lengths training "
    "recorded") {
  const Trained& t = trained();
  auto before = static_cast<std::int64_t>(training_text().size());
  int off = 0;
  for (const BPEStep& s : t.steps)
    off += before - s.length != s.count, before = s.length;
  const auto whole =
      static_cast<std::int64_t>(t.tokenizer.encode(training_text()).size());
  int lengths_off = whole != t.steps.back().length;
  for (std::int64_t size : {512, 1024, 2048}) {
    double tokens = 0;  // each definition's tokens, and its newline
    for (double n : compression().at(size).training) tokens += n + 1;
    lengths_off += std::llround(tokens) != t.steps[size - 257].length;
    out() << size << " tokens: " << std::llround(tokens) << " tokens, recorded "
          << t.steps[size - 257].length << "\n";
  }
  out() << "4096 tokens: " << whole << " tokens, recorded " << t.steps.back().length
        << "\n";
  book::check("merges off", off, "whose saving differs from their count",
              book::exactly(0));
  book::check("lengths off", lengths_off, "of the 4 encoded against recorded",
              book::exactly(0));
}

// %%
// The counts can only fall from one merge to the next. Merging a pair destroys its
// occurrences and can only shrink the counts of pairs beside it; the new pairs it
// creates hold the new token, which occurs exactly as often as the merged pair did, so
// none of them can outnumber it. (With the counting rule of section 3 this holds for
// runs too: a run of equal tokens only gets shorter.) So each merge's count is at most
// the one before. The figure shows how fast they fall.
//
// .. figure:: merge_counts
//
//    The count of the pair each merge joined, against the merge's number, on log
//    scales (the account above prints the first merges and the last). The counts fall
//    steadily, and never rise.

TEST_CASE("the counts of successive merges never increase, over all 3,840 merges") {
  const Trained& t = trained();
  int increases = 0;
  std::vector<double> number, count;
  for (std::size_t k = 0; k < t.steps.size(); ++k) {
    increases += k > 0 && t.steps[k].count > t.steps[k - 1].count;
    number.push_back(static_cast<double>(k + 1));
    count.push_back(static_cast<double>(t.steps[k].count));
  }
  out() << "the first merges:";
  for (std::size_t k = 0; k < 10; ++k)
    out() << (k % 5 ? "  " : "\n  ") << shown(t.tokenizer.token(256 + k)) << " ("
          << t.steps[k].count << ")";
  out() << "\nlast merge: " << shown(t.tokenizer.token(kVocabulary - 1)) << " ("
        << t.steps.back().count << ")\n";
  book::figure("merge_counts",
               book::line_plot("merge number", "count of its pair",
                               {book::series("merges", number, count)}, true)
                   .set("log_x", true)
                   .set("log_x_base", 10));
  book::check("increases", increases, "a merge's count above the one before",
              book::exactly(0));
}

// %%
// Section 3's first rule, that pairs are counted within pieces only, is what keeps a
// token inside one word. The library cuts text into pieces with ``pretokenize`` (a run
// of letters, of digits or of punctuation, with the space before it), so every token
// training makes, cut into pieces in its turn, should be one piece: the space of a
// word's start can only be its first byte, and no token holds the end of one word and
// the start of the next. The test cuts each of the 3,840 merged tokens.

TEST_CASE(
    "every one of the 3,840 merged tokens is a single piece of the text: no token "
    "joins the end of one word to the start of the next") {
  const Trained& t = trained();
  int across = 0;
  for (std::int64_t id = 256; id < kVocabulary; ++id) {
    const std::string& bytes = t.tokenizer.token(id);
    if (pretokenize(bytes).size() != 1) {
      if (across < 3) out() << "across pieces: " << shown(bytes) << "\n";
      ++across;
    }
  }
  book::check("tokens across pieces", across, "of the 3,840 merged tokens",
              book::exactly(0));
}

// %%
// Training to a smaller vocabulary is the same training stopped sooner: the merges
// depend on the text and on the merges before them, never on the size asked for. So
// the first 768 merges of the 4,096-token tokenizer are the whole of a 1,024-token one.
// The test trains a second tokenizer to 1,024 tokens and compares.

TEST_CASE(
    "training to 1,024 tokens makes exactly the first 768 merges of training to "
    "4,096") {
  BPETokenizer small;
  small.train(training_text(), 1024);
  const auto& big = trained().tokenizer.merges();
  int differing = small.merges().size() != 768;
  for (std::size_t k = 0; k < std::min<std::size_t>(768, small.merges().size()); ++k)
    differing += small.merges()[k] != big[k];
  book::check("differing merges", differing, "of the first 768", book::exactly(0));
}

// %% 5 · What the merges make
//
// Which pieces of the text end as a single token? The frequent ones, and we can say
// exactly which. Suppose a piece occurs :math:`f` times but is still more than one
// token when training ends. Then it holds a pair, and that pair occurs at least once in
// each of the piece's :math:`f` occurrences, so its count is at least :math:`f`. Had
// training gone on, the next merge would have taken a pair of count at least
// :math:`f`; since counts never increase, that is at most the last merge's count
// :math:`c`. So every piece that occurs more than :math:`c` times is a single token,
// whatever it is. The test finds :math:`c`, counts the pieces of the training text that
// occur more often, and encodes each one alone. It prints the most frequent pieces, and
// a few rarer words in the pieces the tokenizer cuts them into.

TEST_CASE(
    "every piece of the training text that occurs more often than the last merge's "
    "count is a single token") {
  const Trained& t = trained();
  const std::int64_t last = t.steps.back().count;
  std::vector<std::pair<std::int64_t, std::string_view>> frequent;
  for (const auto& [piece, n] : occurrences())
    if (n > last) frequent.push_back({n, piece});
  std::sort(frequent.rbegin(), frequent.rend());
  int split = 0;
  for (const auto& [n, piece] : frequent)
    split += t.tokenizer.encode(piece).size() != 1;
  out() << "the last merge's count: " << last << "\nthe most frequent pieces:";
  for (std::size_t i = 0; i < 12; ++i)
    out() << (i % 6 ? "  " : "\n  ") << shown(std::string(frequent[i].second)) << " ("
          << frequent[i].first << ")";
  out() << "\nrarer words:";
  for (const std::string w : {" photosynthesis", " lexicographer", " anything"})
    out() << " " << shown(t.tokenizer, t.tokenizer.encode(w));
  out() << "\n";
  book::measured("frequent pieces", static_cast<double>(frequent.size()),
                 "occurring more often than the last merge's count");
  book::check("split", split, "frequent pieces encoded as more than one token",
              book::exactly(0));
}

// %%
// A tokenizer must give back exactly the text it was given, or a model's writing
// could not be read. Decoding (:cpp:func:`litgrad::BPETokenizer::decode`) concatenates
// the tokens' bytes, and encoding only ever groups bytes, never changes or drops them,
// so decode(encode(text)) should be the text for every text. The test checks it on
// every definition, training and held-out, and on every word WordNet defines.

TEST_CASE(
    "decode(encode(text)) is the text, exactly, for every definition and every word of "
    "WordNet") {
  const BPETokenizer& tokenizer = trained().tokenizer;
  int lines = 0, wrong = 0;
  for (const auto* list : {&book::wordnet().training, &book::wordnet().held_out})
    for (const book::Gloss& g : *list) {
      ++lines,
          wrong += tokenizer.decode(tokenizer.encode(g.definition)) != g.definition;
      for (const std::string& w : g.words)
        ++lines, wrong += tokenizer.decode(tokenizer.encode(w)) != w;
    }
  book::measured("lines", lines, "definitions and words encoded and decoded");
  book::check("lines changed", wrong, "by the round trip", book::exactly(0));
}

// %%
// The same holds for text with characters the training text never had. Every merge
// joins tokens that occurred in the training text, so no merge involves a byte of 128
// or more: such a byte stays a token of its own (every byte has its token from the
// start, which is what makes this BPE *byte-level*), and the text still decodes
// exactly. The sentence of section 2 comes back whole, its words cut
// into known pieces and its foreign characters into bytes.

TEST_CASE(
    "text with characters the training text never had decodes exactly, each of their "
    "bytes a token of its own") {
  const BPETokenizer& tokenizer = trained().tokenizer;
  const auto ids = tokenizer.encode(kStranger);
  int merged_high = 0;  // tokens that join a byte of 128 or more to another byte
  for (std::int64_t id : ids) {
    const std::string& bytes = tokenizer.token(id);
    merged_high +=
        bytes.size() > 1 && std::any_of(bytes.begin(), bytes.end(), [](char c) {
          return static_cast<unsigned char>(c) >= 128;
        });
  }
  out() << kStranger.size() << " bytes, " << ids.size() << " tokens:\n"
        << shown(tokenizer, ids) << "\n";
  book::check("decoded right", tokenizer.decode(ids) == kStranger,
              "1 if the tokens decode to the sentence", book::exactly(1));
  book::check("merged high bytes", merged_high,
              "tokens joining a byte of 128 or more to another", book::exactly(0));
}

// %% 6 · What a larger vocabulary buys
//
// A merge takes tokens out of the text, so a larger vocabulary means fewer tokens for
// the same text. We measure it in tokens per character, on the training text and on the
// held-out text, for vocabularies of 256 (bytes alone), 512, 1,024, 2,048 and 4,096
// tokens, each the first merges of the trained tokenizer.

// %% fold: tokens per character as a ratio of sums, with its standard error
struct Ratio {
  double value = 0, standard_error = 0;
};

// Σ tokens / Σ characters over definitions, and its standard error as a ratio of means:
// sd(t_i - r c_i) / (mean c √n).
Ratio tokens_per_character(const std::vector<double>& tokens,
                           const std::vector<book::Gloss>& glosses) {
  double t = 0, c = 0;
  for (std::size_t i = 0; i < glosses.size(); ++i)
    t += tokens[i], c += static_cast<double>(glosses[i].definition.size());
  const double n = static_cast<double>(glosses.size()), r = t / c;
  double square = 0;
  for (std::size_t i = 0; i < glosses.size(); ++i) {
    const double e = tokens[i] - r * static_cast<double>(glosses[i].definition.size());
    square += e * e / (n - 1);
  }
  return {r, std::sqrt(square) / (c / n * std::sqrt(n))};
}

Ratio training_ratio(std::int64_t size, std::uint64_t split = 0) {
  return tokens_per_character(compression(split).at(size).training,
                              glosses(split).training);
}
Ratio held_out_ratio(std::int64_t size, std::uint64_t split = 0) {
  return tokens_per_character(compression(split).at(size).held_out,
                              glosses(split).held_out);
}

void draw_tokens_per_character() {
  std::vector<double> sizes, training, held_out;
  for (std::int64_t size : kSizes) {
    sizes.push_back(static_cast<double>(size));
    training.push_back(training_ratio(size).value);
    held_out.push_back(held_out_ratio(size).value);
  }
  book::figure("tokens_per_character",
               book::line_plot(
                   "tokens in the vocabulary", "tokens per character",
                   {book::series("training text", sizes, training),
                    book::series("held-out text", sizes, held_out).set("style", "--")})
                   .set("log_x", true));
}

// %%
// With bytes alone it is exactly 1, since every character is one byte (section 1).
// Each doubling adds merges, and each merge that occurs in a text shortens it; the test
// checks that each doubling gives strictly fewer tokens on both texts.
//
// .. figure:: tokens_per_character
//
//    Tokens per character against the size of the vocabulary, on the training text and
//    on the held-out text. The two curves lie on top of each other; each doubling saves
//    less than the one before.

TEST_CASE(
    "with bytes alone a text takes exactly one token per character, and each doubling "
    "of the vocabulary up to 4,096 takes strictly fewer, on training and held-out "
    "text") {
  int not_fewer = 0;
  for (std::size_t i = 0; i < kSizes.size(); ++i) {
    const double training = training_ratio(kSizes[i]).value;
    const double held_out = held_out_ratio(kSizes[i]).value;
    out() << kSizes[i] << " tokens: " << printed("%.4f", training)
          << " tokens per character in training, " << printed("%.4f", held_out)
          << " held out\n";
    if (i > 0)
      not_fewer += training >= training_ratio(kSizes[i - 1]).value ||
                   held_out >= held_out_ratio(kSizes[i - 1]).value;
  }
  draw_tokens_per_character();
  book::check("bytes alone", training_ratio(256).value, "tokens per training character",
              book::exactly(1));
  book::check("bytes alone, held out", held_out_ratio(256).value,
              "tokens per held-out character", book::exactly(1));
  book::check("doublings not fewer", not_fewer, "of the 4, on either text",
              book::exactly(0));
}

// %%
// Does the vocabulary fit its own text better than new text? If the merges captured
// nothing peculiar to the training definitions, a definition would cost the same
// tokens per character whichever side of the split it fell on, and the two ratios
// would differ only by the luck of the draw. Each ratio is a sum of tokens over a sum
// of characters of definitions drawn at random, so its standard error is that of a
// ratio of means, :math:`s = \mathrm{sd}(t_i - r c_i) / (\bar c \sqrt{n})` for
// :math:`n` definitions of :math:`t_i` tokens and :math:`c_i` characters (as in chapter
// 10), and the difference of two independent ones has standard error
// :math:`\sqrt{s_\text{train}^2 + s_\text{held}^2}`. A normal variable strays more than
// 4 standard deviations with probability :math:`6 \cdot 10^{-5}`. The claim is that the
// held-out ratio is within 4 such standard errors of the training ratio at every size
// from 512 to 4,096. Since the split is drawn at random, the claim is checked on three
// splits: the book's (seed 0) and two more, with a tokenizer trained on each.

TEST_CASE(
    "the held-out text takes as many tokens per character as the training text, to "
    "within 4 standard errors of their difference, at every size from 512 to 4,096, "
    "for three splits") {
  book::check_seeds(
      "largest gap", "|held out - training| in standard errors, over the sizes",
      book::below(4), {0, 1, 2}, [](std::uint64_t split) {
        double worst = 0;
        for (std::int64_t size : {512, 1024, 2048, 4096}) {
          const Ratio training = training_ratio(size, split),
                      held_out = held_out_ratio(size, split);
          const double se =
              std::hypot(training.standard_error, held_out.standard_error);
          const double gap = (held_out.value - training.value) / se;
          out() << "split " << split << ", " << size << " tokens: held out minus "
                << "training " << printed("%+.5f", held_out.value - training.value)
                << ", standard error " << printed("%.5f", se) << ", "
                << printed("%+.2f", gap) << " of them\n";
          worst = std::max(worst, std::fabs(gap));
        }
        return worst;
      });
}

// %%
// That is not a property of byte-pair encoding but of training on enough text. Train
// the same 4,096 tokens on every hundredth training definition alone, and the later
// merges join whatever that small text happens to repeat (the test prints its longest
// tokens). Measured the same way, such a tokenizer compresses its own text better than
// held-out text, by more than the 4 standard errors that chance allows: the same
// measurement that found nothing above sees a vocabulary fitted to its text.

TEST_CASE(
    "trained on every hundredth definition alone, the tokenizer compresses that text "
    "better than held-out text by more than 4 standard errors") {
  std::vector<book::Gloss> few;
  for (std::size_t i = 0; i < book::wordnet().training.size(); i += 100)
    few.push_back(book::wordnet().training[i]);
  BPETokenizer tokenizer;
  tokenizer.train(book::definitions_text(few), kVocabulary);
  std::vector<double> own, held;
  for (const book::Gloss& g : few)
    own.push_back(static_cast<double>(tokenizer.encode(g.definition).size()));
  for (const book::Gloss& g : book::wordnet().held_out)
    held.push_back(static_cast<double>(tokenizer.encode(g.definition).size()));
  const Ratio mine = tokens_per_character(own, few),
              other = tokens_per_character(held, book::wordnet().held_out);
  const double gap = (other.value - mine.value) /
                     std::hypot(mine.standard_error, other.standard_error);
  std::vector<std::string> longest;
  for (std::int64_t id = 256; id < tokenizer.vocab_size(); ++id)
    longest.push_back(tokenizer.token(id));
  std::stable_sort(
      longest.begin(), longest.end(),
      [](const std::string& a, const std::string& b) { return a.size() > b.size(); });
  out() << few.size() << " definitions; tokens per character: " << mine.value
        << " on them, " << other.value << " held out\nits longest tokens:";
  for (std::size_t i = 0; i < 6; ++i) out() << " " << shown(longest[i]);
  out() << "\n";
  book::check("gap", gap, "held out minus own, in standard errors", book::above(4));
}

// %%
// What does each doubling buy? The first, from bytes to 512 tokens, takes the
// commonest pairs of letters. Each later doubling adds twice as many merges as the one
// before, but of rarer pairs. On the training text the tokens a doubling saves are
// exactly the sum of its merges' counts (each merge saves its count), so the question
// is whether the counts fall faster than their number grows; the figure of section 4
// suggests they do. The test sums the counts of each doubling's merges, and measures
// the saving in tokens per character on the held-out text as well, the text a model
// would meet: each doubling saves less than the one before, on both.

TEST_CASE(
    "each doubling of the vocabulary saves fewer tokens than the doubling before, on "
    "the training text and per character of held-out text") {
  const Trained& t = trained();
  int not_less = 0;
  double previous_sum = INFINITY, previous_saved = INFINITY;
  for (std::size_t i = 1; i < kSizes.size(); ++i) {
    double sum = 0;  // the counts of the merges from kSizes[i - 1] to kSizes[i]
    for (std::int64_t k = kSizes[i - 1] - 256; k < kSizes[i] - 256; ++k)
      sum += static_cast<double>(t.steps[k].count);
    const double saved =
        held_out_ratio(kSizes[i - 1]).value - held_out_ratio(kSizes[i]).value;
    out() << kSizes[i - 1] << " to " << kSizes[i] << ": its merges' counts sum to "
          << static_cast<std::int64_t>(sum) << "; saves " << saved
          << " tokens per held-out character\n";
    not_less += sum >= previous_sum || saved >= previous_saved;
    previous_sum = sum, previous_saved = saved;
  }
  book::check("doublings saving no less", not_less, "than the one before, of 4",
              book::exactly(0));
}

// %% 7 · What it costs
//
// A model reads a token through its embedding, a table of :math:`V` rows of width
// :math:`d` (chapter 7), and writes the next one through a read-out, a linear layer
// from width :math:`d` to :math:`V` scores with a bias (chapter 10): :math:`2Vd + V`
// parameters, proportional to the vocabulary. Its other parts do not depend on
// :math:`V`. What a larger vocabulary buys is text per position: a model whose context
// holds :math:`T` tokens reads :math:`T` divided by the tokens per character, and
// reading a text takes fewer tokens, so every part of the model that works token by
// token does less work per character, by the same factor (the read-out's work per
// token, though, grows with :math:`V`).

// %% fold: counting parameters, and the trade-off drawn
constexpr std::int64_t kWidth = 128, kBlocks = 4, kWindow = 64;

std::int64_t parameters_of(const nn::Module& m) {
  std::int64_t n = 0;
  for (const Tensor& p : m.parameters()) n += p.numel();
  return n;
}

// The embedding and the read-out of a model of width 128 over `size` tokens.
std::int64_t table_parameters(std::int64_t size) {
  return parameters_of(nn::Embedding(size, kWidth)) +
         parameters_of(nn::Linear(kWidth, size));
}

// Four of chapter 9's blocks of width 128, with 4 heads and a feed-forward part of 512.
std::int64_t block_parameters() {
  nn::TransformerEncoderLayerOptions o;
  o.dim_feedforward = 4 * kWidth, o.batch_first = true, o.norm_first = true;
  return kBlocks * parameters_of(nn::TransformerEncoderLayer(kWidth, 4, o));
}

void draw_tradeoff() {
  std::vector<double> sizes, characters, tables, blocks;
  for (std::int64_t size : kSizes) {
    sizes.push_back(static_cast<double>(size));
    characters.push_back(kWindow / held_out_ratio(size).value);
    tables.push_back(static_cast<double>(table_parameters(size)));
    blocks.push_back(static_cast<double>(block_parameters()));
  }
  book::figure(
      "tradeoff",
      book::side_by_side(
          {book::line_plot("tokens in the vocabulary", "characters in 64 tokens",
                           {book::series("held-out text", sizes, characters)})
               .set("log_x", true)
               .set("title", "what it buys"),
           book::line_plot("tokens in the vocabulary", "parameters",
                           {book::series("tables", sizes, tables),
                            book::series("blocks", sizes, blocks).set("style", "k--")},
                           true)
               .set("log_x", true)
               .set("title", "what it costs")}));
}

// %%
// How do the two compare? They are factors of different things, and the claim compares
// only the factors. From 256 to 4,096 tokens the embedding and read-out grow exactly
// 16-fold. The text in a window, and the work per character saved in the parts that
// work token by token, grow by the factor by which the tokens per character fall, which
// is more than 1, since every doubling saves tokens (section 6). The claim is that it
// is less than 16: the vocabulary's cost in parameters grows faster than what it buys
// in text per window.
//
// .. figure:: tradeoff
//
//    Left: the characters of held-out text that fit in a window of 64 tokens. Right:
//    the parameters of the tables, the embedding and the read-out, at width 128,
//    against those of four blocks of that width (the next claim). The tables' cost
//    doubles with each doubling of the vocabulary, a straight line on these log
//    scales, and passes the four blocks between 2,048 and 4,096 tokens.

TEST_CASE(
    "from 256 to 4,096 tokens a 64-token window holds more held-out text, but by a "
    "factor below the 16 by which the embedding and read-out grow") {
  const double grows = held_out_ratio(256).value / held_out_ratio(4096).value;
  const double costs =
      static_cast<double>(table_parameters(4096)) / table_parameters(256);
  for (std::int64_t size : kSizes)
    out() << size
          << " tokens: " << printed("%.1f", kWindow / held_out_ratio(size).value)
          << " characters in " << kWindow << " tokens; embedding and read-out "
          << table_parameters(size) << " parameters\n";
  draw_tradeoff();
  book::check("tables grow", costs, "times, 256 to 4,096", book::exactly(16));
  book::check("window grows", grows, "times, 256 to 4,096", book::between(1, 16));
}

// %%
// Against the rest of a model the cost is large. Take a model of width 128 with four
// of chapter 9's blocks (4 heads, a feed-forward part of width 512), and count the
// parameters of its embedding, read-out and blocks (leaving out a position table and a
// last norm, which are small). The blocks hold most of them when the vocabulary is
// bytes, and still at 2,048 tokens; at 4,096 tokens the embedding and read-out do: a
// small model with a large vocabulary spends most of its parameters on reading and
// writing tokens, not on the blocks that relate them.

TEST_CASE(
    "for a model of width 128 with four blocks, the embedding and read-out are under "
    "half of its parameters with 256 or 2,048 tokens and over half with 4,096") {
  const double blocks = static_cast<double>(block_parameters());
  const auto share = [&](std::int64_t size) {
    const double tables = static_cast<double>(table_parameters(size));
    return tables / (tables + blocks);
  };
  out() << "four blocks: " << block_parameters()
        << " parameters\nembedding and read-out: " << table_parameters(256)
        << " at 256 tokens, " << table_parameters(2048) << " at 2,048, "
        << table_parameters(4096) << " at 4,096\n";
  const std::string of = "of the embedding's, read-out's and blocks' parameters";
  book::check("share at 256", share(256), of, book::below(0.5));
  book::check("share at 2,048", share(2048), of, book::below(0.5));
  book::check("share at 4,096", share(4096), of, book::above(0.5));
}

// %% 8 · Keeping it
//
// A model is trained on the ids one tokenizer gives, so whatever reads its text later
// must get exactly the same merges: chapter 12 keeps its own tokenizer this way.
// :cpp:func:`litgrad::BPETokenizer::save` writes them to a small text file, one merge a
// line, and :cpp:func:`litgrad::BPETokenizer::load` reads them back strictly: a file
// cut short or corrupt is refused with an error, and the tokenizer left as it was (the
// library's tests check both). The test saves the trained tokenizer, loads it into a
// fresh one and encodes every held-out definition with both.

TEST_CASE(
    "a tokenizer saved and loaded encodes every held-out definition to the same ids") {
  const BPETokenizer& tokenizer = trained().tokenizer;
  const std::string path = (std::filesystem::temp_directory_path() /
                            ("litgrad-11-" + std::to_string(getpid()) + ".bpe"))
                               .string();
  tokenizer.save(path);
  BPETokenizer loaded;
  loaded.load(path);
  const auto bytes = std::filesystem::file_size(path);
  std::filesystem::remove(path);
  int differing = 0;
  for (const book::Gloss& g : book::wordnet().held_out)
    differing += loaded.encode(g.definition) != tokenizer.encode(g.definition);
  book::measured("file size", static_cast<double>(bytes), "bytes, for 3,840 merges");
  book::check("differing definitions", differing, "of the held-out ones",
              book::exactly(0));
}

// %% fold: the end of the file's namespace
}  // namespace
