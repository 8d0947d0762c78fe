// Hand-off latency: a compute thread posts an operation, the proxy dequeues it, starts it, finds it
// complete, and publishes the completion that the compute thread then observes: one round trip through
// the request queue and the completion counter. Both threads are pinned (compute on core 0, proxy on
// core 1 when the machine has two). Reported as ns per round trip, per wait policy, beside a bare
// MpscQueue ping-pong between the same two cores (the floor: two cache-line transfers each way).
// BM_QuietThenRoundTrip compares the progress strategies on a core of the proxy's own when communication
// comes in phases: each round trip follows a 1 ms quiet spell (not timed), so it shows what a start costs
// after a pause (a sleeping polling proxy must be woken), and cpu_per_wall is the process's CPU time over
// the whole loop, quiet spells included, per second of wall time (a spinning proxy keeps its core: ~1).
// Run on one rank: build/bin/bench_handoff
#include <benchmark/benchmark.h>
#include <mpi.h>

#include <sys/resource.h>

#include <atomic>
#include <chrono>
#include <string>
#include <thread>
#include <vector>

#include "apps/program_exit.hpp"
#include "proxy/detail/notifier.hpp"
#include "proxy/detail/queue.hpp"
#include "proxy/core.hpp"

#include "benchmark_options.hpp"

namespace {

proxy::Topology& topology() {
  static proxy::Topology t;
  return t;
}
int proxy_core() { return topology().cores() > 1 ? 1 : 0; }

// Completes as soon as it starts: isolates the hand-off from any MPI work.
class NoOp final : public proxy::Operation {
 public:
  NoOp() : Operation("noop") {}
  void start(std::uint64_t) override {}
  bool progress() override { return true; }
};

void BM_ProxyRoundTrip(benchmark::State& state) {
  proxy::Config config;
  config.wait_policy = static_cast<proxy::WaitPolicy>(state.range(0));
  topology().bind_this_thread(0);
  proxy::ProxyThread proxy(MPI_COMM_SELF, config, proxy_core());
  auto op = std::make_shared<NoOp>();
  proxy.wait(proxy.post(op));  // warm-up: the proxy thread is running and bound
  for (auto _ : state) proxy.wait(proxy.post(op));
  // The Time column is the round trip: post + proxy dequeue/start/complete + observed completion.
  state.SetLabel(std::string(proxy::to_string(config.wait_policy)) + ", proxy on core " +
                 std::to_string(proxy.bound_core()));
}

double process_cpu_seconds() {
  rusage usage{};
  getrusage(RUSAGE_SELF, &usage);
  return static_cast<double>(usage.ru_utime.tv_sec + usage.ru_stime.tv_sec) +
         1e-6 * static_cast<double>(usage.ru_utime.tv_usec + usage.ru_stime.tv_usec);
}

void BM_QuietThenRoundTrip(benchmark::State& state) {
  proxy::Config config;
  config.progress = static_cast<proxy::ProgressStrategy>(state.range(0));
  topology().bind_this_thread(0);
  proxy::ProxyThread proxy(MPI_COMM_SELF, config, proxy_core());
  auto op = std::make_shared<NoOp>();
  proxy.wait(proxy.post(op));
  const double cpu_before = process_cpu_seconds();
  const auto wall_before = std::chrono::steady_clock::now();
  for (auto _ : state) {
    state.PauseTiming();
    std::this_thread::sleep_for(std::chrono::milliseconds(1));  // the compute phase: no communication
    state.ResumeTiming();
    proxy.wait(proxy.post(op));
  }
  const double wall = std::chrono::duration<double>(std::chrono::steady_clock::now() - wall_before).count();
  state.counters["cpu_per_wall"] = (process_cpu_seconds() - cpu_before) / wall;
  state.SetLabel(std::string(proxy::to_string(proxy.progress_strategy())) + ", proxy on core " +
                 std::to_string(proxy.bound_core()));
}

void BM_QueuePingPong(benchmark::State& state) {
  proxy::MpscQueue<std::uint64_t> to_echo(64), back(64);
  std::atomic<bool> stop{false};
  std::thread echo([&] {
    topology().bind_this_thread(proxy_core());
    std::uint64_t v;
    while (!stop.load(std::memory_order_relaxed))
      if (to_echo.try_pop(v))
        while (!back.try_push(v)) proxy::cpu_relax();
  });
  topology().bind_this_thread(0);
  std::uint64_t i = 0, v = 0;
  for (auto _ : state) {
    while (!to_echo.try_push(++i)) proxy::cpu_relax();
    while (!back.try_pop(v)) proxy::cpu_relax();
  }
  stop.store(true);
  echo.join();
  benchmark::DoNotOptimize(v);
}

}  // namespace

BENCHMARK(BM_QueuePingPong)->UseRealTime();
BENCHMARK(BM_ProxyRoundTrip)
    ->ArgName("policy")
    ->Arg(static_cast<int>(proxy::WaitPolicy::spin))
    ->Arg(static_cast<int>(proxy::WaitPolicy::spin_then_yield))
    ->Arg(static_cast<int>(proxy::WaitPolicy::block))
    ->UseRealTime();
BENCHMARK(BM_QuietThenRoundTrip)
    ->ArgName("strategy")
    ->Arg(static_cast<int>(proxy::ProgressStrategy::dedicated))
    ->Arg(static_cast<int>(proxy::ProgressStrategy::polling))
    ->Arg(static_cast<int>(proxy::ProgressStrategy::cooperative))
    ->Iterations(500)
    ->UseRealTime();

int main(int argc, char** argv) try {
  apps::guard_program_exit("bench_handoff");
  apps::Options options("bench_handoff", "Proxy hand-off latency per wait policy and progress strategy, beside a bare queue\n"
                                         "ping-pong between the same two cores (Google Benchmark, one rank).");
  options.epilog(std::string(bench::kBenchmarkFlagsHelp));
  std::vector<char*> theirs;
  if (const auto stop = bench::parse_arguments(options, -1, argc, argv, theirs)) return *stop;
  proxy::Environment env(argc, argv);
  if (!bench::initialize(env.rank(), theirs)) return apps::kExitUsage;
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  return 0;
} catch (const proxy::SettingsError& refused) {  // every rank; one of them says why
  return refused.exit_status();
}
