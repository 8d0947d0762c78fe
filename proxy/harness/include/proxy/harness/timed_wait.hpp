// Timed waits for the ranks' own MPI requests (sync, async and mt modes, and the collectives that end a
// run): every wait completes by testing under the wait policy until PROXY_WAIT_TIMEOUT (proxy::Config),
// never by a blocking MPI call, so a peer that never answers (stopped, or running fewer iterations) ends
// the run with a diagnostic instead of a hang. Proxy mode's waits are the runtime's (ProxyThread::wait).
//   WaitTimeout: one wait expired; what() is "<what it waited for> after 3.0 s (PROXY_WAIT_TIMEOUT)".
//   RequestFailed: one request failed (an MPI error: a message longer than its receive buffer, a peer gone);
//                what() is "the transfer with rank 1 failed: <MPI's text>", or "the collective failed: ...".
//                The waits test under a proxy::MpiErrorsReturnHere scope, so the error comes back to them
//                instead of ending the job in MPI's handler with no mode, step or peer.
//   RunError:    a communication failure placed in the run: "mode sync, iteration 3, rank 0: <detail>";
//                the Session throws it (or hands it to its failure handler) so a driver prints one line.
// Thread contract: wait_all on the thread that may call MPI; the exceptions are plain values.
#pragma once

#include "proxy/cxx20.hpp"  // first: C++20, or one line saying so

#include <functional>
#include <span>
#include <string>
#include <string_view>

#include <mpi.h>

#include "proxy/error.hpp"
#include "proxy/harness/mode.hpp"

namespace proxy::harness {

class WaitTimeout : public TimeoutError {
 public:
  // peer: the rank it waited for (-1: a collective); waited_for: "no message from rank 1".
  WaitTimeout(int peer, std::string waited_for, double seconds);
  const char* what() const noexcept override { return message_.c_str(); }

 private:
  std::string message_;
};

class RequestFailed : public CommError {
 public:
  // peer: the rank of the transfer (-1: a collective); what: "the transfer with rank 1"; code: MPI's error.
  RequestFailed(int peer, const std::string& what, int code);
  const char* what() const noexcept override { return message_.c_str(); }

 private:
  std::string message_;
};

class RunError : public CommError {
 public:
  // where: "iteration 3", "final reduction"; cause: the failure's what().
  RunError(Mode mode, std::string_view where, int rank, const CommError& cause);
  const char* what() const noexcept override { return message_.c_str(); }

 private:
  std::string message_;
};

// Completes every request in `requests` (MPI_REQUEST_NULL entries count as complete), testing them
// under PROXY_WAIT_POLICY; after PROXY_WAIT_TIMEOUT throws WaitTimeout built from peer(i) and
// waited_for(i) of the first request i still pending, and RequestFailed naming peer(i) where request i fails.
// The callbacks run only then.
void wait_all(std::span<MPI_Request> requests, const std::function<int(int index)>& peer,
              const std::function<std::string(int index)>& waited_for);

// One request of a collective (no single peer to name): "not every rank joined it after 3.0 s ...", or with a
// name, "<name>: not every rank joined it after 3.0 s ..."; failed, "<name>: the collective failed: ...".
void wait_collective(MPI_Request& request, std::string_view name = {});

}  // namespace proxy::harness
