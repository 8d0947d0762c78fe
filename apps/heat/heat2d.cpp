// heat2d: the proxy API in a loop. Explicit 2-D heat equation on an nx x ny grid, rows split over the
// ranks, one ghost row above and below. Each step: start the halo plan (the proxy moves the ghost rows),
// update the interior rows with OpenMP while it does, wait, then update the two rows next to the ghosts.
// --verify recomputes the whole grid serially on every rank and compares its rows bit for bit.
// The problem (command line, rows, halo plans, row update, serial reference) is heat2d_problem.hpp, shared
// with heat2d-tasks; this file is the proxy's lifetime and the step loop.
//   usage: mpiexec -n 2 heat2d [--nx 256] [--ny 256] [--iters 200] [--verify]   (see --help)
// Exit status: 0, 1 for a run-time failure (one line, the whole job ends), 2 for a bad argument, 3 when
// --verify finds a difference (the drivers' convention).
#include <cstdio>
#include <string>

#include <apps/driver_main.hpp>
#include <apps/exit_codes.hpp>
#include <proxy/detail/counted.hpp>
#include <proxy/harness/session.hpp>  // placement_for, bind_compute_threads (binds unless PROXY_BIND=0)
#include <proxy/proxy.hpp>

#include "heat2d_problem.hpp"

int main(int argc, char** argv) {
  // driver_main: a failed set-up prints one line and exits 1, a usage error exits 2 on every rank, and any
  // other exception ends the whole job with one line (no exception escapes main).
  return apps::driver_main("heat2d", argc, argv, [&](proxy::Environment& env) {
    heat2d::Problem problem;
    const int parsed = heat2d::parse_command_line(
        "heat2d", "Explicit 2-D heat equation, rows split over the ranks, halo rows moved by the proxy.", env, argc,
        argv, &problem);
    if (parsed != heat2d::kRun) return parsed;
    const int rank = env.rank(), size = env.size();
    heat2d::Slab slab(problem, rank, size);
    const int rows = slab.rows(), nx = problem.nx;

    const proxy::Placement placement = proxy::harness::placement_for(env, proxy::harness::Mode::proxy, 0);
    double max_diff = 0.0;
    {
      proxy::Config defaults;
      defaults.timings = problem.verbose;  // its statistics' times, printed below
      proxy::ProxyThread proxy(MPI_COMM_WORLD, placement, defaults);
      if (rank == 0)
        std::printf("heat2d: %dx%d, %s, %s; rank 0 %s; progress %s\n", nx, problem.ny,
                    proxy::detail::counted(problem.steps, "step").c_str(), proxy::detail::counted(size, "rank").c_str(),
                    placement.describe().c_str(), std::string(to_string(proxy.progress_strategy())).c_str());
      proxy::harness::bind_compute_threads(env, placement);
      proxy::Plan halo[2];  // one per buffer: PlanSpec send/recv of the edge and ghost rows (heat2d_problem.cpp)
      slab.commit_halo(proxy, halo);
      try {
        for (int step = 0; step < problem.steps; ++step) {
          const int b = step % 2;
          const proxy::Ticket ticket = proxy.start(halo[b]);
#pragma omp parallel for schedule(static)
          for (int r = 2; r <= rows - 1; ++r) {
            slab.update(b, r, r + 1);
            if (r % 16 == 0) proxy.progress_point();  // every 16 rows: moves the halo along (cooperative)
          }
          proxy.wait(ticket);  // ghost rows of buffer b are now current (or CommError / TimeoutError)
          slab.update(b, 1, 2);
          if (rows > 1) slab.update(b, rows, rows + 1);
        }
        if (problem.verify) {
          const double local = slab.max_difference_from_serial(problem.steps % 2, problem.steps);
          proxy.call([&] { MPI_Allreduce(&local, &max_diff, 1, MPI_DOUBLE, MPI_MAX, proxy.comm()); },
                     "the --verify reduction (MPI_Allreduce of the largest difference)");
        }
      } catch (const proxy::Error& error) {
        // The peer cannot know: end the job now, while the proxy still runs (its shutdown would wait for
        // the lost epoch first).
        apps::abort_with("heat2d", "rank " + std::to_string(rank) + ": " + error.what(), apps::kExitRunFailure);
      }
      if (rank == 0 && problem.verbose) std::printf("%s", proxy.statistics().format().c_str());
    }
    if (problem.verify && rank == 0)
      std::printf("heat2d: verify: max difference from the serial solver %g\n", max_diff);
    return problem.verify && max_diff != 0.0 ? apps::kExitVerificationFailed : apps::kExitSuccess;
  });
}
