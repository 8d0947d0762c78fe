// The figure every multi-rank benchmark reports: the mean over iterations of the slowest rank's time. One
// reduction of the per-iteration times after the loop (so none runs inside the timed loop); the caller
// gives it, since some run it directly and some on the proxy. Main thread only.
#pragma once

#include <functional>
#include <vector>

namespace bench {

// Microseconds: mean over i of max over ranks of times[i] (seconds). allreduce_max(in, out, n) is an
// MPI_Allreduce with MPI_MAX over the ranks taking part.
inline double mean_of_slowest_us(const std::vector<double>& times,
                                 const std::function<void(const double*, double*, int)>& allreduce_max) {
  std::vector<double> slowest(times.size());
  allreduce_max(times.data(), slowest.data(), static_cast<int>(times.size()));
  double total = 0.0;
  for (double t : slowest) total += t;
  return times.empty() ? 0.0 : 1e6 * total / static_cast<double>(slowest.size());
}

}  // namespace bench
