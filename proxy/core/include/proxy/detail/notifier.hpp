// Internal to the runtime (not installed): how the proxy and its waiters wait.
// Waiting by policy. A Notifier lets one side publish progress and the other wait for it under a
// WaitPolicy: spin (pause loop), spin_then_yield (spin_count pauses, then sched_yield), or block (spin, then
// sleep on a condition variable until notified or a short slice passes).
// Thread safety: any thread may call notify_all(); any number of threads may wait() at once.
// Wake-up ordering (Dekker): the publisher stores the condition, then reads the sleeper count; a sleeper
// raises the count, then reads the condition. Each side puts a seq_cst fence between its store and its
// load, so at least one sees the other: a sleeper never misses the notification (without the fences the
// publisher's load can overtake its store, StoreLoad, and the sleeper waits out a whole slice).
#pragma once

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <mutex>
#include <thread>

#include "proxy/config.hpp"

namespace proxy {

inline void cpu_relax() noexcept {
#if defined(__x86_64__) || defined(__i386__)
  __builtin_ia32_pause();
#elif defined(__aarch64__)
  asm volatile("yield");
#endif
}

class Notifier {
 public:
  using Clock = std::chrono::steady_clock;

  // slice: how long a block waiter sleeps before it looks again without a notification (tests pass a
  // very long slice so that a missed wake-up shows as a stuck waiter).
  explicit Notifier(std::chrono::milliseconds slice = std::chrono::milliseconds(2)) noexcept : slice_(slice) {}

  // Publisher side: call after the store that makes the awaited condition true.
  // Costs a fence and one load when nobody sleeps.
  void notify_all() noexcept {
    std::atomic_thread_fence(std::memory_order_seq_cst);  // the condition's store before the count's load
    if (sleepers_.load(std::memory_order_seq_cst) == 0) return;
    { std::lock_guard<std::mutex> lock(mutex_); }  // orders with a sleeper between its check and its wait
    cv_.notify_all();
  }

  // Waits until done() is true or the deadline passes; returns done()'s last value.
  template <class Done>
  bool wait(Done&& done, WaitPolicy policy, Clock::time_point deadline, int spin_count) {
    // Unsigned counters: a spin wait may run for minutes and must not overflow.
    for (unsigned long i = 0; policy == WaitPolicy::spin || i < static_cast<unsigned long>(spin_count); ++i) {
      if (done()) return true;
      cpu_relax();
      if (policy == WaitPolicy::spin && (i & 1023) == 1023 && Clock::now() >= deadline) return done();
    }
    if (policy == WaitPolicy::spin_then_yield) {
      for (unsigned long i = 0;; ++i) {
        if (done()) return true;
        std::this_thread::yield();
        if ((i & 63) == 63 && Clock::now() >= deadline) return done();
      }
    }
    // block: sleep in short slices so that a missed notification costs at most one slice.
    sleepers_.fetch_add(1, std::memory_order_seq_cst);
    std::atomic_thread_fence(std::memory_order_seq_cst);  // the count's store before the condition's load
    bool result = false;
    {
      std::unique_lock<std::mutex> lock(mutex_);
      while (!(result = done())) {
        const auto now = Clock::now();
        if (now >= deadline) break;
        cv_.wait_until(lock, std::min(deadline, now + slice_));
      }
    }
    sleepers_.fetch_sub(1, std::memory_order_seq_cst);
    return result;
  }

 private:
  std::chrono::milliseconds slice_;
  std::atomic<int> sleepers_{0};
  std::mutex mutex_;
  std::condition_variable cv_;
};

}  // namespace proxy
