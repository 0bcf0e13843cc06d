// litgrad_payoff DIR [RUN...]: the book's kept runs (book/payoff.hpp), from the Bible's text to
// the files chapter 12 loads, written into DIR: tokenizer.bpe, and each run's parameters (a
// binary state_dict) and record (the losses and checksums): the long run's gpt.state and
// record.txt, and the two smaller models' of the scale study. tools/payoff builds and runs it.

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <exception>
#include <filesystem>
#include <iostream>
#include <string>
#include <vector>

#include "litgrad/book/payoff.hpp"
#include "litgrad/core/threads.hpp"
#include "litgrad/nn/serialize.hpp"

int main(int argc, char** argv) {
  namespace book = litgrad::book;
  const std::vector<book::PayoffRun> runs = book::payoff_runs();
  const std::vector<std::string> asked(argv + std::min(argc, 2), argv + argc);
  const auto unknown = std::find_if(asked.begin(), asked.end(), [&](const std::string& name) {
    return std::none_of(runs.begin(), runs.end(), [&](const book::PayoffRun& r) { return r.name == name; });
  });
  if (argc < 2 || std::string(argv[1]).rfind("-", 0) == 0 || unknown != asked.end()) {
    if (unknown != asked.end()) std::cerr << argv[0] << ": no run is named '" << *unknown << "'\n";
    std::cerr << "usage: " << argv[0] << " DIR [RUN...]\n"
              << "Trains the book's kept runs (all, or the RUNs named: 'long', 'width 32', 'width 64') and writes\n"
              << "tokenizer.bpe and each run's parameters and record into DIR.\n";
    return 2;
  }
  const std::filesystem::path dir = argv[1];
  const auto start = std::chrono::steady_clock::now();
  const auto seconds = [&] { return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count(); };
  try {
    std::filesystem::create_directories(dir);
    const book::BibleSplit& split = book::bible();
    std::printf("the text: %zu training chapters, %zu held out (%.1f s)\n", split.training.size(),
                split.held_out.size(), seconds());
    const litgrad::BPETokenizer tokenizer = book::payoff_tokenizer(split, runs.front().config);
    tokenizer.save((dir / "tokenizer.bpe").string());
    const book::PayoffText text = book::payoff_text(split, tokenizer);
    std::printf("the tokenizer: %lld tokens; %zu training tokens, %zu held out (%.1f s)\n",
                static_cast<long long>(tokenizer.vocab_size()), text.training.size(), text.held_out.size(), seconds());
    for (const book::PayoffRun& run : runs) {
      if (!asked.empty() && std::find(asked.begin(), asked.end(), run.name) == asked.end()) continue;
      const book::PayoffConfig& config = run.config;
      litgrad::Generator gen(config.seed);
      book::GPT model(config.model, gen);
      std::printf("%s: %lld parameters; %d steps of %lld windows of %lld tokens, on %d threads\n", run.name.c_str(),
                  static_cast<long long>(book::gpt_parameter_count(config.model)), config.steps,
                  static_cast<long long>(config.batch), static_cast<long long>(config.model.block_size),
                  litgrad::get_num_threads());
      const book::PayoffRecord record =
          book::train_payoff(model, text, tokenizer, config, config.steps, [&](const book::PayoffRecord& r) {
            std::printf("  step %5.0f: training %.4f, held out %.4f ± %.4f bits per character (%.0f s)\n",
                        r.curves.at("step").back(), r.curves.at("training").back(), r.curves.at("held out").back(),
                        r.curves.at("held-out error").back(), seconds());
            std::fflush(stdout);
          });
      litgrad::nn::save(model, (dir / run.state_file).string(), litgrad::StateDictFormat::Binary);
      book::save_payoff_record(record, (dir / run.record_file).string());
      std::printf("  %s and %s written at %.0f s; parameters' checksum %s\n", run.state_file.c_str(),
                  run.record_file.c_str(), seconds(), record.checksums.back().second.c_str());
    }
  } catch (const std::exception& e) {
    std::cerr << argv[0] << ": " << e.what() << "\n";
    return 1;
  }
  return 0;
}
