# Checks that README.md shows docs/examples/readme_example.cpp verbatim, followed by the output
# that running it prints now. With -DUPDATE=ON it rewrites README.md's copy instead.
# Used by the test "README example and its output are current" and the target `litgrad_update_readme`.
#
# In README.md the example sits between these marker lines:
#   <!-- readme-example:begin -->  ...a ```cpp block, then a ```text block...  <!-- readme-example:end -->

execute_process(COMMAND ${EXAMPLE} OUTPUT_VARIABLE output RESULT_VARIABLE status)
if(NOT status EQUAL 0)
  message(FATAL_ERROR "the README example failed to run (${status})")
endif()
file(READ ${SOURCE} code)
file(READ ${README} readme)

set(expected "<!-- readme-example:begin -->\n```cpp\n${code}```\n\nIt prints:\n\n```text\n${output}```\n<!-- readme-example:end -->")
string(FIND "${readme}" "<!-- readme-example:begin -->" begin)
string(FIND "${readme}" "<!-- readme-example:end -->" end)
if(begin EQUAL -1 OR end EQUAL -1)
  message(FATAL_ERROR "README.md lacks the readme-example markers")
endif()
math(EXPR length "${end} + 27 - ${begin}")
string(SUBSTRING "${readme}" ${begin} ${length} current)

if(UPDATE)
  string(REPLACE "${current}" "${expected}" readme "${readme}")
  file(WRITE ${README} "${readme}")
  message(STATUS "README.md: example and output updated")
elseif(NOT current STREQUAL expected)
  message(FATAL_ERROR "README.md's example or its output is out of date. Its block should read:\n${expected}\n"
                      "Run `cmake --build build --target litgrad_update_readme` to rewrite it.")
endif()
