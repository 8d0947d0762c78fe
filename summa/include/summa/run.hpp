// run(): a whole SUMMA run as the drivers and MPI tests need it: validate, set up the grid and the
// operands, then the harness's Session (placement, binding, proxy) runs `reps` multiplies in the mode;
// the timings are the slowest rank's (proxy/harness/timings.hpp) and C is verified against one local
// dgemm per rank. Collective over env.world().
// Thread contract: call on the main thread, with no ProxyThread of the caller running.
#pragma once

#include <exception>
#include <functional>
#include <string>
#include <vector>

#include <proxy/environment.hpp>
#include <proxy/harness/timings.hpp>

#include "summa/modes.hpp"
#include "summa/problem.hpp"
#include "summa/rank_map.hpp"

namespace summa {

// A verified run's max relative error must be below this (relative to k * max|A| * max|B|).
inline constexpr double kVerifyTolerance = 1e-12;

struct RunResult {
  proxy::harness::Timings timings;                   // mean over repetitions of the slowest rank's
  std::vector<proxy::harness::Timings> repetitions;  // the slowest rank's, per repetition
  int panels = 0;                   // steps of the panel schedule
  int threads_per_rank = 1;         // compute threads per rank
  bool shared_proxy = false;        // some rank's proxy shares a core with compute work
  std::string placement;            // rank 0's placement, one line
  std::string progress;             // the progress strategy's name (proxy mode), else "none"
  BroadcastCounts broadcasts;       // receivers of rank 0's row and column broadcasts on/off its node
  bool verify_ran = false;
  double max_rel_error = 0.0;       // over all ranks; meaningful when verify_ran
  bool verified = false;            // verify_ran && max_rel_error < kVerifyTolerance
  std::string proxy_statistics;     // rank 0's proxy statistics table (proxy mode)
};

// Same result on every rank. Throws InvalidProblem (validate) before any communication.
// on_comm_failure: called with a proxy::CommError while the proxy thread still runs (Session), e.g. to
// print it and end the job; empty: the error is rethrown.
RunResult run(const proxy::Environment& env, const Problem& problem,
              std::function<void(const std::exception&)> on_comm_failure = {});

// C's block of this rank recomputed from the generator with one dgemm of `blas_threads` OpenBLAS threads,
// compared with `c`: max |C - C_ref| / (k * kGeneratorMax^2) on this rank.
double local_relative_error(const GridContext& grid, const std::vector<double>& c, int blas_threads);

}  // namespace summa
