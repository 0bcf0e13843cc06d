// The main() of every exercise program: doctest's, running the exercise's tests against
// the file linked with them (the reader's own, the starter or the reference solution).
#define DOCTEST_CONFIG_IMPLEMENT_WITH_MAIN
#include <doctest/doctest.h>
