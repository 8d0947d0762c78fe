// The cooperative progress strategy on real ranks (run on 2, 3 and 4): exchanger threads that start and
// wait (or poll) their own plans, compute threads that call progress points, and the sleeping proxy all
// race for the progress token; every exchange must arrive intact. The polling strategy, whose proxy thread
// sleeps between phases, under the same load. Built into the ThreadSanitizer preset.
#include <gtest/gtest.h>
#include <mpi.h>

#include <atomic>
#include <chrono>
#include <string>
#include <thread>
#include <vector>

#include "mpi_test_util.hpp"
#include "proxy/core.hpp"

namespace {

using proxy::test_util::world_rank;
using proxy::test_util::world_size;

constexpr int kExchangers = 3;
constexpr int kIterations = 200;
constexpr int kCount = 64;  // ints per message

int value(int sender, int thread, int iteration, int i) { return ((sender * 8 + thread) * 1000 + iteration) * kCount + i; }

proxy::Config config_with(proxy::ProgressStrategy strategy) {
  proxy::Config config;
  config.progress = strategy;
  config.wait_timeout = std::chrono::milliseconds(120'000);
  return config;
}

// One ring exchange per thread: send to the right neighbour, receive from the left one, tag = thread.
struct Ring {
  std::vector<int> send = std::vector<int>(kCount);
  std::vector<int> recv = std::vector<int>(kCount);
  proxy::Plan plan;

  Ring(proxy::ProxyThread& proxy, int thread) {
    const int right = (world_rank() + 1) % world_size();
    const int left = (world_rank() + world_size() - 1) % world_size();
    proxy::PlanSpec spec("ring-" + std::to_string(thread));
    spec.send(right, thread, send.data(), kCount, MPI_INT).recv(left, thread, recv.data(), kCount, MPI_INT);
    plan = proxy.commit(spec);
  }
};

// Runs kExchangers threads through kIterations exchanges each, with `computers` threads calling
// progress points meanwhile; returns the number of wrong values this rank received.
long run_exchanges(proxy::ProxyThread& proxy, int computers) {
  std::vector<Ring> rings;
  rings.reserve(kExchangers);
  for (int t = 0; t < kExchangers; ++t) rings.emplace_back(proxy, t);
  const int left = (world_rank() + world_size() - 1) % world_size();
  std::atomic<long> wrong{0};
  std::atomic<int> exchangers_left{kExchangers};
  std::vector<std::thread> threads;
  for (int t = 0; t < kExchangers; ++t) {
    threads.emplace_back([&, t] {
      Ring& ring = rings[static_cast<std::size_t>(t)];
      for (int it = 0; it < kIterations; ++it) {
        for (int i = 0; i < kCount; ++i) ring.send[static_cast<std::size_t>(i)] = value(world_rank(), t, it, i);
        const proxy::Ticket ticket = proxy.start(ring.plan);
        for (int k = 0; k < 3; ++k) proxy.progress_point();  // a "kernel" between chunks
        if (it % 3 == 0) {
          while (!proxy.test(ticket)) std::this_thread::yield();  // polling alone must get there too
        } else {
          proxy.wait(ticket);
        }
        for (int i = 0; i < kCount; ++i)
          if (ring.recv[static_cast<std::size_t>(i)] != value(left, t, it, i)) wrong.fetch_add(1);
      }
      exchangers_left.fetch_sub(1);
    });
  }
  for (int c = 0; c < computers; ++c) {
    threads.emplace_back([&] {
      volatile double sink = 0.0;
      while (exchangers_left.load() > 0) {
        for (int i = 0; i < 200; ++i) sink = sink + i * 0.5;  // a chunk of work
        proxy.progress_point();
      }
    });
  }
  for (auto& thread : threads) thread.join();
  return wrong.load();
}

long sum_over_ranks(proxy::ProxyThread& proxy, long mine) {
  long total = 0;
  proxy.call([&] { MPI_Allreduce(&mine, &total, 1, MPI_LONG, MPI_SUM, proxy.comm()); });
  return total;
}

TEST(CooperativeProgress, ComputeThreadsWaitersAndTheProxyRaceForTheToken) {
  proxy::ProxyThread proxy(MPI_COMM_WORLD, config_with(proxy::ProgressStrategy::cooperative));
  ASSERT_EQ(proxy.progress_strategy(), proxy::ProgressStrategy::cooperative);
  EXPECT_EQ(proxy.bound_core(), -1);  // a cooperative proxy sleeps unbound
  const long wrong = run_exchanges(proxy, 2);
  EXPECT_EQ(wrong, 0);
  EXPECT_EQ(sum_over_ranks(proxy, wrong), 0);  // a closure run by whichever thread holds the token
  // Every start went through the queue and was drained by some token holder.
  EXPECT_GE(proxy.statistics().commands, static_cast<std::uint64_t>(kExchangers) * kIterations);
}

TEST(CooperativeProgress, ThePlacementChoosesTheStrategy) {
  // Every rank of this test shares the machine's cores with the others, so with auto the proxy's core is
  // dedicated only with a core to spare per rank; either way the exchanges arrive, and the strategy
  // follows choose_progress.
  const proxy::Placement placement = proxy::test_util::environment().placement(0, true);
  proxy::ProxyThread proxy(MPI_COMM_WORLD, placement, config_with(proxy::ProgressStrategy::automatic));
  EXPECT_EQ(proxy.progress_strategy(), proxy::choose_progress(proxy::ProgressStrategy::automatic, placement));
  EXPECT_EQ(sum_over_ranks(proxy, run_exchanges(proxy, 1)), 0);
}

TEST(CooperativeProgress, DedicatedProgressPointsAreHarmless) {
  proxy::ProxyThread proxy(MPI_COMM_WORLD, config_with(proxy::ProgressStrategy::dedicated));
  ASSERT_EQ(proxy.progress_strategy(), proxy::ProgressStrategy::dedicated);
  EXPECT_EQ(sum_over_ranks(proxy, run_exchanges(proxy, 1)), 0);
}

// Polling: the proxy thread sleeps whenever nothing is queued or in flight and spins while work is; the
// exchanges arrive, also the first after a quiet spell (the wake-up path), and progress points never have
// anything to do (the proxy thread progresses alone).
TEST(PollingProgress, SleepsBetweenPhasesAndDeliversEveryExchange) {
  proxy::ProxyThread proxy(MPI_COMM_WORLD, config_with(proxy::ProgressStrategy::polling));
  ASSERT_EQ(proxy.progress_strategy(), proxy::ProgressStrategy::polling);
  EXPECT_EQ(run_exchanges(proxy, 1), 0);
  EXPECT_FALSE(proxy.needs_progress());
  std::this_thread::sleep_for(std::chrono::milliseconds(200));  // long enough for the proxy to fall asleep
  EXPECT_EQ(sum_over_ranks(proxy, run_exchanges(proxy, 0)), 0);
}

TEST(CooperativeProgress, ShutdownDrainsWorkNobodyWaitedFor) {
  // Started and never waited on: the destructor's stop makes the sleeping proxy finish it, under both
  // strategies whose proxy thread sleeps.
  for (const auto strategy : {proxy::ProgressStrategy::cooperative, proxy::ProgressStrategy::polling}) {
    SCOPED_TRACE(std::string(proxy::to_string(strategy)));
    std::vector<int> send(kCount, world_rank()), recv(kCount, -1);
    {
      proxy::ProxyThread proxy(MPI_COMM_WORLD, config_with(strategy));
      const int right = (world_rank() + 1) % world_size();
      const int left = (world_rank() + world_size() - 1) % world_size();
      proxy::PlanSpec spec("unwaited");
      spec.send(right, 7, send.data(), kCount, MPI_INT).recv(left, 7, recv.data(), kCount, MPI_INT);
      proxy::Plan plan = proxy.commit(spec);
      proxy.start(plan);
    }
    EXPECT_EQ(recv[0], (world_rank() + world_size() - 1) % world_size());
  }
}

// A ring exchange whose send is held until its part is marked ready 30 ms after the proxy began the epoch,
// so that every epoch takes at least 30 ms on the proxy's clock. The plan lives as long as the ring
// (statistics() lists live plans only).
constexpr int kHeldEpochs = 3;
struct HeldRing {
  explicit HeldRing(proxy::ProxyThread& proxy) : proxy(proxy) {
    const int right = (world_rank() + 1) % world_size();
    proxy::PlanSpec spec("held");
    spec.parts(1).send_when_ready({0}, right, 9, &out, 1, MPI_INT).recv(left, 9, &in, 1, MPI_INT);
    plan = proxy.commit(spec);
  }
  HeldRing(const HeldRing&) = delete;
  HeldRing& operator=(const HeldRing&) = delete;

  // Runs kHeldEpochs epochs; returns the seconds they took on this thread.
  double run() {
    const auto begun = std::chrono::steady_clock::now();
    for (int epoch = 0; epoch < kHeldEpochs; ++epoch) {
      const proxy::Ticket ticket = proxy.start(plan);
      // The start may still be queued (dedicated, polling): a call is drained after it, so once the call
      // returns the proxy has begun the epoch and timed its start. Sleeping from start() alone let a late
      // proxy record 29 ms (CI, ThreadSanitizer, 3 ranks on 2 cores).
      proxy.call([] {});
      std::this_thread::sleep_for(std::chrono::milliseconds(30));
      proxy.ready(ticket, 0);
      proxy.wait(ticket);
    }
    EXPECT_EQ(in, left);
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - begun).count();
  }

  proxy::ProxyThread& proxy;
  const int left = (world_rank() + world_size() - 1) % world_size();
  int out = world_rank(), in = -1;
  proxy::Plan plan;
};

TEST(ProxyStatistics, EpochTimesAndBusyTimeAreSecondsUnderEveryStrategy) {
  // With Config::timings: every epoch took at least 30 ms and no more than the whole run (the loop times
  // epochs in its own ticks; statistics() turns them into seconds).
  for (const auto strategy :
       {proxy::ProgressStrategy::dedicated, proxy::ProgressStrategy::cooperative, proxy::ProgressStrategy::polling}) {
    SCOPED_TRACE(std::string(proxy::to_string(strategy)));
    proxy::Config config = config_with(strategy);
    config.timings = true;
    proxy::ProxyThread proxy(MPI_COMM_WORLD, config);
    HeldRing ring(proxy);
    const double elapsed = ring.run();
    const proxy::ProxyStatistics stats = proxy.statistics();
    EXPECT_TRUE(stats.timed);
    ASSERT_EQ(stats.plans.size(), 1u);
    EXPECT_EQ(stats.plans[0].starts, static_cast<std::uint64_t>(kHeldEpochs));
    EXPECT_GE(stats.plans[0].max_seconds, 0.029);
    EXPECT_GE(stats.plans[0].total_seconds, kHeldEpochs * 0.029);
    EXPECT_LE(stats.plans[0].max_seconds, stats.plans[0].total_seconds);
    EXPECT_LE(stats.plans[0].total_seconds, elapsed * 1.01);
    EXPECT_GT(stats.busy_fraction, 0.0);
    EXPECT_LE(stats.busy_fraction, 1.01);
    const std::string table = stats.format();
    EXPECT_NE(table.find("%, "), std::string::npos) << table;  // "busy 12.3%, 4 commands"
    EXPECT_EQ(table.find("not timed"), std::string::npos) << table;
    EXPECT_EQ(table.find("times not kept"), std::string::npos) << table;
  }
}

TEST(ProxyStatistics, WithoutTimingsTheCountsAreKeptAndTheTimesSaySo) {
  // The default (the clock costs ~3 % of an 8-byte round trip): starts and bytes counted, no times, and the
  // table says how to get them rather than printing zeros.
  for (const auto strategy :
       {proxy::ProgressStrategy::dedicated, proxy::ProgressStrategy::cooperative, proxy::ProgressStrategy::polling}) {
    SCOPED_TRACE(std::string(proxy::to_string(strategy)));
    proxy::ProxyThread proxy(MPI_COMM_WORLD, config_with(strategy));
    HeldRing ring(proxy);
    ring.run();
    const proxy::ProxyStatistics stats = proxy.statistics();
    EXPECT_FALSE(stats.timed);
    ASSERT_EQ(stats.plans.size(), 1u);
    EXPECT_EQ(stats.plans[0].starts, static_cast<std::uint64_t>(kHeldEpochs));
    EXPECT_EQ(stats.plans[0].bytes, static_cast<std::uint64_t>(kHeldEpochs) * 2 * sizeof(int));
    EXPECT_EQ(stats.plans[0].total_seconds, 0.0);
    EXPECT_EQ(stats.plans[0].max_seconds, 0.0);
    EXPECT_EQ(stats.busy_fraction, 0.0);
    const std::string table = stats.format();
    EXPECT_NE(table.find(", busy not timed, "), std::string::npos) << table;
    EXPECT_NE(table.find("  held                              3 "), std::string::npos) << table;
    EXPECT_NE(table.find("            -            -\n  (times not kept: PROXY_TIMINGS=1 keeps them)\n"),
              std::string::npos)
        << table;
  }
}

}  // namespace
