// Helpers for multi-rank tests (linked through proxy_mpi_gtest_main).
#pragma once

#include <mpi.h>

#include <functional>
#include <string>

#include "proxy/error.hpp"

namespace proxy {
class Environment;
}

namespace proxy::test_util {

// The Environment that mpi_gtest_main.cpp created for the whole test program.
const Environment& environment();

inline int world_rank() {
  int rank = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  return rank;
}

inline int world_size() {
  int size = 1;
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  return size;
}

// What fn() threw as proxy::Error (its what()), or "(no exception)".
inline std::string message_of(const std::function<void()>& fn) {
  try {
    fn();
  } catch (const proxy::Error& e) {
    return e.what();
  }
  return "(no exception)";
}

}  // namespace proxy::test_util
