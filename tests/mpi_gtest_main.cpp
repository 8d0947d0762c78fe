// main() for GoogleTest programs that run on several MPI ranks: every rank runs every test in the same
// order (so collective set-up inside tests matches), only rank 0 prints, and the exit code is the same
// on all ranks (non-zero if any rank failed any test).
#include <gtest/gtest.h>
#include <mpi.h>

#include <cstdio>

#include "mpi_test_util.hpp"
#include "proxy/environment.hpp"

namespace {
const proxy::Environment* the_environment = nullptr;
}

const proxy::Environment& proxy::test_util::environment() { return *the_environment; }

int main(int argc, char** argv) try {
  proxy::Environment env(argc, argv);
  the_environment = &env;
  ::testing::InitGoogleTest(&argc, argv);
  if (env.rank() != 0) {
    auto& listeners = ::testing::UnitTest::GetInstance()->listeners();
    delete listeners.Release(listeners.default_result_printer());
  }
  int failed = RUN_ALL_TESTS() != 0 ? 1 : 0;
  int any_failed = 0;
  MPI_Allreduce(&failed, &any_failed, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
  if (failed) std::fprintf(stderr, "rank %d: some tests failed\n", env.rank());
  return any_failed;
} catch (const proxy::SettingsError& refused) {  // every rank; one of them says why
  return refused.exit_status();
}
