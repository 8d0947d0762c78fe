// The harness's early-bird proxy loop (steps.hpp "Early-bird", early_bird_loop.cpp) on real ranks: a ring
// whose exchange e carries one value per compute thread, sent and received through transfers held until
// that thread marks its part. compute_boundary(s) reads the ghost exchange s brought, writes what exchange
// s+1 sends and marks its part. Checks: each boundary compute sees exchange s's ghost (the receive of s+1
// cannot land before the reader marked), each exchange carries what was written before the mark, the last
// exchange and exchange_once arrive, timings add up; a refused mark ends the run with the runtime's message.
#include <gtest/gtest.h>
#include <mpi.h>

#include <atomic>
#include <string>
#include <vector>

#include <proxy/environment.hpp>
#include <proxy/error.hpp>
#include <proxy/harness/session.hpp>

#include "mpi_test_util.hpp"

namespace {

using proxy::harness::Mode;
using proxy::harness::StepThread;

// What rank `rank` sends in slot `slot` of exchange `e`.
double value(int e, int rank, int slot) { return 1000.0 * e + 10.0 * rank + slot; }

struct Ring {
  Ring(int threads, int rank, int size) : rank(rank), left((rank + size - 1) % size), right((rank + 1) % size),
                                          out(threads), ghost(threads, -1.0) {
    for (int t = 0; t < threads; ++t) out[t] = value(0, rank, t);
  }
  int rank, left, right;
  std::vector<double> out, ghost;
  std::atomic<int> stale{0};  // boundary computes that did not see their exchange's ghost
  std::atomic<int> boundary_calls{0};
};

proxy::PlanSpec ring_plan(Ring& ring) {
  const int threads = static_cast<int>(ring.out.size());
  proxy::PlanSpec spec("early-bird ring");
  spec.parts(threads);
  for (int t = 0; t < threads; ++t) {
    spec.send_when_ready({t}, ring.right, t, &ring.out[t], 1, MPI_DOUBLE);
    spec.recv_when_ready({t}, ring.left, t, &ring.ghost[t], 1, MPI_DOUBLE);
  }
  return spec;
}

proxy::harness::Steps ring_steps(Ring& ring, const proxy::Plan& plan, int count) {
  proxy::harness::Steps steps;
  steps.count = count;
  steps.ready_parts = plan.part_count();
  steps.start_on_proxy = [&plan](proxy::ProxyThread& proxy, int) { return proxy.start(plan); };
  steps.compute_inner = [](int, StepThread) {};
  steps.compute_boundary = [&ring](int s, StepThread team) {
    const int t = team.thread;
    if (ring.ghost[t] != value(s, ring.left, t)) ++ring.stale;
    ring.out[t] = value(s + 1, ring.rank, t);  // exchange s has completed: its send no longer reads out
    team.ready(t);                              // written and read: slot t of exchange s+1 may move
    ++ring.boundary_calls;
  };
  return steps;
}

class EarlyBird : public ::testing::Test {
 protected:
  const proxy::Environment& env = proxy::test_util::environment();
};

TEST_F(EarlyBird, EachFaceMovesAfterItsThreadIsDoneAndCarriesWhatItWrote) {
  proxy::harness::Session session(env, Mode::proxy, 2);
  const int threads = session.threads();
  Ring ring(threads, env.rank(), env.size());
  const proxy::Plan plan = session.proxy()->commit(ring_plan(ring));
  constexpr int kSteps = 9;
  const proxy::harness::Steps steps = ring_steps(ring, plan, kSteps);
  const proxy::harness::Timings t = session.run(steps);

  EXPECT_EQ(ring.stale.load(), 0);
  EXPECT_EQ(ring.boundary_calls.load(), kSteps * threads);
  for (int s = 0; s < threads; ++s) EXPECT_EQ(ring.ghost[s], value(kSteps - 1, ring.left, s)) << "slot " << s;
  EXPECT_GE(t.compute_s, 0.0);
  EXPECT_LE(t.wait_s, t.comm_s);
  EXPECT_GE(t.other_s(), 0.0);
  // Outside the loop no boundary compute marks: exchange_once marks every part itself.
  session.exchange_once(steps, kSteps);
  for (int s = 0; s < threads; ++s) EXPECT_EQ(ring.ghost[s], value(kSteps, ring.left, s)) << "slot " << s;
}

TEST_F(EarlyBird, WithoutABoundaryComputeTheLoopMarksThePartsItself) {
  proxy::harness::Session session(env, Mode::proxy, 2);
  Ring ring(session.threads(), env.rank(), env.size());
  const proxy::Plan plan = session.proxy()->commit(ring_plan(ring));
  proxy::harness::Steps steps = ring_steps(ring, plan, 5);
  steps.compute_boundary = nullptr;
  session.run(steps);  // would time out if the held transfers were never released
  for (int s = 0; s < session.threads(); ++s) EXPECT_EQ(ring.ghost[s], value(0, ring.left, s));
}

TEST_F(EarlyBird, ARefusedMarkEndsTheRunNamingPlanPartAndEpoch) {
  proxy::harness::Session session(env, Mode::proxy, 2);
  Ring ring(session.threads(), env.rank(), env.size());
  const proxy::Plan plan = session.proxy()->commit(ring_plan(ring));
  proxy::harness::Steps steps = ring_steps(ring, plan, 6);
  const auto mark_once = steps.compute_boundary;
  steps.compute_boundary = [mark_once](int s, StepThread team) {
    mark_once(s, team);
    if (s == 2 && team.thread == 0) team.ready(0);  // step 2 marks exchange 3 (epoch 4) twice
  };
  try {
    session.run(steps);
    ADD_FAILURE() << "the run accepted a part marked twice";
  } catch (const proxy::Error& e) {
    EXPECT_EQ(std::string(e.what()), "plan 'early-bird ring': part 0 marked ready twice in epoch 4");
  }
}

TEST_F(EarlyBird, NeedsLookaheadZero) {
  proxy::harness::Session session(env, Mode::proxy, 1);
  Ring ring(session.threads(), env.rank(), env.size());
  const proxy::Plan plan = session.proxy()->commit(ring_plan(ring));
  proxy::harness::Steps steps = ring_steps(ring, plan, 3);
  steps.lookahead = 1;
  try {
    session.run(steps);
    ADD_FAILURE() << "lookahead 1 was accepted";
  } catch (const proxy::Error& e) {
    EXPECT_EQ(std::string(e.what()), "Steps: early-bird parts (ready_parts " + std::to_string(session.threads()) +
                                         ") need lookahead 0, got 1");
  }
}

}  // namespace
