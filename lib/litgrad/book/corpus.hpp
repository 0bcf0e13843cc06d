#pragma once
/// \file book/corpus.hpp
/// \brief The book's running text: WordNet's definitions, from Debian's `wordnet-base`, each
/// with the words it defines, split into training and held-out definitions.
///
/// WordNet groups English words into *synsets*, sets of words that share one meaning, and
/// gives each synset a *gloss*: a definition, often followed by quoted examples of use. In
/// `/usr/share/wordnet/data.{noun,verb,adj,adv}` each synset is one line whose fields name its
/// words and whose text after `| ` is the gloss. read_wordnet() reads every synset and cleans
/// it as follows, so that a definition is plain running text:
///
/// - **Words.** WordNet joins the words of a phrase with `_` (`dress_uniform`); they become
///   spaces. The markers some adjectives carry (`(a)`, `(p)`, `(ip)`: where the adjective may
///   stand) are dropped. Capitals are kept (`Bernoulli`).
/// - **Definition.** The gloss up to its first quoted example (the first `; "`), with trailing
///   spaces and semicolons removed. A few dozen glosses quote an example after a colon inside
///   the definition; they are kept as written.
/// - **Examples.** The quoted examples after the definition, without their quotes.
///
/// **The split** is by definition, not by word: the distinct definition texts are shuffled
/// with litgrad's Generator and a fixed seed, and a share of them is held out, together with
/// every synset that has one of them. So no held-out definition appears, even word for word
/// under another synset, in the training definitions, while a word with several meanings may
/// have some in each.

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

namespace litgrad::book {

/// \brief Where Debian's `wordnet-base` installs WordNet's data files.
inline constexpr const char* kWordNetDirectory = "/usr/share/wordnet";

/// \brief One synset: its words, its definition and its examples, cleaned as the file says.
struct Gloss {
  std::vector<std::string> words;     ///< the words it defines, in WordNet's order: `"dress uniform"`
  std::string definition;             ///< the definition, without the examples
  std::vector<std::string> examples;  ///< the quoted examples of use, without quotes
  char part_of_speech = 'n';          ///< `'n'`, `'v'`, `'a'` (adjectives, satellites included) or `'r'` (adverbs)
};

/// \brief The synsets, split by definition into training and held-out ones, each list in
/// WordNet's file order (nouns, verbs, adjectives, adverbs).
struct Glosses {
  std::vector<Gloss> training;  ///< the synsets whose definitions are for training
  std::vector<Gloss> held_out;  ///< the rest, whose definitions training never sees
};

/// \brief Reads WordNet's four data files from \p directory, cleans every synset and splits
/// them by definition: \p held_out_share of the distinct definitions, chosen with
/// `Generator(seed)`, are held out.
/// \throws std::runtime_error when a data file is missing, saying to install `wordnet-base`
///   (`tools/install-deps build`, or `apt-get install wordnet-base`); when a line of a data
///   file is malformed, naming the file and the line; ValueError for a share outside [0, 1].
Glosses read_wordnet(const std::string& directory = kWordNetDirectory, double held_out_share = 0.1,
                     std::uint64_t seed = 0);

/// \brief The book's split, read_wordnet() with its defaults, read once per process.
const Glosses& wordnet();

/// \brief The (word, definition) pairs of \p glosses: one per word of each synset, in order,
/// so a synset of three words gives three pairs with one definition.
std::vector<std::pair<std::string, std::string>> word_definition_pairs(const std::vector<Gloss>& glosses);

/// \brief The definitions of \p glosses as one text, each followed by a newline.
std::string definitions_text(const std::vector<Gloss>& glosses);

}  // namespace litgrad::book
