// The bound on a peer that stops or leaves, for the multi-rank benchmarks (bench_plan_roundtrip,
// bench_plan_features, bench_mpi_collectives, bench_node_allreduce). What they time are blocking MPI calls
// (MPI_Waitall, MPI_Allreduce, MPI_Barrier: the baselines are what a user would write), so instead of timing
// each call, the main thread reports progress every iteration, and a watchdog thread ends the job with one
// line when none has come for PROXY_WAIT_TIMEOUT: "bench_plan_roundtrip: error: rank 0: no progress for 5.0 s
// in 'BM_Direct' (PROXY_WAIT_TIMEOUT): a rank has stopped, left or hangs". (A rank stopped with SIGSTOP left
// the other waiting for ever.) The cost per iteration is one relaxed atomic increment.
// Thread contract: progress() and phase() from the thread that runs the loop (any one); watch_progress()
// once, after the command line is agreed; the watchdog ends the job through proxy::Environment::abort.
#pragma once

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <string>
#include <thread>

#include <proxy/config.hpp>
#include <proxy/detail/counted.hpp>

#include "apps/driver_main.hpp"  // abort_with
#include "apps/exit_codes.hpp"

namespace bench {
namespace detail {
inline std::atomic<std::uint64_t> g_progress{0};
inline std::atomic<const char*> g_phase{"the set-up"};
}  // namespace detail

// One step done (an iteration, a reduction).
inline void progress() noexcept { detail::g_progress.fetch_add(1, std::memory_order_relaxed); }

// What runs now, for the watchdog's line (a string with static storage: a literal); counts as progress.
inline void phase(const char* what) noexcept {
  detail::g_phase.store(what, std::memory_order_relaxed);
  progress();
}

// Starts the watchdog (a detached thread; the process's end ends it).
inline void watch_progress(const std::string& program, int rank) {
  const std::chrono::milliseconds patience = proxy::Config::from_env().wait_timeout;
  const auto tick = std::clamp<std::chrono::milliseconds>(patience / 20, std::chrono::milliseconds(10),
                                                          std::chrono::milliseconds(1000));
  std::thread([program, rank, patience, tick] {
    std::uint64_t seen = detail::g_progress.load(std::memory_order_relaxed);
    auto since = std::chrono::steady_clock::now();
    for (;;) {
      std::this_thread::sleep_for(tick);
      const std::uint64_t now = detail::g_progress.load(std::memory_order_relaxed);
      if (now != seen) {
        seen = now;
        since = std::chrono::steady_clock::now();
      } else if (std::chrono::steady_clock::now() - since >= patience) {
        apps::abort_with(program, "rank " + std::to_string(rank) + ": no progress for " +
                                      proxy::detail::seconds_text(patience) + " in '" +
                                      detail::g_phase.load(std::memory_order_relaxed) +
                                      "' (PROXY_WAIT_TIMEOUT): a rank has stopped, left or hangs",
                         apps::kExitRunFailure);
      }
    }
  }).detach();
}

}  // namespace bench
