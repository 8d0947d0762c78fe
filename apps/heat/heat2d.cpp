// heat2d: the proxy API in one file. Explicit 2-D heat equation on an nx x ny grid, rows split over the
// ranks, one ghost row above and below. Each step: start the halo plan (the proxy moves the ghost rows),
// update the interior rows with OpenMP while it does, wait, then update the two rows next to the ghosts.
// --verify recomputes the whole grid serially on every rank and compares its rows bit for bit.
//   usage: mpiexec -n 2 heat2d [--nx 256] [--ny 256] [--iters 200] [--verify]   (see --help)
// Exit status: 0, 2 for a bad argument, 3 when --verify finds a difference (the drivers' convention).
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include <apps/common.hpp>           // the programs' one command-line vocabulary (apps::Options)
#include <proxy/harness/memory.hpp>   // check_memory: refuse a size the node cannot hold
#include <proxy/harness/session.hpp>  // bind_compute_threads: binds unless PROXY_BIND=0
#include <proxy/proxy.hpp>

namespace {

constexpr const char* kProgram = "heat2d";
constexpr int kParsed = -1;  // run_guarded's "go on": the command line is valid and asks for a run
constexpr double kRate = 0.2;  // dt*alpha/h^2: stable below 0.25

double initial(int gx, int gy, int nx, int ny) {
  return (gx == 0 || gy == 0 || gx == nx - 1 || gy == ny - 1) ? 0.0 : std::sin(0.1 * gx) * std::cos(0.07 * gy);
}

// One row of the explicit update; fixed (Dirichlet) values at the global boundary.
void update_row(const double* up, const double* row, const double* down, double* out, int nx, bool fixed) {
  out[0] = row[0];
  out[nx - 1] = row[nx - 1];
  for (int x = 1; x < nx - 1; ++x)
    out[x] = fixed ? row[x] : row[x] + kRate * (up[x] + down[x] + row[x - 1] + row[x + 1] - 4.0 * row[x]);
}

}  // namespace

int main(int argc, char** argv) {
  proxy::Environment env(argc, argv);
  apps::Options options(kProgram, "Explicit 2-D heat equation, rows split over the ranks, halo rows moved by the proxy.");
  options.option("nx", "NX", "grid points per row, at least 3 (K suffix allowed)", "256")
      .option("ny", "NY", "rows, at least the number of ranks (K suffix allowed)", "256")
      .option("iters", "K", "time steps", "200")
      .flag("verify", "recompute the whole grid serially on every rank and compare bit for bit; exit 3 if not")
      .flag("verbose", "print the effective configuration and the proxy's statistics (also PROXY_VERBOSE=1)")
      .alias("steps", "iters");
  int nx = 0, ny = 0, steps = 0;
  bool verify = false;
  // Every rank parses the same command line and knows the rank count: the same outcome everywhere.
  const int parsed = apps::run_guarded(kProgram, env.rank(), [&] {
    const bool run = apps::agreed(MPI_COMM_WORLD, [&] {
      if (!options.parse(argc, argv)) return false;
      nx = static_cast<int>(options.count("nx", 3, 1 << 24));
      ny = static_cast<int>(options.count("ny", env.size(), 1 << 24));
      steps = static_cast<int>(options.count("iters", 1, 1 << 30));
      verify = options.flag_set("verify");
      return true;
    });
    if (!run) {
      if (env.rank() == 0) std::fputs(options.answer().c_str(), stdout);
      return 0;
    }
    if (options.show_config_requested() || options.verbose()) {
      if (env.rank() == 0) std::fputs(options.show_config().c_str(), stdout);
      if (options.show_config_requested()) return 0;
    }
    return kParsed;
  });
  if (parsed != kParsed) return parsed;
  const int rank = env.rank(), size = env.size();
  // Rows as even as possible; first_row is this rank's first global row.
  const int rows = ny / size + (rank < ny % size ? 1 : 0);
  const int first_row = rank * (ny / size) + std::min(rank, ny % size);
  // Before allocating: two row buffers with ghost rows, and the serial grids of --verify.
  const double bytes = sizeof(double) * (2.0 * (rows + 2) * nx + (verify ? 2.0 * nx * ny : 0.0));
  try {
    proxy::harness::check_memory(env.world(), "--nx " + std::to_string(nx) + " --ny " + std::to_string(ny), bytes,
                                 env.node().size);
  } catch (const proxy::harness::InvalidSettings& error) {
    if (rank == 0) std::fprintf(stderr, "heat2d: error: %s\n", error.what());
    return apps::kExitUsage;
  }
  std::vector<double> u[2];
  for (auto& v : u) v.assign(static_cast<std::size_t>(rows + 2) * nx, 0.0);
  auto at = [nx](std::vector<double>& v, int row) { return v.data() + static_cast<std::size_t>(row) * nx; };
  for (int r = 1; r <= rows; ++r)
    for (int x = 0; x < nx; ++x) at(u[0], r)[x] = initial(x, first_row + r - 1, nx, ny);

  const proxy::Placement placement = proxy::harness::placement_for(env, proxy::harness::Mode::proxy, 0);
  double max_diff = 0.0;
  {
    proxy::ProxyThread proxy(MPI_COMM_WORLD, placement);
    if (rank == 0) std::printf("heat2d: %dx%d, %d steps, %d ranks; rank 0 %s; progress %s\n", nx, ny, steps, size,
                               placement.describe().c_str(), std::string(to_string(proxy.progress_strategy())).c_str());
    proxy::harness::bind_compute_threads(env, placement);
    const int up = rank > 0 ? rank - 1 : MPI_PROC_NULL, down = rank < size - 1 ? rank + 1 : MPI_PROC_NULL;
    // One plan per buffer: a plan names fixed memory, so double buffering means two plans.
    proxy::Plan halo[2];
    for (int b = 0; b < 2; ++b) {
      proxy::PlanSpec spec("halo-" + std::to_string(b));
      spec.send(up, 0, at(u[b], 1), nx, MPI_DOUBLE).recv(down, 0, at(u[b], rows + 1), nx, MPI_DOUBLE);
      spec.send(down, 1, at(u[b], rows), nx, MPI_DOUBLE).recv(up, 1, at(u[b], 0), nx, MPI_DOUBLE);
      halo[b] = proxy.commit(spec);
    }
    auto fixed = [&](int r) { return first_row + r - 1 == 0 || first_row + r - 1 == ny - 1; };
    for (int step = 0; step < steps; ++step) {
      std::vector<double>& cur = u[step % 2];
      std::vector<double>& next = u[(step + 1) % 2];
      const proxy::Ticket ticket = proxy.start(halo[step % 2]);
#pragma omp parallel for schedule(static)
      for (int r = 2; r <= rows - 1; ++r) {
        update_row(at(cur, r - 1), at(cur, r), at(cur, r + 1), at(next, r), nx, fixed(r));
        if (r % 16 == 0) proxy.progress_point();  // every 16 rows: moves the halo along (cooperative)
      }
      proxy.wait(ticket);  // ghost rows of `cur` are now current
      for (int r : {1, rows})  // (the same row twice when rows == 1: harmless, same result)
        update_row(at(cur, r - 1), at(cur, r), at(cur, r + 1), at(next, r), nx, fixed(r));
    }
    if (verify) {
      std::vector<double> g[2];
      for (auto& v : g) v.assign(static_cast<std::size_t>(ny) * nx, 0.0);
      for (int y = 0; y < ny; ++y)
        for (int x = 0; x < nx; ++x) g[0][static_cast<std::size_t>(y) * nx + x] = initial(x, y, nx, ny);
      for (int step = 0; step < steps; ++step)
        for (int y = 0; y < ny; ++y) {
          const double* row = &g[step % 2][static_cast<std::size_t>(y) * nx];
          update_row(y > 0 ? row - nx : row, row, y < ny - 1 ? row + nx : row, &g[(step + 1) % 2][static_cast<std::size_t>(y) * nx],
                     nx, y == 0 || y == ny - 1);
        }
      double local = 0.0;
      for (int r = 1; r <= rows; ++r)
        for (int x = 0; x < nx; ++x)
          local = std::max(local, std::fabs(at(u[steps % 2], r)[x] - g[steps % 2][static_cast<std::size_t>(first_row + r - 1) * nx + x]));
      proxy.call([&] { MPI_Allreduce(&local, &max_diff, 1, MPI_DOUBLE, MPI_MAX, proxy.comm()); });
    }
    if (rank == 0 && options.verbose()) std::printf("%s", proxy.statistics().format().c_str());
  }
  if (verify && rank == 0) std::printf("heat2d: verify: max difference from the serial solver %g\n", max_diff);
  return verify && max_diff != 0.0 ? apps::kExitVerificationFailed : apps::kExitSuccess;
}
