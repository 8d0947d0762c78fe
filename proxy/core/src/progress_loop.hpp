// Private to proxy::core: the proxy thread's side of a ProxyThread. ProxyChannel is what compute threads
// and the proxy share (the command queue, the notifiers, counters); ProgressLoop is the loop the proxy
// thread runs, one named step each: drain the queue, start what it asked for, progress the active set,
// publish completions, idle per the wait policy, shut down.
//
// Thread contract: ProxyChannel's queue takes pushes from any thread and pops from the proxy thread only;
// its counters are written by the proxy and read by anyone. ProgressLoop and everything in it belong to
// the proxy thread.
#pragma once

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <exception>
#include <memory>
#include <thread>
#include <vector>

#include "doorbell.hpp"
#include "plan_operation.hpp"
#include "plan_registry.hpp"
#include "progress_token.hpp"
#include "proxy/config.hpp"
#include "proxy/detail/notifier.hpp"
#include "proxy/detail/queue.hpp"
#include "proxy/detail/timer.hpp"
#include "proxy/operation.hpp"

namespace proxy {

struct Command {
  enum class Kind : std::uint8_t { start, release, stop };
  Kind kind = Kind::start;
  std::uint64_t epoch = 0;
  PlanOperation* plan = nullptr;         // set for committed plans (timings, release)
  std::shared_ptr<Operation> operation;  // keeps the operation alive until the proxy has taken it
};

struct ProxyChannel {
  explicit ProxyChannel(std::size_t capacity) : queue(capacity) {}

  MpscQueue<Command> queue;
  Notifier wakeup;       // producers -> idle proxy
  Notifier completions;  // proxy -> waiting compute threads
  Notifier space;        // proxy -> producers held back by a full queue
  std::atomic<bool> stop_requested{false};
  std::atomic<int> bound_core{-1};
  std::atomic<std::thread::id> proxy_thread{};  // set when the loop starts
  int rank = 0;                                 // for reports; set before the loop starts
  // The operation whose start() the proxy is inside (a closure may block there), for the report of a
  // shutdown that cannot join; and whether the loop has returned (the destructor's bounded join).
  std::atomic<const Operation*> starting{nullptr};
  std::atomic<bool> finished{false};

  // The cooperative strategy (proxy/progress.hpp). `cooperative` is set before the proxy thread starts and
  // never changes; the rest is used only when it is true. Whoever holds `token` runs ProgressLoop::step().
  bool cooperative = false;
  ProgressToken token;
  Doorbell doorbell;                        // wakes the sleeping proxy: stop, or a start that found the token taken
  std::atomic<std::int64_t> pending{0};     // commands queued + operations active (producers add, steps retire)
  std::atomic<std::uint64_t> steps{0};      // progress steps taken, by any thread
  std::atomic<int> unattended{0};           // active operations no compute thread waits on (token holder writes)

  // Written by the proxy, read by ProxyThread::statistics().
  double started_at = now_seconds();
  std::atomic<double> busy_seconds{0.0};
  std::atomic<std::uint64_t> commands{0};
  std::atomic<std::size_t> queue_high_water{0};
};

class ProgressLoop {
 public:
  ProgressLoop(ProxyChannel& channel, PlanRegistry& plans, const Config& config)
      : channel_(channel), plans_(plans), config_(config) {}

  // Proxy thread: runs until a stop command has been drained and the active set is empty (or the drain
  // deadline passed), then frees every plan's requests.
  // With channel.cooperative the proxy thread only sleeps and backs the other threads up (run_cooperative).
  void run();

  // Cooperative strategy, the token holder only: one step of the loop (drain, start, progress, publish);
  // returns the commands drained.
  std::size_t step();

  // Whether the calling thread is running the loop now: the proxy thread, or a thread inside step(). What
  // the loop runs (then() callbacks, closures, operations) must not wait for the proxy: it would wait for
  // itself (ProxyThread::wait refuses at once).
  static bool running_on_this_thread() noexcept;

 private:
  // The proxy's own record of one running epoch: what keeps the operation alive, which epoch, since when.
  struct ActiveOperation {
    std::shared_ptr<Operation> operation;
    PlanOperation* plan = nullptr;
    std::uint64_t epoch = 0;
    double started_at = 0.0;
  };

  std::size_t drain();                    // pop every queued command and act on it
  void start(Command& command);           // begin an epoch; it joins the active set
  void progress();                        // advance the active set; completed entries leave it
  void publish(const ActiveOperation& entry);  // the epoch is complete: tell its waiters
  void fail(const ActiveOperation& entry, std::exception_ptr error);  // store the error, then publish
  bool shut_down();                       // stopping: true when done (cancels what missed the deadline)
  void idle(std::size_t drained);         // wait per the policy when there was nothing to do
  void pause_in_flight();                 // between polls of work in flight: relax, yield, then sleep briefly
  void run_cooperative();                 // the sleeping backstop; returns holding the token, stopped
  void account_busy_time(bool busy);
  // The time for this pass of the loop, read once (a clock read costs ~25 ns, several per hand-off):
  // start times, completion times and busy time within one pass share it.
  double now() noexcept { return now_ >= 0.0 ? now_ : (now_ = now_seconds()); }
  void leave_active_set(const ActiveOperation& entry);

  ProxyChannel& channel_;
  PlanRegistry& plans_;
  const Config& config_;
  std::vector<ActiveOperation> active_;
  bool stopping_ = false;
  Notifier::Clock::time_point drain_deadline_;
  std::uint64_t idle_rounds_ = 0;
  double busy_since_ = -1.0;
  double now_ = -1.0;  // now()'s reading for this pass; < 0: not read yet
};

}  // namespace proxy
