// heat2d-plain: heat2d written as plain MPI+OpenMP, the yardstick for the README's recipe (bench/RESULTS.md,
// "The README's recipe against plain MPI+OpenMP"). The same problem, rows, row update, binding of the OpenMP
// threads and --verify as heat2d; only the halo differs: the master posts MPI_Irecv/MPI_Isend of the edge
// rows, the team updates the interior rows, the master waits and the two rows next to the ghosts follow. No
// proxy thread, no plan: what a hybrid code writes without this runtime. Its waits test the requests until
// PROXY_WAIT_TIMEOUT (proxy::harness::wait_all, as MPI_Waitall would but bounded), so a peer that never
// answers ends the job with one line naming the rank, the step and the peer.
//   usage: mpiexec -n 2 heat2d-plain [--nx 256] [--ny 256] [--iters 200] [--verify]   (see --help)
// Exit status as heat2d: 0, 1 for a run-time failure, 2 for a bad argument, 3 when --verify finds a difference.
#include <array>
#include <cstdio>
#include <string>

#include <apps/driver_main.hpp>
#include <apps/exit_codes.hpp>
#include <proxy/detail/counted.hpp>
#include <proxy/harness/session.hpp>  // placement_for, bind_compute_threads
#include <proxy/harness/timed_wait.hpp>
#include <proxy/proxy.hpp>

#include "heat2d_problem.hpp"

int main(int argc, char** argv) {
  return apps::driver_main("heat2d-plain", argc, argv, [&](proxy::Environment& env) {
    heat2d::Problem problem;
    const int parsed = heat2d::parse_command_line(
        "heat2d-plain", "heat2d as plain MPI+OpenMP (MPI_Isend/MPI_Irecv from the master thread), no proxy.", env,
        argc, argv, &problem);
    if (parsed != heat2d::kRun) return parsed;
    const int rank = env.rank(), size = env.size();
    heat2d::Slab slab(problem, rank, size);
    const int rows = slab.rows(), nx = problem.nx;
    const int up = slab.above(), down = slab.below();

    // Every core of the rank computes (mt mode's placement: one thread per core, no proxy core).
    const proxy::Placement placement = proxy::harness::placement_for(env, proxy::harness::Mode::mt, 0);
    if (rank == 0)
      std::printf("heat2d-plain: %dx%d, %s, %s; rank 0 %s\n", nx, problem.ny,
                  proxy::detail::counted(problem.steps, "step").c_str(), proxy::detail::counted(size, "rank").c_str(),
                  placement.describe().c_str());
    proxy::harness::bind_compute_threads(env, placement);
    for (int step = 0; step < problem.steps; ++step) {
      const int b = step % 2;
      std::array<MPI_Request, 4> requests;  // the tags of heat2d's halo plans
      MPI_Irecv(slab.row(b, rows + 1), nx, MPI_DOUBLE, down, 0, MPI_COMM_WORLD, &requests[0]);
      MPI_Irecv(slab.row(b, 0), nx, MPI_DOUBLE, up, 1, MPI_COMM_WORLD, &requests[1]);
      MPI_Isend(slab.row(b, 1), nx, MPI_DOUBLE, up, 0, MPI_COMM_WORLD, &requests[2]);
      MPI_Isend(slab.row(b, rows), nx, MPI_DOUBLE, down, 1, MPI_COMM_WORLD, &requests[3]);
#pragma omp parallel for schedule(static)
      for (int r = 2; r <= rows - 1; ++r) slab.update(b, r, r + 1);
      try {
        const auto peer = [&](int i) { return i == 0 || i == 3 ? down : up; };
        proxy::harness::wait_all(requests, peer, [&](int i) {
          return std::string(i < 2 ? "no ghost row from rank " : "edge row not taken by rank ") + std::to_string(peer(i));
        });
      } catch (const proxy::TimeoutError& error) {
        apps::abort_with("heat2d-plain", "rank " + std::to_string(rank) + ", step " + std::to_string(step) + ": " +
                         error.what(), apps::kExitRunFailure);
      }
      slab.update(b, 1, 2);
      if (rows > 1) slab.update(b, rows, rows + 1);
    }
    double max_diff = 0.0;
    if (problem.verify) {
      const double local = slab.max_difference_from_serial(problem.steps % 2, problem.steps);
      MPI_Request request;
      MPI_Iallreduce(&local, &max_diff, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD, &request);
      proxy::harness::wait_collective(request);  // a WaitTimeout ends the job through driver_main
      if (rank == 0) std::printf("heat2d-plain: verify: max difference from the serial solver %g\n", max_diff);
    }
    return problem.verify && max_diff != 0.0 ? apps::kExitVerificationFailed : apps::kExitSuccess;
  });
}
