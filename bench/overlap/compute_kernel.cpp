#include "compute_kernel.hpp"

#include <algorithm>
#include <cmath>

#include "proxy/detail/timer.hpp"

namespace overlap {

ComputeKernel::ComputeKernel() {
  for (int i = 0; i < kLength; ++i) data_[i] = 1.0 + 1e-3 * i;
}

double ComputeKernel::run(std::int64_t units) noexcept {
  // One unit = one sweep of kLength multiply-adds; the values stay bounded (contraction towards 1).
  for (std::int64_t u = 0; u < units; ++u) {
    for (int i = 0; i < kLength; ++i) data_[i] = data_[i] * 0.999 + 0.001;
  }
  return data_[static_cast<int>(units % kLength)];
}

void ComputeKernel::calibrate() {
  std::int64_t units = 256;
  double best = 0.0;
  // Grow until one run lasts ~20 ms, then keep the fastest of five (interference only slows it down).
  while (true) {
    const double t0 = proxy::now_seconds();
    run(units);
    const double t = proxy::now_seconds() - t0;
    if (t > 0.02) {
      best = t;
      break;
    }
    units *= 2;
  }
  for (int i = 0; i < 5; ++i) {
    const double t0 = proxy::now_seconds();
    run(units);
    best = std::min(best, proxy::now_seconds() - t0);
  }
  units_per_second_ = static_cast<double>(units) / best;
}

std::int64_t ComputeKernel::units_for(double seconds) const noexcept {
  return std::max<std::int64_t>(1, std::llround(seconds * units_per_second_));
}

}  // namespace overlap
