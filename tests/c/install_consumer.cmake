# Installs the build into a scratch prefix and builds an outside project against it twice: with
# find_package(proxy COMPONENTS <c|fortran>) (CMake) and with the MPI compiler wrapper and the component's
# .pc file alone; runs both on 2 ranks and checks what they print.
#   LANGUAGE=C:       tests/c/consumer (C99, -DMPI), mpicc and proxyrt-c.pc (COMPILER: that mpicc)
#   LANGUAGE=Fortran: tests/c/fortran_consumer (`use proxy`), mpifort and proxyrt-fortran.pc (COMPILER: the
#                     mpifort of the build's MPI, whose mpi_f08 module the installed proxy.mod was built on)
# With HEAT2D_SOURCE and REFERENCE, the project also builds the language's heat2d (apps/heat/heat2d.c, .f90)
# and checks it against the C++ heat2d's rows.
if(LANGUAGE STREQUAL "Fortran")
  set(program fortran-consumer)
  set(example heat2d-fortran)
  set(pc_name proxyrt-fortran)
  set(installed_file include/proxy/fortran/*/proxy.mod)
  set(compile_flags "")
  # rank r gets r-1 (mod 2) from the left; the allreduce of rank + 1 over 2 ranks is 3.
  set(expected "fortran-consumer: rank 0 got 1 from the left, sum 3" "fortran-consumer: rank 1 got 0 from the left, sum 3")
else()
  set(program c-consumer)
  set(example heat2d-c)
  set(pc_name proxyrt-c)
  set(installed_file include/proxy/proxy.h)
  set(compile_flags -std=c99 -DMPI=1)
  set(expected "c-consumer: rank 0 got 1 from the left" "c-consumer: rank 1 got 0 from the left")
endif()

file(REMOVE_RECURSE ${WORK_DIR})
include(${CMAKE_CURRENT_LIST_DIR}/../install/install_support.cmake)  # run(), expect_sum_of_ranks()
function(expect_output what)
  foreach(line IN LISTS expected)
    string(FIND "${last_output}" "${line}\n" at)
    if(at EQUAL -1)
      message(FATAL_ERROR "${what}: the consumer did not print '${line}'")
    endif()
  endforeach()
endfunction()

set(prefix ${WORK_DIR}/prefix)
run(${CMAKE_COMMAND} --install ${BUILD_DIR} --prefix ${prefix} --component Unspecified)
file(GLOB installed ${prefix}/${installed_file})
if(NOT installed)
  message(FATAL_ERROR "${installed_file} is not installed")
endif()

run(${CMAKE_COMMAND} -S ${CONSUMER_SOURCE} -B ${WORK_DIR}/build -DCMAKE_PREFIX_PATH=${prefix}
    -DHEAT2D_SOURCE=${HEAT2D_SOURCE})
run(${CMAKE_COMMAND} --build ${WORK_DIR}/build)
run(${MPIEXEC} -n 2 ${WORK_DIR}/build/${program})
expect_output("find_package(proxy COMPONENTS ${LANGUAGE})")

# The language's heat2d built out there (HEAT2D_SOURCE): the C++ heat2d's rows (REFERENCE, its checksum) and
# its own serial solver, bit for bit, on 2 ranks.
if(HEAT2D_SOURCE)
  run(${REFERENCE} 67 41 60)
  string(REGEX MATCH "checksum ([0-9a-f]+)" match "${last_output}")
  set(consumer_expected "${expected}")
  set(expected "${example}: checksum ${CMAKE_MATCH_1}" "${example}: verify: max difference from the serial solver 0")
  run(${MPIEXEC} -n 2 ${WORK_DIR}/build/${example} --nx 67 --ny 41 --iters 60 --verify)
  expect_output("${example} built by an outside project")
  set(expected "${consumer_expected}")
endif()

file(GLOB_RECURSE pc_file ${prefix}/*/${pc_name}.pc)
if(NOT pc_file)
  message(FATAL_ERROR "no ${pc_name}.pc installed")
endif()
get_filename_component(pc_dir ${pc_file} DIRECTORY)
run(${CMAKE_COMMAND} -E env PKG_CONFIG_PATH=${pc_dir} ${PKG_CONFIG} --cflags --libs ${pc_name})
separate_arguments(flags UNIX_COMMAND "${last_output}")
file(GLOB source ${CONSUMER_SOURCE}/main.*)
# In a directory of its own: a compiler that writes module files leaves them there.
file(MAKE_DIRECTORY ${WORK_DIR}/pkg-config)
execute_process(COMMAND ${COMPILER} ${compile_flags} ${source} -o ${program}-pkg-config ${flags}
                WORKING_DIRECTORY ${WORK_DIR}/pkg-config RESULT_VARIABLE rc)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "failed (${rc}): ${COMPILER} ${compile_flags} ${source} ${flags}")
endif()
run(${MPIEXEC} -n 2 ${WORK_DIR}/pkg-config/${program}-pkg-config)
expect_output("${COMPILER} with ${pc_name}.pc")
