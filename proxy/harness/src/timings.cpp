#include "proxy/harness/timings.hpp"

namespace proxy::harness {

Timings mean(const std::vector<Timings>& runs) noexcept {
  Timings sum;
  if (runs.empty()) return sum;
  for (const Timings& t : runs) {
    sum.total_s += t.total_s;
    sum.compute_s += t.compute_s;
    sum.comm_s += t.comm_s;
    sum.wait_s += t.wait_s;
  }
  const double n = static_cast<double>(runs.size());
  return Timings{sum.total_s / n, sum.compute_s / n, sum.comm_s / n, sum.wait_s / n};
}

}  // namespace proxy::harness
