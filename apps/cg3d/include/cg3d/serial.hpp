// The serial reference: CG on the whole grid, one thread, plain loops in index order (no row partials, no
// blocks), the same variant, start vector and stopping test as the parallel solver. --verify compares
// the parallel run's residual history and solution with it (solver.hpp says with which tolerances).
#pragma once

#include <vector>

#include "cg3d/problem.hpp"
#include "redblack3d/grid.hpp"

namespace cg3d {

struct SerialResult {
  redblack3d::Grid x;            // the last iterate, whole grid, zero ghosts
  std::vector<double> history;   // ||r_k|| / ||b|| for k = 0 .. iterations (the recurrences' r)
  int iterations = 0;            // updates of x done
  bool converged = false;        // history.back() <= tol
  double true_residual = 0.0;    // ||b - A x|| / ||b||, recomputed from x
};

// Stops when ||r_k|| / ||b|| <= tol or after max_iterations updates.
SerialResult solve_serial(const redblack3d::Extent& global, Variant variant, double tol, int max_iterations);

}  // namespace cg3d
