// The relaxation kernel: one half-sweep (one colour) of red-black Gauss-Seidel over a box of a block.
// A point's colour is (gx + gy + gz) % 2 of its GLOBAL indices (red = 0), so blocks of any geometry
// agree on it. Each colour's update reads only the other colour, which is why every mode, geometry and
// thread count gives bitwise the serial result (thesis II.A).
//
// relax_ref is the plain reference (HPCG style: the tests compare against it); relax has the same
// signature and streams each row through a small buffer so the compiler vectorises it. relax visits the
// box's (z, y) rows through for_each_row: orphaned `omp for` loops that, called inside a parallel region,
// split the rows over the team (z first, then y; x stays whole, thesis IV.C.1) and do NOT wait at the end
// (nowait); called outside, the calling thread does all rows.
#pragma once

#include <algorithm>
#include <cstddef>
#include <functional>
#include <vector>

#include "redblack3d/grid.hpp"
#include "redblack3d/problem.hpp"

namespace redblack3d {

enum class Colour { red = 0, black = 1 };

// Half-open box of local interior indices: lo[d] <= index < hi[d], with 1 <= lo and hi <= n + 1.
struct Box {
  Extent lo{1, 1, 1};
  Extent hi{1, 1, 1};
  bool empty() const noexcept { return lo[0] >= hi[0] || lo[1] >= hi[1] || lo[2] >= hi[2]; }
  long long points() const noexcept {
    return empty() ? 0 : 1LL * (hi[0] - lo[0]) * (hi[1] - lo[1]) * (hi[2] - lo[2]);
  }
};

// The whole interior of a block.
Box interior_box(const Extent& local) noexcept;

// The overlap split (thesis II.A): the inner box needs no ghost values; it is the interior shrunk by one
// plane on each side that has a neighbour. The annulus is the rest, as up to six disjoint boxes.
struct OverlapSplit {
  Box inner;
  std::vector<Box> annulus;
};
OverlapSplit split_inner_annulus(const Extent& local, const std::array<bool, 6>& has_neighbour);

// Early-bird (proxy mode): for each annulus box, in order, the faces (0..5, with a neighbour) whose plane
// no later box touches. Relaxing the boxes in order, a thread is done with face F's plane (its sends' data
// and the only reader of F's ghosts) once it has relaxed box b with F in entry b; every such face is in
// exactly one entry.
std::vector<std::vector<int>> faces_finished_after(const OverlapSplit& split, const Extent& local,
                                                   const std::array<bool, 6>& has_neighbour);

// Cache blocking for z sweeps of a 7-point stencil. A thread sweeping its planes upward reads each plane
// of u three times (as k+1, k, k-1); that reuse comes from the core's L2 only while three planes and the
// right-hand side's plane fit in it. Whole planes of a large block do not (320 x 320 doubles are 0.8 MB),
// so the sweep goes in bands of y rows: cache_block_rows is how many rows of `row_bytes` keep four such
// band planes in half of one core's L2 (sysconf's level-2 size, 1 MiB when the system does not say).
// At least 1.
int cache_block_rows(std::ptrdiff_t row_bytes) noexcept;

// Calls row(j, k) for every (z, y) row of the box: band by band (at most block_rows y rows each, as even as
// the rows allow: 13 rows in bands of 5 are 4, 4 and 5), each band an orphaned `omp for schedule(static)
// nowait` over its (z, y) rows, so every thread takes the same z range of each band. between_planes, when
// set, is called by each thread as its rows enter a new plane of a band.
template <class Row>
void for_each_row(const Box& box, int block_rows, const std::function<void()>& between_planes, Row&& row) {
  if (box.empty()) return;
  const int rows_y = box.hi[1] - box.lo[1];
  const int planes = box.hi[2] - box.lo[2];
  const int bands = (rows_y + std::max(block_rows, 1) - 1) / std::max(block_rows, 1);
  for (int band = 0; band < bands; ++band) {
    const int lo = box.lo[1] + static_cast<int>(1LL * band * rows_y / bands);
    const int height = box.lo[1] + static_cast<int>(1LL * (band + 1) * rows_y / bands) - lo;
    const long long rows = 1LL * height * planes;
#pragma omp for schedule(static) nowait
    for (long long index = 0; index < rows; ++index) {
      const int k = box.lo[2] + static_cast<int>(index / height);
      const int j = lo + static_cast<int>(index % height);
      if (j == lo && between_planes) between_planes();
      row(j, k);
    }
  }
}

void relax_ref(Grid& u, const Grid& f, const Stencil& s, Colour colour, const Extent& offset, const Box& box);
// between_planes, when set, is called by each thread as its rows enter a new plane of a band (proxy mode's
// progress point: it moves the exchange in flight along while the sweep runs). block_rows: the band height,
// 0 for cache_block_rows of u's rows (the tests pass others; every band height gives the same values).
void relax(Grid& u, const Grid& f, const Stencil& s, Colour colour, const Extent& offset, const Box& box,
           const std::function<void()>& between_planes = {}, int block_rows = 0);

}  // namespace redblack3d
