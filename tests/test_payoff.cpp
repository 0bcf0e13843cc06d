// book::GPT and the book's long run (book/payoff.hpp): the model's sizes and causality, its
// record's file, and the kept run in chapters/payoff reproduced: its tokenizer retrained, its
// first steps rerun to the checksum kept beside it, the scale study's two smaller runs' too.

#include <doctest/doctest.h>

#include <cmath>
#include <cstddef>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>
#include <vector>

#include <unistd.h>

#include <litgrad/book/payoff.hpp>
#include <litgrad/litgrad.hpp>

using namespace litgrad;

namespace {

namespace fs = std::filesystem;

const fs::path kKept = fs::path(LITGRAD_SOURCE_DIR) / "chapters" / "payoff";

std::string bytes_of(const fs::path& path) {
  std::ifstream f(path, std::ios::binary);
  return {std::istreambuf_iterator<char>(f), std::istreambuf_iterator<char>()};
}

}  // namespace

TEST_CASE(
    "book::GPT has V·d + T·d + L(12d² + 13d) + 2d parameters, and its scores at a position never depend on "
    "later tokens") {
  const book::GPTConfig config{50, 8, 2, 2, 16};
  Generator gen(3);
  const book::GPT model(config, gen);
  std::int64_t n = 0;
  for (const Tensor& p : model.parameters()) n += p.numel();
  CHECK(n == book::gpt_parameter_count(config));
  CHECK(n == 50 * 16 + 8 * 16 + 2 * (12 * 16 * 16 + 13 * 16) + 2 * 16);
  Generator ids_gen(4);
  const Tensor ids = randint(0, 50, {2, 8}, ids_gen);
  Tensor changed = ids.clone();
  changed.index_put_(
      {0, 5}, tensor(std::vector<double>{(ids.at({0, 5}) + 1 == 50) ? 0.0 : ids.at({0, 5}) + 1}, {}, DType::Int64));
  const Tensor a = model(ids), b = model(changed);
  CHECK(std::memcmp(a.data(), b.data(), 5 * 50 * sizeof(double)) == 0);  // row 0, positions 0 to 4
  CHECK(std::memcmp(a.data() + 5 * 50, b.data() + 5 * 50, 50 * sizeof(double)) != 0);
  CHECK(a.shape() == Shape{2, 8, 50});
}

TEST_CASE("book::GPT refuses sizes it cannot have and ids longer than its context") {
  Generator gen(0);
  CHECK_THROWS_WITH_AS(book::GPT({50, 8, 2, 3, 16}, gen), "GPT: n_head 3 does not divide n_embd 16", ValueError);
  CHECK_THROWS_AS(book::GPT({0, 8, 2, 2, 16}, gen), ValueError);
  const book::GPT model({50, 8, 1, 2, 16}, gen);
  CHECK_THROWS_WITH_AS(model(full({1, 9}, 0, DType::Int64)),
                       "GPT: ids [1,9] must be [N, n] with 1 <= n <= block_size 8", ShapeError);
  CHECK_THROWS_AS(model(full({9}, 0, DType::Int64)), ShapeError);
}

TEST_CASE("book::GPT writing with its KV caches gives exactly forward()'s scores, and refuses to pass its context") {
  const book::GPTConfig config{50, 8, 2, 2, 16};
  Generator gen(5);
  book::GPT model(config, gen);
  model.eval();
  NoGradGuard no_grad;
  const Tensor ids = randint(0, 50, {1, 8}, gen), all = model(ids);
  std::vector<nn::KVCache> caches;
  const Tensor first = model.forward_cached(ids.slice(1, 0, 3), caches);  // three tokens at once
  CHECK(std::memcmp(first.data(), all.data(), 3 * 50 * sizeof(double)) == 0);
  for (std::int64_t t = 3; t < 8; ++t) {  // then one at a time
    const Tensor step = model.forward_cached(ids.slice(1, t, t + 1), caches);
    CHECK(std::memcmp(step.data(), all.data() + t * 50, 50 * sizeof(double)) == 0);
  }
  CHECK_THROWS_WITH_AS(model.forward_cached(ids.slice(1, 0, 1), caches), doctest::Contains("after 8 cached tokens"),
                       ShapeError);
}

TEST_CASE("a payoff record is written and read back exactly, and a malformed line is refused with its number") {
  book::PayoffRecord r;
  r.checksums = {{10, "0123456789abcdef"}, {7500, "fedcba9876543210"}};
  r.curves["step"] = {500, 1000};
  r.curves["training"] = {2.0 / 3.0, 1.5};
  r.curves["held out"] = {0.1 + 0.2, 1e-300};
  r.curves["held-out error"] = {0.01, 1.0 / 3.0};
  const std::string path = (fs::temp_directory_path() / ("litgrad-record-" + std::to_string(::getpid()))).string();
  book::save_payoff_record(r, path);
  const book::PayoffRecord back = book::load_payoff_record(path);
  CHECK(back.checksums == r.checksums);
  CHECK(back.curves == r.curves);  // %.17g carries every bit
  std::ofstream(path, std::ios::app) << "step 1 training 2\n";
  CHECK_THROWS_WITH_AS(book::load_payoff_record(path), doctest::Contains(":5 is malformed"), ValueError);
  fs::remove(path);
  CHECK_THROWS_AS(book::load_payoff_record(path), ValueError);
}

// The long run's loop on a configuration small enough for the sanitizers' room, which leaves
// the kept run's test below out (tests/CMakeLists.txt says why): the same code, a 2-block GPT
// over a tokenizer of a few merges, seven steps, twice.
TEST_CASE(
    "book::train_payoff records checksums after the prefix and the last step and losses every `every` steps, "
    "gives the same bits when run again from the same seed, and refuses a last step outside [1, steps]") {
  std::string words;
  for (int i = 0; i < 40; ++i) words += "and the light was good, and the waters were divided from the waters.\n";
  BPETokenizer tokenizer;
  tokenizer.train(words, 300);
  const std::int64_t end = tokenizer.add_special_token("<|endoftext|>");
  book::PayoffText text;
  text.end_of_text = end;
  text.training = tokenizer.encode(words);
  text.training.push_back(end);
  text.held_out = tokenizer.encode(  // windows unlike one another, so their errors spread
      "the waters were good.\nand the light was divided from the waters, and the light was good, and "
      "the waters were divided.\nlight.\nand the waters were good, and good, and the light was divided "
      "from the light and the waters from the waters.\nthe light was good.\n");
  text.held_out.push_back(end);
  book::PayoffConfig config;
  config.model = {end + 1, 16, 2, 2, 32};
  config.batch = 4, config.steps = 8, config.warmup = 2, config.every = 3, config.prefix = 2;
  const auto run = [&](int last_step) {
    Generator gen(config.seed);
    book::GPT model(config.model, gen);
    return book::train_payoff(model, text, tokenizer, config, last_step);
  };
  const book::PayoffRecord first = run(7), again = run(7);
  REQUIRE(first.checksums.size() == 2);
  CHECK(first.checksums[0].first == 2);
  CHECK(first.checksums[1].first == 7);
  CHECK(first.checksums[0].second != first.checksums[1].second);
  CHECK(first.curves.at("step") == std::vector<double>{3, 6});
  CHECK(first.curves.at("held out").size() == 2);
  CHECK(first.curves.at("held-out error").size() == 2);
  CHECK(again.checksums == first.checksums);
  CHECK(again.curves == first.curves);
  Generator gen(config.seed);
  book::GPT model(config.model, gen);
  // The held-out cost: the sum the run makes, over ln 2 and the characters; its error, the
  // ratio of sums' over the windows, recomputed here from each window's nats and characters.
  const book::HeldOutWindows w = book::held_out_windows(model, text, tokenizer);
  const book::HeldOutCost cost = book::held_out_cost(model, text, tokenizer);
  REQUIRE(w.nats.size() >= 2);
  CHECK(cost.standard_error > 0);
  double characters = 0, nats = 0;
  for (std::size_t i = 0; i < w.nats.size(); ++i) characters += w.characters[i], nats += w.nats[i];
  const auto scored = static_cast<std::ptrdiff_t>(w.nats.size() * config.model.block_size);
  CHECK(characters == book::characters_of({text.held_out.begin() + 1, text.held_out.begin() + 1 + scored}, tokenizer));
  CHECK(cost.bits_per_character == w.nats_as_summed / std::log(2.0) / characters);
  CHECK(std::fabs(nats - w.nats_as_summed) <= 1e-12 * nats);
  const double ratio = nats / characters, n = static_cast<double>(w.nats.size());
  double spread = 0;
  for (std::size_t i = 0; i < w.nats.size(); ++i)
    spread += (w.nats[i] - ratio * w.characters[i]) * (w.nats[i] - ratio * w.characters[i]) / (n - 1);
  CHECK(cost.standard_error == doctest::Approx(std::sqrt(spread * n) / characters / std::log(2.0)).epsilon(1e-12));
  CHECK_THROWS_WITH_AS(book::train_payoff(model, text, tokenizer, config, 0),
                       "train_payoff: last_step 0 is outside [1, 8]", ValueError);
  CHECK_THROWS_AS(book::train_payoff(model, text, tokenizer, config, 9), ValueError);
}

// The prefix rerun is compared on every build, for this machine's CPU or for any x86-64: a
// product's steps are fused multiply-adds on every CPU (kernels/product.hpp). What a build
// cannot fix is the C library: Debian's glibc picks its log, exp, pow, sin, cos, tanh and erf
// when the program starts, one version for a CPU with FMA and one for a CPU without, and they
// round some arguments differently (on 2 million arguments, measured with
// GLIBC_TUNABLES=glibc.cpu.hwcaps=-FMA: 31 logs differed, 1,455 pows). The run draws its
// initial weights, its learning rate and its GELU through them, so on a CPU without FMA the
// first steps give other bits, and the test says so instead of comparing.
TEST_CASE(
    "the kept runs are what tools/payoff makes: the tokenizer retrained is the kept file, each run's kept weights "
    "hash to its kept final checksum, and on a CPU with FMA each run's first steps rerun give its kept checksum") {
  const std::vector<book::PayoffRun> runs = book::payoff_runs();
  const BPETokenizer tokenizer = book::payoff_tokenizer(book::bible(), runs.front().config);
  const std::string retrained = (fs::temp_directory_path() / ("litgrad-bpe-" + std::to_string(::getpid()))).string();
  tokenizer.save(retrained);
  CHECK(bytes_of(retrained) == bytes_of(kKept / "tokenizer.bpe"));
  fs::remove(retrained);
  const book::PayoffText text = book::payoff_text(book::bible(), tokenizer);
  for (const book::PayoffRun& run : runs) {
    CAPTURE(run.name);
    const book::PayoffConfig& config = run.config;
    const book::PayoffRecord kept = book::load_payoff_record((kKept / run.record_file).string());
    REQUIRE(kept.checksums.size() == 2);
    CHECK(kept.checksums[0].first == config.prefix);
    CHECK(kept.checksums[1].first == config.steps);
    Generator gen(config.seed);
    book::GPT model(config.model, gen);
    if (__builtin_cpu_supports("fma")) {
      const book::PayoffRecord rerun = book::train_payoff(model, text, tokenizer, config, config.prefix);
      REQUIRE(rerun.checksums.size() == 1);
      CHECK(rerun.checksums[0] == kept.checksums[0]);
    } else {
      MESSAGE("this CPU has no FMA: the first steps' checksum is not compared (the comment above says why)");
    }
    nn::load(model, (kKept / run.state_file).string());
    CHECK(book::parameter_checksum(model) == kept.checksums[1].second);
  }
}
