// The one place doctest's runner is compiled; every test_*.cpp only includes doctest.h.
#define DOCTEST_CONFIG_IMPLEMENT_WITH_MAIN
#include <doctest/doctest.h>
