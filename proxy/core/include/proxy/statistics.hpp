// Statistics the proxy keeps about itself and each plan; a snapshot is taken by ProxyThread::statistics().
#pragma once

#include "proxy/cxx20.hpp"  // first: C++20, or one line saying so

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

namespace proxy {

struct OperationStatistics {
  std::string name;
  std::uint64_t starts = 0;     // epochs completed
  std::uint64_t bytes = 0;      // bytes sent + received over those epochs
  double total_seconds = 0.0;   // sum over epochs of (completion - start on the proxy); 0 unless timed
  double max_seconds = 0.0;
};

struct ProxyStatistics {
  double uptime_seconds = 0.0;
  // Whether the loop kept times (Config::timings, PROXY_TIMINGS=1): busy_fraction and the plans' seconds.
  bool timed = false;
  double busy_fraction = 0.0;         // share of loop time with commands or active operations; 0 unless timed
  std::size_t queue_high_water = 0;   // most commands seen waiting at once
  std::uint64_t commands = 0;         // commands dequeued
  // Hierarchical plan elements from 32 KiB of contributions on: strips of their thread-level phase, and
  // how many of those threads waiting on a ticket ran rather than the thread running the pass.
  std::uint64_t strips = 0;
  std::uint64_t strips_by_waiters = 0;
  std::vector<OperationStatistics> plans;  // committed plans not yet released, in commit order

  // A short human-readable table (for the drivers' --verbose).
  std::string format() const;
};

}  // namespace proxy
