// Exercise 12.2 · A decoding step with a cache: the reference solution.
#include <cmath>
#include <cstdint>

#include <litgrad/litgrad.hpp>

#include "your_gpt.hpp"

using namespace litgrad;

// HeadCache (in chapters/exercises/your_gpt.hpp) holds keys and values, [s, d] each;
// both undefined before the first token.

Tensor decode_step(const Tensor& q, const Tensor& k, const Tensor& v,
                   HeadCache& cache) {
  const std::int64_t d = q.numel();
  const Tensor key = k.reshape({1, d}), value = v.reshape({1, d});
  cache.keys = cache.keys.defined() ? cat({cache.keys, key}, 0) : key;
  cache.values = cache.values.defined() ? cat({cache.values, value}, 0) : value;
  const Tensor scores =  // [1, s + 1]: the query against every key
      matmul(q.reshape({1, d}), cache.keys.transpose(0, 1)) / std::sqrt(double(d));
  const Tensor weights = softmax(scores, 1);
  return matmul(weights, cache.values).reshape({d});  // [d]
}
