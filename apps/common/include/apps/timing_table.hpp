// The thesis-style timing table (thesis Tables IV.4, IV.8): per mode the total, compute, communication and
// wait times in seconds, the communication share, the per-iteration total/compute/comm in milliseconds
// and the ideal-proxy prediction (apps/ideal_proxy.hpp). The columns are proxy::harness::Timings, one
// definition for every application (proxy/harness/timings.hpp): "Comm" is everything the compute side
// spent on communication (call overhead plus waiting), "Wait" the waiting part of it, and Total =
// Compute + Comm + other (loop overhead). Also the run record's timing columns, named the same way
// everywhere. Any thread.
#pragma once

#include <cmath>
#include <iosfwd>
#include <limits>
#include <string>
#include <vector>

#include <proxy/harness/timings.hpp>

#include "apps/run_record.hpp"

namespace apps {

struct TimingRow {
  std::string mode;          // "sync", "proxy", ...
  double total_s = 0.0;
  double compute_s = 0.0;
  double comm_s = 0.0;       // includes wait_s
  double wait_s = 0.0;
  long long iterations = 1;  // for the per-iteration columns
  double ideal_proxy_s = std::numeric_limits<double>::quiet_NaN();  // NaN prints as "-"

  double comm_percent() const noexcept { return total_s > 0.0 ? 100.0 * comm_s / total_s : 0.0; }

  static TimingRow from(std::string mode, const proxy::harness::Timings& t, long long iterations,
                        double ideal_proxy_s = std::numeric_limits<double>::quiet_NaN());
};

// Sets the record's total_s, compute_s, comm_s and wait_s from t (in that order).
void set_timing_columns(RunRecord& record, const proxy::harness::Timings& t);

// Prints the header and one line per row, e.g.
//   Mode     Total(s) Compute(s)  Comm(s)  Wait(s)  Comm % | Iter(ms) Comp(ms) Comm(ms) | Ideal proxy(s)
//   sync       1.234     0.987    0.247    0.200   20.0% |   12.34     9.87     2.47 |   1.974
void print_timing_table(std::ostream& out, const std::vector<TimingRow>& rows, const std::string& title = {});

}  // namespace apps
