# What the install scripts share (cmake -P): run() a command, failing with it and its exit status, keeping its
# output in last_output; expect_sum_of_ranks() checks what tests/core/consumer printed (needs VERSION).
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
