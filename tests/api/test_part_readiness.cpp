// Partitioned readiness (early-bird sends) on 1-4 ranks: a send waits for its parts, starts once they are
// ready, a receive waiting for parts lets nothing land in its buffer before they are, marking errors name plan, part and epoch, and parts may be marked by different threads (std::thread,
// so that ThreadSanitizer sees the hand-off; libgomp is not instrumented).
#include <gtest/gtest.h>
#include <mpi.h>

#include <chrono>
#include <thread>
#include <vector>

#include "mpi_test_util.hpp"
#include "proxy/core.hpp"

namespace {

using proxy::test_util::message_of;
using proxy::test_util::world_rank;
using proxy::test_util::world_size;

TEST(PartReadiness, SendLeavesOnlyWhenItsPartsAreReadyAndCarriesWhatWasWritten) {
  const int rank = world_rank(), size = world_size();
  const int right = (rank + 1) % size, left = (rank + size - 1) % size;
  constexpr int kParts = 4, kPer = 8;
  std::vector<double> out(kParts * kPer), in(kParts * kPer);
  proxy::ProxyThread proxy(MPI_COMM_WORLD);
  proxy::PlanSpec spec("early-bird");
  spec.parts(kParts);
  // Part p of the outgoing row leaves on its own, as soon as part p is ready.
  for (int p = 0; p < kParts; ++p) {
    spec.send_when_ready({p}, right, p, &out[p * kPer], kPer, MPI_DOUBLE);
    spec.recv(left, p, &in[p * kPer], kPer, MPI_DOUBLE);
  }
  const proxy::Plan plan = proxy.commit(spec);
  EXPECT_EQ(plan.part_count(), kParts);
  for (int epoch = 1; epoch <= 5; ++epoch) {
    const proxy::Ticket ticket = proxy.start(plan);
    std::vector<std::thread> workers;
    for (int p = 0; p < kParts; ++p)
      workers.emplace_back([&, p] {
        for (int i = 0; i < kPer; ++i) out[p * kPer + i] = epoch * 1e4 + rank * 100 + p * 10 + i;
        proxy.ready(ticket, p);  // written, then marked: the proxy sends what was written
      });
    proxy.wait(ticket);  // may complete before the joins: the sends left as their parts were marked
    for (auto& w : workers) w.join();
    for (int p = 0; p < kParts; ++p)
      for (int i = 0; i < kPer; ++i) ASSERT_EQ(in[p * kPer + i], epoch * 1e4 + left * 100 + p * 10 + i);
  }
}

TEST(PartReadiness, AHeldSendHoldsItsReceiverUntilMarked) {
  if (world_size() < 2) GTEST_SKIP() << "needs a peer";
  const int rank = world_rank(), size = world_size();
  const int right = (rank + 1) % size, left = (rank + size - 1) % size;
  int out = 0, in = -1;
  proxy::ProxyThread proxy(MPI_COMM_WORLD);
  proxy::PlanSpec spec("held");
  spec.parts(1).send_when_ready({0}, right, 0, &out, 1, MPI_INT).recv(left, 0, &in, 1, MPI_INT);
  const proxy::Plan plan = proxy.commit(spec);
  const proxy::Ticket ticket = proxy.start(plan);
  // No rank has marked its part: no send has started, so every receive must still be outstanding. The
  // short timeout is the point of this check (it cannot pass by luck: nothing was sent).
  try {
    proxy.wait(ticket, std::chrono::milliseconds(200));
    ADD_FAILURE() << "the plan completed before its part was marked ready";
  } catch (const proxy::TimeoutError& e) {
    EXPECT_NE(std::string(e.what()).find("send to rank " + std::to_string(right) + " tag 0 (4 bytes) waiting for parts 0"),
              std::string::npos) << e.what();
  }
  out = 7 + rank;
  proxy.ready(ticket, 0);
  proxy.wait(ticket);
  EXPECT_EQ(in, 7 + left);
}

TEST(PartReadiness, AHeldReceiveLetsNothingLandUntilItsReadersAreDone) {
  const int rank = world_rank(), size = world_size();
  const int right = (rank + 1) % size, left = (rank + size - 1) % size;
  int out = 7 + rank + 100, ghost = -1;  // epoch e sends 7 + rank + 100 e
  proxy::ProxyThread proxy(MPI_COMM_WORLD);
  proxy::PlanSpec spec("gated");
  // The send leaves at start; the receive into `ghost` is posted only once part 0 is ready.
  spec.parts(1).send(right, 0, &out, 1, MPI_INT).recv_when_ready({0}, left, 0, &ghost, 1, MPI_INT);
  const proxy::Plan plan = proxy.commit(spec);
  for (int epoch = 1; epoch <= 3; ++epoch) {
    const proxy::Ticket ticket = proxy.start(plan);
    // Every rank's message is on its way, but no receive is posted: the plan cannot complete and the
    // ghost keeps its old value. The short timeout is the point of this check (nothing can land by luck).
    try {
      proxy.wait(ticket, std::chrono::milliseconds(200));
      ADD_FAILURE() << "the plan completed before its receive's part was marked ready";
    } catch (const proxy::TimeoutError& e) {
      EXPECT_NE(std::string(e.what()).find("recv from rank " + std::to_string(left) + " tag 0 (4 bytes) waiting for parts 0"),
                std::string::npos) << e.what();
    }
    // Another thread still reads the old ghost, then marks: the new value lands only after that read.
    const int expected_old = epoch == 1 ? -1 : 7 + left + 100 * (epoch - 1);
    int seen = 0;
    std::thread reader([&] {
      seen = ghost;
      proxy.ready(ticket, 0);
    });
    proxy.wait(ticket);
    reader.join();
    EXPECT_EQ(seen, expected_old);
    EXPECT_EQ(ghost, 7 + left + 100 * epoch);
    out += 100;  // what the next epoch sends (the send completed with the wait)
  }
}

TEST(PartReadiness, MisuseIsRefusedNamingPlanPartAndEpoch) {
  const int rank = world_rank(), size = world_size();
  const int right = (rank + 1) % size, left = (rank + size - 1) % size;
  int out = rank, in = -1;
  proxy::ProxyThread proxy(MPI_COMM_WORLD);
  proxy::PlanSpec spec("parts");
  spec.parts(4).send_when_ready({1, 3}, right, 0, &out, 1, MPI_INT).recv(left, 0, &in, 1, MPI_INT);
  const proxy::Plan plan = proxy.commit(spec);
  const proxy::Ticket first = proxy.start(plan);
  EXPECT_EQ(message_of([&] { proxy.ready(first, 4); }), "plan 'parts': part 4 marked ready in epoch 1 is outside [0, 4)");
  EXPECT_EQ(message_of([&] { proxy.ready(first, -1); }), "plan 'parts': part -1 marked ready in epoch 1 is outside [0, 4)");
  proxy.ready(first, 1);
  EXPECT_EQ(message_of([&] { proxy.ready(first, 1); }), "plan 'parts': part 1 marked ready twice in epoch 1");
  proxy.ready(first, 3);
  proxy.wait(first);
  EXPECT_EQ(in, left);
  const proxy::Ticket second = proxy.start(plan);
  EXPECT_EQ(message_of([&] { proxy.ready(first, 1); }),
            "plan 'parts': part 1 marked ready for epoch 1, but the plan's current epoch is 2");
  proxy.ready(second, 3);
  proxy.ready(second, 1);
  proxy.wait(second);
}

TEST(PartReadiness, SpecsNamingUndeclaredPartsAreRefused) {
  int value = 0;
  proxy::ProxyThread proxy(MPI_COMM_WORLD);
  EXPECT_EQ(message_of([&] { proxy.commit(proxy::PlanSpec("undeclared").parts(2).send_when_ready({0, 5}, 0, 0, &value, 1, MPI_INT)); }),
            "plan 'undeclared': transfer 0 waits for part 5, outside [0, 2)");
  EXPECT_EQ(message_of([&] { proxy.commit(proxy::PlanSpec("twice").parts(2).send_when_ready({1, 1}, 0, 0, &value, 1, MPI_INT)); }),
            "plan 'twice': transfer 0 lists part 1 twice");
  EXPECT_EQ(message_of([&] { proxy::PlanSpec("negative").parts(-1); }), "plan 'negative': parts(-1): the count must be >= 0");
}

}  // namespace
