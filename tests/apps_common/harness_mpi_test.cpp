// The mode harness on real ranks: a synthetic application whose exchange e sums (e + 1) over the ranks
// (blocking MPI_Allreduce, posted MPI_Iallreduce, or on the proxy thread) and whose compute steps check
// that the data they depend on has arrived, in every mode and for lookahead 0 (halo-like) and 1
// (panel-like). Checks: every step computed by every team thread, the dependencies honoured, the timing
// columns adding up, and slowest_rank() giving every rank one rank's whole breakdown.
#include <gtest/gtest.h>
#include <mpi.h>

#include <atomic>
#include <span>
#include <string>
#include <vector>

#include <proxy/environment.hpp>
#include <proxy/harness/session.hpp>
#include <proxy/harness/timed_wait.hpp>

#include "mpi_test_util.hpp"

namespace {

using proxy::harness::Mode;

struct Synthetic {
  int count = 7;
  std::vector<double> arrived;           // exchange e's result, ranks * (e + 1) once it has arrived
  std::vector<std::atomic<int>> calls;   // compute calls per step (inner + boundary, all team threads)
  std::atomic<int> missing{0};           // compute steps that ran before their data arrived
  MPI_Request request = MPI_REQUEST_NULL;
  std::vector<double> contribution;

  explicit Synthetic(int steps) : count(steps), arrived(steps, 0.0), calls(steps), contribution(steps) {
    for (int e = 0; e < steps; ++e) contribution[e] = e + 1.0;
  }
};

proxy::harness::Steps steps_for(Synthetic& app, int lookahead, int ranks) {
  proxy::harness::Steps steps;
  steps.count = app.count;
  steps.lookahead = lookahead;
  steps.exchange = [&app](int e) {
    MPI_Allreduce(&app.contribution[e], &app.arrived[e], 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
  };
  steps.post = [&app](int e) {
    MPI_Iallreduce(&app.contribution[e], &app.arrived[e], 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD, &app.request);
  };
  steps.complete = [&app] { MPI_Wait(&app.request, MPI_STATUS_IGNORE); };
  steps.start_on_proxy = [&app](proxy::ProxyThread& proxy, int e) {
    const double* in = &app.contribution[e];
    double* out = &app.arrived[e];
    const MPI_Comm comm = proxy.comm();
    return proxy.submit([=](proxy::ClosureContext& context) {
      MPI_Request request = MPI_REQUEST_NULL;
      MPI_Iallreduce(in, out, 1, MPI_DOUBLE, MPI_SUM, comm, &request);
      context.track(request);
    });
  };
  const auto has_arrived = [&app, ranks](int e) { return app.arrived[e] == ranks * (e + 1.0); };
  // lookahead 1: step s computes on exchange s (already waited for); lookahead 0: only its boundary does.
  steps.compute_inner = [&app, lookahead, has_arrived](int s, proxy::harness::StepThread) {
    if (lookahead == 1 && !has_arrived(s)) ++app.missing;
    ++app.calls[s];
  };
  steps.compute_boundary = [&app, has_arrived](int s, proxy::harness::StepThread) {
    if (!has_arrived(s)) ++app.missing;
    ++app.calls[s];
  };
  return steps;
}

struct Case {
  Mode mode;
  int lookahead;
};

class HarnessModes : public ::testing::TestWithParam<Case> {};

TEST_P(HarnessModes, RunsEveryStepAfterItsDataWithTimingsThatAddUp) {
  const proxy::Environment& env = proxy::test_util::environment();
  const auto [mode, lookahead] = GetParam();
  Synthetic app(7);
  proxy::harness::Session session(env, mode, proxy::harness::is_multi_tier(mode) ? 2 : 1);
  const int threads = session.threads();
  const proxy::harness::Timings mine = session.run(steps_for(app, lookahead, env.size()));

  EXPECT_EQ(app.missing.load(), 0);
  for (int s = 0; s < app.count; ++s) EXPECT_EQ(app.calls[s].load(), 2 * threads) << "step " << s;
  for (int e = 0; e < app.count; ++e) EXPECT_EQ(app.arrived[e], env.size() * (e + 1.0)) << "exchange " << e;
  EXPECT_GE(mine.compute_s, 0.0);
  EXPECT_GE(mine.wait_s, 0.0);
  EXPECT_LE(mine.wait_s, mine.comm_s);
  EXPECT_GE(mine.other_s(), 0.0);

  const proxy::harness::Timings slowest = session.slowest_rank(mine);
  EXPECT_GE(slowest.total_s, mine.total_s);
  EXPECT_GE(slowest.other_s(), 0.0);
  // Every rank got the same four numbers, and they are one rank's: the one whose total is the largest.
  double columns[4] = {slowest.total_s, slowest.compute_s, slowest.comm_s, slowest.wait_s};
  double lowest[4], highest[4];
  session.on_mpi_thread([&] {
    MPI_Allreduce(columns, lowest, 4, MPI_DOUBLE, MPI_MIN, env.world());
    MPI_Allreduce(columns, highest, 4, MPI_DOUBLE, MPI_MAX, env.world());
  });
  for (int i = 0; i < 4; ++i) EXPECT_EQ(lowest[i], highest[i]) << "column " << i;
  int mine_is_slowest = slowest.total_s == mine.total_s && slowest.compute_s == mine.compute_s &&
                                slowest.comm_s == mine.comm_s && slowest.wait_s == mine.wait_s
                            ? 1
                            : 0;
  int owners = 0;
  session.on_mpi_thread([&] { MPI_Allreduce(&mine_is_slowest, &owners, 1, MPI_INT, MPI_SUM, env.world()); });
  EXPECT_GE(owners, 1);
}

// A data-dependent end (Steps::done_after, lookahead 0): units of 2 steps, asked after each unit's last
// step; the run ends after unit 2 (steps 0-5) of a cap of 20 steps, in every mode, with every step up to
// there computed after its data and none after it. done_after sees the unit's exchange already arrived.
TEST_P(HarnessModes, DoneAfterEndsTheRunAtTheUnitItSays) {
  const auto [mode, lookahead] = GetParam();
  if (lookahead != 0) GTEST_SKIP() << "done_after needs lookahead 0";
  const proxy::Environment& env = proxy::test_util::environment();
  Synthetic app(20);
  proxy::harness::Session session(env, mode, proxy::harness::is_multi_tier(mode) ? 2 : 1);
  const int threads = session.threads();
  proxy::harness::Steps steps = steps_for(app, 0, env.size());
  steps.steps_per_unit = 2;
  std::vector<int> asked;
  steps.done_after = [&](int unit) {
    asked.push_back(unit);
    EXPECT_EQ(app.arrived[2 * unit + 1], env.size() * (2 * unit + 2.0)) << "unit " << unit;
    return unit == 2;
  };
  session.run(steps);
  EXPECT_EQ(asked, (std::vector<int>{0, 1, 2}));
  EXPECT_EQ(app.missing.load(), 0);
  for (int s = 0; s < app.count; ++s) EXPECT_EQ(app.calls[s].load(), s < 6 ? 2 * threads : 0) << "step " << s;
}

// done_after with lookahead 1 is refused before anything runs (the next exchange would already be in flight).
TEST(HarnessDoneAfter, NeedsLookaheadZero) {
  const proxy::Environment& env = proxy::test_util::environment();
  Synthetic app(4);
  proxy::harness::Session session(env, Mode::sync, 1);
  proxy::harness::Steps steps = steps_for(app, 1, env.size());
  steps.done_after = [](int) { return true; };
  try {
    session.run(steps);
    ADD_FAILURE() << "no error";
  } catch (const proxy::Error& error) {
    EXPECT_STREQ(error.what(), "Steps: done_after needs lookahead 0 and no early-bird parts (lookahead 1, ready_parts 0)");
  }
  for (int s = 0; s < app.count; ++s) EXPECT_EQ(app.calls[s].load(), 0);
}

// A request that fails (an 8-byte message into a 4-byte receive) ends the timed wait with RequestFailed naming its
// peer and MPI's words, not in MPI's handler: the Environment's handler on MPI_COMM_WORLD, inherited by a
// communicator made from it afterwards, returns the error to the wait (MpiErrorsReturnHere).
TEST(HarnessWaits, AFailedTransferIsNamedWithItsPeer) {
  const proxy::Environment& env = proxy::test_util::environment();
  if (env.size() < 2) GTEST_SKIP() << "needs two ranks";
  MPI_Comm comm = MPI_COMM_NULL;
  ASSERT_EQ(MPI_Comm_dup(MPI_COMM_WORLD, &comm), MPI_SUCCESS);
  const int right = (env.rank() + 1) % env.size(), left = (env.rank() + env.size() - 1) % env.size();
  const int out[2] = {env.rank(), env.rank()};
  int in = -1;
  MPI_Request requests[2];
  MPI_Irecv(&in, 1, MPI_INT, left, 21, comm, &requests[0]);
  MPI_Isend(out, 2, MPI_INT, right, 21, comm, &requests[1]);
  const auto peer = [&](int i) { return i == 0 ? left : right; };
  const auto waited_for = [](int) { return std::string("the test's transfers"); };
  try {
    proxy::harness::wait_all(requests, peer, waited_for);
    ADD_FAILURE() << "a 4-byte receive of an 8-byte message completed";
  } catch (const proxy::harness::RequestFailed& error) {
    const std::string expected = "the transfer with rank " + std::to_string(left) + " failed: ";
    EXPECT_EQ(std::string(error.what()).substr(0, expected.size()), expected);
    EXPECT_GT(std::string(error.what()).size(), expected.size());  // MPI's own words follow
    EXPECT_EQ(error.peer(), left);
  }
  // The send, if still active.
  proxy::harness::wait_all(std::span<MPI_Request>(&requests[1], 1), [&](int) { return right; }, waited_for);
  MPI_Comm_free(&comm);
}

INSTANTIATE_TEST_SUITE_P(
    AllModes, HarnessModes,
    ::testing::Values(Case{Mode::sync, 0}, Case{Mode::async, 0}, Case{Mode::mt, 0}, Case{Mode::proxy, 0},
                      Case{Mode::sync, 1}, Case{Mode::async, 1}, Case{Mode::mt, 1}, Case{Mode::proxy, 1}),
    [](const auto& info) {
      return std::string(proxy::harness::to_string(info.param.mode)) + "_lookahead" +
             std::to_string(info.param.lookahead);
    });

}  // namespace
