# A shared-library installation, from outside: configures this source tree with BUILD_SHARED_LIBS=ON and
# PROXY_COMPONENTS=core (the libraries alone, no applications or tests: small), installs it into a scratch
# prefix, and builds tests/core/consumer against it with find_package(proxy COMPONENTS core) and with
# pkg-config (proxyrt-core) and the C++ compiler alone; both run on 2 ranks and must link libproxyrt-core.so.
# Then asks find_package for a component this installation lacks (harness) and one proxy does not know, and
# checks the one line each gives. The static installation of the full build: core.install_consumer.
# The library is a unity build (CMAKE_UNITY_BUILD, two batches for the two jobs): the same installation in a
# third of the compile time (21 s against 64 s, two jobs on the 2-core development machine), and it keeps the
# sources fit for one.
#   cmake -DSOURCE_DIR= -DWORK_DIR= -DGENERATOR= -DMPI_CXX_COMPILER= -DMPIEXEC_EXECUTABLE= -DMPIEXEC=
#         -DCXX= -DPKG_CONFIG= -DVERSION= [-DLAUNCHER=ccache] -P check_shared_package.cmake
include(${CMAKE_CURRENT_LIST_DIR}/install_support.cmake)  # run(), expect_sum_of_ranks()
# expect_shared(program): the program loads libproxyrt-core.so.MAJOR.MINOR (readelf's NEEDED entries).
find_program(READELF readelf)
function(expect_shared program)
  if(READELF)
    run(${READELF} -d ${program})
    string(REGEX MATCH "libproxyrt-core\\.so\\.[0-9]+\\.[0-9]+" needed "${last_output}")
    if(NOT needed)
      message(FATAL_ERROR "${program} does not load libproxyrt-core.so.MAJOR.MINOR:\n${last_output}")
    endif()
  endif()
endfunction()

# The library build is kept between runs (ninja then has nothing to do); prefix and consumers are not.
set(build ${WORK_DIR}/library-build)
set(prefix ${WORK_DIR}/prefix)
file(REMOVE_RECURSE ${prefix} ${WORK_DIR}/consumer-build ${WORK_DIR}/probe-build)
set(launcher_options "")
if(LAUNCHER)
  set(launcher_options -DCMAKE_CXX_COMPILER_LAUNCHER=${LAUNCHER} -DCMAKE_C_COMPILER_LAUNCHER=${LAUNCHER})
endif()
run(${CMAKE_COMMAND} -S ${SOURCE_DIR} -B ${build} -G ${GENERATOR} -DCMAKE_BUILD_TYPE=Release
    -DCMAKE_UNITY_BUILD=ON -DCMAKE_UNITY_BUILD_BATCH_SIZE=16
    -DBUILD_SHARED_LIBS=ON -DPROXY_COMPONENTS=core -DPROXY_BUILD_APPS=OFF -DPROXY_BUILD_TESTS=OFF
    -DPROXY_BUILD_BENCH=OFF -DMPI_CXX_COMPILER=${MPI_CXX_COMPILER} -DMPIEXEC_EXECUTABLE=${MPIEXEC_EXECUTABLE}
    ${launcher_options})
run(${CMAKE_COMMAND} --build ${build} --parallel 2)
run(${CMAKE_COMMAND} --install ${build} --prefix ${prefix})

file(GLOB_RECURSE libraries RELATIVE ${prefix} ${prefix}/lib*/libproxyrt*)
if(NOT libraries MATCHES "libproxyrt-core\\.so\\.${VERSION}" OR libraries MATCHES "libproxyrt-collectives")
  message(FATAL_ERROR "a core-only shared installation should hold libproxyrt-core.so.${VERSION} alone: ${libraries}")
endif()

# CMake consumer (the imported target's location gives it the run path).
run(${CMAKE_COMMAND} -S ${SOURCE_DIR}/tests/core/consumer -B ${WORK_DIR}/consumer-build -DCOMPONENTS=core
    -DCMAKE_PREFIX_PATH=${prefix})
run(${CMAKE_COMMAND} --build ${WORK_DIR}/consumer-build)
expect_shared(${WORK_DIR}/consumer-build/consumer)
run(${MPIEXEC} -n 2 ${WORK_DIR}/consumer-build/consumer)
expect_sum_of_ranks("shared, find_package(proxy COMPONENTS core)")

# pkg-config consumer: the compiler driver and the flags proxyrt-core.pc gives; the loader finds the library
# through LD_LIBRARY_PATH, as it would through /etc/ld.so.conf in a system prefix.
file(GLOB_RECURSE pc_file ${prefix}/*/proxyrt-core.pc)
if(NOT pc_file)
  message(FATAL_ERROR "no proxyrt-core.pc installed")
endif()
get_filename_component(pc_dir ${pc_file} DIRECTORY)
get_filename_component(lib_dir ${pc_dir} DIRECTORY)
run(${CMAKE_COMMAND} -E env PKG_CONFIG_PATH=${pc_dir} ${PKG_CONFIG} --cflags --libs proxyrt-core)
separate_arguments(flags UNIX_COMMAND "${last_output}")
run(${CXX} ${SOURCE_DIR}/tests/core/consumer/main.cpp -o ${WORK_DIR}/consumer-pkg-config ${flags})
expect_shared(${WORK_DIR}/consumer-pkg-config)
run(${CMAKE_COMMAND} -E env LD_LIBRARY_PATH=${lib_dir} ${MPIEXEC} -n 2 ${WORK_DIR}/consumer-pkg-config)
expect_sum_of_ranks("shared, pkg-config proxyrt-core")

# find_package with a component this installation lacks, and one proxy does not know: one line naming it.
expect_component_refusal(${prefix} harness "proxy: component 'harness' is not installed in [^ ]+ \\(it has: core\\)")
set(_known "\\(proxy's components: core, collectives, harness, c, fortran\\)")
expect_component_refusal(${prefix} bogus "proxy: unknown component 'bogus' ${_known}")
