// main() of an MPI driver, written once: output that cannot be written fails the program
// (program_exit.hpp), start the proxy::Environment (MPI + hwloc; settings it refuses
// exit 2 with its one line, any other failure prints the reason and exits 1: nothing runs yet), run the driver's body through run_guarded (usage errors:
// one line from rank 0, exit 2 on every rank after MPI_Finalize), and end the whole job on any other
// exception (a failure the other ranks cannot know about: print it with the rank, flush, MPI_Abort with
// exit 1, before the Environment's MPI_Finalize would wait for them). Main thread only.
#pragma once

#include <cstdio>
#include <cstdlib>
#include <exception>
#include <optional>
#include <string>
#include <string_view>

#include <proxy/detail/counted.hpp>
#include <proxy/environment.hpp>
#include <proxy/harness/session.hpp>
#include <proxy/harness/timed_wait.hpp>

#include "apps/exit_codes.hpp"
#include "apps/options.hpp"
#include "apps/program_exit.hpp"
#include "apps/usage_error.hpp"

namespace apps {

// "<program>: error: <what>" as one line, then the whole job ends with `code`. Environment::abort writes
// the line whole and gives the launcher a moment to forward it before MPI_Abort (issue 15: a lost message).
[[noreturn]] inline void abort_with(std::string_view program, const std::string& what, int code) {
  proxy::Environment::abort(std::string(program) + ": error: " + what, code);
}

// A Session's communication-failure handler for drivers: prints "<program>: error: communication failed
// on rank R: <what>" and ends the whole job with exit 1 while the proxy thread still runs (unwinding
// first would wait for a proxy that may never drain). A harness RunError already names the mode, the
// step and the rank: "<program>: error: mode sync, iteration 3, rank 0: no message from rank 1 after
// 3.0 s (PROXY_WAIT_TIMEOUT)".
inline auto abort_on_comm_failure(std::string_view program, int rank) {
  return [program, rank](const std::exception& error) {
    if (dynamic_cast<const proxy::harness::RunError*>(&error) != nullptr)
      abort_with(program, error.what(), kExitRunFailure);
    abort_with(program, "communication failed on rank " + std::to_string(rank) + ": " + error.what(),
               kExitRunFailure);
  };
}

// A Session's on_placement for drivers: with --verbose every rank prints "rank R: <block>; <placement>"
// (`block`: what this rank computes); then a warning, once for the job, when some rank's proxy shares a
// core with compute work (proxy mode; proxy::Environment has said so already when rank 0 itself runs
// shared) or when ranks or threads oversubscribe the cores.
inline auto placement_notices(std::string_view program, int rank, bool verbose, std::string block) {
  return [program, rank, verbose, block = std::move(block)](const proxy::harness::Session& session) {
    const proxy::Placement& mine = session.placement();
    if (verbose) {
      const std::string line = "rank " + std::to_string(rank) + ": " + block + "; " + mine.describe() + "\n";
      std::fwrite(line.data(), 1, line.size(), stdout);
      std::fflush(stdout);
    }
    if (session.mode() == proxy::harness::Mode::proxy && session.any_shared_proxy()) {
      if (!mine.shared_proxy)
        warn(program, rank, "too few cores for a dedicated proxy core on some ranks: their proxy shares a core with compute work");
    } else if (session.any_oversubscribed()) {
      warn(program, rank, "more threads or ranks than cores: running oversubscribed");
    }
  };
}

// OMP_NUM_THREADS against the compute threads per rank a run in `mode` with --threads `threads` will use
// (the placement decides, not OpenMP): --show-config shows the count used, and an OMP_NUM_THREADS that says
// otherwise is said once, by rank 0 ("OMP_NUM_THREADS=4 is overridden: 2 compute threads per rank
// (--threads 0: one per compute core)"). `reason` replaces the one derived from the mode and --threads (a
// program without --threads). Every rank, before --show-config is answered.
inline void note_omp_threads(std::string_view program, Options& options, const proxy::Environment& env,
                             proxy::harness::Mode mode, int threads, std::string_view reason = {}) {
  const int used = proxy::harness::placement_for(env, mode, threads).threads;
  const std::string why = !reason.empty()                        ? std::string(reason)
                          : !proxy::harness::is_multi_tier(mode)
                              ? "mode " + std::string(proxy::harness::to_string(mode)) + ": one thread per rank"
                          : threads == 0 ? std::string("--threads 0: one per compute core")
                                         : "--threads " + std::to_string(threads);
  const char* text = std::getenv("OMP_NUM_THREADS");
  if (text == nullptr || *text == '\0') {
    options.effective("OMP_NUM_THREADS", std::to_string(used), "set by the program (" + why + ")");
    return;
  }
  if (std::string_view(text) == std::to_string(used)) return;  // the environment's row says it
  options.effective("OMP_NUM_THREADS", std::to_string(used),
                    "overridden (environment says " + std::string(text) + "; " + why + ")");
  if (!options.show_config_requested()) {
    warn(program, env.rank(), "OMP_NUM_THREADS=" + std::string(text) + " is overridden: " +
                                  proxy::detail::counted(used, "compute thread") + " per rank (" + why + ")");
  }
}

// How a driver's run ends on rank 0, after its table: the record appended to `output` (empty: none was
// asked; record() builds it), then the exit status: a record that cannot be written is a run failure (one
// line; the run itself succeeded and every rank still finalises), a failed --verify exits 3.
template <class MakeRecord>
int finish_run(std::string_view program, const std::string& output, MakeRecord&& record, bool verify_failed) {
  if (!output.empty()) {
    try {
      record().append_to(output);
    } catch (const std::exception& error) {
      std::fprintf(stderr, "%.*s: error: %s\n", static_cast<int>(program.size()), program.data(), error.what());
      return kExitRunFailure;
    }
  }
  return verify_failed ? kExitVerificationFailed : kExitSuccess;
}

// body(proxy::Environment&) returns main's exit status.
template <class Body>
int driver_main(std::string_view program, int argc, char** argv, Body&& body) {
  guard_program_exit(program);
  const int name_length = static_cast<int>(program.size());
  std::optional<proxy::Environment> env;
  try {
    env.emplace(argc, argv, MPI_THREAD_SERIALIZED, program);  // its lines name the program as the driver's do
  } catch (const proxy::SettingsError& refused) {  // every rank; one of them says why
    return refused.exit_status();
  } catch (const std::exception& error) {
    std::fprintf(stderr, "%.*s: error: %s\n", name_length, program.data(), error.what());
    return kExitRunFailure;
  }
  try {
    return run_guarded(program, env->rank(), [&] { return body(*env); });
  } catch (const proxy::harness::RunError& error) {  // names its rank already
    abort_with(program, error.what(), kExitRunFailure);
  } catch (const std::exception& error) {
    abort_with(program, "rank " + std::to_string(env->rank()) + ": " + error.what(), kExitRunFailure);
  }
}

}  // namespace apps
