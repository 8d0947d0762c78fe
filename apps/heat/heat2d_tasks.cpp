// heat2d-tasks: heat2d (heat2d.cpp) written as OpenMP tasks, with no thread blocking in wait(). Each step
// is a small task graph: a detached task starts the halo plan and is fulfilled by the proxy when the ghost
// rows are in (proxy::fulfill_when_complete, <proxy/openmp_tasks.hpp>); interior chunks run meanwhile; the
// two rows next to the ghosts are updated by a task that depends on the detached one. Steps overlap as far
// as their data allow: step s+1's halo leaves as soon as step s's boundary rows are written.
// The problem (command line, rows, halo plans, row update, serial reference) is heat2d_problem.hpp, shared
// with heat2d.
//   usage: mpiexec -n 2 heat2d-tasks [--nx 256] [--ny 256] [--iters 200] [--verify]   (see --help)
#include <omp.h>

#include <algorithm>
#include <cstdio>
#include <string>

#include <apps/driver_main.hpp>
#include <apps/exit_codes.hpp>
#include <proxy/detail/counted.hpp>
#include <proxy/harness/session.hpp>  // placement_for, bind_compute_threads (binds unless PROXY_BIND=0)
#include <proxy/openmp_tasks.hpp>
#include <proxy/proxy.hpp>

#include "heat2d_problem.hpp"

namespace {

constexpr int kInteriorChunks = 4;  // interior tasks per step: the depend clauses below list all four
constexpr int kStepsPerRegion = 32;  // steps whose tasks exist at once (one parallel region each)

}  // namespace

int main(int argc, char** argv) {
  // driver_main: no exception escapes main (set-up failure: one line, exit 1; usage: exit 2 on every rank).
  return apps::driver_main("heat2d-tasks", argc, argv, [&](proxy::Environment& env) {
    heat2d::Problem problem;
    const int parsed = heat2d::parse_command_line(
        "heat2d-tasks", "heat2d as an OpenMP task graph: a detached task per halo, fulfilled by the proxy.", env,
        argc, argv, &problem);
    if (parsed != heat2d::kRun) return parsed;
    const int rank = env.rank(), size = env.size(), steps = problem.steps, nx = problem.nx;
    heat2d::Slab slab(problem, rank, size);
    const int rows = slab.rows();

    const proxy::Placement placement = proxy::harness::placement_for(env, proxy::harness::Mode::proxy, 0);
    double max_diff = 0.0;
    {
      proxy::Config defaults;
      defaults.timings = problem.verbose;  // its statistics' times, printed below
      proxy::ProxyThread proxy(MPI_COMM_WORLD, placement, defaults);
      if (rank == 0)
        std::printf("heat2d-tasks: %dx%d, %s, %s; rank 0 %s; progress %s\n", nx, problem.ny,
                    proxy::detail::counted(steps, "step").c_str(), proxy::detail::counted(size, "rank").c_str(),
                    placement.describe().c_str(), std::string(to_string(proxy.progress_strategy())).c_str());
      proxy::harness::bind_compute_threads(env, placement);
      proxy::Plan halo[2];  // one per buffer: PlanSpec send/recv of the edge and ghost rows (heat2d_problem.cpp)
      slab.commit_halo(proxy, halo);
      // Dependence objects for buffer b: its edge rows (1 and rows), each interior chunk, its ghost rows.
      // (One object per chunk, as GCC 12 has no inoutset: chunks of one step write disjoint rows.)
      char edge[2] = {}, chunk[2][kInteriorChunks] = {}, ghost[2] = {};
      // tickets[b]: the halo epoch; fulfilled[b]: its completion callback, complete once the detached task
      // is fulfilled, and failed with TimeoutError when the epoch did not complete within the wait timeout.
      proxy::Ticket tickets[2], fulfilled[2];
      // A failure in any task ends the whole job at once with one line: the peer cannot know, and the graph
      // (steps are created ahead) would only go on failing. The proxy still runs meanwhile.
      auto fail = [rank](const proxy::Error& error) {
#pragma omp critical(heat2d_tasks_failure)
        apps::abort_with("heat2d-tasks", "rank " + std::to_string(rank) + ": " + error.what(), apps::kExitRunFailure);
      };
      // The graph is built kStepsPerRegion steps at a time, one parallel region each: a creator that made
      // every step's tasks up front used memory without bound and could starve a failing task of the thread
      // that would run it. The region's closing barrier is also where libgomp 12 reliably completes tasks
      // fulfilled from outside the team (the proxy thread): a taskwait there can sleep through the
      // fulfilment, and `taskwait depend` crashes beside it.
      for (int first = 0; first < steps; first += kStepsPerRegion) {
        const int last = std::min(steps, first + kStepsPerRegion);
#pragma omp parallel
#pragma omp single
      for (int step = first; step < last; ++step) {
        const int b = step % 2, nb = 1 - b;
        omp_event_handle_t ghosts_in;
        // Completes when the proxy has moved the ghosts (the event is fulfilled on the proxy thread).
#pragma omp task detach(ghosts_in) depend(in: edge[b]) depend(out: ghost[b]) shared(proxy, halo, tickets, fulfilled)
        {
          try {
            tickets[b] = proxy.start(halo[b]);
            fulfilled[b] = proxy::fulfill_when_complete(proxy, tickets[b], ghosts_in);
          } catch (const proxy::Error& e) {
            fail(e);
          }
        }
        const int inner_rows = rows - 2;
        for (int k = 0; k < kInteriorChunks; ++k) {
          const int lo = 2 + inner_rows * k / kInteriorChunks, hi = 2 + inner_rows * (k + 1) / kInteriorChunks;
#pragma omp task depend(in: edge[b], chunk[b][0], chunk[b][1], chunk[b][2], chunk[b][3]) depend(out: chunk[nb][k]) \
    shared(slab)
          slab.update(b, lo, hi);
        }
#pragma omp task depend(in: edge[b], chunk[b][0], chunk[b][1], chunk[b][2], chunk[b][3], ghost[b]) \
    depend(out: edge[nb]) shared(slab, tickets, fulfilled)
        {
          try {
            // The callback has run (its task was fulfilled): test rethrows its TimeoutError for an epoch that
            // never completed; the halo's own timed wait covers the moment before the callback's outcome is
            // published, and rethrows a failed epoch.
            if (!proxy.test(fulfilled[b])) proxy.wait(tickets[b]);
            proxy.test(tickets[b]);
            slab.update(b, 1, 2);
            if (rows > 1) slab.update(b, rows, rows + 1);
          } catch (const proxy::Error& e) {
            fail(e);
          }
        }
      }
      }
      if (problem.verify) {
        const double local = slab.max_difference_from_serial(steps % 2, steps);
        try {
          proxy.call([&] { MPI_Allreduce(&local, &max_diff, 1, MPI_DOUBLE, MPI_MAX, proxy.comm()); },
                     "the --verify reduction (MPI_Allreduce of the largest difference)");
        } catch (const proxy::Error& e) {
          fail(e);
        }
      }
      if (rank == 0 && problem.verbose) std::printf("%s", proxy.statistics().format().c_str());
    }
    if (problem.verify && rank == 0)
      std::printf("heat2d-tasks: verify: max difference from the serial solver %g\n", max_diff);
    return problem.verify && max_diff != 0.0 ? apps::kExitVerificationFailed : apps::kExitSuccess;
  });
}
