// The help board (proxy/core/src/help_board.hpp): the loop's runner shares the strips of a job with
// threads that wait on tickets. Every strip runs exactly once, run() returns only after the helpers'
// strips are done, and a helper does take strips. std::thread, so that ThreadSanitizer sees the hand-offs.
#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <cstdint>
#include <thread>
#include <vector>

#include "help_board.hpp"

namespace {

// A pool of waiters calling assist() until told to stop.
class Helpers {
 public:
  Helpers(proxy::HelpBoard& board, int count) {
    for (int i = 0; i < count; ++i)
      threads_.emplace_back([this, &board] {
        while (!stop_.load(std::memory_order_acquire)) {
          board.assist();
          std::this_thread::yield();
        }
      });
  }
  ~Helpers() {
    stop_.store(true, std::memory_order_release);
    for (auto& thread : threads_) thread.join();
  }

 private:
  std::atomic<bool> stop_{false};
  std::vector<std::thread> threads_;
};

struct Counted {
  std::vector<int> runs;  // per strip, written by whichever thread runs it (each strip once)
};

TEST(HelpBoard, EveryStripRunsOnceAndAllAreDoneWhenRunReturns) {
  proxy::HelpBoard board;
  Helpers helpers(board, 3);
  std::uint64_t total = 0;
  for (int job_number = 0; job_number < 400; ++job_number) {
    const std::size_t strips = static_cast<std::size_t>(job_number % 7 == 0 ? 0 : job_number % 40);
    Counted counted;
    counted.runs.assign(strips, 0);
    proxy::StripJob job;
    job.run = [](void* context, std::size_t strip) noexcept {
      ++static_cast<Counted*>(context)->runs[strip];
    };
    job.context = &counted;
    job.strips = strips;
    board.run(job);
    // Read right after run(): a helper still inside a strip would show as a 0 (and as a race under TSan).
    for (std::size_t s = 0; s < strips; ++s) ASSERT_EQ(counted.runs[s], 1) << "job " << job_number << " strip " << s;
    total += strips;
    ASSERT_EQ(board.strips(), total) << "job " << job_number;
  }
  EXPECT_LE(board.strips_by_waiters(), total);
}

// Strip 0 waits until strip 1 is done: that can only end if another thread than strip 0's takes strip 1.
TEST(HelpBoard, AWaitingThreadTakesStrips) {
  struct Shared {
    std::atomic<bool> second_done{false};
    std::thread::id ran[2];
    bool waited_out = false;
  } shared;
  proxy::HelpBoard board;
  Helpers helpers(board, 1);
  proxy::StripJob job;
  job.run = [](void* context, std::size_t strip) noexcept {
    auto& s = *static_cast<Shared*>(context);
    s.ran[strip] = std::this_thread::get_id();
    if (strip == 1) {
      s.second_done.store(true, std::memory_order_release);
      return;
    }
    // Generous: the helper may be descheduled on a loaded machine; the failure is the point only if never.
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(120);
    while (!s.second_done.load(std::memory_order_acquire))
      if (std::chrono::steady_clock::now() > deadline) {
        s.waited_out = true;
        return;
      } else {
        std::this_thread::yield();
      }
  };
  job.context = &shared;
  job.strips = 2;
  board.run(job);
  EXPECT_FALSE(shared.waited_out) << "no helper took strip 1 within 120 s";
  EXPECT_NE(shared.ran[0], shared.ran[1]);
  EXPECT_EQ(board.strips(), 2u);
  EXPECT_EQ(board.strips_by_waiters(), 1u);  // one each: strip 0's thread cannot take strip 1
}

// Nothing posted: assist() returns at once and touches nothing.
TEST(HelpBoard, AssistWithNothingPostedDoesNothing) {
  proxy::HelpBoard board;
  board.assist();
  proxy::StripJob job;
  int runs = 0;
  job.run = [](void* context, std::size_t) noexcept { ++*static_cast<int*>(context); };
  job.context = &runs;
  job.strips = 3;
  board.run(job);  // no helper: the runner does all three
  EXPECT_EQ(runs, 3);
  board.assist();
  EXPECT_EQ(runs, 3);
  EXPECT_EQ(board.strips(), 3u);
  EXPECT_EQ(board.strips_by_waiters(), 0u);
}

}  // namespace
