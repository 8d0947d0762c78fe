// Grid: one block of the 3-D field with a ghost layer of width 1 on every side. Interior points have
// local indices 1..n along each dimension, ghosts 0 and n+1; x has unit stride, then y, then z.
// Plain storage: the threads of a rank share it, each writing only the rows it owns.
#pragma once

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
        values_(static_cast<std::size_t>(stride_z_) * (interior[2] + 2), 0.0) {}

  const Extent& interior() const noexcept { return interior_; }
  std::ptrdiff_t stride_y() const noexcept { return stride_y_; }
  std::ptrdiff_t stride_z() const noexcept { return stride_z_; }
  // Padded extent (interior + 2 ghosts) along each dimension, for MPI subarray types.
  Extent padded() const noexcept { return {interior_[0] + 2, interior_[1] + 2, interior_[2] + 2}; }

  std::ptrdiff_t index(int i, int j, int k) const noexcept { return i + j * stride_y_ + k * stride_z_; }
  double& at(int i, int j, int k) noexcept { return values_[static_cast<std::size_t>(index(i, j, k))]; }
  double at(int i, int j, int k) const noexcept { return values_[static_cast<std::size_t>(index(i, j, k))]; }
  double* data() noexcept { return values_.data(); }
  const double* data() const noexcept { return values_.data(); }
  std::size_t size() const noexcept { return values_.size(); }

 private:
  Extent interior_{0, 0, 0};
  std::ptrdiff_t stride_y_ = 0;
  std::ptrdiff_t stride_z_ = 0;
  std::vector<double> values_;
};

}  // namespace redblack3d
