// The system CG solves and the two ways it solves it. The system is RedBlack3D's (redblack3d/problem.hpp):
// A x = b with A the 7-point -Laplace on Nx x Ny x Nz interior points of the unit cube (Dirichlet
// boundary, u = 0) and b = f for the manufactured solution u = sin(pi x) sin(pi y) sin(pi z).
// That b is an eigenvector of the discrete A (so is sin(pi i h) of the 1-D second difference), so CG from
// x0 = 0 would be done in one iteration; CG therefore starts from a pseudo-random x0 in [0, 1), a hash of
// each point's global index, which is the same for every decomposition and fills the whole spectrum.
// Pure functions, any thread.
#pragma once

#include <string_view>

#include "redblack3d/decomposition.hpp"
#include "redblack3d/grid.hpp"

namespace cg3d {

// classic:   Hestenes-Stiefel CG, two global reductions per iteration (p.Ap, then r.r).
// pipelined: Ghysels & Vanroose 2014 (Alg. 4, no preconditioner), one reduction per iteration of
//            (r.r, w.r), w = A r, which can overlap the matrix-vector product q = A w.
enum class Variant { classic, pipelined };
std::string_view to_string(Variant variant) noexcept;
// "classic" or "pipelined"; otherwise throws proxy::harness::InvalidSettings
// "--variant: unknown value 'TEXT' (expected classic or pipelined)".
Variant parse_variant(std::string_view text);

// Pipelined CG's step lengths at iteration i (0-based) from gamma_i = r_i.r_i and delta_i = w_i.r_i, the
// previous gamma and alpha (Alg. 4 lines 10-13): beta = gamma_i / gamma_{i-1}, alpha = gamma_i /
// (delta_i - beta gamma_i / alpha_{i-1}); at i = 0, beta = 0 and alpha = gamma_0 / delta_0.
struct StepLengths {
  double alpha = 0.0;
  double beta = 0.0;
};
StepLengths pipelined_step(int i, double gamma, double delta, double previous_gamma, double previous_alpha) noexcept;

// x0 at the interior points of a block whose first interior point has global index `offset` (ghosts 0).
redblack3d::Grid initial_guess(const redblack3d::Extent& global, const redblack3d::Extent& offset,
                               const redblack3d::Extent& local);

}  // namespace cg3d
