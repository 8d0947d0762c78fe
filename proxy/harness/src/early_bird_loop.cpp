// The proxy-mode loop with early-bird parts (steps.hpp). Red-black Gauss-Seidel shows why it is shaped
// so: step s's boundary compute writes the faces that exchange s+1 sends AND reads the ghosts that exchange
// s+1's receives overwrite, so neither may move before the threads covering that face are done with it;
// once they are, nothing in step s touches it again. Exchange s+1 is therefore started (all transfers held)
// as soon as exchange s has completed, and the team releases it face by face during compute_boundary(s);
// the inner compute of step s+1 then overlaps whatever is still in flight. Timings as in mode_loops.cpp:
// every interval of the master is charged to exactly one of compute and comm.
#include "early_bird_loop.hpp"

#include <exception>
#include <mutex>

#include <omp.h>

#include "proxy/detail/timer.hpp"
#include "proxy/error.hpp"

namespace proxy::harness {

bool finish_proxy_step(const Steps& steps, int s, const StepThread& team, const bool& failed, double since, Timings& t) {
#pragma omp barrier
  if (failed) return false;
  if (steps.compute_boundary) steps.compute_boundary(s, team);
#pragma omp barrier
#pragma omp master
  t.compute_s += now_seconds() - since;  // includes waiting at the barrier for the team's boundary compute
  return true;
}

void NextExchange::mark(int part) noexcept {
  if (!ticket_) return;  // the last step: no exchange follows
  try {
    proxy_->ready(ticket_, part);
  } catch (...) {
    const std::lock_guard<std::mutex> lock(failure_mutex_);
    if (!failure_) failure_ = std::current_exception();
  }
}

std::exception_ptr NextExchange::take_failure() noexcept {
  const std::lock_guard<std::mutex> lock(failure_mutex_);
  std::exception_ptr failure = failure_;
  failure_ = nullptr;
  return failure;
}

Ticket start_with_every_part_ready(const Steps& steps, ProxyThread& proxy, int e) {
  Ticket ticket = steps.start_on_proxy(proxy, e);
  for (int part = 0; part < steps.ready_parts; ++part) proxy.ready(ticket, part);
  return ticket;
}

Timings run_proxy_early_bird(const Steps& steps, ProxyThread& proxy, int threads, int& at) {
  if (steps.lookahead != 0)
    throw Error("Steps: early-bird parts (ready_parts " + std::to_string(steps.ready_parts) +
                ") need lookahead 0, got " + std::to_string(steps.lookahead));
  Timings t;                   // the master's
  std::exception_ptr failure;  // set by the master, read by all after a barrier
  bool failed = false;
  Ticket current;              // exchange s: master only
  NextExchange next;           // exchange s+1, whose parts compute_boundary(s) marks
  if (steps.prepare_proxy) steps.prepare_proxy(proxy);
  const double begin = now_seconds();
  try {
    if (steps.count > 0) current = start_with_every_part_ready(steps, proxy, 0);  // follows no boundary compute
  } catch (...) {
    failure = std::current_exception();
    failed = true;
  }
  t.comm_s += now_seconds() - begin;
  const bool failed_before = failed;  // in the region the master writes `failed`: read it only at barriers
#pragma omp parallel num_threads(threads)
  {
    const StepThread team{omp_get_thread_num(), omp_get_num_threads(), nullptr, &proxy};  // progress points
    const StepThread boundary_team{team.thread, team.threads, &next, &proxy};
    for (int s = 0; s < steps.count && !failed_before; ++s) {
      double inner_start = 0.0, boundary_start = 0.0;  // master's
#pragma omp master
      {
        at = s;  // the step a failure is reported at
        inner_start = now_seconds();
      }
      // Exchange s is in flight (started in the previous step, or before the loop); the inner compute needs
      // nothing of it.
      steps.compute_inner(s, team);
#pragma omp master
      {
        const double wait_start = now_seconds();
        t.compute_s += wait_start - inner_start;
        // Waited for even after a refused mark, so that the run leaves nothing in flight (when a part stays
        // unmarked, until the wait times out); the refused mark is the failure reported.
        const std::exception_ptr refused = next.take_failure();
        try {
          proxy.wait(current);
        } catch (...) {
          failure = std::current_exception();
        }
        if (refused) failure = refused;
        const double wait_end = now_seconds();
        t.comm_s += wait_end - wait_start;
        t.wait_s += wait_end - wait_start;
        // Exchange s+1 starts now with its transfers held; compute_boundary(s) releases them part by part.
        current = Ticket{};
        try {
          if (!failure && s + 1 < steps.count)
            current = steps.compute_boundary ? steps.start_on_proxy(proxy, s + 1)
                                             : start_with_every_part_ready(steps, proxy, s + 1);
        } catch (...) {
          failure = std::current_exception();
        }
        next.set(&proxy, current);
        boundary_start = now_seconds();
        t.comm_s += boundary_start - wait_end;
        failed = failure != nullptr;
      }
      if (!finish_proxy_step(steps, s, boundary_team, failed, boundary_start, t)) break;
    }
  }
  t.total_s = now_seconds() - begin;
  if (failure) std::rethrow_exception(failure);
  return t;
}

}  // namespace proxy::harness
