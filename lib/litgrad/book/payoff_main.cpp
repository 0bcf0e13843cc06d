// litgrad_payoff DIR: the book's long run (book/payoff.hpp), from the Bible's text to the
// files chapter 12 loads, written into DIR: tokenizer.bpe, gpt.state (the parameters, a binary
// state_dict) and record.txt (the losses and checksums). tools/payoff builds and runs it.

#include <chrono>
#include <cstdio>
#include <exception>
#include <filesystem>
#include <iostream>
#include <string>

#include "litgrad/book/payoff.hpp"
#include "litgrad/core/threads.hpp"
#include "litgrad/nn/serialize.hpp"

int main(int argc, char** argv) {
  namespace book = litgrad::book;
  if (argc != 2 || std::string(argv[1]).rfind("-", 0) == 0) {
    std::cerr << "usage: " << argv[0] << " DIR\n"
              << "Trains the book's long run and writes tokenizer.bpe, gpt.state and record.txt into DIR.\n";
    return 2;
  }
  const std::filesystem::path dir = argv[1];
  const auto start = std::chrono::steady_clock::now();
  const auto seconds = [&] { return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count(); };
  try {
    std::filesystem::create_directories(dir);
    const book::PayoffConfig config;
    const book::BibleSplit& split = book::bible();
    std::printf("the text: %zu training chapters, %zu held out (%.1f s)\n", split.training.size(),
                split.held_out.size(), seconds());
    const litgrad::BPETokenizer tokenizer = book::payoff_tokenizer(split, config);
    tokenizer.save((dir / "tokenizer.bpe").string());
    const book::PayoffText text = book::payoff_text(split, tokenizer);
    std::printf("the tokenizer: %lld tokens; %zu training tokens, %zu held out (%.1f s)\n",
                static_cast<long long>(tokenizer.vocab_size()), text.training.size(), text.held_out.size(), seconds());
    litgrad::Generator gen(config.seed);
    book::GPT model(config.model, gen);
    std::printf("the model: %lld parameters; %d steps of %lld windows of %lld tokens, on %d threads\n",
                static_cast<long long>(book::gpt_parameter_count(config.model)), config.steps,
                static_cast<long long>(config.batch), static_cast<long long>(config.model.block_size),
                litgrad::get_num_threads());
    const book::PayoffRecord record =
        book::train_payoff(model, text, tokenizer, config, config.steps, [&](const book::PayoffRecord& r) {
          std::printf("step %5.0f: training %.4f, held out %.4f bits per character (%.0f s)\n",
                      r.curves.at("step").back(), r.curves.at("training").back(), r.curves.at("held out").back(),
                      seconds());
          std::fflush(stdout);
        });
    litgrad::nn::save(model, (dir / "gpt.state").string(), litgrad::StateDictFormat::Binary);
    book::save_payoff_record(record, (dir / "record.txt").string());
    std::printf("written to %s in %.0f s; parameters' checksum %s\n", dir.string().c_str(), seconds(),
                record.checksums.back().second.c_str());
  } catch (const std::exception& e) {
    std::cerr << argv[0] << ": " << e.what() << "\n";
    return 1;
  }
  return 0;
}
