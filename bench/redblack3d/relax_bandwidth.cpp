// redblack3d_bandwidth: is the relaxation kernel memory-bound at the speed the memory allows?
// Measures, in one run and on the same thread counts, (1) a full red-black sweep of redblack3d::relax over
// an N^3 grid and (2) a STREAM-like copy of N^3 doubles, both as effective bandwidth (STREAM counting:
// bytes the algorithm must move, no write-allocate traffic), and prints relax/copy per thread count.
//   relax: per half-sweep u is read and written once and f read once: 3 x 8 bytes per point, 2 half-sweeps.
//   copy : a[i] = b[i], 2 x 8 bytes per element.
// Default size 320^3 (two 262 MB arrays per benchmark) is far beyond the last-level cache; --n picks
// another. Google Benchmark flags (--benchmark_format=json, --benchmark_out=FILE.json,
// --benchmark_repetitions, ...) pass through; the ratio table goes to stderr unless the format is console.
#include <benchmark/benchmark.h>

#include <apps/common.hpp>

#include <cmath>
#include <cstdio>
#include <iostream>
#include <cstdlib>
#include <cstring>
#include <map>
#include <set>
#include <memory>
#include <string>
#include <vector>

#include <omp.h>

#include "proxy/harness/memory.hpp"
#include "redblack3d/kernel.hpp"
#include "redblack3d/problem.hpp"
#include "benchmark_options.hpp"  // add_provenance_context
#include "format_reporter.hpp"

namespace {

int g_n = 320;

// Touches memory from the threads that will use it (first touch places pages near them on NUMA nodes).
void parallel_fill(double* data, std::size_t count, double value, int threads) {
#pragma omp parallel for schedule(static) num_threads(threads)
  for (std::size_t i = 0; i < count; ++i) data[i] = value;
}

void BM_RelaxSweep(benchmark::State& state) {
  const int threads = static_cast<int>(state.range(0));
  const redblack3d::Extent n{g_n, g_n, g_n};
  const redblack3d::Stencil s = redblack3d::make_stencil(n, 1.0);
  redblack3d::Grid u(n);
  redblack3d::Grid f(n);
  parallel_fill(u.data(), u.size(), 0.5, threads);
  parallel_fill(f.data(), f.size(), 1.0, threads);
  const redblack3d::Box all = redblack3d::interior_box(n);
  const redblack3d::Extent origin{0, 0, 0};
  for (auto _ : state) {
#pragma omp parallel num_threads(threads)
    {
      redblack3d::relax(u, f, s, redblack3d::Colour::red, origin, all);
#pragma omp barrier
      redblack3d::relax(u, f, s, redblack3d::Colour::black, origin, all);
    }
    benchmark::DoNotOptimize(u.data());
    benchmark::ClobberMemory();
  }
  const double points = static_cast<double>(g_n) * g_n * g_n;
  state.SetBytesProcessed(static_cast<std::int64_t>(state.iterations() * 2 * 3 * 8 * points));
  state.counters["n"] = g_n;
  state.counters["points_per_second"] =
      benchmark::Counter(static_cast<double>(state.iterations()) * 2 * points, benchmark::Counter::kIsRate);
}

void BM_StreamCopy(benchmark::State& state) {
  const int threads = static_cast<int>(state.range(0));
  const std::size_t count = static_cast<std::size_t>(g_n) * g_n * g_n;
  std::unique_ptr<double[]> a(new double[count]);
  std::unique_ptr<double[]> b(new double[count]);
  parallel_fill(a.get(), count, 0.0, threads);
  parallel_fill(b.get(), count, 1.0, threads);
  double* __restrict to = a.get();
  const double* __restrict from = b.get();
  for (auto _ : state) {
#pragma omp parallel for schedule(static) num_threads(threads)
    for (std::size_t i = 0; i < count; ++i) to[i] = from[i];
    benchmark::DoNotOptimize(a.get());
    benchmark::ClobberMemory();
  }
  state.SetBytesProcessed(static_cast<std::int64_t>(state.iterations() * 2 * 8 * static_cast<double>(count)));
  state.counters["n"] = g_n;
}

// Prints the console table as usual and, at the end, relax/copy bandwidth per thread count.
class RatioReporter : public bench::FormatReporter {
 public:
  using FormatReporter::FormatReporter;
  void ReportRuns(const std::vector<Run>& runs) override {
    FormatReporter::ReportRuns(runs);
    for (const Run& run : runs) {
      // With --benchmark_repetitions the median aggregate stands for the point; otherwise the one run.
      const bool median = run.run_type == Run::RT_Aggregate && run.aggregate_name == "median";
      if (run.error_occurred || (run.run_type == Run::RT_Aggregate && !median)) continue;
      const auto it = run.counters.find("bytes_per_second");
      if (it == run.counters.end()) continue;
      const std::string name = run.run_name.function_name + "/" + run.run_name.args;
      const std::string threads = run.run_name.args;
      auto& table = name.rfind("BM_RelaxSweep", 0) == 0 ? relax_ : copy_;
      if (median || !medians_.count(name)) table[threads] = it->second.value;
      if (median) medians_.insert(name);
    }
  }
  void Finalize() override {
    FormatReporter::Finalize();
    std::FILE* out = summary_stream();
    std::fprintf(out, "\nrelax sweep vs STREAM-like copy, n = %d (%.0f MB per array):\n", g_n,
                 8.0 * g_n * g_n * g_n / 1e6);
    for (const auto& [threads, relax] : relax_) {
      const auto copy = copy_.find(threads);
      if (copy == copy_.end()) continue;
      std::fprintf(out, "  threads %s: relax %.2f GB/s, copy %.2f GB/s, ratio %.2f\n", threads.c_str(), relax / 1e9,
                   copy->second / 1e9, relax / copy->second);
    }
  }

 private:
  std::map<std::string, double> relax_, copy_;  // bytes per second by thread count
  std::set<std::string> medians_;               // points whose median aggregate has been seen
};

constexpr const char* kProgram = "redblack3d_bandwidth";

int run(int argc, char** argv) {
  apps::Options options(kProgram, "Relax sweep bandwidth next to a STREAM-like copy (Google Benchmark).");
  options.option("n", "N", "grid points per dimension, at least 8 (K suffix allowed)", "320")
      .suffixes()
      .range(8, 1 << 14);
  options.epilog("Google Benchmark flags pass through: --benchmark_format=console|json|csv, --benchmark_out=FILE,\n"
                 "--benchmark_out_format, --benchmark_filter, --benchmark_min_time, --benchmark_repetitions, ...\n"
                 "With json or csv the ratio table goes to stderr, so stdout stays valid JSON/CSV.");
  std::vector<char*> ours, theirs;
  bench::split_arguments(argc, argv, ours, theirs);
  if (!options.parse(static_cast<int>(ours.size()), ours.data())) {
    std::cout << options.answer();
    return apps::kExitSuccess;
  }
  bench::check_benchmark_flags(theirs);
  g_n = static_cast<int>(options.integer("n"));
  if (options.show_config_requested()) {
    std::cout << options.show_config();
    return apps::kExitSuccess;
  }
  // Before measuring: the sweep's two grids of (n + 2)^3 doubles (the copy's two arrays are smaller).
  proxy::harness::check_memory_here("--n " + options.value("n"), 2 * 8.0 * std::pow(g_n + 2.0, 3));
  const int max_threads = omp_get_num_procs();
  for (int threads = 1; threads <= max_threads; threads *= 2) {
    benchmark::RegisterBenchmark("BM_RelaxSweep", BM_RelaxSweep)->Arg(threads)->UseRealTime()->Unit(benchmark::kMillisecond);
    benchmark::RegisterBenchmark("BM_StreamCopy", BM_StreamCopy)->Arg(threads)->UseRealTime()->Unit(benchmark::kMillisecond);
  }
  bench::add_provenance_context(argc, argv);
  int count = static_cast<int>(theirs.size());
  RatioReporter reporter(bench::benchmark_flag(count, theirs.data(), "format", "console"),
                         bench::benchmark_flag(count, theirs.data(), "color", "auto"));
  benchmark::Initialize(&count, theirs.data());
  if (benchmark::ReportUnrecognizedArguments(count, theirs.data())) return apps::kExitUsage;
  benchmark::RunSpecifiedBenchmarks(&reporter);
  benchmark::Shutdown();
  return apps::kExitSuccess;
}

}  // namespace

int main(int argc, char** argv) {
  apps::guard_program_exit(kProgram);
  return apps::run_guarded(kProgram, 0, [&] { return run(argc, argv); });
}
