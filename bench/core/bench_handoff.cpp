// Hand-off latency: a compute thread posts an operation, the proxy dequeues it, starts it, finds it
// complete, and publishes the completion that the compute thread then observes: one round trip through
// the request queue and the completion counter. Both threads are pinned (compute on core 0, proxy on
// core 1 when the machine has two). Reported as ns per round trip, per wait policy, beside a bare
// MpscQueue ping-pong between the same two cores (the floor: two cache-line transfers each way).
// Run on one rank: build/bin/bench_handoff
#include <benchmark/benchmark.h>
#include <mpi.h>

#include <atomic>
#include <thread>

#include "proxy/detail/notifier.hpp"
#include "proxy/detail/queue.hpp"
#include "proxy/core.hpp"

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

int main(int argc, char** argv) try {
  proxy::Environment env(argc, argv);
  benchmark::Initialize(&argc, argv);
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  return 0;
} catch (const proxy::SettingsError& refused) {  // every rank; one of them says why
  return refused.report();
}
