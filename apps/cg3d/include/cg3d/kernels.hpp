// CG's kernels on one block (a redblack3d::Grid with its ghost layer): the 7-point operator A (-Laplace,
// the same expression as redblack3d's residual) over a box, and the vector updates of both variants, each
// fused with the dot products that the next reduction needs.
//
// Determinism: a dot product is never summed in an order that depends on the threads. The block's interior
// rows (j, k), taken in (k, j) order, form at most kMaxParts parts of consecutive rows, a split fixed by the
// block's shape alone (RowParts). Each kernel sums every row over x in index order, adds a part's rows in
// order into that part's partial (one thread owns each part), and PartialSums::total() adds the parts in
// order. A block's sum is thus the same bits whatever the thread count, schedule or mode, and a run is
// independent of timing. Parts of rows rather than single rows: the sum before the all-reduce then reads at
// most kMaxParts partials, not ny * nz that every core wrote (on 16 threads at 128^3, adding 16384 row
// partials held the master 55-97 us per reduction, 5-10 % of an iteration; bench/RESULTS.md).
//
// Threads: every kernel is an orphaned `omp for schedule(static) nowait`, the vector kernels over the
// parts, the operator over redblack3d's cache bands of rows: called inside a parallel region the team
// splits the work (and does not wait at the end), called outside one the calling thread does it all.
// Callers put a barrier between a kernel and one that reads what it wrote.
#pragma once

#include <array>
#include <cstddef>
#include <functional>
#include <vector>

#include "redblack3d/grid.hpp"
#include "redblack3d/kernel.hpp"
#include "redblack3d/problem.hpp"

namespace cg3d {

using redblack3d::Box;
using redblack3d::Extent;
using redblack3d::Grid;
using redblack3d::Stencil;

// (A v) at the point v points to (sy, sz: the grid's strides). Keep the order of the terms: it is the
// order of redblack3d::local_norms, which computes the final residual.
inline double apply_at(const double* v, std::ptrdiff_t sy, std::ptrdiff_t sz, const Stencil& s) noexcept {
  return s.diag * v[0] - s.ihx2 * (v[-1] + v[1]) - s.ihy2 * (v[-sy] + v[sy]) - s.ihz2 * (v[-sz] + v[sz]);
}

// How a block's interior rows split into parts: rows_per_part consecutive rows in (k, j) order each, the
// last one shorter; at most kMaxParts parts, enough for a team of any size to share the vector kernels.
struct RowParts {
  static constexpr int kMaxParts = 256;
  explicit RowParts(const Extent& local) noexcept;
  int rows = 0;           // ny * nz
  int rows_per_part = 1;
  int parts = 0;
};

// Per-part partial sums of up to two dot products over a block's interior; see the top of this file.
class PartialSums {
 public:
  PartialSums() = default;
  explicit PartialSums(const Extent& local) : sums_(static_cast<std::size_t>(RowParts(local).parts)) {}

  std::array<double, 2>& at(int part) noexcept { return sums_[static_cast<std::size_t>(part)]; }
  // Both sums over the block, parts added in order, left to right from the first part.
  std::array<double, 2> total() const noexcept;
  // Each part's two sums, in part order: the contributions of a hierarchical plan element, which the proxy
  // adds in the same order as total() (proxy/plan_collective.hpp), so every mode gets the same bits.
  std::vector<const void*> parts() const;

 private:
  std::vector<std::array<double, 2>> sums_;
};

// out = A v over `box` (v's ghosts must be current where the box touches them). between_planes, when
// set, is called by each thread as its rows enter a new plane (proxy mode's progress point).
void apply(const Grid& v, Grid& out, const Stencil& s, const Box& box, const std::function<void()>& between_planes = {});
// r = b - A x over `box`.
void residual(const Grid& b, const Grid& x, Grid& r, const Stencil& s, const Box& box,
              const std::function<void()>& between_planes = {});

// Whole interior. sums[0] = a.b per part, and sums[1] = c.d when c is given.
void dot(const Grid& a, const Grid& b, PartialSums& sums, const Grid* c = nullptr, const Grid* d = nullptr);
// Classic CG. p = r; sums[0] = r.r.
void start_direction(const Grid& r, Grid& p, PartialSums& sums);
// r -= alpha q; sums[0] = r.r.
void update_residual(Grid& r, const Grid& q, double alpha, PartialSums& sums);
// x += alpha p.
void update_solution(Grid& x, const Grid& p, double alpha);
// p = r + beta p.
void update_direction(Grid& p, const Grid& r, double beta);

// Pipelined CG (Ghysels & Vanroose 2014, Alg. 4 without preconditioner), every recurrence of one
// iteration in one pass: z = q + beta z, s = w + beta s, p = r + beta p, x += alpha p, r -= alpha s,
// w -= alpha z; then sums[0] = r.r (gamma) and sums[1] = w.r (delta) of the new r and w.
struct PipelinedVectors {
  Grid& x;
  Grid& r;
  Grid& w;
  Grid& p;
  Grid& s;
  Grid& z;
  const Grid& q;
};
void pipelined_update(const PipelinedVectors& v, double alpha, double beta, PartialSums& sums);

}  // namespace cg3d
