// The ideal-proxy model (thesis IV.B, after Fink and Baden): a synchronous run of total time T_s that
// spent C_t communicating would, with s of a node's p cores given to a proxy and communication fully
// hidden, take T_p = max((T_s - C_t) * p / (p - s), C_t): compute slows by p/(p-s), and the run can never
// be shorter than its communication. Pure functions, any thread. With dedicated progress s = 1; with
// cooperative progress (proxy/progress.hpp) no core is given up, s = 0: T_p = max(T_s - C_t, C_t).
// The one implementation: the drivers print and record it; apps/redblack3d/compare and bench/cluster-study
// show the drivers' values (compare passes --proxy-cores s of the strategy its proxy run used).
#pragma once

#include <string>

namespace apps {

// NaN when cores_per_node <= proxy_cores (no core left to compute) or an input is negative/NaN.
double ideal_proxy_time(double sync_total_s, double comm_s, int cores_per_node, int proxy_cores = 1) noexcept;

// The line every driver prints under its table for a sync/async run: the formula, the numbers put into it
// and the result, e.g. "ideal proxy T_p = max((T_s - C_t) p/(p - s), C_t) = max((0.5575 - 0.0203) x 2/1,
// 0.0203) = 1.0745 s (p = 2 cores per node, s = 1 core given to the proxy; thesis IV.B)".
std::string ideal_proxy_explained(double sync_total_s, double comm_s, int cores_per_node, int proxy_cores = 1);

}  // namespace apps
