#pragma once
/// \file autograd.hpp
/// \brief The backward pass: gradients as values (`autograd::grad`), with higher-order
/// gradients; recording on and off comes with it (core/grad_mode.hpp).
///
/// While recording is on (the default), every operation on a tensor that requires grad
/// records how to push a gradient back to its inputs. `Tensor::backward()` then walks those
/// records in reverse topological order. Evaluation, optimiser updates and the backward pass
/// itself run with recording off, unless the backward pass is asked to record itself
/// (`create_graph`), so that its gradients can be differentiated again.
///
/// **Higher-order gradients.** With `create_graph`, every operation's backward is computed by
/// operations, and recorded, so that the gradients can be differentiated again. The table of
/// operations (ops/registry.hpp) says which operations' backward can be recorded so
/// (`Twice::yes`: all but max, norm, repeat, gelu and binary_cross_entropy_with_logits), and
/// so does everything built from those (view, flatten, squeeze, select, stack, topk, mse_loss,
/// cross_entropy, Linear layers, attention, ...), and a custom autograd::Function whose
/// backward uses them. Through any other, backward with create_graph throws AutogradError
/// naming it (tests/test_gradcheck_ops.cpp checks both against the table).

#include <optional>
#include <vector>

#include "litgrad/core/grad_mode.hpp"
#include "litgrad/core/tensor.hpp"

namespace litgrad {

namespace autograd {

/// \brief The gradients of \p outputs with respect to \p inputs, returned rather than added to
/// any grad(), as `torch.autograd.grad`.
///
/// \param outputs what to differentiate; each requires grad.
/// \param inputs the tensors to differentiate with respect to (leaves or not); each requires
///   grad. The result has one gradient per input, shaped like it.
/// \param grad_outputs one per output, the v of the vector–Jacobian products vᵀJ (empty: 1 for
///   one-element outputs).
/// \param retain_graph keep the graph for another backward (unset: as \p create_graph).
/// \param create_graph record the computation of the gradients, so that they can be
///   differentiated again: a Hessian–vector product is the gradient of gᵀv, g the gradient
///   computed with create_graph.
/// \param allow_unused return an undefined gradient for an input the outputs do not depend on,
///   instead of throwing.
///
/// \code
/// Tensor x = tensor({1, 2}).requires_grad_();
/// Tensor y = sum(x * x * x);
/// Tensor g = autograd::grad({y}, {x}, {}, {}, /*create_graph=*/true)[0];   // 3 x²
/// Tensor hv = autograd::grad({sum(g * tensor({1, 0}))}, {x})[0];         // H v = (6 x₀, 0)
/// \endcode
/// \throws AutogradError for an output or input that does not require grad, an unused input
///   (without allow_unused), a freed graph, a tensor changed in place since the forward, or an
///   operation whose gradient cannot be recorded (with create_graph), or a call inside a running
///   backward pass (from a hook: passes do not nest); ShapeError for a grad_output of the wrong
///   shape.
std::vector<Tensor> grad(const std::vector<Tensor>& outputs, const std::vector<Tensor>& inputs,
                         const std::vector<Tensor>& grad_outputs = {}, std::optional<bool> retain_graph = std::nullopt,
                         bool create_graph = false, bool allow_unused = false);

}  // namespace autograd

}  // namespace litgrad
