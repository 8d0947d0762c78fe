// A whole RedBlack3D run on this rank: decomposition, placement and binding, the chosen mode's iterations,
// the residual and error of the result, the optional bitwise check against the serial solver, and the
// timings of the slowest rank (proxy/harness/timings.hpp). validate() checks the settings against the
// number of ranks before anything runs; the driver (apps/redblack3d) parses the command line into them.
// Thread contract: call on the main thread of every rank with identical settings (it calls MPI
// collectives; in proxy mode the harness starts a ProxyThread and, while that runs, MPI goes through it).
#pragma once

#include <functional>
#include <string>

#include "proxy/environment.hpp"
#include "proxy/harness/session.hpp"
#include "redblack3d/decomposition.hpp"
#include "redblack3d/modes.hpp"
#include "redblack3d/norms.hpp"

namespace redblack3d {

struct RunSettings {
  Extent global{32, 32, 32};
  Extent geometry{1, 1, 1};  // product must equal the number of ranks
  Mode mode = Mode::sync;
  int iterations = 10;
  int threads = 0;  // compute threads per rank in mt/proxy; 0 = one per compute core of the rank's slice
  double omega = 1.0;
  bool verify = false;  // also run the serial solver (whole grid, on every rank) and compare bitwise
  // Proxy mode: each face's ghost exchange leaves as soon as the threads have relaxed that face, instead of
  // after the team's barrier (modes.hpp, docs/api.md "Partitioned readiness"). Ignored in other modes.
  bool early_bird = true;
  // Called on every rank once the placement is known, before the iterations (the session's flags are
  // OR-ed over all ranks, so rank 0 can print one notice for the job).
  std::function<void(const proxy::harness::Session& session)> on_placement;
  // Called with a communication failure (proxy::CommError / TimeoutError) while the proxy thread still
  // runs; the driver prints it and ends the job (proxy::Environment::abort). Default: rethrow.
  std::function<void(const std::exception&)> on_comm_failure;
  bool proxy_timings = false;  // proxy mode: the proxy times its plans' epochs (Config::timings; --verbose)
};

struct RunReport : proxy::harness::SessionFacts {  // threads, placement, progress, ... (Session::facts)
  proxy::harness::Timings timings;  // the slowest rank's (proxy/harness/timings.hpp)
  double residual = 0.0;   // discrete L2 norm of f - A u
  double error = 0.0;      // max |u - u_exact|
  bool verified = false;   // verify was asked and every point matched the serial solver bit for bit
  Comparison comparison;   // max difference over ranks, total mismatching points
  int ranks = 1;
  std::string proxy_statistics;  // rank 0's, proxy mode only
};

// Throws proxy::harness::InvalidSettings (one line naming the option and value) unless the settings can
// run on `ranks` ranks: geometry product, points per rank, an inner region for the overlapping modes,
// omega in (0, 2), threads only for mt/proxy. Reads only the settings and `ranks`: the same on every rank.
void validate(const RunSettings& settings, int ranks);

RunReport run(const proxy::Environment& env, const RunSettings& settings);

}  // namespace redblack3d
