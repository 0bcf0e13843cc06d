# The package, as a reader's project would use it. Run by the test "litgrad installs as a
# package that find_package finds, and works as a subproject" with
#   -DBUILD=<litgrad's build tree> -DSOURCE=<litgrad's source tree> -DWORK=<scratch folder>
# 1. cmake --install into a scratch prefix; 2. configure, build and run tests/package/consumer
# against it with find_package(litgrad CONFIG REQUIRED), and tests/package/torch_user, the
# programs a torch user would first write (an MLP classifier, a character GPT with a KV cache, a
# checkpoint and resume, autograd's toolbox, and nanoGPT, pytorch.org's tutorial and the
# documentation's examples held to Python torch's results); 3. configure tests/package/subproject,
# which adds litgrad's source tree as a subproject and checks what litgrad added.
file(REMOVE_RECURSE ${WORK})
function(run what)
  execute_process(COMMAND ${ARGN} RESULT_VARIABLE status OUTPUT_VARIABLE out ERROR_VARIABLE err)
  if(NOT status EQUAL 0)
    message(FATAL_ERROR "${what} failed (${status}):\n${out}\n${err}")
  endif()
  set(last_output "${out}" PARENT_SCOPE)
endfunction()
run("installing" ${CMAKE_COMMAND} --install ${BUILD} --prefix ${WORK}/prefix)
foreach(f include/litgrad/litgrad.hpp include/litgrad/version.hpp lib/cmake/litgrad/litgradConfig.cmake
          lib/cmake/litgrad/litgradConfigVersion.cmake)
  if(NOT EXISTS ${WORK}/prefix/${f})
    message(FATAL_ERROR "the install has no ${f}")
  endif()
endforeach()
run("configuring the consumer" ${CMAKE_COMMAND} -S ${SOURCE}/tests/package/consumer -B ${WORK}/consumer
    -DCMAKE_PREFIX_PATH=${WORK}/prefix -DCMAKE_BUILD_TYPE=Release)
run("building the consumer" ${CMAKE_COMMAND} --build ${WORK}/consumer)
run("running the consumer" ${WORK}/consumer/consumer)
message(STATUS "the consumer printed: ${last_output}")
if(NOT last_output MATCHES "^litgrad [0-9]+\\.[0-9]+\\.[0-9]+: loss [0-9.e+-]+, weight gradient \\[2,3\\]")
  message(FATAL_ERROR "the consumer printed something else: ${last_output}")
endif()
# The programs a torch user would first write (tests/package/torch_user), found the same
# way: each checks its own result and exits non-zero when it is wrong.
run("configuring the torch user's programs" ${CMAKE_COMMAND} -S ${SOURCE}/tests/package/torch_user
    -B ${WORK}/torch_user -DCMAKE_PREFIX_PATH=${WORK}/prefix -DCMAKE_BUILD_TYPE=Release)
run("building the torch user's programs" ${CMAKE_COMMAND} --build ${WORK}/torch_user)
# The last three compare themselves with Python torch's results, in reference/NAME.state.
foreach(program mlp_classifier char_gpt checkpoint autograd_extras nanogpt tutorial docs_examples)
  set(reference ${SOURCE}/tests/package/torch_user/reference/${program}.state)
  if(NOT EXISTS ${reference})
    set(reference "")
  endif()
  execute_process(COMMAND ${WORK}/torch_user/${program} ${reference} WORKING_DIRECTORY ${WORK}
                  RESULT_VARIABLE status OUTPUT_VARIABLE out ERROR_VARIABLE err)
  message(STATUS "${out}")
  if(NOT status EQUAL 0)
    message(FATAL_ERROR "${program} failed (${status}):\n${out}\n${err}")
  endif()
endforeach()
run("configuring litgrad as a subproject" ${CMAKE_COMMAND} -S ${SOURCE}/tests/package/subproject
    -B ${WORK}/subproject -DLITGRAD_SOURCE_DIR=${SOURCE})
message(STATUS "${last_output}")
