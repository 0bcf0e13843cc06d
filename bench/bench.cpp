// litgrad against libtorch, workload by workload, interleaved in one run (Google Benchmark).
// Run it through tools/bench, which sets one thread everywhere and writes the report.
//   1. FlagStep: a training step of chapter 8's flag task (batch 64).
//   2. Attention: MultiheadAttention forward + backward, L=128, N=16, E=128, 8 heads, causal.
//   3. Sweep: the same layer for L = 16 ... 1024, N=4, E=64, 4 heads.
//   6. Block: a pre-norm Transformer block (nn::TransformerEncoderLayer, causal, gelu), N=16,
//      E=64, 4 heads, feed-forward 256, for L = 16 ... 256 (L = 64 is the headline size).
//   7. GPTStep: a training step of chapter 12's GPT (bench/gpt.hpp), against libtorch in
//      double and in float32.
//   8. Decode: one step of writing with that GPT and a KV cache of 31 tokens, likewise.
//   9. Threads: the block at L = 64 and 256, and the GPT step, on 2 threads, each checked to
//      give the bits of one thread (lib/litgrad/core/threads.hpp); tools/bench gives the process
//      two cores when the machine has them.
//   and EigenGemm: Eigen's rate on a large square product, the yardstick for workload 2.
// Everything but workload 9 runs on one thread.
// Without libtorch the litgrad side still runs and the context says the peer is missing.

#include <dlfcn.h>

#include <benchmark/benchmark.h>

#include <Eigen/Core>
#include <cstring>
#include <fstream>
#include <string>

#include "gpt.hpp"
#include "workloads.hpp"
#ifdef LITGRAD_BENCH_TORCH
#include "torch_gpt.hpp"
#include "torch_workloads.hpp"
#endif

namespace {

void FlagStep_litgrad(benchmark::State& state) {
  const bench::FlagData data = bench::flag_data(16, 3);
  bench::LitgradFlagModel model;
  std::size_t i = 0;
  for (auto _ : state) benchmark::DoNotOptimize(model.step(data.tokens[i % 16], data.answers[i % 16])), ++i;
}

void Attention_litgrad(benchmark::State& state) {
  const std::int64_t L = state.range(0), N = state.range(1), E = state.range(2), H = state.range(3);
  bench::LitgradAttention a(L, N, E, H);
  for (auto _ : state) a.step();
  state.counters["FLOP/s"] =
      benchmark::Counter(bench::attention_flops(L, N, E), benchmark::Counter::kIsIterationInvariantRate);
}

void Block_litgrad(benchmark::State& state) {
  bench::LitgradBlock b(state.range(0), state.range(1), state.range(2), state.range(3), state.range(4));
  for (auto _ : state) b.step();
}

void GPTStep_litgrad(benchmark::State& state) {
  bench::LitgradGPTStep g;
  for (auto _ : state) benchmark::DoNotOptimize(g.step());
}

void Decode_litgrad(benchmark::State& state) {
  bench::LitgradDecode d;
  for (auto _ : state) benchmark::DoNotOptimize(d.step());
}

// Runs `run` on one thread and then on `threads`, and whether the results' bits are the same.
template <class Run>
bool same_bits_on(int threads, Run run) {
  litgrad::set_num_threads(1);
  const std::vector<double> one = run();
  litgrad::set_num_threads(threads);
  const std::vector<double> many = run();
  litgrad::set_num_threads(1);
  return one.size() == many.size() && std::memcmp(one.data(), many.data(), one.size() * sizeof(double)) == 0;
}

// Workload 9: the block (args as Block's) on 2 threads; counter "same bits": 1 when a step on
// 2 threads gave the input's gradient the bits of a step on one.
void BlockThreads_litgrad(benchmark::State& state) {
  auto make = [&] {
    return bench::LitgradBlock(state.range(0), state.range(1), state.range(2), state.range(3), state.range(4));
  };
  const bool same = same_bits_on(2, [&] {
    bench::LitgradBlock b = make();
    b.step();
    return b.x.grad().to_vector();
  });
  bench::LitgradBlock b = make();
  litgrad::set_num_threads(2);
  for (auto _ : state) b.step();
  litgrad::set_num_threads(1);
  state.counters["same bits"] = same;
}

// Workload 9: the GPT step on 2 threads; "same bits": three steps' losses and the last
// parameters equal on 2 threads and on one.
void GPTStepThreads_litgrad(benchmark::State& state) {
  const bool same = same_bits_on(2, [] {
    bench::LitgradGPTStep g;
    std::vector<double> out;
    for (int i = 0; i < 3; ++i) out.push_back(g.step());
    for (const litgrad::Tensor& p : g.model.parameters())
      for (double v : p.to_vector()) out.push_back(v);
    return out;
  });
  bench::LitgradGPTStep g;
  litgrad::set_num_threads(2);
  for (auto _ : state) benchmark::DoNotOptimize(g.step());
  litgrad::set_num_threads(1);
  state.counters["same bits"] = same;
}

void EigenGemm(benchmark::State& state) {
  const Eigen::Index n = state.range(0);
  const Eigen::MatrixXd a = Eigen::MatrixXd::Random(n, n), b = Eigen::MatrixXd::Random(n, n);
  Eigen::MatrixXd c(n, n);
  for (auto _ : state) {
    c.noalias() = a * b;
    benchmark::DoNotOptimize(c.data());
  }
  state.counters["FLOP/s"] = benchmark::Counter(2.0 * n * n * n, benchmark::Counter::kIsIterationInvariantRate);
}

#ifdef LITGRAD_BENCH_TORCH
void FlagStep_libtorch(benchmark::State& state) {
  const bench::FlagData data = bench::flag_data(16, 3);
  std::vector<torch::Tensor> tokens, answers;
  for (int i = 0; i < 16; ++i)
    tokens.push_back(bench::to_torch(data.tokens[i])), answers.push_back(bench::to_torch(data.answers[i]));
  bench::TorchFlagModel model;
  std::size_t i = 0;
  for (auto _ : state) benchmark::DoNotOptimize(model.step(tokens[i % 16], answers[i % 16])), ++i;
}

void Block_libtorch(benchmark::State& state) {
  bench::TorchBlock b(state.range(0), state.range(1), state.range(2), state.range(3), state.range(4));
  for (auto _ : state) b.step();
}

void Attention_libtorch(benchmark::State& state) {
  const std::int64_t L = state.range(0), N = state.range(1), E = state.range(2), H = state.range(3);
  bench::TorchAttention a(L, N, E, H);
  for (auto _ : state) a.step();
  state.counters["FLOP/s"] =
      benchmark::Counter(bench::attention_flops(L, N, E), benchmark::Counter::kIsIterationInvariantRate);
}

void GPTStep_libtorch(benchmark::State& state) {
  bench::TorchGPTStep g(state.range(0) == 64 ? torch::kDouble : torch::kFloat);
  for (auto _ : state) benchmark::DoNotOptimize(g.step());
}

void Decode_libtorch(benchmark::State& state) {
  bench::TorchDecode d(state.range(0) == 64 ? torch::kDouble : torch::kFloat);
  for (auto _ : state) benchmark::DoNotOptimize(d.step());
}
#endif

// Which BLAS library this process loaded (libtorch's GEMMs go through it).
std::string loaded_blas() {
  std::ifstream maps("/proc/self/maps");
  for (std::string line; std::getline(maps, line);)
    if (line.find("blas") != std::string::npos) return line.substr(line.find('/'));
  return "none loaded";
}

// The kernels OpenBLAS picked for this processor ("Haswell", "SkylakeX", ...), which
// OPENBLAS_CORETYPE overrides; "not OpenBLAS" when the loaded BLAS is another. Looked up at
// run time: the BLAS is whichever Debian's alternatives point libtorch at.
std::string openblas_kernel() {
  using CoreName = char* (*)();
  auto core = reinterpret_cast<CoreName>(dlsym(RTLD_DEFAULT, "openblas_get_corename"));
  return core ? std::string(core()) : "not OpenBLAS";
}

}  // namespace

int main(int argc, char** argv) {
  benchmark::Initialize(&argc, argv);
  litgrad::set_num_threads(1);  // workload 9 sets 2 while it runs
#ifdef LITGRAD_BENCH_TORCH
  torch::set_num_threads(1);
  torch::manual_seed(0);
#endif
  // Interleaved: each workload in litgrad, then in libtorch.
  benchmark::RegisterBenchmark("FlagStep/litgrad", FlagStep_litgrad)->Unit(benchmark::kMicrosecond);
#ifdef LITGRAD_BENCH_TORCH
  benchmark::RegisterBenchmark("FlagStep/libtorch", FlagStep_libtorch)->Unit(benchmark::kMicrosecond);
#endif
  benchmark::RegisterBenchmark("EigenGemm", EigenGemm)->Arg(1024)->Unit(benchmark::kMillisecond);
  benchmark::RegisterBenchmark("Attention/litgrad", Attention_litgrad)
      ->Args({128, 16, 128, 8})
      ->Unit(benchmark::kMillisecond);
#ifdef LITGRAD_BENCH_TORCH
  benchmark::RegisterBenchmark("Attention/libtorch", Attention_libtorch)
      ->Args({128, 16, 128, 8})
      ->Unit(benchmark::kMillisecond);
#endif
  for (std::int64_t L = 16; L <= 1024; L *= 2) {
    benchmark::RegisterBenchmark("Sweep/litgrad", Attention_litgrad)
        ->Args({L, 4, 64, 4})
        ->Unit(benchmark::kMillisecond);
#ifdef LITGRAD_BENCH_TORCH
    benchmark::RegisterBenchmark("Sweep/libtorch", Attention_libtorch)
        ->Args({L, 4, 64, 4})
        ->Unit(benchmark::kMillisecond);
#endif
  }
  // The pre-norm block of workload 6: at the size, and swept over L = 16 ... 256.
  for (std::int64_t L : {16, 32, 64, 128, 256}) {
    benchmark::RegisterBenchmark("Block/litgrad", Block_litgrad)
        ->Args({L, 16, 64, 4, 256})
        ->Unit(benchmark::kMillisecond);
#ifdef LITGRAD_BENCH_TORCH
    benchmark::RegisterBenchmark("Block/libtorch", Block_libtorch)
        ->Args({L, 16, 64, 4, 256})
        ->Unit(benchmark::kMillisecond);
#endif
  }
  // Chapter 12's GPT: a training step and a decoding step; libtorch in double (arg 64) and in
  // float32 (arg 32).
  benchmark::RegisterBenchmark("GPTStep/litgrad", GPTStep_litgrad)->Unit(benchmark::kMillisecond);
  benchmark::RegisterBenchmark("Decode/litgrad", Decode_litgrad)->Unit(benchmark::kMicrosecond);
#ifdef LITGRAD_BENCH_TORCH
  benchmark::RegisterBenchmark("GPTStep/libtorch", GPTStep_libtorch)->Arg(64)->Unit(benchmark::kMillisecond);
  benchmark::RegisterBenchmark("GPTStep/libtorch", GPTStep_libtorch)->Arg(32)->Unit(benchmark::kMillisecond);
  benchmark::RegisterBenchmark("Decode/libtorch", Decode_libtorch)->Arg(64)->Unit(benchmark::kMicrosecond);
  benchmark::RegisterBenchmark("Decode/libtorch", Decode_libtorch)->Arg(32)->Unit(benchmark::kMicrosecond);
#endif
  // Two threads (workload 9), beside the one-thread runs above.
  for (std::int64_t L : {64, 256})
    benchmark::RegisterBenchmark("BlockThreads/litgrad", BlockThreads_litgrad)
        ->Args({L, 16, 64, 4, 256})
        ->Unit(benchmark::kMillisecond);
  benchmark::RegisterBenchmark("GPTStepThreads/litgrad", GPTStepThreads_litgrad)->Unit(benchmark::kMillisecond);
#ifdef LITGRAD_BENCH_TORCH
  benchmark::AddCustomContext("peer", "libtorch " + std::string(TORCH_VERSION) + ", one thread, double");
  benchmark::AddCustomContext("blas", loaded_blas());  // libtorch links it at load time
  benchmark::AddCustomContext("blas_kernel", openblas_kernel());
#else
  benchmark::AddCustomContext("peer", "missing: libtorch is not installed (apt-get install libtorch-dev)");
#endif
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  return 0;
}
