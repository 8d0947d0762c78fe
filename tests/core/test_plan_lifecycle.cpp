// Plan lifecycle on real MPI ranks: the last handle releases a plan's requests on the proxy (also while its
// epoch is still running, with or without a ticket held), a plan starts only on the ProxyThread that
// committed it, and a process has one live ProxyThread at a time.
#include <gtest/gtest.h>
#include <mpi.h>

#include <chrono>
#include <optional>
#include <string>
#include <thread>

#include "proxy/core.hpp"

namespace {

// A ring exchange of one int: send my value to the next rank, receive the previous rank's.
proxy::PlanSpec ring(const std::string& name, int rank, int size, int* out, int* in) {
  proxy::PlanSpec spec(name);
  spec.send((rank + 1) % size, 11, out, 1, MPI_INT).recv((rank + size - 1) % size, 11, in, 1, MPI_INT);
  return spec;
}

TEST(PlanLifecycle, TheLastHandleReleasesThePlanAndItLeavesTheStatistics) {
  proxy::ProxyThread proxy;
  const int rank = proxy.rank(), size = proxy.size();
  int out = 0, in = -1;
  proxy::Plan kept = proxy.commit(ring("kept", rank, size, &out, &in));
  for (int round = 1; round <= 200; ++round) {
    proxy::Plan plan = proxy.commit(ring("round-" + std::to_string(round), rank, size, &out, &in));
    proxy::Plan copy = plan;  // copies share the plan: only the last one releases it
    plan = proxy::Plan{};
    out = 1000 * round + rank;
    proxy.wait(proxy.start(copy));
    ASSERT_EQ(in, 1000 * round + (rank + size - 1) % size) << "round " << round;
  }
  const auto stats = proxy.statistics();
  ASSERT_EQ(stats.plans.size(), 1u) << "released plans must leave the proxy's list";
  EXPECT_EQ(stats.plans[0].name, "kept");
  EXPECT_EQ(stats.plans[0].starts, 0u);
}

TEST(PlanLifecycle, ReleasingARunningPlanWaitsForItsEpoch) {
  proxy::ProxyThread proxy;
  const int rank = proxy.rank(), size = proxy.size();
  int out = 0, in = -1;
  for (int round = 1; round <= 50; ++round) {
    std::optional<proxy::Plan> plan = proxy.commit(ring("short-lived", rank, size, &out, &in));
    out = 10 * round + rank;
    const proxy::Ticket ticket = proxy.start(*plan);
    plan.reset();  // the last handle goes while the epoch may still be in flight
    proxy.wait(ticket);
    ASSERT_EQ(in, 10 * round + (rank + size - 1) % size) << "round " << round;
  }
  EXPECT_TRUE(proxy.statistics().plans.empty());
}

// A plan whose handle and ticket are both gone while its epoch runs: the proxy keeps it alive until the
// epoch ends (a plan begun by its starter holds no reference of the proxy's own until its release hands
// one over, progress_loop.hpp). Its receive cannot complete before every rank has dropped both, since the
// sends go out only after the barrier. `dropped_on_the_proxy`: the last handle goes in a closure, so the
// release runs on the loop's thread rather than as a command. Under each strategy: only a cooperative start
// (on the starting thread) skips the proxy's own reference.
void orphan_epoch_completes(proxy::ProgressStrategy strategy, bool dropped_on_the_proxy) {
  SCOPED_TRACE(std::string(to_string(strategy)) + (dropped_on_the_proxy ? ", dropped on the proxy" : ""));
  proxy::Config config;
  config.progress = strategy;
  proxy::ProxyThread proxy(MPI_COMM_WORLD, config);
  ASSERT_EQ(proxy.progress_strategy(), strategy);
  const int rank = proxy.rank(), size = proxy.size();
  int out = 70 + rank, in = -1;
  std::optional<proxy::Plan> receive;
  {
    proxy::PlanSpec spec("orphan");
    spec.recv((rank + size - 1) % size, 12, &in, 1, MPI_INT);
    receive = proxy.commit(spec);
  }
  proxy::PlanSpec send_spec("send");
  send_spec.send((rank + 1) % size, 12, &out, 1, MPI_INT);
  const proxy::Plan send = proxy.commit(send_spec);
  proxy.start(*receive);  // the ticket is dropped at once
  if (dropped_on_the_proxy)
    proxy.wait(proxy.submit([&receive](proxy::ClosureContext&) { receive.reset(); }));
  else
    receive.reset();
  EXPECT_EQ(proxy.statistics().plans.size(), 1u) << "the orphan has left the registry";
  proxy.call([&] { MPI_Barrier(proxy.comm()); });
  proxy.wait(proxy.start(send));
  // Nothing to wait on: look from the proxy (the read is ordered after its writes) until the value is in.
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(120);
  int seen = -1;
  while ((seen = proxy.call([&] { return in; })) != 70 + (rank + size - 1) % size &&
         std::chrono::steady_clock::now() < deadline)
    std::this_thread::sleep_for(std::chrono::milliseconds(1));
  EXPECT_EQ(seen, 70 + (rank + size - 1) % size);
  EXPECT_EQ(proxy.call([] { return 7; }), 7);  // and the proxy goes on
}

constexpr proxy::ProgressStrategy kStrategies[] = {
    proxy::ProgressStrategy::cooperative, proxy::ProgressStrategy::dedicated, proxy::ProgressStrategy::polling};

TEST(PlanLifecycle, AnEpochWhoseHandleAndTicketWentFinishes) {
  for (const auto strategy : kStrategies) orphan_epoch_completes(strategy, false);
}

TEST(PlanLifecycle, AnEpochWhoseLastHandleWentOnTheProxyThreadFinishes) {
  for (const auto strategy : kStrategies) orphan_epoch_completes(strategy, true);
}

TEST(PlanLifecycle, ALastHandleDroppedOnTheProxyThreadIsReleasedThere) {
  proxy::ProxyThread proxy;
  const int rank = proxy.rank(), size = proxy.size();
  int out = rank, in = -1;
  std::optional<proxy::Plan> plan = proxy.commit(ring("dropped-on-the-proxy", rank, size, &out, &in));
  proxy.wait(proxy.start(*plan));
  EXPECT_EQ(in, (rank + size - 1) % size);
  proxy.wait(proxy.submit([&plan](proxy::ClosureContext&) { plan.reset(); }));
  EXPECT_TRUE(proxy.statistics().plans.empty());
  EXPECT_EQ(proxy.call([] { return 7; }), 7);  // and the proxy goes on
}

TEST(PlanLifecycle, StartingAPlanOnAProxyThreadThatDidNotCommitItIsRefused) {
  int rank = 0, size = 1;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  int out = rank, in = -1;
  proxy::Plan plan;
  {
    proxy::ProxyThread first;
    plan = first.commit(ring("from-the-first", rank, size, &out, &in));
    first.wait(first.start(plan));
  }
  proxy::ProxyThread second;
  try {
    second.start(plan);
    FAIL() << "a plan committed by another ProxyThread was started";
  } catch (const proxy::Error& e) {
    EXPECT_EQ(std::string(e.what()),
              "start: plan 'from-the-first' was committed by another ProxyThread; commit its PlanSpec on this one");
  }
  plan = proxy::Plan{};  // the first proxy is gone: releasing the handle touches nothing
  proxy::Plan again = second.commit(ring("from-the-second", rank, size, &out, &in));
  second.wait(second.start(again));
  EXPECT_EQ(in, (rank + size - 1) % size);
}

TEST(PlanLifecycle, ASecondProxyThreadWhileOneIsAliveIsRefused) {
  proxy::ProxyThread first;
  try {
    proxy::ProxyThread second;
    FAIL() << "two ProxyThreads alive in one process";
  } catch (const proxy::Error& e) {
    EXPECT_EQ(std::string(e.what()),
              "ProxyThread: another ProxyThread is alive in this process; only one thread may call MPI "
              "(MPI_THREAD_SERIALIZED): destroy the first before creating the next");
  }
  // The refused one left the first working.
  EXPECT_EQ(first.call([] { return 42; }), 42);
}

}  // namespace
