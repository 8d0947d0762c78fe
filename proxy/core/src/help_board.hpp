// Private to proxy::core: work the loop's runner shares with the compute threads that wait on tickets (the
// thread-level phase of a hierarchical plan element, cut into strips, plan_operation.cpp). A thread that
// waits for a result has nothing else to do; with many threads per rank the proxy adding their vectors on
// its own core is the bottleneck, so the waiters take strips of it.
//
// Thread contract: run() on the thread running a pass of the loop (one at a time); assist() from any
// thread, any number at once. run() returns only once every strip is done and no helper still holds the
// job, so a job may live on the runner's stack. Which thread computes a strip does not change its bits:
// each strip is computed whole by one thread, the same way.
#pragma once

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <thread>

#include "proxy/detail/notifier.hpp"
#include "proxy/detail/queue.hpp"  // kCacheLineSize

namespace proxy {

struct StripJob {
  void (*run)(void* context, std::size_t strip) noexcept = nullptr;
  void* context = nullptr;
  std::size_t strips = 0;
  std::atomic<std::size_t> next{0};  // the next strip to claim; past `strips` once all are claimed
};

class HelpBoard {
 public:
  // The loop's runner: runs every strip of `job`, the waiting threads helping; returns when all are done.
  void run(StripJob& job) noexcept {
    posted_.store(&job, std::memory_order_seq_cst);
    claim(job);
    strips_.store(strips_.load(std::memory_order_relaxed) + job.strips, std::memory_order_relaxed);  // one writer
    // Withdraw, then wait out the helpers still inside. Store and load are seq_cst, as are the helper's
    // increment and load in assist(): either the helper's increment comes first (seen here), or the
    // helper sees the withdrawal and never touches the job.
    posted_.store(nullptr, std::memory_order_seq_cst);
    for (unsigned spins = 0; active_.load(std::memory_order_seq_cst) != 0; ++spins)
      if (spins < 64) cpu_relax(); else std::this_thread::yield();  // a helper finishes one strip
  }

  // A waiting compute thread: takes strips of the posted job, if there is one. One load when there is none.
  void assist() noexcept {
    if (posted_.load(std::memory_order_relaxed) == nullptr) return;
    active_.fetch_add(1, std::memory_order_seq_cst);
    if (StripJob* job = posted_.load(std::memory_order_seq_cst))
      if (const std::size_t taken = claim(*job); taken > 0) helped_.fetch_add(taken, std::memory_order_relaxed);
    active_.fetch_sub(1, std::memory_order_release);  // the strips written before the runner reads them
  }

  // Counts for statistics(), any thread: strips of every job run so far, and those a waiting thread ran.
  std::uint64_t strips() const noexcept { return strips_.load(std::memory_order_relaxed); }
  std::uint64_t strips_by_waiters() const noexcept { return helped_.load(std::memory_order_relaxed); }

 private:
  // Runs strips until none is left; returns how many this thread ran.
  static std::size_t claim(StripJob& job) noexcept {
    std::size_t taken = 0;
    for (std::size_t strip; (strip = job.next.fetch_add(1, std::memory_order_relaxed)) < job.strips; ++taken)
      job.run(job.context, strip);
    return taken;
  }

  // On lines of their own: posted_ is read by every waiter's spin, written twice per shared job.
  alignas(kCacheLineSize) std::atomic<StripJob*> posted_{nullptr};
  alignas(kCacheLineSize) std::atomic<int> active_{0};
  alignas(kCacheLineSize) std::atomic<std::uint64_t> strips_{0};  // written by the runner only
  std::atomic<std::uint64_t> helped_{0};             // once per assist() that ran strips
};

}  // namespace proxy
