// The fuzzer's graphs reach every operation of the library's table (ops/registry.hpp): the
// fuzzer (tests/fuzz/fuzz_ops.cpp, run by tools/fuzz under libFuzzer) is run here on fixed
// random bytes, and the operations in the graphs of what it made are gathered. An operation it
// never draws is one the fuzzer never tries on shapes, dimensions and numbers that do not fit.

#include <doctest/doctest.h>

#include <cstdint>
#include <set>
#include <string>
#include <vector>

#include <litgrad/litgrad.hpp>

#include "fuzz/fuzz_ops.hpp"
#include "helpers.hpp"

using namespace litgrad;

TEST_CASE("the fuzzer's graphs reach every operation of the library's table, from 2,000 random byte strings") {
  Generator gen(7);
  std::set<std::string> reached;
  for (int run = 0; run < 2000; ++run) {
    const Tensor bytes = randint(0, 256, {512}, gen);
    std::vector<std::uint8_t> data(512);
    for (std::size_t i = 0; i < data.size(); ++i) data[i] = static_cast<std::uint8_t>(bytes.data()[i]);
    for (const Tensor& t : litgrad_fuzz::run(data.data(), data.size()))
      for (const auto& op : test::graph_ops(t)) reached.insert(op);
  }
  for (const Op& op : operations) {
    INFO("operation the fuzzer never drew: " << std::string(op.name));
    CHECK(reached.count(op.name) == 1);
  }
}
