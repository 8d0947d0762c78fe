// cg3d: unpreconditioned conjugate gradients, classic or pipelined, for RedBlack3D's Poisson problem
// (-Laplace(u) = f on the unit cube, 7-point stencil, Dirichlet boundary) in one of the four modes; prints
// the iterations, the residual, the error and the thesis-style timing table; see --help. Every rank parses
// and validates the same command line, so bad input fails identically everywhere: rank 0 prints one line,
// every rank finalises MPI and exits 2. A failed --verify exits 3, a run-time failure 1 (apps/exit_codes.hpp).
#include <cstdio>
#include <iostream>
#include <limits>
#include <string>
#include <vector>

#include "apps/common.hpp"
#include "cg3d/solver.hpp"
#include "proxy/detail/counted.hpp"
#include "proxy/environment.hpp"
#include "proxy/harness/memory.hpp"

namespace {

using proxy::detail::counted;

constexpr const char* kProgram = "cg3d";

apps::Options make_options() {
  apps::Options options(kProgram,
                        "Unpreconditioned conjugate gradients for -Laplace(u) = f on the unit cube (7-point stencil,\n"
                        "Dirichlet boundary, RedBlack3D's right-hand side for u = sin(pi x) sin(pi y) sin(pi z)),\n"
                        "classic or pipelined, in the thesis's modes.");
  options
      .option("mode", "MODE",
              "sync  : one rank per core; halo, then the matrix-vector product; blocking sums\n"
              "async : one rank per core; Isend/Irecv overlap A p on the inner box, Iallreduce\n"
              "        overlaps x += alpha p (pipelined: halo and sum overlap A w); timed waits\n"
              "mt    : one rank per node + OpenMP; master communicates while threads wait\n"
              "proxy : one rank per node + OpenMP; a proxy thread runs each exchange's plan (halo\n"
              "        transfers and a persistent allreduce) while the threads compute",
              "sync")
      .one_of({"sync", "async", "mt", "proxy"})
      .option("variant", "classic|pipelined",
              "classic   : Hestenes-Stiefel, two global sums per iteration (p.Ap, r.r)\n"
              "pipelined : Ghysels & Vanroose 2014, one global sum per iteration (r.r, w.r)\n"
              "            overlapped with the product A w; no residual replacement",
              "classic")
      .one_of({"classic", "pipelined"})
      .option("n", "N|NX,NY,NZ", "global interior grid points (cube, or per dimension; K suffix allowed)", "64")
      .list()
      .suffixes()
      .range(1, 1 << 20)
      .option("geometry", "PXxPYxPZ",
              "ranks along x, y, z; their product must equal the number of ranks\n"
              "(default: split z, then y, keeping the unit-stride x whole)")
      .option("tol", "T", "stop when ||r||_2 / ||b||_2 <= T (T >= 2.2e-16, double precision's epsilon to two\n"
              "digits)", "1e-8")
      .number()
      .option("max-iters", "K", "stop after K iterations at most (1 to 100000000)", "500")
      .range(1, cg3d::kMaxIterations)
      .per_rank()
      .option("threads", "T",
              "compute threads per rank in mt/proxy (0 = one per compute core of the\n"
              "rank's share of the node); sync/async run one thread per rank",
              "0")
      .range(0, 4096)
      .flag("verify",
            "also run the serial CG (whole grid, one thread, same variant) on every rank and\n"
            "compare iterations (+-1), residual history (within 1e-10 of ||r_0||) and solution;\n"
            "exits 3 if not")
      .option("output", "FILE",
              "append one record of this run: FILE.csv (header once, then a row per run) or\n"
              "FILE.json / FILE.jsonl (JSON Lines: one object per line per run)")
      .flag("verbose", "print the effective configuration, every rank's block and placement, the residual\n"
                       "history and the proxy's statistics (also PROXY_VERBOSE=1)");
  options.epilog(
      "No preconditioner: this is plain CG (HPCG's operator is 27-point and preconditioned; ours is not).\n"
      "x0 is pseudo-random (b is an eigenvector of A, so x0 = 0 would converge in one iteration).\n"
      "Examples:\n"
      "  mpiexec -n 2 cg3d --mode sync  --variant classic   --n 64\n"
      "  mpiexec -n 2 cg3d --mode async --variant pipelined --n 64 --geometry 1x1x2\n"
      "  mpiexec -n 1 cg3d --mode proxy --variant pipelined --n 13,14,15 --threads 2 --verify\n"
      "Output: the thesis table (Total, Compute, Comm, Wait, Comm %, per-iteration ms, Ideal proxy for\n"
      "sync/async), then 'converged in K iterations' (or 'not converged after K iterations') with the\n"
      "relative residual ||r_K|| / ||b|| of the recurrences, the true one ||b - A x|| / ||b|| and the max error\n"
      "against the exact solution.\n"
      "Record fields: mode variant n nx ny nz geometry ranks threads_per_rank tol max_iters iterations\n"
      "converged relative_residual true_residual error total_s compute_s comm_s wait_s comm_percent iter_ms\n"
      "ideal_proxy_s node_width verify verified serial_iterations history_difference max_difference\n"
      "proxy_placement progress oversubscribed placement, then the provenance (prov_* columns in CSV, a\n"
      "\"provenance\" object in JSON; fields: docs/provenance.md).");
  return options;
}

// Turns the command line into settings; the library's validate() checks them against the rank count.
cg3d::RunSettings settings_from(const apps::Options& options, int ranks) {
  cg3d::RunSettings settings;
  settings.mode = proxy::harness::parse_mode(options.value("mode"));
  settings.variant = cg3d::parse_variant(options.value("variant"));
  const std::vector<long long> n = options.integers("n");
  if (n.size() != 1 && n.size() != 3) throw apps::UsageError("--n: expected N or NX,NY,NZ, got '" + options.value("n") + "'");
  for (int d = 0; d < 3; ++d) settings.global[d] = static_cast<int>(n.size() == 1 ? n[0] : n[d]);
  settings.tol = options.real("tol");
  if (!(settings.tol > 0.0))  // quote the text as given ("0", "-1"), not its value
    throw apps::UsageError("--tol must be greater than 0, got '" + options.value("tol") + "'");
  if (settings.tol < cg3d::kMinTolerance) throw apps::UsageError(cg3d::tolerance_below_epsilon(options.value("tol")));
  settings.max_iterations = static_cast<int>(options.integer("max-iters"));
  settings.threads = static_cast<int>(options.integer("threads"));
  settings.verify = options.flag_set("verify");
  if (options.has("output")) apps::record_format_for(options.value("output"));
  if (options.has("geometry")) {
    const std::vector<int> g = options.geometry("geometry", 3);
    settings.geometry = {g[0], g[1], g[2]};
  } else {
    settings.geometry = redblack3d::default_geometry(ranks);
  }
  cg3d::validate(settings, ranks);
  return settings;
}

// Per-iteration columns need at least one iteration (a start that already meets --tol has none).
long long per_iteration_count(const cg3d::RunReport& report) { return report.iterations > 0 ? report.iterations : 1; }

// The --output record of a run (a default RunReport gives the columns, to check the file before the run).
apps::RunRecord make_record(const apps::Options& options, const cg3d::RunSettings& settings,
                            const cg3d::RunReport& report, double ideal, int node_width, apps::Provenance provenance) {
  const std::string mode(proxy::harness::to_string(settings.mode));
  const proxy::harness::Timings& t = report.timings;
  const apps::TimingRow row = apps::TimingRow::from(mode, t, per_iteration_count(report), ideal);
  const std::string proxy_placement = !report.proxy_core ? "none" : report.shared_proxy ? "shared" : "dedicated";
  const cg3d::Verification& v = report.verification;
  apps::RunRecord record;
  const auto& g = settings.global;
  record.set("mode", mode)
      .set("variant", std::string(cg3d::to_string(settings.variant)))
      .set("n", g[0] == g[1] && g[1] == g[2] ? std::to_string(g[0]) : options.value("n"))
      .set("nx", g[0]).set("ny", g[1]).set("nz", g[2])
      .set("geometry", redblack3d::to_string(settings.geometry))
      .set("ranks", report.ranks)
      .set("threads_per_rank", report.threads)
      .set("tol", settings.tol)
      .set("max_iters", settings.max_iterations)
      .set("iterations", report.iterations)
      .set("converged", report.converged)
      .set("relative_residual", report.relative_residual())
      .set("true_residual", report.true_residual)
      .set("error", report.error);
  apps::set_timing_columns(record, t);
  record.set("comm_percent", row.comm_percent())
      .set("iter_ms", 1000.0 * t.total_s / static_cast<double>(per_iteration_count(report)))
      .set("ideal_proxy_s", ideal)
      .set("node_width", node_width)
      .set("verify", settings.verify).set("verified", v.passed)
      .set("serial_iterations", v.serial_iterations)
      .set("history_difference", v.history_difference)
      .set("max_difference", v.solution_difference)
      .set("proxy_placement", proxy_placement)
      .set("progress", report.progress)
      .set("oversubscribed", report.oversubscribed)
      .set("placement", report.placement);
  provenance.placement = report.placement;
  record.set_provenance(provenance);
  return record;
}

void print_report(const cg3d::RunSettings& settings, const cg3d::RunReport& report, double ideal, int node_width,
                  bool verbose) {
  const std::string mode(proxy::harness::to_string(settings.mode));
  std::cout << kProgram << ": mode " << mode << ", variant " << cg3d::to_string(settings.variant)
            << " (unpreconditioned), grid " << redblack3d::to_string(settings.global) << ", geometry "
            << redblack3d::to_string(settings.geometry) << ", " << counted(report.ranks, "rank") << " x "
            << counted(report.threads, "thread") << ", tol " << apps::shortest_text(settings.tol) << ", at most "
            << counted(settings.max_iterations, "iteration") << "\n";
  std::cout << "placement (rank 0): " << report.placement << "\n";
  if (settings.mode == cg3d::Mode::proxy) std::cout << "progress: " << report.progress << "\n";
  apps::print_timing_table(std::cout, {apps::TimingRow::from(mode, report.timings, per_iteration_count(report), ideal)});
  char line[256];
  std::snprintf(line, sizeof line,
                "%s %s: relative residual %.6e (true %.6e), error %.6e\n",
                report.converged ? "converged in" : "not converged after",
                counted(report.iterations, "iteration").c_str(),
                report.relative_residual(), report.true_residual, report.error);
  std::cout << line;
  if (!proxy::harness::is_multi_tier(settings.mode))
    std::cout << apps::ideal_proxy_explained(report.timings.total_s, report.timings.comm_s, node_width) << "\n";
  if (verbose) {
    for (std::size_t k = 0; k < report.history.size(); ++k) {
      std::snprintf(line, sizeof line, "  iteration %4zu  ||r|| / ||b|| = %.6e\n", k, report.history[k]);
      std::cout << line;
    }
  }
  if (settings.verify) {
    const cg3d::Verification& v = report.verification;
    std::snprintf(line, sizeof line,
                  "verify: %s the serial CG (%s; history within %.3g of ||r_0||, tolerance %.0e; "
                  "max |x - x_serial| %.3g, bound %.3g)\n",
                  v.passed ? "matches" : "DIFFERS from", counted(v.serial_iterations, "iteration").c_str(),
                  v.history_difference,
                  cg3d::kHistoryTolerance, v.solution_difference, v.solution_bound);
    std::cout << line;
  }
  if (verbose && !report.proxy_statistics.empty()) std::cout << report.proxy_statistics << "\n";
  std::cout << std::flush;
}

int run_driver(proxy::Environment& env, int argc, char** argv) {
  apps::Options options = make_options();
  cg3d::RunSettings settings;
  if (!apps::parse_agreed(MPI_COMM_WORLD, env.rank(), options, argc, argv,
                          [&] { settings = settings_from(options, env.size()); }))
    return apps::kExitSuccess;
  const bool verbose = options.verbose();
  apps::note_omp_threads(kProgram, options, env, settings.mode, settings.threads);
  apps::Provenance provenance = apps::collect_provenance(argc, argv);  // time and load of the start
  const int node_width = env.node().size;

  settings.on_placement = apps::placement_notices(
      kProgram, env.rank(), verbose, redblack3d::decompose(settings.global, settings.geometry, env.rank()).describe());
  settings.on_comm_failure = apps::abort_on_comm_failure(kProgram, env.rank());
  settings.proxy_timings = verbose;

  // Before allocating: this rank's vectors and, with --verify, the serial CG's whole grid.
  proxy::harness::check_memory(env.world(), "--n " + options.value("n"), cg3d::bytes_per_rank(settings), env.node().size);
  if (options.has("output"))  // before any computation: a bad file fails now, on every rank
    apps::check_record_output(env.world(), options.value("output"),
                              make_record(options, settings, cg3d::RunReport{}, 0.0, node_width, provenance));
  // --show-config once every check of a run has passed (the memory and --output too): a bad value ends it as a run.
  if (apps::answer_show_config(options, env.rank())) return apps::kExitSuccess;

  const cg3d::RunReport report = cg3d::run(env, settings);
  const proxy::harness::Timings& t = report.timings;
  const double ideal = proxy::harness::is_multi_tier(settings.mode)
                           ? std::numeric_limits<double>::quiet_NaN()
                           : apps::ideal_proxy_time(t.total_s, t.comm_s, node_width);
  if (env.rank() == 0) {
    print_report(settings, report, ideal, node_width, verbose);
    return apps::finish_run(
        kProgram, options.has("output") ? options.value("output") : std::string(),
        [&] { return make_record(options, settings, report, ideal, node_width, provenance); },
        settings.verify && !report.verification.passed);
  }
  return settings.verify && !report.verification.passed ? apps::kExitVerificationFailed : apps::kExitSuccess;
}

}  // namespace

int main(int argc, char** argv) {
  return apps::driver_main(kProgram, argc, argv, [&](proxy::Environment& env) { return run_driver(env, argc, argv); });
}
