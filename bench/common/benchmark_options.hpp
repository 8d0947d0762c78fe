// The one command-line vocabulary (README "Command-line conventions") for the Google Benchmark programs:
// --help, --version and --show-config are answered first (before benchmark::Initialize runs anything, and
// before any rank-count check), the program's own options go through apps::Options, Google Benchmark's
// flags (--benchmark_*, --v=) through benchmark::Initialize, and whatever neither knows is a usage error:
// one line naming it, exit 2. A run's provenance (apps/provenance.hpp) goes into Google Benchmark's
// context as "prov_<field>" keys, the strings of a CSV record's prov_* columns. Main thread only.
#pragma once

#include <benchmark/benchmark.h>
#include <mpi.h>

#include <charconv>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <functional>
#include <optional>
#include <regex>
#include <string>
#include <string_view>
#include <vector>

#include "apps/agreed_parse.hpp"
#include "apps/exit_codes.hpp"
#include "apps/options.hpp"
#include "apps/output_file.hpp"
#include "apps/provenance.hpp"
#include "apps/usage_error.hpp"
#include "format_reporter.hpp"  // split_arguments

namespace bench {

// The --help paragraph every Google Benchmark program shares (after the program's own epilog, if any).
inline constexpr std::string_view kBenchmarkFlagsHelp =
    "Google Benchmark flags pass through: --benchmark_filter=REGEX, --benchmark_format=console|json|csv,\n"
    "--benchmark_out=FILE, --benchmark_min_time=T (seconds, >= 0), --benchmark_repetitions=N (1 to 1000000),\n"
    "--benchmark_list_tests, ...";

// Google Benchmark's numeric flags and its output file, checked before it runs (it loops for ever on
// --benchmark_min_time=inf, dies of std::length_error on --benchmark_repetitions=-1, runs nothing on 0 and
// exits 0, waits for ever on a --benchmark_out that is a pipe, loses its output on /dev/full): throws
// apps::UsageError "--benchmark_repetitions: expected an integer from 1 to 1000000, got '-1'", or the
// drivers' --output refusal (apps::unwritable_reason).
inline constexpr int kMaxRepetitions = 1000000;  // summa's --reps bound, and the tools'
inline void check_benchmark_flags(const std::vector<char*>& theirs) {
  for (std::size_t i = 1; i < theirs.size(); ++i) {
    const std::string_view arg = theirs[i];
    const std::size_t equals = arg.find('=');
    const std::string_view name = arg.substr(0, equals);
    const std::string value(equals == arg.npos ? "" : arg.substr(equals + 1));
    if (name == "--benchmark_repetitions") {
      int count = 0;
      const auto [end, ec] = std::from_chars(value.data(), value.data() + value.size(), count);
      if (value.empty() || ec != std::errc() || end != value.data() + value.size() || count < 1 ||
          count > kMaxRepetitions) {
        throw apps::UsageError(std::string(name) + ": expected an integer from 1 to " +
                               std::to_string(kMaxRepetitions) + ", got '" + value + "'");
      }
    } else if (name == "--benchmark_min_time" || name == "--benchmark_min_warmup_time") {
      char* end = nullptr;
      const double seconds = std::strtod(value.c_str(), &end);
      if (value.empty() || *end != '\0' || !std::isfinite(seconds) || seconds < 0.0)
        throw apps::UsageError(std::string(name) + ": expected a finite number of seconds >= 0, got '" + value + "'");
    } else if (name == "--benchmark_out") {
      if (const std::string why = apps::unwritable_reason(std::string(name), value); !why.empty())
        throw apps::UsageError(why);
    } else if (name == "--benchmark_format" || name == "--benchmark_out_format") {
      // Google Benchmark printed its 16-line usage for another value and exited 0, having run nothing.
      if (value != "console" && value != "json" && value != "csv")
        throw apps::UsageError(std::string(name) + ": expected console, json or csv, got '" + value + "'");
    } else if (name == "--benchmark_filter") {
      // Compiled as Google Benchmark compiles it (std::regex, extended; a leading '-' negates): one it could not
      // compile ran nothing and exited 0.
      try {
        std::regex(value.rfind('-', 0) == 0 ? value.substr(1) : value, std::regex::extended);
      } catch (const std::regex_error&) {
        throw apps::UsageError(std::string(name) + ": '" + value + "' is not a regular expression");
      }
    }
  }
}

// This run's provenance into Google Benchmark's context (JSON "context", console header): one
// "prov_<field>" key per field, the strings a CSV record's prov_* columns hold. Before
// RunSpecifiedBenchmarks; main's argc and argv.
inline void add_provenance_context(int argc, char** argv) {
  for (const auto& [key, value] : apps::collect_provenance(argc, argv).flat()) benchmark::AddCustomContext(key, value);
}

// Parses argv (`rank`: who prints; -1 before MPI is up counts as rank 0). Returns main's exit status when
// the program stops here: --help/--version/--show-config printed by rank 0 (0), a usage error's line
// printed by rank 0 (2). Returns nullopt to run: `theirs` then holds the program name and Google
// Benchmark's flags, ready for initialize(), and the context holds the provenance of this run.
// `comm`, for a benchmark whose ranks run the same benchmarks in lockstep: the outcome is collective, as
// the drivers' (apps/agreed_parse.hpp): a usage error on any rank stops every rank, and every rank's options
// and Google Benchmark flags must be rank 0's ("--benchmark_filter=Plan here, --benchmark_filter=Direct on
// rank 0: every rank of a run needs the same options (on rank 1)"), or ranks running different benchmarks
// would wait on each other for ever.
// `check_settings`, when given, checks the program's own environment variables after the flags (throwing
// apps::UsageError), so that a bad one ends the program with one line before --show-config or any benchmark.
inline std::optional<int> parse_arguments(apps::Options& options, int rank, int argc, char** argv,
                                          std::vector<char*>& theirs, MPI_Comm comm = MPI_COMM_NULL,
                                          const std::function<void()>& check_settings = {}) {
  std::vector<char*> ours;
  split_arguments(argc, argv, ours, theirs);
  const bool printer = rank <= 0;
  bool parsed = false;
  try {
    const auto parse = [&] {
      if (!options.parse(static_cast<int>(ours.size()), ours.data())) return false;
      check_benchmark_flags(theirs);
      if (check_settings) check_settings();
      return true;
    };
    if (comm == MPI_COMM_NULL) {
      parsed = parse();
    } else {
      parsed = apps::agreed(comm, parse);
      std::string values = apps::agreed_values_after(parsed, options);
      for (std::size_t i = 1; i < theirs.size(); ++i) values += std::string(theirs[i]) + "\n";
      apps::agree_on_options(values, comm);
    }
  } catch (const apps::UsageError& error) {
    return apps::report_usage_error(options.program(), printer ? 0 : rank, error);
  }
  if (!parsed) {
    if (printer) std::fputs(options.answer().c_str(), stdout);
    return apps::kExitSuccess;
  }
  if (options.show_config_requested()) {
    if (printer) std::fputs(options.show_config().c_str(), stdout);
    return apps::kExitSuccess;
  }
  add_provenance_context(argc, argv);
  static std::string name;  // Google Benchmark keeps argv[0]; its error lines start with it
  name = options.program();
  theirs[0] = name.data();
  return std::nullopt;
}

// A thread count from environment variable `name` (a plain decimal integer from 1 to 4096, the drivers'
// --threads bound), or `fallback` when it is not set: throws apps::UsageError "BENCH_THREADS='x' is not an
// integer from 1 to 4096" (atoi read 'x' as 1 thread, and 100000 threads ran the machine into the ground).
inline int threads_variable(const char* name, int fallback) {
  const char* text = std::getenv(name);
  if (text == nullptr || *text == '\0') return fallback;
  int threads = 0;
  const std::string_view value(text);
  const auto [end, ec] = std::from_chars(value.data(), value.data() + value.size(), threads);
  if (ec != std::errc() || end != value.data() + value.size() || threads < 1 || threads > 4096)
    throw apps::UsageError(std::string(name) + "='" + text + "' is not an integer from 1 to 4096");
  return threads;
}

// benchmark::Initialize on Google Benchmark's flags; a flag it does not know ("--benchmark_bogus") is
// reported by benchmark::ReportUnrecognizedArguments on rank 0 ("PROGRAM: error: unrecognized
// command-line flag: ..."): returns false, main exits 2.
inline bool initialize(int rank, std::vector<char*>& theirs) {
  int count = static_cast<int>(theirs.size());
  benchmark::Initialize(&count, theirs.data());
  if (count <= 1) return true;
  if (rank <= 0) benchmark::ReportUnrecognizedArguments(count, theirs.data());
  return false;
}

}  // namespace bench
