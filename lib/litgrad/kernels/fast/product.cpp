// The fast room's matrix products (kernels/product.hpp), with Eigen: the only file of the
// library that includes Eigen.

#include <algorithm>
#include <cstring>
#include <tuple>
#include <utility>
#include <vector>

#include "litgrad/kernels/fast/small_product.hpp"
#include "litgrad/kernels/parallel.hpp"
#include "litgrad/kernels/product.hpp"

// Eigen's GEMM for every product we hand it, never its coefficient-based product (see Impl).
#define EIGEN_GEMM_TO_COEFFBASED_THRESHOLD 0
// Eigen starts no threads of its own: litgrad shares the work out itself, across outputs only
// (kernels/parallel.hpp), so that no result depends on the thread count.
#define EIGEN_DONT_PARALLELIZE
#include <Eigen/Core>

namespace litgrad::kernels::fast {

namespace {

using RowMajorMatrix = Eigen::Matrix<double, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>;
using RowMap = Eigen::Map<RowMajorMatrix>;

// Every element of a product that litgrad computes depends only on its row of A and its
// column of B, so equal inputs give bit-identical outputs wherever they sit (the book's exact
// claims rest on it). Eigen alone does not promise that: its GEMM computes mr x nr tiles of
// results and the tiles at the edges go through other code that adds in another order. So every
// element must go through the same code. Eigen's GEMM
// gives C's columns to its main kernel, mr columns (a tile) at a time, and what is left to
// narrower kernels: with FMA a tile is three SIMD packets and the two-packet kernel after it
// adds each sum in the same order; a one-packet kernel, and scalar code for fewer columns than
// a packet, add differently. So when C's rows come in whole tiles, Eigen writes C directly, in
// calls whose column counts leave nothing to those (see split_columns), and the last columns
// go through a copy of B's last columns padded with zeros to a width that does (Eigen splits
// each sum into the same blocks in every call: their length depends on k alone). Otherwise we
// hand Eigen copies padded with zeros to whole tiles, then copy the product out. GEMM pays for
// its packing only when all three sizes are large, or a sum is longer than one block (plan() in
// kernels/product.hpp picks the path); short sums (k <= 8, such as a Linear layer on two
// features) and products with few rows or columns go to small_product
// (kernels/fast/small_product.hpp), which adds the same chains with no setting up.
constexpr Eigen::Index kTileRows = Eigen::internal::gebp_traits<double, double>::mr;
constexpr Eigen::Index kTileCols = Eigen::internal::gebp_traits<double, double>::nr;
constexpr Eigen::Index kPacket = Eigen::internal::packet_traits<double>::size;
Eigen::Index round_up(Eigen::Index n, Eigen::Index to) { return (n + to - 1) / to * to; }
static_assert(kTileRows % kPacket == 0 && kTileRows <= 3 * kPacket, "GEMM's tiles are one to three packets wide");
// Whether the two-packet kernel adds like the main one: when a tile is three packets (with FMA;
// without, a tile is two packets and the next kernel is the one-packet one).
constexpr bool kTwoPacketsFit = kTileRows == 3 * kPacket;
// The width that the last columns, those no direct call may take, are padded to.
constexpr Eigen::Index kTailWidth = kTwoPacketsFit ? 2 * kPacket : kTileRows;

// C's m columns in three groups that leave the narrower kernels nothing that adds differently:
// [0, first) and [first, direct) in one call each, and [direct, m) padded to kTailWidth. With
// three-packet tiles, when the whole packets leave one over (128 = 5 x 24 + 8), the first call
// takes all but 16 columns (112 = 4 x 24 + 16, ending in a two-packet tile), the second 16.
struct ColumnSplit {
  Eigen::Index first, direct;
};
ColumnSplit split_columns(Eigen::Index m) {
  if (!kTwoPacketsFit) return {m - m % kTileRows, m - m % kTileRows};
  const Eigen::Index packed = m - m % kPacket;
  const bool one_packet_left = packed % kTileRows == kPacket && packed > kTileRows;
  return {one_packet_left ? packed - 2 * kPacket : packed, packed};
}

// When sums skip terms (see gemm_blocks), C's rows go in blocks of this many: a multiple of a
// tile's rows (Eigen's nr), so every block takes the direct path.
constexpr std::int64_t kBlockRows = 32;
static_assert(kBlockRows % kTileCols == 0, "blocks of whole tiles");

// Whether Eigen's GEMM adds each sum of an n x k times k x m product in one pass over its k
// terms: when k fits one block of kDepthBlock terms (ThreadBlocking fixes the blocks' length;
// past it Eigen adds up the blocks' sums, as kernels/product.hpp says).
bool one_pass(Eigen::Index, Eigen::Index k, Eigen::Index) { return k <= kDepthBlock; }

// Whether x[0, n) are all zero (+0 or -0), and whether they are all finite. Both test the bits
// (a double is zero when all bits but the sign are; not finite when all exponent bits are set),
// many at a time without a branch, which the compiler turns into SIMD instructions: the
// zero-skipping of gemm_blocks scans whole attention weights with them.
constexpr std::int64_t kWords = 8, kChunk = 4 * kWords;
std::uint64_t bits(const double* x) {
  std::uint64_t u;
  std::memcpy(&u, x, sizeof u);
  return u;
}
[[gnu::noinline]] bool chunk_zero(const double* x) {  // x[0, kChunk); inlined, it is no longer SIMD
  std::uint64_t lane[kWords];
  for (std::int64_t l = 0; l < kWords; ++l)
    lane[l] = (bits(x + l) | bits(x + kWords + l) | bits(x + 2 * kWords + l) | bits(x + 3 * kWords + l)) << 1;
  std::uint64_t any = 0;
  for (std::int64_t l = 0; l < kWords; ++l) any |= lane[l];
  return any == 0;
}
bool all_zero(const double* x, std::int64_t n) {
  std::int64_t j = 0;
  for (; j + kChunk <= n; j += kChunk)
    if (!chunk_zero(x + j)) return false;
  for (; j < n; ++j)
    if (bits(x + j) << 1) return false;
  return true;
}
bool all_finite(const double* x, std::int64_t n) {
  constexpr std::uint64_t exponent = 0x7ff0000000000000;
  std::uint64_t bad = 0;
  for (std::int64_t j = 0; j < n; ++j) bad |= (bits(x + j) & exponent) == exponent;
  return bad == 0;
}

// Eigen's GEMM packs blocks of its operands into two work buffers. Left to itself it allocates
// them on every call, and at attention's sizes malloc hands them over as fresh pages from the
// operating system, whose page faults cost more than a tenth of an attention step. These
// buffers are kept per thread instead, grown to the largest request. The blocks of rows and
// columns are Eigen's own choice; the blocks of terms are kDepthBlock long whatever the CPU's
// caches, since their length decides how each sum is added (kernels/product.hpp).
class ThreadBlocking : public Eigen::internal::level3_blocking<double, double> {
 public:
  // For Eigen's column-major view of the product: rows x depth times depth x cols.
  ThreadBlocking(Eigen::Index rows, Eigen::Index cols, Eigen::Index depth) {
    m_mc = rows;
    m_nc = cols;
    m_kc = depth;
    Eigen::internal::computeProductBlockingSizes<double, double, 1>(m_kc, m_mc, m_nc, Eigen::Index{1});
    m_kc = std::min<Eigen::Index>(depth, kDepthBlock);
    thread_local Buffer a, b;
    m_blockA = reserve(a, m_mc * m_kc);
    m_blockB = reserve(b, m_kc * m_nc);
  }

 private:
  using Buffer = std::vector<double, Eigen::aligned_allocator<double>>;  // the kernel loads aligned packets
  static double* reserve(Buffer& buffer, Eigen::Index size) {
    if (buffer.size() < static_cast<std::size_t>(size)) buffer.resize(static_cast<std::size_t>(size));
    return buffer.data();
  }
};

// C = op(A) op(B) by Eigen's GEMM, as Eigen's `C.noalias() = op(A) * op(B)` computes it (C set
// to zero, then the product added), or C += op(A) op(B) without `zero`, with ThreadBlocking's
// buffers. C: n x m, row-major, rows ldc apart; op(A): n x k stored in order AOrder with
// leading dimension lda; op(B) likewise.
template <int AOrder, int BOrder>
void gemm(double* c, Eigen::Index ldc, const double* a, Eigen::Index lda, const double* b, Eigen::Index ldb,
          Eigen::Index n, Eigen::Index k, Eigen::Index m, bool zero = true) {
  if (zero)
    for (Eigen::Index i = 0; i < n; ++i) std::fill_n(c + i * ldc, m, 0.0);
  ThreadBlocking blocking(m, n, k);  // Eigen computes a row-major product as its transpose
  Eigen::internal::general_matrix_matrix_product<Eigen::Index, double, AOrder, false, double, BOrder, false,
                                                 Eigen::RowMajor, 1>::run(n, m, k, a, lda, b, ldb, c, 1, ldc, 1.0,
                                                                          blocking);
}

}  // namespace

// The GEMM path of Product (plan() says which products take it): adds op(A) op(B) (n x k
// times k x m) into row-major n x m matrices, or writes it there when `overwrite` (the matrix
// then need not be initialised), one product at a time, reusing its buffers. A's and B's
// matrices are row-major r x c, transposed when asked.
class Product::Impl {
 public:
  // Everything is row-major, like our tensors, so packing and copying out run along rows.
  // Eigen computes a row-major product as the transposed column-major one, so there the
  // tiles are mr columns by nr rows: m is padded to whole mr, n to whole nr.
  Impl(std::int64_t n, std::int64_t k, std::int64_t m, bool overwrite, bool skip_zero_terms)
      : n_(n), k_(k), m_(m), overwrite_(overwrite) {
    // Eigen's GEMM adds into C: each element becomes C + (its sum), rounded once, as adding the
    // product afterwards would give, when each sum is added in one pass (one_pass()).
    // The direct path is for GEMM's large sizes only: a long sum with a narrow C also goes to
    // GEMM (plan()), and written directly Eigen adds some of its columns in another order.
    direct_ = n >= 16 && m >= 16 && n % kTileCols == 0 && (overwrite || one_pass(n, k, m));
    if (direct_) {
      skips_terms_ = skip_zero_terms && one_pass(n, k, m);
      return;
    }
    a_.resize(round_up(n, kTileCols), k);
    b_.resize(k, round_up(m, kTileRows));
    product_.resize(a_.rows(), b_.cols());
    a_.bottomRows(a_.rows() - n).setZero();  // the padding; pack() fills the rest every time
    b_.rightCols(b_.cols() - m).setZero();
  }

  void add(double* c, const Matrix& A, const Matrix& B, std::int64_t* columns) {
    // (plan() sends here only sums of more than 8 terms.)
    const double *a = A.data, *b = B.data;
    const std::int64_t ac = A.cols, bc = B.cols;
    const bool ta = A.transposed, tb = B.transposed;
    if (columns && !direct_) std::fill_n(columns, n_, m_);  // only gemm_blocks leaves some out
    if (n_ == 0 || m_ == 0) return;                         // no elements (and empty operands' data may be null)
    if (direct_) {  // the transpose of a row-major matrix is the column-major one, same leading dimension
      constexpr int R = Eigen::RowMajor, C = Eigen::ColMajor;
      if (ta && tb) return gemm_blocks<C, C>(c, a, ac, b, bc, columns);
      if (ta) return gemm_blocks<C, R>(c, a, ac, b, bc, columns);
      if (tb) return gemm_blocks<R, C>(c, a, ac, b, bc, columns);
      return gemm_blocks<R, R>(c, a, ac, b, bc, columns);
    }
    pack(a, A.rows, ac, ta, a_);
    pack(b, B.rows, bc, tb, b_);
    gemm<Eigen::RowMajor, Eigen::RowMajor>(product_.data(), b_.cols(), a_.data(), k_, b_.data(), b_.cols(), a_.rows(),
                                           k_, b_.cols());
    RowMap out(c, n_, m_);
    if (overwrite_)
      out.noalias() = product_.topLeftCorner(n_, m_);
    else
      out.noalias() += product_.topLeftCorner(n_, m_);
  }

 private:
  // One product C = op(A) op(B), n x k times k x m, written straight into C (whose rows are
  // ldc apart; see the comment on kTileRows), in the column groups of split_columns().
  template <int AOrder, int BOrder>
  void gemm_direct(double* c, std::int64_t ldc, const double* a, std::int64_t lda, const double* b, std::int64_t ldb,
                   std::int64_t n, std::int64_t k, std::int64_t m) {
    const auto [first, direct] = split_columns(m);
    auto column = [&](std::int64_t j) { return BOrder == Eigen::RowMajor ? b + j : b + j * ldb; };  // of op(B)
    if (first > 0) gemm<AOrder, BOrder>(c, ldc, a, lda, b, ldb, n, k, first, overwrite_);
    if (direct > first)
      gemm<AOrder, BOrder>(c + first, ldc, a, lda, column(first), ldb, n, k, direct - first, overwrite_);
    const std::int64_t tail = m - direct;
    if (tail == 0) return;
    // op(B)'s last columns padded to kTailWidth, and their product: each thread's own, kept.
    thread_local std::vector<double> tail_b, tail_c;
    tail_b.resize(static_cast<std::size_t>(k * kTailWidth));
    tail_c.resize(static_cast<std::size_t>(n * kTailWidth));
    for (std::int64_t p = 0; p < k; ++p)  // op(B)'s last columns, then zeros, into tail_b
      for (std::int64_t j = 0; j < kTailWidth; ++j)
        tail_b[p * kTailWidth + j] = j >= tail                   ? 0.0
                                     : BOrder == Eigen::RowMajor ? b[p * ldb + direct + j]
                                                                 : b[(direct + j) * ldb + p];
    gemm<AOrder, Eigen::RowMajor>(tail_c.data(), kTailWidth, a, lda, tail_b.data(), kTailWidth, n, k, kTailWidth);
    for (std::int64_t i = 0; i < n; ++i)
      for (std::int64_t j = 0; j < tail; ++j)
        c[i * ldc + direct + j] =
            overwrite_ ? tail_c[i * kTailWidth + j] : c[i * ldc + direct + j] + tail_c[i * kTailWidth + j];
  }

  // The direct product in blocks of kBlockRows rows of C, each block leaving out work that
  // cannot change a bit of what it keeps, the blocks shared out among threads.
  //  - Zero terms. Attention's weights under a causal mask are zero past the diagonal, so
  //    about half of the terms of weights @ V, and of the products in its gradient, are zero.
  //    A block sums only over the terms p in [lo, hi) outside which op(A)'s rows in the block
  //    are all zero. Leaving a zero term out of a sum cannot change a bit of it when op(B) is
  //    finite (0 x inf would be NaN) and each sum is added in one pass (one_pass()): Eigen's
  //    kernels start every sum at +0 and add term after term, and adding a product 0 x b
  //    (which is +0 or -0) to a sum leaves it as it was, +0 included (-0 + +0 is +0).
  //  - Columns (only when the caller passes `columns`). Row i needs only its first columns[i]
  //    columns: a block computes the most any of its rows needs, and columns[i] says how many
  //    row i got. Every element is computed as in the whole product (the position invariance
  //    above); the caller vouches that the rest are not needed.
  //  - Threads (kernels/parallel.hpp). The blocks are cut into parts of about equal work, one
  //    per thread; the same position invariance makes every element's bits the same whichever
  //    part computes it.
  // Consecutive blocks of a part that keep the same work go to Eigen as one call.
  template <int AOrder, int BOrder>
  void gemm_blocks(double* c, const double* a, std::int64_t lda, const double* b, std::int64_t ldb,
                   std::int64_t* columns) {
    const std::int64_t most_parts = (n_ + kBlockRows - 1) / kBlockRows;
    const std::int64_t parts = parts_for(n_ * k_ * m_, most_parts);
    if (!skips_terms_ && !columns && parts == 1) return gemm_direct<AOrder, BOrder>(c, m_, a, lda, b, ldb, n_, k_, m_);
    blocks_.clear();
    blocks_.reserve(static_cast<std::size_t>(most_parts) + 1);
    bool skips = false;
    for (std::int64_t r0 = 0; r0 < n_; r0 += kBlockRows) {
      const std::int64_t r1 = std::min(n_, r0 + kBlockRows);
      Block block{r0, 0, k_, m_};
      if (skips_terms_) {
        std::tie(block.lo, block.hi) = nonzero_terms<AOrder>(a, lda, r0, r1);
        skips = skips || block.lo > 0 || block.hi < k_;
      }
      if (columns) {  // none, or at least kTailWidth: fewer would go to a kernel that adds differently
        const std::int64_t most = *std::max_element(columns + r0, columns + r1);
        block.cols = most <= 0 ? 0 : std::min(m_, std::max<std::int64_t>(most, kTailWidth));
      }
      blocks_.push_back(block);
    }
    if (skips && !all_finite(b, k_ * m_))  // op(B): B is contiguous, m x k or k x m
      for (Block& block : blocks_) block.lo = 0, block.hi = k_;
    blocks_.push_back({n_, 0, 0, 0});  // the end
    if (parts == 1)                    // on this thread, without cutting the blocks into parts or handing them over
      return gemm_some_blocks<AOrder, BOrder>(0, blocks_.size() - 1, c, a, lda, b, ldb, columns);
    const std::vector<std::size_t> cuts = cut(parts);
    parallel_for(parts, [&](std::int64_t part) {
      gemm_some_blocks<AOrder, BOrder>(cuts[part], cuts[part + 1], c, a, lda, b, ldb, columns);
    });
  }

  // Blocks [first, last) of blocks_ (see gemm_blocks).
  template <int AOrder, int BOrder>
  void gemm_some_blocks(std::size_t first, std::size_t last, double* c, const double* a, std::int64_t lda,
                        const double* b, std::int64_t ldb, std::int64_t* columns) {
    // op(A)'s element (i, p), and the start of op(B)'s row p.
    auto a_at = [&](std::int64_t i, std::int64_t p) {
      return AOrder == Eigen::RowMajor ? a + i * lda + p : a + p * lda + i;
    };
    auto b_row = [&](std::int64_t p) { return BOrder == Eigen::RowMajor ? b + p * ldb : b + p; };
    while (first < last) {
      const Block& f = blocks_[first];
      std::size_t next = first + 1;
      while (next < last && blocks_[next].lo == f.lo && blocks_[next].hi == f.hi && blocks_[next].cols == f.cols)
        ++next;
      const std::int64_t end = blocks_[next].row, rows = end - f.row;  // blocks_ ends with the end
      if (columns) std::fill_n(columns + f.row, rows, f.cols);
      if (f.cols > 0 && f.hi <= f.lo)  // op(A)'s rows all zero: sums of no terms, +0
        for (std::int64_t i = f.row; i < end; ++i)
          for (std::int64_t j = 0; j < f.cols; ++j) c[i * m_ + j] = overwrite_ ? 0.0 : c[i * m_ + j] + 0.0;
      else if (f.cols > 0)
        gemm_direct<AOrder, BOrder>(c + f.row * m_, m_, a_at(f.row, f.lo), lda, b_row(f.lo), ldb, rows, f.hi - f.lo,
                                    f.cols);
      first = next;
    }
  }

  // Where `parts` parts of about equal work begin among blocks_ (the last entry, the end, is
  // not a block): cuts[i] is part i's first block, and cuts[parts] the end.
  std::vector<std::size_t> cut(std::int64_t parts) const {
    const std::size_t count = blocks_.size() - 1;
    auto work = [&](std::size_t i) {
      const Block& f = blocks_[i];
      return (blocks_[i + 1].row - f.row) * std::max<std::int64_t>(f.hi - f.lo, 1) * std::max<std::int64_t>(f.cols, 1);
    };
    std::int64_t total = 0;
    for (std::size_t i = 0; i < count; ++i) total += work(i);
    std::vector<std::size_t> cuts{0};
    std::int64_t done = 0;
    for (std::size_t i = 0; i < count && static_cast<std::int64_t>(cuts.size()) < parts; ++i) {
      done += work(i);
      if (done * parts >= total * static_cast<std::int64_t>(cuts.size()) && i + 1 < count) cuts.push_back(i + 1);
    }
    while (static_cast<std::int64_t>(cuts.size()) <= parts) cuts.push_back(count);
    return cuts;
  }

  // [lo, hi): terms p outside which op(A)'s rows [r0, r1) are all zero (lo >= hi when they are
  // zero throughout). It looks from either end and stops at the first nonzero, so a dense
  // block costs a few reads; along rows it moves in whole chunks of kChunk terms.
  template <int AOrder>
  std::pair<std::int64_t, std::int64_t> nonzero_terms(const double* a, std::int64_t lda, std::int64_t r0,
                                                      std::int64_t r1) const {
    std::int64_t lo = k_, hi = 0;
    if (AOrder == Eigen::RowMajor) {  // op(A)'s row i is a's row i
      for (std::int64_t i = r0; i < r1; ++i) {
        const double* row = a + i * lda;
        std::int64_t p = 0, q = k_;
        if (row[0] == 0.0)  // (a dense row stops at its first element, without a chunk)
          while (p + kChunk <= lo && chunk_zero(row + p)) p += kChunk;  // whole chunks of zeros, up to lo
        if (row[k_ - 1] == 0.0)
          while (q - kChunk >= hi && chunk_zero(row + q - kChunk)) q -= kChunk;  // and from the end, down to hi
        lo = p;
        hi = q;
      }
    } else {  // op(A)'s rows r0..r1 are a's columns: scan a's rows, segment [r0, r1) of each
      auto zero = [&](std::int64_t p) { return a[p * lda + r0] == 0.0 && all_zero(a + p * lda + r0, r1 - r0); };
      lo = 0;
      while (lo < k_ && zero(lo)) ++lo;
      hi = k_;
      while (hi > lo && zero(hi - 1)) --hi;
    }
    return {lo, hi};
  }

  // The row-major r x c matrix at `src` (transposed first if asked) into the top-left corner of
  // `dst`; the rest of `dst` stays zero.
  static void pack(const double* src, std::int64_t r, std::int64_t c, bool transposed, RowMajorMatrix& dst) {
    const Eigen::Map<const RowMajorMatrix> m(src, r, c);
    if (transposed)
      dst.topLeftCorner(c, r) = m.transpose();
    else
      dst.topLeftCorner(r, c) = m;
  }

  std::int64_t n_, k_, m_;
  bool overwrite_;
  bool direct_ = false;       // GEMM writing C itself (see gemm_direct)
  bool skips_terms_ = false;  // gemm_blocks may leave zero terms out of sums
  // gemm_blocks: C's rows from `row` on, summing terms [lo, hi), in their first `cols` columns.
  struct Block {
    std::int64_t row, lo, hi, cols;
  };
  std::vector<Block> blocks_;
  // Padded operands and product (the other GEMM products, whose results depend on the
  // alignment of the product: Eigen aligns its own matrices).
  RowMajorMatrix a_, b_, product_;
};

Product::Product(std::int64_t n, std::int64_t k, std::int64_t m, bool overwrite, bool skip_zero_terms)
    : n_(n), k_(k), m_(m), overwrite_(overwrite) {
  if (kOwnProducts && plan(n, k, m).path == ProductPlan::Path::Gemm)
    impl_ = std::make_unique<Impl>(n, k, m, overwrite, skip_zero_terms);
}

Product::~Product() = default;

void Product::add(double* c, const Matrix& a, const Matrix& b, std::int64_t* columns) {
  if (impl_) return impl_->add(c, a, b, columns);
  // Without FMA, Eigen's kernels would round each product and each sum apart (kOwnProducts).
  if (!kOwnProducts) return plain::Product(n_, k_, m_, overwrite_).add(c, a, b, columns);
  if (columns) std::fill_n(columns, n_, m_);  // a small product writes whole rows
  if (n_ == 0 || m_ == 0) return;             // no elements (and empty operands' data may be null)
  if (k_ == 0) {                              // a sum of no products
    if (overwrite_) std::fill_n(c, n_ * m_, 0.0);
    return;
  }
  small_product(c, overwrite_, a, b, n_, k_, m_);
}

}  // namespace litgrad::kernels::fast
