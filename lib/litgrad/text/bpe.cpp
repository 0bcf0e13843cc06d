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
// 2 ends with a checksum line; 1, without, is still read; 3 adds the special tokens.
constexpr int kVersion = 2, kVersionWithSpecial = 3;

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

std::string hex_of(const std::string& bytes) {
  static const char* digits = "0123456789abcdef";
  std::string out;
  for (unsigned char c : bytes) out += {digits[c >> 4], digits[c & 15]};
  return out;
}

// The bytes that hex_of wrote, or false for anything else (odd length, other characters).
bool bytes_of(const std::string& hex, std::string& out) {
  if (hex.size() % 2 != 0 || hex.find_first_not_of("0123456789abcdef") != std::string::npos) return false;
  out.clear();
  for (std::size_t i = 0; i < hex.size(); i += 2) out += static_cast<char>(std::stoi(hex.substr(i, 2), nullptr, 16));
  return true;
}

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
  tokens.insert(tokens.end(), special_.begin(), special_.end());  // their ids follow the merges
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
  if (!special_.empty())
    throw ValueError("BPETokenizer::train: the tokenizer has ", special_.size(),
                     " special tokens, whose ids would move; train first, then add the special tokens");
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

void BPETokenizer::encode_ordinary(std::string_view text, std::vector<std::int64_t>& ids) const {
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
}

std::vector<std::int64_t> BPETokenizer::encode_ordinary(std::string_view text) const {
  std::vector<std::int64_t> ids;
  ids.reserve(text.size() / 2);
  encode_ordinary(text, ids);
  return ids;
}

std::vector<std::int64_t> BPETokenizer::encode(std::string_view text) const { return encode(text, {}); }

std::vector<std::int64_t> BPETokenizer::encode(std::string_view text,
                                               const std::vector<std::string>& allowed_special) const {
  std::vector<bool> allowed(special_.size(), false);
  for (const std::string& a : allowed_special) allowed[special_index(a, "BPETokenizer::encode")] = true;
  // A special token not allowed is refused wherever it appears, as tiktoken's default does.
  for (std::size_t k = 0; k < special_.size(); ++k) {
    const std::size_t at = allowed[k] ? std::string_view::npos : text.find(special_[k]);
    if (at != std::string_view::npos)
      throw ValueError("BPETokenizer::encode: the text holds the special token '", special_[k], "' at byte ", at,
                       ", which the call does not allow; list it in allowed_special to encode it as its id ",
                       first_special() + static_cast<std::int64_t>(k), ", or use encode_ordinary to encode it as text");
  }
  std::vector<std::int64_t> ids;
  ids.reserve(text.size() / 2);
  // next[k]: where special token k next occurs at or after `start` (npos: nowhere), found once
  // per occurrence, so the search costs one pass over the text per allowed token.
  std::vector<std::size_t> next(special_.size(), std::string_view::npos);
  for (std::size_t k = 0; k < special_.size(); ++k)
    if (allowed[k]) next[k] = text.find(special_[k]);
  std::size_t start = 0;
  while (true) {
    std::size_t at = std::string_view::npos, which = 0;
    for (std::size_t k = 0; k < special_.size(); ++k) {
      if (next[k] == std::string_view::npos) continue;  // not allowed, or not again
      if (next[k] < start) next[k] = text.find(special_[k], start);
      const bool longer = special_[k].size() > special_[which].size();
      if (next[k] < at || (next[k] == at && longer)) at = next[k], which = k;
    }
    if (at == std::string_view::npos) break;
    encode_ordinary(text.substr(start, at - start), ids);
    ids.push_back(first_special() + static_cast<std::int64_t>(which));
    start = at + special_[which].size();
  }
  encode_ordinary(text.substr(start), ids);
  return ids;
}

std::int64_t BPETokenizer::add_special_token(const std::string& text) {
  if (text.empty()) throw ValueError("BPETokenizer::add_special_token: a special token cannot be empty");
  if (std::find(special_.begin(), special_.end(), text) != special_.end())
    throw ValueError("BPETokenizer::add_special_token: '", text, "' is already the special token ",
                     special_token_id(text));
  if (vocab_size() >= std::numeric_limits<std::int32_t>::max())
    throw ValueError("BPETokenizer::add_special_token: the vocabulary already has 2^31 - 1 tokens");
  special_.push_back(text);
  tokens_.push_back(text);
  return vocab_size() - 1;
}

std::size_t BPETokenizer::special_index(std::string_view text, const char* op) const {
  const auto found = std::find(special_.begin(), special_.end(), text);
  if (found == special_.end()) {
    std::string known;
    for (const std::string& s : special_) known += (known.empty() ? "'" : ", '") + s + "'";
    throw ValueError(op, ": '", text, "' is not a special token of this tokenizer (",
                     special_.empty() ? std::string("it has none") : "it has " + known, ")");
  }
  return static_cast<std::size_t>(found - special_.begin());
}

std::int64_t BPETokenizer::special_token_id(std::string_view text) const {
  return first_special() + static_cast<std::int64_t>(special_index(text, "BPETokenizer::special_token_id"));
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
  if (!special_.empty())
    throw ValueError("BPETokenizer::truncated: the tokenizer has ", special_.size(),
                     " special tokens, whose ids would move; truncate first, then add the special tokens");
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
    const int version = special_.empty() ? kVersion : kVersionWithSpecial;
    std::string text =
        std::string(kMagic) + " " + std::to_string(version) + "\n" + "merges " + std::to_string(merges_.size()) + "\n";
    for (const auto& [left, right] : merges_) text += std::to_string(left) + " " + std::to_string(right) + "\n";
    if (!special_.empty()) {
      text += "special " + std::to_string(special_.size()) + "\n";
      for (const std::string& token : special_) text += hex_of(token) + "\n";
    }
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
  const bool with_special = line == magic + std::to_string(kVersionWithSpecial);
  const bool checksummed = with_special || line == magic + std::to_string(kVersion);
  if (!checksummed && line != magic + "1")
    throw ValueError(where, " has format version '", line.substr(magic.size()), "'; this litgrad reads versions 1 to ",
                     kVersionWithSpecial);
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
  std::vector<std::string> special;
  if (with_special) {
    std::int64_t n = -1;
    if (!std::getline(f, line)) throw ValueError(where, " is truncated: it ends before its special tokens");
    std::istringstream in(line);
    std::string word, digits, extra;
    in >> word >> digits;
    if (word != "special" || !number(digits, n) || (in >> extra) || n == 0 ||
        n > std::numeric_limits<std::int32_t>::max() - 256 - count)
      throw ValueError(where, ": after ", count, " merges the line should be 'special N' with N at least 1, got '",
                       line, "'");
    for (std::int64_t k = 0; k < n; ++k) {
      if (!std::getline(f, line))
        throw ValueError(where, " is truncated: it ends after ", k, " of its ", n, " special tokens");
      std::string token;
      if (!bytes_of(line, token) || token.empty())
        throw ValueError(where, ": special token ", k, " should be its bytes in lowercase hexadecimal, got '", line,
                         "'");
      if (std::find(special.begin(), special.end(), token) != special.end())
        throw ValueError(where, ": special token ", k, " ('", token, "') repeats an earlier one");
      special.push_back(std::move(token));
    }
  }
  if (checksummed) {
    const std::string computed =
        detail::hex16(detail::fnv1a(std::string_view(contents).substr(0, static_cast<std::size_t>(f.tellg()))));
    if (!std::getline(f, line)) throw ValueError(where, " is truncated: it ends before its checksum line");
    if (line.rfind("checksum ", 0) != 0)
      throw ValueError(
          where, ": after ",
          with_special ? std::to_string(special.size()) + " special tokens" : std::to_string(count) + " merges",
          " the line should be 'checksum' and 16 hexadecimal digits, got '", line, "'");
    if (line.substr(9) != computed)
      throw ValueError(where, ": the checksum is '", line.substr(9), "', the file's merges hash to ", computed,
                       ": the file was changed or damaged");
  }
  if (!std::getline(f, line)) throw ValueError(where, " is truncated: it does not end with the line 'end'");
  if (line != "end")
    throw ValueError(where, ": after ", checksummed ? std::string("the checksum") : std::to_string(count) + " merges",
                     " the line should be 'end', got '", line, "'");
  std::string rest;
  if (std::getline(f, rest) || !f.eof()) throw ValueError(where, ": there is more after the line 'end'");
  special_ = std::move(special);
  set_merges(std::move(merges));
}

}  // namespace litgrad
