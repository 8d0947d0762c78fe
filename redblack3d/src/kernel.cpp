#include "redblack3d/kernel.hpp"

#include <algorithm>
#include <cstddef>

#include <unistd.h>

namespace redblack3d {

Box interior_box(const Extent& local) noexcept { return Box{{1, 1, 1}, {local[0] + 1, local[1] + 1, local[2] + 1}}; }

OverlapSplit split_inner_annulus(const Extent& local, const std::array<bool, 6>& has_neighbour) {
  const Box all = interior_box(local);
  OverlapSplit split;
  split.inner = all;
  for (int d = 0; d < 3; ++d) {
    if (has_neighbour[2 * d]) ++split.inner.lo[d];
    if (has_neighbour[2 * d + 1]) --split.inner.hi[d];
    split.inner.hi[d] = std::max(split.inner.hi[d], split.inner.lo[d]);
  }
  // Peel z slabs, then y slabs inside the inner z range, then x slabs inside the inner y and z ranges.
  Box rest = all;
  for (int d = 2; d >= 0; --d) {
    Box below = rest, above = rest;
    below.hi[d] = split.inner.lo[d];
    above.lo[d] = split.inner.hi[d];
    if (!below.empty()) split.annulus.push_back(below);
    if (!above.empty()) split.annulus.push_back(above);
    rest.lo[d] = split.inner.lo[d];
    rest.hi[d] = split.inner.hi[d];
  }
  return split;
}

std::vector<std::vector<int>> faces_finished_after(const OverlapSplit& split, const Extent& local,
                                                   const std::array<bool, 6>& has_neighbour) {
  std::vector<std::vector<int>> finished(split.annulus.size());
  for (int face = 0; face < 6; ++face) {
    if (!has_neighbour[face]) continue;
    const int d = face / 2;
    const int plane = face % 2 == 0 ? 1 : local[d];  // the interior plane next to the neighbour
    int last = -1;
    for (std::size_t b = 0; b < split.annulus.size(); ++b) {
      const Box& box = split.annulus[b];
      if (!box.empty() && box.lo[d] <= plane && plane < box.hi[d]) last = static_cast<int>(b);
    }
    if (last >= 0) finished[static_cast<std::size_t>(last)].push_back(face);
  }
  return finished;
}

namespace {

// The one expression every mode evaluates per point; keep it identical in both kernels.
inline double updated(double centre, double west, double east, double south, double north, double below,
                      double above, double rhs, const Stencil& s) noexcept {
  return s.keep * centre + s.omega * (s.cx * (west + east) + s.cy * (south + north) + s.cz * (below + above) +
                                      s.cf * rhs);
}

// Local index of the first point of colour `colour` at or after local x index `i` in row (j, k).
inline int first_of_colour(int i, int j, int k, Colour colour, const Extent& offset) noexcept {
  const int parity = (offset[0] + i + offset[1] + j + offset[2] + k + static_cast<int>(colour)) & 1;
  return i + parity;
}

}  // namespace

void relax_ref(Grid& u, const Grid& f, const Stencil& s, Colour colour, const Extent& offset, const Box& box) {
  for (int k = box.lo[2]; k < box.hi[2]; ++k) {
    for (int j = box.lo[1]; j < box.hi[1]; ++j) {
      for (int i = first_of_colour(box.lo[0], j, k, colour, offset); i < box.hi[0]; i += 2) {
        u.at(i, j, k) = updated(u.at(i, j, k), u.at(i - 1, j, k), u.at(i + 1, j, k), u.at(i, j - 1, k),
                                u.at(i, j + 1, k), u.at(i, j, k - 1), u.at(i, j, k + 1), f.at(i, j, k), s);
      }
    }
  }
}

int cache_block_rows(std::ptrdiff_t row_bytes) noexcept {
  static const long l2_bytes = [] {
    const long reported = sysconf(_SC_LEVEL2_CACHE_SIZE);
    return reported > 0 ? reported : 1L << 20;
  }();
  return static_cast<int>(std::max<std::ptrdiff_t>(1, l2_bytes / 2 / (4 * std::max<std::ptrdiff_t>(row_bytes, 1))));
}

void relax(Grid& u, const Grid& f, const Stencil& s, Colour colour, const Extent& offset, const Box& box,
           const std::function<void()>& between_planes, int block_rows) {
  if (box.empty()) return;
  // Rows stream through a chunk buffer: pass 1 computes the update for every x (unit stride, no
  // dependence on what pass 2 writes, so it vectorises), pass 2 stores only this colour's points. The
  // extra arithmetic is free in a memory-bound sweep; traffic stays one read of u and f, one write of u.
  constexpr int kChunk = 512;
  const std::ptrdiff_t sy = u.stride_y(), sz = u.stride_z();
  double* const base = u.data();
  const double* const rhs = f.data();
  if (block_rows <= 0) block_rows = cache_block_rows(sy * static_cast<std::ptrdiff_t>(sizeof(double)));
  for_each_row(box, block_rows, between_planes, [&](int j, int k) {
    alignas(64) double next[kChunk];
    for (int i0 = box.lo[0]; i0 < box.hi[0]; i0 += kChunk) {
      const int count = std::min(kChunk, box.hi[0] - i0);
      {
        const double* __restrict c = base + u.index(i0, j, k);
        const double* __restrict r = rhs + f.index(i0, j, k);
        for (int t = 0; t < count; ++t) {
          next[t] = updated(c[t], c[t - 1], c[t + 1], c[t - sy], c[t + sy], c[t - sz], c[t + sz], r[t], s);
        }
      }
      double* out = base + u.index(i0, j, k);
      for (int t = first_of_colour(i0, j, k, colour, offset) - i0; t < count; t += 2) out[t] = next[t];
    }
  });
}

}  // namespace redblack3d
