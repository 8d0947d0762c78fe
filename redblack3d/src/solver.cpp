#include "redblack3d/solver.hpp"

#include <array>
#include <cmath>
#include <optional>

#include <omp.h>

#include "proxy/error.hpp"
#include "proxy/proxy_thread.hpp"
#include "redblack3d/halo.hpp"
#include "redblack3d/serial.hpp"

namespace redblack3d {
namespace {

// Everything a run reduces over the ranks, in one place so each mode reduces it the same way.
struct Reduction {
  std::array<double, 3> sums{};     // compute, comm, wait
  std::array<double, 3> maxima{};   // total, error, max difference
  std::array<double, 2> doubles{};  // residual squares, mismatches (exact in a double up to 2^53)

  void all_reduce(MPI_Comm comm) {
    MPI_Allreduce(MPI_IN_PLACE, sums.data(), 3, MPI_DOUBLE, MPI_SUM, comm);
    MPI_Allreduce(MPI_IN_PLACE, maxima.data(), 3, MPI_DOUBLE, MPI_MAX, comm);
    MPI_Allreduce(MPI_IN_PLACE, doubles.data(), 2, MPI_DOUBLE, MPI_SUM, comm);
  }
};

void fill_local(Reduction& r, const Timings& t, const LocalNorms& norms, const Comparison& c) {
  r.sums = {t.compute_s, t.comm_s, t.wait_s};
  r.maxima = {t.total_s, norms.error_max, c.max_difference};
  r.doubles = {norms.residual_squares, static_cast<double>(c.mismatches)};
}

void finish_report(RunReport& report, const Reduction& r, const RunSettings& settings, int ranks) {
  report.ranks = ranks;
  report.timings = {r.maxima[0], r.sums[0] / ranks, r.sums[1] / ranks, r.sums[2] / ranks};
  report.error = r.maxima[1];
  report.residual = std::sqrt(r.doubles[0]);
  report.comparison = {r.maxima[2], static_cast<long long>(r.doubles[1])};
  report.verified = settings.verify && report.comparison.mismatches == 0;
}

Comparison verify_block(const Block& block, const RunSettings& settings) {
  if (!settings.verify) return {};
  const Grid serial = solve_serial(settings.global, settings.omega, settings.iterations);
  return compare_with_serial(block.u, serial, block.decomposition.offset);
}

}  // namespace

RunReport run(const proxy::Environment& env, const RunSettings& settings) {
  const Mode mode = settings.mode;
  RunReport report;
  Block block(settings.global, settings.geometry, env.rank(), settings.omega);
  const Halo halo(block.decomposition, block.u);

  const proxy::Placement placement =
      env.placement(is_multi_tier(mode) ? settings.threads : 1, mode == Mode::proxy);
  report.threads = placement.threads;
  std::array<int, 2> flags{placement.shared_proxy ? 1 : 0, placement.oversubscribed ? 1 : 0};
  MPI_Allreduce(MPI_IN_PLACE, flags.data(), 2, MPI_INT, MPI_LOR, env.world());
  report.shared_proxy = flags[0] != 0;
  report.oversubscribed = flags[1] != 0;
  report.placement = placement.describe();
  {
    // Every rank learns rank 0's placement line so that the report is the same everywhere.
    std::array<char, 256> line{};
    report.placement.copy(line.data(), line.size() - 1);
    MPI_Bcast(line.data(), static_cast<int>(line.size()), MPI_CHAR, 0, env.world());
    report.placement = line.data();
  }
  if (settings.on_placement) settings.on_placement(placement, report.shared_proxy, report.oversubscribed);
  omp_set_num_threads(placement.threads);
  env.bind_openmp_threads(placement);

  Reduction reduction;
  if (mode != Mode::proxy) {
    Timings timings;
    switch (mode) {
      case Mode::sync: timings = run_sync(block, halo, settings.iterations, env.world()); break;
      case Mode::async: timings = run_async(block, halo, settings.iterations, env.world()); break;
      default: timings = run_mt(block, halo, settings.iterations, placement.threads, env.world()); break;
    }
    halo.exchange(block.u, env.world());  // fresh ghosts for the residual
    const LocalNorms norms =
        local_norms(block.u, block.f, block.stencil, settings.global, block.decomposition.offset);
    fill_local(reduction, timings, norms, verify_block(block, settings));
    reduction.all_reduce(env.world());
    finish_report(report, reduction, settings, env.size());
    return report;
  }

  // Proxy mode. The plan outlives the ProxyThread (declared first), so it is released only after the proxy
  // thread stopped; the Halo's datatypes outlive both.
  std::optional<proxy::Plan> plan;
  {
    proxy::ProxyThread proxy(env.world(), placement);
    Timings timings;
    try {
      plan = proxy.commit(halo.plan(block.u, "redblack3d halo"));
      timings = run_proxy(block, proxy, *plan, settings.iterations, placement.threads);
      proxy.wait(proxy.start(*plan));  // fresh ghosts for the residual
    } catch (const proxy::CommError& error) {
      if (!settings.on_comm_failure) throw;
      settings.on_comm_failure(error);
      throw;
    }
    const LocalNorms norms = local_norms(block.u, block.f, block.stencil, settings.global, block.decomposition.offset);
    fill_local(reduction, timings, norms, verify_block(block, settings));
    proxy.call([&] { reduction.all_reduce(proxy.comm()); });  // only the proxy thread calls MPI now
    if (env.rank() == 0) report.proxy_statistics = proxy.statistics().format();
  }
  finish_report(report, reduction, settings, env.size());
  return report;
}

}  // namespace redblack3d
