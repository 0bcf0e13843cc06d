// Threads change no bit (lib/litgrad/core/threads.hpp): the fast kernels split their outputs across
// threads, never a sum, so every kernel gives the bits of one thread on any number of them.
// The threshold below which a kernel keeps to one thread is lowered here, so that the small
// shapes of these tests are split as far as they go.

#include <doctest/doctest.h>

#include <cmath>
#include <cstring>
#include <thread>
#include <vector>

#include <litgrad/kernels/attention.hpp>
#include <litgrad/kernels/parallel.hpp>
#include <litgrad/kernels/product.hpp>
#include <litgrad/litgrad.hpp>

using namespace litgrad;

namespace {

using Numbers = std::vector<double>;

// Whether x and y have the same bits, element for element.
bool same_bits(const Numbers& x, const Numbers& y) {
  return x.size() == y.size() && std::memcmp(x.data(), y.data(), x.size() * sizeof(double)) == 0;
}

Numbers normals(std::int64_t count, Generator& gen) {
  Numbers v(static_cast<std::size_t>(count));
  for (double& x : v) x = gen.normal();
  return v;
}

// Sets the thread count, and the least work worth a part, for a scope; puts both back after.
class Threads {
 public:
  explicit Threads(int threads, std::int64_t work_per_part = 1)
      : threads_(get_num_threads()), work_(kernels::work_per_part()) {
    set_num_threads(threads);
    kernels::set_work_per_part(work_per_part);
  }
  ~Threads() {
    set_num_threads(threads_);
    kernels::set_work_per_part(work_);
  }
  Threads(const Threads&) = delete;
  Threads& operator=(const Threads&) = delete;

 private:
  int threads_;
  std::int64_t work_;
};

// One random batched product: C [batch, n, m] = op(A) op(B), A and B broadcast along batch.
struct ProductCase {
  Shape batch, cb, ab, bb;
  std::int64_t n, k, m;
  bool ta, tb, accumulate;
  Numbers a, b, c;

  Numbers run() const {
    Numbers out = c;
    kernels::batched_product(batch, out.data(), cb, {a.data(), ab, ta ? k : n, ta ? n : k, ta},
                             {b.data(), bb, tb ? m : k, tb ? k : m, tb}, accumulate);
    return out;
  }
};

ProductCase random_product(Generator& gen, int trial) {
  const std::vector<std::int64_t> sizes = {1, 3, 8, 16, 24, 31, 32, 33, 64, 65, 100};
  auto pick = [&] { return sizes[static_cast<std::size_t>(gen.randint(0, static_cast<std::int64_t>(sizes.size())))]; };
  ProductCase p;
  p.n = pick(), p.k = trial % 7 == 0 ? 600 : pick(), p.m = pick();  // 600: sums of two blocks
  p.ta = gen.randint(0, 2) == 1, p.tb = gen.randint(0, 2) == 1, p.accumulate = gen.randint(0, 3) == 0;
  const std::int64_t count = gen.randint(1, 6);
  p.batch = {count};
  // Each of C's matrices gets one product, or (a weight's gradient) all of them are summed into one.
  p.cb = trial % 5 == 0 ? Shape{1} : p.batch;
  p.ab = gen.randint(0, 4) == 0 ? Shape{1} : p.batch;
  p.bb = gen.randint(0, 2) == 0 ? Shape{1} : p.batch;
  p.a = normals(numel(p.ab) * p.n * p.k, gen);
  if (trial % 3 == 0 && !p.ta)  // zero after the diagonal, as causal attention's weights
    for (std::int64_t s = 0; s < numel(p.ab); ++s)
      for (std::int64_t i = 0; i < p.n; ++i)
        for (std::int64_t q = i + 1; q < p.k; ++q) p.a[static_cast<std::size_t>((s * p.n + i) * p.k + q)] = 0.0;
  p.b = normals(numel(p.bb) * p.k * p.m, gen);
  p.c = normals(numel(p.cb) * p.n * p.m, gen);
  return p;
}

}  // namespace

TEST_CASE("matrix products give the same bits on 1 to 8 threads, over random shapes, batches and zero structure") {
  Generator gen(20261202);
  int compared = 0;
  for (int trial = 0; trial < 150; ++trial) {
    const ProductCase p = random_product(gen, trial);
    CAPTURE(trial);
    CAPTURE(p.n);
    CAPTURE(p.k);
    CAPTURE(p.m);
    CAPTURE(p.ta);
    CAPTURE(p.tb);
    Numbers one;
    {
      Threads t(1);
      one = p.run();
    }
    for (int threads = 2; threads <= 8; ++threads) {
      Threads t(threads);
      CAPTURE(threads);
      CHECK(same_bits(p.run(), one));
      ++compared;
    }
  }
  CHECK(compared == 150 * 7);
}

TEST_CASE("a product's rows asked for in part give the same bits on 1 to 8 threads") {
  // A causal query's keys: row i needs columns 0..i; each element written must be the same.
  Generator gen(7);
  for (const std::int64_t n : {32, 64, 100, 160}) {
    const std::int64_t k = 16, m = n;
    const Numbers a = normals(n * k, gen), b = normals(m * k, gen);
    auto run = [&](std::vector<std::int64_t>& columns) {
      Numbers c(static_cast<std::size_t>(n * m), 0.0);
      for (std::int64_t i = 0; i < n; ++i) columns[static_cast<std::size_t>(i)] = i + 1;
      kernels::Product(n, k, m, true).add(c.data(), {a.data(), n, k}, {b.data(), m, k, true}, columns.data());
      for (std::int64_t i = 0; i < n; ++i)  // what was not written is not compared
        std::fill(c.begin() + i * m + columns[static_cast<std::size_t>(i)], c.begin() + (i + 1) * m, 0.0);
      return c;
    };
    std::vector<std::int64_t> one_columns(static_cast<std::size_t>(n)), columns(one_columns.size());
    Numbers one;
    {
      Threads t(1);
      one = run(one_columns);
    }
    for (int threads = 2; threads <= 8; ++threads) {
      Threads t(threads);
      CAPTURE(n);
      CAPTURE(threads);
      CHECK(same_bits(run(columns), one));
      CHECK(columns == one_columns);
    }
  }
}

TEST_CASE("the attention weights and their gradients give the same bits on 1 to 8 threads, causal or not, with masks") {
  Generator gen(3);
  for (int trial = 0; trial < 24; ++trial) {
    kernels::AttentionShape shape;
    shape.L = 1 + gen.randint(0, 70), shape.S = trial % 2 == 0 ? shape.L : 1 + gen.randint(0, 70);
    shape.E = 1 + gen.randint(0, 16);
    shape.batch = {1 + gen.randint(0, 4), 1 + gen.randint(0, 4)};
    const bool causal = trial % 2 == 0;
    const std::int64_t count = numel(shape.batch);
    const Numbers q = normals(count * shape.L * shape.E, gen), k = normals(count * shape.S * shape.E, gen);
    const Numbers g = normals(count * shape.L * shape.S, gen);
    // In half the trials, a mask of its own for each matrix, with -inf in it.
    Shape mask_shape = shape.batch;
    mask_shape.push_back(shape.L), mask_shape.push_back(shape.S);
    Numbers mask_values = normals(trial % 4 < 2 ? numel(mask_shape) : 0, gen);
    for (double& v : mask_values) v = v > 1.5 ? -INFINITY : v;
    const kernels::AttentionMask mask =
        kernels::attention_mask(mask_values.empty() ? nullptr : mask_values.data(), mask_shape, shape.L, shape.S);
    auto run = [&] {
      Numbers scaled(q.size()), w(g.size()), dq(q.size()), dk(k.size());
      kernels::attention_weights(q.data(), k.data(), mask, causal, shape, scaled.data(), w.data());
      kernels::attention_weights_backward(g.data(), w.data(), scaled.data(), k.data(), shape, dq.data(), dk.data());
      w.insert(w.end(), dq.begin(), dq.end());
      w.insert(w.end(), dk.begin(), dk.end());
      return w;
    };
    Numbers one;
    {
      Threads t(1);
      one = run();
    }
    for (int threads = 2; threads <= 8; ++threads) {
      Threads t(threads);
      CAPTURE(trial);
      CAPTURE(threads);
      CHECK(same_bits(run(), one));
    }
  }
}

TEST_CASE("a Transformer block's loss and every gradient have the same bits on 1, 2, 3 and 4 threads") {
  // The library as a model uses it, with the threshold at its real value and at its lowest.
  for (const std::int64_t work : {kernels::kWorkPerPart, std::int64_t{1}}) {
    std::vector<Numbers> one;
    for (int threads = 1; threads <= 4; ++threads) {
      Threads t(threads, work);
      Generator gen(5);
      nn::TransformerEncoderLayerOptions o;
      o.dim_feedforward = 256, o.dropout = 0.1, o.norm_first = true, o.batch_first = true, o.activation = "gelu";
      nn::TransformerEncoderLayer block(64, 4, o, gen);
      const Tensor x = randn({8, 48, 64}, gen);
      const Tensor loss = block(x, generate_square_subsequent_mask(48), Tensor(), true).pow(2.0).mean();
      loss.backward();
      std::vector<Numbers> now = {loss.to_vector()};
      for (const Tensor& p : block.parameters()) now.push_back(p.grad().to_vector());
      CAPTURE(work);
      CAPTURE(threads);
      if (threads == 1)
        one = now;
      else
        CHECK(now == one);  // (no NaN here, so == on the numbers is == on the bits)
    }
  }
}

TEST_CASE(
    "broadcasting arithmetic, where, expand, permute and sums, their gradients, and an AdamW step give the same bits "
    "on 1 to 8 threads") {
  // Shapes of rank 1 to 4 with operands broadcast along any dimensions (leading ones dropped or
  // of size 1), so that the parts cut for threads meet every case: an operand walking out's
  // rows, one broadcast along them (its gradient a sum across them, cut by columns when it is
  // one row), and leading 1s; sums over the first dimension and the last (cut by results, or by
  // columns when there is one result row).
  Generator shapes(21);
  for (int trial = 0; trial < 150; ++trial) {
    const std::size_t rank = static_cast<std::size_t>(shapes.randint(1, 5));
    Shape out(rank);
    for (auto& d : out) d = shapes.randint(1, 6);
    if (trial % 5 == 0) out[0] = 1;  // leading 1s: the rows are the next dimension's
    auto operand = [&] {
      Shape s = out;
      for (auto& d : s)
        if (shapes.uniform() < 0.4) d = 1;
      const std::size_t dropped = static_cast<std::size_t>(shapes.randint(0, static_cast<std::int64_t>(rank)));
      Shape kept;
      for (std::size_t d = dropped; d < rank; ++d) kept.push_back(s[d]);
      return kept;
    };
    const Shape as = operand(), bs = operand();
    std::vector<std::int64_t> order(rank);
    for (std::size_t i = 0; i < rank; ++i) order[i] = static_cast<std::int64_t>(i);
    for (std::size_t i = rank; i > 1; --i)
      std::swap(order[i - 1], order[static_cast<std::size_t>(shapes.randint(0, static_cast<std::int64_t>(i)))]);
    CAPTURE(trial);
    CAPTURE(out);
    CAPTURE(as);
    CAPTURE(bs);
    std::vector<Numbers> one;
    for (int threads : {1, 2, 3, 8}) {
      Threads t(threads, 1);
      Generator gen(static_cast<std::uint64_t>(trial));
      Tensor a = randn(as, gen).requires_grad_(), b = randn(bs, gen).requires_grad_();
      const Tensor c = randn(out, gen) > 0.0;
      const Tensor y = where(c, a * b - a / (b * b + 1.0), a.expand(out) + b);
      const Tensor first = sum(y, {0}), last = sum(y, {-1});
      const Tensor loss = sum(permute(y, order) * permute(randn(out, gen), order)) + sum(first * first) +
                          sum(last * randn(last.shape(), gen));
      loss.backward();
      optim::AdamW opt({a, b}, {});
      opt.step();
      const std::vector<Numbers> now = {y.to_vector(),        first.to_vector(), last.to_vector(), a.grad().to_vector(),
                                        b.grad().to_vector(), a.to_vector(),     b.to_vector()};
      CAPTURE(threads);
      if (threads == 1)
        one = now;
      else
        CHECK(now == one);  // (no NaN here, so == on the numbers is == on the bits)
    }
  }
}

TEST_CASE("FlopCounter counts every product on any number of threads, the workers' included") {
  // A product's parts may run on the pool's threads; its count belongs to the thread that asked.
  // Which thread takes which part is a matter of timing: the caller takes parts too, and on a
  // busy machine it can take all of a small batch's before a worker wakes (so a batch of eight
  // tiny products let a count made on the workers pass, under load). Here each call is some
  // milliseconds of work, ten times over, so the workers take parts of it.
  Generator gen(11);
  const Tensor a = randn({16, 128, 64}, gen), b = randn({16, 64, 128}, gen), w = randn({128, 40}, gen);
  for (int threads = 1; threads <= 4; ++threads) {
    Threads t(threads);
    for (int repeat = 0; repeat < 10; ++repeat) {
      FlopCounter counter;
      const Tensor y = matmul(matmul(a, b), w);  // a batch of 16 products, then one [2048, 128] x [128, 40]
      CAPTURE(threads);
      CAPTURE(repeat);
      CHECK(counter.total_flops() == 2 * (16 * 128 * 64 * 128 + 2048 * 128 * 40));
    }
  }
}

TEST_CASE("products run at once from two threads of the caller each give the one-thread bits") {
  // The pool serves one call at a time; a call that finds it busy runs on its own thread.
  Generator gen(9);
  const std::int64_t n = 256, k = 64, m = 96;
  const Numbers a = normals(n * k, gen), b = normals(k * m, gen);
  auto run = [&] {
    Numbers c(static_cast<std::size_t>(n * m));
    kernels::Product(n, k, m, true).add(c.data(), {a.data(), n, k}, {b.data(), k, m});
    return c;
  };
  Numbers one;
  {
    Threads t(1);
    one = run();
  }
  Threads t(4);
  int differing = 0;
  std::thread other([&] {
    for (int i = 0; i < 50; ++i) differing += !same_bits(run(), one);
  });
  int here = 0;
  for (int i = 0; i < 50; ++i) here += !same_bits(run(), one);
  other.join();
  CHECK(differing == 0);
  CHECK(here == 0);
}

TEST_CASE("set_num_threads and LITGRAD_THREADS take 1 to 1024 threads and refuse anything else, naming it") {
  Threads t(3);
  CHECK(get_num_threads() == 3);
  CHECK_THROWS_WITH_AS(set_num_threads(0), "set_num_threads: the number of threads must be from 1 to 1024, got 0",
                       ValueError);
  CHECK_THROWS_AS(set_num_threads(1025), ValueError);
  CHECK(get_num_threads() == 3);  // unchanged by a refusal
  CHECK(kernels::thread_count_from("1") == 1);
  CHECK(kernels::thread_count_from("1024") == 1024);
  CHECK(kernels::thread_count_from(nullptr) >= 1);  // unset: the machine's cores
  for (const char* bad : {"0", "-2", "1025", "two", "4x", ""})
    CHECK_THROWS_WITH_AS(
        kernels::thread_count_from(bad),
        ("LITGRAD_THREADS: the number of threads must be a whole number from 1 to 1024, got '" + std::string(bad) + "'")
            .c_str(),
        ValueError);
}
