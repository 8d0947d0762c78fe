// Grid: one block of the 3-D field with a ghost layer of width 1 on every side. Interior points have
// local indices 1..n along each dimension, ghosts 0 and n+1; x has unit stride, then y, then z.
// Plain storage: the threads of a rank share it, each writing only the rows it owns.
//
// Each grid starts at its own offset within a 4 KiB page (grids made one after the other take 0, 512,
// ..., 3584 bytes in turn): vectors that are swept together would otherwise all start at the same
// address modulo 4 KiB (each is its own page-aligned allocation), and a load that follows a store to
// another vector at the same address bits 0-11 waits for it (4K aliasing) while they also compete for the
// same cache sets. Pipelined CG updates six vectors from seven in one loop: at 64^3 on one core it ran
// 0.34-0.44 s with every vector aligned alike, 0.21 s staggered (classic CG, three vectors: 0.19 s either
// way; bench/RESULTS.md). The offset changes where the values lie, never their order or any result.
#pragma once

#include <atomic>
#include <cstddef>
#include <vector>

#include "redblack3d/decomposition.hpp"

namespace redblack3d {

class Grid {
 public:
  Grid() = default;
  explicit Grid(const Extent& interior)
      : interior_(interior),
        stride_y_(static_cast<std::ptrdiff_t>(interior[0]) + 2),
        stride_z_(stride_y_ * (interior[1] + 2)),
        size_(static_cast<std::size_t>(stride_z_) * (interior[2] + 2)),
        offset_(next_offset()),
        values_(size_ + offset_, 0.0) {}

  const Extent& interior() const noexcept { return interior_; }
  std::ptrdiff_t stride_y() const noexcept { return stride_y_; }
  std::ptrdiff_t stride_z() const noexcept { return stride_z_; }
  // Padded extent (interior + 2 ghosts) along each dimension, for MPI subarray types.
  Extent padded() const noexcept { return {interior_[0] + 2, interior_[1] + 2, interior_[2] + 2}; }

  std::ptrdiff_t index(int i, int j, int k) const noexcept { return i + j * stride_y_ + k * stride_z_; }
  double& at(int i, int j, int k) noexcept { return data()[index(i, j, k)]; }
  double at(int i, int j, int k) const noexcept { return data()[index(i, j, k)]; }
  double* data() noexcept { return values_.data() + offset_; }
  const double* data() const noexcept { return values_.data() + offset_; }
  std::size_t size() const noexcept { return size_; }

 private:
  // The next grid's offset in doubles: 0, 64, ..., 448 (0-3584 bytes), then again.
  static std::size_t next_offset() noexcept {
    static std::atomic<unsigned> made{0};
    return (made.fetch_add(1, std::memory_order_relaxed) % 8) * 64;
  }

  Extent interior_{0, 0, 0};
  std::ptrdiff_t stride_y_ = 0;
  std::ptrdiff_t stride_z_ = 0;
  std::size_t size_ = 0;    // stride_z_ * (n_z + 2) values from data()
  std::size_t offset_ = 0;  // data() - values_.data()
  std::vector<double> values_;
};

}  // namespace redblack3d
