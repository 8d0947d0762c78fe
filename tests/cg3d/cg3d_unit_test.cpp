// Unit tests of the cg3d library without MPI: the serial CG of both variants (it converges to the
// tolerance, its residual falls, and its solution is the discretisation's: the error against the exact
// solution falls as h^2), the two variants agree, and the blocked kernels (split operator, partial sums,
// threads) give the same bits as a whole-grid sweep.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>

#include <omp.h>

#include "cg3d/kernels.hpp"
#include "cg3d/problem.hpp"
#include "cg3d/serial.hpp"
#include "cg3d/solver.hpp"
#include "proxy/harness/mode.hpp"
#include "redblack3d/norms.hpp"

namespace cg3d {
namespace {

double error_against_exact(const Grid& x, const Extent& global) {
  const redblack3d::Stencil s = redblack3d::make_stencil(global, 1.0);
  const Grid b = redblack3d::make_rhs(global, {0, 0, 0}, global);
  return redblack3d::local_norms(x, b, s, global, {0, 0, 0}).error_max;
}

class SerialCg : public ::testing::TestWithParam<Variant> {};

TEST_P(SerialCg, ConvergesToTheToleranceAndTheResidualFalls) {
  const Extent global{10, 11, 12};
  const SerialResult result = solve_serial(global, GetParam(), 1e-10, 500);
  ASSERT_TRUE(result.converged);
  EXPECT_LE(result.history.back(), 1e-10);
  EXPECT_EQ(result.history.size(), static_cast<std::size_t>(result.iterations) + 1);
  EXPECT_GT(result.iterations, 10) << "x0 must not make the problem trivial (b is an eigenvector of A)";
  // CG's residual need not fall every iteration, but every 10 iterations its best must improve.
  double best = result.history.front();
  for (std::size_t k = 10; k < result.history.size(); k += 10) {
    const double window_best = *std::min_element(result.history.begin() + static_cast<long>(k) - 9,
                                                 result.history.begin() + static_cast<long>(k) + 1);
    EXPECT_LT(window_best, best) << "iterations " << k - 9 << ".." << k;
    best = std::min(best, window_best);
  }
  // The recurrences' residual is the true one up to rounding (pipelined: its residual gap).
  EXPECT_NEAR(result.true_residual, result.history.back(), 1e-12);
}

TEST_P(SerialCg, ErrorIsAtDiscretisationLevel) {
  // Second order: halving h divides the error by about 4, and the error is h^2-sized, far above the
  // algebraic error left at tol 1e-10.
  const double coarse = error_against_exact(solve_serial({7, 7, 7}, GetParam(), 1e-10, 500).x, {7, 7, 7});
  const double fine = error_against_exact(solve_serial({15, 15, 15}, GetParam(), 1e-10, 500).x, {15, 15, 15});
  EXPECT_GT(coarse / fine, 3.5);
  EXPECT_LT(coarse / fine, 4.5);
  EXPECT_LT(fine, 0.01);
  EXPECT_GT(fine, 1e-4);
}

TEST_P(SerialCg, StopsAtMaxIterations) {
  const SerialResult result = solve_serial({9, 9, 9}, GetParam(), 1e-12, 5);
  EXPECT_FALSE(result.converged);
  EXPECT_EQ(result.iterations, 5);
  EXPECT_EQ(result.history.size(), 6u);
}

INSTANTIATE_TEST_SUITE_P(Variants, SerialCg, ::testing::Values(Variant::classic, Variant::pipelined),
                         [](const auto& info) { return std::string(to_string(info.param)); });

TEST(SerialCg, VariantsAgree) {
  // Same Krylov space, different recurrences: same iteration count (+-1) and nearly the same history.
  const SerialResult classic = solve_serial({12, 13, 14}, Variant::classic, 1e-8, 500);
  const SerialResult pipelined = solve_serial({12, 13, 14}, Variant::pipelined, 1e-8, 500);
  EXPECT_LE(std::abs(classic.iterations - pipelined.iterations), 1);
  for (std::size_t k = 0; k < std::min(classic.history.size(), pipelined.history.size()); ++k)
    EXPECT_NEAR(pipelined.history[k], classic.history[k], 1e-10 * classic.history[0]) << "iteration " << k;
}

TEST(Variant, ParsesItsNames) {
  EXPECT_EQ(parse_variant("classic"), Variant::classic);
  EXPECT_EQ(parse_variant("pipelined"), Variant::pipelined);
  EXPECT_THROW(parse_variant("chebyshev"), proxy::harness::InvalidSettings);
}

// The bound --help states (2.2e-16) is the bound checked: accepted at it, refused at the next double below it,
// and the message prints that value so that it does not read as the bound.
TEST(Validate, ToleranceBoundIsTheStatedOne) {
  RunSettings settings;
  settings.global = {8, 8, 8};
  settings.tol = 2.2e-16;
  EXPECT_NO_THROW(validate(settings, 1));
  settings.tol = std::nextafter(2.2e-16, 0.0);
  try {
    validate(settings, 1);
    ADD_FAILURE() << "--tol 2.1999999999999998e-16 was accepted";
  } catch (const proxy::harness::InvalidSettings& refusal) {
    EXPECT_STREQ(refusal.what(), "--tol 2.1999999999999998e-16 is below 2.2e-16 (double precision's epsilon to two "
                                 "digits): no computed residual means it");
  }
}

TEST(InitialGuess, IsTheSameForEveryDecomposition) {
  const Extent global{9, 10, 11};
  const Grid whole = initial_guess(global, {0, 0, 0}, global);
  const Grid block = initial_guess(global, {4, 3, 5}, {5, 7, 6});
  for (int k = 1; k <= 6; ++k)
    for (int j = 1; j <= 7; ++j)
      for (int i = 1; i <= 5; ++i) {
        EXPECT_EQ(block.at(i, j, k), whole.at(4 + i, 3 + j, 5 + k));
        EXPECT_GE(block.at(i, j, k), 0.0);
        EXPECT_LT(block.at(i, j, k), 1.0);
      }
}

TEST(Kernels, SplitOperatorAndPartialSumsMatchOneSweepWithAnyThreads) {
  // A block of one row per part (72 rows) and one of three rows per part (600 rows, 200 parts).
  for (const Extent& local : {Extent{11, 9, 8}, Extent{5, 30, 20}}) {
    const Extent global{40, 40, 40};
    const Grid v = initial_guess(global, {3, 2, 1}, local);  // ghosts stay 0
    const redblack3d::Stencil s = redblack3d::make_stencil(global, 1.0);
    Grid whole(local);
    apply(v, whole, s, redblack3d::interior_box(local));
    PartialSums reference(local);
    dot(v, whole, reference);
    // The documented order, written out: each row over x, the rows of a part in (k, j) order, the parts in
    // order (what the proxy's allreduce element repeats over parts()).
    const RowParts split(local);
    EXPECT_EQ(split.rows_per_part, local[1] * local[2] > RowParts::kMaxParts ? 3 : 1);
    EXPECT_EQ(reference.parts().size(), static_cast<std::size_t>(split.parts));
    double by_parts = 0.0, part = 0.0;
    for (int index = 0; index < split.rows; ++index) {
      const int j = 1 + index % local[1], k = 1 + index / local[1];
      double row = 0.0;
      for (int i = 1; i <= local[0]; ++i) row += v.at(i, j, k) * whole.at(i, j, k);
      part += row;
      if ((index + 1) % split.rows_per_part == 0 || index + 1 == split.rows) {
        by_parts += part;
        part = 0.0;
      }
    }
    EXPECT_EQ(reference.total()[0], by_parts);
    for (int threads : {1, 2, 3}) {
      Grid cut(local);
      PartialSums sums(local);
      const redblack3d::OverlapSplit parts =
          redblack3d::split_inner_annulus(local, {true, true, false, true, true, true});
#pragma omp parallel num_threads(threads)
      {
        apply(v, cut, s, parts.inner);
        for (const Box& box : parts.annulus) apply(v, cut, s, box);
#pragma omp barrier
        dot(v, cut, sums);
      }
      for (std::size_t i = 0; i < whole.size(); ++i) ASSERT_EQ(cut.data()[i], whole.data()[i]) << threads << " threads";
      EXPECT_EQ(sums.total(), reference.total()) << threads << " threads";
    }
  }
}

}  // namespace
}  // namespace cg3d
