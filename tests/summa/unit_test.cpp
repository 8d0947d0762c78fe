// Unit tests of the SUMMA library's pure parts: distribution, panel schedule, generator, tiles, the local
// multiply (threads x single-threaded dgemm and one multi-threaded dgemm against a naive loop), rank maps
// (the thesis's broadcast counts) and problem validation. No MPI.
#include <gtest/gtest.h>

#include <cmath>
#include <thread>
#include <vector>

#include "summa/blas_threads.hpp"
#include "summa/distribution.hpp"
#include "summa/generator.hpp"
#include "summa/local_multiply.hpp"
#include "summa/panel_schedule.hpp"
#include "summa/problem.hpp"
#include "summa/rank_map.hpp"

namespace {

using summa::BlockDistribution;

TEST(BlockDistribution, BlocksAreContiguousAndDifferByAtMostOne) {
  for (std::int64_t extent : {0, 1, 2, 7, 61, 83, 97, 1000}) {
    for (int parts = 1; parts <= 9; ++parts) {
      const BlockDistribution d(extent, parts);
      std::int64_t next = 0, smallest = extent, largest = 0;
      for (int p = 0; p < parts; ++p) {
        EXPECT_EQ(d.offset(p), next) << extent << " over " << parts;
        for (std::int64_t i = d.offset(p); i < d.offset(p) + d.size(p); ++i) EXPECT_EQ(d.owner(i), p);
        next += d.size(p);
        smallest = std::min(smallest, d.size(p));
        largest = std::max(largest, d.size(p));
      }
      EXPECT_EQ(next, extent);
      EXPECT_LE(largest - smallest, 1) << extent << " over " << parts;
    }
  }
}

TEST(BlockDistribution, FirstPartsTakeTheRemainder) {
  const BlockDistribution d(97, 3);  // 33, 32, 32
  EXPECT_EQ(d.size(0), 33);
  EXPECT_EQ(d.size(1), 32);
  EXPECT_EQ(d.offset(2), 65);
}

TEST(PanelSchedule, CoversKAndSplitsAtEveryOwnerBoundary) {
  for (std::int64_t k : {1, 2, 7, 83, 200}) {
    for (int rows = 1; rows <= 4; ++rows) {
      for (int cols = 1; cols <= 4; ++cols) {
        for (int panel : {1, 7, 64, 1000}) {
          const auto schedule = summa::panel_schedule(k, rows, cols, panel);
          const BlockDistribution a(k, cols), b(k, rows);
          std::int64_t next = 0;
          for (const summa::Panel& p : schedule) {
            ASSERT_EQ(p.k_begin, next);
            ASSERT_GE(p.width, 1);
            ASSERT_LE(p.width, panel);
            // One owner in each direction for the whole panel, and the offsets inside its block.
            EXPECT_EQ(a.owner(p.k_begin), p.a_owner_col);
            EXPECT_EQ(a.owner(p.k_begin + p.width - 1), p.a_owner_col);
            EXPECT_EQ(b.owner(p.k_begin), p.b_owner_row);
            EXPECT_EQ(b.owner(p.k_begin + p.width - 1), p.b_owner_row);
            EXPECT_EQ(p.a_offset, p.k_begin - a.offset(p.a_owner_col));
            EXPECT_EQ(p.b_offset, p.k_begin - b.offset(p.b_owner_row));
            next += p.width;
          }
          EXPECT_EQ(next, k);
        }
      }
    }
  }
}

TEST(PanelSchedule, WidePanelIsCutOnlyByBlockBoundaries) {
  // k = 83 over 2 grid columns (42 + 41) and 3 grid rows (28 + 28 + 27): boundaries 28, 42, 56.
  const auto schedule = summa::panel_schedule(83, 3, 2, 1000);
  std::vector<std::int64_t> begins;
  for (const auto& p : schedule) begins.push_back(p.k_begin);
  EXPECT_EQ(begins, (std::vector<std::int64_t>{0, 28, 42, 56}));
  EXPECT_EQ(summa::widest_panel(schedule), 28);
}

TEST(PanelSchedule, NarrowPanelsRestartAtABoundary) {
  // k = 20 over 2 columns (10 + 10), panel 7: 0-7, 7-10, 10-17, 17-20.
  const auto schedule = summa::panel_schedule(20, 1, 2, 7);
  ASSERT_EQ(schedule.size(), 4u);
  EXPECT_EQ(schedule[1].width, 3);
  EXPECT_EQ(schedule[2].k_begin, 10);
  EXPECT_EQ(schedule[2].a_owner_col, 1);
  EXPECT_EQ(schedule[2].a_offset, 0);
}

TEST(Generator, BlocksFollowTheFormulaInTheirLayouts) {
  std::vector<double> a(5 * 3), b(4 * 6);
  summa::fill_a(10, 4, 20, 3, a.data(), 5);  // column-major, ld 5
  summa::fill_b(30, 4, 40, 5, b.data(), 6);  // row-major, ld 6
  for (int j = 0; j < 3; ++j)
    for (int i = 0; i < 4; ++i) EXPECT_EQ(a[j * 5 + i], summa::a_value(10 + i, 20 + j));
  for (int i = 0; i < 4; ++i)
    for (int j = 0; j < 5; ++j) EXPECT_EQ(b[i * 6 + j], summa::b_value(30 + i, 40 + j));
  for (int i = 0; i < 300; ++i)
    for (int j = 0; j < 300; ++j) {
      ASSERT_LE(std::abs(summa::a_value(i, j)), summa::kGeneratorMax);
      ASSERT_LE(std::abs(summa::b_value(i, j)), summa::kGeneratorMax);
    }
}

TEST(Tiles, CoverTheBlockOnceWithOneTilePerThread) {
  for (int threads = 1; threads <= 8; ++threads) {
    for (auto [m, n] : std::vector<std::pair<int, int>>{{1, 1}, {3, 100}, {100, 3}, {64, 64}, {97, 61}}) {
      const auto tiles = summa::split_into_tiles(m, n, threads);
      ASSERT_EQ(static_cast<int>(tiles.size()), threads);
      std::vector<int> covered(static_cast<std::size_t>(m) * n, 0);
      for (const auto& t : tiles)
        for (int i = t.row_begin; i < t.row_begin + t.rows; ++i)
          for (int j = t.col_begin; j < t.col_begin + t.cols; ++j) covered[static_cast<std::size_t>(j) * m + i]++;
      for (int c : covered) ASSERT_EQ(c, 1) << m << "x" << n << " with " << threads << " threads";
    }
  }
  const auto tall = summa::split_into_tiles(1000, 10, 4);  // tall blocks split by rows
  EXPECT_EQ(tall[0].cols, 10);
}

// C += A * B with the library's layouts, the slow obvious way.
std::vector<double> naive(int m, int n, int w, const std::vector<double>& a, const std::vector<double>& b,
                          std::vector<double> c) {
  for (int j = 0; j < n; ++j)
    for (int i = 0; i < m; ++i) {
      double sum = 0.0;
      for (int p = 0; p < w; ++p) sum += a[static_cast<std::size_t>(p) * m + i] * b[static_cast<std::size_t>(p) * n + j];
      c[static_cast<std::size_t>(j) * m + i] += sum;
    }
  return c;
}

double max_difference(const std::vector<double>& x, const std::vector<double>& y) {
  double worst = 0.0;
  for (std::size_t i = 0; i < x.size(); ++i) worst = std::max(worst, std::abs(x[i] - y[i]));
  return worst;
}

class LocalMultiply : public ::testing::TestWithParam<std::tuple<int, int, int>> {};

TEST_P(LocalMultiply, ThreadedTilesAndOneThreadedCallMatchTheNaiveProduct) {
  const auto [m, n, w] = GetParam();
  std::vector<double> a(static_cast<std::size_t>(m) * w), b(static_cast<std::size_t>(w) * n),
      c(static_cast<std::size_t>(m) * n);
  summa::fill_a(0, m, 0, w, a.data(), m);
  summa::fill_b(0, w, 0, n, b.data(), n);
  for (std::size_t i = 0; i < c.size(); ++i) c[i] = 0.25 * static_cast<double>(i % 7);  // accumulates into C
  const std::vector<double> expected = naive(m, n, w, a, b, c);
  const double tolerance = 1e-13 * w;

  for (int threads : {1, 2, 3, 4}) {
    summa::ScopedBlasThreads one(1);
    std::vector<double> tiles = c;
    summa::multiply_add_threaded(threads, m, n, w, a.data(), m, b.data(), n, tiles.data(), m);
    EXPECT_LE(max_difference(tiles, expected), tolerance) << threads << " threads x single-threaded dgemm";

    summa::ScopedBlasThreads many(threads);  // one dgemm call with OpenBLAS's own threads
    std::vector<double> one_call = c;
    summa::multiply_add(m, n, w, a.data(), m, b.data(), n, one_call.data(), m);
    EXPECT_LE(max_difference(one_call, expected), tolerance) << "one " << threads << "-threaded dgemm";
  }
}

INSTANTIATE_TEST_SUITE_P(Shapes, LocalMultiply,
                         ::testing::Values(std::make_tuple(1, 1, 1), std::make_tuple(97, 61, 7),
                                           std::make_tuple(61, 97, 64), std::make_tuple(128, 128, 128),
                                           std::make_tuple(3, 200, 5), std::make_tuple(300, 2, 33)));

TEST(BlasThreads, ScopeRestoresTheCount) {
  summa::set_blas_threads(1);
  {
    summa::ScopedBlasThreads scoped(2);
    // OpenBLAS caps the count at the cores it found when it started.
    EXPECT_EQ(summa::blas_threads(), std::min(2, static_cast<int>(std::thread::hardware_concurrency())));
  }
  EXPECT_EQ(summa::blas_threads(), 1);
  // The counts above need a control: the BLAS this build found is the threaded OpenBLAS by default.
  EXPECT_STRNE(summa::blas_thread_control(), "none");
}

// Thesis IV.D.1: for an 8x8 grid of 8-way nodes, 1x8 ranks per node cost 7_off + 7_on per rank (eq. IV.1),
// 2x4 or 4x2 cost 10_off + 4_on (IV.2), and 2x4 on a 4x16 grid 14_off + 4_on (IV.3).
TEST(RankMap, ReproducesTheThesisBroadcastCounts) {
  const auto one_by_eight = summa::RankMap::tiled(8, 8, 1, 8).broadcast_counts(0);
  EXPECT_EQ(one_by_eight.off_node(), 7);
  EXPECT_EQ(one_by_eight.on_node(), 7);
  for (auto [nr, nc] : {std::pair{2, 4}, std::pair{4, 2}}) {
    const auto counts = summa::RankMap::tiled(8, 8, nr, nc).broadcast_counts(9);
    EXPECT_EQ(counts.off_node(), 10) << nr << "x" << nc;
    EXPECT_EQ(counts.on_node(), 4) << nr << "x" << nc;
  }
  const auto wide = summa::RankMap::tiled(4, 16, 2, 4).broadcast_counts(5);
  EXPECT_EQ(wide.row_off_node, 12);
  EXPECT_EQ(wide.row_on_node, 3);
  EXPECT_EQ(wide.off_node(), 14);
  EXPECT_EQ(wide.on_node(), 4);
  EXPECT_EQ(wide.describe(), "row 3 on + 12 off, column 1 on + 2 off: 14_off + 4_on");
}

TEST(RankMap, TilesPlaceEachNodesRanksTogether) {
  const auto map = summa::RankMap::tiled(4, 4, 2, 2);
  EXPECT_EQ(map.position(0).row, 0);
  EXPECT_EQ(map.position(3).row, 1);
  EXPECT_EQ(map.position(3).col, 1);
  EXPECT_EQ(map.position(4).col, 2);  // node 1 is the next tile to the right
  EXPECT_EQ(map.position(8).row, 2);
  for (int rank = 0; rank < 16; ++rank) EXPECT_EQ(map.rank_at(map.position(rank).row, map.position(rank).col), rank);
  const auto row_major = summa::RankMap::row_major(2, 3, {0, 0, 0, 1, 1, 1});
  EXPECT_EQ(row_major.position(4).row, 1);
  EXPECT_EQ(row_major.position(4).col, 1);
  EXPECT_EQ(row_major.broadcast_counts(0).describe(), "row 2 on + 0 off, column 0 on + 1 off: 1_off + 2_on");
}

std::string validation_error(const summa::Problem& problem, int ranks) {
  try {
    summa::validate(problem, ranks);
  } catch (const summa::InvalidProblem& error) {
    return error.what();
  }
  return "valid";
}

TEST(Problem, ValidationNamesTheBadValue) {
  summa::Problem p;
  p.grid_rows = 2;
  p.grid_cols = 2;
  EXPECT_EQ(validation_error(p, 4), "valid");
  EXPECT_EQ(validation_error(p, 3), "--grid 2x2 needs 4 ranks, but 3 are running");
  auto bad = p;
  bad.m = 0;
  EXPECT_EQ(validation_error(bad, 4), "--m must be at least 1, got '0'");
  bad = p;
  bad.panel = -3;
  EXPECT_EQ(validation_error(bad, 4), "--panel must be at least 1, got '-3'");
  bad = p;
  bad.threads = 2;
  EXPECT_EQ(validation_error(bad, 4), "--threads 2 needs --mode mt or proxy (sync runs one thread per rank)");
  bad = p;
  bad.node_rows = 2, bad.node_cols = 3;
  EXPECT_EQ(validation_error(bad, 4), "--node-layout 2x3 does not tile --grid 2x2 (its extents must divide the grid's)");
  bad.node_cols = 1, bad.mode = summa::Mode::proxy;
  EXPECT_EQ(validation_error(bad, 4), "--node-layout 2x1 needs --mode sync or async (proxy runs one rank per node)");
  EXPECT_EQ(summa::parse_mode("mt"), summa::Mode::mt);
  EXPECT_THROW(summa::parse_mode("Sync"), summa::InvalidProblem);
}

// A size too big names the option the user gave: --size for every dimension it set (it said --m for `--size 4G`).
TEST(Problem, SizeMessagesNameTheOptionGiven) {
  summa::Problem square;
  square.m = square.n = square.k = 4294967296;
  square.m_option = square.n_option = square.k_option = "--size";
  EXPECT_EQ(validation_error(square, 1), "--size 4294967296 exceeds 2147483647 (2^31-1)");
  EXPECT_EQ(square.sizes(), "--size 4294967296");
  summa::Problem mixed = square;
  mixed.m = mixed.n = 1000;
  mixed.k = 5000000000;
  mixed.k_option = "--k";
  EXPECT_EQ(validation_error(mixed, 1), "--k 5000000000 exceeds 2147483647 (2^31-1)");
  EXPECT_EQ(mixed.sizes(), "--size 1000 --k 5000000000");
  summa::Problem wide = square;
  wide.m = wide.n = wide.k = 50000;
  wide.panel = 50000;
  EXPECT_EQ(validation_error(wide, 1), "--size 50000 --panel 50000: a block or panel exceeds 2^31-1 elements");
  wide.n_option = "--n";
  EXPECT_EQ(validation_error(wide, 1),
            "--size 50000 --n 50000 --panel 50000: a block or panel exceeds 2^31-1 elements");
  summa::Problem given;  // each dimension its own option, even when they are equal
  given.m = given.n = given.k = 8;
  EXPECT_EQ(given.sizes(), "--m 8 --n 8 --k 8");
}

}  // namespace
