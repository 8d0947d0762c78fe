// Unit tests of the RedBlack3D library without MPI: decomposition arithmetic, the inner/annulus split,
// the optimised kernel against the reference (bitwise, with and without threads, in any cache band), the serial solver's
// convergence to the manufactured solution, and the bitwise comparison itself.
#include <gtest/gtest.h>

#include <atomic>
#include <bit>
#include <cmath>
#include <cstdint>
#include <random>

#include <omp.h>

#include "redblack3d/decomposition.hpp"
#include "redblack3d/kernel.hpp"
#include "redblack3d/norms.hpp"
#include "redblack3d/problem.hpp"
#include "redblack3d/serial.hpp"

namespace redblack3d {
namespace {

TEST(Decomposition, BlocksDifferByAtMostOnePlaneAndTile) {
  for (int n = 1; n <= 40; ++n) {
    for (int parts = 1; parts <= n; ++parts) {
      int next = 0, smallest = n, largest = 0;
      for (int i = 0; i < parts; ++i) {
        const Range r = block_range(n, parts, i);
        EXPECT_EQ(r.offset, next) << n << "/" << parts;
        next += r.size;
        smallest = std::min(smallest, r.size);
        largest = std::max(largest, r.size);
      }
      EXPECT_EQ(next, n);
      EXPECT_LE(largest - smallest, 1);
    }
  }
}

TEST(Decomposition, CoordinatesAndNeighbours) {
  // 2x2x1 on a 13x14x15 grid: rank 3 is block (1,1,0), x varies fastest.
  const Decomposition d = decompose({13, 14, 15}, {2, 2, 1}, 3);
  EXPECT_EQ(d.coords, (Extent{1, 1, 0}));
  EXPECT_EQ(d.offset, (Extent{7, 7, 0}));
  EXPECT_EQ(d.local, (Extent{6, 7, 15}));
  EXPECT_EQ(d.neighbour, (std::array<int, 6>{2, -1, 1, -1, -1, -1}));
  const Decomposition middle = decompose({8, 8, 15}, {1, 1, 4}, 1);
  EXPECT_EQ(middle.neighbour, (std::array<int, 6>{-1, -1, -1, -1, 0, 2}));
  EXPECT_EQ(middle.local, (Extent{8, 8, 4}));
}

TEST(Decomposition, DefaultGeometrySplitsZThenYKeepsXWhole) {
  EXPECT_EQ(default_geometry(1), (Extent{1, 1, 1}));
  EXPECT_EQ(default_geometry(2), (Extent{1, 1, 2}));
  EXPECT_EQ(default_geometry(4), (Extent{1, 2, 2}));
  EXPECT_EQ(default_geometry(6), (Extent{1, 2, 3}));
  EXPECT_EQ(default_geometry(8), (Extent{2, 2, 2}));
  EXPECT_EQ(default_geometry(7), (Extent{1, 1, 7}));
}

TEST(Kernel, InnerAndAnnulusPartitionTheInterior) {
  const Extent local{5, 6, 7};
  for (int pattern = 0; pattern < 64; ++pattern) {
    std::array<bool, 6> has{};
    for (int face = 0; face < 6; ++face) has[face] = (pattern >> face) & 1;
    const OverlapSplit split = split_inner_annulus(local, has);
    std::vector<int> covered(static_cast<std::size_t>(8 * 9 * 10), 0);
    auto mark = [&](const Box& b) {
      for (int k = b.lo[2]; k < b.hi[2]; ++k)
        for (int j = b.lo[1]; j < b.hi[1]; ++j)
          for (int i = b.lo[0]; i < b.hi[0]; ++i) ++covered[static_cast<std::size_t>(i + 8 * (j + 9 * k))];
    };
    mark(split.inner);
    for (const Box& b : split.annulus) mark(b);
    for (int k = 0; k <= 8; ++k)
      for (int j = 0; j <= 7; ++j)
        for (int i = 0; i <= 6; ++i) {
          const bool interior = i >= 1 && i <= 5 && j >= 1 && j <= 6 && k >= 1 && k <= 7;
          ASSERT_EQ(covered[static_cast<std::size_t>(i + 8 * (j + 9 * k))], interior ? 1 : 0) << pattern;
        }
    // The inner box never touches a face that has a neighbour (those planes are sent or need ghosts).
    for (int d = 0; d < 3; ++d) {
      EXPECT_EQ(split.inner.lo[d], has[2 * d] ? 2 : 1);
      EXPECT_EQ(split.inner.hi[d], has[2 * d + 1] ? local[d] : local[d] + 1);
    }
  }
}

// Early-bird: face F is listed after box b only when every point of F's plane (what F's send reads, and
// the only points that read F's ghosts) lies in a box up to b, and each face with a neighbour once.
TEST(Kernel, FacesFinishedAfterTheLastBoxTouchingThem) {
  const Extent local{5, 6, 7};
  for (int pattern = 0; pattern < 64; ++pattern) {
    std::array<bool, 6> has{};
    for (int face = 0; face < 6; ++face) has[face] = (pattern >> face) & 1;
    const OverlapSplit split = split_inner_annulus(local, has);
    const std::vector<std::vector<int>> finished = faces_finished_after(split, local, has);
    ASSERT_EQ(finished.size(), split.annulus.size());
    std::array<int, 6> listed_after{-1, -1, -1, -1, -1, -1};
    for (std::size_t b = 0; b < finished.size(); ++b)
      for (int face : finished[b]) {
        EXPECT_EQ(listed_after[face], -1) << "face " << face << " listed twice, pattern " << pattern;
        listed_after[face] = static_cast<int>(b);
      }
    for (int face = 0; face < 6; ++face) {
      if (!has[face]) {
        EXPECT_EQ(listed_after[face], -1) << "face " << face << " has no neighbour, pattern " << pattern;
        continue;
      }
      ASSERT_GE(listed_after[face], 0) << "face " << face << " never finished, pattern " << pattern;
      const int d = face / 2, plane = face % 2 == 0 ? 1 : local[d];
      for (int k = 1; k <= local[2]; ++k)
        for (int j = 1; j <= local[1]; ++j)
          for (int i = 1; i <= local[0]; ++i) {
            const Extent p{i, j, k};
            if (p[d] != plane) continue;
            int owner = -1;
            for (std::size_t b = 0; b < split.annulus.size(); ++b) {
              const Box& box = split.annulus[b];
              if (box.lo[0] <= i && i < box.hi[0] && box.lo[1] <= j && j < box.hi[1] && box.lo[2] <= k && k < box.hi[2])
                owner = static_cast<int>(b);
            }
            ASSERT_GE(owner, 0) << "point of face " << face << " outside the annulus, pattern " << pattern;
            ASSERT_LE(owner, listed_after[face]) << "face " << face << " listed before its box " << owner;
          }
    }
  }
}

Grid random_grid(const Extent& n, unsigned seed) {
  Grid g(n);
  std::mt19937_64 random(seed);
  std::uniform_real_distribution<double> value(-1.0, 1.0);
  for (std::size_t i = 0; i < g.size(); ++i) g.data()[i] = value(random);
  return g;
}

bool bitwise_equal(const Grid& a, const Grid& b) {
  for (std::size_t i = 0; i < a.size(); ++i) {
    if (std::bit_cast<std::uint64_t>(a.data()[i]) != std::bit_cast<std::uint64_t>(b.data()[i])) return false;
  }
  return true;
}

TEST(Kernel, OptimisedMatchesReferenceBitwise) {
  const Extent n{1037, 5, 4};  // rows longer than the kernel's chunk, odd lengths
  const Stencil s = make_stencil({2000, 30, 40}, 1.3);
  const Grid f = random_grid(n, 7);
  for (const Extent offset : {Extent{0, 0, 0}, Extent{3, 0, 8}, Extent{1, 1, 1}}) {
    for (const Box box : {interior_box(n), Box{{2, 2, 2}, {1000, 5, 4}}, Box{{1, 1, 1}, {2, 6, 5}}}) {
      for (Colour colour : {Colour::red, Colour::black}) {
        Grid expected = random_grid(n, 11);
        Grid actual = expected;
        relax_ref(expected, f, s, colour, offset, box);
        relax(actual, f, s, colour, offset, box);
        EXPECT_TRUE(bitwise_equal(expected, actual));
        Grid threaded = random_grid(n, 11);
#pragma omp parallel num_threads(3)
        relax(threaded, f, s, colour, offset, box);
        EXPECT_TRUE(bitwise_equal(expected, threaded));
      }
    }
  }
}

// Every band height visits every row once: 1 row, uneven bands (5 rows of 13 in 3 bands of 4-5), the
// whole plane, more than the plane, and the cache's own choice, alone and split over 3 threads.
TEST(Kernel, CacheBandsMatchReferenceBitwise) {
  const Extent n{37, 13, 6};
  const Stencil s = make_stencil({40, 30, 20}, 1.3);
  const Grid f = random_grid(n, 5);
  const Extent offset{1, 2, 3};
  for (const Box box : {interior_box(n), Box{{2, 3, 2}, {30, 12, 6}}}) {
    for (Colour colour : {Colour::red, Colour::black}) {
      Grid expected = random_grid(n, 9);
      relax_ref(expected, f, s, colour, offset, box);
      for (const int band : {1, 5, 13, 40, 0}) {
        Grid alone = random_grid(n, 9);
        relax(alone, f, s, colour, offset, box, {}, band);
        EXPECT_TRUE(bitwise_equal(expected, alone)) << "band " << band;
        Grid threaded = random_grid(n, 9);
        std::atomic<int> plane_entries{0};
#pragma omp parallel num_threads(3)
        relax(threaded, f, s, colour, offset, box, [&plane_entries] { ++plane_entries; }, band);
        EXPECT_TRUE(bitwise_equal(expected, threaded)) << "band " << band;
        // One progress point per plane of each band: bands x planes of the box.
        const int rows_y = box.hi[1] - box.lo[1], planes = box.hi[2] - box.lo[2];
        const int bands = band <= 0 ? 1 : (rows_y + band - 1) / band;
        EXPECT_EQ(plane_entries.load(), bands * planes) << "band " << band;
      }
    }
  }
}

TEST(Kernel, CacheBandRowsFollowTheRowLength) {
  const int wide = cache_block_rows(4096), narrow = cache_block_rows(2048);
  EXPECT_GE(wide, 1);
  EXPECT_GE(narrow, 2 * wide);  // half the row length, twice the rows (floor)
  EXPECT_LE(narrow, 2 * wide + 1);
  EXPECT_EQ(cache_block_rows(1LL << 40), 1);
  EXPECT_EQ(cache_block_rows(0), cache_block_rows(1));
}

TEST(Kernel, UpdatesOnlyItsColour) {
  const Extent n{9, 4, 3};
  const Extent offset{2, 5, 1};
  const Stencil s = make_stencil({20, 20, 20}, 1.0);
  const Grid f = random_grid(n, 3);
  const Grid before = random_grid(n, 4);
  Grid after = before;
  relax(after, f, s, Colour::black, offset, interior_box(n));
  for (int k = 0; k <= n[2] + 1; ++k)
    for (int j = 0; j <= n[1] + 1; ++j)
      for (int i = 0; i <= n[0] + 1; ++i) {
        const bool interior = i >= 1 && i <= n[0] && j >= 1 && j <= n[1] && k >= 1 && k <= n[2];
        const bool black = ((offset[0] + i + offset[1] + j + offset[2] + k) & 1) == 1;
        if (interior && black) {
          EXPECT_NE(after.at(i, j, k), before.at(i, j, k));
        } else {
          EXPECT_EQ(after.at(i, j, k), before.at(i, j, k));
        }
      }
}

TEST(Serial, ConvergesToTheManufacturedSolution) {
  const Extent n{8, 8, 8};
  const Stencil s = make_stencil(n, 1.0);
  const Grid f = make_rhs(n, {0, 0, 0}, n);
  double previous = INFINITY;
  for (int iterations : {5, 20, 80}) {
    const LocalNorms norms = local_norms(solve_serial(n, 1.0, iterations), f, s, n, {0, 0, 0});
    EXPECT_LT(norms.residual_squares, previous);
    previous = norms.residual_squares;
  }
  // Converged: the discrete residual vanishes and the error is the O(h^2) discretisation error,
  // pi^2 h^2 / 4 at the centre to leading order (h = 1/9): about 0.03.
  const LocalNorms converged = local_norms(solve_serial(n, 1.5, 300), f, s, n, {0, 0, 0});
  EXPECT_LT(std::sqrt(converged.residual_squares), 1e-9);
  EXPECT_LT(converged.error_max, 0.035);
  EXPECT_GT(converged.error_max, 0.005);
}

TEST(Norms, ComparisonCountsEveryDifferingBit) {
  const Grid serial = solve_serial({6, 5, 4}, 1.0, 2);
  Grid block(Extent{3, 5, 4});
  for (int k = 1; k <= 4; ++k)
    for (int j = 1; j <= 5; ++j)
      for (int i = 1; i <= 3; ++i) block.at(i, j, k) = serial.at(3 + i, j, k);
  EXPECT_EQ(compare_with_serial(block, serial, {3, 0, 0}).mismatches, 0);
  block.at(2, 3, 1) = std::nextafter(block.at(2, 3, 1), 2.0);
  const Comparison one = compare_with_serial(block, serial, {3, 0, 0});
  EXPECT_EQ(one.mismatches, 1);
  EXPECT_GT(one.max_difference, 0.0);
  EXPECT_LT(one.max_difference, 1e-15);
}

}  // namespace
}  // namespace redblack3d
