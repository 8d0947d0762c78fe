// Timings: where one rank's compute side (the calling thread; the team's master in mt and proxy) spent
// the wall time of a run's loop. One definition for every application (DESIGN.md "Timing columns"):
//   total_s    wall time of the loop, from its first exchange to the end of its last compute step.
//   compute_s  in the application's compute steps, including the team barrier that ends each (so load
//              imbalance inside the team counts as compute).
//   comm_s     everything the compute side spent on communication: posting or starting an exchange,
//              a whole blocking exchange, waiting for completion, and (mt) the team idling at the barrier
//              while the master exchanges.
//   wait_s     the waiting part of comm_s (0 <= wait_s <= comm_s).
//   other_s()  total_s - compute_s - comm_s: loop overhead. The three are disjoint intervals of one
//              clock, so they add up: compute_s + comm_s + other_s() == total_s, other_s() >= 0.
// Reduction over ranks: Session::slowest_rank() gives every rank the whole Timings of the rank with the
// largest total_s, so a record is one real rank's consistent breakdown (never a maximum of each column,
// which need not add up). Averaging repetitions (mean()) keeps the sum.
// Thread contract: plain data.
#pragma once

#include "proxy/cxx20.hpp"  // first: C++20, or one line saying so

#include <vector>

namespace proxy::harness {

struct Timings {
  double total_s = 0.0;
  double compute_s = 0.0;
  double comm_s = 0.0;  // includes wait_s
  double wait_s = 0.0;

  double other_s() const noexcept { return total_s - compute_s - comm_s; }
};

// Column by column mean; the columns still add up. Empty input gives zeros.
Timings mean(const std::vector<Timings>& runs) noexcept;

}  // namespace proxy::harness
