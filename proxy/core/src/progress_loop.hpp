// Private to proxy::core: the proxy thread's side of a ProxyThread. ProxyChannel is what compute threads
// and the proxy share (the command queue, the notifiers, counters); ProgressLoop is the loop, one named
// step each: drain the queue, start what it asked for, progress the active set, publish completions, shut
// down. Who runs its passes, and how the threads wait between them, is the progress strategy's
// (progress_driver.hpp).
//
// Thread contract: ProxyChannel's queue takes pushes from any thread and pops from the proxy thread only;
// its counters are written by the proxy and read by anyone. ProgressLoop and everything in it belong to
// the proxy thread.
#pragma once

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <exception>
#include <functional>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "doorbell.hpp"
#include "help_board.hpp"
#include "plan_operation.hpp"
#include "plan_registry.hpp"
#include "proxy/config.hpp"
#include "proxy/detail/notifier.hpp"
#include "proxy/detail/queue.hpp"
#include "proxy/detail/thread_rule.hpp"
#include "proxy/detail/timer.hpp"
#include "proxy/operation.hpp"

namespace proxy {

struct Command {
  enum class Kind : std::uint8_t { start, release, stop };
  Kind kind = Kind::start;
  std::uint64_t epoch = 0;
  PlanOperation* plan = nullptr;         // set for committed plans (timings, release)
  // Keeps the operation alive until the proxy has taken it. Empty for a plan begun by start_here(): the
  // thread that started it holds its handle and ticket until the pass has put it in the active set.
  std::shared_ptr<Operation> operation;
};

struct ProxyChannel {
  explicit ProxyChannel(std::size_t capacity) : queue(capacity) {}

  MpscQueue<Command> queue;
  Notifier wakeup;       // producers -> idle proxy
  Notifier completions;  // proxy -> waiting compute threads
  Notifier space;        // proxy -> producers held back by a full queue
  std::atomic<bool> stop_requested{false};
  // Set with the stop by a destructor that runs while an exception unwinds through it: nobody will wait on
  // what is outstanding, so the drain cancels it at once instead of waiting for the wait timeout.
  std::atomic<bool> stop_at_once{false};
  std::atomic<int> bound_core{-1};
  std::atomic<std::thread::id> proxy_thread{};  // set when the loop starts
  int rank = 0;                                 // for reports; set before the loop starts
  // The operation whose start() the loop is inside (a closure may block there), or whose progress() when it
  // is not a plan (a plan's only tests; another Operation may block), for the report of a shutdown that
  // cannot join and the cooperative watchdog's; and whether the loop has returned (the bounded join).
  std::atomic<const Operation*> inside{nullptr};
  // A report on another thread reads inside's label while the loop may leave the operation, and its last
  // owner free it: the reader counts itself in inside_readers, then re-reads inside (inside_label); the
  // loop, leaving, clears inside, then waits for the readers (leave_inside). Both sides seq_cst (Dekker):
  // either the reader sees nullptr, or the loop sees the reader and waits until it has copied the label.
  std::atomic<int> inside_readers{0};
  // inside's label if it is still `expected`, else "" (the loop has left it: not blocked after all).
  std::string inside_label(const Operation* expected) {
    inside_readers.fetch_add(1, std::memory_order_seq_cst);
    const Operation* now = inside.load(std::memory_order_seq_cst);
    std::string label = now != nullptr && now == expected ? now->label() : std::string();
    inside_readers.fetch_sub(1, std::memory_order_seq_cst);
    return label;
  }
  void leave_inside() noexcept {
    inside.store(nullptr, std::memory_order_seq_cst);
    while (inside_readers.load(std::memory_order_seq_cst) != 0) std::this_thread::yield();
  }
  std::atomic<bool> finished{false};
  // What a running commit waits in (its comparison between ranks), for the report of a pass that does not
  // return (the cooperative strategy's watchdog): set and cleared under the mutex by the commit's closure.
  std::mutex call_report_mutex;
  const std::function<std::string()>* call_report = nullptr;
  // Strips of a hierarchical element's thread-level phase, shared with the threads waiting on tickets.
  HelpBoard helpers;

  // Wakes a proxy thread that sleeps its whole interval (the cooperative strategy's): the stop, a start
  // that found the progress token taken, the first unattended operation started by another thread.
  Doorbell doorbell;
  std::atomic<int> unattended{0};  // active operations no compute thread waits on (the loop's runner writes)

  // Written by the proxy, read by ProxyThread::statistics(). Loop times are in ticks (detail/timer.hpp).
  double started_at = now_seconds();
  TickRate tick_rate;
  std::atomic<std::uint64_t> busy_ticks{0};
  std::atomic<std::uint64_t> commands{0};
  std::atomic<std::size_t> queue_high_water{0};
};

class ProgressDriver;

class ProgressLoop {
 public:
  ProgressLoop(ProxyChannel& channel, PlanRegistry& plans, const Config& config)
      : channel_(channel), plans_(plans), config_(config) {}

  // Proxy thread: driver.run_proxy_thread() (the strategy's passes and waits, until the loop has shut
  // down), then frees every plan's requests.
  void run(ProgressDriver& driver);

  // What one pass did: commands drained (the queue's, and `first`), and the active set's size after it
  // (the cooperative strategy's count of work in flight).
  struct Pass {
    std::size_t drained = 0;
    std::size_t active = 0;
  };
  // One pass of the loop: drain, start, progress, publish. The caller is the loop's only runner for the
  // duration (the proxy thread, or the holder of the cooperative strategy's progress token). `first`: a
  // start command the caller hands over without the queue (the cooperative strategy's start on the
  // starting thread); it begins after what was queued before it and counts as drained.
  Pass pass(Command* first = nullptr);
  // A waiter's pass (a cooperative wait or test on `waited`): when `waited` is the only active operation, a
  // plan whose test runs no code of the user's (no pack, unpack, parts or collectives), nothing is queued
  // and nothing timed, that test is the whole pass; otherwise pass(). The waiter's poll is then about as
  // lean as MPI's own test loop (bench/RESULTS.md, "Fewer instructions per start and wait").
  Pass pass_for(const Operation& waited);
  // A start's pass on the starting thread (the cooperative start_here): when nothing else is active or
  // queued, nothing is timed and the plan runs plainly, start it and test it once; it joins the active set
  // only if that test did not complete it. Otherwise pass(&first).
  Pass pass_starting(Command& first);
  // A stop command has been drained; then shut_down() says whether the loop is done (true once nothing is
  // left, or after the drain deadline, having cancelled or reported what remained). The deadline is the wait
  // timeout after the stop, or the stop itself when it came with stop_at_once (an exception unwinding).
  bool stopping() const noexcept { return stopping_; }
  bool shut_down();
  bool has_active() const noexcept { return !active_.empty(); }
  // Whether publish() wakes threads asleep on channel_.completions (dedicated and polling waiters; the
  // default). Cooperative waiters run passes and look for themselves, so their strategy turns it off: the
  // notification's seq_cst fence is a full fence on x86, on every completion's path.
  void set_waiters_sleep(bool sleep) noexcept { waiters_sleep_ = sleep; }
  // The last handle of `plan` went (its release): if an epoch of it is active, that entry keeps it alive
  // from now on. The loop's runner only.
  void keep_while_active(std::shared_ptr<Operation> plan);

  // Whether the calling thread is running the loop now: the proxy thread, or a thread inside pass(). What
  // the loop runs (then() callbacks, closures, operations) must not wait for the proxy: it would wait for
  // itself (ProxyThread::wait refuses at once).
  static bool running_on_this_thread() noexcept;

 private:
  // The proxy's own record of one running epoch: which operation, what keeps it alive, which epoch, since
  // when. A plan needs no keep-alive while its handles last (their release arrives as a command, or on the
  // loop's thread, and hands its reference over: keep_while_active), so starting one copies no shared_ptr.
  struct ActiveOperation {
    Operation* operation = nullptr;
    std::shared_ptr<Operation> keep_alive;
    PlanOperation* plan = nullptr;
    std::uint64_t epoch = 0;
    std::uint64_t started_at = 0;  // ticks
    bool unattended = false;       // the operation's unattended(), asked once at its start
  };

  // The steps of a pass. start, progress, publish and leave_active_set are inlined into it ([[gnu::always_inline]]
  // in progress_loop.cpp): an 8-byte round trip runs one or two passes and is bound by instructions, so each
  // call's prologue and epilogue cost about 1 % of it (bench/RESULTS.md, "Fewer instructions per start and wait").
  std::size_t drain();                    // pop every queued command and act on it (the pass looks first)
  void start(Command& command);           // begin an epoch; it joins the active set
  void progress();                        // advance the active set; completed entries leave it
  void publish(const ActiveOperation& entry);  // the epoch is complete: tell its waiters
  void fail(const ActiveOperation& entry, std::exception_ptr error);  // store the error, then publish
  // Busy time, when Config::timings asks: from the first command or active operation until the loop is idle.
  void account_busy_time(bool busy) {
    if (config_.timings) account_timed_busy_time(busy);
  }
  void account_timed_busy_time(bool busy);
  // The time for this pass of the loop in ticks, read once (a read costs ~12 ns in a VM): start times,
  // completion times and busy time within one pass share it. Read only when Config::timings asks.
  std::uint64_t now() noexcept { return now_ != 0 ? now_ : (now_ = now_ticks()); }
  void leave_active_set(const ActiveOperation& entry);
  // Whether pass_for / pass_starting may take `plan` alone: it runs plainly, nothing is timed or queued.
  bool lean_pass_for(const PlanOperation& plan) const noexcept {
    return plan.runs_plainly() && !config_.timings && channel_.queue.size_approx() == 0;
  }

  ProxyChannel& channel_;
  PlanRegistry& plans_;
  const Config& config_;
  // pass() and shut_down(): one thread at a time (checked where thread rules are, detail/thread_rule.hpp).
  detail::ExclusiveSection runner_{
      "the progress loop: one thread at a time runs a pass (the proxy thread, or the progress token's holder)"};
  std::vector<ActiveOperation> active_;
  bool stopping_ = false;
  bool stopping_at_once_ = false;  // the stop's channel_.stop_at_once, read when it was drained
  bool waiters_sleep_ = true;
  Notifier::Clock::time_point drain_deadline_;
  std::uint64_t busy_since_ = 0;  // ticks; 0: idle
  std::uint64_t now_ = 0;         // now()'s reading for this pass; 0: not read yet
};

}  // namespace proxy
