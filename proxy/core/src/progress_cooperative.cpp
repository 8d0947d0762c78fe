// The cooperative strategy (progress_driver.hpp), for ranks with no core to spare: whichever thread needs
// progress runs a pass of the loop while it holds the progress token (progress_token.hpp): the thread that
// starts work, a thread that tests or waits, a kernel's progress points. The proxy thread is not bound and
// only sleeps, a backstop for work nobody else progresses.
#include <chrono>
#include <memory>
#include <mutex>
#include <string>
#include <thread>

#include "progress_driver.hpp"
#include "progress_token.hpp"
#include "proxy/environment.hpp"
#include "proxy/detail/notifier.hpp"

namespace proxy {

namespace {

class CooperativeDriver final : public ProgressDriver {
 public:
  CooperativeDriver(ProxyChannel& channel, ProgressLoop& loop, const Config& config)
      : ProgressDriver(channel, loop, config) {
    loop.set_waiters_sleep(false);  // wait() runs passes; nobody sleeps on completions
  }
  ProgressStrategy strategy() const noexcept override { return ProgressStrategy::cooperative; }
  bool binds_proxy_thread() const noexcept override { return false; }

  void command_queued() noexcept override { demand_.queued.fetch_add(1, std::memory_order_relaxed); }
  void command_withdrawn() noexcept override { demand_.queued.fetch_sub(1, std::memory_order_relaxed); }

  // Begin it now on this thread, the lowest latency: no queue (a push and a pop by this same thread), the
  // pass starts it after anything queued before it.
  bool start_here(Command& command) override {
    TokenScope token(token_);
    if (!token) return false;
    count_pass(loop_.pass_starting(command), true);
    return true;
  }
  // Queued because another thread holds the token: begin it now on this thread if the token came free,
  // or make sure the sleeping proxy looks soon in case the holder has already drained.
  void start_queued() override {
    if (!step()) channel_.doorbell.ring();
  }
  void stop_queued() override {
    channel_.wakeup.notify_all();
    channel_.doorbell.ring();
  }
  // Nobody else may be draining, so the producer makes room itself.
  void make_room() override { step(); }

  bool step() override {
    TokenScope token(token_);
    if (!token) return false;
    pass_holding_token();
    return true;
  }
  bool step_for(const Operation& waited) override {
    TokenScope token(token_);
    if (!token) return false;
    count_pass(loop_.pass_for(waited), false);
    return true;
  }

  // Take the token, run a pass, check, pause or yield: a waiter is where progress is most wanted. A wait's
  // first passes follow each other at once: a short wait (an 8-byte exchange) ends within them, and a pause
  // (~26 ns here) between them was ~7 % of that round trip. A long wait pauses after each pass: without it
  // pipelined CG over emulated nodes ran 5-10 % slower (bench/RESULTS.md, "A fifth lease"). The clock is
  // first read after 64 passes (most waits are over by then; a read costs ~25 ns in a VM), so the timeout
  // counts from there.
  static constexpr unsigned long kPassesWithoutPause = 8;
  bool wait(const Operation& op, std::uint64_t epoch, std::chrono::milliseconds timeout) override {
    const auto spins = static_cast<unsigned long>(config_.spin_count);
    Notifier::Clock::time_point deadline{};
    for (unsigned long i = 0;; ++i) {
      if (op.completed_epoch() >= epoch) return true;
      if (!step_for(op)) channel_.helpers.assist();  // another thread runs the pass: help with its strips
      if (op.completed_epoch() >= epoch) return true;
      if (i >= spins)
        std::this_thread::yield();
      else if (i >= kPassesWithoutPause)
        cpu_relax();
      if ((i & 63) == 63) {
        const auto now = Notifier::Clock::now();
        if (i == 63) deadline = now + timeout;
        if (now >= deadline) return op.completed_epoch() >= epoch;
      }
    }
  }

  // The backstop for work nobody progresses (a plan started and not waited on by code without progress
  // points): a pass when the other threads have run none since the last look. A wake-up costs the compute
  // threads a few microseconds of their core, hence the low rates. Unattended work (a completion callback:
  // its waiters sleep elsewhere, in libgomp's barrier for a detached task) is the exception: no other
  // thread will run a pass for it, so while some is active this thread polls as a dedicated proxy does.
  void run_proxy_thread() override {
    constexpr auto kBackstopInterval = std::chrono::milliseconds(1);  // while work is in flight
    constexpr auto kIdleInterval = std::chrono::milliseconds(20);     // nothing in flight (a ring wakes earlier)
    std::uint64_t passes_seen = passes_.load(std::memory_order_relaxed);
    std::uint64_t rounds = 0;  // pauses since the last pass that drained a command
    bool rung = false;
    for (;;) {
      const bool stop = channel_.stop_requested.load(std::memory_order_acquire);
      const bool nobody_progressed = passes_.load(std::memory_order_relaxed) == passes_seen;
      const bool polling = channel_.unattended.load(std::memory_order_relaxed) > 0;
      if ((stop || rung || nobody_progressed) && token_.try_acquire()) {
        const bool drained = pass_holding_token().drained > 0;
        if (loop_.stopping() && loop_.shut_down()) return;  // keeps the token: ProgressLoop::run frees the plans next
        token_.release();
        if (drained) rounds = 0;
      }
      watch_for_a_blocked_pass();
      passes_seen = passes_.load(std::memory_order_relaxed);
      rung = false;
      if (stop) {
        std::this_thread::sleep_for(std::chrono::microseconds(50));  // draining: the waiters are gone
      } else if (polling) {
        pause_in_flight(++rounds);
      } else {
        const bool in_flight = demand_.any();
        rung = channel_.doorbell.wait_for(in_flight ? kBackstopInterval : kIdleInterval);
      }
    }
  }

 private:
  // The watchdog. A pass that does not return is a closure blocked in MPI (a blocking call waiting for a peer
  // that is gone, a commit's comparison between ranks), or an Operation's progress() blocked likewise, on the
  // thread that ran the pass: a compute thread, whose own wait cannot time out then, as the caller's does when
  // the proxy thread runs it (await_call, a ticket's timed wait). The same operation inside its start() or
  // progress() (ProxyChannel::inside) with no pass finished for the wait timeout ends the job with one line:
  // the running commit's report (ProxyChannel::call_report), else the operation's label.
  void watch_for_a_blocked_pass() {
    const Operation* inside = channel_.inside.load(std::memory_order_acquire);
    const std::uint64_t passes = passes_.load(std::memory_order_relaxed);
    if (inside == nullptr) {
      watched_ = nullptr;
      return;
    }
    const auto now = Notifier::Clock::now();
    if (inside != watched_ || passes != watched_passes_) {
      watched_ = inside;
      watched_passes_ = passes;
      watched_since_ = now;
      return;
    }
    if (now - watched_since_ < config_.wait_timeout) return;
    std::string line;
    {
      const std::lock_guard<std::mutex> lock(channel_.call_report_mutex);
      if (channel_.call_report != nullptr) line = (*channel_.call_report)();
    }
    if (line.empty()) {
      // Read while the operation is held there: one that has just returned may be freed by its owner.
      const std::string label = channel_.inside_label(inside);
      if (label.empty()) return;  // it has returned after all
      line = still_running_report(label, config_.wait_timeout);
    }
    Environment::abort("proxy: error: rank " + std::to_string(channel_.rank) + ": " + line, 1);
  }

  ProgressLoop::Pass pass_holding_token(Command* first = nullptr) {
    const ProgressLoop::Pass pass = loop_.pass(first);
    count_pass(pass, first != nullptr);
    return pass;
  }
  // What the token's holder records of a pass: the demand it leaves, and that one ran (the backstop's look).
  void count_pass(const ProgressLoop::Pass& pass, bool had_first) {
    // `first` came without the queue and never counted as queued. Only the runner writes `active`.
    const std::size_t from_queue = pass.drained - (had_first ? 1 : 0);
    if (from_queue > 0) demand_.queued.fetch_sub(static_cast<std::int64_t>(from_queue), std::memory_order_relaxed);
    if (demand_.active.load(std::memory_order_relaxed) != static_cast<std::int64_t>(pass.active))
      demand_.active.store(static_cast<std::int64_t>(pass.active), std::memory_order_relaxed);
    passes_.store(passes_.load(std::memory_order_relaxed) + 1, std::memory_order_relaxed);
  }

  // This thread shares a core with compute threads, which may spin (OpenMP's active wait): it never spins,
  // and after a few yields it sleeps whatever the policy, as a yield to a spinning thread can cost its
  // whole time slice and a wake-up from a sleep preempts it.
  static void pause_in_flight(std::uint64_t rounds) {
    constexpr std::uint64_t kYieldsBeforeSleep = 100;
    if (rounds > kYieldsBeforeSleep)
      std::this_thread::sleep_for(std::chrono::microseconds(20));
    else
      std::this_thread::yield();
  }

  ProgressToken token_;                   // whoever holds it runs a pass
  std::atomic<std::uint64_t> passes_{0};  // passes run, by any thread (the token holder writes)
  // The watchdog's (the proxy thread's alone): the operation seen inside, the passes then, since when.
  const Operation* watched_ = nullptr;
  std::uint64_t watched_passes_ = 0;
  Notifier::Clock::time_point watched_since_{};
};

}  // namespace

std::unique_ptr<ProgressDriver> make_cooperative_driver(ProxyChannel& channel, ProgressLoop& loop,
                                                        const Config& config) {
  return std::make_unique<CooperativeDriver>(channel, loop, config);
}

}  // namespace proxy
