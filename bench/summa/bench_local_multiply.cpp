// The multi-tier local multiply against OpenBLAS's own threading, on the same cores, in one run:
//   single_thread : one dgemm, OpenBLAS with 1 thread (the machine's per-core ceiling)
//   openblas_mt   : one dgemm, OpenBLAS with T threads (what a threaded BLAS gives)
//   tiles         : T OpenMP threads, each one single-threaded dgemm on its tile of C (what mt/proxy do)
// for a square product and for SUMMA panel shapes (m = n, k = panel width). After the runs it prints
// tiles / openblas_mt per shape; the target is >= 0.9. Benchmark args: m, n, k. T = the online cores, or
// SUMMA_BENCH_THREADS. Real time (UseRealTime), since the work runs on several threads. On a shared machine
// run with --benchmark_repetitions=5 --benchmark_enable_random_interleaving=true: ratios use the medians.
// --size N scales the shapes (N^3, N x N x N/8, N x N x N/16, N/2 x N/2 x N/16; default 2048). Google
// Benchmark flags pass through; with --benchmark_format=json or csv the ratio table goes to stderr.
#include <benchmark/benchmark.h>

#include <apps/common.hpp>
#include <omp.h>

#include <algorithm>
#include <cstdio>
#include <string_view>
#include <utility>
#include <cstdlib>
#include <map>
#include <string>
#include <vector>

#include "proxy/harness/memory.hpp"
#include "summa/blas_threads.hpp"
#include "summa/generator.hpp"
#include "summa/local_multiply.hpp"
#include "benchmark_options.hpp"  // add_provenance_context
#include "format_reporter.hpp"

namespace {

int bench_threads() { return bench::threads_variable("SUMMA_BENCH_THREADS", omp_get_num_procs()); }

struct Operands {
  int m, n, k;
  std::vector<double> a, b, c;
  Operands(int m_, int n_, int k_)
      : m(m_), n(n_), k(k_), a(static_cast<std::size_t>(m_) * k_), b(static_cast<std::size_t>(k_) * n_),
        c(static_cast<std::size_t>(m_) * n_, 0.0) {
    summa::fill_a(0, m, 0, k, a.data(), m);
    summa::fill_b(0, k, 0, n, b.data(), n);
  }
};

enum class Variant { single_thread, openblas_mt, tiles };

void run(benchmark::State& state, Variant variant) {
  Operands op(static_cast<int>(state.range(0)), static_cast<int>(state.range(1)), static_cast<int>(state.range(2)));
  const int threads = bench_threads();
  summa::ScopedBlasThreads blas(variant == Variant::openblas_mt ? threads : 1);
  for (auto _ : state) {
    if (variant == Variant::tiles)
      summa::multiply_add_threaded(threads, op.m, op.n, op.k, op.a.data(), op.m, op.b.data(), op.n, op.c.data(), op.m);
    else
      summa::multiply_add(op.m, op.n, op.k, op.a.data(), op.m, op.b.data(), op.n, op.c.data(), op.m);
    benchmark::ClobberMemory();
  }
  const double flops = 2.0 * op.m * op.n * op.k;
  state.counters["GFLOP/s"] = benchmark::Counter(flops * 1e-9, benchmark::Counter::kIsIterationInvariantRate);
  state.counters["threads"] = variant == Variant::single_thread ? 1 : threads;
}

// The shapes for order n; min_time 0.5 s unless --benchmark_min_time was given (it would lose to ours).
void register_shapes(long long n, bool min_time_given) {
  const long long half = std::max(1LL, n / 2), eighth = std::max(1LL, n / 8), sixteenth = std::max(1LL, n / 16);
  for (const auto& [name, variant] : {std::pair<const char*, Variant>{"run/single_thread", Variant::single_thread},
                                      {"run/openblas_mt", Variant::openblas_mt}, {"run/tiles", Variant::tiles}}) {
    auto* b = benchmark::RegisterBenchmark(name, [variant = variant](benchmark::State& state) { run(state, variant); });
    b->Args({n, n, n})->Args({n, n, eighth})->Args({n, n, sixteenth})->Args({half, half, sixteenth});
    b->UseRealTime()->Unit(benchmark::kMillisecond);
    if (!min_time_given) b->MinTime(0.5);
  }
}

// Keeps each run's GFLOP/s so that the ratio is printed from this one run.
class RatioReporter : public bench::FormatReporter {
 public:
  using FormatReporter::FormatReporter;
  void ReportRuns(const std::vector<Run>& runs) override {
    for (const Run& run : runs) {
      const std::string name = run.benchmark_name();  // "run/tiles/2048/2048/128/min_time:.../real_time"
      const auto first = name.find('/'), second = name.find('/', first + 1);
      const std::string variant = name.substr(first + 1, second - first - 1);
      std::string shape = name.substr(second + 1);
      shape = shape.substr(0, std::min(shape.find("/min_time"), shape.find("/real_time")));
      // With --benchmark_repetitions the median aggregate wins over the single repetitions.
      const bool median = run.run_type == Run::RT_Aggregate && run.aggregate_name == "median";
      if (run.run_type == Run::RT_Aggregate && !median) continue;
      const auto it = run.counters.find("GFLOP/s");
      if (it == run.counters.end()) continue;
      if (median || !has_median_[shape][variant]) gflops_[shape][variant] = it->second.value;
      if (median) has_median_[shape][variant] = true;
    }
    FormatReporter::ReportRuns(runs);
  }
  void Finalize() override {
    FormatReporter::Finalize();
    std::FILE* out = summary_stream();
    std::fprintf(out, "\nthreads x single-threaded tiles vs one %d-threaded OpenBLAS call (target >= 0.9):\n", bench_threads());
    for (const auto& [shape, by_variant] : gflops_) {
      const auto tiles = by_variant.find("tiles"), mt = by_variant.find("openblas_mt"),
                 single = by_variant.find("single_thread");
      if (tiles == by_variant.end() || mt == by_variant.end()) continue;
      std::fprintf(out, "  m/n/k %-16s tiles %7.1f GFLOP/s, openblas_mt %7.1f, ratio %.3f%s", shape.c_str(),
                  tiles->second, mt->second, tiles->second / mt->second, tiles->second / mt->second >= 0.9 ? "" : "  (below 0.9)");
      if (single != by_variant.end()) std::fprintf(out, "; single-thread ceiling %.1f GFLOP/s", single->second);
      std::fprintf(out, "\n");
    }
  }

 private:
  std::map<std::string, std::map<std::string, double>> gflops_;
  std::map<std::string, std::map<std::string, bool>> has_median_;
};

constexpr const char* kProgram = "bench_summa_local_multiply";

int run_program(int argc, char** argv) {
  apps::Options options(kProgram, "Threads x single-threaded dgemm tiles vs one multi-threaded OpenBLAS call.");
  options.option("size", "N", "matrix order of the largest shape, at least 16 (K suffix allowed)", "2048")
      .suffixes()
      .range(16, 1 << 15);
  options.epilog("Google Benchmark flags pass through: --benchmark_format=console|json|csv, --benchmark_out=FILE,\n"
                 "--benchmark_filter, --benchmark_min_time, --benchmark_repetitions, ...\n"
                 "Threads: SUMMA_BENCH_THREADS (default: the machine's cores; 1 to 4096).\n"
                 "With json or csv the ratio table goes to stderr, so stdout stays valid JSON/CSV.");
  std::vector<char*> ours, theirs;
  bench::split_arguments(argc, argv, ours, theirs);
  if (!options.parse(static_cast<int>(ours.size()), ours.data())) {
    std::fputs(options.answer().c_str(), stdout);
    return apps::kExitSuccess;
  }
  bench::check_benchmark_flags(theirs);
  bench_threads();  // SUMMA_BENCH_THREADS, checked before any benchmark (100000 crashed libgomp)
  const long long n = options.integer("size");
  if (options.show_config_requested()) {
    std::fputs(options.show_config().c_str(), stdout);
    return apps::kExitSuccess;
  }
  // Before measuring: the largest shape's A, B and C, n x n doubles each.
  proxy::harness::check_memory_here("--size " + options.value("size"), 3 * 8.0 * double(n) * double(n));
  bench::add_provenance_context(argc, argv);
  int count = static_cast<int>(theirs.size());
  register_shapes(n, bench::benchmark_flag(count, theirs.data(), "min_time", "") != "");
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
  return apps::run_guarded(kProgram, 0, [&] { return run_program(argc, argv); });
}
