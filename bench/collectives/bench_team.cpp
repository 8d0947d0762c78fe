// Team collectives, OSU-style inside Google Benchmark: each benchmark runs one measurement of `kIterations`
// collectives on p threads (warm-up first; a team barrier and every thread rewriting its own input before
// each iteration, both outside the timed region, so inputs are dirty in the producer's cache and caches do
// not flatter the result) and reports the mean over iterations of the average thread time as manual time,
// with the average of the per-iteration min and max over threads as counters. Compared with an OpenMP
// array reduction (reduction(+:a[:n])) timed the same way (its label: the CPUs its threads may use),
// and copy bandwidth (memcpy vs streaming).
// Threads: BENCH_THREADS (default: the machine's cores). Wait policy: PROXY_WAIT_POLICY (default
// spin-then-yield). --benchmark_min_time=T repeats a team benchmark's measurement until T seconds have
// passed and reports the mean over the measurements (without it: one measurement, as Google Benchmark's
// fixed Iterations(1) would); the reported time stays the time of one collective.
#include <benchmark/benchmark.h>
#include <omp.h>
#include <sched.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "apps/program_exit.hpp"
#include "proxy/config.hpp"
#include "proxy/copy.hpp"
#include "proxy/detail/counted.hpp"
#include "proxy/error.hpp"
#include "proxy/team.hpp"
#include "proxy/detail/timer.hpp"
#include "proxy/topology.hpp"

#include "benchmark_options.hpp"

namespace {

const proxy::Topology& topology() {
  static const proxy::Topology t;
  return t;
}

int team_threads() { return bench::threads_variable("BENCH_THREADS", std::max(2, topology().cores())); }

proxy::TeamConfig team_config() {
  proxy::TeamConfig config;
  if (const char* policy = std::getenv("PROXY_WAIT_POLICY")) config.wait_policy = proxy::parse_wait_policy(policy);
  config.last_level_cache_bytes = topology().last_level_cache_bytes();
  std::vector<int> cores(team_threads());  // thread t on core t (mod cores), as measure() binds them
  for (std::size_t t = 0; t < cores.size(); ++t) cores[t] = int(t) % std::max(1, topology().cores());
  config.levels = proxy::team_levels(topology(), cores);
  if (const char* model = std::getenv("PROXY_COLLECTIVE_MODEL"); model && *model)
    config.model = proxy::CollectiveModel::load(model);
  return config;
}

double g_min_time_s = 0.0;  // --benchmark_min_time, read in main()

int iterations_for(std::size_t bytes) {
  return static_cast<int>(std::clamp<std::size_t>((std::size_t{64} << 20) / std::max<std::size_t>(bytes, 1), 10, 2000));
}

struct Stats {
  double avg = 0, min = 0, max = 0;  // per iteration over threads, averaged over iterations
};

// Runs op(t, i) on p threads (thread t bound to core t), `warmup + iterations` times, dirty(t, i) and a
// barrier before each outside the timing.
template <class Op, class Dirty, class Barrier>
Stats measure(int p, int iterations, Op op, Dirty dirty, Barrier barrier) {
  const int warmup = 3, total = warmup + iterations;
  std::vector<std::vector<double>> elapsed(p, std::vector<double>(total));
  auto body = [&](int t) {
    topology().bind_this_thread(t);
    for (int i = 0; i < total; ++i) {
      dirty(t, i);
      barrier(t);
      const double start = proxy::now_seconds();
      op(t, i);
      elapsed[t][i] = proxy::now_seconds() - start;
    }
  };
  // Every measuring thread is a new one: binding the calling thread would confine the OpenMP threads it
  // creates later (OpenMPArrayReduction's, which inherit its binding) to one core.
  std::vector<std::thread> threads;
  for (int t = 0; t < p; ++t) threads.emplace_back(body, t);
  for (auto& thread : threads) thread.join();
  Stats s;
  for (int i = warmup; i < total; ++i) {
    double sum = 0, lo = 1e300, hi = 0;
    for (int t = 0; t < p; ++t) sum += elapsed[t][i], lo = std::min(lo, elapsed[t][i]), hi = std::max(hi, elapsed[t][i]);
    s.avg += sum / p, s.min += lo, s.max += hi;
  }
  s.avg /= iterations, s.min /= iterations, s.max /= iterations;
  return s;
}

// measure(...) repeated until g_min_time_s of wall time has passed (at least once); the mean of the
// measurements, and their number in `measurements`.
template <class Op, class Dirty, class Barrier>
Stats measure_for_min_time(int p, int iterations, Op op, Dirty dirty, Barrier barrier, int& measurements) {
  Stats sum;
  measurements = 0;
  const double start = proxy::now_seconds();
  do {
    const Stats s = measure(p, iterations, op, dirty, barrier);
    sum.avg += s.avg, sum.min += s.min, sum.max += s.max;
    ++measurements;
  } while (proxy::now_seconds() - start < g_min_time_s);
  sum.avg /= measurements, sum.min /= measurements, sum.max /= measurements;
  return sum;
}

void report(benchmark::State& state, const Stats& s, std::size_t bytes, int measurements = 1) {
  for (auto _ : state) state.SetIterationTime(s.avg);
  state.counters["measurements"] = measurements;
  state.counters["avg_us"] = s.avg * 1e6;
  state.counters["min_us"] = s.min * 1e6;
  state.counters["max_us"] = s.max * 1e6;
  state.counters["bytes"] = double(bytes);
  state.counters["threads"] = team_threads();
}

void TeamAllreduce(benchmark::State& state, proxy::AllreduceAlgorithm algorithm) {
  const std::size_t bytes = state.range(0), count = bytes / sizeof(double);
  const int p = team_threads();
  proxy::Team team(p, team_config());
  if (algorithm == proxy::AllreduceAlgorithm::automatic)
    state.SetLabel("model picks " + std::string(to_string(team.choose_allreduce(bytes))));
  std::vector<std::vector<double>> send(p, std::vector<double>(count)), recv = send;
  int measurements = 0;
  const auto s = measure_for_min_time(
      p, iterations_for(bytes),
      [&](int t, int) { team.allreduce(t, send[t].data(), recv[t].data(), count, proxy::ReduceOp::sum, algorithm); },
      [&](int t, int i) { std::fill(send[t].begin(), send[t].end(), double(i + t)); },
      [&](int t) { team.barrier(t); }, measurements);
  report(state, s, bytes, measurements);
}

void TeamBroadcast(benchmark::State& state, proxy::BroadcastAlgorithm algorithm) {
  const std::size_t bytes = state.range(0);
  const int p = team_threads();
  proxy::Team team(p, team_config());
  std::vector<std::vector<char>> buffer(p, std::vector<char>(bytes));
  int measurements = 0;
  const auto s = measure_for_min_time(
      p, iterations_for(bytes), [&](int t, int) { team.broadcast(t, buffer[t].data(), bytes, 0, algorithm); },
      [&](int t, int i) { std::fill(buffer[t].begin(), buffer[t].end(), char(i + t)); },
      [&](int t) { team.barrier(t); }, measurements);
  report(state, s, bytes, measurements);
}

// The CPUs p OpenMP threads may run on, together: all the process's unless a bound thread created the pool.
int openmp_cpus(int p) {
  cpu_set_t all;
  CPU_ZERO(&all);
#pragma omp parallel num_threads(p)
  {
    cpu_set_t mine;
    CPU_ZERO(&mine);
    if (sched_getaffinity(0, sizeof mine, &mine) == 0) {
#pragma omp critical
      CPU_OR(&all, &all, &mine);
    }
  }
  return CPU_COUNT(&all);
}

// reduction(+:out[:n]) over p threads' arrays: each thread adds its array into its private copy, the
// runtime combines the copies. Timed per iteration around the parallel region (fork/join included, as a
// user would see it); the input is rewritten outside the timed region.
void OpenMPArrayReduction(benchmark::State& state) {
  const std::size_t bytes = state.range(0), count = bytes / sizeof(double);
  if (bytes > (std::size_t{4} << 20)) {
    // libgomp keeps the private copies of an array-section reduction on each thread's stack: 16 MiB
    // overflows the main thread's 8 MiB stack (a crash, as MACHINE-NOTES records).
    state.SkipWithError("skipped: private reduction copies would overflow the 8 MiB main stack");
    return;
  }
  const int p = team_threads();
  std::vector<std::vector<double>> in(p, std::vector<double>(count));
  std::vector<double> out(count);
  double* result = out.data();
  const int iterations = iterations_for(bytes), warmup = 3;
  double total = 0;
  for (int i = 0; i < warmup + iterations; ++i) {
#pragma omp parallel num_threads(p)
    std::fill(in[omp_get_thread_num()].begin(), in[omp_get_thread_num()].end(), double(i));
    std::fill(out.begin(), out.end(), 0.0);
    const double start = proxy::now_seconds();
#pragma omp parallel num_threads(p) reduction(+ : result[:count])
    {
      const double* mine = in[omp_get_thread_num()].data();
      for (std::size_t k = 0; k < count; ++k) result[k] += mine[k];
    }
    if (i >= warmup) total += proxy::now_seconds() - start;
  }
  Stats s;
  s.avg = s.min = s.max = total / iterations;  // one timer around the region: no per-thread spread
  report(state, s, bytes);
  state.SetLabel("on " + proxy::detail::counted(openmp_cpus(p), "CPU"));  // a label: CSV output takes no extra counter
}

void Copy(benchmark::State& state, proxy::CopyKind kind) {
  const std::size_t bytes = state.range(0);
  // Rotate through buffers totalling >= 256 MiB so that no copy finds its source in the cache.
  const std::size_t buffers = std::max<std::size_t>(2, (std::size_t{256} << 20) / bytes);
  std::vector<std::unique_ptr<char[]>> source(buffers), destination(buffers);
  for (std::size_t b = 0; b < buffers; ++b) {
    source[b] = std::make_unique<char[]>(bytes);
    destination[b] = std::make_unique<char[]>(bytes);
    std::fill_n(source[b].get(), bytes, char(b));
    std::fill_n(destination[b].get(), bytes, char(0));
  }
  std::size_t next = 0;
  for (auto _ : state) {
    proxy::copy(destination[next].get(), source[next].get(), bytes, kind);
    benchmark::ClobberMemory();
    next = (next + 1) % buffers;
  }
  state.SetBytesProcessed(std::int64_t(state.iterations()) * std::int64_t(bytes));
  state.SetLabel(std::string(proxy::streaming_isa()));
}

void sizes(benchmark::internal::Benchmark* b) {
  for (std::size_t bytes = 8; bytes <= (std::size_t{16} << 20); bytes *= 8) b->Arg(static_cast<std::int64_t>(bytes));
  b->UseManualTime()->Iterations(1)->Unit(benchmark::kMicrosecond);
}

void copy_sizes(benchmark::internal::Benchmark* b) {
  for (std::size_t bytes = 4 << 10; bytes <= (std::size_t{64} << 20); bytes *= 4) b->Arg(static_cast<std::int64_t>(bytes));
  b->Unit(benchmark::kMicrosecond);
}

}  // namespace

BENCHMARK_CAPTURE(TeamAllreduce, tree_one_stage, proxy::AllreduceAlgorithm::tree_one_stage)->Apply(sizes);
BENCHMARK_CAPTURE(TeamAllreduce, tree_two_stage, proxy::AllreduceAlgorithm::tree_two_stage)->Apply(sizes);
BENCHMARK_CAPTURE(TeamAllreduce, dissemination, proxy::AllreduceAlgorithm::dissemination)->Apply(sizes);
BENCHMARK_CAPTURE(TeamAllreduce, tiled_one_stage, proxy::AllreduceAlgorithm::tiled_one_stage)->Apply(sizes);
BENCHMARK_CAPTURE(TeamAllreduce, tiled_two_stage, proxy::AllreduceAlgorithm::tiled_two_stage)->Apply(sizes);
BENCHMARK_CAPTURE(TeamAllreduce, model_choice, proxy::AllreduceAlgorithm::automatic)->Apply(sizes);
BENCHMARK_CAPTURE(TeamBroadcast, one_stage, proxy::BroadcastAlgorithm::one_stage)->Apply(sizes);
BENCHMARK_CAPTURE(TeamBroadcast, two_stage, proxy::BroadcastAlgorithm::two_stage)->Apply(sizes);
BENCHMARK_CAPTURE(TeamBroadcast, model_choice, proxy::BroadcastAlgorithm::automatic)->Apply(sizes);
BENCHMARK(OpenMPArrayReduction)->Apply(sizes);
BENCHMARK_CAPTURE(Copy, memcpy, proxy::CopyKind::memcpy)->Apply(copy_sizes);
BENCHMARK_CAPTURE(Copy, streaming, proxy::CopyKind::streaming)->Apply(copy_sizes);

// BENCHMARK_MAIN in the one vocabulary, with --benchmark_min_time (seconds) read first: Initialize consumes it.
int main(int argc, char** argv) {
  apps::guard_program_exit("bench_team");
  apps::Options options("bench_team", "Team allreduce/broadcast per algorithm and the model's choice, an OpenMP array\n"
                                      "reduction, and copy bandwidth (Google Benchmark, one process).");
  options.epilog("Threads: BENCH_THREADS (default: the machine's cores, at least 2; 1 to 4096).\n" +
                 std::string(bench::kBenchmarkFlagsHelp));
  std::vector<char*> theirs;
  // The settings every benchmark reads, checked before any runs (a bad PROXY_WAIT_POLICY or model file threw out
  // of a benchmark: std::terminate, exit 134).
  const auto check_settings = [] {
    try {
      proxy::validate_environment();
      team_config();
    } catch (const proxy::Error& error) {
      throw apps::UsageError(error.what());
    }
  };
  if (const auto stop = bench::parse_arguments(options, -1, argc, argv, theirs, MPI_COMM_NULL, check_settings))
    return *stop;
  const std::string min_time = bench::benchmark_flag(static_cast<int>(theirs.size()), theirs.data(), "min_time", "0");
  g_min_time_s = std::strtod(min_time.c_str(), nullptr);  // checked by parse_arguments
  if (!bench::initialize(-1, theirs)) return apps::kExitUsage;
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  return 0;
}
