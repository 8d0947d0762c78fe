// Team collectives against a serial reference: every algorithm, 1-4 threads (oversubscribed on 2 cores),
// every type and operation (exact inputs, so the comparison is bitwise), a non-commutative user operation,
// in place, every root, sizes 0..65537 elements and one beyond the (configured) last-level cache.
#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <limits>
#include <mutex>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

#include "proxy/error.hpp"
#include "proxy/placement.hpp"
#include "proxy/team.hpp"
#include "proxy/topology.hpp"
#include "proxy/detail/thread_rule.hpp"
#include "team_test_support.hpp"

namespace {

using namespace proxy;
using namespace proxy::testing;
using Buffers = std::vector<std::vector<unsigned char>>;

constexpr std::size_t kBeyondCacheBytes = 384 << 10;  // test_config() says the LLC holds 256 KiB

// COLLECTIVES_TEST_QUICK=1 (the ThreadSanitizer run, ~30x slower): the same algorithms, thread counts,
// roots and sizes, on three representative reductions instead of all eighteen.
bool quick() {
  const char* env = std::getenv("COLLECTIVES_TEST_QUICK");
  return env != nullptr && std::string(env) == "1";
}

const std::vector<std::size_t> kSizes = {0, 1, 2, 3, 7, 1000, 65537};

std::vector<Reduction> all_reductions() {
  if (quick())
    return {Reduction::builtin(DataType::float64, ReduceOp::sum), Reduction::builtin(DataType::int32, ReduceOp::min),
            noncommutative()};
  std::vector<Reduction> out;
  for (auto type : {DataType::float32, DataType::float64, DataType::int32, DataType::int64})
    for (auto op : {ReduceOp::sum, ReduceOp::prod, ReduceOp::min, ReduceOp::max})
      out.push_back(Reduction::builtin(type, op));
  out.push_back(noncommutative());
  out.push_back(commutative_user());
  return out;
}

std::string describe(const Reduction& r, std::size_t count, int p, bool in_place) {
  return std::string(to_string(r.type)) + " " + std::string(to_string(r.op)) + (r.commutative ? "" : " (non-commutative)") +
         " count " + std::to_string(count) + " threads " + std::to_string(p) + (in_place ? " in place" : "");
}

Buffers make_inputs(const Reduction& r, int p, std::size_t count) {
  Buffers in(p, std::vector<unsigned char>(count * r.element_size() + 1));
  for (int t = 0; t < p; ++t) fill_input(r, t, in[t].data(), count);
  return in;
}

// One allreduce on a team; every thread's result must equal the reference bit for bit.
void check_allreduce(Team& team, AllreduceAlgorithm algorithm, const Reduction& r, std::size_t count,
                     bool in_place) {
  const int p = team.size();
  const std::size_t bytes = count * r.element_size();
  Buffers in = make_inputs(r, p, count);
  std::vector<unsigned char> expected(bytes + 1);
  reference(r, in, expected.data(), count);
  Buffers out(p, std::vector<unsigned char>(bytes + 1, 0xab));
  if (in_place) out = in;
  run_threads(p, [&](int t) {
    team.allreduce(t, in_place ? nullptr : in[t].data(), out[t].data(), count, r, algorithm);
  });
  for (int t = 0; t < p; ++t)
    ASSERT_EQ(0, std::memcmp(out[t].data(), expected.data(), bytes))
        << to_string(algorithm) << " " << describe(r, count, p, in_place) << ": thread " << t << " differs";
}

class TeamAllreduce : public ::testing::TestWithParam<std::tuple<AllreduceAlgorithm, int>> {};

TEST_P(TeamAllreduce, MatchesSerialReferenceForEveryTypeOpAndSize) {
  const auto [algorithm, p] = GetParam();
  Team team(p, test_config());
  for (const auto& r : all_reductions()) {
    std::vector<std::size_t> sizes = kSizes;
    sizes.push_back(kBeyondCacheBytes / r.element_size() + 5);
    for (std::size_t count : sizes)
      for (bool in_place : {false, true}) check_allreduce(team, algorithm, r, count, in_place);
  }
}

TEST_P(TeamAllreduce, HierarchicalTreesMatchSerialReference) {
  const auto [algorithm, p] = GetParam();
  // Two levels (pairs sharing a cache, then two "sockets") and a ragged one; ids are taken as runs.
  const std::vector<std::vector<std::vector<int>>> layouts = {
      {std::vector<int>{0, 0, 1, 1}, std::vector<int>{0, 0, 0, 1}}, {std::vector<int>{0, 1, 1, 2}},
      {std::vector<int>{3, 3, 3, 3}, std::vector<int>{0, 1, 1, 1}}};
  for (const auto& layout : layouts) {
    std::vector<std::vector<int>> levels;
    for (const auto& level : layout) levels.emplace_back(level.begin(), level.begin() + p);
    Team team(p, test_config(levels));
    for (const auto& r : {Reduction::builtin(DataType::float64, ReduceOp::sum), noncommutative(),
                          Reduction::builtin(DataType::int32, ReduceOp::max)})
      for (std::size_t count : {std::size_t{1}, std::size_t{7}, std::size_t{1000}, std::size_t{70000}})
        for (bool in_place : {false, true}) check_allreduce(team, algorithm, r, count, in_place);
  }
}

INSTANTIATE_TEST_SUITE_P(
    AllAlgorithms, TeamAllreduce,
    ::testing::Combine(::testing::Values(AllreduceAlgorithm::tree_one_stage, AllreduceAlgorithm::tree_two_stage,
                                         AllreduceAlgorithm::dissemination, AllreduceAlgorithm::tiled_one_stage,
                                         AllreduceAlgorithm::tiled_two_stage, AllreduceAlgorithm::automatic),
                       ::testing::Values(1, 2, 3, 4)),
    [](const auto& info) {
      std::string name(to_string(std::get<0>(info.param)));
      for (auto& c : name)
        if (c == '-') c = '_';
      return name + "_" + std::to_string(std::get<1>(info.param)) + "threads";
    });

TEST(TeamAllreduce, RandomFloatSumsWithinRoundingBound) {
  // Not exact inputs: the tree order differs from the serial order, so compare with the bound
  // |computed - serial| <= 2 (p - 1) eps sum_t |x_t| (each order's error is at most (p - 1) eps sum |x|).
  for (int p = 2; p <= 4; ++p) {
    Team team(p, test_config());
    const std::size_t count = 5000;
    std::vector<std::vector<double>> in(p, std::vector<double>(count));
    for (int t = 0; t < p; ++t)
      for (std::size_t i = 0; i < count; ++i) in[t][i] = std::sin(1.0 + t * 7.31 + i * 0.917) * std::exp(t % 3);
    for (auto algorithm : allreduce_algorithms()) {
      std::vector<std::vector<double>> out(p, std::vector<double>(count));
      run_threads(p, [&](int t) { team.allreduce(t, in[t].data(), out[t].data(), count, ReduceOp::sum, algorithm); });
      for (std::size_t i = 0; i < count; ++i) {
        double serial = 0, magnitude = 0;
        for (int t = 0; t < p; ++t) serial += in[t][i], magnitude += std::fabs(in[t][i]);
        const double bound = 2 * (p - 1) * std::numeric_limits<double>::epsilon() * magnitude;
        for (int t = 0; t < p; ++t) ASSERT_LE(std::fabs(out[t][i] - serial), bound) << to_string(algorithm) << " i " << i;
        for (int t = 1; t < p; ++t) ASSERT_EQ(out[t][i], out[0][i]) << "threads disagree";
      }
    }
  }
}

class TeamReduce : public ::testing::TestWithParam<std::tuple<ReduceAlgorithm, int>> {};

TEST_P(TeamReduce, EveryRootMatchesSerialReference) {
  const auto [algorithm, p] = GetParam();
  // Four threads as two "sockets", so that the tree's inter-group level is exercised too.
  Team team(p, test_config(p == 4 ? std::vector<std::vector<int>>{{0, 0, 1, 1}} : std::vector<std::vector<int>>{}));
  for (const auto& r : {Reduction::builtin(DataType::float32, ReduceOp::sum), Reduction::builtin(DataType::int64, ReduceOp::min),
                        Reduction::builtin(DataType::float64, ReduceOp::prod), noncommutative()}) {
    for (std::size_t count : {std::size_t{0}, std::size_t{1}, std::size_t{3}, std::size_t{1000}, std::size_t{65537}}) {
      for (int root = 0; root < p; ++root) {
        for (bool in_place : {false, true}) {
          const std::size_t bytes = count * r.element_size();
          Buffers in = make_inputs(r, p, count);
          std::vector<unsigned char> expected(bytes + 1);
          reference(r, in, expected.data(), count);
          std::vector<unsigned char> result(bytes + 1, 0xcd);
          if (in_place) result = in[root];
          run_threads(p, [&](int t) {
            const void* send = (in_place && t == root) ? nullptr : in[t].data();
            team.reduce(t, send, t == root ? result.data() : nullptr, count, r, root, algorithm);
          });
          ASSERT_EQ(0, std::memcmp(result.data(), expected.data(), bytes))
              << to_string(algorithm) << " root " << root << " " << describe(r, count, p, in_place);
        }
      }
    }
  }
}

INSTANTIATE_TEST_SUITE_P(BothAlgorithms, TeamReduce,
                         ::testing::Combine(::testing::Values(ReduceAlgorithm::tree, ReduceAlgorithm::tiled,
                                                              ReduceAlgorithm::automatic),
                                            ::testing::Values(1, 2, 3, 4)),
                         [](const auto& info) {
                           return std::string(to_string(std::get<0>(info.param))) + "_" +
                                  std::to_string(std::get<1>(info.param)) + "threads";
                         });

TEST(TeamBroadcast, EveryRootEveryAlgorithmEverySize) {
  for (int p = 1; p <= 4; ++p) {
    for (const auto& levels : {std::vector<std::vector<int>>{}, std::vector<std::vector<int>>{{0, 0, 1, 1}}}) {
      std::vector<std::vector<int>> trimmed;
      for (const auto& l : levels) trimmed.emplace_back(l.begin(), l.begin() + p);
      Team team(p, test_config(trimmed));
      for (auto algorithm : {BroadcastAlgorithm::one_stage, BroadcastAlgorithm::two_stage, BroadcastAlgorithm::automatic}) {
        for (std::size_t bytes : {std::size_t{0}, std::size_t{1}, std::size_t{3}, std::size_t{7}, std::size_t{1000},
                                  std::size_t{65537 * 8}, kBeyondCacheBytes + 3}) {
          for (int root = 0; root < p; ++root) {
            Buffers buffers(p, std::vector<unsigned char>(bytes + 1));
            for (int t = 0; t < p; ++t)
              for (std::size_t i = 0; i < bytes; ++i) buffers[t][i] = static_cast<unsigned char>(i * 31 + t * 7 + (t == root));
            const auto expected = buffers[root];
            run_threads(p, [&](int t) { team.broadcast(t, buffers[t].data(), bytes, root, algorithm); });
            for (int t = 0; t < p; ++t)
              ASSERT_EQ(buffers[t], expected) << to_string(algorithm) << " root " << root << " bytes " << bytes
                                              << " thread " << t << " of " << p;
          }
        }
      }
    }
  }
}

TEST(TeamBarrier, NoThreadLeavesBeforeAllArrive) {
  for (int p = 1; p <= 4; ++p) {
    Team team(p, test_config());
    std::vector<std::atomic<int>> arrived(p);
    std::atomic<int> violations{0};
    run_threads(p, [&](int t) {
      for (int round = 1; round <= 300; ++round) {
        arrived[t].store(round, std::memory_order_relaxed);
        team.barrier(t);
        for (int k = 0; k < p; ++k)
          if (arrived[k].load(std::memory_order_relaxed) < round) violations.fetch_add(1);
        team.barrier(t);  // nobody starts the next round while another still checks this one
      }
    });
    EXPECT_EQ(violations.load(), 0) << p << " threads";
  }
}

TEST(TeamCollectives, BackToBackMixedCallsKeepEpochsApart) {
  // Different collectives and algorithms in a row, no barrier between them: the monotonic flags must
  // keep consecutive calls from confusing each other.
  const int p = 4;
  Team team(p, test_config({{0, 0, 1, 1}}));
  std::vector<std::vector<std::int64_t>> data(p, std::vector<std::int64_t>(97));
  std::atomic<int> wrong{0};
  run_threads(p, [&](int t) {
    for (int round = 0; round < 200; ++round) {
      auto& v = data[t];
      for (std::size_t i = 0; i < v.size(); ++i) v[i] = t + round + std::int64_t(i);
      const auto algorithm = allreduce_algorithms()[round % allreduce_algorithms().size()];
      team.allreduce(t, static_cast<const std::int64_t*>(nullptr), v.data(), v.size(), ReduceOp::sum, algorithm);
      for (std::size_t i = 0; i < v.size(); ++i)
        if (v[i] != 6 + 4 * (round + std::int64_t(i))) wrong.fetch_add(1);
      std::int64_t token = (t == round % p) ? round : -1;
      team.broadcast(t, &token, sizeof token, round % p);
      if (token != round) wrong.fetch_add(1);
    }
  });
  EXPECT_EQ(wrong.load(), 0);
}

TEST(TeamHierarchy, LevelsFromHwlocBuildAWorkingTeam) {
  const Topology topology;
  const int p = 4;  // oversubscribed here: thread t on core t mod cores
  std::vector<int> cores(p);
  for (int t = 0; t < p; ++t) cores[t] = t % topology.cores();
  const auto levels = team_levels(topology, cores);
  ASSERT_EQ(levels.size(), 2u);
  for (const auto& level : levels) ASSERT_EQ(level.size(), std::size_t(p));
  Team team(p, test_config(levels));
  EXPECT_EQ(team.shape().threads, p);
  EXPECT_GE(team.shape().sockets, 1);
  for (auto algorithm : allreduce_algorithms())
    check_allreduce(team, algorithm, Reduction::builtin(DataType::int64, ReduceOp::sum), 4099, false);
}

// A thread bound to a core reports that core (in a thread of its own, so the binding goes with it).
TEST(TeamHierarchy, AThreadBoundToACoreRunsThere) {
  const Topology topology;
  for (int core = 0; core < topology.cores(); ++core) {
    bool bound = false;
    int reported = -2;
    std::thread([&] {
      bound = topology.bind_this_thread(core);
      if (bound) reported = topology.current_core();
    }).join();
    if (bound) EXPECT_EQ(reported, core);  // the OS may refuse a binding (a restricted container)
  }
}

TEST(TeamHierarchy, ConfigFromPlacementFollowsTheComputeCores) {
  const Topology topology;
  // 3 compute threads over a 4-core slice whose last core is the proxy's: threads on cores 0, 1, 2.
  const Placement placement = compute_placement({4, 1, 0, 3, true});
  const TeamConfig config = TeamConfig::from(Config{}, topology, placement);
  ASSERT_EQ(config.levels, team_levels(topology, {0, 1, 2}));
  for (const auto& level : config.levels) EXPECT_EQ(level.size(), 3u);
  if (topology.last_level_cache_bytes() > 0)
    EXPECT_EQ(config.last_level_cache_bytes, topology.last_level_cache_bytes());
  Team team(3, config);
  check_allreduce(team, AllreduceAlgorithm::tree_two_stage, Reduction::builtin(DataType::int64, ReduceOp::sum), 777,
                  false);
}

TEST(TeamErrors, BadArgumentsAreNamed) {
  EXPECT_THROW(
      {
        try {
          Team team(0);
        } catch (const Error& e) {
          EXPECT_STREQ(e.what(), "team size must be at least 1, got 0");
          throw;
        }
      },
      Error);
  Team team(2, test_config());
  double x = 0;
  try {
    team.allreduce(2, &x, &x, 1, ReduceOp::sum);
    FAIL() << "no exception";
  } catch (const Error& e) {
    EXPECT_STREQ(e.what(), "team collective: thread 2 is outside [0, 2)");
  }
  try {
    team.broadcast(0, &x, sizeof x, -1);
    FAIL() << "no exception";
  } catch (const Error& e) {
    EXPECT_STREQ(e.what(), "team collective: root -1 is outside [0, 2)");
  }
  try {
    Team bad(3, test_config({{0, 1}}));
    FAIL() << "no exception";
  } catch (const Error& e) {
    EXPECT_STREQ(e.what(), "team hierarchy level has 2 entries for 3 threads");
  }
}

// The bounds of PROXY_WAIT_TIMEOUT and PROXY_SPIN_COUNT hold for a TeamConfig too: milliseconds::max() overflowed
// the deadline of every wait (a team collective then timed out at once).
TEST(TeamErrors, AWaitTimeoutOrSpinCountOutsideTheBoundsIsNamed) {
  const auto refusal = [](auto change) {
    TeamConfig config = test_config();
    change(config);
    try {
      Team team(2, config);
    } catch (const Error& e) {
      return std::string(e.what());
    }
    return std::string("(no error)");
  };
  EXPECT_EQ(refusal([](TeamConfig& c) { c.wait_timeout = std::chrono::milliseconds::max(); }),
            "Team: TeamConfig::wait_timeout is 9223372036854775807 ms, outside [10 ms, 1e6 s]");
  EXPECT_EQ(refusal([](TeamConfig& c) { c.wait_timeout = std::chrono::milliseconds(0); }),
            "Team: TeamConfig::wait_timeout is 0 ms, outside [10 ms, 1e6 s]");
  EXPECT_EQ(refusal([](TeamConfig& c) { c.spin_count = -3; }),
            "Team: TeamConfig::spin_count is -3, outside [0, 1000000000]");
  EXPECT_EQ(refusal([](TeamConfig& c) { c.wait_timeout = std::chrono::hours(1); }), "(no error)");
}

TEST(TeamErrors, MissingThreadTimesOutWithDiagnostic) {
  TeamConfig config = test_config();
  config.wait_timeout = std::chrono::milliseconds(200);
  Team team(2, config);
  try {
    team.barrier(0);  // thread 1 never comes
    FAIL() << "no exception";
  } catch (const Error& e) {
    EXPECT_STREQ(e.what(), "team collective: thread 0 waited 200 ms for thread 1 (do all 2 threads call the same "
                           "collectives in the same order?)");
  }
}

// A thread that cannot take its part abandons the team: the others' waits, in the collective begun and in any
// later one, end at once with its reason rather than after wait_timeout (an hour here: a wait that ran into it
// would show as the test's own timeout). Thread 1 may reach its wait before or after the abandonment.
TEST(TeamErrors, AnAbandonedTeamEndsTheOthersWaitsWithTheReason) {
  TeamConfig config = test_config();
  config.wait_timeout = std::chrono::hours(1);
  Team team(3, config);
  std::vector<std::string> messages(3);
  std::vector<double> value(3, 1.0);
  run_threads(3, [&](int t) {
    if (t == 0) {
      team.abandon(0, "thread 0 could not allocate its buffer");
      team.abandon(2, "a later reason is not kept");
      return;
    }
    try {
      team.reduce(t, nullptr, &value[t], 1, Reduction::builtin(DataType::float64, ReduceOp::sum), 0);
      messages[t] = "(no exception)";
    } catch (const Error& e) {
      messages[t] = e.what();
    }
    try {
      team.barrier(t);
    } catch (const Error& e) {
      messages[t] += std::string(" | ") + e.what();
    }
  });
  // Whom a thread waits for when it stops depends on the tree and on timing; what it says does not.
  const std::string reason = ": thread 0 abandoned the team: thread 0 could not allocate its buffer";
  for (const int t : {1, 2}) {
    const std::string words = "team collective: thread " + std::to_string(t) + " stopped waiting for thread ";
    const std::size_t bar = messages[t].find(" | ");
    ASSERT_NE(bar, std::string::npos) << messages[t];
    for (const std::string part : {messages[t].substr(0, bar), messages[t].substr(bar + 3)}) {
      EXPECT_EQ(part.substr(0, words.size()), words) << part;
      ASSERT_GE(part.size(), words.size() + 1 + reason.size()) << part;
      EXPECT_EQ(part.substr(part.size() - reason.size()), reason) << part;
    }
  }
}

}  // namespace

// One thread index is one thread (checked builds, detail/thread_rule.hpp; elsewhere skipped): two threads
// call barrier(0) at once; whichever comes second is refused through the handler (here it throws), the
// first waits for thread 1 inside, and the main thread then joins as thread 1. Exactly one refusal in
// every interleaving, and nothing waits on a timeout.
TEST(TeamThreadRules, OneThreadIndexIsOneThread) {
  if (!proxy::detail::kCheckThreadRules) GTEST_SKIP() << "thread rules are not checked in this build";
  struct Refused : std::runtime_error {
    using std::runtime_error::runtime_error;
  };
  const auto previous = proxy::detail::set_thread_rule_handler([](const char* rule) { throw Refused(rule); });
  proxy::TeamConfig config;
  config.wait_timeout = std::chrono::milliseconds(120'000);
  proxy::Team team(2, config);
  std::atomic<int> refused{0};
  std::string rule;
  std::mutex mutex;
  const auto thread_zero = [&] {
    try {
      team.barrier(0);
    } catch (const Refused& e) {
      const std::lock_guard<std::mutex> lock(mutex);
      rule = e.what();
      refused.fetch_add(1);
    }
  };
  std::thread a(thread_zero), b(thread_zero);
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(120);
  while (refused.load() == 0 && std::chrono::steady_clock::now() < deadline) std::this_thread::yield();
  team.barrier(1);  // the one inside completes
  a.join();
  b.join();
  proxy::detail::set_thread_rule_handler(previous);
  EXPECT_EQ(refused.load(), 1);
  EXPECT_EQ(rule, "team collective: two calls with one thread index at once (every thread needs its own index, team.hpp)");
}
