// litgrad against libtorch, workload by workload, interleaved in one run (Google Benchmark).
// Run it through tools/bench, which sets one thread everywhere and writes the report.
//   1. FlagStep: a training step of chapter 8's flag task (batch 64).
//   2. Attention: MultiheadAttention forward + backward, L=128, N=16, E=128, 8 heads, causal.
//   3. Sweep: the same layer for L = 16 ... 1024, N=4, E=64, 4 heads.
//   6. Block: a pre-norm Transformer block (nn::TransformerEncoderLayer, causal, gelu), N=16,
//      E=64, 4 heads, feed-forward 256, for L = 16 ... 256 (L = 64 is the headline size).
//   and EigenGemm: Eigen's rate on a large square product, the yardstick for workload 2.
// Without libtorch the litgrad side still runs and the context says the peer is missing.

#include <benchmark/benchmark.h>

#include <Eigen/Core>
#include <fstream>
#include <string>

#include "workloads.hpp"
#ifdef LITGRAD_BENCH_TORCH
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
  state.counters["FLOP/s"] = benchmark::Counter(bench::attention_flops(L, N, E), benchmark::Counter::kIsIterationInvariantRate);
}

void Block_litgrad(benchmark::State& state) {
  bench::LitgradBlock b(state.range(0), state.range(1), state.range(2), state.range(3), state.range(4));
  for (auto _ : state) b.step();
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
  for (int i = 0; i < 16; ++i) tokens.push_back(bench::to_torch(data.tokens[i])), answers.push_back(bench::to_torch(data.answers[i]));
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
  state.counters["FLOP/s"] = benchmark::Counter(bench::attention_flops(L, N, E), benchmark::Counter::kIsIterationInvariantRate);
}
#endif

// Which BLAS library this process loaded (libtorch's GEMMs go through it).
std::string loaded_blas() {
  std::ifstream maps("/proc/self/maps");
  for (std::string line; std::getline(maps, line);)
    if (line.find("blas") != std::string::npos) return line.substr(line.find('/'));
  return "none loaded";
}

}  // namespace

int main(int argc, char** argv) {
  benchmark::Initialize(&argc, argv);
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
  benchmark::RegisterBenchmark("Attention/litgrad", Attention_litgrad)->Args({128, 16, 128, 8})->Unit(benchmark::kMillisecond);
#ifdef LITGRAD_BENCH_TORCH
  benchmark::RegisterBenchmark("Attention/libtorch", Attention_libtorch)->Args({128, 16, 128, 8})->Unit(benchmark::kMillisecond);
#endif
  for (std::int64_t L = 16; L <= 1024; L *= 2) {
    benchmark::RegisterBenchmark("Sweep/litgrad", Attention_litgrad)->Args({L, 4, 64, 4})->Unit(benchmark::kMillisecond);
#ifdef LITGRAD_BENCH_TORCH
    benchmark::RegisterBenchmark("Sweep/libtorch", Attention_libtorch)->Args({L, 4, 64, 4})->Unit(benchmark::kMillisecond);
#endif
  }
  // The pre-norm block of workload 6: at the size, and swept over L = 16 ... 256.
  for (std::int64_t L : {16, 32, 64, 128, 256}) {
    benchmark::RegisterBenchmark("Block/litgrad", Block_litgrad)->Args({L, 16, 64, 4, 256})->Unit(benchmark::kMillisecond);
#ifdef LITGRAD_BENCH_TORCH
    benchmark::RegisterBenchmark("Block/libtorch", Block_libtorch)->Args({L, 16, 64, 4, 256})->Unit(benchmark::kMillisecond);
#endif
  }
#ifdef LITGRAD_BENCH_TORCH
  benchmark::AddCustomContext("peer", "libtorch " + std::string(TORCH_VERSION) + ", one thread, double");
  benchmark::AddCustomContext("blas", loaded_blas());  // libtorch links it at load time
#else
  benchmark::AddCustomContext("peer", "missing: libtorch is not installed (apt-get install libtorch-dev)");
#endif
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  return 0;
}
