// The four mode loops of Session::run (mode.hpp, steps.hpp), each timing its master thread by the one
// definition of timings.hpp: every interval of the loop is charged to exactly one of compute and comm
// (wait is a part of comm), so what is left (other) is loop overhead and never negative.
// A communication failure (a timed wait that expired, a proxy CommError) leaves a loop with `at` set to
// the step it happened in; Session::run names the mode and that step in the RunError it raises.
#include <algorithm>
#include <string>
#include <exception>

#include <omp.h>

#include "proxy/detail/timer.hpp"
#include "proxy/error.hpp"
#include "proxy/harness/session.hpp"
#include "proxy/harness/timed_wait.hpp"

#include "early_bird_loop.hpp"

namespace proxy::harness {
namespace {

// An exchange from the calling thread: blocking all of it is waiting; posted, the posting is comm only.
void exchange_timed(const Steps& steps, int e, Timings& t) {
  const double start = now_seconds();
  if (steps.exchange) {
    steps.exchange(e);
    const double done = now_seconds();
    t.comm_s += done - start;
    t.wait_s += done - start;
    return;
  }
  steps.post(e);
  const double posted = now_seconds();
  steps.complete();
  const double done = now_seconds();
  t.comm_s += done - start;
  t.wait_s += done - posted;
}

// Whether the run ends after step s: the last step of a unit for which done_after says so.
bool done_after_step(const Steps& steps, int s) {
  const int per_unit = std::max(steps.steps_per_unit, 1);
  return steps.done_after && (s + 1) % per_unit == 0 && steps.done_after(s / per_unit);
}

// The same inside a team's parallel region: the master asks, every thread learns the answer at a barrier
// (all threads call it alike). A throw becomes `failure` and ends the run as `failed`.
bool team_done_after_step(const Steps& steps, int s, std::exception_ptr& failure, bool& failed, bool& done) {
  const int per_unit = std::max(steps.steps_per_unit, 1);
  if (!steps.done_after || (s + 1) % per_unit != 0) return false;  // no barrier within a unit
#pragma omp master
  {
    try {
      done = steps.done_after(s / per_unit);
    } catch (...) {
      failure = std::current_exception();
      failed = done = true;
    }
  }
#pragma omp barrier
  return done;
}

void compute(const Steps& steps, int s, StepThread team) {
  steps.compute_inner(s, team);
  if (steps.compute_boundary) steps.compute_boundary(s, team);
}

Timings run_sync(const Steps& steps, int& at) {
  Timings t;
  const double begin = now_seconds();
  for (int s = 0; s < steps.count; ++s) {
    at = s;
    exchange_timed(steps, s, t);
    const double compute_start = now_seconds();
    compute(steps, s, StepThread{});
    t.compute_s += now_seconds() - compute_start;
    if (done_after_step(steps, s)) break;
  }
  t.total_s = now_seconds() - begin;
  return t;
}

Timings run_async(const Steps& steps, int& at) {
  Timings t;
  const double begin = now_seconds();
  for (int e = 0; e < steps.lookahead && e < steps.count; ++e) exchange_timed(steps, e, t);
  for (int s = 0; s < steps.count; ++s) {
    at = s;
    const int e = s + steps.lookahead;
    const bool posting = e < steps.count;
    const double post_start = now_seconds();
    if (posting) steps.post(e);
    const double inner_start = now_seconds();
    steps.compute_inner(s, StepThread{});
    const double wait_start = now_seconds();
    if (posting) steps.complete();
    const double boundary_start = now_seconds();
    if (steps.compute_boundary) steps.compute_boundary(s, StepThread{});
    const double end = now_seconds();
    t.comm_s += (inner_start - post_start) + (boundary_start - wait_start);
    t.wait_s += boundary_start - wait_start;
    t.compute_s += (wait_start - inner_start) + (end - boundary_start);
    if (done_after_step(steps, s)) break;
  }
  t.total_s = now_seconds() - begin;
  return t;
}

// Rethrows the master's failure after the team has left its parallel region.
Timings run_mt(const Steps& steps, int threads, int& at) {
  Timings t;                   // the master's
  std::exception_ptr failure;  // set by the master, read by all after a barrier
  bool failed = false;
  bool done = false;  // done_after's answer, likewise
  const double begin = now_seconds();
#pragma omp parallel num_threads(threads)
  {
    const StepThread team{omp_get_thread_num(), omp_get_num_threads()};
    for (int s = 0; s < steps.count; ++s) {
      double exchanged = 0.0;
#pragma omp master
      {
        at = s;
        try {
          exchange_timed(steps, s, t);
        } catch (...) {
          failure = std::current_exception();
          failed = true;
        }
        exchanged = now_seconds();
      }
#pragma omp barrier
      if (failed) break;  // read between two barriers: every thread sees the same value and all leave together
      const double compute_start = now_seconds();
#pragma omp master
      {
        // Releasing the team after the exchange is part of it: the team idled waiting.
        t.comm_s += compute_start - exchanged;
        t.wait_s += compute_start - exchanged;
      }
      compute(steps, s, team);
#pragma omp barrier
#pragma omp master
      t.compute_s += now_seconds() - compute_start;
      if (team_done_after_step(steps, s, failure, failed, done)) break;
    }
  }
  t.total_s = now_seconds() - begin;
  if (failure) std::rethrow_exception(failure);
  return t;
}

// Rethrows the proxy's CommError / TimeoutError after the team has left its parallel region.
Timings run_proxy(const Steps& steps, ProxyThread& proxy, int threads, int& at) {
  if (steps.ready_parts > 0) return run_proxy_early_bird(steps, proxy, threads, at);  // early_bird_loop.cpp
  Timings t;                   // the master's
  std::exception_ptr failure;  // set by the master, read by all after a barrier
  bool failed = false;
  bool done = false;  // done_after's answer, likewise
  if (steps.prepare_proxy) steps.prepare_proxy(proxy);
  const double begin = now_seconds();
  try {
    for (int e = 0; e < steps.lookahead && e < steps.count; ++e) {
      const double start = now_seconds();
      proxy.wait(steps.start_on_proxy(proxy, e));
      const double done = now_seconds();
      t.comm_s += done - start;
      t.wait_s += done - start;
    }
  } catch (...) {
    failure = std::current_exception();
    failed = true;
  }
  const bool failed_before = failed;  // in the region the master writes `failed`: read it only at barriers
#pragma omp parallel num_threads(threads)
  {
    const StepThread team{omp_get_thread_num(), omp_get_num_threads(), nullptr, &proxy};
    for (int s = 0; s < steps.count && !failed_before; ++s) {
      double inner_start = 0.0, wait_end = 0.0;  // master's
      Ticket ticket;
      const int e = s + steps.lookahead;
#pragma omp master
      {
        at = s;
        const double start = now_seconds();
        try {
          if (e < steps.count) ticket = steps.start_on_proxy(proxy, e);
        } catch (...) {
          failure = std::current_exception();
        }
        inner_start = now_seconds();
        t.comm_s += inner_start - start;
      }
      // The inner compute needs nothing of exchange e: it runs while the proxy moves it.
      steps.compute_inner(s, team);
#pragma omp master
      {
        const double wait_start = now_seconds();
        t.compute_s += wait_start - inner_start;
        try {
          if (!failure && e < steps.count) proxy.wait(ticket);
        } catch (...) {
          failure = std::current_exception();
        }
        wait_end = now_seconds();
        t.comm_s += wait_end - wait_start;
        t.wait_s += wait_end - wait_start;
        failed = failure != nullptr;
      }
      if (!finish_proxy_step(steps, s, team, failed, wait_end, t)) break;  // early_bird_loop.cpp
      if (team_done_after_step(steps, s, failure, failed, done)) break;
    }
  }
  t.total_s = now_seconds() - begin;
  if (failure) std::rethrow_exception(failure);
  return t;
}

}  // namespace

Timings Session::run(const Steps& steps, std::string_view context) {
  // A negative count is an overflowed derivation (2 x iterations past INT_MAX): never a silent empty run.
  if (steps.count < 0) throw InvalidSettings("a run of " + std::to_string(steps.count) + " steps (an overflowed count)");
  if (steps.done_after && (steps.lookahead != 0 || steps.ready_parts > 0))
    throw Error("Steps: done_after needs lookahead 0 and no early-bird parts (lookahead " +
                std::to_string(steps.lookahead) + ", ready_parts " + std::to_string(steps.ready_parts) + ")");
  int at = 0;
  try {
    switch (mode_) {
      case Mode::sync: return run_sync(steps, at);
      case Mode::async: return run_async(steps, at);
      case Mode::mt: return run_mt(steps, placement_.threads, at);
      case Mode::proxy: return run_proxy(steps, *proxy_, placement_.threads, at);
    }
  } catch (const CommError& error) {
    const int per_unit = std::max(steps.steps_per_unit, 1);
    std::string where = std::string(context) + steps.unit + " " + std::to_string(at / per_unit + 1);
    if (steps.part != nullptr) where += std::string(", ") + steps.part + " " + std::to_string(at % per_unit + 1);
    fail(std::make_exception_ptr(RunError(mode_, where, env_.rank(), error)));
  }
  return {};
}

}  // namespace proxy::harness
