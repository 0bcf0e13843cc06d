# Checks that README.md's "Use litgrad in your project" section shows the CMake lines the
# package test builds: tests/package/consumer/CMakeLists.txt verbatim between the markers
#   <!-- package-consumer:begin --> ```cmake ... ``` <!-- package-consumer:end -->
# and, between <!-- package-subproject:begin --> and its end, lines each of which appears in
# tests/package/subproject/CMakeLists.txt. Run with -DSOURCE=<the source tree>.
file(READ ${SOURCE}/README.md readme)
file(READ ${SOURCE}/tests/package/consumer/CMakeLists.txt consumer)
file(READ ${SOURCE}/tests/package/subproject/CMakeLists.txt subproject)
set(expected "<!-- package-consumer:begin -->\n```cmake\n${consumer}```\n<!-- package-consumer:end -->")
string(FIND "${readme}" "${expected}" at)
if(at EQUAL -1)
  message(FATAL_ERROR "README.md should show tests/package/consumer/CMakeLists.txt as:\n${expected}")
endif()
string(REGEX MATCH "<!-- package-subproject:begin -->\n```cmake\n([^`]*)```\n<!-- package-subproject:end -->" block "${readme}")
if(NOT block)
  message(FATAL_ERROR "README.md lacks the package-subproject block")
endif()
string(REPLACE "\n" ";" lines "${CMAKE_MATCH_1}")
foreach(line ${lines})
  string(FIND "${subproject}" "${line}" found)
  if(NOT line STREQUAL "" AND found EQUAL -1)
    message(FATAL_ERROR "README.md's subproject line '${line}' is not in tests/package/subproject/CMakeLists.txt")
  endif()
endforeach()
message(STATUS "README.md's package lines are those the package test builds")
