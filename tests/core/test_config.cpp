// Config from the environment, wait-policy parsing, and the Notifier under each policy.
#include <gtest/gtest.h>

#include <atomic>
#include <cstdlib>
#include <thread>

#include "proxy/config.hpp"
#include "proxy/error.hpp"
#include "proxy/detail/notifier.hpp"

#include "env_var.hpp"

namespace {

std::string error_of(const std::function<void()>& fn) {
  try {
    fn();
  } catch (const proxy::Error& e) {
    return e.what();
  }
  return "(no error)";
}

TEST(Config, DefaultsWithoutEnvironment) {
  const auto c = proxy::Config::from_env();
  EXPECT_EQ(c.wait_policy, proxy::WaitPolicy::spin_then_yield);
  EXPECT_EQ(c.wait_timeout, std::chrono::milliseconds(120'000));
  EXPECT_EQ(c.proxy_core, -1);
  EXPECT_TRUE(c.bind);
  EXPECT_EQ(c.queue_capacity, 1024u);
}

TEST(Config, EnvironmentOverridesApi) {
  EnvVar a("PROXY_WAIT_POLICY", "block"), b("PROXY_WAIT_TIMEOUT", "2.5"), c("PROXY_CORE", "3"),
      d("PROXY_BIND", "0"), e("PROXY_QUEUE_CAPACITY", "64"), f("PROXY_SPIN_COUNT", "10"), g("PROXY_TIMINGS", "1");
  proxy::Config api;
  api.wait_policy = proxy::WaitPolicy::spin;
  EXPECT_FALSE(api.timings) << "the loop reads no clock unless asked";
  const auto config = proxy::Config::from_env(api);
  EXPECT_TRUE(config.timings);
  EXPECT_EQ(config.wait_policy, proxy::WaitPolicy::block);
  EXPECT_EQ(config.wait_timeout, std::chrono::milliseconds(2500));
  EXPECT_EQ(config.proxy_core, 3);
  EXPECT_FALSE(config.bind);
  EXPECT_EQ(config.queue_capacity, 64u);
  EXPECT_EQ(config.spin_count, 10);
}

TEST(Config, BadEnvironmentValuesAreNamed) {
  {
    EnvVar v("PROXY_WAIT_POLICY", "sleepy");
    EXPECT_EQ(error_of([] { proxy::Config::from_env(); }),
              "PROXY_WAIT_POLICY: unknown wait policy 'sleepy' (expected spin, spin-then-yield or block)");
  }
  {
    EnvVar v("PROXY_WAIT_TIMEOUT", "-1");
    EXPECT_EQ(error_of([] { proxy::Config::from_env(); }), "PROXY_WAIT_TIMEOUT='-1' is not a number of seconds from 0.01 to 1e6");
  }
  {
    EnvVar v("PROXY_QUEUE_CAPACITY", "100");
    EXPECT_EQ(error_of([] { proxy::Config::from_env(); }), "PROXY_QUEUE_CAPACITY='100' is not a power of two from 2 to 1048576");
  }
  {
    EnvVar v("PROXY_CORE", "x1");
    EXPECT_EQ(error_of([] { proxy::Config::from_env(); }), "PROXY_CORE='x1' is not an integer from -1 to 65535");
  }
}

// Settings given through the API are held to the PROXY_* variables' bounds: a wait timeout of
// milliseconds::max() overflowed every deadline (each wait timed out at once), a queue of 2^62 slots crashed.
TEST(Config, ApiValuesOutsideTheDocumentedBoundsAreNamed) {
  const auto refusal = [](auto change) {
    proxy::Config config;
    change(config);
    return error_of([&] { proxy::check_bounds(config, "ProxyThread"); });
  };
  EXPECT_EQ(refusal([](proxy::Config&) {}), "(no error)");
  EXPECT_EQ(refusal([](proxy::Config& c) { c.wait_timeout = std::chrono::milliseconds(10); }), "(no error)");
  EXPECT_EQ(refusal([](proxy::Config& c) { c.wait_timeout = std::chrono::milliseconds(1'000'000'000); }),
            "(no error)");
  EXPECT_EQ(refusal([](proxy::Config& c) { c.wait_timeout = std::chrono::milliseconds::max(); }),
            "ProxyThread: Config::wait_timeout is 9223372036854775807 ms, outside [10 ms, 1e6 s]");
  EXPECT_EQ(refusal([](proxy::Config& c) { c.wait_timeout = std::chrono::milliseconds(1'000'000'001); }),
            "ProxyThread: Config::wait_timeout is 1000000001 ms, outside [10 ms, 1e6 s]");
  EXPECT_EQ(refusal([](proxy::Config& c) { c.wait_timeout = std::chrono::milliseconds(9); }),
            "ProxyThread: Config::wait_timeout is 9 ms, outside [10 ms, 1e6 s]");
  EXPECT_EQ(refusal([](proxy::Config& c) { c.wait_timeout = std::chrono::milliseconds(-5); }),
            "ProxyThread: Config::wait_timeout is -5 ms, outside [10 ms, 1e6 s]");
  EXPECT_EQ(refusal([](proxy::Config& c) { c.spin_count = -1; }),
            "ProxyThread: Config::spin_count is -1, outside [0, 1000000000]");
  EXPECT_EQ(refusal([](proxy::Config& c) { c.proxy_core = 65536; }),
            "ProxyThread: Config::proxy_core is 65536, outside [-1, 65535]");
  EXPECT_EQ(refusal([](proxy::Config& c) { c.queue_capacity = std::size_t{1} << 62; }),
            "ProxyThread: Config::queue_capacity is 4611686018427387904, not a power of two in [2, 1048576]");
  EXPECT_EQ(refusal([](proxy::Config& c) { c.queue_capacity = 3; }),
            "ProxyThread: Config::queue_capacity is 3, not a power of two in [2, 1048576]");
  EXPECT_EQ(refusal([](proxy::Config& c) { c.queue_capacity = 1; }),
            "ProxyThread: Config::queue_capacity is 1, not a power of two in [2, 1048576]");
  EXPECT_EQ(refusal([](proxy::Config& c) { c.queue_capacity = std::size_t{1} << 20; }), "(no error)");
}

TEST(WaitPolicy, ParsesAndPrintsEachPolicy) {
  for (auto p : {proxy::WaitPolicy::spin, proxy::WaitPolicy::spin_then_yield, proxy::WaitPolicy::block})
    EXPECT_EQ(proxy::parse_wait_policy(proxy::to_string(p)), p);
  EXPECT_EQ(proxy::parse_wait_policy("spin_then_yield"), proxy::WaitPolicy::spin_then_yield);
}

class NotifierPolicy : public testing::TestWithParam<proxy::WaitPolicy> {};

TEST_P(NotifierPolicy, WaiterSeesThePublishedValue) {
  proxy::Notifier notifier;
  for (int round = 0; round < 200; ++round) {
    std::atomic<int> value{0};
    std::thread publisher([&] {
      std::this_thread::yield();
      value.store(round + 1, std::memory_order_release);
      notifier.notify_all();
    });
    const bool ok = notifier.wait([&] { return value.load(std::memory_order_acquire) == round + 1; }, GetParam(),
                                  proxy::Notifier::Clock::now() + std::chrono::seconds(30), 100);
    publisher.join();
    ASSERT_TRUE(ok) << "round " << round;
  }
}

TEST_P(NotifierPolicy, ExpiredDeadlineReturnsFalse) {
  proxy::Notifier notifier;
  const bool ok = notifier.wait([] { return false; }, GetParam(),
                                proxy::Notifier::Clock::now() + std::chrono::milliseconds(20), 100);
  EXPECT_FALSE(ok);
}

INSTANTIATE_TEST_SUITE_P(AllPolicies, NotifierPolicy,
                         testing::Values(proxy::WaitPolicy::spin, proxy::WaitPolicy::spin_then_yield,
                                         proxy::WaitPolicy::block),
                         [](const auto& info) {
                           std::string name(proxy::to_string(info.param));
                           std::replace(name.begin(), name.end(), '-', '_');
                           return name;
                         });

}  // namespace
