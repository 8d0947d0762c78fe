// SetupWatchdog (environment_setup.hpp): a detached thread that waits for the set-up to end or its bound
// to pass, whichever comes first.
#include <algorithm>
#include <atomic>
#include <condition_variable>
#include <cstdio>
#include <mutex>
#include <string>
#include <thread>

#include "environment_setup.hpp"
#include "launch.hpp"
#include "proxy/config.hpp"

namespace proxy {

struct SetupWatchdog::State {
  std::mutex mutex;
  std::condition_variable changed;
  bool done = false;
  std::atomic<int> rank{-1};
};

namespace {

std::chrono::milliseconds setup_bound() {
  std::chrono::milliseconds timeout = Config{}.wait_timeout;
  try {
    timeout = Config::from_env().wait_timeout;
  } catch (...) {
    // A bad PROXY_* value is refused later in the set-up, with its own line: the default bounds it until then.
  }
  return std::max<std::chrono::milliseconds>(timeout, kSetupBoundFloor);
}

}  // namespace

SetupWatchdog::SetupWatchdog(std::string program) : state_(std::make_shared<State>()) {
  if (const auto launched = launch_count(); launched && launched->index >= 0) state_->rank.store(launched->index);
  const std::chrono::milliseconds bound = setup_bound();
  try {
    std::thread([state = state_, program = std::move(program), bound] {
      std::unique_lock<std::mutex> lock(state->mutex);
      if (state->changed.wait_for(lock, bound, [&] { return state->done; })) return;
      const int rank = state->rank.load();
      char seconds[32];
      std::snprintf(seconds, sizeof seconds, "%.0f", static_cast<double>(bound.count()) / 1000.0);
      Environment::abort(program + ": error: " + (rank >= 0 ? "rank " + std::to_string(rank) + ": " : "") +
                             "the set-up (MPI_Init, host and node discovery) did not complete within " + seconds +
                             " s (PROXY_WAIT_TIMEOUT, at least " + std::to_string(kSetupBoundFloor.count()) +
                             " s): a rank has stopped, left or hangs",
                         1);
    }).detach();
  } catch (...) {
    // No thread to be had: the set-up is not bounded.
  }
}

SetupWatchdog::~SetupWatchdog() {
  {
    const std::lock_guard<std::mutex> lock(state_->mutex);
    state_->done = true;
  }
  state_->changed.notify_all();
}

void SetupWatchdog::set_rank(int rank) noexcept { state_->rank.store(rank); }

}  // namespace proxy
