#include "apps/ideal_proxy.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <limits>

#include <proxy/detail/counted.hpp>

namespace apps {

double ideal_proxy_time(double sync_total_s, double comm_s, int cores_per_node, int proxy_cores) noexcept {
  const bool valid = cores_per_node > proxy_cores && proxy_cores >= 0 && sync_total_s >= 0.0 && comm_s >= 0.0;
  if (!valid) return std::numeric_limits<double>::quiet_NaN();
  const double p = cores_per_node;
  const double s = proxy_cores;
  return std::max((sync_total_s - comm_s) * p / (p - s), comm_s);  // thesis IV.B
}

std::string ideal_proxy_explained(double sync_total_s, double comm_s, int cores_per_node, int proxy_cores) {
  const double ideal = ideal_proxy_time(sync_total_s, comm_s, cores_per_node, proxy_cores);
  char where[96];
  std::snprintf(where, sizeof where, "p = %s per node, s = %s given to the proxy",
                proxy::detail::counted(cores_per_node, "core").c_str(),
                proxy::detail::counted(proxy_cores, "core").c_str());
  char line[320];
  if (std::isnan(ideal)) {
    std::snprintf(line, sizeof line, "ideal proxy T_p = max((T_s - C_t) p/(p - s), C_t): none for %s (no core left "
                  "to compute; thesis IV.B)", where);
  } else {
    std::snprintf(line, sizeof line, "ideal proxy T_p = max((T_s - C_t) p/(p - s), C_t) = max((%.4f - %.4f) x %d/%d, "
                  "%.4f) = %.4f s (%s; thesis IV.B)", sync_total_s, comm_s, cores_per_node,
                  cores_per_node - proxy_cores, comm_s, ideal, where);
  }
  return line;
}

}  // namespace apps
