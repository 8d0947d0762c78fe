// The ideal-proxy model (thesis IV.B, after Fink and Baden): a synchronous run of total time T_s that
// spent C_t communicating would, with s of a node's p cores given to a proxy and communication fully
// hidden, take T_p = max((T_s - C_t) * p / (p - s), C_t): compute slows by p/(p-s), and the run can never
// be shorter than its communication. Pure function, any thread. With dedicated progress s = 1; with
// cooperative progress (proxy/progress.hpp) no core is given up, s = 0: T_p = max(T_s - C_t, C_t).
#pragma once

namespace apps {

// NaN when cores_per_node <= proxy_cores (no core left to compute) or an input is negative/NaN.
double ideal_proxy_time(double sync_total_s, double comm_s, int cores_per_node, int proxy_cores = 1) noexcept;

}  // namespace apps
