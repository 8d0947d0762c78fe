// Fault cases of the runtime, one per argument, each run on real ranks by CTest (label `faults`):
//   settings          construct the Environment only (bad PROXY_* values are refused there), print "ok"
//   abort-line        rank 0 ends the job at once with Environment::abort(line, 3): the line must arrive
//   call-abandoned    rank 0: call() times out while the proxy is busy with an earlier closure; the call is
//                     abandoned (never runs), TimeoutError names it, and the program goes on and exits 0
//   call-running      rank 0: call() runs MPI_Barrier that rank 1 never enters; the wait times out while
//                     the closure runs: one line, then the job ends (MPI_Abort)
//   drain-collective  rank 0: a closure tracks an MPI_Ibarrier rank 1 never enters; ~ProxyThread cannot
//                     drain it and must not MPI_Cancel a collective: one line, then the job ends
//   drain-blocked     rank 0: a submitted closure blocks in MPI_Barrier; ~ProxyThread cannot join the proxy:
//                     one line within 2 x PROXY_WAIT_TIMEOUT, then the job ends
//   adopt-funneled    MPI initialised by the program at MPI_THREAD_FUNNELED, then the Environment: refused (exit 2)
//   mpi-error         rank 0, after its ProxyThread has gone, sends to a rank outside MPI_COMM_WORLD: an error of
//                     the program's own MPI call stays fatal (the proxy's handler returns only the loop's)
//   never-waited      rank 0 starts a plan whose peer never sends and never waits on it: the shutdown cancels it
//                     after PROXY_WAIT_TIMEOUT with one line naming plan and epoch; both ranks exit 0
//   unwind-plan       rank 0 starts that plan, then a proxy::Error thrown in the proxy's scope is caught outside
//                     it: ~ProxyThread runs while it unwinds and cancels the plan at once (no drain), so the
//                     program reports it and exits 1 long before PROXY_WAIT_TIMEOUT
//   unwind-collective as unwind-plan with a tracked MPI_Ibarrier rank 1 never enters, which cannot be cancelled:
//                     one line at once, then the job ends
//   progress-blocked  rank 0 posts an Operation whose progress() blocks in MPI_Barrier (rank 1 never enters) and
//                     waits: the pass never returns; one line naming it, then the job ends (under every strategy:
//                     cooperative runs the pass on the waiting thread itself, whose wait cannot time out then)
//   commit-alone      rank 0 commits a plan with an allreduce on MPI_COMM_WORLD, rank 1 one without a collective
//                     element: rank 0's commit waits in the comparison between the ranks; at PROXY_WAIT_TIMEOUT one
//                     line naming the plan, the element, the call and the cause, then the job ends
//   stop-at-end       rank 1 stops itself (SIGSTOP) after the program's last communication: MPI_Finalize would
//                     wait for it for ever; the Environment's end of the program names it in one line and ends the job
// Rank 1 of the failing cases sleeps (up to 5 minutes, well past any CTest timeout) until the abort ends it.
#include <atomic>
#include <chrono>
#include <csignal>
#include <cstdio>
#include <cstring>
#include <memory>
#include <string>
#include <thread>

#include "proxy/core.hpp"

namespace {

using namespace std::chrono_literals;

std::atomic<int> abandoned_runs{0};  // how often the abandoned closure ran (must stay 0)

void sleep_until_killed() { std::this_thread::sleep_for(300s); }

int call_abandoned(proxy::ProxyThread& proxy) {
  std::atomic<bool> release{false};
  // Keeps the proxy busy until the call below has given up: the outcome does not depend on timing.
  proxy::Ticket busy = proxy.submit([&](proxy::ClosureContext&) {
    while (!release.load()) std::this_thread::sleep_for(1ms);
  }, "busy");
  try {
    int local = 41;
    proxy.call([&] { local += 1; abandoned_runs.fetch_add(1); }, "abandoned");
    std::printf("rank 0: call returned although the proxy was busy\n");
    return 1;
  } catch (const proxy::TimeoutError& e) {
    std::printf("rank 0: %s\n", e.what());
  }
  release.store(true);
  proxy.wait(busy, 300s);
  // A later closure runs after the abandoned one's place in the queue: by then it would have run.
  proxy.wait(proxy.submit([](proxy::ClosureContext&) {}, "after"), 300s);
  std::printf("rank 0: the abandoned closure ran %d times\n", abandoned_runs.load());
  return abandoned_runs.load() == 0 ? 0 : 1;
}

}  // namespace

// commit-alone: rank 1 never joins the comparison of rank 0's collective elements (it has none).
int commit_alone(proxy::ProxyThread& proxy) {
  double x = 1.0, sum = 0.0;
  proxy::PlanSpec spec("sum");
  if (proxy.rank() == 0) spec.allreduce(MPI_COMM_WORLD, &x, &sum, 1, MPI_DOUBLE, MPI_SUM);
  else spec.send(MPI_PROC_NULL, 0, &x, 1, MPI_DOUBLE);
  proxy.commit(spec);
  if (proxy.rank() != 0) sleep_until_killed();
  std::printf("rank 0: the commit returned without rank 1\n");
  return 1;
}

// progress-blocked: an Operation that blocks in its progress(), as a hand-written collective's state machine
// calling a blocking MPI function would.
class BlockingProgress final : public proxy::Operation {
 public:
  explicit BlockingProgress(MPI_Comm comm) : Operation("blocking"), comm_(comm) {}
  void start(std::uint64_t) override {}
  bool progress() override {
    MPI_Barrier(comm_);
    return true;
  }
  bool cancellable() const noexcept override { return false; }

 private:
  MPI_Comm comm_;
};

int progress_blocked(proxy::ProxyThread& proxy) {
  try {
    proxy.wait(proxy.post(std::make_shared<BlockingProgress>(proxy.comm())));
    std::printf("rank 0: the barrier completed without rank 1\n");
  } catch (const proxy::Error& e) {  // dedicated and polling: the wait times out; the shutdown cannot join
    std::printf("rank 0: %s\n", e.what());
  }
  return 1;
}

// never-waited and unwind-*: rank 0's epoch that never completes (rank 1 sends nothing).
proxy::Ticket start_lonely_receive(proxy::ProxyThread& proxy, const proxy::Plan& plan) {
  if (proxy.rank() != 0) return {};
  return proxy.start(plan);
}

// adopt-funneled: the code initialises MPI itself at MPI_THREAD_FUNNELED, then constructs the Environment as
// porting.md's start-up does: refused as a bad setting, on every rank, said once, exit 2 (it was a plain Error,
// which that start-up does not catch: terminate, SIGABRT).
int adopt_funneled(int argc, char** argv) {
  int provided = MPI_THREAD_SINGLE;
  MPI_Init_thread(&argc, &argv, MPI_THREAD_FUNNELED, &provided);
  int status = 0;
  try {
    proxy::Environment env(argc, argv);
  } catch (const proxy::SettingsError& refused) {
    status = refused.exit_status();
  }
  MPI_Finalize();
  return status;
}

int main(int argc, char** argv) try {
  if (argc > 1 && std::string(argv[1]) == "adopt-funneled") return adopt_funneled(argc, argv);
  proxy::Environment env(argc, argv);
  const std::string which = argc > 1 ? argv[1] : "";
  if (which == "settings") {
    if (env.rank() == 0) std::printf("ok\n");
    return 0;
  }
  if (which == "stop-at-end") {
    MPI_Barrier(MPI_COMM_WORLD);  // the last communication
    if (env.rank() == 1) raise(SIGSTOP);
    return 0;
  }
  if (which == "abort-line") {
    if (env.rank() == 0) proxy::Environment::abort("rank 0: error: ending the job on purpose", 3);
    sleep_until_killed();
  }
  if (which == "never-waited") {
    int value = 0;
    {
      proxy::ProxyThread proxy;
      proxy::PlanSpec spec("never waited");
      if (proxy.rank() == 0) spec.recv(1, 5, &value, 1, MPI_INT);
      const proxy::Plan plan = proxy.commit(spec);
      start_lonely_receive(proxy, plan);
    }
    std::printf("rank %d: ProxyThread shut down\n", env.rank());
    return 0;
  }
  if (which == "unwind-plan" || which == "unwind-collective") {
    int value = 0;
    try {
      proxy::ProxyThread proxy;
      proxy::PlanSpec spec("unwound");
      if (proxy.rank() == 0) spec.recv(1, 5, &value, 1, MPI_INT);
      const proxy::Plan plan = proxy.commit(spec);
      if (proxy.rank() == 0) {
        start_lonely_receive(proxy, plan);
        if (which == "unwind-collective")
          proxy.submit([](proxy::ClosureContext& context) {
            MPI_Request request = MPI_REQUEST_NULL;
            MPI_Ibarrier(context.comm(), &request);
            context.track(request);
          }, "ibarrier");
        throw proxy::Error("thrown on purpose in the proxy's scope");
      }
      if (which == "unwind-collective") sleep_until_killed();
    } catch (const proxy::Error& error) {  // outside the proxy's scope: ~ProxyThread ran while it unwound
      std::fprintf(stderr, "rank %d: error: %s\n", env.rank(), error.what());
      return 1;
    }
    return 0;
  }
  int status = 0;
  {
    proxy::ProxyThread proxy;
    if (which == "commit-alone") {
      status = commit_alone(proxy);
    } else if (env.rank() == 0) {
      if (which == "call-abandoned") {
        status = call_abandoned(proxy);
      } else if (which == "progress-blocked") {
        status = progress_blocked(proxy);
      } else if (which == "call-running") {
        proxy.call([&] { MPI_Barrier(proxy.comm()); }, "barrier");
        std::printf("rank 0: the barrier completed without rank 1\n");
        status = 1;
      } else if (which == "drain-collective") {
        proxy.submit([](proxy::ClosureContext& context) {
          MPI_Request request = MPI_REQUEST_NULL;
          MPI_Ibarrier(context.comm(), &request);
          context.track(request);
        }, "ibarrier");
      } else if (which == "mpi-error") {
        // after the scope
      } else if (which == "drain-blocked") {
        proxy.submit([](proxy::ClosureContext& context) { MPI_Barrier(context.comm()); }, "barrier");
      } else {
        std::fprintf(stderr, "fault_cases: error: unknown case '%s'\n", which.c_str());
        status = 2;
      }
    } else if (which != "call-abandoned" && which != "mpi-error") {
      sleep_until_killed();
    }
  }
  if (which == "mpi-error") {
    if (env.rank() == 0) {
      int x = 0;
      MPI_Send(&x, 1, MPI_INT, env.size(), 0, MPI_COMM_WORLD);
      std::printf("rank 0: MPI_Send to rank %d returned\n", env.size());
      return 1;
    }
    sleep_until_killed();
  }
  if (env.rank() == 0 && which != "call-abandoned" && which != "commit-alone") std::printf("rank 0: ProxyThread shut down without its peer\n");
  return status;
} catch (const proxy::SettingsError& refused) {  // every rank; one of them says why
  return refused.exit_status();
}
