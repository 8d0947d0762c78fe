// Node collectives (team + proxy + team) on 1-4 real MPI ranks, each rank standing for a node with a team
// of threads, against MPI on the same data: the reference is MPI_Allreduce / MPI_Reduce / MPI_Bcast of
// each rank's serial reduction over its threads, which for the exact inputs used here (small integers in
// every type) equals MPI_Allreduce over one rank per thread bit for bit. Random floating sums are checked
// to the bound |computed - reference| <= 2 (N - 1) eps sum |x| over the N = ranks * threads contributions.
#include <gtest/gtest.h>
#include <mpi.h>
#include <sys/resource.h>
#include <unistd.h>

#include <cmath>
#include <cstdint>
#include <cstring>
#include <fstream>
#include <functional>
#include <limits>
#include <string>
#include <vector>

#include "proxy/error.hpp"
#include "proxy/node_collectives.hpp"
#include "proxy/proxy_thread.hpp"
#include "proxy/reduction_mpi.hpp"
#include "proxy/team.hpp"
#include "team_test_support.hpp"
#include "mpi_test_util.hpp"

namespace {

using namespace proxy;
using namespace proxy::testing;
using Buffers = std::vector<std::vector<unsigned char>>;

// One rank's world for a test: proxy, team and node collectives with small segments (so that 1000
// doubles already pipeline).
struct Node {
  explicit Node(int threads, int max_outstanding = 16, ProgressStrategy strategy = ProgressStrategy::dedicated)
      : proxy(MPI_COMM_WORLD, config_with(strategy)), team(threads, test_config()),
        collectives(proxy, team, proxy.comm(), [&] {
          NodeCollectivesConfig c;
          c.segment_bytes = 8192;
          c.max_outstanding = max_outstanding;
          return c;
        }()) {}
  static Config config_with(ProgressStrategy strategy) {
    Config config = Config::from_env();
    config.progress = strategy;
    return config;
  }
  ProxyThread proxy;
  Team team;
  NodeCollectives collectives;
};

using proxy::test_util::world_rank;
using proxy::test_util::world_size;

class NodeAllreduce : public ::testing::TestWithParam<int> {};

TEST_P(NodeAllreduce, MatchesMpiAllreduceForEveryTypeOpSizeInPlace) {
  const int threads = GetParam();
  const int rank = world_rank();
  Node node(threads);
  for (auto type : {DataType::float32, DataType::float64, DataType::int32, DataType::int64}) {
    for (auto op : {ReduceOp::sum, ReduceOp::prod, ReduceOp::min, ReduceOp::max}) {
      const Reduction r = Reduction::builtin(type, op);
      for (std::size_t count : {0, 1, 2, 3, 7, 1000, 65537}) {
        for (bool in_place : {false, true}) {
          const std::size_t bytes = count * r.element_size();
          Buffers in(threads, std::vector<unsigned char>(bytes + 1));
          for (int t = 0; t < threads; ++t) fill_input(r, rank * threads + t, in[t].data(), count);
          std::vector<unsigned char> expected(bytes + 1);
          reference(r, in, expected.data(), count);
          if (count > 0)
            node.proxy.call([&] {
              MPI_Allreduce(MPI_IN_PLACE, expected.data(), int(count), mpi_datatype(type), mpi_op(op), node.proxy.comm());
            });
          Buffers out = in_place ? in : Buffers(threads, std::vector<unsigned char>(bytes + 1, 0x5a));
          run_threads(threads, [&](int t) {
            auto request = node.collectives.allreduce(t, in_place ? nullptr : in[t].data(), out[t].data(), count, r);
            node.collectives.wait(t, request);
          });
          for (int t = 0; t < threads; ++t)
            ASSERT_EQ(0, std::memcmp(out[t].data(), expected.data(), bytes))
                << to_string(type) << " " << to_string(op) << " count " << count << (in_place ? " in place" : "")
                << " thread " << t << " rank " << rank;
        }
      }
    }
  }
}

TEST_P(NodeAllreduce, RandomFloatSumWithinRoundingBound) {
  const int threads = GetParam();
  const int rank = world_rank(), ranks = world_size();
  Node node(threads);
  const std::size_t count = 20000;
  std::vector<std::vector<double>> in(threads, std::vector<double>(count)), out = in;
  std::vector<double> serial(count, 0.0), magnitude(count, 0.0);
  for (int t = 0; t < threads; ++t)
    for (std::size_t i = 0; i < count; ++i) {
      in[t][i] = std::sin(0.3 + (rank * threads + t) * 3.7 + i * 0.01) * 1e3;
      serial[i] += in[t][i];
      magnitude[i] += std::fabs(in[t][i]);
    }
  node.proxy.call([&] {
    MPI_Allreduce(MPI_IN_PLACE, serial.data(), int(count), MPI_DOUBLE, MPI_SUM, node.proxy.comm());
    MPI_Allreduce(MPI_IN_PLACE, magnitude.data(), int(count), MPI_DOUBLE, MPI_SUM, node.proxy.comm());
  });
  run_threads(threads, [&](int t) {
    auto request = node.collectives.allreduce(t, in[t].data(), out[t].data(), count,
                                              Reduction::builtin(DataType::float64, ReduceOp::sum));
    node.collectives.wait(t, request);
  });
  const double n = double(ranks * threads);
  for (std::size_t i = 0; i < count; ++i) {
    const double bound = 2 * (n - 1) * std::numeric_limits<double>::epsilon() * magnitude[i];
    for (int t = 0; t < threads; ++t) {
      ASSERT_LE(std::fabs(out[t][i] - serial[i]), bound) << "element " << i << " thread " << t;
      ASSERT_EQ(out[t][i], out[0][i]) << "threads of one rank disagree";
    }
  }
  // All ranks must hold the same bits too (one inter-node result, broadcast).
  std::vector<double> first = out[0];
  node.proxy.call([&] { MPI_Bcast(first.data(), int(count), MPI_DOUBLE, 0, node.proxy.comm()); });
  EXPECT_EQ(0, std::memcmp(first.data(), out[0].data(), count * sizeof(double))) << "ranks disagree";
}

TEST_P(NodeAllreduce, ManyOutstandingCompleteInAnyWaitOrder) {
  const int threads = GetParam();
  const int rank = world_rank(), ranks = world_size();
  constexpr int kRequests = 16;
  Node node(threads, kRequests);
  const std::size_t count = 6000;  // 3 segments of 8 KiB, pipelined
  std::vector<std::vector<std::vector<std::int32_t>>> data(
      kRequests, std::vector<std::vector<std::int32_t>>(threads, std::vector<std::int32_t>(count)));
  for (bool reverse : {false, true}) {
    for (int q = 0; q < kRequests; ++q)
      for (int t = 0; t < threads; ++t)
        for (std::size_t i = 0; i < count; ++i) data[q][t][i] = q + (rank * threads + t) + int(i % 100);
    run_threads(threads, [&](int t) {
      std::vector<NodeRequest> requests;
      for (int q = 0; q < kRequests; ++q)
        requests.push_back(node.collectives.allreduce(t, nullptr, data[q][t].data(), count,
                                                      Reduction::builtin(DataType::int32, ReduceOp::sum)));
      for (int q = 0; q < kRequests; ++q) node.collectives.wait(t, requests[reverse ? kRequests - 1 - q : q]);
    });
    const int n = ranks * threads;
    for (int q = 0; q < kRequests; ++q)
      for (int t = 0; t < threads; ++t)
        for (std::size_t i = 0; i < count; ++i)
          ASSERT_EQ(data[q][t][i], n * (q + int(i % 100)) + n * (n - 1) / 2)
              << "request " << q << " thread " << t << " element " << i << (reverse ? " (reverse waits)" : "");
  }
}

TEST_P(NodeAllreduce, ReduceToEveryRootMatchesMpiReduce) {
  const int threads = GetParam();
  const int rank = world_rank(), ranks = world_size();
  Node node(threads);
  for (const auto& r : {Reduction::builtin(DataType::float64, ReduceOp::sum), Reduction::builtin(DataType::int32, ReduceOp::max),
                        Reduction::builtin(DataType::int64, ReduceOp::prod)}) {
    for (std::size_t count : {1, 1000, 65537}) {
      for (int root_rank = 0; root_rank < ranks; ++root_rank) {
        for (int root_thread : {0, threads - 1}) {
          const std::size_t bytes = count * r.element_size();
          Buffers in(threads, std::vector<unsigned char>(bytes + 1));
          for (int t = 0; t < threads; ++t) fill_input(r, rank * threads + t, in[t].data(), count);
          std::vector<unsigned char> local(bytes + 1), expected(bytes + 1);
          reference(r, in, local.data(), count);
          node.proxy.call([&] {
            MPI_Reduce(local.data(), expected.data(), int(count), mpi_datatype(r.type), mpi_op(r.op), root_rank,
                       node.proxy.comm());
          });
          std::vector<unsigned char> result(bytes + 1, 0x77);
          run_threads(threads, [&](int t) {
            const bool root = rank == root_rank && t == root_thread;
            auto request = node.collectives.reduce(t, in[t].data(), root ? result.data() : nullptr, count, r,
                                                   root_rank, root_thread);
            node.collectives.wait(t, request);
          });
          if (rank == root_rank)
            ASSERT_EQ(0, std::memcmp(result.data(), expected.data(), bytes))
                << to_string(r.type) << " " << to_string(r.op) << " count " << count << " root " << root_rank << "/"
                << root_thread;
        }
      }
    }
  }
}

TEST_P(NodeAllreduce, BroadcastFromEveryRootMatchesMpiBcast) {
  const int threads = GetParam();
  const int rank = world_rank(), ranks = world_size();
  Node node(threads);
  for (std::size_t bytes : {0, 1, 7, 1000, 65537 * 8}) {
    for (int root_rank = 0; root_rank < ranks; ++root_rank) {
      for (int root_thread = 0; root_thread < threads; ++root_thread) {
        Buffers buffers(threads, std::vector<unsigned char>(bytes + 1));
        for (int t = 0; t < threads; ++t)
          for (std::size_t i = 0; i < bytes; ++i) buffers[t][i] = static_cast<unsigned char>(i * 13 + rank * 5 + t);
        std::vector<unsigned char> expected = buffers[root_thread];
        if (bytes > 0)
          node.proxy.call([&] { MPI_Bcast(expected.data(), int(bytes), MPI_BYTE, root_rank, node.proxy.comm()); });
        run_threads(threads, [&](int t) {
          auto request = node.collectives.broadcast(t, buffers[t].data(), bytes, root_rank, root_thread);
          node.collectives.wait(t, request);
        });
        for (int t = 0; t < threads; ++t)
          ASSERT_EQ(0, std::memcmp(buffers[t].data(), expected.data(), bytes))
              << "bytes " << bytes << " root " << root_rank << "/" << root_thread << " thread " << t;
      }
    }
  }
}

TEST_P(NodeAllreduce, BarriersInterleavedWithOtherCollectives) {
  const int threads = GetParam();
  const int ranks = world_size();
  Node node(threads);
  std::vector<std::int64_t> values(threads);
  run_threads(threads, [&](int t) {
    for (int round = 0; round < 20; ++round) {
      auto barrier = node.collectives.barrier(t);
      values[t] = round;
      auto sum = node.collectives.allreduce(t, nullptr, &values[t], 1, Reduction::builtin(DataType::int64, ReduceOp::sum));
      node.collectives.wait(t, barrier);
      node.collectives.wait(t, sum);
      if (values[t] != std::int64_t(round) * ranks * threads) throw Error("round " + std::to_string(round) + " wrong sum");
    }
  });
}

// A rank alone (one node) has no inter-node phase: every collective is its team's, and nothing goes through
// the proxy's queue; with more ranks every one does. Values are checked against MPI either way, and the
// outstanding limit still counts requests until they are waited.
TEST_P(NodeAllreduce, OneRankRunsTheTeamCollectiveWithoutTheProxy) {
  const int threads = GetParam();
  const int rank = world_rank(), ranks = world_size();
  Node node(threads);
  const Reduction r = Reduction::builtin(DataType::int32, ReduceOp::sum);
  const std::size_t count = 3000;  // 2 segments of 8192 bytes
  Buffers in(threads, std::vector<unsigned char>(count * 4));
  for (int t = 0; t < threads; ++t) fill_input(r, (rank * threads + t) * 7, in[t].data(), count);
  std::vector<unsigned char> expected(count * 4);
  reference(r, in, expected.data(), count);
  node.proxy.call([&] { MPI_Allreduce(MPI_IN_PLACE, expected.data(), int(count), MPI_INT32_T, MPI_SUM, node.proxy.comm()); });
  const std::uint64_t before = node.proxy.statistics().commands;
  Buffers sum(threads, std::vector<unsigned char>(count * 4)), reduced(threads, std::vector<unsigned char>(count * 4));
  std::vector<std::int32_t> value(threads, -1);
  std::vector<char> complete_at_start(threads, 0);
  run_threads(threads, [&](int t) {
    auto all = node.collectives.allreduce(t, in[t].data(), sum[t].data(), count, r);
    auto root = node.collectives.reduce(t, in[t].data(), reduced[t].data(), count, r, 0, threads - 1);
    value[t] = rank == 0 && t == 0 ? 4242 : -1;
    node.collectives.wait(t, all);
    node.collectives.wait(t, root);
    auto bcast = node.collectives.broadcast(t, &value[t], sizeof(std::int32_t), 0, 0);
    auto barrier = node.collectives.barrier(t);
    complete_at_start[t] = node.collectives.test(bcast) && node.collectives.test(barrier);
    node.collectives.wait(t, bcast);
    node.collectives.wait(t, barrier);
  });
  const std::uint64_t commands = node.proxy.statistics().commands - before;
  if (ranks == 1)
    EXPECT_EQ(commands, 0u);
  else
    EXPECT_GE(commands, 4u);  // one per collective at least
  for (int t = 0; t < threads; ++t) {
    EXPECT_EQ(0, std::memcmp(sum[t].data(), expected.data(), count * 4)) << "allreduce, thread " << t;
    EXPECT_EQ(value[t], 4242) << "broadcast, thread " << t;
    if (ranks == 1) EXPECT_TRUE(complete_at_start[t]) << "thread " << t;
  }
  if (rank == 0) EXPECT_EQ(0, std::memcmp(reduced[threads - 1].data(), expected.data(), count * 4)) << "reduce";
}

INSTANTIATE_TEST_SUITE_P(Threads, NodeAllreduce, ::testing::Values(1, 2, 3),
                         [](const auto& info) { return std::to_string(info.param) + "threads"; });

// Cooperative progress (the proxy thread sleeps; whoever waits moves the work): the threads waiting for a
// segment run the proxy's passes themselves, so allreduces of several segments and broadcasts still match
// MPI, round after round (before the waiters stepped, each took the proxy's 20 ms backstop).
TEST_P(NodeAllreduce, CooperativeProgressMatchesMpi) {
  const int threads = GetParam();
  const int rank = world_rank();
  Node node(threads, 16, ProgressStrategy::cooperative);
  ASSERT_EQ(node.proxy.progress_strategy(), ProgressStrategy::cooperative);
  const Reduction r = Reduction::builtin(DataType::int64, ReduceOp::sum);
  const std::size_t count = 5000;  // 5 segments of 8192 bytes
  for (int round = 0; round < 20; ++round) {
    Buffers in(threads, std::vector<unsigned char>(count * 8));
    for (int t = 0; t < threads; ++t) fill_input(r, (rank * threads + t) * 31 + round, in[t].data(), count);
    std::vector<unsigned char> expected(count * 8);
    reference(r, in, expected.data(), count);
    node.proxy.call([&] {
      MPI_Allreduce(MPI_IN_PLACE, expected.data(), int(count), MPI_INT64_T, MPI_SUM, node.proxy.comm());
    });
    Buffers out(threads, std::vector<unsigned char>(count * 8));
    std::vector<std::int64_t> root_value(threads, -1);
    run_threads(threads, [&](int t) {
      auto request = node.collectives.allreduce(t, in[t].data(), out[t].data(), count, r);
      node.collectives.wait(t, request);
      std::int64_t value = rank == 0 && t == 0 ? 1000 + round : -1;
      auto broadcast = node.collectives.broadcast(t, &value, sizeof value, 0, 0);
      node.collectives.wait(t, broadcast);
      root_value[t] = value;
    });
    for (int t = 0; t < threads; ++t) {
      ASSERT_EQ(0, std::memcmp(out[t].data(), expected.data(), count * 8)) << "round " << round << " thread " << t;
      ASSERT_EQ(root_value[t], 1000 + round) << "round " << round << " thread " << t;
    }
  }
}

TEST(NodeCollectivesErrors, TooManyOutstandingAndUserOpsAreRefusedOnEveryThread) {
  Node node(2, 2);
  std::vector<std::int32_t> a(2, 1), b(2, 1), c(2, 1), d(2, 1);
  std::vector<std::string> messages(2);
  run_threads(2, [&](int t) {
    auto r1 = node.collectives.allreduce(t, nullptr, &a[t], 1, Reduction::builtin(DataType::int32, ReduceOp::sum));
    auto r2 = node.collectives.allreduce(t, nullptr, &b[t], 1, Reduction::builtin(DataType::int32, ReduceOp::sum));
    try {
      node.collectives.allreduce(t, nullptr, &c[t], 1, Reduction::builtin(DataType::int32, ReduceOp::sum));
    } catch (const Error& e) {
      messages[t] = e.what();
    }
    node.collectives.wait(t, r1);
    node.collectives.wait(t, r2);
    try {
      node.collectives.allreduce(t, nullptr, &d[t], 1, commutative_user());
    } catch (const Error& e) {
      messages[t] += std::string(" | ") + e.what();
    }
  });
  for (int t = 0; t < 2; ++t)
    EXPECT_EQ(messages[t],
              "node collective: thread " + std::to_string(t) +
                  " started more than 2 requests without waiting (slot 0 still pending; raise max_outstanding or "
                  "wait first) | node collective: user-defined operations are not supported across ranks (an MPI_Op "
                  "cannot carry the user context); use sum, prod, min or max");
  EXPECT_EQ(a[0], 2 * world_size());
  EXPECT_EQ(b[1], 2 * world_size());
}

// What fn throws as proxy::Error, or "(no exception)".
std::string refusal(const std::function<void()>& fn) {
  try {
    fn();
  } catch (const Error& e) {
    return e.what();
  }
  return "(no exception)";
}

// Arguments outside the team or the communicator are refused before anything starts (no slot taken), naming
// the value and the bound; so is a wait on a request waited already. The team still runs a collective after.
TEST(NodeCollectivesErrors, ThreadsRootsAndRequestsOutsideTheirBoundsAreNamed) {
  Node node(2, 2);
  const Reduction sum = Reduction::builtin(DataType::int32, ReduceOp::sum);
  const std::string ranks = std::to_string(world_size());
  std::int32_t value = 1;
  EXPECT_EQ(refusal([&] { node.collectives.allreduce(2, nullptr, &value, 1, sum); }),
            "node collective: thread 2 is outside [0, 2)");
  EXPECT_EQ(refusal([&] { node.collectives.barrier(-1); }), "node collective: thread -1 is outside [0, 2)");
  EXPECT_EQ(refusal([&] { node.collectives.broadcast(0, &value, sizeof value, world_size(), 0); }),
            "node collective broadcast: root rank " + ranks + " is outside [0, " + ranks + ")");
  EXPECT_EQ(refusal([&] { node.collectives.broadcast(0, &value, sizeof value, 0, 2); }),
            "node collective broadcast: root thread 2 is outside [0, 2)");
  EXPECT_EQ(refusal([&] { node.collectives.reduce(0, nullptr, &value, 1, sum, -1, 0); }),
            "node collective reduce: root rank -1 is outside [0, " + ranks + ")");
  NodeRequest never_started;
  never_started.kind = NodeCollectiveKind::barrier;
  EXPECT_EQ(refusal([&] { node.collectives.wait(0, never_started); }),
            "node collective: wait on a request already waited");
  std::vector<std::int32_t> out(2, 0);
  std::vector<std::string> second_wait(2);
  run_threads(2, [&](int t) {
    out[t] = t + 1;
    NodeRequest request = node.collectives.allreduce(t, nullptr, &out[t], 1, sum);
    NodeRequest copy = request;
    node.collectives.wait(t, request);
    second_wait[t] = refusal([&] { node.collectives.wait(t, copy); });
  });
  EXPECT_EQ(out[0], 3 * world_size());
  EXPECT_EQ(out[1], 3 * world_size());
  for (int t = 0; t < 2; ++t) EXPECT_EQ(second_wait[t], "node collective: wait on a request already waited");
}

// Counts whose bytes no buffer can hold, or whose staging buffer off the root rank (a reduce's) is more than this
// process can allocate, are refused before anything starts (no slot taken), naming the call, the count and the
// bytes; a reduce's went to std::bad_alloc (or std::length_error) naming nothing, on its leader thread alone.
TEST(NodeCollectivesErrors, CountsPastWhatABufferOrMemoryHoldsAreRefusedBeforeAnythingStarts) {
  Node node(2, 2);
  const Reduction sum = Reduction::builtin(DataType::float64, ReduceOp::sum);
  double value = 1.0;
  const std::size_t past = std::numeric_limits<std::size_t>::max() / 4;  // x 8 bytes wraps
  EXPECT_EQ(refusal([&] { node.collectives.allreduce(0, nullptr, &value, past, sum); }),
            "node collective allreduce: count " + std::to_string(past) +
                " of 8 bytes is more than a buffer can hold (at most 9223372036854775807 bytes)");
  EXPECT_EQ(refusal([&] { node.collectives.reduce(1, nullptr, &value, past, sum, 0, 0); }),
            "node collective reduce: count " + std::to_string(past) +
                " of 8 bytes is more than a buffer can hold (at most 9223372036854775807 bytes)");
  EXPECT_EQ(refusal([&] { node.collectives.broadcast(0, &value, std::numeric_limits<std::size_t>::max(), 0, 0); }),
            "node collective broadcast: count 18446744073709551615 of 1 byte is more than a buffer can hold (at most "
            "9223372036854775807 bytes)");
  if (world_size() > 1) {  // one rank reduces in the team alone: no staging buffer
    const std::string words = "node collective reduce: count 1099511627776 of 8 bytes needs a staging buffer of 8.0 "
                              "TiB off the root rank, more than this process can allocate: ";
    for (const int thread : {0, 1}) {
      const std::string outcome =
          refusal([&] { node.collectives.reduce(thread, nullptr, &value, std::size_t{1} << 40, sum, 0, 0); });
      EXPECT_EQ(outcome.substr(0, words.size()), words) << outcome;
    }
  }
  std::vector<double> out(2, 0.0);
  run_threads(2, [&](int t) {
    out[t] = t + 1.0;
    NodeRequest request = node.collectives.allreduce(t, nullptr, &out[t], 1, sum);
    node.collectives.wait(t, request);
  });
  EXPECT_EQ(out[0], 3.0 * world_size());
  EXPECT_EQ(out[1], 3.0 * world_size());
}

// Memory taken after the NodeCollectives was made (here: an address-space limit lowered since) fails a reduce's
// staging allocation on its leader thread off the root rank. The leader names it; its team-mate, waiting in the
// team phase for the leader's part, ends at once with the same reason (it used to wait out the team's timeout,
// a minute here, and then name nothing). The root rank takes no part: nothing was started across ranks.
// A thread that never comes: the others' collective times out (the team's wait), and the program, having caught
// that, shuts its node collectives and proxy down: the epoch that never reached MPI is cancelled (a warning on
// stderr), where shutdown ended the whole job ("... 0 handed to the proxy, which cannot be cancelled").
TEST(NodeCollectivesErrors, AfterAThreadNeverCameTheNodeShutsDownWithoutEndingTheJob) {
  Config config = Config::from_env();
  config.progress = ProgressStrategy::dedicated;
  config.wait_timeout = std::chrono::milliseconds(500);  // the shutdown's drain: the failure is the point
  TeamConfig team_config = test_config();
  team_config.wait_timeout = std::chrono::milliseconds(200);  // the missing thread: the failure is the point
  std::string message;
  {
    ProxyThread proxy(MPI_COMM_WORLD, config);
    Team team(2, team_config);
    NodeCollectives collectives(proxy, team, proxy.comm());
    double value = 1.0;
    message = refusal([&] {
      collectives.allreduce(0, &value, &value, 1, Reduction::builtin(DataType::float64, ReduceOp::sum));
    });
  }  // thread 1 never called
  EXPECT_EQ(message.rfind("team collective: thread 0 waited 200 ms for thread 1", 0), 0u) << message;
}

TEST(NodeCollectivesErrors, AStagingBufferThatCannotBeAllocatedEndsTheWholeTeamWithItsReason) {
#if defined(__SANITIZE_THREAD__) || defined(__SANITIZE_ADDRESS__)
  GTEST_SKIP() << "a sanitizer's allocator does not throw std::bad_alloc at an address-space limit";
#endif
  if (world_size() == 1) GTEST_SKIP() << "one rank reduces in the team alone: no staging buffer";
  Node node(2, 2);
  if (world_rank() == 0) return;
  const std::size_t count = std::size_t{1} << 25;  // 256 MiB of doubles: the input here, the staging buffer there
  std::vector<double> input(count, 1.0);
  std::size_t pages = 0;
  std::ifstream("/proc/self/statm") >> pages;
  ASSERT_GT(pages, 0u);
  rlimit saved{};
  ASSERT_EQ(getrlimit(RLIMIT_AS, &saved), 0);
  const rlimit lowered{static_cast<rlim_t>(pages * sysconf(_SC_PAGESIZE) + (std::size_t{96} << 20)), saved.rlim_max};
  std::vector<std::string> messages(2);
  ASSERT_EQ(setrlimit(RLIMIT_AS, &lowered), 0);
  run_threads(2, [&](int t) {
    messages[t] = refusal([&] {
      node.collectives.reduce(t, input.data(), input.data(), count, Reduction::builtin(DataType::float64, ReduceOp::sum),
                              0, 0);
    });
  });
  ASSERT_EQ(setrlimit(RLIMIT_AS, &saved), 0);
  const std::string reason = "node collective reduce: thread 0 could not allocate the staging buffer of 256.0 MiB for "
                             "count 33554432 off the root rank (out of memory)";
  EXPECT_EQ(messages[0], reason);
  EXPECT_EQ(messages[1], "team collective: thread 1 stopped waiting for thread 0: thread 0 abandoned the team: " + reason);
}

}  // namespace
