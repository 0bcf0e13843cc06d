#pragma once
// Work split across threads without changing a bit (litgrad/core/threads.hpp): a kernel cuts its
// outputs into parts, each part computed as it would be alone, and parallel_for runs the parts.
// Only the library's own .cpp files (and the kernels' tests) include this.
//
// Bits stay the same because a part never shares a sum with another: each output is computed
// by one part, by the same code in the same order as a run on one thread computes it. The
// plain room runs the parts one after another, in order; the fast room hands them to a pool of
// threads. Which thread runs which part, and when, then changes nothing but the time.

#include <algorithm>
#include <cstdint>
#include <functional>

#include "litgrad/kernels/room.hpp"

namespace litgrad::kernels {

/// The most threads litgrad::set_num_threads and LITGRAD_THREADS may ask for.
constexpr int kMostThreads = 1024;

/// The number of threads kernels may use: LITGRAD_THREADS, else the machine's cores, until
/// set_thread_count() (litgrad::set_num_threads checks its argument). \throws ValueError for a
/// LITGRAD_THREADS that is not a whole number from 1 to kMostThreads.
int thread_count();
void set_thread_count(int threads);
/// The thread count a value of LITGRAD_THREADS asks for (null: unset, the machine's cores).
/// \throws ValueError, naming LITGRAD_THREADS and the value, for anything but 1 to kMostThreads.
int thread_count_from(const char* variable);

/// Multiply-adds (or their like) below which a part is not worth a thread: handing a part to
/// a worker that is watching for it (kernels/fast/parallel.cpp) costs about a microsecond, in
/// which a core does some tens of thousands of multiply-adds, so a smaller part would cost more
/// to hand over than to do. The kernels' tests lower it, so that small shapes are split too;
/// it changes the time, never the bits (tools/bench's two-thread table shows what threads buy).
constexpr std::int64_t kWorkPerPart = std::int64_t{1} << 16;
std::int64_t work_per_part();
void set_work_per_part(std::int64_t work);

/// How many parts to cut `work` (multiply-adds) into: one per thread, but none smaller than
/// work_per_part(), and never more than `most` (the outputs there are to split).
inline std::int64_t parts_for(std::int64_t work, std::int64_t most) {
#if LITGRAD_FAST
  return std::max<std::int64_t>(1, std::min({std::int64_t{thread_count()}, work / work_per_part(), most}));
#else
  (void)work, (void)most;
  return 1;  // the plain room runs on one thread
#endif
}

namespace plain {
/// part(0), part(1), ..., part(parts - 1), in order.
inline void parallel_for(std::int64_t parts, const std::function<void(std::int64_t)>& part) {
  for (std::int64_t i = 0; i < parts; ++i) part(i);
}
}  // namespace plain

namespace fast {
/// part(i) for every i in [0, parts), on up to thread_count() threads, this one among them;
/// returns when all are done. A call made from inside a part, or while another thread's call
/// is running, runs its parts on its own thread, in order. Parts must not throw.
void parallel_for(std::int64_t parts, const std::function<void(std::int64_t)>& part);
}  // namespace fast

using room::parallel_for;

/// Work, in multiply-adds, that one element of an elementwise loop is counted as: about an
/// exp's or an erf's worth, so that a loop is split only when it is long enough to pay.
constexpr std::int64_t kElementWork = 16;

/// f(begin, end) over [0, n), cut into as many ranges as parts_for(n * work_per_element) says,
/// for loops whose elements are computed each on its own (y[i] from x[i], say).
template <class F>
void in_ranges(std::int64_t n, std::int64_t work_per_element, F f) {
  const std::int64_t parts = parts_for(n * work_per_element, n);
  if (parts == 1) return f(std::int64_t{0}, n);
  parallel_for(parts, [&](std::int64_t p) { f(n * p / parts, n * (p + 1) / parts); });
}

}  // namespace litgrad::kernels
