// StepWatchdog (environment_setup.hpp): a detached thread that waits for a step of the Environment (its
// construction, MPI_Finalize) to end or its bound to pass, whichever comes first.
#include <algorithm>
#include <atomic>
#include <condition_variable>
#include <cstdio>
#include <cstdlib>
#include <mutex>
#include <string>
#include <thread>

#include "environment_setup.hpp"
#include "launch.hpp"
#include "proxy/config.hpp"

namespace proxy {

struct StepWatchdog::State {
  std::mutex mutex;
  std::condition_variable changed;
  bool done = false;
  std::atomic<int> rank{-1};
};

std::chrono::milliseconds step_bound() {
  std::chrono::milliseconds timeout = Config{}.wait_timeout;
  try {
    timeout = Config::from_env().wait_timeout;
  } catch (...) {
    // A bad PROXY_* value is refused later in the set-up, with its own line: the default bounds it until then.
  }
  return std::max<std::chrono::milliseconds>(timeout, kStepBoundFloor);
}

std::string step_bound_text(std::chrono::milliseconds bound, int times) {
  char seconds[32];
  std::snprintf(seconds, sizeof seconds, "%.0f", static_cast<double>(times * bound.count()) / 1000.0);
  const std::string factor = times == 1 ? "" : std::to_string(times) + " x ";
  return std::string(seconds) + " s (" + factor + "PROXY_WAIT_TIMEOUT, at least " + factor +
         std::to_string(kStepBoundFloor.count()) + " s)";
}

StepWatchdog::StepWatchdog(std::string program, std::string step, Ending ending) : state_(std::make_shared<State>()) {
  if (const auto launched = launch_count(); launched && launched->index >= 0) state_->rank.store(launched->index);
  const std::chrono::milliseconds bound = step_bound();
  try {
    std::thread([state = state_, program = std::move(program), step = std::move(step), ending, bound] {
      std::unique_lock<std::mutex> lock(state->mutex);
      if (state->changed.wait_for(lock, bound, [&] { return state->done; })) return;
      const int rank = state->rank.load();
      const std::string line = program + ": error: " + (rank >= 0 ? "rank " + std::to_string(rank) + ": " : "") +
                               step + " did not complete within " + step_bound_text(bound) +
                               ": a rank has stopped, left or hangs";
      if (ending == Ending::abort_job) Environment::abort(line, 1);
      // Inside MPI_Finalize, MPI_Abort fails (MPICH: "Invalid communicator", its own three lines): this process
      // exits, and the launcher ends the others, as it does for any process that exits non-zero.
      Environment::report(line);
      std::fflush(stdout);
      std::this_thread::sleep_for(std::chrono::milliseconds(500));  // the launcher forwards what is in the pipe
      std::_Exit(1);
    }).detach();
  } catch (...) {
    // No thread to be had: the step is not bounded.
  }
}

StepWatchdog::~StepWatchdog() {
  {
    const std::lock_guard<std::mutex> lock(state_->mutex);
    state_->done = true;
  }
  state_->changed.notify_all();
}

void StepWatchdog::set_rank(int rank) noexcept { state_->rank.store(rank); }

}  // namespace proxy
