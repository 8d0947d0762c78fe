// Completion delivered to code: then() callbacks on the proxy thread, and the OpenMP bridge (a task with
// detach(event) fulfilled when its communication completes), on 1-4 ranks.
#include <gtest/gtest.h>
#include <mpi.h>
#include <omp.h>

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <memory>
#include <mutex>
#include <stdexcept>
#include <string>
#include <vector>

#include "mpi_test_util.hpp"
#include "proxy/core.hpp"
#include "proxy/openmp_tasks.hpp"

namespace {

using proxy::test_util::world_rank;
using proxy::test_util::world_size;

struct Ring {
  int out = 0, in = -1;
  proxy::PlanSpec spec(const std::string& name) {
    const int rank = world_rank(), size = world_size();
    proxy::PlanSpec s(name);
    s.send((rank + 1) % size, 0, &out, 1, MPI_INT).recv((rank + size - 1) % size, 0, &in, 1, MPI_INT);
    return s;
  }
  int left() const { return (world_rank() + world_size() - 1) % world_size(); }
};

TEST(Completion, ThenRunsAfterTheEpochAndSeesItsData) {
  Ring ring;
  proxy::ProxyThread proxy(MPI_COMM_WORLD);
  const proxy::Plan plan = proxy.commit(ring.spec("then"));
  for (int epoch = 1; epoch <= 5; ++epoch) {
    ring.out = epoch * 10 + world_rank();
    int seen = -1;  // written on the proxy thread, read here after waiting on the callback's ticket
    const proxy::Ticket ticket = proxy.start(plan);
    const proxy::Ticket after = proxy.then(ticket, [&] { seen = ring.in; });
    proxy.wait(after);
    EXPECT_TRUE(proxy.test(ticket));
    EXPECT_EQ(seen, epoch * 10 + ring.left());
  }
}

// Cooperative progress with nobody stepping: the callbacks' waiter sleeps on its own condition variable,
// as a detached task's thread sleeps in libgomp, so only the proxy thread (polling while a callback is
// active) moves the epochs and runs the callbacks. Under ThreadSanitizer this checks that hand-off.
TEST(Completion, CallbacksNobodyWaitsOnRunUnderCooperativeProgress) {
  Ring ring;
  proxy::Config config = proxy::Config::from_env();
  config.progress = proxy::ProgressStrategy::cooperative;
  config.wait_timeout = std::chrono::milliseconds(120'000);
  proxy::ProxyThread proxy(MPI_COMM_WORLD, config);
  const proxy::Plan plan = proxy.commit(ring.spec("unattended"));
  std::mutex mutex;
  std::condition_variable ran;
  for (int epoch = 1; epoch <= 20; ++epoch) {
    ring.out = epoch * 10 + world_rank();
    int seen = -1;
    bool done = false;
    const proxy::Ticket ticket = proxy.start(plan);
    proxy.then(ticket, [&] {
      std::lock_guard<std::mutex> lock(mutex);
      seen = ring.in;
      done = true;
      ran.notify_one();
    });
    std::unique_lock<std::mutex> lock(mutex);
    ASSERT_TRUE(ran.wait_for(lock, std::chrono::seconds(120), [&] { return done; })) << "epoch " << epoch;
    EXPECT_EQ(seen, epoch * 10 + ring.left());
  }
}

// An operation that completes once released: an epoch that stays in flight for as long as a test needs.
class Held final : public proxy::Operation {
 public:
  Held() : proxy::Operation("held") {}
  void start(std::uint64_t) override {}
  bool progress() override { return released.load(); }
  std::atomic<bool> released{false};
};

// A callback that waits for the proxy would wait for itself (the proxy runs it): the wait fails at once
// naming the ticket, instead of spinning to the wait timeout (120 s here), under both strategies.
TEST(Completion, AWaitInsideACallbackFailsAtOnce) {
  for (const auto strategy : {proxy::ProgressStrategy::dedicated, proxy::ProgressStrategy::cooperative,
                               proxy::ProgressStrategy::polling}) {
    SCOPED_TRACE(std::string(proxy::to_string(strategy)));
    Ring ring;
    proxy::Config config = proxy::Config::from_env();
    config.progress = strategy;
    config.wait_timeout = std::chrono::milliseconds(120'000);
    proxy::ProxyThread proxy(MPI_COMM_WORLD, config);
    const proxy::Plan plan = proxy.commit(ring.spec("waits-inside"));
    const auto held = std::make_shared<Held>();
    const proxy::Ticket in_flight = proxy.post(held);
    std::string refused;
    const proxy::Ticket after = proxy.then(proxy.start(plan), [&] {
      try {
        proxy.wait(in_flight);
      } catch (const proxy::Error& e) {
        refused = e.what();
      }
    });
    proxy.wait(after);
    EXPECT_EQ(refused, "wait on operation 'held' epoch 1 from code the proxy runs (a then() callback, a closure "
                       "or an operation): it would wait for itself; start work there and wait on its ticket outside");
    // ... and so is a wait there on an epoch that has completed: refused whatever the timing (it returned).
    const proxy::Ticket completed = proxy.start(plan);
    proxy.wait(completed);
    refused.clear();
    proxy.wait(proxy.then(proxy.start(plan), [&] {
      try {
        proxy.wait(completed);
      } catch (const proxy::Error& e) {
        refused = e.what();
      }
    }));
    EXPECT_EQ(refused, "wait on plan 'waits-inside' epoch 2 from code the proxy runs (a then() callback, a closure "
                       "or an operation): it would wait for itself; start work there and wait on its ticket outside");
    held->released = true;
    proxy.wait(in_flight);
  }
}

TEST(Completion, ThenOnAnAlreadyCompletedEpochRunsPromptly) {
  Ring ring;
  proxy::ProxyThread proxy(MPI_COMM_WORLD);
  const proxy::Plan plan = proxy.commit(ring.spec("done-already"));
  const proxy::Ticket ticket = proxy.start(plan);
  proxy.wait(ticket);
  std::atomic<int> runs{0};
  proxy.wait(proxy.then(ticket, [&] { runs.fetch_add(1); }));
  EXPECT_EQ(runs.load(), 1);
}

TEST(Completion, ACallbackThatThrowsIsReportedNamingPlanAndEpoch) {
  Ring ring;
  proxy::ProxyThread proxy(MPI_COMM_WORLD);
  const proxy::Plan plan = proxy.commit(ring.spec("cb"));
  proxy.wait(proxy.start(plan));
  const proxy::Ticket second = proxy.start(plan);
  const proxy::Ticket after = proxy.then(second, [] { throw std::runtime_error("boom"); });
  try {
    proxy.wait(after);
    FAIL() << "the callback's exception was lost";
  } catch (const proxy::CommError& e) {
    EXPECT_EQ(std::string(e.what()), "plan 'cb' epoch 2: completion callback threw: boom");
    EXPECT_EQ(e.epoch(), 2u);
  }
  proxy.wait(second);  // the plan itself is unharmed and runs on
  proxy.wait(proxy.start(plan));
  EXPECT_THROW(proxy.then(second, nullptr), proxy::Error);
}

TEST(Completion, ACallbackWhoseEpochNeverCompletesRunsAndFailsAtTheWaitTimeout) {
  proxy::Config config = proxy::Config::from_env();
  config.wait_timeout = std::chrono::milliseconds(300);  // the failure is the point
  int never = 0;
  const int left = (world_rank() + world_size() - 1) % world_size();
  std::atomic<int> runs{0};
  proxy::ProxyThread proxy(MPI_COMM_WORLD, config);
  proxy::PlanSpec spec("never");
  spec.recv(left, 7, &never, 1, MPI_INT);  // nobody sends tag 7: cancelled at the proxy's shutdown
  const proxy::Plan plan = proxy.commit(spec);
  const proxy::Ticket after = proxy.then(proxy.start(plan), [&] { runs.fetch_add(1); });
  try {
    proxy.wait(after, std::chrono::milliseconds(600'000));  // the callback's own timeout ends it
    FAIL() << "a callback whose epoch never completed succeeded";
  } catch (const proxy::TimeoutError& e) {
    EXPECT_EQ(std::string(e.what()), "plan 'never' epoch 1, peer rank " + std::to_string(left) +
                                         ": wait timed out after 0.3 s on rank " + std::to_string(world_rank()) +
                                         " (completion callback); outstanding: recv from rank " +
                                         std::to_string(left) + " tag 7 (4 bytes)");
  }
  EXPECT_EQ(runs.load(), 1);  // fn ran (an OpenMP event it fulfils must not leave its task graph waiting)
}

// Under both strategies: cooperative progress has no compute thread stepping here (they sleep in libgomp),
// so its proxy thread polls while a callback is active instead of backing up once a millisecond.
TEST(Completion, DetachedTasksAreFulfilledWhenTheirCommunicationCompletes) {
  for (const auto strategy : {proxy::ProgressStrategy::dedicated, proxy::ProgressStrategy::cooperative,
                               proxy::ProgressStrategy::polling}) {
    SCOPED_TRACE(std::string(proxy::to_string(strategy)));
    Ring ring;
    proxy::Config config = proxy::Config::from_env();
    config.progress = strategy;
    proxy::ProxyThread proxy(MPI_COMM_WORLD, config);
    ASSERT_EQ(proxy.progress_strategy(), strategy);
    const proxy::Plan plan = proxy.commit(ring.spec("tasks"));
    std::vector<int> received;
    constexpr int kEpochs = 20;
#pragma omp parallel num_threads(2)
#pragma omp single
    for (int epoch = 1; epoch <= kEpochs; ++epoch) {
      // out -> plan -> in -> record: a chain of task dependencies; nobody calls wait().
#pragma omp task depend(out: ring.out)
      ring.out = epoch * 100 + world_rank();
      omp_event_handle_t arrived;
#pragma omp task detach(arrived) depend(in: ring.out) depend(out: ring.in) shared(proxy, plan)
      proxy::fulfill_when_complete(proxy, proxy.start(plan), arrived);
#pragma omp task depend(in: ring.in) depend(inout: received) shared(received)
      received.push_back(ring.in);
    }
    ASSERT_EQ(received.size(), static_cast<std::size_t>(kEpochs));
    for (int epoch = 1; epoch <= kEpochs; ++epoch) EXPECT_EQ(received[epoch - 1], epoch * 100 + ring.left());
  }
}

}  // namespace
