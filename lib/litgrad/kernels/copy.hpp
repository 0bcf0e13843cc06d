#pragma once
// Moving numbers without computing with them: slices, gathers, concatenations, permutations,
// broadcast copies, and the scatter-adds their gradients need. These kernels have one
// implementation, which both rooms (kernels/room.hpp) use: a copy has no order of operations
// to keep, and a second version would have nothing to add. A scatter-add adds in the order the
// comment gives. Only the library's own .cpp files include this.
//
// "x as [outer, n, inner]" means a tensor seen around one dimension of size n: outer the
// product of the sizes before it, inner of those after.

#include <cstdint>
#include <vector>

#include "litgrad/base/shape.hpp"

namespace litgrad::kernels {

/// The position of the first of n values outside [0, limit), or -1: for
/// checking indices before using them (the caller names the operation in its error).
std::int64_t first_outside(const double* values, std::int64_t n, double limit);

/// y (shape out) = x (shape xs, which broadcasts to out).
void expand(const double* x, const Shape& xs, double* y, const Shape& out);
/// dx (shape xs, written whole) = for each element of x, the sum of g (shape out) over the
/// elements broadcast from it, in out's row-major order.
void expand_backward(const double* g, const Shape& out, double* dx, const Shape& xs);

/// y[k] = x[source[k]] for every k.
void take(const double* x, const std::vector<std::int64_t>& source, double* y);
/// dx (dx_n elements, written whole) = 0, then dx[source[k]] += g[k] for k = 0, 1, ...
void take_backward(const double* g, const std::vector<std::int64_t>& source, double* dx, std::int64_t dx_n);
/// The offsets into x (shape xs) that gather(x, d, index) reads: for every element of index
/// (shape is, values already checked), its own position with dimension d set to its value.
std::vector<std::int64_t> gather_sources(const Shape& xs, std::int64_t d, const double* index, const Shape& is);
/// The offsets into x (shape in, padded with leading 1s to out's rank) of every element of
/// repeat(x) (shape out): element i of each dimension comes from i mod the input's size.
std::vector<std::int64_t> repeat_sources(const Shape& in, const Shape& out);

/// x as [outer, n, inner]; y as [outer, rows.size(), inner]: y[o, j, :] = x[o, rows[j], :].
void index_rows(const double* x, std::int64_t outer, std::int64_t n, std::int64_t inner,
                const std::vector<std::int64_t>& rows, double* y);
/// dx (x's layout, written whole) = 0, then dx[o, rows[j], :] += g[o, j, :] in order of j,
/// leaving out j with rows[j] == skip (an embedding's padding row).
void index_rows_backward(const double* g, std::int64_t outer, std::int64_t n, std::int64_t inner,
                         const std::vector<std::int64_t>& rows, double* dx, std::int64_t skip = -1);

/// x as [outer, n, inner]; y as [outer, m, inner]: y[o, j, :] = x[o, start + j step, :].
void slice(const double* x, std::int64_t outer, std::int64_t n, std::int64_t inner, std::int64_t start, std::int64_t m,
           std::int64_t step, double* y);
/// dx (x's layout, written whole): g where slice() read, 0 elsewhere.
void slice_backward(const double* g, std::int64_t outer, std::int64_t n, std::int64_t inner, std::int64_t start,
                    std::int64_t m, std::int64_t step, double* dx);

/// y as [outer, n, inner]; piece as [outer, piece_n, inner]: y[o, at + j, :] = piece[o, j, :].
void place(const double* piece, std::int64_t outer, std::int64_t piece_n, std::int64_t inner, double* y, std::int64_t n,
           std::int64_t at);

/// y (shape [shape[p[0]], ..., shape[p[r-1]]]) = x (shape) with its dimensions permuted.
void permute(const double* x, const Shape& shape, const std::vector<std::int64_t>& p, double* y);

/// y[i] = x[i] for i < n.
void copy(const double* x, std::int64_t n, double* y);
/// y[i] = value for i < n.
void fill(double* y, std::int64_t n, double value);

}  // namespace litgrad::kernels
