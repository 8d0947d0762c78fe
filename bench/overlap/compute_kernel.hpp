// ComputeKernel: a fixed amount of CPU work, calibrated once so that `units_for(seconds)` units take that
// long when the core is not disturbed. The overlap benchmark runs the same number of units alone and
// while communication is in flight: the difference is the compute slowdown the communication causes
// (OSU's "compute time" method). The work is a dependent multiply-add chain over a small in-cache array,
// so it measures lost CPU time, not memory bandwidth. One thread; not thread-safe.
#pragma once

#include <array>
#include <cstdint>

namespace overlap {

class ComputeKernel {
 public:
  ComputeKernel();

  // Runs `units` units of work; returns a value that depends on all of it (so it cannot be elided).
  double run(std::int64_t units) noexcept;
  // Units per second, the best of a few timed runs (call once, before measuring; no MPI).
  void calibrate();
  std::int64_t units_for(double seconds) const noexcept;
  double units_per_second() const noexcept { return units_per_second_; }

 private:
  static constexpr int kLength = 256;  // doubles: 2 KiB, always in L1
  std::array<double, kLength> data_{};
  double units_per_second_ = 1e8;
};

}  // namespace overlap
