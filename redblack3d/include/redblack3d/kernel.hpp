// The relaxation kernel: one half-sweep (one colour) of red-black Gauss-Seidel over a box of a block.
// A point's colour is (gx + gy + gz) % 2 of its GLOBAL indices (red = 0), so blocks of any geometry
// agree on it. Each colour's update reads only the other colour, which is why every mode, geometry and
// thread count gives bitwise the serial result (thesis II.A).
//
// relax_ref is the plain reference (HPCG style: the tests compare against it); relax has the same
// signature and streams each row through a small buffer so the compiler vectorises it. relax is an
// orphaned `omp for` over the box's (z, y) rows: called inside a parallel region the team splits the rows
// (z first, then y; x stays whole, thesis IV.C.1) and does NOT wait at the end (nowait); called outside,
// the calling thread does all rows.
#pragma once

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

void relax_ref(Grid& u, const Grid& f, const Stencil& s, Colour colour, const Extent& offset, const Box& box);
// between_planes, when set, is called by each thread as its rows enter a new plane (proxy mode's progress
// point: it moves the exchange in flight along while the sweep runs).
void relax(Grid& u, const Grid& f, const Stencil& s, Colour colour, const Extent& offset, const Box& box,
           const std::function<void()>& between_planes = {});

}  // namespace redblack3d
