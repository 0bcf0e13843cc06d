#pragma once
/// \file book/payoff.hpp
/// \brief The book's long run: a GPT (book/gpt.hpp) trained on the King James Bible
/// (book/bible.hpp) for longer than any chapter's budget allows, once, by the command
/// `tools/payoff`, and kept in the repository (`chapters/payoff/`) for chapter 12 to load.
///
/// The run is deterministic: the same text, tokenizer, seed and kernels give the same bits on
/// any number of threads and in a build for any x86-64 CPU (a product's steps are fused
/// multiply-adds on every CPU), so the kept files are what the command makes, byte for byte,
/// and a test reruns the run's first steps and compares their checksum with the one kept. The
/// CPU must have FMA: glibc's log, sin, cos, pow and erf round some arguments differently on one
/// without (tests/test_payoff.cpp).
///
/// **The text.** Each chapter of the Bible is a document: its verses, one a line, followed by
/// the special token `<|endoftext|>`, as GPT-2 marks its documents' ends. The training text is
/// the training chapters' (split_bible() with the book's split), the held-out text the others'.
///
/// **The tokenizer.** Byte-pair encoding (BPETokenizer) trained on the training chapters'
/// text, without the markers, to `merges_to` tokens; then `<|endoftext|>` is added, the last id.
/// Each chapter is encoded on its own, so no token spans two documents.
///
/// **The training.** Chapter 12's: AdamW (β = 0.9, 0.95) with weight decay on the matrices only,
/// the rate warmed up linearly and then down a cosine to `final_share` of itself, gradients
/// clipped to a total norm of `clip`; each step a batch of windows whose starts are drawn at
/// random from `Generator(seed + 1000)`, the model started from `Generator(seed)`.

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "litgrad/book/bible.hpp"
#include "litgrad/book/gpt.hpp"
#include "litgrad/book/trained.hpp"
#include "litgrad/text/bpe.hpp"

namespace litgrad::book {

/// \brief What the long run is: the model's sizes, the tokenizer's and the training's settings.
struct PayoffConfig {
  GPTConfig model{1025, 128, 4, 4, 128};  ///< V (1,024 BPE tokens and `<|endoftext|>`), T, L, heads, d
  std::int64_t merges_to = 1024;          ///< the tokenizer's vocabulary before `<|endoftext|>`
  std::int64_t batch = 16;                ///< windows a step
  int steps = 7500;                       ///< steps of the whole run
  int warmup = 375;                       ///< steps of the linear warm-up
  int every = 500;                        ///< steps between two records of the losses
  int prefix = 10;                        ///< the steps the prefix test reruns
  double rate = 2e-3;                     ///< the peak learning rate
  double final_share = 0.1;               ///< the rate at the end, as a share of the peak
  double decay = 0.1;                     ///< AdamW's weight decay on the matrices
  double clip = 1.0;                      ///< the largest total gradient norm
  std::uint64_t seed = 1;                 ///< the model's start; the windows' is seed + 1000
};

/// \brief The text of the long run as token ids, and what measuring it needs.
struct PayoffText {
  std::vector<std::int64_t> training;  ///< every training chapter's ids, each then `<|endoftext|>`
  std::vector<std::int64_t> held_out;  ///< the same for the held-out chapters
  std::int64_t end_of_text = 0;        ///< the id of `<|endoftext|>`
};

/// \brief The tokenizer of the long run: trained on the training chapters of \p split to
/// `config.merges_to` tokens, then `<|endoftext|>` added.
BPETokenizer payoff_tokenizer(const BibleSplit& split, const PayoffConfig& config);

/// \brief The chapters of \p split encoded by \p tokenizer, which must have `<|endoftext|>`.
/// \throws ValueError when it has not.
PayoffText payoff_text(const BibleSplit& split, const BPETokenizer& tokenizer);

/// \brief The characters a sequence of targets stands for: each token's bytes, and 1 for
/// `<|endoftext|>` (a document's end, as a newline ends a line).
double characters_of(const std::vector<std::int64_t>& ids, const BPETokenizer& tokenizer);

/// \brief The model's costs of the held-out text, window by window.
struct HeldOutWindows {
  std::vector<double> nats;        ///< [windows]: each window's cost, its T predictions' nats summed
  std::vector<double> characters;  ///< [windows]: the characters its targets stand for (characters_of())
  double nats_as_summed = 0;       ///< every cost summed as the run sums them: each batch of 16 windows in one sum
};

/// \brief The model's costs of the held-out text: the text cut into windows of block_size
/// inputs, each followed by its targets, 16 windows at a time, the tokens past the last whole
/// window left out.
HeldOutWindows held_out_windows(const GPT& model, const PayoffText& text, const BPETokenizer& tokenizer);

/// \brief The model's mean cost of the held-out text and how surely it is known.
struct HeldOutCost {
  double bits_per_character = 0;  ///< HeldOutWindows::nats_as_summed over the characters, in bits
  double standard_error = 0;      ///< of that ratio of sums, over the windows, in bits per character
};

/// \brief The model's mean cost of the held-out text (held_out_windows()), in bits per
/// character, and its standard error as a ratio of sums over windows:
/// (W/(W-1) Σ_i (n_i - R c_i)²)^½ / Σ_i c_i for window i's nats n_i and characters c_i and the
/// ratio R, in bits.
HeldOutCost held_out_cost(const GPT& model, const PayoffText& text, const BPETokenizer& tokenizer);

/// \brief FNV-1a (base/checksum.hpp) of the bytes of every parameter of \p module, in the
/// order of named_parameters(), as 16 hexadecimal digits.
std::string parameter_checksum(const nn::Module& module);

/// \brief What the run records: the losses every `every` steps and after the last, and
/// checksums of the parameters after the prefix and after the last step it took.
struct PayoffRecord {
  /// "step", "training" (mean since the last record), "held out" and its "held-out error" (the
  /// standard error of held_out_cost()), bits per character
  Record curves;
  std::vector<std::pair<int, std::string>> checksums;  ///< (step, parameter_checksum()) after that step
};

/// \brief Trains \p model, a GPT of `config.model` started from `Generator(config.seed)`, for
/// the first \p last_step steps of the run \p config describes (the schedule is always the
/// whole run's). \p progress, if given, is called after every record with what is known.
/// \throws ValueError for \p last_step outside [1, config.steps], or a model of other sizes.
PayoffRecord train_payoff(GPT& model, const PayoffText& text, const BPETokenizer& tokenizer, const PayoffConfig& config,
                          int last_step, const std::function<void(const PayoffRecord&)>& progress = nullptr);

/// \brief Writes \p record to \p path, one line a checksum and one a record:
/// `checksum STEP HEX` and `step S training X held_out Y error E`, the numbers as `%.17g`.
/// \throws ValueError when it cannot write.
void save_payoff_record(const PayoffRecord& record, const std::string& path);

/// \brief Reads what save_payoff_record() wrote.
/// \throws ValueError naming the file and line when it cannot be read or a line is malformed.
PayoffRecord load_payoff_record(const std::string& path);

/// \brief One of the kept runs, and the files it writes: its parameters (a binary state_dict)
/// and its record. All share the long run's tokenizer (`tokenizer.bpe`) and text.
struct PayoffRun {
  std::string name;         ///< how `litgrad_payoff` is told to train it alone
  PayoffConfig config;      ///< the long run's settings, the model's sizes aside
  std::string state_file;   ///< the parameters' file in chapters/payoff/
  std::string record_file;  ///< the record's file in chapters/payoff/
};

/// \brief The kept runs: the long run ("long": gpt.state, record.txt) and, for chapter 12's
/// study of scale, the same run with two smaller models, every other setting the same: "width
/// 32" (2 blocks of 2 heads, 62,368 parameters) and "width 64" (3 blocks of 4 heads, 223,872),
/// against the long run's 940,928. Each is a GPT started from `Generator(1)` and reads the
/// same windows.
std::vector<PayoffRun> payoff_runs();

}  // namespace litgrad::book
