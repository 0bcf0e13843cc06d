// Byte-level byte-pair encoding: pretokenize, train with incremental pair counts, encode by
// replaying the merges, decode by concatenating bytes, and the file format.

#include "litgrad/text/bpe.hpp"

#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <limits>
#include <mutex>
#include <queue>
#include <sstream>

#include "litgrad/base/checksum.hpp"
#include "litgrad/base/error.hpp"

namespace litgrad {

namespace {

constexpr const char* kMagic = "litgrad bpe";
constexpr int kVersion = 2;  // 2 ends with a checksum line; 1, without, is still read

enum class Class { Letter, Digit, Space, Other };

Class class_of(unsigned char c) {
  if ((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c >= 128) return Class::Letter;
  if (c >= '0' && c <= '9') return Class::Digit;
  if (c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\v' || c == '\f') return Class::Space;
  return Class::Other;
}

std::uint64_t key(std::int64_t left, std::int64_t right) {
  return static_cast<std::uint64_t>(left) << 32 | static_cast<std::uint64_t>(right);
}
std::int32_t left_of(std::uint64_t k) { return static_cast<std::int32_t>(k >> 32); }
std::int32_t right_of(std::uint64_t k) { return static_cast<std::int32_t>(k & 0xffffffffu); }

// Calls f(pair key) for each pair of adjacent symbols that a left-to-right replacement of that
// pair would replace: of two overlapping occurrences of one pair (a run `a a a`), the second is
// skipped, so a run of n equal symbols gives n / 2 (rounded down) pairs of them.
template <class F>
void for_each_pair(const std::vector<std::int32_t>& s, F&& f) {
  bool previous_counted = false;
  for (std::size_t i = 0; i + 1 < s.size(); ++i) {
    const bool overlaps = previous_counted && s[i - 1] == s[i] && s[i] == s[i + 1];
    if (overlaps) {
      previous_counted = false;
      continue;
    }
    f(key(s[i], s[i + 1]));
    previous_counted = true;
  }
}

// Replaces every occurrence of (left, right) in s, left to right, by `merged`; returns whether
// any was replaced.
bool replace(std::vector<std::int32_t>& s, std::int32_t left, std::int32_t right, std::int32_t merged) {
  std::size_t out = 0;
  bool any = false;
  for (std::size_t i = 0; i < s.size(); ++i) {
    if (i + 1 < s.size() && s[i] == left && s[i + 1] == right) {
      s[out++] = merged;
      ++i;
      any = true;
    } else {
      s[out++] = s[i];
    }
  }
  s.resize(out);
  return any;
}

// A candidate merge in the queue: the most frequent pair first, then the smaller left id, then
// the smaller right id. An entry is stale when the pair's count has changed since it was pushed.
struct Candidate {
  std::int64_t count;
  std::uint64_t pair;
  bool operator<(const Candidate& other) const {  // "comes later than"
    if (count != other.count) return count < other.count;
    return pair > other.pair;  // (left, right) compare as the key does
  }
};

std::string id_range_message(const char* op, std::int64_t id, std::int64_t vocab) {
  return detail::message(op, ": id ", id, " is out of range for a vocabulary of ", vocab, " tokens");
}

}  // namespace

std::vector<std::string_view> pretokenize(std::string_view text) {
  std::vector<std::string_view> pieces;
  const std::size_t n = text.size();
  const auto class_at = [&](std::size_t i) { return class_of(static_cast<unsigned char>(text[i])); };
  std::size_t i = 0;
  while (i < n) {
    std::size_t start = i;
    if (class_at(i) == Class::Space) {
      std::size_t end = i;
      while (end < n && class_at(end) == Class::Space) ++end;
      // A space right before a run belongs to the run; the rest of the whitespace is a piece.
      const bool gives_space = end < n && text[end - 1] == ' ';
      const std::size_t own = gives_space ? end - 1 : end;
      if (own > start) pieces.push_back(text.substr(start, own - start));
      if (!gives_space) {
        i = end;
        continue;
      }
      start = own;
      i = end;  // the run starts after the space
    }
    const Class run = class_at(i);
    while (i < n && class_at(i) == run) ++i;
    pieces.push_back(text.substr(start, i - start));
  }
  return pieces;
}

struct BPETokenizer::Memo {
  static constexpr std::size_t kCapacity = std::size_t{1} << 18;
  std::mutex lock;
  std::unordered_map<std::string, std::vector<std::int32_t>> ids;
};

BPETokenizer::BPETokenizer() { set_merges({}); }

void BPETokenizer::set_merges(std::vector<std::pair<std::int64_t, std::int64_t>> merges) {
  std::vector<std::string> tokens(256);
  for (int b = 0; b < 256; ++b) tokens[b] = std::string(1, static_cast<char>(b));
  std::unordered_map<std::uint64_t, std::int32_t> rank;
  rank.reserve(merges.size());
  for (std::size_t k = 0; k < merges.size(); ++k) {
    tokens.push_back(tokens[merges[k].first] + tokens[merges[k].second]);
    rank.emplace(key(merges[k].first, merges[k].second), static_cast<std::int32_t>(k));
  }
  merges_ = std::move(merges);
  tokens_ = std::move(tokens);
  rank_ = std::move(rank);
  memo_ = std::make_shared<Memo>();
}

void BPETokenizer::train(std::string_view text, std::int64_t vocab_size, std::vector<BPEStep>* history) {
  if (vocab_size < 256)
    throw ValueError("BPETokenizer::train: vocab_size ", vocab_size, " is below 256, the number of byte tokens");
  if (vocab_size > std::numeric_limits<std::int32_t>::max())
    throw ValueError("BPETokenizer::train: vocab_size ", vocab_size, " is above 2^31 - 1");
  // Each distinct piece once, with how often it occurs. Sorted, so that the work is done in the
  // same order on every machine (the result does not depend on it).
  std::unordered_map<std::string_view, std::int64_t> occurrences;
  for (std::string_view piece : pretokenize(text)) ++occurrences[piece];
  std::vector<std::pair<std::string_view, std::int64_t>> distinct(occurrences.begin(), occurrences.end());
  std::sort(distinct.begin(), distinct.end());
  struct Word {
    std::vector<std::int32_t> symbols;
    std::int64_t count;
  };
  std::vector<Word> words;
  words.reserve(distinct.size());
  std::int64_t length = 0;
  for (const auto& [piece, count] : distinct) {
    Word w{std::vector<std::int32_t>(piece.size()), count};
    for (std::size_t i = 0; i < piece.size(); ++i) w.symbols[i] = static_cast<unsigned char>(piece[i]);
    length += count * static_cast<std::int64_t>(piece.size());
    words.push_back(std::move(w));
  }
  // The count of every pair, and the words each pair occurs in (an entry may be out of date: the
  // word is checked when it is visited).
  std::unordered_map<std::uint64_t, std::int64_t> counts;
  std::unordered_map<std::uint64_t, std::vector<std::int32_t>> where;
  for (std::size_t w = 0; w < words.size(); ++w)
    for_each_pair(words[w].symbols, [&](std::uint64_t p) {
      counts[p] += words[w].count;
      auto& list = where[p];
      if (list.empty() || list.back() != static_cast<std::int32_t>(w)) list.push_back(static_cast<std::int32_t>(w));
    });
  std::priority_queue<Candidate> queue;
  for (const auto& [p, c] : counts) queue.push({c, p});

  std::vector<std::pair<std::int64_t, std::int64_t>> merges;
  std::vector<BPEStep> steps;
  std::vector<std::int64_t> visited(words.size(), -1);  // the merge that last visited each word
  std::unordered_map<std::uint64_t, std::int64_t> change;
  while (256 + static_cast<std::int64_t>(merges.size()) < vocab_size) {
    // The most frequent pair, skipping entries whose count has changed since they were pushed.
    while (!queue.empty()) {
      const Candidate top = queue.top();
      const auto found = counts.find(top.pair);
      if (found != counts.end() && found->second == top.count && top.count > 0) break;
      queue.pop();
    }
    if (queue.empty()) break;  // no pair left: the vocabulary cannot grow
    const Candidate best = queue.top();
    queue.pop();
    const std::int32_t left = left_of(best.pair), right = right_of(best.pair);
    const auto merged = static_cast<std::int32_t>(256 + merges.size());
    const auto k = static_cast<std::int64_t>(merges.size());
    merges.emplace_back(left, right);
    // Rewrite each word holding the pair: its old pairs' counts go, its new pairs' come.
    change.clear();
    std::int64_t shortened = 0, rewritten = 0;
    const std::vector<std::int32_t> holding = std::move(where[best.pair]);
    where.erase(best.pair);
    for (std::int32_t w : holding) {
      if (visited[w] == k) continue;
      visited[w] = k;
      Word& word = words[w];
      std::vector<std::int32_t> symbols = word.symbols;
      if (!replace(symbols, left, right, merged)) continue;
      for_each_pair(word.symbols, [&](std::uint64_t p) { change[p] -= word.count; });
      for_each_pair(symbols, [&](std::uint64_t p) {
        change[p] += word.count;
        if (left_of(p) == merged || right_of(p) == merged) {
          auto& list = where[p];
          if (list.empty() || list.back() != w) list.push_back(w);
        }
      });
      shortened += word.count * static_cast<std::int64_t>(word.symbols.size() - symbols.size());
      ++rewritten;
      word.symbols = std::move(symbols);
    }
    for (const auto& [p, d] : change) {
      if (d == 0) continue;
      std::int64_t& c = counts[p];
      c += d;
      if (c > 0)
        queue.push({c, p});
      else
        counts.erase(p);
    }
    length -= shortened;
    steps.push_back({best.count, length, rewritten});
  }
  set_merges(std::move(merges));
  if (history) *history = std::move(steps);
}

// One piece: its bytes, then the merges in the order learned, the earliest-learned pair
// present first, each replacing every occurrence of its pair, left to right.
void BPETokenizer::encode_piece(std::string_view piece, std::vector<std::int32_t>& s) const {
  s.assign(piece.size(), 0);
  for (std::size_t i = 0; i < piece.size(); ++i) s[i] = static_cast<unsigned char>(piece[i]);
  while (s.size() > 1) {
    std::int32_t first = std::numeric_limits<std::int32_t>::max();
    for (std::size_t i = 0; i + 1 < s.size(); ++i) {
      const auto found = rank_.find(key(s[i], s[i + 1]));
      if (found != rank_.end()) first = std::min(first, found->second);
    }
    if (first == std::numeric_limits<std::int32_t>::max()) break;
    replace(s, static_cast<std::int32_t>(merges_[first].first), static_cast<std::int32_t>(merges_[first].second),
            256 + first);
  }
}

std::vector<std::int64_t> BPETokenizer::encode(std::string_view text) const {
  std::vector<std::int64_t> ids;
  ids.reserve(text.size() / 2);
  std::vector<std::int32_t> s;
  const std::lock_guard<std::mutex> hold(memo_->lock);
  auto& memo = memo_->ids;
  for (std::string_view piece : pretokenize(text)) {
    std::string key_of_piece(piece);
    const auto found = memo.find(key_of_piece);
    if (found != memo.end()) {
      ids.insert(ids.end(), found->second.begin(), found->second.end());
      continue;
    }
    encode_piece(piece, s);
    ids.insert(ids.end(), s.begin(), s.end());
    if (memo.size() >= Memo::kCapacity) memo.clear();
    memo.emplace(std::move(key_of_piece), s);
  }
  return ids;
}

const std::string& BPETokenizer::token(std::int64_t id) const {
  if (id < 0 || id >= vocab_size()) throw IndexError(id_range_message("BPETokenizer::token", id, vocab_size()));
  return tokens_[static_cast<std::size_t>(id)];
}

std::string BPETokenizer::decode(const std::vector<std::int64_t>& ids) const {
  std::string text;
  for (std::size_t i = 0; i < ids.size(); ++i) {
    if (ids[i] < 0 || ids[i] >= vocab_size())
      throw IndexError(id_range_message("BPETokenizer::decode", ids[i], vocab_size()), " (at position ", i, ")");
    text += tokens_[static_cast<std::size_t>(ids[i])];
  }
  return text;
}

std::string BPETokenizer::decode(const Tensor& ids) const {
  if (ids.dtype() != DType::Int64)
    throw ValueError("BPETokenizer::decode: ids must be an Int64 tensor, got ", ids.dtype(), " of shape ", ids.shape());
  if (ids.dim() != 1) throw ShapeError("BPETokenizer::decode: ids must be 1-D, got shape ", ids.shape());
  std::vector<std::int64_t> list(static_cast<std::size_t>(ids.numel()));
  for (std::int64_t i = 0; i < ids.numel(); ++i)
    list[static_cast<std::size_t>(i)] = static_cast<std::int64_t>(ids.at({i}));
  return decode(list);
}

BPETokenizer BPETokenizer::truncated(std::int64_t vocab_size) const {
  if (vocab_size < 256 || vocab_size > this->vocab_size())
    throw ValueError("BPETokenizer::truncated: vocab_size ", vocab_size, " is outside [256, ", this->vocab_size(),
                     "], the sizes this tokenizer's merges give");
  BPETokenizer t;
  t.set_merges({merges_.begin(), merges_.begin() + (vocab_size - 256)});
  return t;
}

void BPETokenizer::save(const std::string& path) const {
  const std::string temporary =
      path + ".tmp." + std::to_string(std::hash<std::string>{}(path) ^ reinterpret_cast<std::uintptr_t>(this));
  {
    std::ofstream f(temporary, std::ios::binary);
    if (!f) throw ValueError("BPETokenizer::save: cannot write ", path);
    std::string text =
        std::string(kMagic) + " " + std::to_string(kVersion) + "\n" + "merges " + std::to_string(merges_.size()) + "\n";
    for (const auto& [left, right] : merges_) text += std::to_string(left) + " " + std::to_string(right) + "\n";
    f << text << "checksum " << detail::hex16(detail::fnv1a(text)) << "\nend\n";
    f.flush();
    if (!f) throw ValueError("BPETokenizer::save: cannot write ", path);
  }
  std::error_code error;
  std::filesystem::rename(temporary, path, error);
  if (error) {
    std::filesystem::remove(temporary);
    throw ValueError("BPETokenizer::save: cannot move the written file to ", path, ": ", error.message());
  }
}

void BPETokenizer::load(const std::string& path) {
  std::ifstream file(path, std::ios::binary);
  if (!file) throw ValueError("BPETokenizer::load: cannot read ", path);
  const std::string where = "BPETokenizer::load: " + path;
  std::stringstream whole;
  whole << file.rdbuf();
  const std::string contents = whole.str();
  std::istringstream f(contents);
  std::string line;
  const std::string magic = std::string(kMagic) + " ";
  if (!std::getline(f, line) || line.rfind(magic, 0) != 0)
    throw ValueError(where, " is not a litgrad bpe file (its first line should be '", kMagic, " ", kVersion, "')");
  const bool checksummed = line == magic + "2";
  if (!checksummed && line != magic + "1")
    throw ValueError(where, " has format version '", line.substr(magic.size()), "'; this litgrad reads versions 1 and ",
                     kVersion);
  // A number is digits only, so that "12x" or "-3" or "1e3" is refused rather than half read.
  const auto number = [](const std::string& s, std::int64_t& out) {
    if (s.empty() || s.size() > 10 || s.find_first_not_of("0123456789") != std::string::npos) return false;
    out = std::stoll(s);
    return true;
  };
  std::int64_t count = -1;
  {
    if (!std::getline(f, line)) throw ValueError(where, " is truncated: it ends after its first line");
    std::istringstream second(line);
    std::string word, n, extra;
    second >> word >> n;
    if (word != "merges" || !number(n, count) || (second >> extra) ||
        count > std::numeric_limits<std::int32_t>::max() - 256)
      throw ValueError(where, ": the second line should be 'merges N', got '", line, "'");
  }
  std::vector<std::pair<std::int64_t, std::int64_t>> merges;
  std::unordered_map<std::uint64_t, std::int64_t> seen;
  for (std::int64_t k = 0; k < count; ++k) {
    if (!std::getline(f, line))
      throw ValueError(where, " is truncated: it ends after ", k, " of its ", count, " merges");
    std::istringstream in(line);
    std::string a, b, extra;
    std::int64_t left = -1, right = -1;
    in >> a >> b;
    if (!number(a, left) || !number(b, right) || (in >> extra))
      throw ValueError(where, ": merge ", k, " should be two ids, got '", line, "'");
    const std::int64_t known = 256 + k;  // the ids that exist before merge k
    if (left >= known || right >= known)
      throw ValueError(where, ": merge ", k, " (", left, " ", right,
                       ") names an id that does not exist before it; ids then are 0 to ", known - 1);
    const auto [it, fresh] = seen.emplace(key(left, right), k);
    if (!fresh) throw ValueError(where, ": merge ", k, " (", left, " ", right, ") repeats merge ", it->second);
    merges.emplace_back(left, right);
  }
  if (checksummed) {
    const std::string computed =
        detail::hex16(detail::fnv1a(std::string_view(contents).substr(0, static_cast<std::size_t>(f.tellg()))));
    if (!std::getline(f, line)) throw ValueError(where, " is truncated: it ends before its checksum line");
    if (line.rfind("checksum ", 0) != 0)
      throw ValueError(where, ": after ", count,
                       " merges the line should be 'checksum' and 16 hexadecimal digits, got '", line, "'");
    if (line.substr(9) != computed)
      throw ValueError(where, ": the checksum is '", line.substr(9), "', the file's merges hash to ", computed,
                       ": the file was changed or damaged");
  }
  if (!std::getline(f, line)) throw ValueError(where, " is truncated: it does not end with the line 'end'");
  if (line != "end") throw ValueError(where, ": after ", count, " merges the line should be 'end', got '", line, "'");
  std::string rest;
  if (std::getline(f, rest) || !f.eof()) throw ValueError(where, ": there is more after the line 'end'");
  set_merges(std::move(merges));
}

}  // namespace litgrad
