// Steps: what an application does in its loop, as the mode loops (session.hpp) need it. A run is `count`
// steps; step s needs the data of exchange s + ... as set by `lookahead`:
//   lookahead 0 (a halo): exchange s brings the ghosts that step s's boundary compute reads; the inner
//               compute reads none, so it may overlap exchange s.
//   lookahead 1 (SUMMA's panels, double buffered): exchange s brings the panels that step s computes on;
//               exchange s+1 may overlap step s, and the first exchange runs before the loop.
// Blocking modes (sync, mt) run exchange s, then compute_inner(s), then compute_boundary(s).
// Threads: exchanges are called on the thread that may call MPI (the master); start_on_proxy on the
// master, and its closure runs on the proxy thread. The compute functions are called by every thread of
// the team (inside one parallel region in mt and proxy, with Team{thread, threads}; outside any, with
// Team{0, 1}, in sync and async), and must split the work by Team themselves or with an orphaned
// `omp for ... nowait`: the loop puts a barrier after each compute phase.
#pragma once

#include <functional>

#include "proxy/proxy_thread.hpp"


namespace proxy::harness {

struct Team {
  int thread = 0;   // omp_get_thread_num() in a team, else 0
  int threads = 1;
};

struct Steps {
  int count = 0;
  int lookahead = 0;  // 0 or 1, see above
  // How a diagnostic names step s: "<unit> <s / steps_per_unit + 1>" ("iteration 3" for RedBlack3D's
  // sixth half-sweep, "panel 5" for SUMMA).
  const char* unit = "iteration";
  int steps_per_unit = 1;

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
  std::function<void(int s, Team team)> compute_inner;
  // Step s's computation that needs it; may be empty.
  std::function<void(int s, Team team)> compute_boundary;
};

}  // namespace proxy::harness
