// Two claims that draw from the default generator, run in one process as the book's run and
// tools/mutate run a chapter's claims: each must draw what a process of its own would draw
// (CTest runs each claim alone), so neither may depend on the other having run first.
#include <doctest/doctest.h>

#include <litgrad/litgrad.hpp>

using namespace litgrad;

namespace {

double first_draw_of_a_new_process() {
  Generator fresh(0);  // the default generator's start (core/random.cpp)
  return randn({1}, fresh).item();
}

}  // namespace

TEST_CASE("the first claim draws what a new process draws") {
  CHECK(randn({1}).item() == first_draw_of_a_new_process());
  randn({5});  // and leaves the generator elsewhere
}

TEST_CASE("the second claim draws what a new process draws too") {
  CHECK(randn({1}).item() == first_draw_of_a_new_process());
}
