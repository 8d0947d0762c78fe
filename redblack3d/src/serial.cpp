#include "redblack3d/serial.hpp"

#include "redblack3d/kernel.hpp"
#include "redblack3d/problem.hpp"

namespace redblack3d {

Grid solve_serial(const Extent& global, double omega, int iterations) {
  const Stencil stencil = make_stencil(global, omega);
  const Extent origin{0, 0, 0};
  const Grid f = make_rhs(global, origin, global);
  Grid u(global);
  const Box all = interior_box(global);
  for (int it = 0; it < iterations; ++it) {
    relax_ref(u, f, stencil, Colour::red, origin, all);
    relax_ref(u, f, stencil, Colour::black, origin, all);
  }
  return u;
}

}  // namespace redblack3d
