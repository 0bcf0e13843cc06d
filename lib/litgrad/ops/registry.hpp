#pragma once
/// \file registry.hpp
/// \brief Every operation litgrad records for the backward pass, in one table: the library
/// records an operation only by its entry here (`op::matmul`), and every check that must cover
/// all operations reads this table, so that an operation added here without its checks fails
/// them, each naming it.
///
/// What reads the table: the gradient check of every operation against finite differences and
/// of every `Twice::yes` operation's second derivative (tests/test_gradcheck_ops.cpp), the
/// refusal of `create_graph` through a `Twice::no` one (the same file), the table of bad inputs
/// (tests/test_bad_input.cpp, a row for every operation whose `no_bad_input` is empty), the
/// fuzzer's graphs (tests/fuzz/fuzz_ops.cpp, run on fixed bytes by a test), and the mutation
/// ledger's check, which wants a killed mutation naming each operation's backward
/// (tools/litgrad_book/mutations.py reads the table's lines: keep one entry a line, as below).
///
/// To add an operation: a line here, its forward and backward in its ops/ file, recorded with
/// `detail::record(op::name, ...)`, then what the checks above ask for (docs/adding.rst).

#include "litgrad/core/op.hpp"

namespace litgrad {

/// \brief The table: LITGRAD_OP(name, twice, no_bad_input) for each operation, in name order.
/// A name is the one `grad_fn()` shows; `twice` says whether `create_graph` goes through it;
/// `no_bad_input` says why no input can be wrong for it, or is "" when some can.
// clang-format off
#define LITGRAD_OPERATIONS(LITGRAD_OP) \
  LITGRAD_OP(abs, yes, "every tensor is an input: Bool and Int64 ones are read as their numbers") \
  LITGRAD_OP(add, yes, "") \
  LITGRAD_OP(attention_weights, yes, "the library's own, whose inputs scaled_dot_product_attention checks first") \
  LITGRAD_OP(binary_cross_entropy_with_logits, no, "") \
  LITGRAD_OP(cat, yes, "") \
  LITGRAD_OP(clamp, yes, "") \
  LITGRAD_OP(clone, yes, "every tensor can be cloned") \
  LITGRAD_OP(cos, yes, "every tensor is an input: Bool and Int64 ones are read as their numbers") \
  LITGRAD_OP(div, yes, "") \
  LITGRAD_OP(embedding, yes, "") \
  LITGRAD_OP(exp, yes, "every tensor is an input: Bool and Int64 ones are read as their numbers") \
  LITGRAD_OP(expand, yes, "") \
  LITGRAD_OP(gather, yes, "") \
  LITGRAD_OP(gelu, no, "") \
  LITGRAD_OP(index_add, yes, "the library's own: the gradient of index_select, made with the shapes it recorded") \
  LITGRAD_OP(index_select, yes, "") \
  LITGRAD_OP(linear, yes, "") \
  LITGRAD_OP(log, yes, "every tensor is an input: Bool and Int64 ones are read as their numbers") \
  LITGRAD_OP(log_softmax, yes, "") \
  LITGRAD_OP(logsumexp, yes, "") \
  LITGRAD_OP(matmul, yes, "") \
  LITGRAD_OP(max, no, "") \
  LITGRAD_OP(mul, yes, "") \
  LITGRAD_OP(neg, yes, "every tensor is an input: Bool and Int64 ones are read as their numbers") \
  LITGRAD_OP(norm, no, "") \
  LITGRAD_OP(permute, yes, "") \
  LITGRAD_OP(pow, yes, "every tensor and every exponent are inputs, as in torch (a NaN where the power has none)") \
  LITGRAD_OP(pow_tensor, yes, "") \
  LITGRAD_OP(relu, yes, "every tensor is an input: Bool and Int64 ones are read as their numbers") \
  LITGRAD_OP(repeat, no, "") \
  LITGRAD_OP(reshape, yes, "") \
  LITGRAD_OP(scatter_add, yes, "the library's own: the gradient of gather, made with the shapes it recorded") \
  LITGRAD_OP(sigmoid, yes, "every tensor is an input: Bool and Int64 ones are read as their numbers") \
  LITGRAD_OP(sin, yes, "every tensor is an input: Bool and Int64 ones are read as their numbers") \
  LITGRAD_OP(slice, yes, "") \
  LITGRAD_OP(softmax, yes, "") \
  LITGRAD_OP(sqrt, yes, "every tensor is an input: Bool and Int64 ones are read as their numbers") \
  LITGRAD_OP(sub, yes, "") \
  LITGRAD_OP(sum, yes, "") \
  LITGRAD_OP(tanh, yes, "every tensor is an input: Bool and Int64 ones are read as their numbers") \
  LITGRAD_OP(unslice, yes, "the library's own: the gradient of slice and select, made with the shapes they recorded") \
  LITGRAD_OP(where, yes, "")
// clang-format on

/// \brief One constant per operation, `op::matmul` and so on: what the library records with.
namespace op {
/// \cond
#define LITGRAD_DECLARE_OP(name, twice, no_bad_input) inline constexpr Op name{#name, Twice::twice, no_bad_input};
LITGRAD_OPERATIONS(LITGRAD_DECLARE_OP)
#undef LITGRAD_DECLARE_OP
/// \endcond
}  // namespace op

/// \cond
#define LITGRAD_LIST_OP(name, twice, no_bad_input) op::name,
/// \endcond
/// \brief Every operation of the table, in its order: what the checks that must cover every
/// operation walk.
///
/// \code
/// for (const Op& op : operations) std::cout << op.name << "\n";   // abs, add, ..., where
/// \endcode
inline constexpr Op operations[] = {LITGRAD_OPERATIONS(LITGRAD_LIST_OP)};
#undef LITGRAD_LIST_OP

}  // namespace litgrad
