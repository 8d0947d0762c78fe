#include "apps/ideal_proxy.hpp"

#include <algorithm>
#include <cmath>
#include <limits>

namespace apps {

double ideal_proxy_time(double sync_total_s, double comm_s, int cores_per_node, int proxy_cores) noexcept {
  const bool valid = cores_per_node > proxy_cores && proxy_cores >= 0 && sync_total_s >= 0.0 && comm_s >= 0.0;
  if (!valid) return std::numeric_limits<double>::quiet_NaN();
  const double p = cores_per_node;
  const double s = proxy_cores;
  return std::max((sync_total_s - comm_s) * p / (p - s), comm_s);  // thesis IV.B
}

}  // namespace apps
