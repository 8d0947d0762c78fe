#include "summa/run.hpp"

#include <algorithm>
#include <cmath>
#include <optional>
#include <string>
#include <utility>

#include <proxy/harness/session.hpp>

#include "summa/blas_threads.hpp"
#include "summa/generator.hpp"
#include "summa/grid_context.hpp"
#include "summa/local_multiply.hpp"
#include "summa/modes.hpp"
#include "summa/operands.hpp"

namespace summa {

double local_relative_error(const GridContext& grid, const std::vector<double>& c, int blas_threads) {
  const Problem& p = grid.problem();
  const int m = grid.local_rows();
  const int n = grid.local_cols();
  if (m == 0 || n == 0) return 0.0;
  std::vector<double> a(static_cast<std::size_t>(m) * p.k);
  std::vector<double> b(static_cast<std::size_t>(p.k) * n);
  std::vector<double> reference(static_cast<std::size_t>(m) * n, 0.0);
  fill_a(grid.rows().offset(grid.position().row), m, 0, p.k, a.data(), m);
  fill_b(0, p.k, grid.cols().offset(grid.position().col), n, b.data(), n);
  {
    ScopedBlasThreads scoped(blas_threads);
    multiply_add(m, n, static_cast<int>(p.k), a.data(), m, b.data(), n, reference.data(), m);
  }
  double worst = 0.0;
  for (std::size_t i = 0; i < reference.size(); ++i) {
    const double error = std::abs(c[i] - reference[i]);
    worst = std::isnan(error) ? INFINITY : std::max(worst, error);
  }
  // Each entry of C sums k products bounded by max|A| * max|B|: the scale of its rounding error.
  return worst / (static_cast<double>(p.k) * kGeneratorMax * kGeneratorMax);
}

RunResult run(const proxy::Environment& env, const Problem& problem,
              std::function<void(const std::exception&)> on_comm_failure) {
  validate(problem, env.size());
  const MPI_Comm world = env.world();
  RunResult result;
  // Single-tier ranks and multi-tier threads alike call single-threaded OpenBLAS (blas_threads.hpp).
  ScopedBlasThreads single_threaded_blas(1);

  GridContext grid(world, problem, env.node().index);  // before the session: its proxy owns MPI after
  Operands operands(grid);
  result.panels = static_cast<int>(grid.schedule().size());
  result.broadcasts = grid.rank_map().broadcast_counts(0);

  proxy::Config proxy_defaults;
  proxy_defaults.timings = problem.proxy_timings;
  proxy::harness::Session session(env, problem.mode, problem.threads, proxy_defaults);
  if (on_comm_failure) session.on_comm_failure(std::move(on_comm_failure));
  result.threads_per_rank = session.threads();
  result.shared_proxy = session.any_shared_proxy();
  result.placement = session.rank0_placement();
  result.progress = std::string(session.progress());
  const std::vector<Tile> tiles = split_into_tiles(operands.m(), operands.n(), session.threads());
  PanelRequests requests;
  const proxy::harness::Steps steps = make_steps(grid, operands, tiles, requests);

  for (int rep = 0; rep < problem.reps; ++rep) {
    operands.zero_c();
    const std::string repetition = "repetition " + std::to_string(rep + 1);
    // Every rank starts the clock together (a timed barrier: a rank that never comes ends the run).
    session.collective("the barrier before " + repetition,
                       [](MPI_Comm comm, MPI_Request& request) { MPI_Ibarrier(comm, &request); });
    result.repetitions.push_back(session.slowest_rank(session.run(steps, repetition + ", ")));
  }
  result.timings = proxy::harness::mean(result.repetitions);

  if (problem.verify) {
    // One multi-threaded dgemm as the reference for threads x single-threaded tiles (and vice versa).
    double error = local_relative_error(grid, operands.c(), result.threads_per_rank);
    session.collective("the verification reduction", [&error](MPI_Comm comm, MPI_Request& request) {
      MPI_Iallreduce(MPI_IN_PLACE, &error, 1, MPI_DOUBLE, MPI_MAX, comm, &request);
    });
    result.verify_ran = true;
    result.max_rel_error = error;
    result.verified = error < kVerifyTolerance;
  }
  result.proxy_statistics = session.proxy_statistics();
  return result;
}

}  // namespace summa
