// Private to proxy::core: how a rank's MPI progress is driven (proxy/progress.hpp names the strategies):
// who runs the ProgressLoop's passes, and how the proxy thread and the waiting compute threads wait. One
// class per strategy, one file each: progress_dedicated.cpp (the proxy thread spins on a core of its own),
// progress_polling.cpp (it sleeps until work arrives, then spins while work is in flight),
// progress_cooperative.cpp (the threads that start, test, wait and call progress points run the passes;
// the proxy thread sleeps as a backstop). progress.cpp is the one place that maps a ProgressStrategy to
// its driver. ProxyThread asks its driver; nothing else looks at the strategy.
//
// Thread contract: run_proxy_thread() on the proxy thread only; every other member from any thread (the
// compute side of ProxyThread). A driver outlives the proxy thread.
#pragma once

#include <atomic>
#include <chrono>
#include <cstdint>
#include <memory>
#include <string>

#include "progress_loop.hpp"
#include "proxy/config.hpp"
#include "proxy/operation.hpp"
#include "proxy/progress.hpp"
#include "proxy/proxy_thread.hpp"

namespace proxy {

class ProgressDriver {
 public:
  ProgressDriver(ProxyChannel& channel, ProgressLoop& loop, const Config& config)
      : channel_(channel), loop_(loop), config_(config) {}
  virtual ~ProgressDriver() = default;
  ProgressDriver(const ProgressDriver&) = delete;
  ProgressDriver& operator=(const ProgressDriver&) = delete;

  virtual ProgressStrategy strategy() const noexcept = 0;

  // Whether the proxy thread is bound to the placement's proxy core (false: it only sleeps, and bound it
  // would take turns on a compute thread's core).
  virtual bool binds_proxy_thread() const noexcept { return true; }

  // The proxy thread's body: passes of the loop and waits between them, until loop.stopping() and
  // loop.shut_down() say it is done.
  virtual void run_proxy_thread() = 0;

  // Compute side. A command (start, release, stop) is about to be queued (not one start_here() began), or
  // a queued one was taken back (a start that found the queue full too long).
  virtual void command_queued() noexcept {}
  virtual void command_withdrawn() noexcept {}
  // A start about to be queued: begin it on this thread now, without the queue, if this strategy lets
  // compute threads run passes and none is running one (true: done, do not queue it).
  virtual bool start_here(Command&) { return false; }
  // A start is in the queue: have it begun soon (wake the proxy thread, or run a pass here).
  virtual void start_queued() = 0;
  // The stop command is in the queue and stop_requested set: wake the proxy thread however it sleeps.
  virtual void stop_queued() = 0;
  // The queue is full: make room from this thread if this strategy lets it run passes.
  virtual void make_room() {}
  // One pass of the loop on this thread, if this strategy lets compute threads run them and no other thread
  // is; true when it ran one (ProxyThread::test, progress_point).
  virtual bool step() { return false; }
  // The same, by a thread that tests or waits on `waited` (ProgressLoop::pass_for).
  virtual bool step_for(const Operation& waited) {
    (void)waited;
    return step();
  }
  // Waits until op has completed `epoch` or `timeout` has passed; returns whether it completed.
  virtual bool wait(const Operation& op, std::uint64_t epoch, std::chrono::milliseconds timeout) = 0;

  // Work in flight that progress points would move: always none unless compute threads run passes. Read
  // by ProxyThread::needs_progress (inline, the kernels' hot path).
  const ProgressDemand& demand() const noexcept { return demand_; }

 protected:
  ProxyChannel& channel_;
  ProgressLoop& loop_;
  const Config& config_;
  ProgressDemand demand_;
};

// Dedicated: the proxy thread alone runs the loop, waiting per the wait policy between passes; compute
// threads wait on the completions notifier. Polling derives from it and changes only how the proxy thread
// waits (wait_for_work, pause_in_flight).
class DedicatedDriver : public ProgressDriver {
 public:
  using ProgressDriver::ProgressDriver;
  ProgressStrategy strategy() const noexcept override { return ProgressStrategy::dedicated; }
  void run_proxy_thread() override;
  void start_queued() override { channel_.wakeup.notify_all(); }
  void stop_queued() override { channel_.wakeup.notify_all(); }
  bool wait(const Operation& op, std::uint64_t epoch, std::chrono::milliseconds timeout) override;

 protected:
  // Nothing queued and nothing active: wait for a command (a bounded slice; the loop looks again).
  virtual void wait_for_work();
  // Work in flight and nothing new: the pause before the next pass. `rounds`: passes since the last command.
  virtual void pause_in_flight(std::uint64_t rounds);
};

// Each strategy's factory, defined in its own file (dedicated: progress.cpp builds DedicatedDriver itself).
std::unique_ptr<ProgressDriver> make_polling_driver(ProxyChannel& channel, ProgressLoop& loop, const Config& config);
std::unique_ptr<ProgressDriver> make_cooperative_driver(ProxyChannel& channel, ProgressLoop& loop,
                                                        const Config& config);

// The line that ends the job when an operation is still running at the wait timeout (a blocking MPI call waiting
// for a peer that is gone), on the proxy thread (await_call) or on a thread the cooperative strategy let run it
// (its watchdog): "closure 'barrier' did not finish within 2.0 s (PROXY_WAIT_TIMEOUT) and ...".
std::string still_running_report(const std::string& label, std::chrono::milliseconds timeout);

// The driver of `strategy` (dedicated, polling or cooperative; automatic means dedicated here: the
// placement's choice, choose_progress, is made before). Defined in progress.cpp, the strategies' table.
std::unique_ptr<ProgressDriver> make_progress_driver(ProgressStrategy strategy, ProxyChannel& channel,
                                                     ProgressLoop& loop, const Config& config);

}  // namespace proxy
