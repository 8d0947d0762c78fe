// Decomposition: how the global Nx x Ny x Nz grid is cut into Px x Py x Pz blocks, one per rank.
// Blocks along a dimension differ by at most one plane (the first n % P blocks get one more).
// Rank r sits at coordinates (r % Px, (r / Px) % Py, r / (Px * Py)): x varies fastest. Pure arithmetic.
#pragma once

#include <array>
#include <string>

namespace redblack3d {

using Extent = std::array<int, 3>;  // x, y, z

// Offset and size of block `index` of `parts` along a dimension of `n` points (blocks differ by <= 1).
struct Range {
  int offset = 0;
  int size = 0;
};
Range block_range(int n, int parts, int index) noexcept;

struct Decomposition {
  Extent global{};     // interior points of the whole grid
  Extent geometry{};   // ranks along each dimension
  Extent coords{};     // this rank's block coordinates
  Extent offset{};     // global index of this block's first interior point
  Extent local{};      // interior points of this block
  // Neighbour ranks: neighbour[2*d] below along d, neighbour[2*d+1] above; -1 where the domain ends.
  std::array<int, 6> neighbour{-1, -1, -1, -1, -1, -1};

  int rank_of(const Extent& block) const noexcept;
  std::string describe() const;  // "block 1x0x0 of 2x1x1: 32x64x64 points at (32,0,0)"
};

// Requires geometry[d] <= global[d] (checked by the driver); rank in [0, Px*Py*Pz).
Decomposition decompose(const Extent& global, const Extent& geometry, int rank);

// "32x64x64": a grid's or a geometry's extent as the drivers print it.
std::string to_string(const Extent& extent);

// A geometry for `ranks` that splits z, then y, then x (the thesis keeps the unit-stride x long, IV.C.1).
Extent default_geometry(int ranks);

}  // namespace redblack3d
