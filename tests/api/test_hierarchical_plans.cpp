// Hierarchical collective elements of plans (plan_collective.hpp) on 1-4 ranks: per-thread contributions
// reduced by the proxy in their order, then over the ranks; elements that wait for parts marked ready by
// other threads (std::thread, so that ThreadSanitizer sees the hand-offs); their validation messages.
// The values are chosen so that only the documented order gives the expected bits: the thread-level sum of
// 2^53 (r + 1) followed by ones rounds every one away left to right, while any other order keeps some.
#include <gtest/gtest.h>
#include <mpi.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <functional>
#include <limits>
#include <string>
#include <thread>
#include <tuple>
#include <vector>

#include "mpi_test_util.hpp"
#include "proxy/core.hpp"

namespace {

using proxy::test_util::message_of;
using proxy::test_util::world_rank;
using proxy::test_util::world_size;

constexpr double kTwo53 = 9007199254740992.0;  // 2^53: adding 1 to it (or to 2^54 ...) rounds back

// Thread t of rank r contributes, per element k: t == 0 ? 2^53 (r + 1) (k + 1) : 1 + k % 2 (1 or 2).
// Left to right the ones are absorbed: the rank's value is 2^53 (r + 1) (k + 1), and the sum over the
// ranks is exact. (Adding the small ones first would keep them: 2^53 + 3 rounds to 2^53 + 4.)
std::vector<std::vector<double>> contributions_of(int rank, int threads, int count) {
  std::vector<std::vector<double>> c(static_cast<std::size_t>(threads), std::vector<double>(static_cast<std::size_t>(count)));
  for (int t = 0; t < threads; ++t)
    for (int k = 0; k < count; ++k)
      c[static_cast<std::size_t>(t)][static_cast<std::size_t>(k)] = t == 0 ? kTwo53 * (rank + 1) * (k + 1) : 1.0 + k % 2;
  return c;
}

std::vector<const void*> pointers(const std::vector<std::vector<double>>& c) {
  std::vector<const void*> p;
  for (const auto& v : c) p.push_back(v.data());
  return p;
}

double expected_sum(int size, int k) { return kTwo53 * (size * (size + 1) / 2) * (k + 1); }

TEST(HierarchicalPlans, AllreduceOfThreadContributionsIsTheLeftToRightSumThenTheRanks) {
  const int rank = world_rank(), size = world_size();
  constexpr int kCount = 3;
  for (int threads : {1, 2, 4}) {
    auto mine = contributions_of(rank, threads, kCount);
    std::vector<double> sum(kCount, -1.0);
    proxy::ProxyThread proxy(MPI_COMM_WORLD);
    proxy::PlanSpec spec("dot");
    spec.allreduce(MPI_COMM_WORLD, pointers(mine), sum.data(), kCount, MPI_DOUBLE, MPI_SUM);
    const proxy::Plan plan = proxy.commit(spec);
    EXPECT_EQ(plan.collective_count(), 1u);
    for (int epoch = 1; epoch <= 3; ++epoch) {
      proxy.wait(proxy.start(plan));
      for (int k = 0; k < kCount; ++k)
        EXPECT_EQ(sum[static_cast<std::size_t>(k)], expected_sum(size, k)) << threads << " threads, epoch " << epoch;
    }
  }
}

TEST(HierarchicalPlans, ThreadsMarkTheirContributionsReadyAndTheElementWaitsForAll) {
  const int rank = world_rank(), size = world_size();
  constexpr int kThreads = 3, kCount = 2;
  std::vector<std::vector<double>> mine(kThreads, std::vector<double>(kCount, 0.0));
  std::vector<double> sum(kCount, -1.0), max(kCount, -1.0);
  proxy::ProxyThread proxy(MPI_COMM_WORLD);
  proxy::PlanSpec spec("dot-early");
  spec.parts(kThreads)
      .allreduce_when_ready({0, 1, 2}, MPI_COMM_WORLD, pointers(mine), sum.data(), kCount, MPI_DOUBLE, MPI_SUM)
      .allreduce_when_ready({0, 1, 2}, MPI_COMM_WORLD, pointers(mine), max.data(), kCount, MPI_DOUBLE, MPI_MAX);
  const proxy::Plan plan = proxy.commit(spec);
  for (int epoch = 1; epoch <= 4; ++epoch) {
    const proxy::Ticket ticket = proxy.start(plan);
    std::vector<std::thread> team;
    for (int t = 0; t < kThreads; ++t)
      team.emplace_back([&, t] {
        const auto values = contributions_of(rank, kThreads, kCount)[static_cast<std::size_t>(t)];
        // Only thread 0's large value changes with the epoch: the ones stay too small to count.
        for (int k = 0; k < kCount; ++k) mine[t][k] = values[static_cast<std::size_t>(k)] * (t == 0 ? epoch : 1);
        proxy.ready(ticket, t);  // written: the proxy may read it now
      });
    for (auto& thread : team) thread.join();
    proxy.wait(ticket);
    for (int k = 0; k < kCount; ++k) {
      EXPECT_EQ(sum[static_cast<std::size_t>(k)], expected_sum(size, k) * epoch) << "epoch " << epoch;
      EXPECT_EQ(max[static_cast<std::size_t>(k)], kTwo53 * size * (k + 1) * epoch) << "epoch " << epoch;
    }
  }
}

// From 32 KiB of contributions on the proxy cuts the thread-level phase into strips of about 16 KiB of
// input and the threads waiting on the ticket take some (help_board.hpp): 4 contributions of 54 KiB, 13
// strips of 4 KiB and a partial one, under every progress strategy. Each strip keeps the left-to-right
// order, so the bits are those of the small case. statistics() counts the strips (14 every epoch) and
// those the waiters ran: the epochs go on until a waiter has run one (within 120 s: it takes one epoch or
// a few; the ranks agree on when to stop), so an element whose phase is not shared fails here.
TEST(HierarchicalPlans, ALargeElementSharedWithTheWaitingThreadsKeepsTheLeftToRightBits) {
  const int rank = world_rank(), size = world_size();
  constexpr int kThreads = 4, kCount = 3 * 2048 + 777, kStripsPerEpoch = 14;
  for (const auto strategy : {proxy::ProgressStrategy::dedicated, proxy::ProgressStrategy::cooperative,
                               proxy::ProgressStrategy::polling}) {
    SCOPED_TRACE(std::string(proxy::to_string(strategy)));
    std::vector<std::vector<double>> mine(kThreads, std::vector<double>(kCount, 0.0));
    std::vector<double> sum(kCount, -1.0);
    proxy::Config config = proxy::Config::from_env();
    config.progress = strategy;
    proxy::ProxyThread proxy(MPI_COMM_WORLD, config);
    proxy::PlanSpec spec("dot-large");
    spec.parts(kThreads).allreduce_when_ready({0, 1, 2, 3}, MPI_COMM_WORLD, pointers(mine), sum.data(), kCount,
                                              MPI_DOUBLE, MPI_SUM);
    const proxy::Plan plan = proxy.commit(spec);
    const auto values = contributions_of(rank, kThreads, kCount);
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(120);
    int epoch = 1;
    for (int go_on = 1; go_on != 0; ++epoch) {
      const proxy::Ticket ticket = proxy.start(plan);
      std::vector<std::thread> team;
      for (int t = 0; t < kThreads; ++t)
        team.emplace_back([&, t] {
          for (int k = 0; k < kCount; ++k) mine[t][k] = values[t][k] * (t == 0 ? epoch % 3 + 1 : 1);
          proxy.ready(ticket, t);
          proxy.wait(ticket);  // a waiter: it may reduce strips of the others' contributions
        });
      for (auto& thread : team) thread.join();
      int wrong = 0;
      for (int k = 0; k < kCount; ++k)
        wrong += sum[static_cast<std::size_t>(k)] != expected_sum(size, k) * (epoch % 3 + 1);
      EXPECT_EQ(wrong, 0) << "epoch " << epoch << ", first element " << sum[0] << " (want "
                          << expected_sum(size, 0) * (epoch % 3 + 1) << "), last " << sum.back();
      // Every rank takes part in every epoch's allreduce, a wrong one included (no early return).
      int mine_go_on = epoch < 3 || (proxy.statistics().strips_by_waiters == 0 &&
                                     std::chrono::steady_clock::now() < deadline);
      proxy.call([&] { MPI_Allreduce(&mine_go_on, &go_on, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD); });
    }
    const proxy::ProxyStatistics stats = proxy.statistics();
    EXPECT_EQ(stats.strips, static_cast<std::uint64_t>(kStripsPerEpoch) * static_cast<std::uint64_t>(epoch - 1));
    EXPECT_GT(stats.strips_by_waiters, 0u) << "no waiting thread ran a strip in " << epoch - 1 << " epochs";
    EXPECT_LE(stats.strips_by_waiters, stats.strips);
  }
}

// An allreduce reduces its contributions straight into its result and runs in place; a result that is
// also one of the contributions goes through a staging buffer instead, so the phase does not overwrite what
// it still reads: with a user's operation (MPI_Reduce_local, which starts from a copy of contribution 0),
// reducing in place into contribution 1 would give 2 c0. Small and shared in strips (2 x 40 KB) with the
// built-in sum, 3 elements with the user's; the same left-to-right bits.
void user_sum(void* in, void* inout, int* count, MPI_Datatype*) {
  for (int i = 0; i < *count; ++i) static_cast<double*>(inout)[i] += static_cast<const double*>(in)[i];
}

TEST(HierarchicalPlans, AResultThatIsAlsoAContributionGetsTheSameBits) {
  const int rank = world_rank(), size = world_size();
  MPI_Op user_op = MPI_OP_NULL;
  MPI_Op_create(user_sum, 1, &user_op);
  for (const auto& [count, op, result] : {std::tuple{3, MPI_SUM, 0}, std::tuple{5000, MPI_SUM, 1},
                                          std::tuple{3, user_op, 1}, std::tuple{3, user_op, 0}}) {
    SCOPED_TRACE(std::to_string(count) + " elements, " + (op == MPI_SUM ? "MPI_SUM" : "a user's sum") +
                 ", result in contribution " + std::to_string(result));
    std::vector<std::vector<double>> mine(2, std::vector<double>(static_cast<std::size_t>(count)));
    proxy::ProxyThread proxy(MPI_COMM_WORLD);
    proxy::PlanSpec spec("dot-aliased");
    spec.allreduce(MPI_COMM_WORLD, pointers(mine), mine[result].data(), count, MPI_DOUBLE, op);
    const proxy::Plan plan = proxy.commit(spec);
    for (int epoch = 1; epoch <= 3; ++epoch) {
      const auto values = contributions_of(rank, 2, count);  // the last epoch's result overwrote one
      for (int t = 0; t < 2; ++t) std::copy(values[t].begin(), values[t].end(), mine[t].begin());
      proxy.wait(proxy.start(plan));
      int wrong = 0;
      for (int k = 0; k < count; ++k) wrong += mine[result][static_cast<std::size_t>(k)] != expected_sum(size, k);
      EXPECT_EQ(wrong, 0) << "epoch " << epoch << ": first " << mine[result][0] << ", want " << expected_sum(size, 0);
    }
  }
  MPI_Op_free(&user_op);
}

TEST(HierarchicalPlans, AHeldElementDoesNotCompleteAndItsTimeoutNamesTheMissingPart) {
  // On MPI_COMM_SELF: only this rank's threads hold it back, so the test can time out and then go on.
  double a = 1.5, b = 2.25, sum = 0.0;
  proxy::ProxyThread proxy(MPI_COMM_WORLD);
  proxy::PlanSpec spec("held");
  spec.parts(2).allreduce_when_ready({0, 1}, MPI_COMM_SELF, {&a, &b}, &sum, 1, MPI_DOUBLE, MPI_SUM);
  const proxy::Plan plan = proxy.commit(spec);
  const proxy::Ticket ticket = proxy.start(plan);
  proxy.ready(ticket, 1);
  const std::string message = message_of([&] { proxy.wait(ticket, std::chrono::milliseconds(200)); });
  EXPECT_NE(message.find("plan 'held'"), std::string::npos) << message;
  EXPECT_NE(message.find("allreduce over 1 rank (8 bytes) waiting for parts 0"), std::string::npos) << message;
  EXPECT_FALSE(proxy.test(ticket));  // still held: nothing can complete it but part 0
  EXPECT_EQ(sum, 0.0);
  proxy.ready(ticket, 0);
  proxy.wait(ticket);
  EXPECT_EQ(sum, 3.75);
}

TEST(HierarchicalPlans, ReduceToTheLastRankAndBroadcastFromItWhenItsPartIsReady) {
  const int rank = world_rank(), size = world_size();
  const int root = size - 1;
  constexpr int kThreads = 2, kCount = 4;
  auto mine = contributions_of(rank, kThreads, kCount);
  std::vector<double> total(kCount, -1.0), panel(kCount, -1.0);
  proxy::ProxyThread proxy(MPI_COMM_WORLD);
  proxy::PlanSpec spec("reduce-then-broadcast");
  // Off the root the result is not read: null, as MPI allows.
  spec.parts(1)
      .reduce(MPI_COMM_WORLD, root, pointers(mine), rank == root ? total.data() : nullptr, kCount, MPI_DOUBLE, MPI_SUM)
      .broadcast_when_ready({0}, MPI_COMM_WORLD, root, panel.data(), kCount, MPI_DOUBLE);
  const proxy::Plan plan = proxy.commit(spec);
  for (int epoch = 1; epoch <= 3; ++epoch) {
    const proxy::Ticket ticket = proxy.start(plan);
    std::thread writer([&] {
      if (rank == root)
        for (int k = 0; k < kCount; ++k) panel[static_cast<std::size_t>(k)] = 10.0 * epoch + k;
      proxy.ready(ticket, 0);
    });
    writer.join();
    proxy.wait(ticket);
    for (int k = 0; k < kCount; ++k) {
      if (rank == root) EXPECT_EQ(total[static_cast<std::size_t>(k)], expected_sum(size, k)) << "epoch " << epoch;
      EXPECT_EQ(panel[static_cast<std::size_t>(k)], 10.0 * epoch + k) << "epoch " << epoch;
    }
  }
}

TEST(HierarchicalPlans, ElementsOnOneCommunicatorStartInSpecOrderWhateverOrderTheirPartsBecomeReady) {
  // The allreduce waits for parts 0 and 1, the broadcast after it for part 0 alone. Rank 0 marks part 0 first
  // and lets the proxy run: its broadcast is ready before its allreduce. The other ranks mark part 1 first,
  // so both are ready at once. Started as they became ready, rank 0 would post the broadcast first and the
  // others the allreduce: MPI would match them crosswise (a hang on Open MPI's non-blocking collectives).
  const int rank = world_rank(), size = world_size();
  double a = rank + 1.0, b = 0.5, sum = 0.0, panel = rank == 0 ? 7.25 : -1.0;
  proxy::ProxyThread proxy(MPI_COMM_WORLD);
  proxy::PlanSpec spec("crossing");
  spec.parts(2)
      .allreduce_when_ready({0, 1}, MPI_COMM_WORLD, {&a, &b}, &sum, 1, MPI_DOUBLE, MPI_SUM)
      .broadcast_when_ready({0}, MPI_COMM_WORLD, 0, &panel, 1, MPI_DOUBLE);
  const proxy::Plan plan = proxy.commit(spec);
  const proxy::Ticket ticket = proxy.start(plan);
  proxy.ready(ticket, rank == 0 ? 0 : 1);
  if (rank == 0) std::this_thread::sleep_for(std::chrono::milliseconds(100));  // the proxy sees part 0 alone
  proxy.ready(ticket, rank == 0 ? 1 : 0);
  proxy.wait(ticket);
  EXPECT_EQ(sum, size * (size + 1) / 2.0 + 0.5 * size);
  EXPECT_EQ(panel, 7.25);
}

TEST(HierarchicalPlans, AnElementReadyBehindAHeldOneWaitsAndItsTimeoutSaysSo) {
  // On MPI_COMM_SELF, as above: part 1 (the broadcast's) is marked, part 0 (the allreduce's, before it) not.
  double a = 1.5, sum = 0.0, panel = 2.5;
  proxy::ProxyThread proxy(MPI_COMM_WORLD);
  proxy::PlanSpec spec("behind");
  spec.parts(2)
      .allreduce_when_ready({0}, MPI_COMM_SELF, {&a}, &sum, 1, MPI_DOUBLE, MPI_SUM)
      .broadcast_when_ready({1}, MPI_COMM_SELF, 0, &panel, 1, MPI_DOUBLE);
  const proxy::Plan plan = proxy.commit(spec);
  const proxy::Ticket ticket = proxy.start(plan);
  proxy.ready(ticket, 1);
  const std::string message = message_of([&] { proxy.wait(ticket, std::chrono::milliseconds(200)); });
  EXPECT_NE(message.find("allreduce over 1 rank (8 bytes) waiting for parts 0; broadcast from root 0 over 1 rank "
                         "(8 bytes) held behind an earlier element on its communicator"),
            std::string::npos)
      << message;
  proxy.ready(ticket, 0);
  proxy.wait(ticket);
  EXPECT_EQ(sum, 1.5);
  EXPECT_EQ(panel, 2.5);
}

TEST(HierarchicalPlans, ACollectiveOfALaterPlanWaitsForAHeldOneOfAnEarlierPlanOnItsCommunicator) {
  // Plan A's allreduce waits for part 0; plan B's, on the same communicator, waits for nothing. Every rank
  // starts A, then B. Rank 0 marks A's part only after the proxy has seen B: started as it came, rank 0's B
  // would match the other ranks' A (their part is marked at once) and each sum would take the other's values.
  const int rank = world_rank(), size = world_size();
  double a = 1.0, b = 100.0, sum_a = 0.0, sum_b = 0.0;
  proxy::ProxyThread proxy(MPI_COMM_WORLD);
  proxy::PlanSpec first("held-first"), second("ready-second");
  first.parts(1).allreduce_when_ready({0}, MPI_COMM_WORLD, {&a}, &sum_a, 1, MPI_DOUBLE, MPI_SUM);
  second.allreduce(MPI_COMM_WORLD, &b, &sum_b, 1, MPI_DOUBLE, MPI_SUM);
  const proxy::Plan plan_a = proxy.commit(first), plan_b = proxy.commit(second);
  for (int epoch = 1; epoch <= 3; ++epoch) {
    a = epoch;
    const proxy::Ticket ta = proxy.start(plan_a);
    const proxy::Ticket tb = proxy.start(plan_b);
    if (rank == 0) {
      EXPECT_FALSE(proxy.test(tb));  // held behind A, whatever the proxy did meanwhile
      std::this_thread::sleep_for(std::chrono::milliseconds(100));
      proxy.progress_point();
      EXPECT_FALSE(proxy.test(tb));
    }
    proxy.ready(ta, 0);
    proxy.wait(tb);
    proxy.wait(ta);
    EXPECT_EQ(sum_a, epoch * size) << "epoch " << epoch;
    EXPECT_EQ(sum_b, 100.0 * size) << "epoch " << epoch;
  }
}

TEST(HierarchicalPlans, ALaterPlansCollectiveHeldBehindAnEarlierOneSaysSoInItsTimeout) {
  double a = 1.5, b = 2.0, sum_a = 0.0, sum_b = 0.0;
  proxy::ProxyThread proxy(MPI_COMM_WORLD);
  proxy::PlanSpec first("held-first"), second("ready-second");
  first.parts(1).allreduce_when_ready({0}, MPI_COMM_SELF, {&a}, &sum_a, 1, MPI_DOUBLE, MPI_SUM);
  second.allreduce(MPI_COMM_SELF, &b, &sum_b, 1, MPI_DOUBLE, MPI_SUM);
  const proxy::Plan plan_a = proxy.commit(first), plan_b = proxy.commit(second);
  const proxy::Ticket ta = proxy.start(plan_a);
  const proxy::Ticket tb = proxy.start(plan_b);
  const std::string message = message_of([&] { proxy.wait(tb, std::chrono::milliseconds(200)); });
  EXPECT_NE(message.find("plan 'ready-second'"), std::string::npos) << message;
  EXPECT_NE(message.find("allreduce over 1 rank (8 bytes) held behind an earlier element on its communicator"),
            std::string::npos)
      << message;
  proxy.ready(ta, 0);
  proxy.wait(ta);
  proxy.wait(tb);
  EXPECT_EQ(sum_a, 1.5);
  EXPECT_EQ(sum_b, 2.0);
  // Once A has started, B's next epoch does not wait for anything.
  const proxy::Ticket again = proxy.start(plan_b);
  proxy.wait(again);
  EXPECT_EQ(sum_b, 2.0);
}

// Against MPI_Allreduce itself (run on the proxy): the contributions added up by the test in order on each
// rank, then reduced over the ranks by MPI. Integers bitwise (built-in operations through MPI_Reduce_local);
// doubles within the rounding bound of the sums, n eps sum|x|. kCount 5000 (5 x 40 KB): strips shared with
// waiting threads for the built-in kernels; MPI_BXOR is folded by the proxy alone through MPI_Reduce_local.
void expect_matches_mpi_allreduce(int kCount) {
  SCOPED_TRACE(std::to_string(kCount) + " elements");
  const int rank = world_rank();
  constexpr int kThreads = 5;
  std::vector<std::vector<long>> ints(kThreads, std::vector<long>(kCount));
  std::vector<std::vector<double>> reals(kThreads, std::vector<double>(kCount));
  unsigned state = 12345u + 977u * static_cast<unsigned>(rank);
  const auto next = [&state] { return state = state * 1103515245u + 12345u; };
  for (int t = 0; t < kThreads; ++t)
    for (int k = 0; k < kCount; ++k) {
      ints[t][k] = static_cast<long>(next() % 2000001) - 1000000;
      reals[t][k] = (static_cast<double>(next() % 1000003) - 500000.0) * 1e-3 * (1 + k % 7);
    }
  std::vector<const void*> int_parts, real_parts;
  for (int t = 0; t < kThreads; ++t) int_parts.push_back(ints[t].data()), real_parts.push_back(reals[t].data());
  std::vector<long> sum(kCount), max(kCount), xored(kCount), want_sum(kCount), want_max(kCount), want_xor(kCount);
  std::vector<double> real_sum(kCount), want_real(kCount), magnitude(kCount);
  proxy::ProxyThread proxy(MPI_COMM_WORLD);
  proxy::PlanSpec spec("checked");
  spec.allreduce(proxy.comm(), int_parts, sum.data(), kCount, MPI_LONG, MPI_SUM)
      .allreduce(proxy.comm(), int_parts, max.data(), kCount, MPI_LONG, MPI_MAX)
      .allreduce(proxy.comm(), int_parts, xored.data(), kCount, MPI_LONG, MPI_BXOR)
      .allreduce(proxy.comm(), real_parts, real_sum.data(), kCount, MPI_DOUBLE, MPI_SUM);
  proxy.wait(proxy.start(proxy.commit(spec)));

  std::vector<long> local_sum(kCount, 0), local_max(kCount, ints[0][0]), local_xor(kCount, 0);
  std::vector<double> local_real(kCount, 0.0), local_magnitude(kCount, 0.0);
  for (int k = 0; k < kCount; ++k) {
    local_max[k] = ints[0][k];
    for (int t = 0; t < kThreads; ++t) {
      local_sum[k] += ints[t][k];
      local_max[k] = std::max(local_max[k], ints[t][k]);
      local_xor[k] ^= ints[t][k];
      local_real[k] += reals[t][k];
      local_magnitude[k] += std::fabs(reals[t][k]);
    }
  }
  proxy.call([&] {
    MPI_Allreduce(local_sum.data(), want_sum.data(), kCount, MPI_LONG, MPI_SUM, proxy.comm());
    MPI_Allreduce(local_max.data(), want_max.data(), kCount, MPI_LONG, MPI_MAX, proxy.comm());
    MPI_Allreduce(local_xor.data(), want_xor.data(), kCount, MPI_LONG, MPI_BXOR, proxy.comm());
    MPI_Allreduce(local_real.data(), want_real.data(), kCount, MPI_DOUBLE, MPI_SUM, proxy.comm());
    MPI_Allreduce(local_magnitude.data(), magnitude.data(), kCount, MPI_DOUBLE, MPI_SUM, proxy.comm());
  });
  EXPECT_EQ(sum, want_sum);
  EXPECT_EQ(max, want_max);
  EXPECT_EQ(xored, want_xor);
  const double terms = kThreads * world_size();
  for (int k = 0; k < kCount; ++k)
    EXPECT_LE(std::fabs(real_sum[k] - want_real[k]), 2 * terms * 2.2205e-16 * magnitude[k]) << "element " << k;
}

TEST(HierarchicalPlans, MatchesMpiAllreduceBitwiseForIntegersAndWithinRoundingForDoubles) {
  expect_matches_mpi_allreduce(33);
  expect_matches_mpi_allreduce(5000);
}

// Integer sums and products of the threads' contributions wrap as MPI's do (the proxy folds them with the
// runtime's element-wise kernels; a signed C++ sum would overflow, which UBSan reports): 32- and 64-bit types.
TEST(HierarchicalPlans, IntegerSumsAndProductsWrapAsMpisDo) {
  constexpr int kThreads = 3;
  const std::int32_t big32 = std::numeric_limits<std::int32_t>::max() - world_rank();
  const std::int64_t big64 = std::numeric_limits<std::int64_t>::max() - world_rank();
  std::vector<std::int32_t> parts32(kThreads, big32);
  std::vector<std::int64_t> parts64(kThreads, big64);
  std::vector<const void*> p32, p64;
  for (int t = 0; t < kThreads; ++t) p32.push_back(&parts32[t]), p64.push_back(&parts64[t]);
  std::int32_t sum32 = 0, prod32 = 0, want_sum32 = 0, want_prod32 = 0;
  std::int64_t sum64 = 0, want_sum64 = 0;
  proxy::ProxyThread proxy(MPI_COMM_WORLD);
  proxy::PlanSpec spec("wrapping");
  spec.allreduce(proxy.comm(), p32, &sum32, 1, MPI_INT32_T, MPI_SUM)
      .allreduce(proxy.comm(), p32, &prod32, 1, MPI_INT, MPI_PROD)
      .allreduce(proxy.comm(), p64, &sum64, 1, MPI_INT64_T, MPI_SUM);
  proxy.wait(proxy.start(proxy.commit(spec)));
  // The same fold by MPI itself: the threads' values through MPI_Reduce_local, then over the ranks.
  proxy.call([&] {
    std::int32_t local_sum32 = big32, local_prod32 = big32;
    std::int64_t local_sum64 = big64;
    for (int t = 1; t < kThreads; ++t) {
      MPI_Reduce_local(&big32, &local_sum32, 1, MPI_INT32_T, MPI_SUM);
      MPI_Reduce_local(&big32, &local_prod32, 1, MPI_INT, MPI_PROD);
      MPI_Reduce_local(&big64, &local_sum64, 1, MPI_INT64_T, MPI_SUM);
    }
    MPI_Allreduce(&local_sum32, &want_sum32, 1, MPI_INT32_T, MPI_SUM, proxy.comm());
    MPI_Allreduce(&local_prod32, &want_prod32, 1, MPI_INT, MPI_PROD, proxy.comm());
    MPI_Allreduce(&local_sum64, &want_sum64, 1, MPI_INT64_T, MPI_SUM, proxy.comm());
  });
  EXPECT_EQ(sum32, want_sum32);
  EXPECT_EQ(prod32, want_prod32);
  EXPECT_EQ(sum64, want_sum64);
}

// A non-commutative operation: "the left operand" (associative). MPI's order is contribution 0 first, so
// the result is rank 0's first contribution; folding the wrong way would give the last one.
void take_left(void* in, void* inout, int* len, MPI_Datatype*) {
  const double* left = static_cast<const double*>(in);
  double* right = static_cast<double*>(inout);
  for (int i = 0; i < *len; ++i) right[i] = left[i];
}

TEST(HierarchicalPlans, ANonCommutativeOperationKeepsTheContributionsOrder) {
  const int rank = world_rank();
  MPI_Op left = MPI_OP_NULL;
  MPI_Op_create(&take_left, 0, &left);
  std::vector<double> c0{100.0 + rank}, c1{200.0 + rank}, c2{300.0 + rank};
  double result = -1.0;
  {
    proxy::ProxyThread proxy(MPI_COMM_WORLD);
    proxy::PlanSpec spec("ordered");
    spec.allreduce(MPI_COMM_WORLD, {c0.data(), c1.data(), c2.data()}, &result, 1, MPI_DOUBLE, left);
    proxy.wait(proxy.start(proxy.commit(spec)));
  }
  EXPECT_EQ(result, 100.0);
  MPI_Op_free(&left);
}

// A pair type with padding after each element (MPI_DOUBLE_INT: 12 bytes of data, extent 16): a MINLOC over the
// threads, the porting idiom for an argmin. Every element reduced, in the allreduce's own result, through a
// staging buffer (the result overlaps contribution 0) and in a reduce (staged): the last one was left out (the
// span was count x 12 bytes, the elements 16 apart) and the reduce wrote past its staging buffer.
TEST(HierarchicalPlans, APaddedPairTypeReducesEveryElementLikeMpi) {
  struct DoubleInt {
    double value;
    int index;
  };
  static_assert(sizeof(DoubleInt) == 16);
  constexpr int kThreads = 3, kCount = 5;
  const int rank = world_rank(), size = world_size();
  // Thread t of rank r, element k: a value whose minimum moves between threads and ranks with k.
  const auto value = [&](int t, int k) { return double((t * 7 + rank * 5 + k * 3) % 11); };
  std::vector<std::vector<DoubleInt>> c(kThreads, std::vector<DoubleInt>(kCount + 1, {-1.0, -1}));
  for (int t = 0; t < kThreads; ++t)
    for (int k = 0; k < kCount; ++k) c[t][k] = {value(t, k), 100 * rank + 10 * t + k};
  std::vector<DoubleInt> want(kCount);
  std::vector<DoubleInt> mine(c[0].begin(), c[0].begin() + kCount);
  for (int t = 1; t < kThreads; ++t) MPI_Reduce_local(c[t].data(), mine.data(), kCount, MPI_DOUBLE_INT, MPI_MINLOC);
  MPI_Allreduce(mine.data(), want.data(), kCount, MPI_DOUBLE_INT, MPI_MINLOC, MPI_COMM_WORLD);
  std::vector<DoubleInt> all(kCount + 1, {-1.0, -1}), reduced(kCount + 1, {-1.0, -1});
  std::vector<DoubleInt> in_place = c[0];
  {
    proxy::ProxyThread proxy(MPI_COMM_WORLD);
    proxy::PlanSpec spec("argmin");
    spec.allreduce(MPI_COMM_WORLD, {c[0].data(), c[1].data(), c[2].data()}, all.data(), kCount, MPI_DOUBLE_INT,
                   MPI_MINLOC)
        .allreduce(MPI_COMM_WORLD, {in_place.data(), c[1].data(), c[2].data()}, in_place.data(), kCount,
                   MPI_DOUBLE_INT, MPI_MINLOC)
        .reduce(MPI_COMM_WORLD, size - 1, {c[0].data(), c[1].data(), c[2].data()}, reduced.data(), kCount,
                MPI_DOUBLE_INT, MPI_MINLOC);
    proxy.wait(proxy.start(proxy.commit(spec)));
  }
  for (int k = 0; k < kCount; ++k) {
    EXPECT_EQ(all[k].value, want[k].value) << "element " << k;
    EXPECT_EQ(all[k].index, want[k].index) << "element " << k;
    EXPECT_EQ(in_place[k].value, want[k].value) << "element " << k;
    EXPECT_EQ(in_place[k].index, want[k].index) << "element " << k;
    if (rank == size - 1) {
      EXPECT_EQ(reduced[k].value, want[k].value) << "element " << k;
      EXPECT_EQ(reduced[k].index, want[k].index) << "element " << k;
    }
  }
  EXPECT_EQ(all[kCount].index, -1);  // nothing written past the result
  EXPECT_EQ(in_place[kCount].index, -1);
  EXPECT_EQ(reduced[kCount].index, -1);
}

TEST(HierarchicalPlans, BadElementsAreRefusedByName) {
  double a = 0.0, sum = 0.0;
  proxy::ProxyThread proxy(MPI_COMM_WORLD);
  EXPECT_EQ(message_of([&] {
              proxy::PlanSpec spec("dot");
              spec.allreduce(MPI_COMM_WORLD, {&a, nullptr}, &sum, 1, MPI_DOUBLE, MPI_SUM);
              proxy.commit(spec);
            }),
            "plan 'dot': allreduce element 0 has a null contribution 1 for count 1");
  EXPECT_EQ(message_of([&] {
              proxy::PlanSpec spec("dot");
              spec.allreduce(MPI_COMM_WORLD, std::vector<const void*>{}, &sum, 1, MPI_DOUBLE, MPI_SUM);
              proxy.commit(spec);
            }),
            "plan 'dot': allreduce element 0 has a null send buffer and no contributions for count 1");
  MPI_Datatype strided = MPI_DATATYPE_NULL;
  MPI_Type_vector(2, 1, 2, MPI_DOUBLE, &strided);
  MPI_Type_commit(&strided);
  double pair[4] = {}, out[4] = {};
  EXPECT_EQ(message_of([&] {
              proxy::PlanSpec spec("dot");
              spec.allreduce(MPI_COMM_WORLD, {pair, pair}, out, 1, strided, MPI_SUM);
              proxy.commit(spec);
            }),
            "plan 'dot': allreduce element 0 has contributions of a non-contiguous datatype (size 16, extent 24): "
            "use a contiguous one");
  MPI_Type_free(&strided);
  EXPECT_EQ(message_of([&] {
              proxy::PlanSpec spec("dot");
              spec.parts(2).allreduce_when_ready({0, 2}, MPI_COMM_WORLD, {&a}, &sum, 1, MPI_DOUBLE, MPI_SUM);
              proxy.commit(spec);
            }),
            "plan 'dot': allreduce element 0 waits for part 2, outside [0, 2)");
  EXPECT_EQ(message_of([&] {
              proxy::PlanSpec spec("panel");
              spec.parts(1).broadcast_when_ready({0, 0}, MPI_COMM_WORLD, 0, &a, 1, MPI_DOUBLE);
              proxy.commit(spec);
            }),
            "plan 'panel': broadcast element 0 lists part 0 twice");
}

}  // namespace
