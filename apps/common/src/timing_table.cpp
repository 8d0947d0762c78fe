#include "apps/timing_table.hpp"

#include <cstdio>
#include <ostream>
#include <utility>

namespace apps {

TimingRow TimingRow::from(std::string mode, const proxy::harness::Timings& t, long long iterations,
                          double ideal_proxy_s) {
  return TimingRow{std::move(mode), t.total_s, t.compute_s, t.comm_s, t.wait_s, iterations, ideal_proxy_s};
}

void set_timing_columns(RunRecord& record, const proxy::harness::Timings& t) {
  record.set("total_s", t.total_s).set("compute_s", t.compute_s).set("comm_s", t.comm_s).set("wait_s", t.wait_s);
}

void print_timing_table(std::ostream& out, const std::vector<TimingRow>& rows, const std::string& title) {
  char line[256];
  if (!title.empty()) out << title << '\n';
  std::snprintf(line, sizeof line, "%-8s %9s %10s %9s %9s %7s | %9s %9s %9s | %14s\n", "Mode", "Total(s)",
                "Compute(s)", "Comm(s)", "Wait(s)", "Comm %", "Iter(ms)", "Comp(ms)", "Comm(ms)", "Ideal proxy(s)");
  out << line;
  for (const TimingRow& row : rows) {
    const double per_iter = row.iterations > 0 ? 1000.0 / static_cast<double>(row.iterations) : 0.0;
    char ideal[32] = "-";
    if (!std::isnan(row.ideal_proxy_s)) std::snprintf(ideal, sizeof ideal, "%.4f", row.ideal_proxy_s);
    std::snprintf(line, sizeof line, "%-8s %9.4f %10.4f %9.4f %9.4f %6.1f%% | %9.3f %9.3f %9.3f | %14s\n",
                  row.mode.c_str(), row.total_s, row.compute_s, row.comm_s, row.wait_s, row.comm_percent(),
                  row.total_s * per_iter, row.compute_s * per_iter, row.comm_s * per_iter, ideal);
    out << line;
  }
}

}  // namespace apps
