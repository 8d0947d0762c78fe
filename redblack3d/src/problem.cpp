#include "redblack3d/problem.hpp"

#include <cmath>
#include <numbers>

namespace redblack3d {

Stencil make_stencil(const Extent& global, double omega) {
  Stencil s;
  const double hx = 1.0 / (global[0] + 1), hy = 1.0 / (global[1] + 1), hz = 1.0 / (global[2] + 1);
  s.ihx2 = 1.0 / (hx * hx);
  s.ihy2 = 1.0 / (hy * hy);
  s.ihz2 = 1.0 / (hz * hz);
  s.diag = 2.0 * (s.ihx2 + s.ihy2 + s.ihz2);
  s.omega = omega;
  s.keep = 1.0 - omega;
  s.cx = s.ihx2 / s.diag;
  s.cy = s.ihy2 / s.diag;
  s.cz = s.ihz2 / s.diag;
  s.cf = 1.0 / s.diag;
  s.cell_volume = hx * hy * hz;
  return s;
}

double exact_solution(double x, double y, double z) noexcept {
  using std::numbers::pi;
  return std::sin(pi * x) * std::sin(pi * y) * std::sin(pi * z);
}

Grid make_rhs(const Extent& global, const Extent& offset, const Extent& local) {
  using std::numbers::pi;
  Grid f(local);
  const double hx = 1.0 / (global[0] + 1), hy = 1.0 / (global[1] + 1), hz = 1.0 / (global[2] + 1);
  for (int k = 1; k <= local[2]; ++k) {
    for (int j = 1; j <= local[1]; ++j) {
      for (int i = 1; i <= local[0]; ++i) {
        const double x = (offset[0] + i) * hx, y = (offset[1] + j) * hy, z = (offset[2] + k) * hz;
        f.at(i, j, k) = 3.0 * pi * pi * exact_solution(x, y, z);
      }
    }
  }
  return f;
}

}  // namespace redblack3d
