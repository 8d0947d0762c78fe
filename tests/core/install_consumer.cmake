# Installs the build into a scratch prefix and builds tests/core/consumer against it twice: with
# find_package(proxy) (CMake) and with the pkg-config file (proxyrt.pc) and the C++ compiler alone; runs
# both on 2 ranks. Also checks the installed file names: libproxyrt-*, no internals under include/proxy/detail.
file(REMOVE_RECURSE ${WORK_DIR})
include(${CMAKE_CURRENT_LIST_DIR}/../install/install_support.cmake)  # run(), expect_sum_of_ranks()

set(prefix ${WORK_DIR}/prefix)
run(${CMAKE_COMMAND} --install ${BUILD_DIR} --prefix ${prefix} --component Unspecified)

file(GLOB_RECURSE libraries RELATIVE ${prefix} ${prefix}/lib*/libproxy*)
if(NOT libraries MATCHES "libproxyrt-core" OR NOT libraries MATCHES "libproxyrt-collectives")
  message(FATAL_ERROR "installed libraries are not named libproxyrt-*: ${libraries}")
endif()
if(libraries MATCHES "libproxy\\.")
  message(FATAL_ERROR "a library is installed as libproxy (Debian's and Spack's name): ${libraries}")
endif()
if(EXISTS ${prefix}/include/proxy/detail OR NOT EXISTS ${prefix}/include/proxy/version.hpp)
  message(FATAL_ERROR "installed headers: internals under include/proxy/detail, or no version.hpp")
endif()

# CMake consumer.
run(${CMAKE_COMMAND} -S ${CONSUMER_SOURCE} -B ${WORK_DIR}/build -DCMAKE_PREFIX_PATH=${prefix})
run(${CMAKE_COMMAND} --build ${WORK_DIR}/build)
run(${MPIEXEC} -n 2 ${WORK_DIR}/build/consumer)
expect_sum_of_ranks("find_package(proxy)")

# find_package's one line for components it refuses, in a C++-only project: each unknown one named once with the
# known ones listed once, and a known one whose language is not enabled (it read "has not enabled ;(project(...").
set(_known "\\(proxy's components: core, collectives, harness, c, fortran\\)")
expect_component_refusal(${prefix} cc "proxy: unknown component 'cc' ${_known}")
expect_component_refusal(${prefix} "core;bogus;cc" "proxy: unknown components 'bogus', 'cc' ${_known}")
expect_component_refusal(${prefix} "c;bogus" "proxy: unknown component 'bogus' ${_known}; component 'c' needs the C \
language, which this project has not enabled \\(add C to project\\(\\)'s LANGUAGES, or call enable_language\\(C\\)\\)")
# A C (or Fortran) project that has not enabled CXX: the package's line, not FindMPI's "Could NOT find MPI (missing:
# MPI_CXX_FOUND CXX)" (docs/c-fortran.md says the project enables CXX too).
set(_no_cxx "proxy: the package needs the CXX language, which this project has not enabled \\(its libraries are \
C\\+\\+, under the C API and the Fortran module too\\): add CXX to project\\(\\)'s LANGUAGES \
\\(project\\(NAME LANGUAGES C CXX\\)\\), or call enable_language\\(CXX\\)")
expect_component_refusal(${prefix} c "${_no_cxx}" C)
expect_component_refusal(${prefix} core "${_no_cxx}" C)

# pkg-config consumer: the compiler driver and the flags proxyrt.pc gives, nothing else.
file(GLOB_RECURSE pc_file ${prefix}/*/proxyrt.pc)
if(NOT pc_file)
  message(FATAL_ERROR "no proxyrt.pc installed")
endif()
get_filename_component(pc_dir ${pc_file} DIRECTORY)
run(${CMAKE_COMMAND} -E env PKG_CONFIG_PATH=${pc_dir} ${PKG_CONFIG} --cflags --libs proxyrt)
separate_arguments(flags UNIX_COMMAND "${last_output}")
run(${CXX} ${CONSUMER_SOURCE}/main.cpp -o ${WORK_DIR}/consumer-pkg-config ${flags})
get_filename_component(lib_dir ${pc_dir} DIRECTORY)  # a shared build's libraries: as ld.so.conf would give them
run(${CMAKE_COMMAND} -E env LD_LIBRARY_PATH=${lib_dir} ${MPIEXEC} -n 2 ${WORK_DIR}/consumer-pkg-config)
expect_sum_of_ranks("pkg-config proxyrt")
