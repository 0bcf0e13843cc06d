#include "litgrad/base/flop_counter.hpp"

namespace litgrad {

namespace {
// Every multiply-add this thread's products have done since it started. A running total that
// counters subtract their start from, so that counters nest without knowing of each other.
thread_local std::int64_t multiply_adds_so_far = 0;
}  // namespace

void detail::count_multiply_adds(std::int64_t multiply_adds) { multiply_adds_so_far += multiply_adds; }

FlopCounter::FlopCounter() : start_(multiply_adds_so_far) {}

std::int64_t FlopCounter::total_flops() const { return 2 * (multiply_adds_so_far - start_); }

void FlopCounter::reset() { start_ = multiply_adds_so_far; }

}  // namespace litgrad
