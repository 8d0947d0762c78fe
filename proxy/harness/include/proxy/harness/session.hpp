// Session: one application run in one mode on this rank. It owns what every application would otherwise
// repeat: the placement (one rank per core in sync/async, a thread team and maybe a proxy core in mt and
// proxy), binding the compute threads to it (unless PROXY_BIND=0), the proxy thread's lifetime (proxy
// mode), the four mode loops over the application's Steps, the reduction of the timings over ranks and
// the channel for a communication failure. Applications keep their own set-up, kernels and verification.
// Thread contract: construct, use and destroy on the main thread of every rank, collectively and in the
// same order (the constructor, run(), slowest_rank() and exchange_once() involve every rank). Do the
// application's own MPI set-up (communicators, datatypes) BEFORE constructing the Session: in proxy mode
// the proxy thread owns MPI from the constructor on, and on_mpi_thread() is the way to reach it.
#pragma once

#include <exception>
#include <functional>
#include <optional>
#include <string>
#include <utility>

#include "proxy/environment.hpp"
#include "proxy/harness/mode.hpp"
#include "proxy/harness/steps.hpp"
#include "proxy/harness/timings.hpp"
#include "proxy/proxy_thread.hpp"

namespace proxy::harness {

// Binds the calling OpenMP team's threads to placement's compute cores, unless PROXY_BIND=0 (the same
// switch the proxy thread honours). Returns whether it bound. For programs without a Session (heat2d).
bool bind_compute_threads(const Environment& env, const Placement& placement);

class Session {
 public:
  // Collective. threads: compute threads per rank in mt/proxy (0 = one per compute core of the rank's
  // slice); sync and async run one. Computes the placement, OR-reduces its warnings over the ranks,
  // shares rank 0's placement line, binds, and in proxy mode starts the proxy thread.
  Session(const Environment& env, Mode mode, int threads);
  ~Session();
  Session(const Session&) = delete;
  Session& operator=(const Session&) = delete;

  Mode mode() const noexcept { return mode_; }
  const Placement& placement() const noexcept { return placement_; }
  int threads() const noexcept { return placement_.threads; }
  bool any_shared_proxy() const noexcept { return any_shared_proxy_; }      // over all ranks
  bool any_oversubscribed() const noexcept { return any_oversubscribed_; }  // over all ranks
  const std::string& rank0_placement() const noexcept { return rank0_placement_; }

  // The proxy thread in proxy mode, nullptr otherwise.
  ProxyThread* proxy() noexcept { return proxy_ ? &*proxy_ : nullptr; }

  // Called with a proxy::CommError (or TimeoutError) while the proxy thread still runs, before it is
  // rethrown; a driver prints it and ends the job (Environment::abort) so no rank waits forever.
  void on_comm_failure(std::function<void(const std::exception&)> handler) { on_comm_failure_ = std::move(handler); }

  // Runs fn() where MPI may be called: on the proxy thread while one runs, else here.
  template <class Fn>
  void on_mpi_thread(Fn&& fn) {
    if (proxy_)
      proxy_->call(fn);
    else
      fn();
  }

  // The mode's loop over steps.count steps; this rank's Timings (timings.hpp).
  Timings run(const Steps& steps);
  // One blocking exchange `e` outside the loop (fresh ghosts for a residual, say), in the mode's way.
  void exchange_once(const Steps& steps, int e);
  // Collective: the timings of the slowest rank (timings.hpp), on every rank.
  Timings slowest_rank(const Timings& mine);
  // Rank-local proxy statistics table (proxy mode), else empty.
  std::string proxy_statistics() const;

 private:
  [[noreturn]] void fail(std::exception_ptr failure);

  const Environment& env_;
  Mode mode_;
  Placement placement_;
  bool any_shared_proxy_ = false;
  bool any_oversubscribed_ = false;
  std::string rank0_placement_;
  std::optional<ProxyThread> proxy_;
  std::function<void(const std::exception&)> on_comm_failure_;
};

}  // namespace proxy::harness
