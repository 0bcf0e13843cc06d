// Workload 5, memory: prints JSON on one line.
//   bench_memory flag     trains chapter 8's flag model for 100,000 steps, sampling resident
//                         memory every 1,000 steps, and reports the peak
//   bench_memory sweep L  one forward and backward of the sweep's layer (N=4, E=64, 4 heads)
//                         at length L, with the peak and the size of one attention-weight tensor

#include <sys/resource.h>

#include <cstdio>
#include <cstring>
#include <fstream>
#include <string>

#include "workloads.hpp"

namespace {
long resident_kb() {
  std::ifstream statm("/proc/self/statm");
  long pages = 0, resident = 0;
  statm >> pages >> resident;
  return resident * 4;
}
long peak_kb() {
  rusage usage{};
  getrusage(RUSAGE_SELF, &usage);
  return usage.ru_maxrss;
}
}  // namespace

int main(int argc, char** argv) {
  if (argc >= 2 && std::strcmp(argv[1], "flag") == 0) {
    const bench::FlagData data = bench::flag_data(16, 3);
    bench::LitgradFlagModel model;
    std::string samples;
    for (int step = 1; step <= 100000; ++step) {
      model.step(data.tokens[step % 16], data.answers[step % 16]);
      if (step % 1000 == 0) samples += (samples.empty() ? "" : ",") + std::to_string(resident_kb());
    }
    std::printf("{\"steps\":100000,\"resident_kb_every_1000_steps\":[%s],\"peak_kb\":%ld}\n", samples.c_str(),
                peak_kb());
    return 0;
  }
  if (argc >= 3 && std::strcmp(argv[1], "sweep") == 0) {
    const long L = std::stol(argv[2]);
    const long before = resident_kb();
    bench::LitgradAttention a(L, 4, 64, 4);
    a.step();
    const double weights_kb = 4.0 * 4 * L * L * 8 / 1024;  // N * H * L * L doubles
    std::printf("{\"L\":%ld,\"peak_kb\":%ld,\"resident_before_kb\":%ld,\"attention_weights_kb\":%.0f}\n", L, peak_kb(),
                before, weights_kb);
    return 0;
  }
  std::fprintf(stderr, "usage: bench_memory flag | bench_memory sweep L\n");
  return 2;
}
