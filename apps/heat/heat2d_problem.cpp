#include "heat2d_problem.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <string>

#include <apps/common.hpp>           // apps::Options, apps::agreed, run_guarded, exit codes
#include <proxy/harness/memory.hpp>  // check_memory

namespace heat2d {
namespace {

double initial(int gx, int gy, int nx, int ny) {
  return (gx == 0 || gy == 0 || gx == nx - 1 || gy == ny - 1) ? 0.0 : std::sin(0.1 * gx) * std::cos(0.07 * gy);
}

int rows_of(int rank, int ranks, int ny) { return ny / ranks + (rank < ny % ranks ? 1 : 0); }
int first_row_of(int rank, int ranks, int ny) { return rank * (ny / ranks) + std::min(rank, ny % ranks); }

}  // namespace

int parse_command_line(const char* program, const char* description, const proxy::Environment& env, int argc,
                       char** argv, Problem* problem) {
  apps::Options options(program, description);
  options.option("nx", "NX", "grid points per row, at least 3 (K suffix allowed)", "256")
      .suffixes()
      .range(3, 1 << 24)
      .option("ny", "NY", "rows, at least the number of ranks (K suffix allowed)", "256")
      .suffixes()
      .range(env.size(), 1 << 24)
      .option("iters", "K", "time steps, at least 1", "200")
      .range(1, 1 << 30)
      .per_rank()
      .flag("verify", "recompute the whole grid serially on every rank and compare bit for bit; exit 3 if not")
      .flag("verbose", "print the effective configuration and the proxy's statistics (also PROXY_VERBOSE=1)")
      .alias("steps", "iters");
  // Every rank parses the same command line and knows the rank count: the same outcome everywhere.
  return apps::run_guarded(program, env.rank(), [&] {
    if (!apps::parse_agreed(env.world(), env.rank(), options, argc, argv, [&] {
          problem->nx = static_cast<int>(options.integer("nx"));
          problem->ny = static_cast<int>(options.integer("ny"));
          problem->steps = static_cast<int>(options.integer("iters"));
          problem->verify = options.flag_set("verify");
          problem->verbose = options.verbose();
        }))
      return apps::kExitSuccess;
    apps::note_omp_threads(program, options, env, proxy::harness::Mode::proxy, 0, "one per compute core");
    // Before allocating: two buffers of rows with ghost rows, and the serial grids of --verify.
    const double nx = problem->nx, ny = problem->ny;
    const double rows = rows_of(env.rank(), env.size(), problem->ny);
    const double bytes = sizeof(double) * (2.0 * (rows + 2) * nx + (problem->verify ? 2.0 * nx * ny : 0.0));
    proxy::harness::check_memory(env.world(), "--nx " + std::to_string(problem->nx) + " --ny " +
                                 std::to_string(problem->ny), bytes, env.node().size);
    // --show-config once every check of a run has passed (the memory too): a bad value ends it as a run.
    if (apps::answer_show_config(options, env.rank())) return apps::kExitSuccess;
    return kRun;
  });
}

Slab::Slab(const Problem& problem, int rank, int ranks)
    : nx_(problem.nx), ny_(problem.ny), rank_(rank), ranks_(ranks), rows_(rows_of(rank, ranks, problem.ny)),
      first_row_(first_row_of(rank, ranks, problem.ny)) {
  for (auto& u : u_) u.assign(static_cast<std::size_t>(rows_ + 2) * nx_, 0.0);
  for (int r = 1; r <= rows_; ++r)
    for (int x = 0; x < nx_; ++x) row(0, r)[x] = initial(x, first_row_ + r - 1, nx_, ny_);
}

void Slab::update(int buffer, int lo, int hi) {
  for (int r = lo; r < hi; ++r)
    update_row(row(buffer, r - 1), row(buffer, r), row(buffer, r + 1), row(1 - buffer, r), nx_, fixed(r));
}

void Slab::commit_halo(proxy::ProxyThread& proxy, proxy::Plan (&halo)[2]) {
  const int up = above(), down = below();
  for (int b = 0; b < 2; ++b) {
    proxy::PlanSpec spec("halo-" + std::to_string(b));
    spec.send(up, 0, row(b, 1), nx_, MPI_DOUBLE).recv(down, 0, row(b, rows_ + 1), nx_, MPI_DOUBLE);
    spec.send(down, 1, row(b, rows_), nx_, MPI_DOUBLE).recv(up, 1, row(b, 0), nx_, MPI_DOUBLE);
    halo[b] = proxy.commit(spec);
  }
}

double Slab::max_difference_from_serial(int buffer, int steps) const {
  const auto at = [this](std::vector<double>& grid, int y) { return grid.data() + static_cast<std::size_t>(y) * nx_; };
  std::vector<double> g[2];
  for (auto& grid : g) grid.assign(static_cast<std::size_t>(ny_) * nx_, 0.0);
  for (int y = 0; y < ny_; ++y)
    for (int x = 0; x < nx_; ++x) at(g[0], y)[x] = initial(x, y, nx_, ny_);
  for (int step = 0; step < steps; ++step)
    for (int y = 0; y < ny_; ++y) {
      const double* r = at(g[step % 2], y);
      update_row(y > 0 ? r - nx_ : r, r, y < ny_ - 1 ? r + nx_ : r, at(g[(step + 1) % 2], y), nx_,
                 y == 0 || y == ny_ - 1);
    }
  double difference = 0.0;
  for (int r = 1; r <= rows_; ++r) {
    const double* mine = u_[buffer].data() + static_cast<std::size_t>(r) * nx_;
    const double* serial = at(g[steps % 2], first_row_ + r - 1);
    for (int x = 0; x < nx_; ++x) difference = std::max(difference, std::fabs(mine[x] - serial[x]));
  }
  return difference;
}

}  // namespace heat2d
