// The serial solver: the whole grid, one thread, relax_ref. It is the reference every mode, geometry and
// thread count must match bit for bit (red-black updates are order-independent within a colour).
#pragma once

#include "redblack3d/grid.hpp"

namespace redblack3d {

// `iterations` sweeps (red half-sweep, then black) from u = 0. Returns u with zero ghosts.
Grid solve_serial(const Extent& global, double omega, int iterations);

}  // namespace redblack3d
