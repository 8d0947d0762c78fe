// What the two-rank core benchmarks (bench_plan_roundtrip, bench_plan_features) share: the per-iteration
// timing reported as the mean over iterations of the slowest rank's time (one reduction after the loop, so
// none runs inside the timed loop), and a main() that runs every benchmark on both ranks in lockstep with
// only rank 0 printing. Main thread only.
#pragma once

#include <benchmark/benchmark.h>
#include <mpi.h>

#include <cstdio>
#include <functional>
#include <sstream>
#include <string>
#include <vector>

#include "proxy/environment.hpp"

#include "benchmark_options.hpp"
#include "progress_watchdog.hpp"
#include "slowest_rank.hpp"

namespace bench {

// Sets the counter max_rank_us; `allreduce_max` runs the reduction on whichever thread may call MPI.
inline void report_slowest_rank(benchmark::State& state, const std::vector<double>& times,
                                const std::function<void(const double*, double*, int)>& allreduce_max) {
  state.counters["max_rank_us"] = mean_of_slowest_us(times, allreduce_max);
}

// Answers --help, --version and --show-config and refuses bad flags first, agreed by both ranks, which must
// be given the same flags (benchmark_options.hpp); then refuses any rank count but 2 (exit 1); then rank 0
// reports and rank 1 runs the same benchmarks silently, under the progress watchdog (progress_watchdog.hpp).
inline int run_on_two_ranks(apps::Options& options, const proxy::Environment& env, int argc, char** argv) {
  options.epilog("Run on 2 ranks: proxy-mpiexec -n 2 " + options.program() + "\n\n" + std::string(kBenchmarkFlagsHelp));
  std::vector<char*> theirs;
  if (const auto stop = parse_arguments(options, env.rank(), argc, argv, theirs, MPI_COMM_WORLD)) return *stop;
  if (env.size() != 2) {
    if (env.rank() == 0) std::fprintf(stderr, "%s: error: run on 2 ranks (got %d)\n", options.program().c_str(), env.size());
    return apps::kExitRunFailure;
  }
  if (!initialize(env.rank(), theirs)) return apps::kExitUsage;
  watch_progress(options.program(), env.rank());  // a stopped or vanished peer ends the job (progress_watchdog.hpp)
  if (env.rank() == 0) {
    benchmark::RunSpecifiedBenchmarks();
  } else {
    static std::ostringstream sink;
    benchmark::ConsoleReporter quiet;
    quiet.SetOutputStream(&sink);
    quiet.SetErrorStream(&sink);
    benchmark::RunSpecifiedBenchmarks(&quiet);
  }
  benchmark::Shutdown();
  return 0;
}

}  // namespace bench
