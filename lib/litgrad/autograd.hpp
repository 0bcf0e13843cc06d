#pragma once
/// \file autograd.hpp
/// \brief Switching gradient recording off: `NoGradGuard`, as torch's `with torch.no_grad():`.
///
/// While recording is on (the default), every operation on a tensor that requires grad
/// records how to push a gradient back to its inputs. `Tensor::backward()` then walks those
/// records in reverse topological order. Evaluation, optimiser updates and the backward pass
/// itself run with recording off.

namespace litgrad {

/// \brief Whether operations currently record their history (per thread).
bool is_grad_enabled();

/// \brief Turns recording on or off for this thread; prefer NoGradGuard.
void set_grad_enabled(bool enabled);

/// \brief How many recorded operations are alive right now, in all threads.
///
/// A graph lives as long as some tensor made in it does, and is freed with the last one: in a
/// training loop this number returns to the same value after every step. Meant for tests and
/// for readers who want to watch a graph come and go.
long live_graph_nodes();

/// \brief Turns gradient recording off for its lifetime and restores the previous state.
///
/// \code
/// { NoGradGuard no_grad; Tensor y = model(x); }   // y has no history
/// \endcode
class NoGradGuard {
 public:
  NoGradGuard();
  ~NoGradGuard();
  NoGradGuard(const NoGradGuard&) = delete;
  NoGradGuard& operator=(const NoGradGuard&) = delete;

 private:
  bool previous_;
};

}  // namespace litgrad
