// The thread count kernels/parallel.hpp and litgrad/core/threads.hpp share: one number for the
// process, read from LITGRAD_THREADS (or the machine's cores) when first asked for.

#include "litgrad/kernels/parallel.hpp"

#include <algorithm>
#include <atomic>
#include <cstdlib>
#include <string>
#include <thread>

#include "litgrad/base/error.hpp"

namespace litgrad::kernels {

// LITGRAD_THREADS when set: a whole number from 1 to kMostThreads, or an error naming it.
int thread_count_from(const char* text) {
  if (text == nullptr) return std::max(1, static_cast<int>(std::thread::hardware_concurrency()));
  const std::string value = text;
  std::size_t used = 0;
  long threads = 0;
  try {
    threads = std::stol(value, &used);
  } catch (const std::exception&) {
    used = 0;
  }
  if (used == 0 || used != value.size() || threads < 1 || threads > kMostThreads)
    throw ValueError("LITGRAD_THREADS: the number of threads must be a whole number from 1 to ", kMostThreads,
                     ", got '", value, "'");
  return static_cast<int>(threads);
}

namespace {

std::atomic<int> count{0};  // 0 until first asked for
std::atomic<std::int64_t> least_work{kWorkPerPart};

}  // namespace

int thread_count() {
  int threads = count.load(std::memory_order_relaxed);
  if (threads == 0) {
    threads = thread_count_from(std::getenv("LITGRAD_THREADS"));
    int unset = 0;  // unless set_thread_count() came first
    if (!count.compare_exchange_strong(unset, threads)) threads = unset;
  }
  return threads;
}

void set_thread_count(int threads) { count.store(threads, std::memory_order_relaxed); }

std::int64_t work_per_part() { return least_work.load(std::memory_order_relaxed); }

void set_work_per_part(std::int64_t work) {
  least_work.store(std::max<std::int64_t>(work, 1), std::memory_order_relaxed);
}

}  // namespace litgrad::kernels
