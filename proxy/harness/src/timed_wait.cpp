#include "proxy/harness/timed_wait.hpp"

#include <chrono>
#include <cstdio>
#include <thread>
#include <vector>

#include "proxy/config.hpp"
#include "proxy/detail/counted.hpp"

namespace proxy::harness {
namespace {

// Read once: the wait policy and timeout of this process (the environment does not change during a run).
const Config& config() {
  static const Config config = Config::from_env();
  return config;
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
      message_(std::move(waited_for) + " after " + detail::seconds_text(seconds) + " (PROXY_WAIT_TIMEOUT)") {}

RequestFailed::RequestFailed(int peer, const std::string& what, int code)
    : CommError("wait", peer, 0, what + " failed: " + mpi_error_string(code)), message_(detail()) {}

RunError::RunError(Mode mode, std::string_view where, int rank, const CommError& cause)
    : CommError(cause.operation(), cause.peer(), cause.epoch(), cause.detail()),
      message_("mode " + std::string(to_string(mode)) + ", " + std::string(where) + ", rank " +
               std::to_string(rank) + ": " + cause.what()) {}

namespace {

// Request i's failure (a message longer than its receive buffer, a peer that has gone): "the transfer with rank
// 1 failed: MPI_ERR_TRUNCATE: message truncated", or "<name>: the collective failed: ..." where the request has
// no single peer; i -1: MPI did not say which of several failed.
[[noreturn]] void request_failed(int i, int code, const std::function<int(int index)>& peer, std::string_view name) {
  const int rank = i >= 0 ? peer(i) : -1;
  const std::string what = rank >= 0   ? "the transfer with rank " + std::to_string(rank)
                           : i < 0     ? std::string("one of the requests")
                           : name.empty() ? std::string("the collective")
                                          : std::string(name) + ": the collective";
  throw RequestFailed(rank, what, code);
}

// MPI_Testall's error: the first request whose status holds one (MPI_ERR_IN_STATUS), else the call's.
[[noreturn]] void testall_failed(std::span<const MPI_Status> statuses, int code, const std::function<int(int)>& peer,
                                 std::string_view name) {
  for (int i = 0; code == MPI_ERR_IN_STATUS && i < static_cast<int>(statuses.size()); ++i) {
    const int error = statuses[static_cast<std::size_t>(i)].MPI_ERROR;
    if (error != MPI_SUCCESS && error != MPI_ERR_PENDING) request_failed(i, error, peer, name);
  }
  request_failed(statuses.size() == 1 ? 0 : -1, code, peer, name);
}

void wait_requests(std::span<MPI_Request> requests, const std::function<int(int index)>& peer,
                   const std::function<std::string(int index)>& waited_for, std::string_view name) {
  using Clock = std::chrono::steady_clock;
  const MpiErrorsReturnHere errors_return;  // an MPI error becomes a CommError naming the peer, not an abort
  thread_local std::vector<MPI_Status> statuses;
  statuses.resize(requests.size());
  const int count = static_cast<int>(requests.size());
  const auto start = Clock::now();
  const auto deadline = start + config().wait_timeout;
  for (int tries = 0;; ++tries) {
    int done = 0;
    const int code = MPI_Testall(count, requests.data(), &done, statuses.data());
    if (code != MPI_SUCCESS) testall_failed(statuses, code, peer, name);
    if (done) return;
    if (Clock::now() >= deadline) break;
    pause(tries);
  }
  // Testall completed some: the first one still active is what we wait for. None, when all completed since (this
  // process descheduled past its deadline, a stopped one continued): the wait is over, late, not failed; it named
  // request 0 (its peer MPI_PROC_NULL, "rank -2" under Open MPI) as the one that timed out.
  int pending = -1;
  for (int i = 0; i < count; ++i) {
    if (requests[i] == MPI_REQUEST_NULL) continue;
    int done = 0;
    const int code = MPI_Test(&requests[i], &done, MPI_STATUS_IGNORE);
    if (code != MPI_SUCCESS) request_failed(i, code, peer, name);
    if (!done) {
      pending = i;
      break;
    }
  }
  if (pending < 0) return;
  const double waited = std::chrono::duration<double>(Clock::now() - start).count();
  throw WaitTimeout(peer(pending), waited_for(pending), waited);
}

}  // namespace

void wait_all(std::span<MPI_Request> requests, const std::function<int(int index)>& peer,
              const std::function<std::string(int index)>& waited_for) {
  wait_requests(requests, peer, waited_for, {});
}

void wait_collective(MPI_Request& request, std::string_view name) {
  wait_requests(std::span<MPI_Request>(&request, 1), [](int) { return -1; }, [name](int) {
    return name.empty() ? std::string("not every rank joined it") : std::string(name) + ": not every rank joined it";
  }, name);
}

}  // namespace proxy::harness
