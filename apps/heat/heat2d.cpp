// heat2d: the proxy API in one file. Explicit 2-D heat equation on an nx x ny grid, rows split over the
// ranks, one ghost row above and below. Each step: start the halo plan (the proxy moves the ghost rows),
// update the interior rows with OpenMP while it does, wait, then update the two rows next to the ghosts.
// --verify recomputes the whole grid serially on every rank and compares its rows bit for bit.
//   usage: mpiexec -n 2 heat2d [--nx 256] [--ny 256] [--steps 200] [--verify]
// Exit status: 0, 2 for a bad argument, 3 when --verify finds a difference (the drivers' convention).
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include <proxy/harness/memory.hpp>   // check_memory: refuse a size the node cannot hold
#include <proxy/harness/session.hpp>  // bind_compute_threads: binds unless PROXY_BIND=0
#include <proxy/proxy.hpp>

namespace {

constexpr int kExitUsage = 2, kExitVerificationFailed = 3;
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
  int nx = 256, ny = 256, steps = 200;
  bool verify = false;
  for (int i = 1; i < argc; ++i) {
    const std::string arg = argv[i];
    int* target = arg == "--nx" ? &nx : arg == "--ny" ? &ny : arg == "--steps" ? &steps : nullptr;
    if (arg == "--verify") {
      verify = true;
    } else if (target != nullptr && i + 1 < argc && std::atoi(argv[i + 1]) > 0) {
      *target = std::atoi(argv[++i]);
    } else {
      if (env.rank() == 0) std::fprintf(stderr, "heat2d: error: bad argument '%s'\n", arg.c_str());
      return kExitUsage;
    }
  }
  const int rank = env.rank(), size = env.size();
  if (ny < size || nx < 3) {
    if (rank == 0) std::fprintf(stderr, "heat2d: error: need ny >= ranks (%d) and nx >= 3\n", size);
    return kExitUsage;
  }
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
    return kExitUsage;
  }
  std::vector<double> u[2];
  for (auto& v : u) v.assign(static_cast<std::size_t>(rows + 2) * nx, 0.0);
  auto at = [nx](std::vector<double>& v, int row) { return v.data() + static_cast<std::size_t>(row) * nx; };
  for (int r = 1; r <= rows; ++r)
    for (int x = 0; x < nx; ++x) at(u[0], r)[x] = initial(x, first_row + r - 1, nx, ny);

  const proxy::Placement placement = env.placement(0, true);
  if (rank == 0) std::printf("heat2d: %dx%d, %d steps, %d ranks; rank 0 %s\n", nx, ny, steps, size,
                             placement.describe().c_str());
  double max_diff = 0.0;
  {
    proxy::ProxyThread proxy(MPI_COMM_WORLD, placement);
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
      for (int r = 2; r <= rows - 1; ++r) update_row(at(cur, r - 1), at(cur, r), at(cur, r + 1), at(next, r), nx, fixed(r));
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
    if (rank == 0 && std::getenv("PROXY_VERBOSE") != nullptr) std::printf("%s", proxy.statistics().format().c_str());
  }
  if (verify && rank == 0) std::printf("heat2d: verify: max difference from the serial solver %g\n", max_diff);
  return verify && max_diff != 0.0 ? kExitVerificationFailed : 0;
}
