// ProgressLoop: the proxy thread's loop (see progress_loop.hpp).
#include "progress_loop.hpp"

#include <chrono>
#include <cstdio>
#include <string>
#include <thread>

#include "progress_driver.hpp"
#include "proxy/detail/counted.hpp"
#include "proxy/environment.hpp"
#include "proxy/error.hpp"

namespace proxy {

namespace {

thread_local bool t_running_the_loop = false;

// Marks the calling thread as running the loop for a scope (nested: a step inside run() keeps the mark).
class RunningTheLoop {
 public:
  RunningTheLoop() noexcept : before_(t_running_the_loop) { t_running_the_loop = true; }
  ~RunningTheLoop() { t_running_the_loop = before_; }
  RunningTheLoop(const RunningTheLoop&) = delete;
  RunningTheLoop& operator=(const RunningTheLoop&) = delete;

 private:
  bool before_;
};

}  // namespace

bool ProgressLoop::running_on_this_thread() noexcept { return t_running_the_loop; }

void ProgressLoop::run(ProgressDriver& driver) {
  const RunningTheLoop running;
  channel_.proxy_thread.store(std::this_thread::get_id(), std::memory_order_release);
  driver.run_proxy_thread();
  account_busy_time(false);
  // Free the persistent requests here: only this thread may call MPI until the join. Commands still queued
  // (a release racing the shutdown) are handled first, under the registry's lock.
  std::vector<Command> leftovers;
  plans_.close_and_release_all([&] {
    Command command;
    while (channel_.queue.try_pop(command)) {
      if (command.kind == Command::Kind::release) command.plan->release_when_idle();
      leftovers.push_back(std::move(command));
    }
  });
  leftovers.clear();  // outside the registry's lock: dropping one may drop a plan's last handle
  channel_.finished.store(true, std::memory_order_release);
  channel_.completions.notify_all();  // the destructor waits for `finished` on this notifier
}

ProgressLoop::Pass ProgressLoop::pass(Command* first) {
  const detail::ExclusiveSection::Guard one_runner(runner_);
  const RunningTheLoop running;
  now_ = 0;
  Pass done;
  if (channel_.queue.size_approx() != 0) done.drained = drain();  // most passes: nothing queued
  if (first != nullptr) {
    start(*first);
    ++done.drained;
  }
  // One writer at a time (this pass's runner): a load and a store, not a locked add (a fence on x86).
  // Before progress(): a waiter that sees a completion this pass publishes sees the count too.
  if (done.drained > 0)
    channel_.commands.store(channel_.commands.load(std::memory_order_relaxed) + done.drained,
                            std::memory_order_relaxed);
  progress();
  account_busy_time(done.drained > 0 || !active_.empty());
  done.active = active_.size();
  return done;
}

ProgressLoop::Pass ProgressLoop::pass_for(const Operation& waited) {
  if (active_.size() != 1 || active_.front().operation != &waited || active_.front().plan == nullptr ||
      !lean_pass_for(*active_.front().plan))
    return pass();
  const detail::ExclusiveSection::Guard one_runner(runner_);
  const RunningTheLoop running;  // for MPI's error handler too (proxy_thread.cpp)
  ActiveOperation& entry = active_.front();
  Pass done;
  try {
    if (!entry.plan->progress()) {
      done.active = 1;
      return done;
    }
    publish(entry);
  } catch (...) {
    fail(entry, std::current_exception());
  }
  leave_active_set(entry);
  active_.pop_back();
  return done;
}

ProgressLoop::Pass ProgressLoop::pass_starting(Command& first) {
  PlanOperation* const plan = first.plan;
  if (plan == nullptr || !active_.empty() || !lean_pass_for(*plan)) return pass(&first);
  const detail::ExclusiveSection::Guard one_runner(runner_);
  const RunningTheLoop running;
  channel_.commands.store(channel_.commands.load(std::memory_order_relaxed) + 1, std::memory_order_relaxed);
  Pass done;
  done.drained = 1;
  const ActiveOperation started{plan, nullptr, plan, first.epoch, 0, false};
  try {
    plan->start(first.epoch);
    if (plan->progress()) {
      publish(started);
      return done;
    }
  } catch (...) {
    fail(started, std::current_exception());
    return done;
  }
  active_.push_back(started);
  plan->set_in_flight(true);
  done.active = 1;
  return done;
}

std::size_t ProgressLoop::drain() {
  std::size_t drained = 0;
  const std::size_t waiting = channel_.queue.size_approx();
  if (waiting > channel_.queue_high_water.load(std::memory_order_relaxed))
    channel_.queue_high_water.store(waiting, std::memory_order_relaxed);
  Command command;
  while (channel_.queue.try_pop(command)) {
    ++drained;
    switch (command.kind) {
      case Command::Kind::stop:
        stopping_ = true;
        stopping_at_once_ = channel_.stop_at_once.load(std::memory_order_acquire);
        drain_deadline_ = Notifier::Clock::now();
        if (!stopping_at_once_) drain_deadline_ += config_.wait_timeout;
        break;
      case Command::Kind::release:
        command.plan->release_when_idle();
        keep_while_active(std::move(command.operation));
        break;
      case Command::Kind::start:
        start(command);
        break;
    }
  }
  if (drained > 0) channel_.space.notify_all();
  return drained;
}

[[gnu::always_inline]] inline void ProgressLoop::start(Command& command) {
  // Only a plan's epochs are timed (its statistics, when Config::timings asks); the rest skip the clock.
  // The entry is made after the start: its copies then overlap the message's flight.
  Operation* const operation = command.plan != nullptr ? command.plan : command.operation.get();
  const std::uint64_t started_at = command.plan != nullptr && config_.timings ? now() : 0;
  channel_.inside.store(operation, std::memory_order_release);
  try {
    if (command.plan != nullptr)
      command.plan->start(command.epoch);  // a direct call, its common case inlined (plan_operation.hpp)
    else
      operation->start(command.epoch);
  } catch (...) {
    channel_.leave_inside();
    fail(ActiveOperation{operation, std::move(command.operation), command.plan, command.epoch, started_at},
         std::current_exception());
    return;
  }
  channel_.leave_inside();
  ActiveOperation& entry = active_.emplace_back(
      ActiveOperation{operation, std::move(command.operation), command.plan, command.epoch, started_at});
  if (entry.plan != nullptr) entry.plan->set_in_flight(true);
  // The first unattended operation started by another thread (a cooperative step) wakes the proxy thread
  // sleeping its backstop interval: from now on it polls (progress_cooperative.cpp).
  entry.unattended = entry.plan == nullptr && operation->unattended();  // a plan's waiters run passes
  if (entry.unattended && channel_.unattended.fetch_add(1, std::memory_order_relaxed) == 0 &&
      std::this_thread::get_id() != channel_.proxy_thread.load(std::memory_order_relaxed))
    channel_.doorbell.ring();
}

void ProgressLoop::keep_while_active(std::shared_ptr<Operation> plan) {
  for (auto& entry : active_)
    if (entry.operation == plan.get()) {
      entry.keep_alive = std::move(plan);
      return;
    }
}

[[gnu::always_inline]] inline void ProgressLoop::progress() {
  // Completed entries leave the active set (swap with the last). Iterators, not indices: the entry's size is
  // not a power of two, and a size() is a division on every poll.
  for (auto entry = active_.begin(); entry != active_.end();) {
    bool done = false;
    try {
      if (entry->plan != nullptr) {
        done = entry->plan->progress();
      } else {
        channel_.inside.store(entry->operation, std::memory_order_release);
        done = entry->operation->progress();
        channel_.leave_inside();
      }
      if (done) publish(*entry);
    } catch (...) {
      channel_.leave_inside();
      fail(*entry, std::current_exception());
      done = true;
    }
    if (done) {
      leave_active_set(*entry);
      if (entry + 1 != active_.end()) *entry = std::move(active_.back());
      active_.pop_back();  // `entry` now holds the last one, or is the end
    } else {
      ++entry;
    }
  }
}

[[gnu::always_inline]] inline void ProgressLoop::publish(const ActiveOperation& entry) {
  if (entry.plan != nullptr && config_.timings) entry.plan->timings().record(ticks_between(entry.started_at, now()));
  entry.operation->completed_.store(entry.epoch, std::memory_order_release);
  if (waiters_sleep_) channel_.completions.notify_all();
}

void ProgressLoop::fail(const ActiveOperation& entry, std::exception_ptr error) {
  Operation& op = *entry.operation;
  if (!op.error_) {
    try {
      std::rethrow_exception(error);
    } catch (const CommError&) {
      op.error_ = error;
    } catch (const std::exception& e) {
      op.error_ = std::make_exception_ptr(CommError(op.label(), -1, entry.epoch, e.what()));
    } catch (...) {
      op.error_ = std::make_exception_ptr(CommError(op.label(), -1, entry.epoch, "unknown exception"));
    }
  }
  publish(entry);
}

[[gnu::always_inline]] inline void ProgressLoop::leave_active_set(const ActiveOperation& entry) {
  if (entry.plan != nullptr) entry.plan->set_in_flight(false);  // frees the plan if its last handle went
  if (entry.unattended) channel_.unattended.fetch_sub(1, std::memory_order_relaxed);
}

bool ProgressLoop::shut_down() {
  const detail::ExclusiveSection::Guard one_runner(runner_);
  if (active_.empty() && channel_.queue.size_approx() == 0) return true;
  if (Notifier::Clock::now() < drain_deadline_) return false;
  const std::string seconds = detail::seconds_text(config_.wait_timeout);
  const std::string rank = "rank " + std::to_string(channel_.rank) + ": ";
  // Out of patience, or an exception is unwinding through ~ProxyThread. What cannot be cancelled (collectives)
  // would leave MPI_Finalize waiting for a peer: report it and end the job rather than cancel it or hang.
  for (const auto& entry : active_) {
    const Operation& op = *entry.operation;
    if (op.cancellable()) continue;
    const std::string what = op.label() + " epoch " + std::to_string(entry.epoch);
    const std::string outstanding = "outstanding: " + op.describe_outstanding() +
                                    ", which cannot be cancelled (they may be collectives): ending the job";
    if (stopping_at_once_)
      Environment::abort("proxy: error: " + rank + "an exception unwound through the ProxyThread's destructor with " +
                             what + " " + outstanding + " (catch proxy::Error inside the ProxyThread's scope, and "
                             "end the job there: docs/porting.md, 7)",
                         1);
    Environment::abort("proxy: error: " + rank + "shutdown could not drain " + what + " within " + seconds +
                           " (PROXY_WAIT_TIMEOUT), " + outstanding,
                       1);
  }
  // The rest (plans' point-to-point requests) is cancelled; its waiters are told. An epoch nobody waited on
  // and that the drain could not complete is named on stderr (the program's exit status is its own): nothing
  // else would tell that its data never arrived. Cancelled because an exception is unwinding, it is not: the
  // program reports that exception.
  for (auto& entry : active_) {
    Operation& op = *entry.operation;
    const std::string outstanding = op.describe_outstanding();
    op.cancel();
    if (!stopping_at_once_)
      Environment::report("proxy: warning: " + rank + op.label() + " epoch " + std::to_string(entry.epoch) +
                          " was started but never completed (no wait on its ticket?): cancelled at shutdown after " +
                          seconds + " (PROXY_WAIT_TIMEOUT), outstanding: " + outstanding);
    fail(entry, std::make_exception_ptr(CommError(op.label(), op.outstanding_peer(), entry.epoch,
                                                  "cancelled at proxy shutdown; outstanding: " + outstanding)));
    leave_active_set(entry);
  }
  active_.clear();
  return true;
}

void ProgressLoop::account_timed_busy_time(bool busy) {
  if (busy && busy_since_ == 0) busy_since_ = now();
  if (!busy && busy_since_ != 0) {
    channel_.busy_ticks.store(channel_.busy_ticks.load(std::memory_order_relaxed) + ticks_between(busy_since_, now()),
                              std::memory_order_relaxed);
    busy_since_ = 0;
  }
}

}  // namespace proxy
