// Steps: what an application does in its loop, as the mode loops (session.hpp) need it. A run is `count`
// steps; step s needs the data of exchange s + ... as set by `lookahead`:
//   lookahead 0 (a halo): exchange s brings the ghosts that step s's boundary compute reads; the inner
//               compute reads none, so it may overlap exchange s.
//   lookahead 1 (SUMMA's panels, double buffered): exchange s brings the panels that step s computes on;
//               exchange s+1 may overlap step s, and the first exchange runs before the loop.
// Blocking modes (sync, mt) run exchange s, then compute_inner(s), then compute_boundary(s).
// Threads: exchanges are called on the thread that may call MPI (the master); start_on_proxy on the
// master, and its closure runs on the proxy thread. The compute functions are called by every thread of
// the team (inside one parallel region in mt and proxy, with StepThread{thread, threads}; outside any, with
// StepThread{0, 1}, in sync and async), and must split the work by its thread/threads or with an orphaned
// `omp for ... nowait`: the loop puts a barrier after each compute phase.
// Early-bird (proxy mode, lookahead 0, ready_parts > 0): the exchange's plan holds its transfers until
// parts are marked ready (PlanSpec::parts, send_when_ready, recv_when_ready). The loop then starts exchange
// s+1 as soon as exchange s has completed, before compute_boundary(s), and compute_boundary(s) marks the
// parts of exchange s+1 through team.ready(part) as it finishes with the data they cover (the sends' data
// written, the receives' old contents read), so faces leave while the rest of the team still computes.
// compute_boundary(s) must mark every part exactly once (by any thread); exchange 0 and exchange_once(), which
// follow no boundary compute, start with every part marked by the harness.
// Long compute functions call team.progress_point() between chunks of their work (see StepThread).
#pragma once

#include "proxy/cxx20.hpp"  // first: C++20, or one line saying so

#include <exception>
#include <functional>
#include <mutex>

#include "proxy/proxy_thread.hpp"


namespace proxy::harness {

// The exchange that a team's early-bird marks are for (one per run, shared by the team). Thread contract:
// set() by the master between barriers; mark() from any thread of the team in between; take_failure() by
// the master after the next barrier.
class NextExchange {
 public:
  void set(ProxyThread* proxy, Ticket ticket) {
    proxy_ = proxy;
    ticket_ = std::move(ticket);
  }
  // Part `part` of the next exchange is ready. A no-op when no exchange follows (the last step). A refused
  // mark (proxy::Error naming plan, part and epoch) is kept for the master, not thrown inside the team.
  void mark(int part) noexcept;
  // The first refused mark since the last call, or nullptr.
  std::exception_ptr take_failure() noexcept;

 private:
  ProxyThread* proxy_ = nullptr;
  Ticket ticket_;
  std::mutex failure_mutex_;
  std::exception_ptr failure_;
};

// The calling thread's place in a step (not proxy::Team, the collectives' team): its index and the team's
// size, its early-bird marks and its progress points.
struct StepThread {
  int thread = 0;   // omp_get_thread_num() in a team, else 0
  int threads = 1;
  NextExchange* next = nullptr;  // early-bird, in compute_boundary only; else nullptr

  // Early-bird: part `part` of the next exchange may move (a no-op outside early-bird, so compute functions
  // can call it in every mode).
  void ready(int part) const noexcept {
    if (next != nullptr) next->mark(part);
  }
  ProxyThread* proxy = nullptr;  // proxy mode's, for progress points

  // Call between chunks of work (a plane, a tile block, a row chunk): with cooperative progress it moves
  // the exchange in flight along; otherwise it costs one relaxed load (and nothing outside proxy mode).
  void progress_point() const {
    if (proxy != nullptr) proxy->progress_point();
  }
};

struct Steps {
  int count = 0;
  int lookahead = 0;  // 0 or 1, see above
  // How a diagnostic names step s: "<unit> <s / steps_per_unit + 1>" ("iteration 3" for RedBlack3D's
  // sixth half-sweep, "panel 5" for SUMMA).
  const char* unit = "iteration";
  int steps_per_unit = 1;
  // When set, a diagnostic also names the step within its unit: "iteration 3, step 2" with "step".
  const char* part = nullptr;
  // Optional (lookahead 0, no ready_parts): a data-dependent end, such as a solver's convergence test.
  // Called on the master thread once unit u's last step has completed (its exchange and computes; in mt
  // and proxy mode the team waits at a barrier meanwhile); true ends the run there, and `count` is only a
  // cap. It must answer alike on every rank (decide from reduced values), or the ranks' runs diverge.
  std::function<bool(int unit)> done_after;

  // Exchange `e` from the calling thread (sync, async, mt): post it without blocking, then complete it.
  // complete() must wait with a deadline (timed_wait.hpp: wait_all), never block in MPI: a peer that
  // never answers then ends the run with a diagnostic (WaitTimeout), not a hang.
  std::function<void(int e)> post;
  std::function<void()> complete;
  // Optional blocking form (sync, mt), e.g. MPI_Bcast; without it the loops post and complete at once.
  std::function<void(int e)> exchange;
  // Proxy mode: exchange `e` started on the proxy thread; its ticket completes when it has.
  std::function<proxy::Ticket(proxy::ProxyThread& proxy, int e)> start_on_proxy;
  // Proxy mode, optional: called once per run before the clock starts (commit the plans start_on_proxy
  // starts), so that set-up is not timed as communication.
  std::function<void(proxy::ProxyThread& proxy)> prepare_proxy;

  // Step s's computation that needs nothing of the exchange in flight (lookahead 0: exchange s).
  std::function<void(int s, StepThread team)> compute_inner;
  // Step s's computation that needs it; may be empty.
  std::function<void(int s, StepThread team)> compute_boundary;
  // Proxy mode, optional (early-bird, see above): the parts of each exchange's plan, 0 for none. Needs
  // lookahead 0; compute_boundary(s) must mark each of them once through team.ready() (without a
  // compute_boundary, the loop marks them itself).
  int ready_parts = 0;
};

}  // namespace proxy::harness
