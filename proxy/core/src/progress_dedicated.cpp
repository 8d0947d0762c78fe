// The dedicated strategy (progress_driver.hpp): the proxy thread, on a core of its own, runs every pass of
// the loop and waits between them per the wait policy; compute threads only enqueue and wait.
#include <chrono>
#include <thread>

#include "progress_driver.hpp"
#include "proxy/detail/notifier.hpp"

namespace proxy {

void DedicatedDriver::run_proxy_thread() {
  std::uint64_t rounds = 0;  // passes since the last command
  for (;;) {
    const ProgressLoop::Pass pass = loop_.pass();
    if (loop_.stopping() && loop_.shut_down()) return;
    if (pass.drained > 0) {
      rounds = 0;
      continue;
    }
    ++rounds;
    if (loop_.has_active())
      pause_in_flight(rounds);
    else
      wait_for_work();
  }
}

void DedicatedDriver::wait_for_work() {
  channel_.wakeup.wait(
      [&] { return channel_.queue.size_approx() > 0 || channel_.stop_requested.load(std::memory_order_acquire); },
      config_.wait_policy, Notifier::Clock::now() + std::chrono::milliseconds(50), config_.spin_count);
}

void DedicatedDriver::pause_in_flight(std::uint64_t rounds) {
  // With work in flight MPI needs polling, so even `block` only yields, then sleeps briefly.
  constexpr std::uint64_t kYieldsBeforeSleep = 2000;  // enough to cover a typical exchange
  const auto spins = static_cast<std::uint64_t>(config_.spin_count);
  if (config_.wait_policy == WaitPolicy::spin || rounds < spins) {
    cpu_relax();
  } else if (config_.wait_policy == WaitPolicy::block && rounds > spins + kYieldsBeforeSleep) {
    std::this_thread::sleep_for(std::chrono::microseconds(20));
  } else {
    std::this_thread::yield();
  }
}

bool DedicatedDriver::wait(const Operation& op, std::uint64_t epoch, std::chrono::milliseconds timeout) {
  // A waiter with nothing else to do takes strips of a thread-level phase the proxy runs (help_board.hpp).
  const auto done = [&] {
    if (op.completed_epoch() >= epoch) return true;
    channel_.helpers.assist();
    return false;
  };
  return channel_.completions.wait(done, config_.wait_policy, Notifier::Clock::now() + timeout, config_.spin_count);
}

}  // namespace proxy
