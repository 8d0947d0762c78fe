// heat2d-tasks: heat2d (heat2d.cpp) written as OpenMP tasks, with no thread blocking in wait(). Each step
// is a small task graph: a detached task starts the halo plan and is fulfilled by the proxy when the ghost
// rows are in (proxy::fulfill_when_complete, <proxy/openmp_tasks.hpp>); interior chunks run meanwhile; the
// two rows next to the ghosts are updated by a task that depends on the detached one. Steps overlap as far
// as their data allow: step s+1's halo leaves as soon as step s's boundary rows are written.
// --verify recomputes the grid serially on every rank and compares its rows bit for bit.
//   usage: mpiexec -n 2 heat2d-tasks [--nx 256] [--ny 256] [--steps 200] [--verify]
#include <omp.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include <proxy/openmp_tasks.hpp>
#include <proxy/proxy.hpp>

namespace {

constexpr double kRate = 0.2;    // dt*alpha/h^2: stable below 0.25 (as heat2d)
constexpr int kInteriorChunks = 4;  // interior tasks per step: the depend clauses below list all four

double initial(int gx, int gy, int nx, int ny) {
  return (gx == 0 || gy == 0 || gx == nx - 1 || gy == ny - 1) ? 0.0 : std::sin(0.1 * gx) * std::cos(0.07 * gy);
}

void update_row(const double* up, const double* row, const double* down, double* out, int nx, bool fixed) {
  out[0] = row[0];
  out[nx - 1] = row[nx - 1];
  for (int x = 1; x < nx - 1; ++x)
    out[x] = fixed ? row[x] : row[x] + kRate * (up[x] + down[x] + row[x - 1] + row[x + 1] - 4.0 * row[x]);
}

bool parse_positive(const char* text, int* value) {
  char* end = nullptr;
  const long parsed = std::strtol(text, &end, 10);
  if (end == text || *end != '\0' || parsed <= 0 || parsed > 1 << 24) return false;
  *value = static_cast<int>(parsed);
  return true;
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
    } else if (arg == "--help") {
      if (env.rank() == 0) std::printf("usage: mpiexec -n N heat2d-tasks [--nx 256] [--ny 256] [--steps 200] [--verify]\n");
      return 0;
    } else if (target != nullptr && i + 1 < argc && parse_positive(argv[i + 1], target)) {
      ++i;
    } else {
      if (env.rank() == 0) std::fprintf(stderr, "heat2d-tasks: error: bad argument '%s'\n", arg.c_str());
      return 2;
    }
  }
  const int rank = env.rank(), size = env.size();
  if (ny < 3 * size || nx < 3) {
    if (rank == 0) std::fprintf(stderr, "heat2d-tasks: error: need ny >= 3 * ranks (%d) and nx >= 3\n", 3 * size);
    return 2;
  }
  const int rows = ny / size + (rank < ny % size ? 1 : 0);  // >= 3: rows 1 and `rows` are the edges
  const int first_row = rank * (ny / size) + std::min(rank, ny % size);
  std::vector<double> u[2];
  for (auto& v : u) v.assign(static_cast<std::size_t>(rows + 2) * nx, 0.0);
  auto at = [nx](std::vector<double>& v, int row) { return v.data() + static_cast<std::size_t>(row) * nx; };
  for (int r = 1; r <= rows; ++r)
    for (int x = 0; x < nx; ++x) at(u[0], r)[x] = initial(x, first_row + r - 1, nx, ny);

  const proxy::Placement placement = env.placement(0, true);
  if (rank == 0) std::printf("heat2d-tasks: %dx%d, %d steps, %d ranks; rank 0 %s\n", nx, ny, steps, size,
                             placement.describe().c_str());
  double max_diff = 0.0;
  int failures = 0;
  {
    proxy::ProxyThread proxy(MPI_COMM_WORLD, placement);
    env.bind_openmp_threads(placement);
    const int up = rank > 0 ? rank - 1 : MPI_PROC_NULL, down = rank < size - 1 ? rank + 1 : MPI_PROC_NULL;
    proxy::Plan halo[2];
    for (int b = 0; b < 2; ++b) {
      proxy::PlanSpec spec("halo-" + std::to_string(b));
      spec.send(up, 0, at(u[b], 1), nx, MPI_DOUBLE).recv(down, 0, at(u[b], rows + 1), nx, MPI_DOUBLE);
      spec.send(down, 1, at(u[b], rows), nx, MPI_DOUBLE).recv(up, 1, at(u[b], 0), nx, MPI_DOUBLE);
      halo[b] = proxy.commit(spec);
    }
    auto fixed = [&](int r) { return first_row + r - 1 == 0 || first_row + r - 1 == ny - 1; };
    // Dependence objects for buffer b: its edge rows (1 and rows), each interior chunk, its ghost rows.
    // (One object per chunk, as GCC 12 has no inoutset: chunks of one step write disjoint rows.)
    char edge[2] = {}, chunk[2][kInteriorChunks] = {}, ghost[2] = {};
    proxy::Ticket tickets[2];
#pragma omp parallel
#pragma omp single
    for (int step = 0; step < steps; ++step) {
      const int b = step % 2, nb = 1 - b;
      std::vector<double>& cur = u[b];
      std::vector<double>& next = u[nb];
      omp_event_handle_t ghosts_in;
      // Completes when the proxy has moved the ghosts (the event is fulfilled on the proxy thread).
#pragma omp task detach(ghosts_in) depend(in: edge[b]) depend(out: ghost[b]) shared(proxy, halo, tickets)
      {
        tickets[b] = proxy.start(halo[b]);
        proxy::fulfill_when_complete(proxy, tickets[b], ghosts_in);
      }
      const int inner_rows = rows - 2;
      for (int k = 0; k < kInteriorChunks; ++k) {
        const int lo = 2 + inner_rows * k / kInteriorChunks, hi = 2 + inner_rows * (k + 1) / kInteriorChunks;
#pragma omp task depend(in: edge[b], chunk[b][0], chunk[b][1], chunk[b][2], chunk[b][3]) depend(out: chunk[nb][k]) \
    shared(cur, next)
        for (int r = lo; r < hi; ++r) update_row(at(cur, r - 1), at(cur, r), at(cur, r + 1), at(next, r), nx, fixed(r));
      }
#pragma omp task depend(in: edge[b], chunk[b][0], chunk[b][1], chunk[b][2], chunk[b][3], ghost[b]) \
    depend(out: edge[nb]) shared(cur, next, tickets, failures)
      {
        try {
          proxy.test(tickets[b]);  // complete (its task was fulfilled); rethrows a failed epoch
          for (int r : {1, rows}) update_row(at(cur, r - 1), at(cur, r), at(cur, r + 1), at(next, r), nx, fixed(r));
        } catch (const proxy::Error& e) {
#pragma omp critical
          {
            if (failures++ == 0) std::fprintf(stderr, "heat2d-tasks: rank %d: error: %s\n", rank, e.what());
          }
        }
      }
    }
    if (failures > 0) return 1;
    if (verify) {
      std::vector<double> g[2];
      for (auto& v : g) v.assign(static_cast<std::size_t>(ny) * nx, 0.0);
      for (int y = 0; y < ny; ++y)
        for (int x = 0; x < nx; ++x) g[0][static_cast<std::size_t>(y) * nx + x] = initial(x, y, nx, ny);
      for (int step = 0; step < steps; ++step)
        for (int y = 0; y < ny; ++y) {
          const double* row = &g[step % 2][static_cast<std::size_t>(y) * nx];
          update_row(y > 0 ? row - nx : row, row, y < ny - 1 ? row + nx : row,
                     &g[(step + 1) % 2][static_cast<std::size_t>(y) * nx], nx, y == 0 || y == ny - 1);
        }
      double local = 0.0;
      for (int r = 1; r <= rows; ++r)
        for (int x = 0; x < nx; ++x)
          local = std::max(local, std::fabs(at(u[steps % 2], r)[x] -
                                            g[steps % 2][static_cast<std::size_t>(first_row + r - 1) * nx + x]));
      proxy.call([&] { MPI_Allreduce(&local, &max_diff, 1, MPI_DOUBLE, MPI_MAX, proxy.comm()); });
    }
  }
  if (verify && rank == 0) std::printf("heat2d-tasks: verify: max difference from the serial solver %g\n", max_diff);
  return verify && max_diff != 0.0 ? 3 : 0;
}
