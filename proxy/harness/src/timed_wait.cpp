#include "proxy/harness/timed_wait.hpp"

#include <chrono>
#include <cstdio>
#include <thread>

#include "proxy/config.hpp"

namespace proxy::harness {
namespace {

// Read once: the wait policy and timeout of this process (the environment does not change during a run).
const Config& config() {
  static const Config config = Config::from_env();
  return config;
}

std::string seconds_text(double seconds) {
  char text[32];
  std::snprintf(text, sizeof text, "%.1f s", seconds);
  return text;
}

// One pause of the wait policy after `tries` unsuccessful tests.
void pause(int tries) {
  const Config& c = config();
  if (c.wait_policy == WaitPolicy::spin || tries < c.spin_count) return;
  if (c.wait_policy == WaitPolicy::spin_then_yield)
    std::this_thread::yield();
  else
    std::this_thread::sleep_for(std::chrono::microseconds(100));
}

}  // namespace

WaitTimeout::WaitTimeout(int peer, std::string waited_for, double seconds)
    : TimeoutError("wait", peer, 0, waited_for),
      message_(std::move(waited_for) + " after " + seconds_text(seconds) + " (PROXY_WAIT_TIMEOUT)") {}

RunError::RunError(Mode mode, std::string_view where, int rank, const CommError& cause)
    : CommError(cause.operation(), cause.peer(), cause.epoch(), cause.detail()),
      message_("mode " + std::string(to_string(mode)) + ", " + std::string(where) + ", rank " +
               std::to_string(rank) + ": " + cause.what()) {}

void wait_all(std::span<MPI_Request> requests, const std::function<int(int index)>& peer,
              const std::function<std::string(int index)>& waited_for) {
  using Clock = std::chrono::steady_clock;
  const auto start = Clock::now();
  const auto deadline = start + config().wait_timeout;
  for (int tries = 0;; ++tries) {
    int done = 0;
    MPI_Testall(static_cast<int>(requests.size()), requests.data(), &done, MPI_STATUSES_IGNORE);
    if (done) return;
    if (Clock::now() >= deadline) break;
    pause(tries);
  }
  int pending = 0;  // Testall completed some: the first one still active is what we wait for
  for (int i = 0; i < static_cast<int>(requests.size()); ++i) {
    if (requests[i] == MPI_REQUEST_NULL) continue;
    int done = 0;
    MPI_Test(&requests[i], &done, MPI_STATUS_IGNORE);
    if (!done) {
      pending = i;
      break;
    }
  }
  const double waited = std::chrono::duration<double>(Clock::now() - start).count();
  throw WaitTimeout(peer(pending), waited_for(pending), waited);
}

void wait_collective(MPI_Request& request, std::string_view name) {
  wait_all(std::span<MPI_Request>(&request, 1), [](int) { return -1; }, [name](int) {
    return name.empty() ? std::string("not every rank joined it") : std::string(name) + ": not every rank joined it";
  });
}

}  // namespace proxy::harness
