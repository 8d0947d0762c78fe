// The thread rules' checks (proxy/detail/thread_rule.hpp), where they are compiled in (PROXY_CHECK_THREAD_RULES:
// the debug, tsan and asan presets; elsewhere these tests skip): each guarded function reports a second
// holder, made deterministic by re-entering on one thread: a section entered twice, MpscQueue::try_pop
// called again from inside itself (the popped item's move), the progress loop's pass started from inside a
// pass (an operation's start). White-box: the loop's private headers.
#include <gtest/gtest.h>

#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "progress_loop.hpp"
#include "proxy/config.hpp"
#include "proxy/detail/queue.hpp"
#include "proxy/detail/thread_rule.hpp"

namespace {

using proxy::detail::ExclusiveSection;

std::vector<std::string>& broken() {
  static std::vector<std::string> rules;
  return rules;
}

// Records instead of aborting, for the duration of a test.
class RecordBrokenRules : public ::testing::Test {
 protected:
  void SetUp() override {
    if (!proxy::detail::kCheckThreadRules) GTEST_SKIP() << "thread rules are not checked in this build";
    broken().clear();
    previous_ = proxy::detail::set_thread_rule_handler([](const char* rule) { broken().emplace_back(rule); });
  }
  void TearDown() override {
    if (proxy::detail::kCheckThreadRules) proxy::detail::set_thread_rule_handler(previous_);
  }

 private:
  proxy::detail::ThreadRuleHandler previous_ = nullptr;
};

using ThreadRules = RecordBrokenRules;

TEST_F(ThreadRules, ASecondHolderIsReportedAndTheFirstKeepsTheSection) {
  ExclusiveSection section("the test's rule");
  {
    const ExclusiveSection::Guard first(section);
    { const ExclusiveSection::Guard second(section); }
    EXPECT_EQ(broken(), std::vector<std::string>{"the test's rule"});
    { const ExclusiveSection::Guard third(section); }  // the second's exit did not free the first's hold
    EXPECT_EQ(broken().size(), 2u);
  }
  { const ExclusiveSection::Guard after(section); }  // free again once the first left
  EXPECT_EQ(broken().size(), 2u);
}

// An item whose move assignment pops from the queue it came from: try_pop re-entered by its consumer.
struct Reentrant {
  proxy::MpscQueue<Reentrant>* queue = nullptr;
  Reentrant() = default;
  Reentrant(Reentrant&& other) noexcept : queue(std::exchange(other.queue, nullptr)) {}
  Reentrant& operator=(Reentrant&& other) noexcept {
    queue = std::exchange(other.queue, nullptr);  // the moved-from item pops no more
    if (queue != nullptr) {
      Reentrant inner;
      queue->try_pop(inner);
    }
    return *this;
  }
};

TEST_F(ThreadRules, TheQueueHasOneConsumerAtATime) {
  proxy::MpscQueue<Reentrant> queue(4);
  Reentrant item;
  item.queue = &queue;
  ASSERT_TRUE(queue.try_push(std::move(item)));  // the push's move pops from an empty queue: no rule broken
  Reentrant out;
  EXPECT_TRUE(queue.try_pop(out));
  EXPECT_EQ(broken(), std::vector<std::string>{"MpscQueue::try_pop: one consumer thread at a time"});
}

// Starts a pass of the loop from inside one: what a driver running passes without the token would do.
class PassInsideAPass final : public proxy::Operation {
 public:
  explicit PassInsideAPass(proxy::ProgressLoop& loop) : Operation("nested"), loop_(loop) {}
  void start(std::uint64_t) override { loop_.pass(); }
  bool progress() override { return true; }

 private:
  proxy::ProgressLoop& loop_;
};

TEST_F(ThreadRules, TheProgressLoopRunsOnOneThreadAtATime) {
  proxy::ProxyChannel channel(8);
  proxy::PlanRegistry plans([](std::shared_ptr<proxy::PlanOperation>) {});
  const proxy::Config config;
  proxy::ProgressLoop loop(channel, plans, config);
  proxy::Command command;
  command.epoch = 1;
  command.operation = std::make_shared<PassInsideAPass>(loop);
  ASSERT_TRUE(channel.queue.try_push(std::move(command)));
  loop.pass();
  EXPECT_EQ(broken(), std::vector<std::string>{
                          "the progress loop: one thread at a time runs a pass (the proxy thread, or the progress "
                          "token's holder)"});
}

}  // namespace
