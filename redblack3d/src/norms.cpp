#include "redblack3d/norms.hpp"

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstdint>

namespace redblack3d {

LocalNorms local_norms(const Grid& u, const Grid& f, const Stencil& s, const Extent& global, const Extent& offset) {
  LocalNorms norms;
  const Extent& n = u.interior();
  const double hx = 1.0 / (global[0] + 1), hy = 1.0 / (global[1] + 1), hz = 1.0 / (global[2] + 1);
  for (int k = 1; k <= n[2]; ++k) {
    for (int j = 1; j <= n[1]; ++j) {
      for (int i = 1; i <= n[0]; ++i) {
        const double au = s.diag * u.at(i, j, k) - s.ihx2 * (u.at(i - 1, j, k) + u.at(i + 1, j, k)) -
                          s.ihy2 * (u.at(i, j - 1, k) + u.at(i, j + 1, k)) -
                          s.ihz2 * (u.at(i, j, k - 1) + u.at(i, j, k + 1));
        const double r = f.at(i, j, k) - au;
        norms.residual_squares += r * r * s.cell_volume;
        const double exact = exact_solution((offset[0] + i) * hx, (offset[1] + j) * hy, (offset[2] + k) * hz);
        norms.error_max = std::max(norms.error_max, std::abs(u.at(i, j, k) - exact));
      }
    }
  }
  return norms;
}

Comparison compare_with_serial(const Grid& u, const Grid& serial, const Extent& offset) {
  Comparison result;
  const Extent& n = u.interior();
  for (int k = 1; k <= n[2]; ++k) {
    for (int j = 1; j <= n[1]; ++j) {
      for (int i = 1; i <= n[0]; ++i) {
        const double mine = u.at(i, j, k);
        const double reference = serial.at(offset[0] + i, offset[1] + j, offset[2] + k);
        if (std::bit_cast<std::uint64_t>(mine) != std::bit_cast<std::uint64_t>(reference)) {
          ++result.mismatches;
          const double difference = std::abs(mine - reference);
          result.max_difference = std::isnan(difference) ? difference : std::max(result.max_difference, difference);
        }
      }
    }
  }
  return result;
}

}  // namespace redblack3d
