#include "redblack3d/decomposition.hpp"

#include <algorithm>
#include <cassert>

namespace redblack3d {

Range block_range(int n, int parts, int index) noexcept {
  const int base = n / parts;
  const int extra = n % parts;
  return Range{index * base + std::min(index, extra), base + (index < extra ? 1 : 0)};
}

int Decomposition::rank_of(const Extent& block) const noexcept {
  return block[0] + geometry[0] * (block[1] + geometry[1] * block[2]);
}

std::string Decomposition::describe() const {
  auto triple = [](const Extent& e, const char* sep) {
    return std::to_string(e[0]) + sep + std::to_string(e[1]) + sep + std::to_string(e[2]);
  };
  return "block " + triple(coords, "x") + " of " + triple(geometry, "x") + ": " + triple(local, "x") +
         " points at (" + triple(offset, ",") + ")";
}

Decomposition decompose(const Extent& global, const Extent& geometry, int rank) {
  Decomposition d;
  d.global = global;
  d.geometry = geometry;
  d.coords = {rank % geometry[0], (rank / geometry[0]) % geometry[1], rank / (geometry[0] * geometry[1])};
  assert(d.coords[2] < geometry[2] && "rank outside the geometry");
  for (int dim = 0; dim < 3; ++dim) {
    const Range range = block_range(global[dim], geometry[dim], d.coords[dim]);
    d.offset[dim] = range.offset;
    d.local[dim] = range.size;
    Extent below = d.coords, above = d.coords;
    --below[dim];
    ++above[dim];
    d.neighbour[2 * dim] = d.coords[dim] > 0 ? d.rank_of(below) : -1;
    d.neighbour[2 * dim + 1] = d.coords[dim] + 1 < geometry[dim] ? d.rank_of(above) : -1;
  }
  return d;
}

Extent default_geometry(int ranks) {
  // Factor into primes, largest first, and hand each to the dimension with the fewest ranks, z before y
  // before x on ties: z and y take the cuts, x stays whole as long as possible.
  Extent g{1, 1, 1};
  int rest = ranks;
  std::array<int, 32> primes{};
  int count = 0;
  for (int p = 2; rest > 1 && p * p <= rest; ++p) {
    while (rest % p == 0) {
      primes[count++] = p;
      rest /= p;
    }
  }
  if (rest > 1) primes[count++] = rest;
  std::sort(primes.begin(), primes.begin() + count, std::greater<>());
  for (int i = 0; i < count; ++i) {
    int target = 2;
    for (int dim : {1, 0}) {
      if (g[dim] < g[target]) target = dim;
    }
    g[target] *= primes[i];
  }
  return g;
}

std::string to_string(const Extent& extent) {
  return std::to_string(extent[0]) + "x" + std::to_string(extent[1]) + "x" + std::to_string(extent[2]);
}

}  // namespace redblack3d
