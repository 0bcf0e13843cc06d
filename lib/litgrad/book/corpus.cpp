// book::read_wordnet: WordNet's synsets from Debian's wordnet-base, cleaned and split.

#include "litgrad/book/corpus.hpp"

#include <cmath>
#include <fstream>
#include <sstream>
#include <stdexcept>
#include <unordered_map>

#include "litgrad/base/error.hpp"
#include "litgrad/core/random.hpp"
#include "litgrad/core/tensor.hpp"

namespace litgrad::book {

namespace {

// Removes trailing characters found in `junk`.
std::string trimmed_right(std::string s, const char* junk) {
  const std::size_t end = s.find_last_not_of(junk);
  s.erase(end == std::string::npos ? 0 : end + 1);
  return s;
}

// "dress_uniform" -> "dress uniform"; "asleep(p)" -> "asleep".
std::string clean_word(std::string w) {
  for (const char* marker : {"(a)", "(p)", "(ip)"}) {
    const std::string m = marker;
    if (w.size() > m.size() && w.compare(w.size() - m.size(), m.size(), m) == 0) w.erase(w.size() - m.size());
  }
  for (char& c : w)
    if (c == '_') c = ' ';
  return w;
}

// One line of a data file: "offset lex_filenum ss_type w_cnt word lex_id ... | gloss".
Gloss parse_line(const std::string& line, const std::string& where) {
  const std::size_t bar = line.find(" | ");
  if (bar == std::string::npos) throw std::runtime_error(where + ": no ' | ' before the gloss");
  std::istringstream fields(line.substr(0, bar));
  std::string offset, lexicographer_file, type, count;
  fields >> offset >> lexicographer_file >> type >> count;
  if (!fields || type.size() != 1 || std::string("nvasr").find(type[0]) == std::string::npos)
    throw std::runtime_error(where + ": the synset's fields are malformed");
  std::size_t words = 0;
  try {
    words = std::stoul(count, nullptr, 16);
  } catch (const std::exception&) {
    throw std::runtime_error(where + ": the word count '" + count + "' is not hexadecimal");
  }
  Gloss g;
  g.part_of_speech = type[0] == 's' ? 'a' : type[0];
  for (std::size_t i = 0; i < words; ++i) {
    std::string word, lexical_id;
    if (!(fields >> word >> lexical_id)) throw std::runtime_error(where + ": fewer words than its count " + count);
    g.words.push_back(clean_word(word));
  }
  if (g.words.empty()) throw std::runtime_error(where + ": a synset without words");
  const std::string gloss = trimmed_right(line.substr(bar + 3), " \r\n");
  const std::size_t examples = gloss.find("; \"");
  g.definition = trimmed_right(gloss.substr(0, examples), " ;");
  if (g.definition.empty()) throw std::runtime_error(where + ": an empty definition");
  if (examples != std::string::npos) {
    // Every quoted stretch after the definition is an example.
    std::size_t at = examples + 2;
    while (true) {
      const std::size_t open = gloss.find('"', at);
      if (open == std::string::npos) break;
      const std::size_t close = gloss.find('"', open + 1);
      if (close == std::string::npos) break;
      if (close > open + 1) g.examples.push_back(gloss.substr(open + 1, close - open - 1));
      at = close + 1;
    }
  }
  return g;
}

}  // namespace

Glosses read_wordnet(const std::string& directory, double held_out_share, std::uint64_t seed) {
  if (!(held_out_share >= 0 && held_out_share <= 1))
    throw ValueError("read_wordnet: held_out_share must be in [0, 1], got ", held_out_share);
  std::vector<Gloss> all;
  for (const char* part : {"noun", "verb", "adj", "adv"}) {
    const std::string path = directory + "/data." + part;
    std::ifstream file(path);
    if (!file)
      throw std::runtime_error("read_wordnet: " + path +
                               " is missing: install Debian's wordnet-base with `tools/install-deps build` (or "
                               "`sudo apt-get install wordnet-base`)");
    std::string line;
    for (std::size_t number = 1; std::getline(file, line); ++number) {
      if (line.rfind("  ", 0) == 0) continue;  // the licence, at the top of each file
      all.push_back(parse_line(line, path + ":" + std::to_string(number)));
    }
  }
  // The distinct definitions in order of first appearance; a share of them, by a fixed shuffle.
  std::unordered_map<std::string, std::int64_t> index;
  std::vector<std::int64_t> definition_of(all.size());
  for (std::size_t i = 0; i < all.size(); ++i)
    definition_of[i] = index.emplace(all[i].definition, static_cast<std::int64_t>(index.size())).first->second;
  const auto distinct = static_cast<std::int64_t>(index.size());
  std::vector<bool> held(static_cast<std::size_t>(distinct), false);
  Generator gen(seed);
  const Tensor order = randperm(distinct, gen);
  const auto n_held = static_cast<std::int64_t>(std::llround(held_out_share * static_cast<double>(distinct)));
  for (std::int64_t k = 0; k < n_held; ++k) held[static_cast<std::size_t>(std::llround(order.at({k})))] = true;
  Glosses split;
  for (std::size_t i = 0; i < all.size(); ++i)
    (held[static_cast<std::size_t>(definition_of[i])] ? split.held_out : split.training).push_back(std::move(all[i]));
  return split;
}

const Glosses& wordnet() {
  static const Glosses glosses = read_wordnet();
  return glosses;
}

std::vector<std::pair<std::string, std::string>> word_definition_pairs(const std::vector<Gloss>& glosses) {
  std::vector<std::pair<std::string, std::string>> pairs;
  for (const Gloss& g : glosses)
    for (const std::string& w : g.words) pairs.emplace_back(w, g.definition);
  return pairs;
}

std::string definitions_text(const std::vector<Gloss>& glosses) {
  std::string text;
  for (const Gloss& g : glosses) text += g.definition + "\n";
  return text;
}

}  // namespace litgrad::book
