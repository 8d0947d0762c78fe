// Session: one application run in one mode on this rank. It owns what every application would otherwise
// repeat: the placement (one rank per core in sync/async, a thread team and maybe a proxy core in mt and
// proxy), binding the compute threads to it (unless PROXY_BIND=0), the proxy thread's lifetime (proxy
// mode), the four mode loops over the application's Steps, the reduction of the timings over ranks and
// the channel for a communication failure. Applications keep their own set-up, kernels and verification.
// No wait of a Session blocks without a deadline: the rank's own requests are completed by timed waits
// (timed_wait.hpp), the proxy's by the runtime's; an expired wait becomes a RunError naming the mode, the
// step ("iteration 3", "final reduction") and the peer, handed to on_comm_failure (or thrown).
// Thread contract: construct, use and destroy on the main thread of every rank, collectively and in the
// same order (the constructor, run(), slowest_rank() and exchange_once() involve every rank). Do the
// application's own MPI set-up (communicators, datatypes) BEFORE constructing the Session: in proxy mode
// the proxy thread owns MPI from the constructor on, and on_mpi_thread() is the way to reach it.
#pragma once

#include "proxy/cxx20.hpp"  // first: C++20, or one line saying so

#include <exception>
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <utility>

#include <mpi.h>

#include "proxy/environment.hpp"
#include "proxy/error.hpp"
#include "proxy/harness/mode.hpp"
#include "proxy/harness/steps.hpp"
#include "proxy/harness/timings.hpp"
#include "proxy/proxy_thread.hpp"

namespace proxy::harness {

// Sizes the calling thread's OpenMP teams to placement.threads and binds their threads to placement's
// compute cores, unless PROXY_BIND=0 (the same switch the proxy thread honours). Returns whether it bound.
// For programs without a Session (heat2d).
bool bind_compute_threads(const Environment& env, const Placement& placement);

// The placement of a run in `mode` with `threads` compute threads per rank (mt/proxy). In proxy mode it
// reserves a core for the proxy only when the progress strategy (PROXY_PROGRESS, auto by default: see
// proxy/progress.hpp) needs one (dedicated, polling); a cooperative proxy sleeps, and the compute threads
// keep every core.
// Throws proxy::Error naming a bad PROXY_* value. For programs without a Session (heat2d) too.
Placement placement_for(const Environment& env, Mode mode, int threads);

// What a run reports about its set-up, the same on every rank (Session::facts): applications' reports
// derive from it.
struct SessionFacts {
  int threads = 1;              // compute threads per rank
  std::string placement;        // rank 0's placement, proxy::Placement::describe()
  std::string progress;         // who drove MPI progress: the strategy's name (proxy mode), else "none"
  bool proxy_core = false;      // the proxy thread kept a core of its own (proxy_keeps_a_core)
  bool shared_proxy = false;    // any rank ran its proxy on a core shared with compute work
  bool oversubscribed = false;  // any rank had more threads or ranks than cores
};

class Session {
 public:
  // Collective. threads: compute threads per rank in mt/proxy (0 = one per compute core of the rank's
  // slice); sync and async run one. Computes the placement, OR-reduces its warnings over the ranks,
  // shares rank 0's placement line, binds, and in proxy mode starts the proxy thread with `proxy_defaults`
  // (PROXY_* variables still override them; the strategy is chosen from the placement).
  Session(const Environment& env, Mode mode, int threads, const Config& proxy_defaults = Config{});
  ~Session();
  Session(const Session&) = delete;
  Session& operator=(const Session&) = delete;

  Mode mode() const noexcept { return mode_; }
  const Placement& placement() const noexcept { return placement_; }
  int threads() const noexcept { return placement_.threads; }
  bool any_shared_proxy() const noexcept { return any_shared_proxy_; }      // over all ranks
  bool any_oversubscribed() const noexcept { return any_oversubscribed_; }  // over all ranks
  const std::string& rank0_placement() const noexcept { return rank0_placement_; }
  // Who drives MPI progress in proxy mode: "dedicated", "cooperative" or "polling"; "none" in the other modes.
  std::string_view progress() const noexcept;
  // Whether the proxy thread kept a core of its own (proxy mode, a strategy that needs one: needs_a_core).
  bool proxy_keeps_a_core() const noexcept;
  // All of the above for a report.
  SessionFacts facts() const;

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

  // The mode's loop over steps.count steps; this rank's Timings (timings.hpp). context prefixes the step
  // in a diagnostic ("repetition 2, " gives "repetition 2, panel 5").
  Timings run(const Steps& steps, std::string_view context = {});
  // One exchange `e` outside the loop (fresh ghosts for a residual, say), in the mode's way, completed
  // before it returns; `what` names it in a diagnostic ("the exchange after the loop").
  void exchange_once(const Steps& steps, int e, std::string_view what = "the exchange after the loop");
  // A collective over the world: post(request) starts a non-blocking one (MPI_Iallreduce, MPI_Ibarrier,
  // ...) on the thread that may call MPI (the proxy's in proxy mode), and this waits for it under the
  // wait timeout. `what` names it in a diagnostic ("final reduction"). post runs before this returns.
  void collective(std::string_view what, const std::function<void(MPI_Comm world, MPI_Request& request)>& post);
  // Collective: the timings of the slowest rank (timings.hpp), on every rank.
  Timings slowest_rank(const Timings& mine);
  // Rank-local proxy statistics table (proxy mode), else empty.
  std::string proxy_statistics() const;

 private:
  [[noreturn]] void fail(std::exception_ptr failure);
  [[noreturn]] void fail_at(std::string_view where, const CommError& error);

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
