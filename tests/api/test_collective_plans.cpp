// Collective elements of plans (broadcast, reduce, allreduce) on a communicator the user gives, run on 1-4
// ranks; results are exact (integers), epoch after epoch, on persistent or non-blocking collectives.
#include <gtest/gtest.h>
#include <mpi.h>

#include <vector>

#include "mpi_test_util.hpp"
#include "proxy/core.hpp"

namespace {

using proxy::test_util::world_rank;
using proxy::test_util::world_size;

// "Rows" of a 2-column grid: ranks with the same rank/2 (a sub-communicator, as SUMMA's row communicator).
MPI_Comm split_rows() {
  MPI_Comm rows = MPI_COMM_NULL;
  MPI_Comm_split(MPI_COMM_WORLD, world_rank() / 2, world_rank(), &rows);
  return rows;
}

TEST(CollectivePlans, TheBuildTakesTheConfiguredPath) {
  EXPECT_EQ(proxy::persistent_collectives_available(), PROXY_EXPECT_PERSISTENT_COLLECTIVES == 1);
}

TEST(CollectivePlans, BroadcastReduceAllreduceOverASubCommunicatorEpochAfterEpoch) {
  MPI_Comm rows = split_rows();
  int row_rank = 0, row_size = 1;
  MPI_Comm_rank(rows, &row_rank);
  MPI_Comm_size(rows, &row_size);
  const int root = row_size - 1;
  std::vector<long> panel(5), mine(3), sum(3), total(3);
  {
    proxy::ProxyThread proxy(MPI_COMM_WORLD);
    proxy::PlanSpec spec("panel");
    spec.broadcast(rows, root, panel.data(), 5, MPI_LONG)
        .allreduce(rows, mine.data(), sum.data(), 3, MPI_LONG, MPI_SUM)
        .reduce(rows, 0, mine.data(), total.data(), 3, MPI_LONG, MPI_SUM);
    const proxy::Plan plan = proxy.commit(spec);
    MPI_Comm_free(&rows);  // the proxy works on its own duplicate
    EXPECT_EQ(plan.collective_count(), 3u);
    EXPECT_EQ(plan.transfer_count(), 0u);
    for (long epoch = 1; epoch <= 6; ++epoch) {
      for (int i = 0; i < 5; ++i) panel[i] = row_rank == root ? 100 * epoch + i : -1;
      for (int i = 0; i < 3; ++i) mine[i] = epoch * (row_rank + 1) + i;
      proxy.wait(proxy.start(plan));
      for (int i = 0; i < 5; ++i) EXPECT_EQ(panel[i], 100 * epoch + i) << "epoch " << epoch;
      const long ranks_sum = static_cast<long>(row_size) * (row_size + 1) / 2;
      for (int i = 0; i < 3; ++i) {
        const long expected = epoch * ranks_sum + static_cast<long>(row_size) * i;
        EXPECT_EQ(sum[i], expected) << "epoch " << epoch;
        if (row_rank == 0) EXPECT_EQ(total[i], expected) << "epoch " << epoch;
      }
    }
  }
}

TEST(CollectivePlans, MixedWithPointToPointOnTheWorld) {
  const int rank = world_rank(), size = world_size();
  const int right = (rank + 1) % size, left = (rank + size - 1) % size;
  int out = 0, in = -1, contribution = 0, max = -1;
  proxy::ProxyThread proxy(MPI_COMM_WORLD);
  proxy::PlanSpec spec("ring-and-max");
  spec.send(right, 0, &out, 1, MPI_INT).recv(left, 0, &in, 1, MPI_INT);
  spec.allreduce(MPI_COMM_WORLD, &contribution, &max, 1, MPI_INT, MPI_MAX);
  const proxy::Plan plan = proxy.commit(spec);
  for (int epoch = 1; epoch <= 4; ++epoch) {
    out = 10 * epoch + rank;
    contribution = epoch * 1000 + rank;
    proxy.wait(proxy.start(plan));
    EXPECT_EQ(in, 10 * epoch + left);
    EXPECT_EQ(max, epoch * 1000 + size - 1);
  }
}

TEST(CollectivePlans, ManyPlansShareOneDuplicatePerCommunicator) {
  // SUMMA's shape: one plan per panel, the root moving along; started in the same order on every rank.
  const int size = world_size();
  std::vector<int> data(static_cast<std::size_t>(size));
  proxy::ProxyThread proxy(MPI_COMM_WORLD);
  std::vector<proxy::Plan> plans;
  for (int p = 0; p < 3 * size; ++p)
    plans.push_back(proxy.commit(proxy::PlanSpec("panel-" + std::to_string(p)).broadcast(MPI_COMM_WORLD, p % size, &data[static_cast<std::size_t>(p % size)], 1, MPI_INT)));
  for (int p = 0; p < 3 * size; ++p) {
    const int root = p % size;
    data[static_cast<std::size_t>(root)] = world_rank() == root ? p * 7 : -1;
    proxy.wait(proxy.start(plans[static_cast<std::size_t>(p)]));
    EXPECT_EQ(data[static_cast<std::size_t>(root)], p * 7) << "panel " << p;
  }
}

TEST(CollectivePlans, RootOutsideTheCommunicatorIsRefusedNamingPlanElementAndRoot) {
  int value = 0;
  proxy::ProxyThread proxy(MPI_COMM_WORLD);
  proxy::PlanSpec spec("bad-root");
  spec.allreduce(MPI_COMM_WORLD, &value, &value, 0, MPI_INT, MPI_SUM).broadcast(MPI_COMM_WORLD, world_size(), &value, 1, MPI_INT);
  try {
    proxy.commit(spec);
    FAIL() << "commit accepted a root outside the communicator";
  } catch (const proxy::Error& e) {
    EXPECT_EQ(std::string(e.what()), "plan 'bad-root': broadcast element 1 names root " + std::to_string(world_size()) +
                                         ", outside its communicator (size " + std::to_string(world_size()) + ")");
  }
  // The proxy is still usable, and a refused commit duplicated nothing it could leak into the next plan.
  const proxy::Plan good = proxy.commit(proxy::PlanSpec("good").broadcast(MPI_COMM_WORLD, 0, &value, 1, MPI_INT));
  value = world_rank() == 0 ? 42 : 0;
  proxy.wait(proxy.start(good));
  EXPECT_EQ(value, 42);
}

TEST(CollectivePlans, ReduceWithoutAnOperationIsRefused) {
  int value = 0;
  proxy::ProxyThread proxy(MPI_COMM_WORLD);
  try {
    proxy.commit(proxy::PlanSpec("no-op").reduce(MPI_COMM_WORLD, 0, &value, &value, 1, MPI_INT, MPI_OP_NULL));
    FAIL() << "commit accepted MPI_OP_NULL";
  } catch (const proxy::Error& e) {
    EXPECT_EQ(std::string(e.what()), "plan 'no-op': reduce element 0 has MPI_OP_NULL");
  }
}

TEST(CollectivePlans, ReduceTakesANullResultOffTheRootAsMpiDoes) {
  const int rank = world_rank(), size = world_size();
  std::vector<long> mine(100000), total(rank == 0 ? 100000 : 0);
  proxy::ProxyThread proxy(MPI_COMM_WORLD);
  const proxy::Plan plan = proxy.commit(proxy::PlanSpec("prk-reduce").reduce(
      MPI_COMM_WORLD, 0, mine.data(), rank == 0 ? total.data() : nullptr, 100000, MPI_LONG, MPI_SUM));
  for (long epoch = 1; epoch <= 3; ++epoch) {
    for (std::size_t i = 0; i < mine.size(); ++i) mine[i] = epoch * (rank + 1) + static_cast<long>(i);
    proxy.wait(proxy.start(plan));
    if (rank != 0) continue;
    const long ranks_sum = static_cast<long>(size) * (size + 1) / 2;
    for (std::size_t i = 0; i < total.size(); i += 9999)
      EXPECT_EQ(total[i], epoch * ranks_sum + static_cast<long>(size) * static_cast<long>(i)) << "epoch " << epoch;
  }
}

}  // namespace
