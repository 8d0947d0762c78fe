// A whole CG run on this rank: RedBlack3D's decomposition and halo, the placement and binding of the
// chosen mode (the harness's Session), the variant's phases run once per iteration until ||r|| / ||b||
// <= tol or max_iterations, the true residual and the error of the result, the optional comparison with
// the serial CG, and the timings of the slowest rank. validate() checks the settings against the number
// of ranks before anything runs; the driver (apps/cg3d/cg3d.cpp) parses the command line into them.
// Thread contract: call on the main thread of every rank with identical settings (it calls MPI
// collectives; in proxy mode the harness starts a ProxyThread and, while that runs, MPI goes through it).
#pragma once

#include <exception>
#include <functional>
#include <limits>
#include <string>
#include <vector>

#include "cg3d/problem.hpp"
#include "proxy/environment.hpp"
#include "proxy/harness/session.hpp"
#include "redblack3d/decomposition.hpp"

namespace cg3d {

using proxy::harness::Mode;

struct RunSettings {
  redblack3d::Extent global{64, 64, 64};
  redblack3d::Extent geometry{1, 1, 1};  // product must equal the number of ranks
  Mode mode = Mode::sync;
  Variant variant = Variant::classic;
  double tol = 1e-8;           // stop when ||r|| / ||b|| <= tol
  int max_iterations = 500;
  int threads = 0;             // compute threads per rank in mt/proxy; 0 = one per compute core of the rank's slice
  bool verify = false;         // also run the serial CG (whole grid, on every rank) and compare
  // As redblack3d::RunSettings: called once the placement is known, and with a communication failure.
  std::function<void(const proxy::harness::Session& session)> on_placement;
  std::function<void(const std::exception&)> on_comm_failure;
  bool proxy_timings = false;  // proxy mode: the proxy times its plans' epochs (Config::timings; --verbose)
};

// The most iterations a run may take (their steps must fit one harness run).
inline constexpr int kMaxIterations = 100'000'000;
// The smallest --tol: double precision's epsilon (2.220446e-16) to the two digits the help states, so that the
// bound a user reads is the bound checked (2.2e-16 is accepted, the next double below it refused). Below it the
// recurrences' residual can still reach the tolerance (it underflowed to 0 at 8^3 with --tol 1e-300) while the
// true one cannot (6e-15 there): the run said "converged" to a tolerance no computed residual means.
inline constexpr double kMinTolerance = 2.2e-16;
static_assert(kMinTolerance <= std::numeric_limits<double>::epsilon() &&
              kMinTolerance > 0.99 * std::numeric_limits<double>::epsilon());

// --verify's tolerances (solver.cpp says why).
inline constexpr double kHistoryTolerance = 1e-10;  // max_k |h_k - h_serial_k| / h_serial_0, h_k = ||r_k|| / ||b||
inline constexpr int kIterationSlack = 1;          // |iterations - serial iterations|

struct Verification {
  int serial_iterations = 0;
  double history_difference = 0.0;   // max over common k of |h_k - serial h_k| / serial h_0
  double solution_difference = 0.0;  // max |x - x_serial| over all ranks
  double solution_bound = 0.0;       // (||b - A x|| + ||b - A x_serial||) / lambda_min(A)
  bool passed = false;
};

struct RunReport : proxy::harness::SessionFacts {  // threads, placement, progress, ... (Session::facts)
  proxy::harness::Timings timings;  // the slowest rank's, start-up and iterations (not the final checks)
  int iterations = 0;               // updates of x
  bool converged = false;
  std::vector<double> history;      // ||r_k|| / ||b||, k = 0 .. iterations (the recurrences' r)
  double true_residual = 0.0;       // ||b - A x|| / ||b||, recomputed from x
  double error = 0.0;               // max |x - u_exact|
  Verification verification;        // when settings.verify
  int ranks = 1;
  std::string proxy_statistics;     // rank 0's, proxy mode only

  double relative_residual() const noexcept { return history.empty() ? 0.0 : history.back(); }
};

// Throws proxy::harness::InvalidSettings (one line naming the option and value) unless the settings can
// run on `ranks` ranks: tol >= kMinTolerance, max_iterations >= 1, and RedBlack3D's checks of the grid, geometry and
// threads (redblack3d::validate). Reads only the settings and `ranks`: the same on every rank.
void validate(const RunSettings& settings, int ranks);
// The refusal of a --tol below kMinTolerance, `given` as the user wrote it.
std::string tolerance_below_epsilon(const std::string& given);

// Bytes one rank allocates for these settings (its vectors, and the serial CG's with verify), for
// proxy::harness::check_memory before the run.
double bytes_per_rank(const RunSettings& settings);

RunReport run(const proxy::Environment& env, const RunSettings& settings);

}  // namespace cg3d
