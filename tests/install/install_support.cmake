# What the install scripts share (cmake -P): run() a command, failing with it and its exit status, keeping its
# output in last_output; expect_sum_of_ranks() checks what tests/core/consumer printed (needs VERSION);
# expect_component_refusal() checks find_package's one line for components it refuses.
function(run)
  execute_process(COMMAND ${ARGN} RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
  message("${out}${err}")
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR "failed (${rc}): ${ARGN}")
  endif()
  set(last_output "${out}" PARENT_SCOPE)
endfunction()

function(expect_sum_of_ranks what)
  if(NOT last_output MATCHES "consumer: sum of ranks = 1 \\(proxy ${VERSION}\\)")
    message(FATAL_ERROR "${what}: consumer printed the wrong result")
  endif()
endfunction()

# find_package(proxy REQUIRED COMPONENTS <components>) in tests/install/component_probe (a C++-only project, or
# one of the languages given after `expected`) against the installation in `prefix` fails, and the reason the
# package gives is exactly `expected` (CMake's wrapping of the message undone): no stray ';' from a CMake list,
# nothing after it.
function(expect_component_refusal prefix components expected)
  set(languages CXX)
  if(ARGN)
    set(languages ${ARGN})
  endif()
  file(REMOVE_RECURSE ${WORK_DIR}/probe-build)
  execute_process(COMMAND ${CMAKE_COMMAND} -S ${CMAKE_CURRENT_FUNCTION_LIST_DIR}/component_probe
                          -B ${WORK_DIR}/probe-build "-DCOMPONENTS=${components}" -DCMAKE_PREFIX_PATH=${prefix}
                          "-DLANGUAGES=${languages}"
                  RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
  string(REGEX REPLACE "\n +" " " reason "${err}")  # CMake wraps long messages, indented
  string(REGEX REPLACE ".*Reason given by package:[\n ]*" "" reason "${reason}")
  string(REGEX REPLACE "\n.*" "" reason "${reason}")
  string(REGEX REPLACE "  +" " " reason "${reason}")  # and puts two spaces after a full stop
  if(rc EQUAL 0 OR NOT reason MATCHES "^${expected}$")
    message(FATAL_ERROR "find_package(proxy COMPONENTS ${components}) (LANGUAGES ${languages}): exit ${rc}, "
                        "expected '${expected}', "
                        "got '${reason}':\n${err}")
  endif()
  message("find_package(proxy COMPONENTS ${components}) (LANGUAGES ${languages}) refused: ${reason}")
endfunction()
