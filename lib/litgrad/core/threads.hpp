#pragma once
/// \file threads.hpp
/// \brief How many threads litgrad's fast kernels may use, as `torch.set_num_threads`.
///
/// Threads change no bit. Work is split across the outputs of a kernel (a matrix product's
/// rows, a batch's matrices), never inside a sum: every number is computed by the same
/// instructions in the same order whatever the thread count, so a run on 8 threads writes
/// exactly what a run on one thread writes (tests/test_threads.cpp holds them to it). Only the
/// fast kernels (lib/litgrad/kernels/room.hpp) use threads; a build with `LITGRAD_FAST=OFF`
/// runs on one.
///
/// The count starts as the environment variable `LITGRAD_THREADS` says, when it is set, and
/// otherwise as the number of cores the machine reports (`std::thread::hardware_concurrency`).
/// The book's tests set `LITGRAD_THREADS=1` for each test process, since CTest runs several
/// processes at once; a chapter run by hand gets every core.

namespace litgrad {

/// \brief Sets the number of threads the fast kernels may use, from the next kernel on.
/// \throws ValueError when \p threads is less than 1 or more than 1024.
void set_num_threads(int threads);

/// \brief The number of threads the fast kernels may use.
/// \throws ValueError when `LITGRAD_THREADS` is set and is not a whole number from 1 to 1024
/// (read at the first call of this or of a kernel).
int get_num_threads();

}  // namespace litgrad
