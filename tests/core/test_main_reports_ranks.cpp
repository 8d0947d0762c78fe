// A test that fails on every rank but 0, for core.mpi_test_main_reports_other_ranks: the MPI test main
// (tests/mpi_gtest_main.cpp) must print the other ranks' failures, each line prefixed with the rank, and
// exit non-zero everywhere, without hanging in its own printer.
#include <gtest/gtest.h>
#include <mpi.h>

TEST(TestMain, FailsOffRankZero) {
  int rank = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  EXPECT_EQ(rank, 0) << "only rank 0 passes";
}
