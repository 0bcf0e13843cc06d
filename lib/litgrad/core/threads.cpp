// litgrad/core/threads.hpp: the public face of the kernels' thread count (kernels/parallel.hpp).

#include "litgrad/core/threads.hpp"

#include <string>

#include "litgrad/base/error.hpp"
#include "litgrad/kernels/parallel.hpp"

namespace litgrad {

void set_num_threads(int threads) {
  if (threads < 1 || threads > kernels::kMostThreads)
    throw ValueError("set_num_threads: the number of threads must be from 1 to ", kernels::kMostThreads, ", got ",
                     threads);
  kernels::set_thread_count(threads);
}

int get_num_threads() { return kernels::thread_count(); }

}  // namespace litgrad
