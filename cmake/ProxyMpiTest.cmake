# The environment of every test that starts ranks: the launcher for scripts, and the wait policies for
# oversubscribed cores.
set(PROXY_MPI_TEST_ENV "MPIEXEC=${PROXY_MPIEXEC};PROXY_WAIT_POLICY=block;OMP_WAIT_POLICY=passive;OMP_NUM_THREADS=2;OPENBLAS_NUM_THREADS=1")

# proxy_add_mpi_test(NAME name RANKS n COMMAND exe args... [TIMEOUT s] [WILL_FAIL] [PASS_REGEX re])
# Registers a CTest test that runs COMMAND on n real MPI ranks through the configured launcher
# (${PROXY_MPIEXEC}, cmake/ProxyLauncher.cmake), which adds the flags this MPI needs. Oversubscription is
# expected on small machines, so the ranks run with the yielding/blocking wait policy. Scripts the tests
# run find the same launcher in MPIEXEC.
function(proxy_add_mpi_test)
  cmake_parse_arguments(T "WILL_FAIL" "NAME;RANKS;TIMEOUT;PASS_REGEX" "COMMAND;ENV;LABELS" ${ARGN})
  if(NOT T_TIMEOUT)
    set(T_TIMEOUT 300)
  endif()
  add_test(NAME ${T_NAME}
           COMMAND ${PROXY_MPIEXEC} ${MPIEXEC_NUMPROC_FLAG} ${T_RANKS}
                   ${T_COMMAND} ${MPIEXEC_POSTFLAGS})
  set(_env "${PROXY_MPI_TEST_ENV}")
  list(APPEND _env ${T_ENV})
  set_tests_properties(${T_NAME} PROPERTIES TIMEOUT ${T_TIMEOUT} ENVIRONMENT "${_env}"
                       PROCESSORS ${T_RANKS} LABELS "mpi;${T_LABELS}")
  if(T_WILL_FAIL)
    set_tests_properties(${T_NAME} PROPERTIES WILL_FAIL TRUE)
  endif()
  if(T_PASS_REGEX)
    set_tests_properties(${T_NAME} PROPERTIES PASS_REGULAR_EXPRESSION "${T_PASS_REGEX}")
  endif()
endfunction()

# proxy_add_mpi_failure_test(NAME name RANKS n REGEX re COMMAND exe args...)
# The command must exit non-zero on n ranks and print something matching REGEX (never hang).
function(proxy_add_mpi_failure_test)
  cmake_parse_arguments(T "" "NAME;RANKS;TIMEOUT;REGEX" "COMMAND;ENV;LABELS" ${ARGN})
  if(NOT T_TIMEOUT)
    set(T_TIMEOUT 120)
  endif()
  add_test(NAME ${T_NAME}
           COMMAND ${PROJECT_SOURCE_DIR}/tests/expect_failure.sh "${T_REGEX}"
                   ${PROXY_MPIEXEC} ${MPIEXEC_NUMPROC_FLAG} ${T_RANKS}
                   ${T_COMMAND} ${MPIEXEC_POSTFLAGS})
  set(_env "${PROXY_MPI_TEST_ENV}")
  list(APPEND _env ${T_ENV})
  set_tests_properties(${T_NAME} PROPERTIES TIMEOUT ${T_TIMEOUT} ENVIRONMENT "${_env}"
                       PROCESSORS ${T_RANKS} LABELS "mpi;${T_LABELS}")
endfunction()

# proxy_add_gtests(TARGET PREFIX name [LABELS l...] [TIMEOUT s] [ENV VAR=value...]): one CTest test per
# GoogleTest test of a binary without MPI (gtest_discover_tests, listed when ctest runs), named
# PREFIX.Suite.Test, so that a failure names itself. The properties are set on the discovered list by a
# file of our own (TEST_INCLUDE_FILES, read after the discovery's): gtest_discover_tests' PROPERTIES would
# split list values such as two labels or two variables.
include(GoogleTest)
function(proxy_add_gtests target)
  cmake_parse_arguments(T "" "PREFIX;TIMEOUT" "LABELS;ENV" ${ARGN})
  if(NOT T_TIMEOUT)
    set(T_TIMEOUT 300)
  endif()
  string(MAKE_C_IDENTIFIER "${T_PREFIX}" list_name)
  gtest_discover_tests(${target} TEST_PREFIX "${T_PREFIX}." TEST_LIST ${list_name}_tests
                       DISCOVERY_MODE PRE_TEST DISCOVERY_TIMEOUT 120)
  set(properties_file ${CMAKE_CURRENT_BINARY_DIR}/${list_name}_properties.cmake)
  set(properties "TIMEOUT ${T_TIMEOUT}")
  if(T_LABELS)
    string(APPEND properties " LABELS [==[${T_LABELS}]==]")
  endif()
  if(T_ENV)
    string(APPEND properties " ENVIRONMENT [==[${T_ENV}]==]")
  endif()
  file(WRITE ${properties_file} "set_tests_properties(\${${list_name}_tests} PROPERTIES ${properties})\n")
  set_property(DIRECTORY APPEND PROPERTY TEST_INCLUDE_FILES ${properties_file})
endfunction()
