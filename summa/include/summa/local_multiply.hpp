// The local step of SUMMA: C += A_panel * B_panel on one rank's block.
//   C: m x n, column-major, leading dimension ldc
//   A: m x w, column-major, leading dimension lda (a panel of A's columns)
//   B: w x n, row-major,    leading dimension ldb (a panel of B's rows)
// multiply_add makes one dgemm call (single-tier modes: one rank per core). multiply_add_threaded splits C
// into one tile per thread and each thread makes one single-threaded dgemm on its tile (multi-tier modes:
// the node's threads own the partitioning, OpenBLAS runs with one thread; thesis IV.D.2).
// Thread safety: multiply_add from any thread on disjoint C; multiply_add_threaded from outside a parallel
// region (it opens one of `threads` threads).
#pragma once

#include <vector>

namespace summa {

struct Tile {
  int row_begin = 0;
  int rows = 0;
  int col_begin = 0;
  int cols = 0;
};

// Splits an m x n block into `threads` tiles (tile_rows x tile_cols with tile_rows * tile_cols == threads),
// choosing the factorisation whose tiles are closest to square; tiles may be empty when m or n is small.
std::vector<Tile> split_into_tiles(int m, int n, int threads);

void multiply_add(int m, int n, int w, const double* a, int lda, const double* b, int ldb, double* c,
                  int ldc) noexcept;

void multiply_add_threaded(int threads, int m, int n, int w, const double* a, int lda, const double* b,
                           int ldb, double* c, int ldc) noexcept;

}  // namespace summa
