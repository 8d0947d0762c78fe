// The four SUMMA modes on real MPI ranks (this test runs on 1, 2, 3 and 4 ranks): every grid whose size is
// the rank count, sizes that do not divide by the grid (and smaller than it), panels of 1, 7, 64 and wider
// than any block. Each run's C is checked against one dgemm per rank from the generator (summa::run's
// verify), and the check itself is shown to catch a wrong C.
#include <gtest/gtest.h>

#include <cstdio>
#include <string>
#include <vector>

#include <proxy/environment.hpp>

#include "mpi_test_util.hpp"

#include "summa/grid_context.hpp"
#include "summa/operands.hpp"
#include "summa/run.hpp"

namespace {

// The program's Environment, from tests/mpi_gtest_main.cpp.
const proxy::Environment& environment() { return proxy::test_util::environment(); }

std::vector<std::pair<int, int>> grids_of(int ranks) {
  std::vector<std::pair<int, int>> grids;
  for (int rows = 1; rows <= ranks; ++rows)
    if (ranks % rows == 0) grids.emplace_back(rows, ranks / rows);
  return grids;
}

struct Shape {
  std::int64_t m, n, k;
};

class Modes : public ::testing::TestWithParam<summa::Mode> {};

TEST_P(Modes, EveryGridSizeAndPanelGivesTheReferenceProduct) {
  const int ranks = environment().size();
  for (auto [rows, cols] : grids_of(ranks)) {
    for (Shape shape : {Shape{97, 61, 83}, Shape{1, 1, 1}, Shape{2, 3, 5}}) {
      for (int panel : {1, 7, 64, 1000}) {
        // Keep the oversubscribed 3-4 rank runs short: 83 one-column steps once (below), 1x1x1 covered by
        // 2x3x5, which already leaves some ranks with empty blocks there.
        if (ranks > 2 && ((panel == 1 && shape.k > 40) || shape.k == 1)) continue;
        summa::Problem problem;
        problem.m = shape.m, problem.n = shape.n, problem.k = shape.k;
        problem.grid_rows = rows, problem.grid_cols = cols;
        problem.panel = panel;
        problem.mode = GetParam();
        problem.threads = summa::is_multi_tier(problem.mode) ? 2 : 1;
        problem.verify = true;
        const summa::RunResult result = summa::run(environment(), problem);
        EXPECT_TRUE(result.verified) << problem.grid() << " " << shape.m << "x" << shape.n << "x" << shape.k
                                     << " panel " << panel << ": max relative error " << result.max_rel_error;
        EXPECT_GE(result.timings.total_s, result.timings.compute_s);
        EXPECT_GE(result.timings.other_s(), 0.0) << "the timing columns must add up";
      }
    }
  }
}

INSTANTIATE_TEST_SUITE_P(AllModes, Modes,
                         ::testing::Values(summa::Mode::sync, summa::Mode::async, summa::Mode::mt, summa::Mode::proxy),
                         [](const auto& info) { return std::string(summa::to_string(info.param)); });

TEST(Modes, PanelOfOneCoversTheLargeShapeOnThisRankCount) {
  // The case the loop above skips on 3-4 ranks, once, in the mode with the most machinery.
  summa::Problem problem;
  problem.m = 97, problem.n = 61, problem.k = 83;
  problem.grid_rows = 1, problem.grid_cols = environment().size();
  problem.panel = 1;
  problem.mode = summa::Mode::proxy;
  problem.threads = 2;
  problem.verify = true;
  EXPECT_TRUE(summa::run(environment(), problem).verified);
}

TEST(Verify, CatchesAWrongProduct) {
  summa::Problem problem;
  problem.m = 13, problem.n = 11, problem.k = 9;
  problem.grid_rows = 1, problem.grid_cols = environment().size();
  summa::GridContext grid(environment().world(), problem, 0);
  summa::Operands operands(grid);  // C still zero: nothing multiplied
  if (grid.local_rows() * grid.local_cols() > 0) {
    EXPECT_GT(summa::local_relative_error(grid, operands.c(), 1), 1e-3);
  }
}

}  // namespace
