// What a run reports about its solution: the residual of the discrete equations and the error against the
// manufactured solution (local parts, to be reduced across ranks), and the bitwise comparison of a block
// with the serial solver's grid.
#pragma once

#include "redblack3d/grid.hpp"
#include "redblack3d/problem.hpp"

namespace redblack3d {

struct LocalNorms {
  double residual_squares = 0.0;  // sum over the block of (f - A u)^2 * cell volume; needs fresh ghosts
  double error_max = 0.0;         // max |u - u_exact| over the block
};
LocalNorms local_norms(const Grid& u, const Grid& f, const Stencil& s, const Extent& global, const Extent& offset);

struct Comparison {
  double max_difference = 0.0;  // max |u - serial|
  long long mismatches = 0;     // points whose bits differ (catches -0.0 vs 0.0 and NaNs too)
};
// Compares the block's interior with the same points of the serial solver's whole grid.
Comparison compare_with_serial(const Grid& u, const Grid& serial, const Extent& offset);

}  // namespace redblack3d
