#include "cg3d/solver.hpp"

#include <algorithm>
#include <array>
#include <charconv>
#include <cmath>
#include <numbers>
#include <string>

#include "cg3d/kernels.hpp"
#include "cg3d/phases.hpp"
#include "cg3d/serial.hpp"
#include "proxy/proxy_thread.hpp"
#include "redblack3d/halo.hpp"
#include "redblack3d/norms.hpp"
#include "redblack3d/solver.hpp"

namespace cg3d {
namespace {

using proxy::harness::InvalidSettings;
using proxy::harness::StepThread;
using proxy::harness::Timings;
using redblack3d::OverlapSplit;

// This rank's vectors (each with a ghost layer; only x, r, p and w ever have their ghosts exchanged).
// The pipelined variant's w, s and z stay empty in a classic run.
struct Block {
  Block(const RunSettings& settings, int rank)
      : decomposition(redblack3d::decompose(settings.global, settings.geometry, rank)),
        stencil(redblack3d::make_stencil(settings.global, 1.0)),
        b(redblack3d::make_rhs(settings.global, decomposition.offset, decomposition.local)),
        x(initial_guess(settings.global, decomposition.offset, decomposition.local)),
        r(decomposition.local),
        p(decomposition.local),
        q(decomposition.local),
        partials(decomposition.local) {
    if (settings.variant == Variant::pipelined) w = s = z = Grid(decomposition.local);
  }
  redblack3d::Decomposition decomposition;
  Stencil stencil;
  Grid b, x, r, p, q;
  Grid w, s, z;
  PartialSums partials;  // the partials of the dot products that the next exchange sums over the ranks
};

// What the main thread sets between iterations and the team reads during one.
struct Scalars {
  double rr = 0.0;              // classic: r.r before this iteration's update
  int iteration = 0;            // pipelined: i, the updates done so far
  double previous_gamma = 0.0;  // pipelined: gamma_{i-1}, alpha_{i-1}
  double previous_alpha = 0.0;
};

// The stopping test, the same on every rank and thread (it reads only reduced values): NaN stops too.
bool stop_after(double relative_residual, int updates, const RunSettings& settings) noexcept {
  return !(relative_residual > settings.tol) || updates >= settings.max_iterations;
}

// The overlapping modes split a block into the inner box (needs no ghost) and the annulus; the others
// compute the whole interior as "inner" (as RedBlack3D does).
OverlapSplit split_for(const redblack3d::Decomposition& d, Mode mode) {
  if (!proxy::harness::overlaps(mode)) return OverlapSplit{redblack3d::interior_box(d.local), {}};
  std::array<bool, 6> has_neighbour{};
  for (int face = 0; face < 6; ++face) has_neighbour[face] = d.neighbour[face] >= 0;
  return redblack3d::split_inner_annulus(d.local, has_neighbour);
}

std::function<void()> progress_of(StepThread team) {
  return [team] { team.progress_point(); };
}

void add(Timings& sum, const Timings& t) noexcept {
  sum.total_s += t.total_s;
  sum.compute_s += t.compute_s;
  sum.comm_s += t.comm_s;
  sum.wait_s += t.wait_s;
}

// Everything a variant's phases refer to; lives until the report is done.
struct Solve {
  proxy::harness::Session& session;
  Block& block;
  const OverlapSplit split;
  const RunSettings& settings;
  double norm_b = 0.0;
  Scalars state;

  // r = b - A x (x's ghosts exchanged): the start of both variants.
  Phase start_residual(Exchange& x_halo) {
    return {&x_halo,
            [this](StepThread team) {
              residual(block.b, block.x, block.r, block.stencil, split.inner, progress_of(team));
            },
            [this](StepThread) {
              for (const Box& box : split.annulus) residual(block.b, block.x, block.r, block.stencil, box);
            }};
  }
};

// Classic CG (Hestenes-Stiefel), three phases per iteration:
//   1. halo of p;  q = A p (inner box while the ghosts travel, then the annulus); partials of p.q
//   2. sum of p.q; alpha = r.r / p.q; r -= alpha q; partials of r.r
//   3. sum of r.r; x += alpha p overlaps the sum; then beta = r.r(new) / r.r, p = r + beta p
// Start: halo of x; r = b - A x; p = r; partials of r.r, then the sum of r.r.
Timings solve_classic(Solve& solve, Exchange& x_halo, Exchange& p_halo, Exchange& pq_sum, Exchange& rr_sum,
                      RunReport& report, proxy::harness::Steps& start_out, MPI_Comm world) {
  Block& block = solve.block;
  const OverlapSplit& split = solve.split;
  Scalars& state = solve.state;
  Phase start = solve.start_residual(x_halo);
  start.boundary = [&block, &split](StepThread) {
    for (const Box& box : split.annulus) residual(block.b, block.x, block.r, block.stencil, box);
#pragma omp barrier
    start_direction(block.r, block.p, block.partials);
  };
  start_out = make_steps({start, Phase{&rr_sum, {}, {}}}, world);
  // alpha from the same reduced values on every thread and rank: the same bits in phases 2 and 3.
  const auto alpha = [&state, &pq_sum] { return state.rr / pq_sum.sums()[0]; };
  proxy::harness::Steps iteration = make_steps(
      {Phase{&p_halo,
             [&block, &split](StepThread team) {
               apply(block.p, block.q, block.stencil, split.inner, progress_of(team));
             },
             [&block, &split](StepThread) {
               for (const Box& box : split.annulus) apply(block.p, block.q, block.stencil, box);
#pragma omp barrier
               dot(block.p, block.q, block.partials);
             }},
       Phase{&pq_sum, {}, [&block, alpha](StepThread) { update_residual(block.r, block.q, alpha(), block.partials); }},
       // The inner x update and the boundary p update touch the same rows: both are static `omp for`s over
       // the same parts of rows in one parallel region, so each part goes to the same thread (OpenMP 5.2, 11.5.3)
       // and the thread reads p for x before it overwrites p; no barrier needed.
       Phase{&rr_sum, [&block, alpha](StepThread) { update_solution(block.x, block.p, alpha()); },
             [&block, &state, &rr_sum](StepThread) {
               update_direction(block.p, block.r, rr_sum.sums()[0] / state.rr);
             }}},
      world, solve.settings.max_iterations);
  // After each iteration, on the master: the new r.r, and whether to stop.
  iteration.done_after = [&](int) {
    state.rr = rr_sum.sums()[0];
    ++report.iterations;
    report.history.push_back(std::sqrt(state.rr) / solve.norm_b);
    return stop_after(report.history.back(), report.iterations, solve.settings);
  };

  Timings mine = solve.session.run(start_out, "the start, ");
  state.rr = rr_sum.sums()[0];
  report.history.push_back(std::sqrt(state.rr) / solve.norm_b);
  if (!stop_after(report.history.back(), report.iterations, solve.settings)) add(mine, solve.session.run(iteration));
  return mine;
}

// Pipelined CG (Ghysels & Vanroose 2014, Alg. 4 without preconditioner), one phase per iteration i:
//   halo of w and sum of (gamma, delta) = (r.r, w.r) in one exchange; q = A w on the inner box overlaps
//   both; then the annulus, and (unless gamma says stop) every recurrence and the partials of the next r.r,
//   w.r in one pass. The run that finds gamma small enough only reduces: x is then x_i, as in classic.
// Start: halo of x; r = b - A x; halo of r; w = A r; partials of r.r and w.r.
Timings solve_pipelined(Solve& solve, Exchange& x_halo, Exchange& r_halo, Exchange& w_exchange, RunReport& report,
                        proxy::harness::Steps& start_out, MPI_Comm world) {
  Block& block = solve.block;
  const OverlapSplit& split = solve.split;
  Scalars& state = solve.state;
  const RunSettings& settings = solve.settings;
  const double norm_b = solve.norm_b;
  start_out = make_steps(
      {solve.start_residual(x_halo),
       Phase{&r_halo,
             [&block, &split](StepThread team) {
               apply(block.r, block.w, block.stencil, split.inner, progress_of(team));
             },
             [&block, &split](StepThread) {
               for (const Box& box : split.annulus) apply(block.r, block.w, block.stencil, box);
#pragma omp barrier
               dot(block.r, block.r, block.partials, &block.w, &block.r);
             }}},
      world);
  // Unit i reduces (gamma, delta) of iteration i; the unit that finds gamma small enough only reduces, so
  // max_iterations updates take max_iterations + 1 units.
  proxy::harness::Steps iteration = make_steps(
      {Phase{&w_exchange,
             [&block, &split](StepThread team) {
               apply(block.w, block.q, block.stencil, split.inner, progress_of(team));
             },
             [&, norm_b](StepThread) {
               const auto [gamma, delta] = w_exchange.sums();
               if (stop_after(std::sqrt(gamma) / norm_b, state.iteration, settings)) return;  // every thread alike
               for (const Box& box : split.annulus) apply(block.w, block.q, block.stencil, box);
#pragma omp barrier
               const StepLengths step =
                   pipelined_step(state.iteration, gamma, delta, state.previous_gamma, state.previous_alpha);
               pipelined_update({block.x, block.r, block.w, block.p, block.s, block.z, block.q}, step.alpha,
                                step.beta, block.partials);
             }}},
      world, settings.max_iterations + 1);
  // After unit i, on the master: the history, whether to stop, and the scalars iteration i + 1 needs.
  iteration.done_after = [&](int i) {
    const auto [gamma, delta] = w_exchange.sums();
    report.history.push_back(std::sqrt(gamma) / norm_b);
    if (stop_after(report.history.back(), i, settings)) {
      report.iterations = i;
      return true;
    }
    const StepLengths step = pipelined_step(i, gamma, delta, state.previous_gamma, state.previous_alpha);
    state.previous_gamma = gamma;
    state.previous_alpha = step.alpha;
    state.iteration = i + 1;
    return false;
  };

  Timings mine = solve.session.run(start_out, "the start, ");
  state.iteration = 0;
  add(mine, solve.session.run(iteration));
  return mine;
}

// The smallest eigenvalue of the 7-point -Laplace: sum over d of 4 / h_d^2 sin^2(pi h_d / 2).
double smallest_eigenvalue(const Extent& global) {
  double lambda = 0.0;
  for (const int n : global) {
    const double h = 1.0 / (n + 1);
    const double sine = std::sin(std::numbers::pi * h / 2.0);
    lambda += 4.0 / (h * h) * sine * sine;
  }
  return lambda;
}

double max_difference(const Grid& x, const Grid& serial, const Extent& offset) {
  const Extent& n = x.interior();
  double difference = 0.0;
  for (int k = 1; k <= n[2]; ++k)
    for (int j = 1; j <= n[1]; ++j)
      for (int i = 1; i <= n[0]; ++i) {
        const double d = std::abs(x.at(i, j, k) - serial.at(offset[0] + i, offset[1] + j, offset[2] + k));
        difference = std::isnan(d) ? d : std::max(difference, d);
      }
  return difference;
}

// Residual histories, compared normwise: max_k |h_k - h_serial_k| / h_serial_0, in units of the initial
// residual. The runs differ only in the order in which dot products are summed (rows, parts of rows, then ranks,
// versus one sweep of the whole grid), about 1e-16 relative per sum. Those rounding errors are committed
// at the scale of the first residuals and do not shrink with r: pipelined CG's recurrences carry them
// (its residual gap, Ghysels & Vanroose 2014, sec. 4), so near convergence the per-iteration relative
// difference reaches 1e-6 at 13x14x15 and 1.6e-5 at 64^3, while the normwise one stays at 3e-15 to
// 2e-14 for both variants on 1-3 ranks (classic: per iteration 1e-13 or better). kHistoryTolerance =
// 1e-10 leaves four orders of magnitude for larger grids; a wrong halo, split or recurrence changes the
// first iterations at the percent level of h_0.
double history_difference(const std::vector<double>& mine, const std::vector<double>& serial) {
  double difference = 0.0;
  const std::size_t common = std::min(mine.size(), serial.size());
  for (std::size_t k = 0; k < common; ++k) {
    const double d = std::abs(mine[k] - serial[k]) / serial[0];
    difference = std::isnan(d) ? d : std::max(difference, d);
  }
  return difference;
}

// The shortest text that reads back as `value` ("1e-08", "2.1999999999999998e-16"): a value just below a bound
// must not print as the bound.
std::string number_text(double value) {
  std::array<char, 32> text{};
  const auto end = std::to_chars(text.data(), text.data() + text.size(), value).ptr;
  return std::string(text.data(), end);
}

}  // namespace

std::string tolerance_below_epsilon(const std::string& given) {
  return "--tol " + given + " is below 2.2e-16 (double precision's epsilon to two digits): no computed residual " +
         "means it";
}

void validate(const RunSettings& s, int ranks) {
  if (!(s.tol > 0.0)) throw InvalidSettings("--tol must be greater than 0, got '" + number_text(s.tol) + "'");
  if (s.tol < kMinTolerance) throw InvalidSettings(tolerance_below_epsilon(number_text(s.tol)));
  if (s.max_iterations < 1)
    throw InvalidSettings("--max-iters must be at least 1, got '" + std::to_string(s.max_iterations) + "'");
  if (s.max_iterations > kMaxIterations)
    throw InvalidSettings("--max-iters must be at most " + std::to_string(kMaxIterations) + ", got '" +
                          std::to_string(s.max_iterations) + "'");
  // The grid, geometry and threads are RedBlack3D's: its checks and messages.
  redblack3d::RunSettings grid;
  grid.global = s.global;
  grid.geometry = s.geometry;
  grid.mode = s.mode;
  grid.threads = s.threads;
  redblack3d::validate(grid, ranks);
}

double bytes_per_rank(const RunSettings& settings) {
  double block = 1.0, whole = 1.0;
  for (int d = 0; d < 3; ++d) {
    block *= (settings.global[d] + settings.geometry[d] - 1) / settings.geometry[d] + 2.0;
    whole *= settings.global[d] + 2.0;
  }
  const double vectors = settings.variant == Variant::classic ? 5.0 : 8.0;  // b x r p q (+ w s z)
  // The serial CG: the same vectors on the whole grid and one temporary residual.
  return sizeof(double) * (vectors * block + (settings.verify ? (vectors + 1.0) * whole : 0.0));
}

RunReport run(const proxy::Environment& env, const RunSettings& settings) {
  validate(settings, env.size());
  RunReport report;
  report.ranks = env.size();
  const MPI_Comm world = env.world();
  Block block(settings, env.rank());
  // MPI set-up before the session's proxy starts: the halo's datatypes fit every vector (same extents).
  const redblack3d::Halo halo(block.decomposition, block.x);
  const redblack3d::Decomposition& d = block.decomposition;
  // Declared before the session: their plans are released only after the proxy thread stopped.
  Exchange x_halo("cg3d halo of x", d, halo, &block.x, 0, nullptr);
  Exchange p_halo("cg3d halo of p", d, halo, &block.p, 0, nullptr);
  Exchange pq_sum("cg3d sum of p.q", d, halo, nullptr, 1, &block.partials);
  Exchange rr_sum("cg3d sum of r.r", d, halo, nullptr, 1, &block.partials);
  Exchange r_halo("cg3d halo of r", d, halo, &block.r, 0, nullptr);
  Exchange w_exchange("cg3d halo of w, sum of r.r and w.r", d, halo, &block.w, 2, &block.partials);
  const std::vector<Exchange*> exchanges = settings.variant == Variant::classic
                                               ? std::vector<Exchange*>{&x_halo, &p_halo, &pq_sum, &rr_sum}
                                               : std::vector<Exchange*>{&x_halo, &r_halo, &w_exchange};
  dot(block.b, block.b, block.partials);  // this rank's partials of b.b, one thread
  std::array<double, 1> bb{block.partials.total()[0]};

  proxy::Config proxy_defaults;
  proxy_defaults.timings = settings.proxy_timings;
  proxy::harness::Session session(env, settings.mode, settings.threads, proxy_defaults);
  static_cast<proxy::harness::SessionFacts&>(report) = session.facts();
  if (settings.on_placement) settings.on_placement(session);
  if (settings.on_comm_failure) session.on_comm_failure(settings.on_comm_failure);
  if (proxy::ProxyThread* proxy = session.proxy())
    for (Exchange* exchange : exchanges) exchange->commit(*proxy);
  session.collective("the norm of b", [&bb](MPI_Comm comm, MPI_Request& request) {
    MPI_Iallreduce(MPI_IN_PLACE, bb.data(), 1, MPI_DOUBLE, MPI_SUM, comm, &request);
  });

  Solve solve{session, block, split_for(block.decomposition, settings.mode), settings, std::sqrt(bb[0]), {}};
  proxy::harness::Steps start;  // its exchange 0 is the halo of x
  const Timings mine = settings.variant == Variant::classic
                           ? solve_classic(solve, x_halo, p_halo, pq_sum, rr_sum, report, start, world)
                           : solve_pipelined(solve, x_halo, r_halo, w_exchange, report, start, world);
  report.converged = report.relative_residual() <= settings.tol;

  // The result, checked from x itself: fresh ghosts, then RedBlack3D's residual and error.
  session.exchange_once(start, 0, "the halo of x after the iterations");
  const redblack3d::LocalNorms norms =
      redblack3d::local_norms(block.x, block.b, block.stencil, settings.global, block.decomposition.offset);
  std::array<double, 2> maxima{norms.error_max, 0.0};  // error, max |x - x_serial|
  std::array<double, 1> squares{norms.residual_squares};
  SerialResult serial;
  if (settings.verify) {
    serial = solve_serial(settings.global, settings.variant, settings.tol, settings.max_iterations);
    maxima[1] = max_difference(block.x, serial.x, block.decomposition.offset);
  }
  session.collective("the final reduction", [&maxima](MPI_Comm comm, MPI_Request& request) {
    MPI_Iallreduce(MPI_IN_PLACE, maxima.data(), 2, MPI_DOUBLE, MPI_MAX, comm, &request);
  });
  session.collective("the final reduction", [&squares](MPI_Comm comm, MPI_Request& request) {
    MPI_Iallreduce(MPI_IN_PLACE, squares.data(), 1, MPI_DOUBLE, MPI_SUM, comm, &request);
  });
  report.timings = session.slowest_rank(mine);
  if (env.rank() == 0) report.proxy_statistics = session.proxy_statistics();

  report.error = maxima[0];
  // local_norms weighs each square by the cell volume; ||b|| did not.
  report.true_residual = std::sqrt(squares[0] / block.stencil.cell_volume) / solve.norm_b;
  if (settings.verify) {
    Verification& v = report.verification;
    v.serial_iterations = serial.iterations;
    v.history_difference = history_difference(report.history, serial.history);
    v.solution_difference = maxima[1];
    // Both x solve A x = b up to their residuals: ||x - x_serial|| <= ||A^-1|| (||r|| + ||r_serial||).
    v.solution_bound = (report.true_residual + serial.true_residual) * solve.norm_b / smallest_eigenvalue(settings.global);
    v.passed = std::abs(report.iterations - serial.iterations) <= kIterationSlack &&
               v.history_difference <= kHistoryTolerance && v.solution_difference <= v.solution_bound;
  }
  return report;
}

}  // namespace cg3d
