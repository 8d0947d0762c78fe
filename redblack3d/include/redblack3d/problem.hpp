// Problem: -Laplace(u) = f on the unit cube with u = 0 on the boundary, discretised by the 7-point stencil
// on Nx x Ny x Nz interior points (h_d = 1 / (N_d + 1)). The manufactured solution
// u = sin(pi x) sin(pi y) sin(pi z), f = 3 pi^2 u, lets the driver report the error against it.
// Stencil holds the over-relaxed Gauss-Seidel update's coefficients, computed once so every mode uses
// bit-for-bit the same numbers.
#pragma once

#include "redblack3d/decomposition.hpp"
#include "redblack3d/grid.hpp"

namespace redblack3d {

struct Stencil {
  // u_new = keep * u + omega * (cx * (W + E) + cy * (S + N) + cz * (B + T) + cf * f)
  double keep = 0.0;  // 1 - omega
  double omega = 1.0;
  double cx = 0.0, cy = 0.0, cz = 0.0, cf = 0.0;
  // Residual f - A u uses the unrelaxed operator: diag * u - (W + E) / hx^2 - ...
  double diag = 0.0, ihx2 = 0.0, ihy2 = 0.0, ihz2 = 0.0;
  double cell_volume = 0.0;  // hx * hy * hz, for the discrete L2 norm
};

Stencil make_stencil(const Extent& global, double omega);

double exact_solution(double x, double y, double z) noexcept;

// f at the interior points of a block whose first interior point has global index `offset`.
Grid make_rhs(const Extent& global, const Extent& offset, const Extent& local);

}  // namespace redblack3d
