// Notifier wake-up ordering under stress (label `faults`). A block waiter registers as a sleeper and then
// reads the condition; the publisher stores the condition and then reads the sleeper count. Without a
// StoreLoad fence on each side both can read the old value, and the waiter sleeps through its
// notification. Production slices (2 ms) hide that; here the slice is an hour, so a missed wake-up leaves
// the waiter stuck and the partner's generous deadline reports it.
//
// Amplifier: the publisher stores to a backlog of cache lines the waiter keeps reading before it stores
// the condition (a store buffer drains in order, so the condition becomes visible late) and the waiter
// enters its wait after a varying delay. Without the fences this loses a wake-up in roughly 5-9 of
// 100,000 round trips on the 2-core development machine.
#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <cstdint>
#include <thread>

#include "proxy/detail/notifier.hpp"

namespace {

using Clock = proxy::Notifier::Clock;

#if defined(__SANITIZE_THREAD__)
constexpr std::uint64_t kRoundTrips = 20'000;  // ThreadSanitizer is ~20x slower; this is the hand-off check
#else
constexpr std::uint64_t kRoundTrips = 200'000;
#endif
constexpr auto kGenerous = std::chrono::seconds(30);  // a waiter that is merely slow wakes long before this

struct alignas(64) Line {
  std::atomic<std::uint64_t> value{0};
};

TEST(NotifierWakeup, BlockWaiterNeverSleepsThroughANotification) {
  proxy::Notifier ping(std::chrono::hours(1));
  Line backlog[32];
  alignas(64) std::atomic<std::uint64_t> served{0};
  alignas(64) std::atomic<std::uint64_t> answered{0};
  std::atomic<bool> stuck{false};
  std::atomic<std::uint64_t> stuck_at{0};
  std::atomic<std::uint64_t> reads_sink{0};

  std::thread waiter([&] {
    std::uint64_t seed = 12345, sink = 0;
    for (std::uint64_t i = 1; i <= kRoundTrips; ++i) {
      if (!ping.wait([&] { return served.load(std::memory_order_acquire) >= i || stuck.load(); },
                     proxy::WaitPolicy::block, Clock::now() + kGenerous, 0) ||
          stuck.load())
        return;
      answered.store(i, std::memory_order_release);
      seed = seed * 6364136223846793005ULL + 1442695040888963407ULL;  // enter the next wait after 0-255 reads
      for (std::uint64_t k = 0, n = (seed >> 33) % 256; k < n; ++k)
        sink += backlog[k % 32].value.load(std::memory_order_relaxed);
    }
    reads_sink.store(sink, std::memory_order_relaxed);  // keeps the delay reads
  });

  for (std::uint64_t i = 1; i <= kRoundTrips; ++i) {
    for (auto& line : backlog) line.value.store(i, std::memory_order_relaxed);
    served.store(i, std::memory_order_release);
    ping.notify_all();
    const auto deadline = Clock::now() + kGenerous;
    while (answered.load(std::memory_order_acquire) < i && Clock::now() < deadline) proxy::cpu_relax();
    if (answered.load(std::memory_order_acquire) < i) {
      stuck_at.store(i);
      stuck.store(true);
      ping.notify_all();  // lets the waiter leave (at the latest its own deadline ends its wait)
      break;
    }
  }
  waiter.join();
  EXPECT_FALSE(stuck.load()) << "the block waiter slept through the notification of round trip "
                             << stuck_at.load() << " of " << kRoundTrips;
}

}  // namespace
