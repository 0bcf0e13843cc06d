// book::train_payoff and its text: the book's long run, a GPT on the King James Bible.

#include "litgrad/book/payoff.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <sstream>

#include <unistd.h>

#include "litgrad/base/checksum.hpp"
#include "litgrad/base/error.hpp"
#include "litgrad/core/grad_mode.hpp"
#include "litgrad/nn/utils.hpp"
#include "litgrad/ops/loss.hpp"
#include "litgrad/ops/reduction.hpp"
#include "litgrad/optim/adam.hpp"
#include "litgrad/optim/lr_scheduler.hpp"

namespace litgrad::book {

namespace {

constexpr const char* kEndOfText = "<|endoftext|>";

Tensor ids_tensor(const std::vector<std::int64_t>& ids, const Shape& shape) {
  return tensor(std::vector<double>(ids.begin(), ids.end()), shape, DType::Int64);
}

std::vector<std::int64_t> encoded(const std::vector<BibleChapter>& chapters, const BPETokenizer& tokenizer,
                                  std::int64_t end_of_text) {
  std::vector<std::int64_t> ids;
  for (const BibleChapter& c : chapters) {
    const std::vector<std::int64_t> chapter = tokenizer.encode(chapter_text(c));
    ids.insert(ids.end(), chapter.begin(), chapter.end());
    ids.push_back(end_of_text);
  }
  return ids;
}

}  // namespace

BPETokenizer payoff_tokenizer(const BibleSplit& split, const PayoffConfig& config) {
  std::string text;
  for (const BibleChapter& c : split.training) text += chapter_text(c);
  BPETokenizer tokenizer;
  tokenizer.train(text, config.merges_to);
  tokenizer.add_special_token(kEndOfText);
  return tokenizer;
}

PayoffText payoff_text(const BibleSplit& split, const BPETokenizer& tokenizer) {
  PayoffText text;
  text.end_of_text = tokenizer.special_token_id(kEndOfText);
  text.training = encoded(split.training, tokenizer, text.end_of_text);
  text.held_out = encoded(split.held_out, tokenizer, text.end_of_text);
  return text;
}

double characters_of(const std::vector<std::int64_t>& ids, const BPETokenizer& tokenizer) {
  double characters = 0;
  for (std::int64_t id : ids)
    characters += tokenizer.is_special(id) ? 1.0 : static_cast<double>(tokenizer.token(id).size());
  return characters;
}

HeldOutWindows held_out_windows(const GPT& model, const PayoffText& text, const BPETokenizer& tokenizer) {
  NoGradGuard no_grad;
  const std::int64_t T = model.config.block_size, V = model.config.vocab_size;
  const auto windows = (static_cast<std::int64_t>(text.held_out.size()) - 1) / T;
  HeldOutWindows w;
  for (std::int64_t from = 0; from < windows; from += 16) {
    const std::int64_t to = std::min(windows, from + 16);
    const auto begin = text.held_out.begin() + from * T, end = text.held_out.begin() + to * T;
    const std::vector<std::int64_t> x(begin, end), y(begin + 1, end + 1);
    const Tensor scores = model(ids_tensor(x, {to - from, T})).reshape({-1, V});  // [n T, V]
    const Tensor targets = ids_tensor(y, {(to - from) * T});
    // Each prediction's cost once: their sum is the sum Reduction::Sum takes, term for term.
    const Tensor costs = cross_entropy(scores, targets, Reduction::None);  // [n T]
    w.nats_as_summed += sum(costs).item();
    const Tensor per_window = sum(costs.reshape({to - from, T}), {1});
    for (std::int64_t k = 0; k < to - from; ++k) {
      w.nats.push_back(per_window.at({k}));
      w.characters.push_back(characters_of({y.begin() + k * T, y.begin() + (k + 1) * T}, tokenizer));
    }
  }
  return w;
}

HeldOutCost held_out_cost(const GPT& model, const PayoffText& text, const BPETokenizer& tokenizer) {
  const HeldOutWindows w = held_out_windows(model, text, tokenizer);
  double characters = 0;
  for (double c : w.characters) characters += c;
  const double ratio = w.nats_as_summed / characters, n = static_cast<double>(w.nats.size());
  double spread = 0;
  for (std::size_t i = 0; i < w.nats.size(); ++i) {
    const double r = w.nats[i] - ratio * w.characters[i];
    spread += r * r;
  }
  // The mean divided as the record has always divided it, by ln 2 and then the characters.
  return {w.nats_as_summed / std::log(2.0) / characters, std::sqrt(spread * n / (n - 1)) / characters / std::log(2.0)};
}

std::string parameter_checksum(const nn::Module& module) {
  std::string bytes;
  for (const auto& [name, p] : module.named_parameters()) {
    const Tensor values = p.detach().contiguous();
    bytes.append(reinterpret_cast<const char*>(values.data()),
                 static_cast<std::size_t>(values.numel()) * sizeof(double));
  }
  return detail::hex16(detail::fnv1a(bytes));
}

PayoffRecord train_payoff(GPT& model, const PayoffText& text, const BPETokenizer& tokenizer, const PayoffConfig& config,
                          int last_step, const std::function<void(const PayoffRecord&)>& progress) {
  if (last_step < 1 || last_step > config.steps)
    throw ValueError("train_payoff: last_step ", last_step, " is outside [1, ", config.steps, "]");
  const GPTConfig &m = model.config, &c = config.model;
  if (m.vocab_size != c.vocab_size || m.block_size != c.block_size || m.n_layer != c.n_layer || m.n_head != c.n_head ||
      m.n_embd != c.n_embd)
    throw ValueError("train_payoff: the model's sizes are not the config's");
  const std::int64_t T = c.block_size, V = c.vocab_size, B = config.batch;
  std::vector<Tensor> matrices, others;
  for (const Tensor& p : model.parameters()) (p.dim() >= 2 ? matrices : others).push_back(p);
  optim::AdamW adam({{matrices, {{"weight_decay", config.decay}}}, {others, {{"weight_decay", 0.0}}}},
                    optim::AdamWOptions{config.rate}.betas({0.9, 0.95}));
  optim::lr_scheduler::LambdaLR schedule(
      adam, optim::lr_scheduler::cosine_with_warmup(config.warmup, config.steps, config.final_share));
  Generator windows(config.seed + 1000);
  const double tokens_per_character =
      static_cast<double>(text.training.size()) / characters_of(text.training, tokenizer);
  const auto last_start = static_cast<std::int64_t>(text.training.size()) - T - 1;
  PayoffRecord record;
  double since = 0;
  int counted = 0;
  for (int step = 1; step <= last_step; ++step) {
    std::vector<std::int64_t> inputs, targets;  // [B, T] each
    for (std::int64_t b = 0; b < B; ++b) {
      const std::int64_t s = windows.randint(0, last_start + 1);
      inputs.insert(inputs.end(), text.training.begin() + s, text.training.begin() + s + T);
      targets.insert(targets.end(), text.training.begin() + s + 1, text.training.begin() + s + T + 1);
    }
    const Tensor scores = model(ids_tensor(inputs, {B, T}));  // [B, T, V]
    const Tensor loss = cross_entropy(scores.reshape({-1, V}), ids_tensor(targets, {B * T}));
    adam.zero_grad();
    loss.backward();
    nn::utils::clip_grad_norm_(model.parameters(), config.clip);
    adam.step();
    schedule.step();
    since += loss.item(), ++counted;
    if (step == config.prefix || step == last_step) record.checksums.emplace_back(step, parameter_checksum(model));
    if (step % config.every == 0 || step == config.steps) {
      model.eval();
      record.curves["step"].push_back(step);
      record.curves["training"].push_back(since / counted * tokens_per_character / std::log(2.0));
      const HeldOutCost held_out = held_out_cost(model, text, tokenizer);
      record.curves["held out"].push_back(held_out.bits_per_character);
      record.curves["held-out error"].push_back(held_out.standard_error);
      model.train();
      since = 0, counted = 0;
      if (progress) progress(record);
    }
  }
  return record;
}

void save_payoff_record(const PayoffRecord& record, const std::string& path) {
  std::ostringstream text;
  for (const auto& [step, checksum] : record.checksums) text << "checksum " << step << " " << checksum << "\n";
  const auto& c = record.curves;
  const std::size_t n = c.count("step") ? c.at("step").size() : 0;
  for (std::size_t i = 0; i < n; ++i) {
    char line[200];
    std::snprintf(line, sizeof line, "step %.17g training %.17g held_out %.17g error %.17g\n", c.at("step")[i],
                  c.at("training")[i], c.at("held out")[i], c.at("held-out error")[i]);
    text << line;
  }
  const std::string partial = path + ".partial-" + std::to_string(::getpid());
  {
    std::ofstream f(partial);
    f << text.str();
    if (!f) throw ValueError("save_payoff_record: cannot write ", partial);
  }
  std::filesystem::rename(partial, path);
}

PayoffRecord load_payoff_record(const std::string& path) {
  std::ifstream f(path);
  if (!f) throw ValueError("load_payoff_record: cannot read ", path);
  PayoffRecord record;
  std::string line;
  for (int number = 1; std::getline(f, line); ++number) {
    std::istringstream words(line);
    std::string kind, checksum, training, held, error;
    int step = 0;
    double s = 0, t = 0, h = 0, e = 0;
    bool ok = false;
    if (words >> kind && kind == "checksum") {
      ok = static_cast<bool>(words >> step >> checksum) && checksum.size() == 16;
      if (ok) record.checksums.emplace_back(step, checksum);
    } else if (kind == "step") {
      ok = static_cast<bool>(words >> s >> training >> t >> held >> h >> error >> e) && training == "training" &&
           held == "held_out" && error == "error";
      if (ok) {
        record.curves["step"].push_back(s);
        record.curves["training"].push_back(t);
        record.curves["held out"].push_back(h);
        record.curves["held-out error"].push_back(e);
      }
    }
    std::string rest;
    if (!ok || words >> rest)
      throw ValueError("load_payoff_record: ", path, ":", number, " is malformed: '", line, "'");
  }
  return record;
}

std::vector<PayoffRun> payoff_runs() {
  const auto sized = [](std::string name, std::int64_t width, std::int64_t blocks, std::int64_t heads,
                        std::string state_file, std::string record_file) {
    PayoffConfig config;
    config.model.n_embd = width, config.model.n_layer = blocks, config.model.n_head = heads;
    return PayoffRun{std::move(name), config, std::move(state_file), std::move(record_file)};
  };
  return {sized("long", 128, 4, 4, "gpt.state", "record.txt"),
          sized("width 32", 32, 2, 2, "gpt_width_32.state", "record_width_32.txt"),
          sized("width 64", 64, 3, 4, "gpt_width_64.state", "record_width_64.txt")};
}

}  // namespace litgrad::book
