// calibrate: measures the latency/bandwidth parameters of the HPDC'13 collective model (seed 001, sec. 2
// and 3.4) on this node, writes them to a model file the runtime reads (PROXY_COLLECTIVE_MODEL), and prints
// predicted vs measured time of every team-allreduce algorithm per size, with the crossover where the
// model's choice changes. No MPI: the team collectives are threads of one process.
// Exit status: 0, 2 for bad input (checked before measuring: --output exists without --force, an
// unwritable --output or --csv, both naming one file, --model without --predict-only, --output or --csv with
// it), 1 when a result cannot be written after all. A symbolic --output or --csv is written through: the
// file it points to gets the result, the link stays.
#include <algorithm>
#include <array>
#include <cerrno>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <iostream>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

#include <sys/stat.h>

#include <apps/common.hpp>
#include <proxy/collective_model.hpp>
#include <proxy/detail/counted.hpp>
#include <proxy/error.hpp>
#include <proxy/harness/memory.hpp>
#include <proxy/team.hpp>
#include <proxy/topology.hpp>

#include "measure.hpp"

namespace {

constexpr const char* kProgram = "calibrate";

apps::Options declare_options() {
  apps::Options options(kProgram,
                        "Measure the team-collective cost model (HPDC'13) on this node and write it to a file.");
  options.option("threads", "T", "team size, 2 to 1024; 0 = one thread per core (at least 2)", "0")
      .range(0, 1024)
      .option("sizes", "LIST", "bytes per thread to compare algorithms at (K, M, G suffixes)",
              "8,64,512,2K,8K,32K,128K,512K,2M,4M,8M,16M")
      .list()
      .suffixes()
      .range(8, 1 << 30)
      .option("iters", "N", "timed iterations for small sizes (fewer for large ones, at least 5)", "2000")
      .range(1, 1000000)
      .option("output", "FILE",
              "model file to write ('name value' lines); an existing one needs --force; not with --predict-only",
              "collectives.model")
      .flag("force", "overwrite an existing --output model")
      .option("csv", "FILE", "also write the predicted-vs-measured table as CSV (not with --predict-only)")
      .option("model", "FILE", "with --predict-only: the model to read (default: PROXY_COLLECTIVE_MODEL or built-in)")
      .flag("predict-only", "measure and write nothing: print the model's predictions and choices for --sizes")
      .flag("no-bind", "do not bind thread t to core t")
      .flag("verbose", "print the effective configuration first (also PROXY_VERBOSE=1)");
  options.alias("iterations", "iters");
  options.epilog(
      "Parameters (seed 001, sec. 2): a access latency (s), b per-byte time of one reader (s/B), B per-byte\n"
      "time per reader when readers share the link (s/B); alpha within a NUMA domain, beta across. a_alpha\n"
      "and b_alpha come from a 2-thread tree reduce (one remote combine: a + b m), B_alpha from a one-stage\n"
      "broadcast to T-1 readers (a + B (T-1) m). With a single NUMA domain the beta values cannot be\n"
      "measured and are set to twice the alpha values.\n"
      "The model also keeps every allreduce algorithm's measured curve at --sizes for this team shape, which\n"
      "it interpolates there (other shapes use the formulas); on one NUMA domain the two-stage algorithms\n"
      "run as their one-stage twins and are not measured apart.\n"
      "Output: the parameters, then a second measurement at --sizes and halfway between them (*): per size and\n"
      "algorithm the model's and the formula's prediction and the measured time (us; median over iterations\n"
      "of the slowest thread, barrier and input rewrite outside the timed region), the relative error, the\n"
      "model's choice and the measured best; the median and worst error and the cost of the choice against the\n"
      "measured best, for the model and for the formulas alone; and the crossover sizes.\n"
      "Examples:\n"
      "  build/bin/calibrate --output collectives.model          # --force to replace an existing one\n"
      "  PROXY_COLLECTIVE_MODEL=collectives.model build/bin/calibrate --predict-only --sizes 1K,1M\n"
      "  build/bin/calibrate --threads 4 --sizes 8,4K,1M --iters 50 --csv model-check.csv");
  return options;
}

struct Row {
  std::size_t bytes;
  proxy::AllreduceAlgorithm algorithm;
  double predicted, formula, measured;
  bool between;  // a size between two calibration sizes (the curve interpolates there)
};

// How far a model is from the second measurement: the median and worst |predicted - measured| / measured,
// and the worst over sizes of (measured time of the model's choice) / (measured best).
struct Agreement {
  double median_error = 0.0, worst_error = 0.0, worst_choice = 1.0;
  std::size_t worst_error_bytes = 0, worst_choice_bytes = 0;
};

Agreement agreement(const std::vector<Row>& rows, bool formula) {
  Agreement result;
  std::vector<double> errors;
  for (const Row& r : rows) {
    const double error = std::abs((formula ? r.formula : r.predicted) - r.measured) / r.measured;
    errors.push_back(error);
    if (error > result.worst_error) result.worst_error = error, result.worst_error_bytes = r.bytes;
  }
  std::sort(errors.begin(), errors.end());
  if (!errors.empty()) result.median_error = errors[errors.size() / 2];
  for (std::size_t i = 0; i < rows.size();) {
    std::size_t j = i;
    const Row* chosen = &rows[i];
    double best = rows[i].measured;
    for (; j < rows.size() && rows[j].bytes == rows[i].bytes; ++j) {
      best = std::min(best, rows[j].measured);
      const double cost = formula ? rows[j].formula : rows[j].predicted;
      if (cost < (formula ? chosen->formula : chosen->predicted)) chosen = &rows[j];
    }
    if (chosen->measured / best > result.worst_choice)
      result.worst_choice = chosen->measured / best, result.worst_choice_bytes = rows[i].bytes;
    i = j;
  }
  return result;
}

std::string format_bytes(std::size_t bytes) {
  if (bytes >= (1u << 20) && bytes % (1u << 20) == 0) return std::to_string(bytes >> 20) + " MiB";
  if (bytes >= 1024 && bytes % 1024 == 0) return std::to_string(bytes >> 10) + " KiB";
  return std::to_string(bytes) + " B";
}

// The first size (doubling from 8 B) where the model's choice differs from its choice at 8 B.
std::optional<std::size_t> model_crossover(const proxy::CollectiveModel& model, proxy::TeamShape shape,
                                           proxy::AllreduceAlgorithm* from, proxy::AllreduceAlgorithm* to) {
  *from = model.choose_allreduce(shape, 8);
  for (std::size_t bytes = 16; bytes <= (std::size_t{1} << 30); bytes *= 2) {
    const auto choice = model.choose_allreduce(shape, bytes);
    if (choice != *from) {
      // Refine between bytes / 2 and bytes by bisection.
      std::size_t low = bytes / 2, high = bytes;
      while (high - low > 8) {
        const std::size_t mid = (low + high) / 2;
        (model.choose_allreduce(shape, mid) == *from ? low : high) = mid;
      }
      *to = model.choose_allreduce(shape, high);
      return high;
    }
  }
  return std::nullopt;
}

void print_parameters(const proxy::ModelParameters& c) {
  std::printf("model parameters (HPDC'13 sec. 2):\n");
  std::printf("  a_alpha %.3e s     b_alpha %.3e s/B (%.2f GB/s)     B_alpha %.3e s/B (%.2f GB/s)\n", c.a_alpha,
              c.b_alpha, 1e-9 / c.b_alpha, c.B_alpha, 1e-9 / c.B_alpha);
  std::printf("  a_beta  %.3e s     b_beta  %.3e s/B                 B_beta  %.3e s/B\n", c.a_beta, c.b_beta,
              c.B_beta);
}

// The model --predict-only reads: --model, else PROXY_COLLECTIVE_MODEL's, else the built-in one.
proxy::CollectiveModel model_to_predict(const apps::Options& options) {
  return options.given("model") ? proxy::CollectiveModel::load(options.value("model"))
                                : proxy::CollectiveModel::from_env();
}

int predict_only(const proxy::CollectiveModel& model, const std::vector<std::size_t>& sizes, int threads) {
  const proxy::TeamShape shape{threads, 1};
  print_parameters(model.parameters());
  const std::vector<proxy::AllreduceAlgorithm> algorithms = proxy::distinct_allreduce_algorithms(shape);
  std::printf("\n%-10s", "bytes");
  for (auto a : algorithms) std::printf(" %16s", std::string(to_string(a)).c_str());
  std::printf("  %s\n", "choice");
  for (std::size_t bytes : sizes) {
    std::printf("%-10s", format_bytes(bytes).c_str());
    for (auto a : algorithms) std::printf(" %13.2f us", model.predict(a, shape, bytes) * 1e6);
    std::printf("  %s\n", std::string(to_string(model.choose_allreduce(shape, bytes))).c_str());
  }
  proxy::AllreduceAlgorithm from{}, to{};
  if (auto at = model_crossover(model, shape, &from, &to))
    std::printf("model crossover: %s -> %s at %zu bytes per thread\n", std::string(to_string(from)).c_str(),
                std::string(to_string(to)).c_str(), *at);
  else
    std::printf("model crossover: none up to 1 GiB (%s throughout)\n", std::string(to_string(from)).c_str());
  return 0;
}

// Before anything is read or measured: --model only means something with --predict-only, and --output and
// --csv only without it (it measures nothing and writes nothing).
void check_mode(const apps::Options& options) {
  if (options.flag_set("predict-only")) {
    for (const char* name : {"output", "csv"})
      if (options.given(name))
        throw apps::UsageError(std::string("--") + name + " " + options.value(name) +
                               " is written only by a calibration (--predict-only measures and writes nothing)");
  } else if (options.given("model")) {
    throw apps::UsageError("--model " + options.value("model") +
                           " is read only with --predict-only (a calibration measures a new model for --output)");
  }
}

// Before measuring anything: the model file and the --csv table must be writable and two files, and an
// existing model is replaced only with --force.
void check_outputs(const apps::Options& options) {
  const std::string output = options.value("output");
  if (std::string reason = apps::unwritable_reason("--output", output); !reason.empty()) throw apps::UsageError(reason);
  struct stat info{};
  if (!options.flag_set("force") && ::stat(output.c_str(), &info) == 0)
    throw apps::UsageError("--output " + output + ": the model file exists (pass --force to overwrite it)");
  if (!options.given("csv")) return;
  const std::string csv = options.value("csv");
  if (std::string reason = apps::unwritable_reason("--csv", csv); !reason.empty()) throw apps::UsageError(reason);
  if (apps::same_output_file(output, csv))
    throw apps::UsageError("--output " + output + " and --csv " + csv +
                           " are the same file (the model would replace the table): give two files");
}

int run(int argc, char** argv) {
  apps::Options options = declare_options();
  if (!options.parse(argc, argv)) {
    std::cout << options.answer();
    return 0;
  }
  std::vector<std::size_t> sizes;
  for (const long long bytes : options.integers("sizes")) sizes.push_back(static_cast<std::size_t>(bytes));
  std::sort(sizes.begin(), sizes.end());
  sizes.erase(std::unique(sizes.begin(), sizes.end()), sizes.end());
  const int iterations = static_cast<int>(options.integer("iters"));
  const int requested = static_cast<int>(options.integer("threads"));
  check_mode(options);
  const proxy::Topology topology;
  const int threads = requested > 0 ? requested : std::max(2, topology.cores());
  // Every check of a run before --show-config answers (a bad value ends it as a run would), and before anything
  // is measured or written.
  std::optional<proxy::CollectiveModel> to_predict;
  const std::size_t largest = std::max<std::size_t>(sizes.back(), std::size_t{1} << 20);
  if (options.flag_set("predict-only")) {
    to_predict = model_to_predict(options);  // a bad model file: proxy::Error, a usage error in main
  } else {
    if (threads < 2) throw apps::UsageError("--threads must be at least 2 to calibrate, got '1'");
    check_outputs(options);
    // Every thread's send and receive vector of the largest size (the parameters' pair measures up to 1 MiB).
    proxy::harness::check_memory_here("--threads " + std::to_string(threads) + " --sizes " + options.value("sizes"),
                                      2.0 * threads * double(largest));
  }
  if (options.show_config_requested() || options.verbose()) {
    std::cout << options.show_config() << std::flush;
    if (options.show_config_requested()) return apps::kExitSuccess;
  }
  if (to_predict) return predict_only(*to_predict, sizes, threads);
  calibrate::Buffers buffers(threads, largest);

  proxy::TeamConfig config;  // spin-then-yield by default; PROXY_WAIT_POLICY is honoured below
  if (const char* policy = std::getenv("PROXY_WAIT_POLICY")) config.wait_policy = proxy::parse_wait_policy(policy);
  config.last_level_cache_bytes = topology.last_level_cache_bytes();
  const proxy::Topology* bind = options.flag_set("no-bind") ? nullptr : &topology;
  // Thread t runs on core t (mod cores): its trees and two-stage broadcast follow hwloc's hierarchy.
  std::vector<int> cores(threads);
  for (int t = 0; t < threads; ++t) cores[t] = t % std::max(1, topology.cores());
  proxy::TeamConfig pair_config = config;
  pair_config.levels = proxy::team_levels(topology, {cores[0], cores[1 % threads]});
  config.levels = proxy::team_levels(topology, cores);
  std::printf("calibrate: %s on %s%s\n", proxy::detail::counted(threads, "thread").c_str(), topology.describe().c_str(),
              threads > topology.cores() ? " (oversubscribed)" : "");
  std::fflush(stdout);  // what it measures, before the measuring (minutes for large teams), also into a pipe

  // 1. Parameters: a 2-thread tree reduce is exactly one remote combine, a + b m.
  proxy::Team pair(2, pair_config);
  calibrate::Bench pair_bench{&pair, bind, 3, 0, &buffers};
  const auto time_pair = [&](std::size_t bytes) {
    pair_bench.iterations = calibrate::iterations_for(bytes, iterations);
    return calibrate::time_collective(pair_bench, calibrate::Collective::reduce_tree, {}, bytes).mean_seconds;
  };
  const std::size_t mid = 64 << 10, big = 1 << 20;
  proxy::ModelParameters c;
  const double t_small = time_pair(8), t_mid = time_pair(mid), t_big = time_pair(big);
  c.b_alpha = std::max(1e-13, (t_big - t_mid) / double(big - mid));
  c.a_alpha = std::max(1e-9, t_small - c.b_alpha * 8);
  // B: T - 1 readers of one buffer at once, a + B (T - 1) m.
  proxy::Team team(threads, config);
  calibrate::Bench bench{&team, bind, 3, 0, &buffers};
  const auto time_team = [&](calibrate::Collective what, proxy::AllreduceAlgorithm a, std::size_t bytes) {
    bench.iterations = calibrate::iterations_for(bytes, iterations);
    return calibrate::time_collective(bench, what, a, bytes).mean_seconds;
  };
  const double b_mid = time_team(calibrate::Collective::broadcast_one_stage, {}, mid);
  const double b_big = time_team(calibrate::Collective::broadcast_one_stage, {}, big);
  c.B_alpha = std::max(1e-13, (b_big - b_mid) / double(big - mid) / double(threads - 1));
  c.a_beta = 2 * c.a_alpha;  // one NUMA domain here: not measurable (see --help)
  c.b_beta = 2 * c.b_alpha;
  c.B_beta = 2 * c.B_alpha;
  print_parameters(c);
  if (topology.numa_domains() == 1) std::printf("  (one NUMA domain: beta values set to twice alpha, not measured)\n");

  // 2. The curves: every algorithm at every --sizes size (median over iterations of the slowest thread).
  // For this team shape the model interpolates them; the formulas above serve every other shape.
  // The algorithms that differ on this shape: a two-stage twin of a one-stage algorithm (one socket) is the
  // same code, and choosing between two measurements of it chose noise (up to 1.10x at 512 KiB here).
  const proxy::TeamShape shape = team.shape();
  const std::vector<proxy::AllreduceAlgorithm> algorithms = proxy::distinct_allreduce_algorithms(shape);
  if (algorithms.size() < proxy::allreduce_algorithms().size())
    std::printf("  (the team spans one socket: the two-stage algorithms run as their one-stage ones, not measured\n"
                "   apart)\n");
  // Every algorithm of a size in 5 alternated rounds, the median of their medians: a host whose speed
  // changes within a run (this VM's does) then moves every algorithm alike instead of favouring one.
  const auto median_times = [&](std::size_t bytes) {
    constexpr int kRounds = 5;
    std::vector<std::array<double, kRounds>> rounds(algorithms.size());
    bench.iterations = std::max(5, calibrate::iterations_for(bytes, iterations) / kRounds);
    for (int r = 0; r < kRounds; ++r)
      for (std::size_t k = 0; k < algorithms.size(); ++k)
        rounds[k][static_cast<std::size_t>(r)] =
            calibrate::time_collective(bench, calibrate::Collective::allreduce, algorithms[k], bytes).median_seconds;
    std::vector<double> medians;
    for (auto& times : rounds) {
      std::sort(times.begin(), times.end());
      medians.push_back(times[kRounds / 2]);
    }
    return medians;
  };
  std::vector<proxy::MeasuredCurve> curves;
  for (auto a : algorithms) curves.push_back({a, {}});
  for (std::size_t bytes : sizes) {
    const std::vector<double> times = median_times(bytes);
    for (std::size_t k = 0; k < curves.size(); ++k) curves[k].points.emplace_back(bytes, times[k]);
  }
  const proxy::CollectiveModel model(c, shape, curves);

  // 3. The check, measured again: at the calibration sizes (how well a curve reproduces) and halfway
  // between them on a log scale (how well it interpolates), against the model and the formulas alone.
  std::vector<std::pair<std::size_t, bool>> check_sizes;
  for (std::size_t i = 0; i < sizes.size(); ++i) {
    if (i > 0) {
      const auto between = static_cast<std::size_t>(std::sqrt(double(sizes[i - 1]) * double(sizes[i]))) / 8 * 8;
      if (between > sizes[i - 1] && between < sizes[i]) check_sizes.emplace_back(between, true);
    }
    check_sizes.emplace_back(sizes[i], false);
  }
  std::vector<Row> rows;
  std::printf("\n%-10s %-16s %12s %12s %12s %8s\n", "bytes", "algorithm", "model", "formula", "measured", "error");
  std::vector<std::pair<std::size_t, proxy::AllreduceAlgorithm>> measured_best;
  for (const auto& [bytes, between] : check_sizes) {
    const auto choice = model.choose_allreduce(shape, bytes);
    Row best{bytes, {}, 0, 0, 1e300, between};
    const std::vector<double> measured = median_times(bytes);
    for (std::size_t k = 0; k < algorithms.size(); ++k) {
      const proxy::AllreduceAlgorithm a = algorithms[k];
      Row row{bytes, a, model.predict(a, shape, bytes), model.formula(a, shape, bytes), measured[k], between};
      std::printf("%-10s %-16s %9.2f us %9.2f us %9.2f us %+7.0f%%%s\n",
                  (format_bytes(bytes) + (between ? "*" : "")).c_str(), std::string(to_string(a)).c_str(),
                  row.predicted * 1e6, row.formula * 1e6, row.measured * 1e6,
                  100.0 * (row.predicted - row.measured) / row.measured, a == choice ? "  <- model's choice" : "");
      if (row.measured < best.measured) best = row;
      rows.push_back(row);
    }
    std::printf("%-10s measured best: %s\n", "", std::string(to_string(best.algorithm)).c_str());
    measured_best.emplace_back(bytes, best.algorithm);
  }
  std::printf("(* between calibration sizes; model: the measured curves of this shape, %s on %s; "
              "formula: HPDC'13 with the parameters above)\n", proxy::detail::counted(shape.threads, "thread").c_str(),
              proxy::detail::counted(shape.sockets, "socket").c_str());
  for (const bool formula : {false, true}) {
    const Agreement g = agreement(rows, formula);
    std::printf("%s vs a second measurement: median |error| %.0f%%, worst %.0f%% (at %s); ",
                formula ? "formulas" : "model", 100 * g.median_error, 100 * g.worst_error,
                format_bytes(g.worst_error_bytes).c_str());
    if (g.worst_choice_bytes == 0)
      std::printf("its choice was the measured best at every size\n");
    else
      std::printf("its choice costs at most %.2fx the measured best (at %s)\n", g.worst_choice,
                  format_bytes(g.worst_choice_bytes).c_str());
  }

  // 4. Crossovers.
  proxy::AllreduceAlgorithm from{}, to{};
  if (auto at = model_crossover(model, shape, &from, &to))
    std::printf("\nmodel crossover: %s -> %s at %zu bytes per thread\n", std::string(to_string(from)).c_str(),
                std::string(to_string(to)).c_str(), *at);
  else
    std::printf("\nmodel crossover: none up to 1 GiB (%s throughout)\n", std::string(to_string(from)).c_str());
  std::optional<std::size_t> measured_at;
  for (const auto& [bytes, algorithm] : measured_best)
    if (algorithm != measured_best.front().second) {
      measured_at = bytes;
      std::printf("measured crossover: %s -> %s between the sizes below %s and at it\n",
                  std::string(to_string(measured_best.front().second)).c_str(), std::string(to_string(algorithm)).c_str(),
                  format_bytes(bytes).c_str());
      break;
    }
  if (!measured_at) std::printf("measured crossover: none among the checked sizes\n");

  // Checked before measuring (check_outputs); a write that fails now (a disk filled since) is a run-time
  // failure, exit 1, that names the file and leaves nothing partial.
  if (options.given("csv")) {
    const std::string path = options.value("csv");
    errno = 0;
    std::ofstream csv(path);
    csv << "bytes,algorithm,predicted_s,formula_s,measured_s,relative_error,between\n";
    for (const auto& r : rows)
      csv << r.bytes << ',' << to_string(r.algorithm) << ',' << r.predicted << ',' << r.formula << ',' << r.measured
          << ',' << (r.predicted - r.measured) / r.measured << ',' << (r.between ? 1 : 0) << '\n';
    csv.close();  // the buffered rows reach the file here (errno: its failure, or the open's)
    if (!csv) {
      const int error = errno;
      std::remove(apps::link_target(path).c_str());  // the partial table; a symbolic link to it stays
      throw std::runtime_error("--csv " + path + ": cannot be written" +
                               (error != 0 ? std::string(": ") + std::strerror(error) : std::string()));
    }
  }
  try {
    model.save(options.value("output"));
  } catch (const proxy::Error& e) {
    throw std::runtime_error(std::string("--output: ") + e.what());
  }
  std::printf("wrote model to %s (use it with PROXY_COLLECTIVE_MODEL=%s)\n", options.value("output").c_str(),
              options.value("output").c_str());
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  apps::guard_program_exit(kProgram);
  try {
    return apps::run_guarded(kProgram, 0, [&] {
      try {
        return run(argc, argv);
      } catch (const proxy::Error& e) {  // a bad model file or wait policy: user input too
        throw apps::UsageError(e.what());
      }
    });
  } catch (const std::exception& e) {  // a result that could not be written, memory refused: one line, exit 1
    std::fprintf(stderr, "%s: error: %s\n", kProgram, e.what());
    return apps::kExitRunFailure;
  }
}
