#include "cg3d/problem.hpp"

#include <cstdint>
#include <string>

#include "proxy/harness/mode.hpp"

namespace cg3d {

std::string_view to_string(Variant variant) noexcept {
  return variant == Variant::classic ? "classic" : "pipelined";
}

Variant parse_variant(std::string_view text) {
  if (text == "classic") return Variant::classic;
  if (text == "pipelined") return Variant::pipelined;
  throw proxy::harness::InvalidSettings("--variant: unknown value '" + std::string(text) +
                                        "' (expected classic or pipelined)");
}

StepLengths pipelined_step(int i, double gamma, double delta, double previous_gamma, double previous_alpha) noexcept {
  if (i == 0) return {gamma / delta, 0.0};
  const double beta = gamma / previous_gamma;
  return {gamma / (delta - beta * gamma / previous_alpha), beta};
}

namespace {

// splitmix64 (Steele, Lea & Flood 2014): a well-mixed 64-bit hash of the point's global index.
std::uint64_t mix(std::uint64_t z) noexcept {
  z += 0x9e3779b97f4a7c15ULL;
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
  return z ^ (z >> 31);
}

}  // namespace

redblack3d::Grid initial_guess(const redblack3d::Extent& global, const redblack3d::Extent& offset,
                               const redblack3d::Extent& local) {
  redblack3d::Grid x(local);
  for (int k = 1; k <= local[2]; ++k) {
    for (int j = 1; j <= local[1]; ++j) {
      for (int i = 1; i <= local[0]; ++i) {
        const std::uint64_t gx = offset[0] + i - 1, gy = offset[1] + j - 1, gz = offset[2] + k - 1;
        const std::uint64_t point = gx + static_cast<std::uint64_t>(global[0]) * (gy + static_cast<std::uint64_t>(global[1]) * gz);
        x.at(i, j, k) = static_cast<double>(mix(point) >> 11) * 0x1.0p-53;  // the top 53 bits, in [0, 1)
      }
    }
  }
  return x;
}

}  // namespace cg3d
