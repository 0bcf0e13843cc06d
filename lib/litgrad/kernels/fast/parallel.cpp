// The fast room's parallel_for (kernels/parallel.hpp): a pool of threads, started when first
// needed and kept.
//
// One call at a time uses the pool. A call hands out its parts through a counter: the calling
// thread and every worker that joins take the next part until none is left, and the call
// returns once every worker that joined it has finished. A worker that comes after the call has
// ended finds no job.
//
// Waking a sleeping thread takes tens of microseconds on the machines measured (the operating
// system has to schedule it), as long as a matrix product of a few hundred thousand
// multiply-adds. So a worker that has finished a part watches for the next call for a while
// (kSpins pauses, about a tenth of a millisecond) before it sleeps: the products of a training
// step follow each other closely, and a watching worker joins the next at once. The caller
// likewise watches for its workers to finish before it sleeps. Between steps they sleep, and
// use no processor time.

#include <algorithm>
#include <atomic>
#include <condition_variable>
#include <mutex>
#include <thread>
#include <vector>

#include "litgrad/kernels/parallel.hpp"

namespace litgrad::kernels::fast {

namespace {

thread_local bool inside_a_part = false;  // set while this thread runs a part

// Pauses a watching thread spends before it sleeps.
constexpr int kSpins = 4000;

// One pause of a thread that watches a variable: it tells the processor so, which frees the
// core's resources for its other thread and saves power.
inline void pause() {
#if defined(__x86_64__) || defined(__i386__)
  __builtin_ia32_pause();
#else
  std::this_thread::yield();
#endif
}

class Pool {
 public:
  // Whether this call may have the pool: not from inside a part, and not while another call has it.
  bool acquire() {
    bool idle = false;
    return !inside_a_part && busy_.compare_exchange_strong(idle, true);
  }

  void run(std::int64_t parts, int threads, const std::function<void(std::int64_t)>& part) {
    // Workers as the parts need, up to the thread count less this thread; they are kept.
    const std::int64_t wanted = std::min<std::int64_t>(threads, parts) - 1;
    while (static_cast<std::int64_t>(workers_.size()) < wanted) workers_.emplace_back([this] { work(); });
    bool sleepers = false;
    {
      std::lock_guard<std::mutex> lock(mutex_);
      job_ = &part;
      parts_ = parts;
      next_.store(0);
      generation_.fetch_add(1);
      sleepers = sleeping_ > 0;
    }
    if (sleepers) wake_.notify_all();
    take(part, parts);
    for (int spin = 0; joined_.load() > 0 && spin < kSpins; ++spin) pause();
    std::unique_lock<std::mutex> lock(mutex_);
    done_.wait(lock, [this] { return joined_.load() == 0; });  // every part taken is finished
    job_ = nullptr;                                            // under the lock, so no worker joins from here on
    busy_.store(false);
  }

 private:
  // Runs parts until the counter passes the last.
  void take(const std::function<void(std::int64_t)>& part, std::int64_t parts) {
    inside_a_part = true;
    for (std::int64_t i = next_.fetch_add(1); i < parts; i = next_.fetch_add(1)) part(i);
    inside_a_part = false;
  }

  void work() {
    std::uint64_t seen = generation_.load();
    for (;;) {
      for (int spin = 0; generation_.load() == seen && spin < kSpins; ++spin) pause();
      std::unique_lock<std::mutex> lock(mutex_);
      if (generation_.load() == seen) {
        ++sleeping_;
        wake_.wait(lock, [&] { return generation_.load() != seen; });
        --sleeping_;
      }
      seen = generation_.load();
      if (job_ == nullptr) continue;  // the call ended before this worker came
      const auto* job = job_;
      const std::int64_t parts = parts_;
      joined_.fetch_add(1);
      lock.unlock();
      take(*job, parts);
      if (joined_.fetch_sub(1) == 1) {  // the last: the caller may be asleep
        std::lock_guard<std::mutex> last(mutex_);
        done_.notify_one();
      }
    }
  }

  std::atomic<bool> busy_{false};
  std::vector<std::thread> workers_;  // never joined: the pool lives as long as the process
  std::mutex mutex_;
  std::condition_variable wake_, done_;
  const std::function<void(std::int64_t)>* job_ = nullptr;  // the call's parts, while it runs
  std::int64_t parts_ = 0;
  int sleeping_ = 0;                          // workers asleep on wake_
  std::atomic<std::int64_t> next_{0};         // the next part to take
  std::atomic<std::uint64_t> generation_{0};  // counts calls, so a worker joins each at most once
  std::atomic<int> joined_{0};                // workers running the call's parts
};

}  // namespace

void parallel_for(std::int64_t parts, const std::function<void(std::int64_t)>& part) {
  const int threads = thread_count();
  // Made once and never destroyed: its threads may still be asleep in it when the program exits.
  static Pool* const pool = new Pool;
  if (parts <= 1 || threads <= 1 || !pool->acquire()) {
    for (std::int64_t i = 0; i < parts; ++i) part(i);
    return;
  }
  pool->run(parts, threads, part);
}

}  // namespace litgrad::kernels::fast
