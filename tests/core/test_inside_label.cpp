// ProxyChannel::inside_label (proxy/core/src/progress_loop.hpp): a report on another thread (the cooperative
// watchdog, the bounded shutdown) reads the label of the operation the loop is inside while the loop leaves it
// and its owner frees it. The reader gets the label whole or nothing, never a freed operation's: the loop's
// leave_inside waits for it. std::thread, so that ThreadSanitizer and AddressSanitizer see every hand-off (the
// read of a freed operation was a heap-use-after-free, found by a TSan campaign: a watchdog formatting its line
// while a callback returned and its ticket was dropped).
#include <gtest/gtest.h>

#include <atomic>
#include <cstdint>
#include <memory>
#include <string>
#include <thread>

#include "progress_loop.hpp"

namespace {

class Named final : public proxy::Operation {
 public:
  explicit Named(std::string name) : Operation(std::move(name)) {}
  void start(std::uint64_t) override {}
  bool progress() override { return true; }
};

TEST(InsideLabel, AReaderGetsTheWholeLabelOrNothingWhileTheLoopLeavesAndFrees) {
  proxy::ProxyChannel channel(16);
  std::atomic<const proxy::Operation*> published{nullptr};  // what the reader was told to look for
  std::atomic<bool> stop{false};
  std::atomic<int> whole{0}, nothing{0}, wrong{0};
  std::thread reader([&] {
    while (!stop.load(std::memory_order_acquire)) {
      const proxy::Operation* expected = published.load(std::memory_order_acquire);
      if (expected == nullptr) continue;
      const std::string label = channel.inside_label(expected);
      if (label.empty()) ++nothing;
      else if (label.rfind("operation 'closure number ", 0) == 0) ++whole;
      else ++wrong;
    }
  });
  for (int i = 0; i < 20000; ++i) {
    auto op = std::make_unique<Named>("closure number " + std::to_string(i) + std::string(64, 'x'));
    channel.inside.store(op.get(), std::memory_order_release);  // as ProgressLoop::start
    published.store(op.get(), std::memory_order_release);
    if (i % 64 == 0) std::this_thread::yield();  // let the reader in now and then
    channel.leave_inside();
    op.reset();  // the owner frees it at once: a reader still inside would read freed memory
  }
  stop.store(true, std::memory_order_release);
  reader.join();
  EXPECT_EQ(wrong.load(), 0);
  EXPECT_GT(whole.load() + nothing.load(), 0);
}

TEST(InsideLabel, NothingWhenTheLoopIsInsideAnotherOperationOrNone) {
  proxy::ProxyChannel channel(16);
  Named first("first"), second("second");
  EXPECT_EQ(channel.inside_label(&first), "");
  channel.inside.store(&second, std::memory_order_release);
  EXPECT_EQ(channel.inside_label(&first), "");
  EXPECT_EQ(channel.inside_label(&second), "operation 'second'");
  channel.leave_inside();
  EXPECT_EQ(channel.inside_label(&second), "");
}

}  // namespace
