// Plans, tickets, closures and statistics on real MPI ranks (run on 2, 3 and 4 ranks).
#include <gtest/gtest.h>
#include <mpi.h>

#include <array>
#include <chrono>
#include <cstring>
#include <numeric>
#include <vector>

#include "proxy/core.hpp"
#include "mpi_test_util.hpp"

namespace {

using proxy::test_util::world_rank;
using proxy::test_util::world_size;

// A block of nx*ny*nz cells with one ghost layer, over a periodic px*py*pz process grid. Cell values
// encode the epoch and the global coordinates, so a ghost cell's expected value is known exactly.
class Halo3D {
 public:
  static constexpr std::array<int, 3> kLocal = {5, 4, 3};

  Halo3D() {
    MPI_Dims_create(world_size(), 3, dims_.data());
    const std::array<int, 3> periods = {1, 1, 1};
    MPI_Cart_create(MPI_COMM_WORLD, 3, dims_.data(), periods.data(), 0, &cart_);
    MPI_Cart_coords(cart_, world_rank(), 3, coords_.data());
    for (int d = 0; d < 3; ++d) ext_[d] = kLocal[d] + 2;
    cells_.assign(static_cast<std::size_t>(ext_[0] * ext_[1] * ext_[2]), -1.0);
  }
  ~Halo3D() {
    for (auto& t : types_) MPI_Type_free(&t);
    MPI_Comm_free(&cart_);
  }

  // The plan: for each dimension and direction, send my boundary face, receive the neighbour's into
  // my ghost face. Tag = 2*dim + (direction of travel) so that a rank that is its own or both
  // neighbours (periodic, few ranks) still matches faces correctly.
  proxy::PlanSpec spec() {
    proxy::PlanSpec spec("halo3d");
    for (int d = 0; d < 3; ++d) {
      int lower = 0, upper = 0;
      MPI_Cart_shift(cart_, d, 1, &lower, &upper);
      // send upward: my last interior plane -> upper's low ghost; receive from lower into my low ghost
      spec.send(upper, 2 * d, cells_.data(), 1, face(d, kLocal[d]));
      spec.recv(lower, 2 * d, cells_.data(), 1, face(d, 0));
      spec.send(lower, 2 * d + 1, cells_.data(), 1, face(d, 1));
      spec.recv(upper, 2 * d + 1, cells_.data(), 1, face(d, kLocal[d] + 1));
    }
    return spec;
  }

  void fill(int epoch) {
    for (int z = 1; z <= kLocal[2]; ++z)
      for (int y = 1; y <= kLocal[1]; ++y)
        for (int x = 1; x <= kLocal[0]; ++x) at(x, y, z) = value(epoch, {x, y, z});
  }

  // Number of ghost-face cells (not edges/corners, which a 6-face exchange does not fill) that differ.
  int wrong_ghosts(int epoch) {
    int wrong = 0;
    for (int z = 0; z < ext_[2]; ++z)
      for (int y = 0; y < ext_[1]; ++y)
        for (int x = 0; x < ext_[0]; ++x) {
          const std::array<int, 3> p = {x, y, z};
          int outside = 0;
          for (int d = 0; d < 3; ++d) outside += (p[d] == 0 || p[d] == ext_[d] - 1);
          if (outside != 1) continue;
          if (at(x, y, z) != value(epoch, p)) ++wrong;
        }
    return wrong;
  }

 private:
  // Value at local position p (ghosts included) = value of the owning cell, by global periodic coordinates.
  double value(int epoch, std::array<int, 3> p) const {
    double v = epoch * 1e6;
    const double scale[3] = {1e4, 1e2, 1};
    for (int d = 0; d < 3; ++d) {
      const int n = dims_[d] * kLocal[d];
      const int g = ((coords_[d] * kLocal[d] + p[d] - 1) % n + n) % n;
      v += scale[d] * g;
    }
    return v;
  }
  double& at(int x, int y, int z) { return cells_[static_cast<std::size_t>((z * ext_[1] + y) * ext_[0] + x)]; }

  MPI_Datatype face(int d, int index) {
    // C order subarray over (z, y, x): dimension d is index 2-d.
    int sizes[3] = {ext_[2], ext_[1], ext_[0]};
    int sub[3] = {kLocal[2], kLocal[1], kLocal[0]};
    int start[3] = {1, 1, 1};
    sub[2 - d] = 1;
    start[2 - d] = index;
    MPI_Datatype t;
    MPI_Type_create_subarray(3, sizes, sub, start, MPI_ORDER_C, MPI_DOUBLE, &t);
    MPI_Type_commit(&t);
    types_.push_back(t);
    return t;
  }

  std::array<int, 3> dims_ = {0, 0, 0};
  std::array<int, 3> coords_ = {0, 0, 0};
  std::array<int, 3> ext_ = {0, 0, 0};
  MPI_Comm cart_ = MPI_COMM_NULL;
  std::vector<MPI_Datatype> types_;
  std::vector<double> cells_;
};

TEST(Plan, HaloExchangeOverPeriodicGridDeliversExactValuesFor500Epochs) {
  Halo3D halo;
  proxy::PlanSpec spec = halo.spec();  // datatypes built on this thread before the proxy starts
  proxy::ProxyThread proxy;
  proxy::Plan plan = proxy.commit(spec);
  EXPECT_EQ(plan.transfer_count(), 12u);
  int first_bad_epoch = -1;
  for (int epoch = 1; epoch <= 500; ++epoch) {
    halo.fill(epoch);
    const proxy::Ticket ticket = proxy.start(plan);
    EXPECT_EQ(ticket.epoch, static_cast<std::uint64_t>(epoch));
    proxy.wait(ticket);
    // Completion means my sends may be reused and my ghosts are filled; a neighbour's next-epoch message
    // cannot land in my ghosts before I start my next epoch, so no barrier is needed between epochs.
    if (halo.wrong_ghosts(epoch) != 0 && first_bad_epoch < 0) first_bad_epoch = epoch;
  }
  EXPECT_EQ(first_bad_epoch, -1) << "ghost values wrong from epoch " << first_bad_epoch;

  const auto stats = proxy.statistics();
  ASSERT_EQ(stats.plans.size(), 1u);
  EXPECT_EQ(stats.plans[0].name, "halo3d");
  EXPECT_EQ(stats.plans[0].starts, 500u);
  // 6 faces sent + 6 received per epoch: 2 * 8 * (5*4*... ) bytes: x faces 4*3, y faces 5*3, z faces 5*4.
  EXPECT_EQ(stats.plans[0].bytes, 500u * 2u * 2u * 8u * (4u * 3u + 5u * 3u + 5u * 4u));
  EXPECT_GT(stats.commands, 500u);
  EXPECT_GE(stats.queue_high_water, 1u);
}

// Rank 0 receives from rank 1, which sends only after rank 0 says "go": so rank 0 can observe its
// plan's epoch incomplete without relying on timing.
TEST(Plan, TestIsFalseBeforeCompletionAndWaitIsImmediateAfter) {
  proxy::ProxyThread proxy;
  const int rank = proxy.rank();
  int payload = -1, go = 0;
  proxy::PlanSpec data_spec("data"), go_spec("go");
  if (rank == 0) {
    data_spec.recv(1, 7, &payload, 1, MPI_INT);
    go_spec.send(1, 8, &go, 1, MPI_INT);
  } else if (rank == 1) {
    data_spec.send(0, 7, &payload, 1, MPI_INT);
    go_spec.recv(0, 8, &go, 1, MPI_INT);
  }
  proxy::Plan data = proxy.commit(data_spec);
  proxy::Plan go_plan = proxy.commit(go_spec);
  for (int round = 1; round <= 20; ++round) {
    if (rank == 0) {
      const proxy::Ticket t = proxy.start(data);
      EXPECT_FALSE(proxy.test(t)) << "round " << round << ": completed before the peer could send";
      try {
        proxy.start(data);
        ADD_FAILURE() << "restart of an incomplete plan was accepted";
      } catch (const proxy::Error& e) {
        EXPECT_EQ(std::string(e.what()), "plan 'data' started again (epoch " + std::to_string(round + 1) +
                                             ") before epoch " + std::to_string(round) +
                                             " completed: wait on its ticket first");
      }
      go = round;
      proxy.wait(proxy.start(go_plan));
      proxy.wait(t);
      EXPECT_EQ(payload, 100 * round);
      EXPECT_TRUE(proxy.test(t));
      proxy.wait(t, std::chrono::milliseconds(0));  // complete: no waiting, no timeout
    } else if (rank == 1) {
      proxy.wait(proxy.start(go_plan));
      EXPECT_EQ(go, round);
      payload = 100 * round;
      proxy.wait(proxy.start(data));
    }
  }
}

// A timeout lists what is still outstanding in the epoch waited on: a send that completed in it is not
// listed (its slot is stamped with the epoch), whatever earlier epochs did. Each rank sends tag 8 to the
// right and receives tag 9 from the left; in epoch 3 tag 9 comes only after every rank's timed-out wait.
TEST(Plan, ATimeoutListsOnlyWhatIsOutstandingInItsEpoch) {
  proxy::ProxyThread proxy;
  const int rank = proxy.rank(), size = proxy.size();
  const int right = (rank + 1) % size, left = (rank + size - 1) % size;
  int out = rank, half_in = -1, caught = -1, late_out = rank;
  proxy::PlanSpec half_spec("half"), catch_spec("catch"), late_spec("late");
  half_spec.send(right, 8, &out, 1, MPI_INT).recv(left, 9, &half_in, 1, MPI_INT);
  catch_spec.recv(left, 8, &caught, 1, MPI_INT);
  late_spec.send(right, 9, &late_out, 1, MPI_INT);
  const proxy::Plan half = proxy.commit(half_spec), catcher = proxy.commit(catch_spec), late = proxy.commit(late_spec);
  for (int epoch = 1; epoch <= 3; ++epoch) {
    const proxy::Ticket ticket = proxy.start(half);
    proxy.wait(proxy.start(catcher));
    EXPECT_EQ(caught, left);
    if (epoch == 3) {
      // Every rank's catch has completed: every tag-8 send has been received, so only the receive is left.
      proxy.call([&] { MPI_Barrier(proxy.comm()); });
      try {
        proxy.wait(ticket, std::chrono::milliseconds(500));  // the failure is the point
        ADD_FAILURE() << "epoch 3 completed without its tag-9 message";
      } catch (const proxy::TimeoutError& e) {
        EXPECT_EQ(std::string(e.what()), "plan 'half' epoch 3, peer rank " + std::to_string(left) +
                                             ": wait timed out after 0.5 s on rank " + std::to_string(rank) +
                                             "; outstanding: recv from rank " + std::to_string(left) +
                                             " tag 9 (4 bytes)");
      }
      proxy.call([&] { MPI_Barrier(proxy.comm()); });  // every rank has timed out before tag 9 goes
    }
    proxy.wait(proxy.start(late));
    proxy.wait(ticket);
    EXPECT_EQ(half_in, left) << "epoch " << epoch;
    half_in = -1;
  }
}

// A timeout in a plan with many transfers outstanding (an all-to-all on many ranks) lists the first 16 and
// says how many more there are. Each rank receives 20 messages from the left that are sent only after
// every rank's wait has timed out.
TEST(Plan, ATimeoutCountsTheOutstandingTransfersItDoesNotList) {
  proxy::ProxyThread proxy;
  const int rank = proxy.rank(), size = proxy.size();
  const int right = (rank + 1) % size, left = (rank + size - 1) % size;
  constexpr int kMessages = 20;
  std::array<int, kMessages> out{}, in{};
  proxy::PlanSpec wide_spec("wide"), send_spec("wide-sends");
  for (int k = 0; k < kMessages; ++k) {
    out[k] = 100 * rank + k;
    wide_spec.recv(left, 20 + k, &in[k], 1, MPI_INT);
    send_spec.send(right, 20 + k, &out[k], 1, MPI_INT);
  }
  const proxy::Plan wide = proxy.commit(wide_spec), sends = proxy.commit(send_spec);
  const proxy::Ticket ticket = proxy.start(wide);
  std::string expected = "plan 'wide' epoch 1, peer rank " + std::to_string(left) +
                         ": wait timed out after 0.3 s on rank " + std::to_string(rank) + "; outstanding: ";
  for (int k = 0; k < 16; ++k)
    expected += std::string(k ? "; " : "") + "recv from rank " + std::to_string(left) + " tag " +
                std::to_string(20 + k) + " (4 bytes)";
  expected += "; ... (4 more)";
  try {
    proxy.wait(ticket, std::chrono::milliseconds(300));  // the failure is the point
    ADD_FAILURE() << "the receives completed before their messages were sent";
  } catch (const proxy::TimeoutError& e) {
    EXPECT_EQ(std::string(e.what()), expected);
  }
  proxy.call([&] { MPI_Barrier(proxy.comm()); });  // every rank has timed out before the messages go
  proxy.wait(proxy.start(sends));
  proxy.wait(ticket);
  for (int k = 0; k < kMessages; ++k) EXPECT_EQ(in[k], 100 * left + k);
}

// A receive too short for its message fails its epoch with the transfer named: tested alone (the waiter's
// lean pass, ProgressLoop::pass_for) and beside another active plan (the whole pass).
TEST(Plan, AFailedTransferIsNamedWithItsPeerAndEpoch) {
  proxy::ProxyThread proxy;
  const int rank = proxy.rank(), size = proxy.size();
  const int right = (rank + 1) % size, left = (rank + size - 1) % size;
  for (const bool beside_another : {false, true}) {
    const int tag = beside_another ? 11 : 10;
    std::array<int, 2> out = {rank, rank};
    int in = -1, other_in = -1, other_out = rank;
    proxy::PlanSpec short_spec(beside_another ? "short-beside" : "short"), other_spec("other"), go_spec("go");
    short_spec.send(right, tag, out.data(), 2, MPI_INT).recv(left, tag, &in, 1, MPI_INT);
    other_spec.recv(left, 12, &other_in, 1, MPI_INT);
    go_spec.send(right, 12, &other_out, 1, MPI_INT);
    const proxy::Plan short_plan = proxy.commit(short_spec), other = proxy.commit(other_spec),
                      go = proxy.commit(go_spec);
    proxy::Ticket other_ticket;
    if (beside_another) other_ticket = proxy.start(other);  // active until `go` sends
    const proxy::Ticket ticket = proxy.start(short_plan);
    try {
      proxy.wait(ticket);
      ADD_FAILURE() << "a 4-byte receive of an 8-byte message completed";
    } catch (const proxy::CommError& e) {
      const std::string expected = "plan '" + short_spec.name() + "' epoch 1, peer rank " + std::to_string(left) +
                                   ": recv from rank " + std::to_string(left) + " tag " + std::to_string(tag) +
                                   " (4 bytes) failed: ";
      EXPECT_EQ(std::string(e.what()).substr(0, expected.size()), expected);
      EXPECT_GT(std::string(e.what()).size(), expected.size());  // MPI's own words follow
      EXPECT_EQ(e.peer(), left);
      EXPECT_EQ(e.epoch(), 1u);
    }
    if (beside_another) {
      proxy.wait(proxy.start(go));
      proxy.wait(other_ticket);
      EXPECT_EQ(other_in, left);
    }
    proxy.call([&] { MPI_Barrier(proxy.comm()); });  // every rank's short message is gone before the next case
  }
}

TEST(Plan, CommitRefusesAPeerOutsideTheCommunicatorNamingIt) {
  proxy::ProxyThread proxy;
  int x = 0;
  proxy::PlanSpec spec("bad-peer");
  spec.send(proxy.size(), 0, &x, 1, MPI_INT);
  try {
    proxy.commit(spec);
    FAIL() << "commit accepted rank " << proxy.size();
  } catch (const proxy::Error& e) {
    EXPECT_EQ(std::string(e.what()), "plan 'bad-peer': transfer 0 names rank " + std::to_string(proxy.size()) +
                                         ", outside the communicator (size " + std::to_string(proxy.size()) + ")");
  }
  proxy::PlanSpec negative("negative-peer");
  negative.recv(-3, 0, &x, 1, MPI_INT);
  EXPECT_THROW(proxy.commit(negative), proxy::Error);
  proxy::PlanSpec tag("bad-tag");
  tag.recv(0, -1, &x, 1, MPI_INT);
  EXPECT_THROW(proxy.commit(tag), proxy::Error);
}

TEST(Plan, ProcNullTransfersAreSkipped) {
  proxy::ProxyThread proxy;
  int x = 5;
  proxy::PlanSpec spec("nothing");
  spec.send(MPI_PROC_NULL, 0, &x, 1, MPI_INT).recv(MPI_PROC_NULL, 0, &x, 1, MPI_INT);
  proxy::Plan plan = proxy.commit(spec);
  EXPECT_EQ(plan.transfer_count(), 0u);
  for (int i = 0; i < 3; ++i) proxy.wait(proxy.start(plan));
  EXPECT_EQ(x, 5);
}

TEST(Plan, PackedRingTransfersRunCallbacksOnTheProxy) {
  proxy::ProxyThread proxy;
  const int rank = proxy.rank(), size = proxy.size();
  std::vector<long> outgoing(100), incoming(100, -1);
  proxy::PlanSpec spec("packed-ring");
  spec.send_packed((rank + 1) % size, 3, sizeof(long) * outgoing.size(),
                   [&](std::byte* staging) { std::memcpy(staging, outgoing.data(), sizeof(long) * outgoing.size()); });
  spec.recv_packed((rank + size - 1) % size, 3, sizeof(long) * incoming.size(), [&](const std::byte* staging) {
    std::memcpy(incoming.data(), staging, sizeof(long) * incoming.size());
  });
  proxy::Plan plan = proxy.commit(spec);
  const int from = (rank + size - 1) % size;
  for (int epoch = 1; epoch <= 50; ++epoch) {
    for (std::size_t i = 0; i < outgoing.size(); ++i) outgoing[i] = 1000L * epoch + 10L * rank + static_cast<long>(i);
    proxy.wait(proxy.start(plan));
    int wrong = 0;
    for (std::size_t i = 0; i < incoming.size(); ++i)
      wrong += incoming[i] != 1000L * epoch + 10L * from + static_cast<long>(i);
    ASSERT_EQ(wrong, 0) << "epoch " << epoch;
  }
}

TEST(Closure, TrackedNonBlockingCollectiveCompletesTheTicket) {
  proxy::ProxyThread proxy;
  const int size = proxy.size();
  long mine = proxy.rank() + 1, sum = 0;
  proxy::Ticket t = proxy.submit([&](proxy::ClosureContext& ctx) {
    MPI_Request r;
    MPI_Iallreduce(&mine, &sum, 1, MPI_LONG, MPI_SUM, ctx.comm(), &r);
    ctx.track(r);
  });
  proxy.wait(t);
  EXPECT_EQ(sum, static_cast<long>(size) * (size + 1) / 2);
  // call() returns the closure's value, computed on the proxy thread.
  EXPECT_EQ(proxy.call([&] {
              int r = -1;
              MPI_Comm_rank(proxy.comm(), &r);
              return r;
            }),
            proxy.rank());
}

TEST(Closure, ExceptionOnTheProxyIsRethrownToTheWaiterAsCommError) {
  proxy::ProxyThread proxy;
  proxy::Ticket t = proxy.submit([](proxy::ClosureContext&) { throw std::runtime_error("boom"); });
  try {
    proxy.wait(t);
    FAIL() << "no error";
  } catch (const proxy::CommError& e) {
    EXPECT_EQ(std::string(e.what()), "closure 'closure' epoch 1: boom");
    EXPECT_EQ(e.epoch(), 1u);
  }
}

TEST(Closure, FullQueueAppliesBackPressureAndDropsNothing) {
  proxy::Config config;
  config.queue_capacity = 4;
  config.wait_policy = proxy::WaitPolicy::block;
  proxy::ProxyThread proxy(MPI_COMM_WORLD, config);
  std::vector<int> order;  // touched only on the proxy thread
  std::vector<proxy::Ticket> tickets;
  for (int i = 0; i < 200; ++i)
    tickets.push_back(proxy.submit([&order, i](proxy::ClosureContext&) {
      if (i == 0) std::this_thread::sleep_for(std::chrono::milliseconds(20));
      order.push_back(i);
    }));
  for (auto& t : tickets) proxy.wait(t);
  std::vector<int> expected(200);
  std::iota(expected.begin(), expected.end(), 0);
  EXPECT_EQ(order, expected);
  const auto stats = proxy.statistics();
  EXPECT_LE(stats.queue_high_water, 4u);
  EXPECT_EQ(stats.commands, 200u);
}

TEST(ProxyThread, ManyComputeThreadsStartAndWaitConcurrently) {
  proxy::ProxyThread proxy;
  const int rank = proxy.rank(), size = proxy.size();
  constexpr int kThreads = 4;
  std::array<std::array<int, 2>, kThreads> buffers{};
  std::vector<proxy::Plan> plans;
  for (int t = 0; t < kThreads; ++t) {
    proxy::PlanSpec spec("thread-" + std::to_string(t));
    spec.send((rank + 1) % size, 100 + t, &buffers[t][0], 1, MPI_INT)
        .recv((rank + size - 1) % size, 100 + t, &buffers[t][1], 1, MPI_INT);
    plans.push_back(proxy.commit(spec));
  }
  std::atomic<int> wrong{0};
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t)
    threads.emplace_back([&, t] {
      for (int epoch = 1; epoch <= 100; ++epoch) {
        buffers[t][0] = epoch * 100 + rank;
        proxy.wait(proxy.start(plans[t]));
        if (buffers[t][1] != epoch * 100 + (rank + size - 1) % size) ++wrong;
      }
    });
  for (auto& th : threads) th.join();
  EXPECT_EQ(wrong.load(), 0);
}

}  // namespace
