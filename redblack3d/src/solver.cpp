#include "redblack3d/solver.hpp"

#include <array>
#include <cmath>
#include <optional>
#include <sstream>

#include "proxy/detail/counted.hpp"
#include "proxy/proxy_thread.hpp"
#include "redblack3d/halo.hpp"
#include "redblack3d/serial.hpp"

namespace redblack3d {
namespace {

using proxy::detail::counted;
using proxy::harness::InvalidSettings;

// Everything a run reduces over the ranks besides the timings (the harness reduces those).
struct Reduction {
  std::array<double, 2> maxima{};   // error, max difference
  std::array<double, 2> doubles{};  // residual squares, mismatches (exact in a double up to 2^53)

  // Timed (the session's collective): a rank that never arrives ends the run with a diagnostic.
  void all_reduce(proxy::harness::Session& session) {
    session.collective("the final reduction", [this](MPI_Comm world, MPI_Request& request) {
      MPI_Iallreduce(MPI_IN_PLACE, maxima.data(), 2, MPI_DOUBLE, MPI_MAX, world, &request);
    });
    session.collective("the final reduction", [this](MPI_Comm world, MPI_Request& request) {
      MPI_Iallreduce(MPI_IN_PLACE, doubles.data(), 2, MPI_DOUBLE, MPI_SUM, world, &request);
    });
  }
};

Comparison verify_block(const Block& block, const RunSettings& settings) {
  if (!settings.verify) return {};
  const Grid serial = solve_serial(settings.global, settings.omega, settings.iterations);
  return compare_with_serial(block.u, serial, block.decomposition.offset);
}

std::string extent_text(const Extent& e, char separator) {
  if (separator == ',' && e[0] == e[1] && e[1] == e[2]) return std::to_string(e[0]);
  return std::to_string(e[0]) + separator + std::to_string(e[1]) + separator + std::to_string(e[2]);
}

}  // namespace

void validate(const RunSettings& s, int ranks) {
  proxy::harness::check_threads(s.mode, s.threads);
  if (!(s.omega > 0.0 && s.omega < 2.0)) {
    std::ostringstream omega;
    omega << s.omega;
    throw InvalidSettings("--omega must be strictly between 0 and 2, got '" + omega.str() + "'");
  }
  const long long needed = 1LL * s.geometry[0] * s.geometry[1] * s.geometry[2];
  if (needed != ranks) {
    throw InvalidSettings("--geometry " + extent_text(s.geometry, 'x') + " needs " + counted(needed, "rank") +
                          ", but " + std::to_string(ranks) + (ranks == 1 ? " is" : " are") + " running");
  }
  const char* const axis = "xyz";
  const std::string where = " (--n " + extent_text(s.global, ',') + ", --geometry " + extent_text(s.geometry, 'x') + ")";
  const std::string mode(proxy::harness::to_string(s.mode));
  for (int d = 0; d < 3; ++d) {
    const int points = s.global[d], parts = s.geometry[d];
    if (points < parts) {
      throw InvalidSettings(counted(points, "point") + " along " + axis[d] + " cannot be split over " +
                            counted(parts, "rank") + where);
    }
    // Overlap needs an inner region: a block cut on both sides along d must keep a plane that is not a face.
    const int thinnest = points / parts;
    if (proxy::harness::overlaps(s.mode) && parts > 1 && thinnest < 3) {
      throw InvalidSettings("blocks along " + std::string(1, axis[d]) + " are only " + counted(thinnest, "plane") +
                            " thick; " + mode +
                            " needs at least 3 to have an inner region" + where);
    }
  }
}

RunReport run(const proxy::Environment& env, const RunSettings& settings) {
  validate(settings, env.size());
  RunReport report;
  report.ranks = env.size();
  Block block(settings.global, settings.geometry, env.rank(), settings.omega);
  const Halo halo(block.decomposition, block.u);  // datatypes: MPI set-up before the session's proxy starts
  HaloRequests requests;
  // Declared before the session: the plan is released only after the proxy thread stopped.
  std::optional<proxy::Plan> plan;
  proxy::Config proxy_defaults;
  proxy_defaults.timings = settings.proxy_timings;
  proxy::harness::Session session(env, settings.mode, settings.threads, proxy_defaults);
  static_cast<proxy::harness::SessionFacts&>(report) = session.facts();
  if (settings.on_placement) settings.on_placement(session);
  if (settings.on_comm_failure) session.on_comm_failure(settings.on_comm_failure);
  if (proxy::ProxyThread* proxy = session.proxy())
    plan = proxy->commit(halo.plan(block.u, "redblack3d halo", settings.early_bird ? session.threads() : 0));

  const proxy::harness::Steps steps = make_steps(block, halo, settings.mode, settings.iterations, env.world(),
                                                 plan ? &*plan : nullptr, requests);
  const proxy::harness::Timings mine = session.run(steps);
  session.exchange_once(steps, 0);  // fresh ghosts for the residual
  const LocalNorms norms = local_norms(block.u, block.f, block.stencil, settings.global, block.decomposition.offset);
  const Comparison comparison = verify_block(block, settings);
  Reduction reduction;
  reduction.maxima = {norms.error_max, comparison.max_difference};
  reduction.doubles = {norms.residual_squares, static_cast<double>(comparison.mismatches)};
  reduction.all_reduce(session);
  report.timings = session.slowest_rank(mine);
  if (env.rank() == 0) report.proxy_statistics = session.proxy_statistics();

  report.error = reduction.maxima[0];
  report.residual = std::sqrt(reduction.doubles[0]);
  report.comparison = {reduction.maxima[1], static_cast<long long>(reduction.doubles[1])};
  report.verified = settings.verify && report.comparison.mismatches == 0;
  return report;
}

}  // namespace redblack3d
