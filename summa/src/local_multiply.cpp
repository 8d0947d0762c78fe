#include "summa/local_multiply.hpp"

#include <cblas.h>
#include <omp.h>

#include <algorithm>
#include <cassert>

#include "summa/distribution.hpp"

namespace summa {

std::vector<Tile> split_into_tiles(int m, int n, int threads) {
  assert(threads >= 1);
  // Closest to square tiles: fewest bytes of A and B read per flop by each thread.
  int best_rows = 1;
  double best_score = -1.0;
  for (int tile_rows = 1; tile_rows <= threads; ++tile_rows) {
    if (threads % tile_rows != 0) continue;
    const int tile_cols = threads / tile_rows;
    const double height = std::max(1.0, static_cast<double>(m) / tile_rows);
    const double width = std::max(1.0, static_cast<double>(n) / tile_cols);
    const double score = std::min(height, width) / std::max(height, width);
    if (score > best_score) best_score = score, best_rows = tile_rows;
  }
  const BlockDistribution rows(m, best_rows);
  const BlockDistribution cols(n, threads / best_rows);
  std::vector<Tile> tiles;
  tiles.reserve(threads);
  for (int r = 0; r < rows.parts(); ++r)
    for (int c = 0; c < cols.parts(); ++c)
      tiles.push_back(Tile{static_cast<int>(rows.offset(r)), static_cast<int>(rows.size(r)),
                           static_cast<int>(cols.offset(c)), static_cast<int>(cols.size(c))});
  return tiles;
}

void multiply_add(int m, int n, int w, const double* a, int lda, const double* b, int ldb, double* c,
                  int ldc) noexcept {
  if (m == 0 || n == 0 || w == 0) return;  // BLAS would reject the leading dimensions of empty blocks
  // B is row-major w x n, i.e. column-major n x w: op(B) = transpose.
  cblas_dgemm(CblasColMajor, CblasNoTrans, CblasTrans, m, n, w, 1.0, a, lda, b, ldb, 1.0, c, ldc);
}

void multiply_add_threaded(int threads, int m, int n, int w, const double* a, int lda, const double* b,
                           int ldb, double* c, int ldc) noexcept {
  if (threads <= 1) return multiply_add(m, n, w, a, lda, b, ldb, c, ldc);
  const std::vector<Tile> tiles = split_into_tiles(m, n, threads);
#pragma omp parallel num_threads(threads)
  {
    const int t = omp_get_thread_num();
    if (t < static_cast<int>(tiles.size())) {
      const Tile& tile = tiles[t];
      multiply_add(tile.rows, tile.cols, w, a + tile.row_begin, lda, b + tile.col_begin, ldb,
                   c + static_cast<long>(tile.col_begin) * ldc + tile.row_begin, ldc);
    }
  }
}

}  // namespace summa
