// book::read_wordnet: WordNet's synsets read, cleaned and split by definition, on small files
// written here and on Debian's wordnet-base.

#include <doctest/doctest.h>

#include <cmath>
#include <filesystem>
#include <fstream>
#include <set>
#include <string>

#include <unistd.h>

#include <litgrad/base/error.hpp>
#include <litgrad/book/corpus.hpp>

using namespace litgrad;

namespace {

namespace fs = std::filesystem;

const char* kLicence =
    "  1 This software and database is being provided to you, the LICENSEE, by  \n"
    "  2 Princeton University under the following license.  \n";

// A folder holding data.noun, data.verb, data.adj and data.adv with the given synset lines.
struct FakeWordNet {
  fs::path dir = fs::temp_directory_path() / ("litgrad-test-wordnet-" + std::to_string(::getpid()));
  FakeWordNet(const std::string& nouns, const std::string& verbs = "", const std::string& adjectives = "",
              const std::string& adverbs = "") {
    fs::create_directories(dir);
    write("noun", nouns), write("verb", verbs), write("adj", adjectives), write("adv", adverbs);
  }
  void write(const std::string& part, const std::string& lines) const {
    std::ofstream f(dir / ("data." + part));
    f << kLicence << lines;
  }
  ~FakeWordNet() { fs::remove_all(dir); }
};

const std::string kNouns =
    "00001740 03 n 01 entity 0 003 ~ 00001930 n 0000 | that which is perceived to exist  \n"
    "04182890 06 n 02 dress_uniform 0 full_dress 0 001 @ 04509417 n 0000 | a military uniform worn on formal "
    "occasions  \n"
    "00217593 04 n 01 kill 1 002 @ 00217014 n 0000 | the destruction of an enemy plane or ship; \"the pilot reported "
    "two kills during the mission\"  \n"
    "01000001 05 n 01 aster_one 0 000 | a variety of aster  \n"
    "01000002 05 n 01 aster_two 0 000 | a variety of aster  \n";
const std::string kAdjectives =
    "00095873 00 s 02 asleep(p) 0 at_peace(p) 2 003 & 00095280 a 0000 | dead; \"he is deceased\"; \"our dear departed "
    "friend\"  \n";

}  // namespace

TEST_CASE("read_wordnet cleans each synset: words with spaces and no markers, the definition without its examples") {
  const FakeWordNet wn(kNouns, "", kAdjectives);
  const book::Glosses g = book::read_wordnet(wn.dir.string(), 0.0);
  CHECK(g.held_out.empty());
  REQUIRE(g.training.size() == 6);
  CHECK(g.training[0].words == std::vector<std::string>{"entity"});
  CHECK(g.training[0].definition == "that which is perceived to exist");
  CHECK(g.training[0].examples.empty());
  CHECK(g.training[0].part_of_speech == 'n');
  CHECK(g.training[1].words == std::vector<std::string>{"dress uniform", "full dress"});
  CHECK(g.training[2].definition == "the destruction of an enemy plane or ship");
  CHECK(g.training[2].examples == std::vector<std::string>{"the pilot reported two kills during the mission"});
  const book::Gloss& dead = g.training[5];
  CHECK(dead.words == std::vector<std::string>{"asleep", "at peace"});
  CHECK(dead.definition == "dead");
  CHECK(dead.examples == std::vector<std::string>{"he is deceased", "our dear departed friend"});
  CHECK(dead.part_of_speech == 'a');  // a satellite adjective counts as an adjective
  const auto pairs = book::word_definition_pairs(g.training);
  REQUIRE(pairs.size() == 8);
  CHECK(pairs[2] == std::pair<std::string, std::string>{"full dress", "a military uniform worn on formal occasions"});
  CHECK(book::definitions_text({g.training[0], g.training[5]}) == "that which is perceived to exist\ndead\n");
}

TEST_CASE("the split is by definition: synsets that share a definition fall on one side, and a seed fixes it") {
  std::string many;
  for (int i = 0; i < 200; ++i)  // 100 definitions, each given to two synsets
    many += std::to_string(10000000 + i) + " 03 n 01 word" + std::to_string(i) + " 0 000 | meaning number " +
            std::to_string(i / 2) + "  \n";
  const FakeWordNet wn(many);
  const book::Glosses a = book::read_wordnet(wn.dir.string(), 0.25, 3);
  CHECK(a.held_out.size() == 50);  // 25 of the 100 definitions, two synsets each
  CHECK(a.training.size() == 150);
  std::set<std::string> held;
  for (const auto& g : a.held_out) held.insert(g.definition);
  CHECK(held.size() == 25);
  for (const auto& g : a.training) CHECK(held.count(g.definition) == 0);
  const book::Glosses again = book::read_wordnet(wn.dir.string(), 0.25, 3);
  CHECK(again.held_out.size() == a.held_out.size());
  for (std::size_t i = 0; i < a.held_out.size(); ++i) CHECK(again.held_out[i].words == a.held_out[i].words);
  const book::Glosses other = book::read_wordnet(wn.dir.string(), 0.25, 4);
  std::set<std::string> held_other;
  for (const auto& g : other.held_out) held_other.insert(g.definition);
  CHECK(held_other != held);
}

TEST_CASE("read_wordnet names the install command when WordNet is missing, and the file and line of a malformed line") {
  CHECK_THROWS_WITH_AS(book::read_wordnet("/no/such/wordnet"),
                       doctest::Contains("/no/such/wordnet/data.noun is missing: install Debian's wordnet-base with "
                                         "`tools/install-deps build` (or `sudo apt-get install wordnet-base`)"),
                       std::runtime_error);
  {
    const FakeWordNet wn("00001740 03 n 01 entity 0 003 no bar here\n");
    CHECK_THROWS_WITH_AS(book::read_wordnet(wn.dir.string()),
                         doctest::Contains("data.noun:3: no ' | ' before the gloss"), std::runtime_error);
  }
  {
    const FakeWordNet wn("00001740 03 n 03 entity 0 000 | too few words  \n");
    CHECK_THROWS_WITH_AS(book::read_wordnet(wn.dir.string()),
                         doctest::Contains("data.noun:3: fewer words than its count 03"), std::runtime_error);
  }
  CHECK_THROWS_WITH_AS(book::read_wordnet("/no/such/wordnet", 1.5),
                       "read_wordnet: held_out_share must be in [0, 1], got 1.5", ValueError);
}

TEST_CASE("Debian's WordNet gives 117,659 synsets, a tenth of whose distinct definitions are held out") {
  const book::Glosses& g = book::wordnet();
  CHECK(g.training.size() + g.held_out.size() == 117659);
  std::set<std::string> training, held;
  for (const auto& s : g.training) training.insert(s.definition);
  for (const auto& s : g.held_out) held.insert(s.definition);
  const auto distinct = static_cast<double>(training.size() + held.size());
  CHECK(held.size() == static_cast<std::size_t>(std::llround(0.1 * distinct)));
  int shared = 0, unclean = 0;
  for (const auto& d : held) shared += training.count(d) > 0;
  for (const auto& s : g.training) {
    unclean += s.definition.empty() || s.definition.find("; \"") != std::string::npos;
    for (const auto& w : s.words) unclean += w.find('_') != std::string::npos;
  }
  CHECK(shared == 0);
  CHECK(unclean == 0);
}
