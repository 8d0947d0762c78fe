// redblack3d: the thesis's RedBlack3D (ch. IV.C) from the command line. Solves -Laplace(u) = f on the unit
// cube by red-black Gauss-Seidel in one of four modes and prints the thesis-style timing table; see
// --help. Every rank parses and validates the same command line, so bad input fails identically everywhere:
// rank 0 prints one line, every rank finalises MPI and exits 2. A failed --verify exits 3, a run-time
// failure 1 (apps/exit_codes.hpp).
#include <cstdio>
#include <limits>
#include <memory>
#include <iostream>
#include <string>
#include <vector>

#include "apps/common.hpp"
#include "proxy/detail/counted.hpp"
#include "proxy/environment.hpp"
#include "proxy/error.hpp"
#include "proxy/harness/memory.hpp"
#include "redblack3d/solver.hpp"

namespace {

using proxy::detail::counted;

constexpr const char* kProgram = "redblack3d";

apps::Options make_options() {
  apps::Options options(kProgram,
                        "Red-black Gauss-Seidel for -Laplace(u) = f on the unit cube (7-point stencil, Dirichlet\n"
                        "boundary, manufactured solution u = sin(pi x) sin(pi y) sin(pi z)), in the thesis's modes.");
  options
      .option("mode", "MODE",
              "sync  : one rank per core, blocking ghost exchange, then relax\n"
              "async : one rank per core, Isend/Irecv, relax inner, wait, relax annulus\n"
              "mt    : one rank per node + OpenMP; master exchanges while threads wait\n"
              "proxy : one rank per node + OpenMP; a proxy thread runs the exchange plan\n"
              "        while the threads relax the inner region",
              "sync")
      .one_of({"sync", "async", "mt", "proxy"})
      .option("n", "N|NX,NY,NZ", "global interior grid points (cube, or per dimension; K suffix allowed)", "64")
      .list()
      .suffixes()
      .range(1, 1 << 20)
      .option("iters", "K", "iterations (one red and one black half-sweep each)", "10")
      .range(1, (1 << 30) - 1)  // 2 x iters half-sweeps fit in int
      .per_rank()
      .option("geometry", "PXxPYxPZ",
              "ranks along x, y, z; their product must equal the number of ranks\n"
              "(default: split z, then y, keeping the unit-stride x whole)")
      .option("threads", "T",
              "compute threads per rank in mt/proxy (0 = one per compute core of the\n"
              "rank's share of the node); sync/async run one thread per rank",
              "0")
      .range(0, 4096)
      .option("omega", "W", "over-relaxation factor, 0 < W < 2", "1")
      .number()  // one refusal for every value outside (0, 2), below
      .option("early-bird", "on|off",
              "proxy mode: each face's ghosts leave as soon as the threads have relaxed that face\n"
              "(on, the default) or after the team's barrier (off)")
      .one_of({"on", "off"})
      .option("node-width", "P",
              "cores per node p in the ideal-proxy model T_p = max((T_s - C_t) p/(p - s), C_t)\n"
              "(default: the ranks on this node, i.e. one rank per core in sync/async)")
      .range(1, 1 << 20)
      .option("proxy-cores", "S",
              "cores per node given to the proxy, s in the ideal-proxy model: 1 for a dedicated (or\n"
              "polling) proxy core, the thesis's; 0 for cooperative progress, which keeps every core\n"
              "for compute (apps/redblack3d/compare passes the s of the strategy its proxy run used)",
              "1")
      .range(0, 1 << 20)
      .flag("verify",
            "also run the serial solver (whole grid, on every rank) and compare bit for bit;\n"
            "prints the max difference and exits 3 unless identical")
      .option("output", "FILE",
              "append one record of this run: FILE.csv (header once, then a row per run) or\n"
              "FILE.json / FILE.jsonl (JSON Lines: one object per line per run)")
      .flag("verbose", "print the effective configuration, every rank's block and placement, and the proxy's\n"
                       "statistics (also PROXY_VERBOSE=1)");
  options.alias("iterations", "iters");
  options.epilog(
      "Examples:\n"
      "  mpiexec -n 2 redblack3d --mode sync  --n 128 --iters 20 --geometry 1x1x2\n"
      "  mpiexec -n 1 redblack3d --mode proxy --n 128 --iters 20          # proxy + 1 compute thread\n"
      "  mpiexec -n 4 redblack3d --mode async --n 30 --geometry 1x2x2 --verify --output runs.csv\n"
      "Output: the thesis table (Total, Compute, Comm, Wait, Comm %, per-iteration ms, Ideal proxy for\n"
      "sync/async), the residual norm ||f - A u||_2 and the max error against the exact solution.\n"
      "Record fields: mode n nx ny nz geometry ranks threads_per_rank iters omega total_s compute_s\n"
      "comm_s wait_s comm_percent iter_ms ideal_proxy_s node_width proxy_cores residual error verify verified\n"
      "max_difference proxy_placement progress oversubscribed placement, then the provenance (prov_* columns in\n"
      "CSV, a \"provenance\" object in JSON; fields: docs/provenance.md).");
  return options;
}

// Turns the command line into settings; the library's validate() checks them against the rank count
// (identical on every rank), so bad input fails the same way everywhere.
redblack3d::RunSettings settings_from(const apps::Options& options, int ranks, int& node_width, int& proxy_cores) {
  redblack3d::RunSettings settings;
  settings.mode = proxy::harness::parse_mode(options.value("mode"));
  const std::vector<long long> n = options.integers("n");
  if (n.size() != 1 && n.size() != 3) {
    throw apps::UsageError("--n: expected N or NX,NY,NZ, got '" + options.value("n") + "'");
  }
  for (int d = 0; d < 3; ++d) settings.global[d] = static_cast<int>(n.size() == 1 ? n[0] : n[d]);
  settings.iterations = static_cast<int>(options.integer("iters"));
  settings.omega = options.real("omega");
  if (!(settings.omega > 0.0 && settings.omega < 2.0))  // quote the text as given ("1e-400" reads as 0)
    throw apps::UsageError("--omega must be strictly between 0 and 2, got '" + options.value("omega") + "'");
  settings.threads = static_cast<int>(options.integer("threads"));
  settings.verify = options.flag_set("verify");
  if (options.has("early-bird")) {
    settings.early_bird = options.value("early-bird") == "on";
    if (settings.mode != redblack3d::Mode::proxy)
      throw apps::UsageError("--early-bird needs --mode proxy (" + options.value("mode") + " has no proxy thread)");
  }
  if (options.has("output")) apps::record_format_for(options.value("output"));
  node_width = options.has("node-width") ? static_cast<int>(options.integer("node-width")) : 0;
  proxy_cores = static_cast<int>(options.integer("proxy-cores"));
  if (options.has("geometry")) {
    const std::vector<int> g = options.geometry("geometry", 3);
    settings.geometry = {g[0], g[1], g[2]};
  } else {
    settings.geometry = redblack3d::default_geometry(ranks);
  }
  redblack3d::validate(settings, ranks);
  return settings;
}

// The --output record of a run (a default RunReport gives the columns, to check the file before the run).
apps::RunRecord make_record(const apps::Options& options, const redblack3d::RunSettings& settings,
                            const redblack3d::RunReport& report, double ideal, int node_width, int proxy_cores,
                            apps::Provenance provenance) {
  const std::string mode(proxy::harness::to_string(settings.mode));
  const proxy::harness::Timings& t = report.timings;
  const apps::TimingRow row = apps::TimingRow::from(mode, t, settings.iterations, ideal);
  const std::string proxy_placement = !report.proxy_core ? "none" : report.shared_proxy ? "shared" : "dedicated";
  apps::RunRecord record;
  const auto& g = settings.global;
  record.set("mode", mode)
      .set("n", g[0] == g[1] && g[1] == g[2] ? std::to_string(g[0]) : options.value("n"))
      .set("nx", g[0]).set("ny", g[1]).set("nz", g[2])
      .set("geometry", redblack3d::to_string(settings.geometry))
      .set("ranks", report.ranks)
      .set("threads_per_rank", report.threads)
      .set("iters", settings.iterations)
      .set("omega", settings.omega);
  apps::set_timing_columns(record, t);
  record.set("comm_percent", row.comm_percent())
      .set("iter_ms", 1000.0 * t.total_s / settings.iterations)
      .set("ideal_proxy_s", ideal)
      .set("node_width", node_width)
      .set("proxy_cores", proxy_cores)
      .set("residual", report.residual).set("error", report.error)
      .set("verify", settings.verify).set("verified", report.verified)
      .set("max_difference", report.comparison.max_difference)
      .set("proxy_placement", proxy_placement)
      .set("progress", report.progress)
      .set("oversubscribed", report.oversubscribed)
      .set("placement", report.placement);
  provenance.placement = report.placement;
  record.set_provenance(provenance);
  return record;
}

int run_driver(proxy::Environment& env, int argc, char** argv) {
  apps::Options options = make_options();
  int node_width = 0;
  int proxy_cores = 1;
  redblack3d::RunSettings settings;
  if (!apps::parse_agreed(MPI_COMM_WORLD, env.rank(), options, argc, argv,
                          [&] { settings = settings_from(options, env.size(), node_width, proxy_cores); }))
    return apps::kExitSuccess;
  const std::string mode = std::string(proxy::harness::to_string(settings.mode));
  const bool verbose = options.verbose();
  apps::note_omp_threads(kProgram, options, env, settings.mode, settings.threads);
  apps::Provenance provenance = apps::collect_provenance(argc, argv);  // time and load of the start
  if (node_width == 0) node_width = env.node().size;

  settings.on_placement = apps::placement_notices(
      kProgram, env.rank(), verbose, redblack3d::decompose(settings.global, settings.geometry, env.rank()).describe());
  settings.on_comm_failure = apps::abort_on_comm_failure(kProgram, env.rank());
  settings.proxy_timings = verbose;

  // Before allocating: the block (u and f with their ghost layer) and, with --verify, the serial solver's
  // whole grid, against this rank's share of the node's memory.
  double points = 1.0, whole = 1.0;
  for (int d = 0; d < 3; ++d) {
    points *= (settings.global[d] + settings.geometry[d] - 1) / settings.geometry[d] + 2.0;
    whole *= settings.global[d] + 2.0;
  }
  const double bytes = sizeof(double) * (2.0 * points + (settings.verify ? 2.0 * whole : 0.0));
  proxy::harness::check_memory(env.world(), "--n " + options.value("n"), bytes, env.node().size);
  if (options.has("output"))  // before any computation: a bad file fails now, on every rank
    apps::check_record_output(env.world(), options.value("output"),
                              make_record(options, settings, redblack3d::RunReport{}, 0.0, node_width, proxy_cores, provenance));
  // --show-config once every check of a run has passed (the memory and --output too): a bad value ends it as a run.
  if (apps::answer_show_config(options, env.rank())) return apps::kExitSuccess;

  const redblack3d::RunReport report = redblack3d::run(env, settings);
  const proxy::harness::Timings& t = report.timings;
  const bool single_tier = !proxy::harness::is_multi_tier(settings.mode);
  const double ideal = single_tier ? apps::ideal_proxy_time(t.total_s, t.comm_s, node_width, proxy_cores)
                                   : std::numeric_limits<double>::quiet_NaN();
  if (env.rank() == 0) {
    std::cout << kProgram << ": mode " << mode << ", grid " << redblack3d::to_string(settings.global) << ", geometry "
              << redblack3d::to_string(settings.geometry) << ", " << counted(report.ranks, "rank") << " x "
              << counted(report.threads, "thread") << ", " << counted(settings.iterations, "iteration") << ", omega "
              << apps::shortest_text(settings.omega)
              << (settings.mode == redblack3d::Mode::proxy ? settings.early_bird ? ", early-bird on" : ", early-bird off" : "")
              << "\n";
    std::cout << "placement (rank 0): " << report.placement << "\n";
    if (settings.mode == redblack3d::Mode::proxy) std::cout << "progress: " << report.progress << "\n";
    const apps::TimingRow row = apps::TimingRow::from(mode, t, settings.iterations, ideal);
    apps::print_timing_table(std::cout, {row});
    char line[160];
    std::snprintf(line, sizeof line, "residual %.6e  error %.6e\n", report.residual, report.error);
    std::cout << line;
    if (single_tier) std::cout << apps::ideal_proxy_explained(t.total_s, t.comm_s, node_width, proxy_cores) << "\n";
    if (settings.verify) {
      std::snprintf(line, sizeof line, "verify: %s the serial solver (max difference %.3g, %s differ%s)\n",
                    report.verified ? "bitwise identical to" : "DIFFERS from", report.comparison.max_difference,
                    counted(report.comparison.mismatches, "point").c_str(),
                    report.comparison.mismatches == 1 ? "s" : "");
      std::cout << line;
    }
    if (verbose && !report.proxy_statistics.empty()) std::cout << report.proxy_statistics << "\n";
    std::cout << std::flush;
    return apps::finish_run(
        kProgram, options.has("output") ? options.value("output") : std::string(),
        [&] { return make_record(options, settings, report, ideal, node_width, proxy_cores, provenance); },
        settings.verify && !report.verified);
  }
  return settings.verify && !report.verified ? apps::kExitVerificationFailed : apps::kExitSuccess;
}

}  // namespace

int main(int argc, char** argv) {
  return apps::driver_main(kProgram, argc, argv, [&](proxy::Environment& env) { return run_driver(env, argc, argv); });
}
