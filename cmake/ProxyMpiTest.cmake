# The environment of every test that starts ranks: the launcher for scripts, and the wait policies for
# oversubscribed cores.
set(PROXY_MPI_TEST_ENV "MPIEXEC=${PROXY_MPIEXEC};PROXY_WAIT_POLICY=block;OMP_WAIT_POLICY=passive;OMP_NUM_THREADS=2;OPENBLAS_NUM_THREADS=1")
# Open MPI: every test names the point-to-point layer (pml) Open MPI selects on a host without a fabric,
# ob1 (as on this project's test hosts). Left to choose, each rank first opens and probes the others
# (cm and its fabric libraries), 0.2-0.25 s of every launch: about 1000 launches in the suite. The MPI path
# the tests run is unchanged (proxy_isolate_mpi_sessions sets it for every test of a folder; here for the
# MPI GoogleTest tests, which are added when ctest runs). proxy-mpiexec does not set it: on a cluster the
# fabric's layer is the right one.
set(PROXY_OPENMPI_TEST_PML "OMPI_MCA_pml=ob1")
if(PROXY_MPI_VENDOR STREQUAL "openmpi")
  string(APPEND PROXY_MPI_TEST_ENV ";${PROXY_OPENMPI_TEST_PML}")
endif()

# Start order: ctest runs tests in descending COST, and a build that has not run its tests yet (CI's clean clone)
# has no timings of its own: it would start them in the order they were declared, and a test of a minute
# declared late ended the suite a minute after the rest (install.shared_package and install.newcomer_path began
# at 82 % of the Open MPI suite; the Slurm cases, one at a time, at 78 %). Each pair: a regular expression for
# a test's full name, and its seconds on the 2-core development machine (the longer of its MPICH, Open MPI
# and tsan times). ctest's own timings replace these once a build has run its tests. The tests listed when
# ctest runs (GoogleTest) take theirs from the same table (proxy_test_cost_code).
set(PROXY_TEST_COSTS
  "^install[.]shared_package$" 85
  "^cli[.]vocabulary$" 65
  "^core[.]cooperative_progress[.]4ranks[.]CooperativeProgress$" 45
  "^collectives[.]unit([.]quick)?[.]TeamBroadcast[.]EveryRootEveryAlgorithmEverySize$" 42
  "^faults[.]settings[.]message_every_time$" 35
  "^install[.]newcomer_path$" 35
  "^drivers_output_checked_before_the_run$" 33
  "^install[.]readme_api$" 30
  "^install[.]doc_examples$" 30
  "^core[.]install_consumer$" 30
  "^collectives[.]node[.][2-4]ranks[.]Threads/NodeAllreduce$" 27
  "^slurm[.]" 25  # one at a time (RESOURCE_LOCK slurm): 90 s in all
  "^c[.]install_fortran_consumer$" 24
  "^faults[.]abort_message_every_time$" 24
  "^core[.]launcher_(hang_after_reaping_keeps_the_job_status|is_bounded_when_it_hangs_in_finalize)$" 19
  "^core[.]unit[.]MpscQueue[.]TinyQueueUnderFourProducersStillLosesNothing$" 16
  "^redblack3d_stalled_set_up_ends_the_job$" 16
  "^c[.]install_consumer$" 14
  "^core[.]cooperative_progress[.]3ranks[.]CooperativeProgress$" 14
  "^core[.]abort_is_bounded_when_mpi_abort_hangs$" 14
  "^output_links_checked_as_their_target$" 12
  "^sweep[.](sigterm_ends_ranks_left_in_sessions_of_their_own|plots_produced)$" 11
  "_times_out$" 10  # a wait timeout that must expire (app_faults)
  "_exit_is_bounded" 10
  "^install[.]programs$" 10)

# proxy_test_cost_code(out list_variable): CMake code that gives each test named in the list variable
# `list_variable` its PROXY_TEST_COSTS cost: run at configure time (proxy_isolate_mpi_sessions) or written into a
# file that ctest reads (the GoogleTest tests, listed then).
function(proxy_test_cost_code out list_variable)
  set(${out} "set(_proxy_costs [==[${PROXY_TEST_COSTS}]==])
foreach(_test IN LISTS ${list_variable})
  set(_pairs \${_proxy_costs})
  while(_pairs)
    list(POP_FRONT _pairs _pattern _seconds)
    if(_test MATCHES \"\${_pattern}\")
      set_tests_properties(\"\${_test}\" PROPERTIES COST \${_seconds})
      break()
    endif()
  endwhile()
endforeach()
" PARENT_SCOPE)
endfunction()

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
  proxy_test_cost_code(costs ${list_name}_tests)
  file(WRITE ${properties_file} "set_tests_properties(\${${list_name}_tests} PROPERTIES ${properties})\n${costs}")
  set_property(DIRECTORY APPEND PROPERTY TEST_INCLUDE_FILES ${properties_file})
endfunction()

# proxy_add_mpi_gtests(TARGET t NAME name RANKS n [FILTER pattern] [LABELS l...] [TIMEOUT s] [ENV VAR=value...])
# CTest tests of a multi-rank GoogleTest binary (tests/mpi_gtest_main.cpp), each on n ranks with the environment,
# labels and PROCESSORS of proxy_add_mpi_test, split by PROXY_MPI_GTEST_SPLIT (below):
#   suite   (the default) NAME.Suite: `launcher -n n binary --gtest_filter=Suite.A:Suite.B:...`, one launch per
#           GoogleTest suite; its log names a failing test (ranks other than 0 print theirs with their rank),
#           which `ctest -R NAME.Suite -V`'s command runs alone with --gtest_filter=Suite.Test
#   test    NAME.Suite.Test: one launch per GoogleTest test
#   binary  NAME: the whole binary in one launch
# The tests are listed when ctest runs (a file of ours in TEST_INCLUDE_FILES, as gtest_discover_tests does): the
# binary's --gtest_list_tests on one rank, under FILTER when given; the list is kept beside the binary's build
# directory until the binary (or this function) changes, so ctest -N or -R pays for one launch per binary and
# filter, not per call. A binary that is not built or cannot list its tests gives one failing test NAME.NOT_BUILT /
# NAME.NOT_LISTED. A suite's TIMEOUT is TIMEOUT per test it holds (at most 1800 s): every wait inside is bounded
# by PROXY_WAIT_TIMEOUT anyway. Why suites: a launch costs about 0.1 s under MPICH and 0.5 s under Open MPI, and
# tests of 3 and 4 ranks run alone on 2 cores; the 332 tests of these binaries were most of a suite's launches
# (bench/RESULTS.md, "MPI GoogleTest binaries by suite").
set(PROXY_MPI_GTEST_SPLIT suite CACHE STRING "CTest tests per MPI GoogleTest binary: one per suite, test or binary")
set_property(CACHE PROXY_MPI_GTEST_SPLIT PROPERTY STRINGS suite test binary)
if(NOT PROXY_MPI_GTEST_SPLIT MATCHES "^(suite|test|binary)$")
  message(FATAL_ERROR "PROXY_MPI_GTEST_SPLIT is '${PROXY_MPI_GTEST_SPLIT}': it is suite, test or binary")
endif()
function(proxy_add_mpi_gtests)
  cmake_parse_arguments(T "" "TARGET;NAME;RANKS;TIMEOUT;FILTER" "LABELS;ENV" ${ARGN})
  if(NOT T_TIMEOUT)
    set(T_TIMEOUT 300)
  endif()
  if(PROXY_MPI_GTEST_SPLIT STREQUAL "binary")
    set(_filter)
    if(T_FILTER)
      set(_filter "--gtest_filter=${T_FILTER}")
    endif()
    proxy_add_mpi_test(NAME ${T_NAME} RANKS ${T_RANKS} COMMAND $<TARGET_FILE:${T_TARGET}> ${_filter}
                       TIMEOUT ${T_TIMEOUT} ENV ${T_ENV} LABELS ${T_LABELS})
    return()
  endif()
  set(_per_test OFF)
  if(PROXY_MPI_GTEST_SPLIT STREQUAL "test")
    set(_per_test ON)
  endif()
  set(_env "${PROXY_MPI_TEST_ENV}")
  list(APPEND _env ${T_ENV})
  set(_list_args --gtest_list_tests)
  if(T_FILTER)
    list(APPEND _list_args "--gtest_filter=${T_FILTER}")
  endif()
  string(MD5 _key "${T_TARGET};${T_FILTER}")
  set(_list_file "${CMAKE_CURRENT_BINARY_DIR}/${T_TARGET}_tests_${_key}.txt")
  string(MAKE_C_IDENTIFIER "${T_NAME}" _id)
  set(_script "${CMAKE_CURRENT_BINARY_DIR}/${_id}_mpi_gtests.cmake")
  proxy_test_cost_code(_costs added)
  file(GENERATE OUTPUT "${_script}" CONTENT "set(binary [==[$<TARGET_FILE:${T_TARGET}>]==])
set(launcher [==[${PROXY_MPIEXEC}]==])
set(list_file [==[${_list_file}]==])
set(name [==[${T_NAME}]==])
if(NOT EXISTS \"\${binary}\")
  add_test(\"\${name}.NOT_BUILT\" \"\${binary}\")
  return()
endif()
if(NOT EXISTS \"\${list_file}\" OR \"\${binary}\" IS_NEWER_THAN \"\${list_file}\"
   OR \"\${CMAKE_CURRENT_LIST_FILE}\" IS_NEWER_THAN \"\${list_file}\")
  execute_process(COMMAND \"\${launcher}\" [==[${MPIEXEC_NUMPROC_FLAG}]==] 1 \"\${binary}\" ${_list_args}
                  OUTPUT_VARIABLE listing RESULT_VARIABLE status TIMEOUT 120)
  if(NOT status EQUAL 0)
    file(REMOVE \"\${list_file}\")
    add_test(\"\${name}.NOT_LISTED\" \"\${binary}\" --gtest_list_tests)
    return()
  endif()
  string(REPLACE \";\" \"\" listing \"\${listing}\")
  string(REPLACE \"\\n\" \";\" listing \"\${listing}\")
  set(tests)
  set(suite)
  foreach(line IN LISTS listing)
    string(REGEX REPLACE \" *#.*\" \"\" line \"\${line}\")
    if(line MATCHES \"^([A-Za-z_][A-Za-z0-9_/]*)\\\\.$\")
      set(suite \"\${CMAKE_MATCH_1}\")
    elseif(suite AND line MATCHES \"^  ([A-Za-z_][A-Za-z0-9_/]*)$\")
      set(test \"\${CMAKE_MATCH_1}\")
      if(NOT suite MATCHES \"^DISABLED_\" AND NOT test MATCHES \"^DISABLED_\")
        list(APPEND tests \"\${suite}.\${test}\")
      endif()
    endif()
  endforeach()
  list(JOIN tests \"\\n\" tests)
  file(WRITE \"\${list_file}\" \"\${tests}\\n\")
endif()
file(STRINGS \"\${list_file}\" tests)
set(groups)  # test: every Suite.Test; suite: every Suite, its tests in the list members_<Suite>
foreach(test IN LISTS tests)
  if(${_per_test})
    set(group \"\${test}\")
  else()
    string(REGEX REPLACE \"[.][^.]*$\" \"\" group \"\${test}\")
  endif()
  list(FIND groups \"\${group}\" at)
  if(at EQUAL -1)
    list(APPEND groups \"\${group}\")
    set(\"members_\${group}\")
  endif()
  list(APPEND \"members_\${group}\" \"\${test}\")
endforeach()
foreach(group IN LISTS groups)
  list(LENGTH \"members_\${group}\" count)
  math(EXPR timeout \"${T_TIMEOUT} * \${count}\")
  if(timeout GREATER 1800 AND ${T_TIMEOUT} LESS 1800)
    set(timeout 1800)
  endif()
  list(JOIN \"members_\${group}\" \":\" filter)
  add_test(\"\${name}.\${group}\" \"\${launcher}\" [==[${MPIEXEC_NUMPROC_FLAG}]==] ${T_RANKS} \"\${binary}\"
           \"--gtest_filter=\${filter}\" ${MPIEXEC_POSTFLAGS})
  set_tests_properties(\"\${name}.\${group}\" PROPERTIES TIMEOUT \${timeout} PROCESSORS ${T_RANKS}
                       ENVIRONMENT [==[${_env}]==] LABELS [==[mpi;${T_LABELS}]==])
  list(APPEND added \"\${name}.\${group}\")
endforeach()
${_costs}")
  set_property(DIRECTORY APPEND PROPERTY TEST_INCLUDE_FILES "${_script}")
endfunction()

# proxy_isolate_mpi_sessions(): the last line of every tests/ subfolder's CMakeLists.txt (tests/CMakeLists.txt
# checks it). Under Open MPI it gives each test of the folder its own session directory tree
# (orte_tmpdir_base under the build tree): otherwise every job and singleton on the host shares
# /tmp/ompi.<host>.<uid>, and one that ends removes it while another, starting, creates it ("A call to mkdir
# was unable to create the desired directory ... File exists", orte_session_dir failed; open-mpi/ompi#8510,
# the same for CTest-packed jobs). Seen once in 14 loaded Open MPI suites (cli.proxy-info.help). MPICH has no
# such tree: nothing is set there. Under Open MPI it also names the pml (PROXY_OPENMPI_TEST_PML, above). With
# either MPI it gives the folder's long tests their start order (COST from PROXY_TEST_COSTS, above).
function(proxy_isolate_mpi_sessions)
  set_property(DIRECTORY PROPERTY PROXY_SESSIONS_ISOLATED TRUE)
  get_property(tests DIRECTORY PROPERTY TESTS)
  proxy_test_cost_code(costs tests)  # (the tests added when ctest runs take theirs in the files that add them)
  cmake_language(EVAL CODE "${costs}")
  if(NOT PROXY_MPI_VENDOR STREQUAL "openmpi")
    return()
  endif()
  foreach(t IN LISTS tests)
    set_property(TEST ${t} APPEND PROPERTY ENVIRONMENT "OMPI_MCA_orte_tmpdir_base=${CMAKE_BINARY_DIR}/mpi-sessions/${t}"
                                                       "${PROXY_OPENMPI_TEST_PML}")
  endforeach()
endfunction()
