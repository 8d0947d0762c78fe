#include "summa/run.hpp"

#include <algorithm>
#include <cmath>
#include <optional>

#include <proxy/config.hpp>
#include <proxy/proxy_thread.hpp>

#include "summa/blas_threads.hpp"
#include "summa/generator.hpp"
#include "summa/grid_context.hpp"
#include "summa/local_multiply.hpp"
#include "summa/operands.hpp"

namespace summa {

namespace {

// MPI calls go to the proxy thread while one runs (it alone may call MPI), else run here.
template <class Fn>
void on_mpi_thread(proxy::ProxyThread* proxy, Fn&& fn) {
  if (proxy != nullptr)
    proxy->call(fn);
  else
    fn();
}

Timings max_over_ranks(proxy::ProxyThread* proxy, MPI_Comm world, const Timings& mine) {
  double local[4] = {mine.total, mine.compute, mine.comm, mine.wait};
  double slowest[4];
  on_mpi_thread(proxy, [&] { MPI_Allreduce(local, slowest, 4, MPI_DOUBLE, MPI_MAX, world); });
  return Timings{slowest[0], slowest[1], slowest[2], slowest[3]};
}

}  // namespace

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

RunResult run(const proxy::Environment& env, const Problem& problem) {
  validate(problem, env.size());
  const MPI_Comm world = env.world();
  RunResult result;
  // Single-tier ranks and multi-tier threads alike call single-threaded OpenBLAS (blas_threads.hpp).
  ScopedBlasThreads single_threaded_blas(1);

  GridContext grid(world, problem, env.node().index);  // before the proxy: it calls MPI
  Operands operands(grid);
  result.panels = static_cast<int>(grid.schedule().size());
  result.broadcasts = grid.rank_map().broadcast_counts(0);

  const bool multi_tier = is_multi_tier(problem.mode);
  const proxy::Config config = proxy::Config::from_env();
  std::optional<proxy::Placement> placement;
  if (multi_tier) {
    placement = env.placement(problem.threads, problem.mode == Mode::proxy);
    result.threads_per_rank = placement->threads;
    if (config.bind) env.bind_openmp_threads(*placement);
    int shared = placement->shared_proxy ? 1 : 0;
    int any_shared = 0;
    MPI_Allreduce(&shared, &any_shared, 1, MPI_INT, MPI_LOR, world);
    result.shared_proxy = any_shared != 0;
    result.placement = placement->describe();  // rank 0's is the one the driver prints
  }

  std::optional<proxy::ProxyThread> proxy_thread;
  if (problem.mode == Mode::proxy) proxy_thread.emplace(world, *placement);
  proxy::ProxyThread* proxy = proxy_thread ? &*proxy_thread : nullptr;

  for (int rep = 0; rep < problem.reps; ++rep) {
    operands.zero_c();
    on_mpi_thread(proxy, [&] { MPI_Barrier(world); });  // every rank starts the clock together
    Timings mine;
    switch (problem.mode) {
      case Mode::sync: mine = multiply_sync(grid, operands); break;
      case Mode::async: mine = multiply_async(grid, operands); break;
      case Mode::mt: mine = multiply_mt(grid, operands, result.threads_per_rank); break;
      case Mode::proxy: mine = multiply_proxy(grid, operands, result.threads_per_rank, *proxy); break;
    }
    result.repetitions.push_back(max_over_ranks(proxy, world, mine));
  }
  for (const Timings& t : result.repetitions) {
    result.timings.total += t.total / problem.reps;
    result.timings.compute += t.compute / problem.reps;
    result.timings.comm += t.comm / problem.reps;
    result.timings.wait += t.wait / problem.reps;
  }

  if (problem.verify) {
    // One multi-threaded dgemm as the reference for threads x single-threaded tiles (and vice versa).
    double error = local_relative_error(grid, operands.c(), result.threads_per_rank);
    on_mpi_thread(proxy, [&] { MPI_Allreduce(MPI_IN_PLACE, &error, 1, MPI_DOUBLE, MPI_MAX, world); });
    result.verify_ran = true;
    result.max_rel_error = error;
    result.verified = error < kVerifyTolerance;
  }
  if (proxy != nullptr) result.proxy_statistics = proxy->statistics().format();
  return result;
}

}  // namespace summa
