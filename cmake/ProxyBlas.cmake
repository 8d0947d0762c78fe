# The BLAS for SUMMA, found with CMake's FindBLAS so that any site's BLAS works: choose it with BLA_VENDOR
# (OpenBLAS by default; e.g. Intel10_64lp_seq for sequential MKL, FLAME for BLIS, FlexiBLAS, All for the
# first one found). SUMMA calls the C interface (cblas.h), so the header is looked for beside the library.
# Result: the interface target proxy_blas. Thread control is detected at run time (summa/src/blas_threads.cpp).
find_package(BLAS REQUIRED)
find_path(PROXY_CBLAS_INCLUDE_DIR cblas.h
          PATH_SUFFIXES openblas openblas-pthread openblas-openmp openblas-serial blis flexiblas mkl
          DOC "Folder holding the cblas.h of the BLAS that FindBLAS found")
if(NOT PROXY_CBLAS_INCLUDE_DIR)
  message(FATAL_ERROR "BLAS (${BLA_VENDOR}) found, but no cblas.h: set PROXY_CBLAS_INCLUDE_DIR to the folder "
                      "that holds the C interface header of that BLAS")
endif()
add_library(proxy_blas INTERFACE)
target_link_libraries(proxy_blas INTERFACE BLAS::BLAS ${CMAKE_DL_LIBS})
target_include_directories(proxy_blas INTERFACE ${PROXY_CBLAS_INCLUDE_DIR})
message(STATUS "BLAS for SUMMA (BLA_VENDOR=${BLA_VENDOR}): ${BLAS_LIBRARIES}; cblas.h in ${PROXY_CBLAS_INCLUDE_DIR}")
