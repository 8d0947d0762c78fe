// summa: C = A * B on a process grid with SUMMA in sync, async, mt or proxy mode (thesis II.B, IV.D).
// Every rank parses and validates the same command line; rank 0 prints the thesis-style table and writes
// the --output record. Exit status (apps/exit_codes.hpp): 0, 2 for bad input (every rank), 3 when --verify
// finds a wrong C, 1 for a run-time failure.
#include <cmath>
#include <cstdio>
#include <iostream>
#include <limits>
#include <optional>
#include <string>
#include <vector>


#include <apps/common.hpp>
#include <proxy/detail/counted.hpp>
#include <proxy/environment.hpp>
#include <proxy/error.hpp>
#include <proxy/harness/memory.hpp>
#include <summa/run.hpp>

namespace {

using proxy::detail::counted;

constexpr const char* kProgram = "summa";

// Each dimension is an int in the BLAS and MPI calls (summa::validate refuses more for API callers too).
constexpr long long kMaxDimension = std::numeric_limits<int>::max();

apps::Options declare_options() {
  apps::Options options(kProgram, "Distributed dgemm C = A*B (A m x k, B k x n) with SUMMA, in one of four modes.");
  options
      .option("size", "N", "square problem: m = n = k = N, at most 2^31-1 (K, M, G suffixes allowed, e.g. 2K)",
              "1024")
      .suffixes()
      .range(1, kMaxDimension)
      .option("m", "M", "rows of A and C (overrides --size)")
      .suffixes()
      .range(1, kMaxDimension)
      .option("n", "N", "columns of B and C (overrides --size)")
      .suffixes()
      .range(1, kMaxDimension)
      .option("k", "K", "columns of A and rows of B (overrides --size)")
      .suffixes()
      .range(1, kMaxDimension)
      .option("grid", "RxC", "process grid, R*C must equal the ranks; 'auto' picks the squarest", "auto")
      .option("panel", "W",
              "panel width along k, at most 2^30; panels also split where they cross a block boundary", "128")
      .suffixes()
      .range(1, 1 << 30)
      .option("mode", "MODE",
              "sync:  one rank per core, broadcast of each panel (waited for at once), then dgemm\n"
              "async: one rank per core, MPI_Ibcast of panel i+1 while panel i is multiplied\n"
              "mt:    one rank per node, broadcasts waited for at once, then the node's threads multiply\n"
              "proxy: one rank per node, the proxy thread broadcasts panel i+1 while the threads multiply i",
              "sync")
      .one_of({"sync", "async", "mt", "proxy"})
      .option("threads", "T", "compute threads per rank in mt and proxy modes; 0 = one per compute core", "0")
      .range(0, 4096)
      .option("reps", "R", "timed repetitions; times are the mean over them of the slowest rank", "3")
      .range(1, 1000000)
      .per_rank()
      .option("node-layout", "RxC",
              "sync/async: each node's ranks (consecutive ranks) form an RxC tile of the grid, e.g. 2x4, 4x2\n"
              "or 1x8 (thesis Figs. IV.3-IV.5); prints the on/off-node broadcast receivers it implies.\n"
              "Without it ranks fill the grid row by row and nodes are the real ones")
      .option("output", "FILE", "append a run record to FILE (.csv, or .json/.jsonl for JSON Lines)")
      .flag("verify", "recompute each rank's block of C with one dgemm and check the max relative error\n"
                      "(relative to k*max|A|*max|B|) is below 1e-12; exit 3 if not")
      .flag("verbose", "print the effective configuration, the placement and the proxy's statistics\n"
                       "(also PROXY_VERBOSE=1)");
  options.alias("repeat", "reps");
  options.epilog(
      "Output: a table with total, compute, communication and wait times (s), the communication share, the\n"
      "per-panel times (ms) and the ideal-proxy prediction T_p = max((T_s - C_t) p/(p - s), C_t) for p cores\n"
      "per node and s = 1 given to the proxy (thesis IV.B; the line under the table shows the numbers), then\n"
      "GFLOP/s (2mnk / total). --output records: mode, m, n, k, grid, panel, ranks,\n"
      "threads_per_rank, node_layout, panels, reps, total_s, compute_s, comm_s, wait_s, gflops,\n"
      "ideal_proxy_s, bcast_on_node, bcast_off_node, max_rel_error, verified, then the provenance (prov_* columns in\n"
      "CSV, a \"provenance\" object in JSON; fields: docs/provenance.md). OpenBLAS always runs one thread per\n"
      "caller (mt/proxy threads own the partitioning).\n"
      "Examples:\n"
      "  mpiexec -n 4 build/bin/summa --size 1024 --grid 2x2 --panel 128 --mode async --verify\n"
      "  mpiexec -n 1 build/bin/summa --m 2000 --n 1000 --k 500 --mode proxy --threads 1 --output runs.csv\n"
      "  mpiexec -n 8 build/bin/summa --size 2048 --grid 4x2 --node-layout 2x2 --mode sync");
  return options;
}

// The squarest R x C with R * C = ranks and R <= C.
std::vector<int> auto_grid(int ranks) {
  int rows = 1;
  for (int r = 1; r * r <= ranks; ++r)
    if (ranks % r == 0) rows = r;
  return {rows, ranks / rows};
}

summa::Problem problem_from(const apps::Options& options, int ranks) {
  summa::Problem p;
  const long long size = options.integer("size");
  p.m = options.given("m") ? options.integer("m") : size;
  p.n = options.given("n") ? options.integer("n") : size;
  p.k = options.given("k") ? options.integer("k") : size;
  if (!options.given("m")) p.m_option = "--size";
  if (!options.given("n")) p.n_option = "--size";
  if (!options.given("k")) p.k_option = "--size";
  const std::vector<int> grid =
      options.value("grid") == "auto" ? auto_grid(ranks) : options.geometry("grid", 2);
  p.grid_rows = grid[0];
  p.grid_cols = grid[1];
  p.panel = static_cast<int>(options.integer("panel"));
  p.mode = summa::parse_mode(options.value("mode"));
  p.threads = static_cast<int>(options.integer("threads"));
  p.reps = static_cast<int>(options.integer("reps"));
  if (options.given("node-layout")) {
    const std::vector<int> layout = options.geometry("node-layout", 2);
    p.node_rows = layout[0];
    p.node_cols = layout[1];
  }
  p.verify = options.flag_set("verify");
  summa::validate(p, ranks);
  return p;
}

apps::RunRecord make_record(const summa::Problem& p, const summa::RunResult& r, int ranks, double gflops,
                            double ideal) {
  apps::RunRecord record;
  record.set("mode", std::string(summa::to_string(p.mode)))
      .set("m", p.m).set("n", p.n).set("k", p.k)
      .set("grid", p.grid())
      .set("panel", p.panel)
      .set("ranks", ranks)
      .set("threads_per_rank", r.threads_per_rank)
      .set("node_layout", p.has_node_layout() ? std::to_string(p.node_rows) + "x" + std::to_string(p.node_cols)
                                              : std::string("none"))
      .set("panels", r.panels)
      .set("reps", p.reps)
      .set("progress", r.progress);
  apps::set_timing_columns(record, r.timings);
  record.set("gflops", gflops)
      .set("ideal_proxy_s", ideal)
      .set("bcast_on_node", r.broadcasts.on_node())
      .set("bcast_off_node", r.broadcasts.off_node())
      .set("max_rel_error", r.verify_ran ? r.max_rel_error : std::nan(""))
      .set("verified", r.verified);
  return record;
}

int run_driver(proxy::Environment& env, int argc, char** argv) {
  apps::Options options = declare_options();
  summa::Problem problem;
  std::string output;
  if (!apps::parse_agreed(MPI_COMM_WORLD, env.rank(), options, argc, argv, [&] {
        problem = problem_from(options, env.size());
        if (options.given("output")) {
          output = options.value("output");
          apps::record_format_for(output);  // a bad extension fails here, on every rank, before the run
        }
      }))
    return apps::kExitSuccess;
  const bool verbose = options.verbose();
  problem.proxy_timings = verbose;
  apps::note_omp_threads(kProgram, options, env, problem.mode, problem.threads);
  // Before allocating: this rank's blocks, panel buffers and (--verify) reference, against its share of
  // the node's memory.
  proxy::harness::check_memory(env.world(), problem.sizes(), summa::bytes_per_rank(problem), env.node().size);
  apps::Provenance provenance = apps::collect_provenance(argc, argv);  // time and load of the start
  if (!output.empty()) {
    // Before any computation: a bad file (directory, permission, another program's CSV) fails here, on
    // every rank.
    apps::check_record_output(env.world(), output,
                              make_record(problem, summa::RunResult{}, env.size(), 0.0, 0.0).set_provenance(provenance));
  }
  // --show-config once every check of a run has passed (the memory and --output too): a bad value ends it as a run.
  if (apps::answer_show_config(options, env.rank())) return apps::kExitSuccess;

  const summa::RunResult result = summa::run(env, problem, apps::abort_on_comm_failure(kProgram, env.rank()));

  const bool root = env.rank() == 0;
  if (result.shared_proxy)
    apps::warn(kProgram, env.rank(), "too few cores per rank for a dedicated proxy core: the proxy shares one");
  const double flops = 2.0 * static_cast<double>(problem.m) * static_cast<double>(problem.n) *
                       static_cast<double>(problem.k);
  const double gflops = result.timings.total_s > 0.0 ? flops / result.timings.total_s * 1e-9 : 0.0;
  // The prediction is for the runs without a proxy: their compute slowed by p/(p-1), their comm hidden.
  const int cores_per_node = env.topology().cores();
  const double ideal = problem.mode == summa::Mode::proxy
                           ? std::nan("")
                           : apps::ideal_proxy_time(result.timings.total_s, result.timings.comm_s, cores_per_node);
  if (root) {
    std::printf("summa: C = A*B with m=%lld n=%lld k=%lld, grid %s, panel %d (%s), mode %s, %s x %s, %s\n",
                static_cast<long long>(problem.m), static_cast<long long>(problem.n),
                static_cast<long long>(problem.k), problem.grid().c_str(), problem.panel,
                counted(result.panels, "panel").c_str(), std::string(summa::to_string(problem.mode)).c_str(),
                counted(env.size(), "rank").c_str(), counted(result.threads_per_rank, "thread").c_str(),
                counted(problem.reps, "rep").c_str());
    std::printf("broadcast receivers of rank 0 (%s): %s\n",
                problem.has_node_layout() ? ("node layout " + std::to_string(problem.node_rows) + "x" +
                                             std::to_string(problem.node_cols)).c_str()
                                          : "real nodes",
                result.broadcasts.describe().c_str());
    if (verbose && !result.placement.empty())
      std::printf("placement of rank 0: %s\n", result.placement.c_str());
    if (problem.mode == summa::Mode::proxy) std::printf("progress: %s\n", result.progress.c_str());
    std::fflush(stdout);
    apps::print_timing_table(
        std::cout, {apps::TimingRow::from(std::string(summa::to_string(problem.mode)), result.timings, result.panels, ideal)});
    if (problem.mode != summa::Mode::proxy)
      std::printf("%s\n", apps::ideal_proxy_explained(result.timings.total_s, result.timings.comm_s, cores_per_node).c_str());
    std::printf("GFLOP/s: %.3f\n", gflops);
    if (result.verify_ran)
      std::printf("verify: max relative error %.3e (tolerance %.0e): %s\n", result.max_rel_error,
                  summa::kVerifyTolerance, result.verified ? "OK" : "FAILED");
    if (verbose && !result.proxy_statistics.empty())
      std::printf("%s\n", result.proxy_statistics.c_str());
    std::fflush(stdout);
    provenance.placement = result.placement;
    return apps::finish_run(
        kProgram, output,
        [&] { return make_record(problem, result, env.size(), gflops, ideal).set_provenance(provenance); },
        result.verify_ran && !result.verified);
  }
  return result.verify_ran && !result.verified ? apps::kExitVerificationFailed : apps::kExitSuccess;
}

}  // namespace

int main(int argc, char** argv) {
  return apps::driver_main(kProgram, argc, argv, [&](proxy::Environment& env) { return run_driver(env, argc, argv); });
}
