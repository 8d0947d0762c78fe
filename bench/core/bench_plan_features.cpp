// Plan features on 2 ranks (docs/api.md quotes the figures):
//  - panel broadcast (SUMMA's step: one broadcast along a 2-rank row, one down a 1-rank column) through a
//    committed plan (persistent collectives) vs through a closure submitted per panel (MPI_Ibcast x2);
//  - a 4-part early-bird exchange: MPI-4 partitioned communication (MPI_Psend_init/MPI_Pready, from the
//    compute thread) vs per-part persistent sends (what the proxy's readiness counters start), and
//    through a plan with parts marked by ready().
// Each iteration timed with MPI_Wtime; the mean of the per-iteration maxima over the ranks is `max_rank_us`.
// Run: mpiexec -n 2 build/bin/bench_plan_features
#include <benchmark/benchmark.h>
#include <mpi.h>

#include <functional>
#include <vector>

#include "apps/program_exit.hpp"
#include "proxy/core.hpp"
#include "progress_watchdog.hpp"
#include "two_rank_benchmark.hpp"

namespace {

proxy::Environment* environment = nullptr;
constexpr int kIterations = 3000;
constexpr int kParts = 4;

int peer() { return environment->rank() ^ 1; }

// The proxy, bound as the placement says, and a timed loop of `step`; reductions go through the proxy.
void through_proxy(benchmark::State& state, const std::function<std::function<void()>(proxy::ProxyThread&)>& make_step) {
  const proxy::Placement placement = environment->placement(1, true);
  environment->topology().bind_this_thread(placement.compute_cores.front());
  proxy::ProxyThread proxy(MPI_COMM_WORLD, placement);
  const std::function<void()> step = make_step(proxy);
  std::vector<double> times;
  times.reserve(kIterations);
  proxy.call([&] { MPI_Barrier(proxy.comm()); });
  for (auto _ : state) {
    const double t0 = MPI_Wtime();
    step();
    times.push_back(MPI_Wtime() - t0);
    bench::progress();
  }
  bench::report_slowest_rank(state, times, [&](const double* in, double* out, int n) {
    proxy.call([&] { MPI_Allreduce(in, out, n, MPI_DOUBLE, MPI_MAX, proxy.comm()); });
  });
}

void BM_PanelBroadcastClosure(benchmark::State& state) {
  bench::phase("BM_PanelBroadcastClosure");
  const int count = static_cast<int>(state.range(0));
  std::vector<double> a(static_cast<std::size_t>(count)), b(static_cast<std::size_t>(count));
  through_proxy(state, [&](proxy::ProxyThread& proxy) -> std::function<void()> {
    return [&proxy, &a, &b, count] {
      double* pa = a.data();
      double* pb = b.data();
      proxy.wait(proxy.submit([=](proxy::ClosureContext& context) {
        MPI_Request request = MPI_REQUEST_NULL;
        MPI_Ibcast(pa, count, MPI_DOUBLE, 0, MPI_COMM_WORLD, &request);
        context.track(request);
        MPI_Ibcast(pb, count, MPI_DOUBLE, 0, MPI_COMM_SELF, &request);
        context.track(request);
      }));
    };
  });
  state.SetLabel("closure per panel: MPI_Ibcast x2");
}

void BM_PanelBroadcastPlan(benchmark::State& state) {
  bench::phase("BM_PanelBroadcastPlan");
  const int count = static_cast<int>(state.range(0));
  std::vector<double> a(static_cast<std::size_t>(count)), b(static_cast<std::size_t>(count));
  proxy::Plan plan;
  through_proxy(state, [&](proxy::ProxyThread& proxy) -> std::function<void()> {
    plan = proxy.commit(proxy::PlanSpec("panel")
                            .broadcast(MPI_COMM_WORLD, 0, a.data(), count, MPI_DOUBLE)
                            .broadcast(MPI_COMM_SELF, 0, b.data(), count, MPI_DOUBLE));
    return [&proxy, &plan] { proxy.wait(proxy.start(plan)); };
  });
  plan = proxy::Plan();
  state.SetLabel(proxy::persistent_collectives_available() ? "plan: persistent MPI_Bcast_init x2"
                                                           : "plan: MPI_Ibcast x2 (no persistent collectives)");
}

void BM_PartsMpiPartitioned(benchmark::State& state) {
  bench::phase("BM_PartsMpiPartitioned");
#if MPI_VERSION >= 4
  const int count = static_cast<int>(state.range(0));  // doubles per part
  std::vector<double> out(static_cast<std::size_t>(count * kParts)), in(out.size());
  MPI_Request send = MPI_REQUEST_NULL, recv = MPI_REQUEST_NULL;
  MPI_Psend_init(out.data(), kParts, count, MPI_DOUBLE, peer(), 0, MPI_COMM_WORLD, MPI_INFO_NULL, &send);
  MPI_Precv_init(in.data(), kParts, count, MPI_DOUBLE, peer(), 0, MPI_COMM_WORLD, MPI_INFO_NULL, &recv);
  std::vector<double> times;
  times.reserve(kIterations);
  MPI_Barrier(MPI_COMM_WORLD);
  for (auto _ : state) {
    const double t0 = MPI_Wtime();
    MPI_Start(&recv);
    MPI_Start(&send);
    for (int p = 0; p < kParts; ++p) MPI_Pready(p, send);
    MPI_Wait(&send, MPI_STATUS_IGNORE);
    MPI_Wait(&recv, MPI_STATUS_IGNORE);
    times.push_back(MPI_Wtime() - t0);
    bench::progress();
  }
  MPI_Request_free(&send);
  MPI_Request_free(&recv);
  bench::report_slowest_rank(state, times, [](const double* in_, double* out_, int n) { MPI_Allreduce(in_, out_, n, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD); });
  state.SetLabel("MPI_Psend_init/MPI_Pready, 4 parts, compute thread");
#else
  state.SkipWithError("no MPI-4 partitioned communication");
#endif
}

void BM_PartsPersistentPerPart(benchmark::State& state) {
  bench::phase("BM_PartsPersistentPerPart");
  const int count = static_cast<int>(state.range(0));
  std::vector<double> out(static_cast<std::size_t>(count * kParts)), in(out.size());
  std::vector<MPI_Request> requests(2 * kParts);
  for (int p = 0; p < kParts; ++p) {
    MPI_Send_init(&out[static_cast<std::size_t>(p * count)], count, MPI_DOUBLE, peer(), p, MPI_COMM_WORLD, &requests[p]);
    MPI_Recv_init(&in[static_cast<std::size_t>(p * count)], count, MPI_DOUBLE, peer(), p, MPI_COMM_WORLD, &requests[kParts + p]);
  }
  std::vector<double> times;
  times.reserve(kIterations);
  MPI_Barrier(MPI_COMM_WORLD);
  for (auto _ : state) {
    const double t0 = MPI_Wtime();
    MPI_Startall(kParts, &requests[kParts]);
    for (int p = 0; p < kParts; ++p) MPI_Start(&requests[p]);  // one start per part, as its part is ready
    MPI_Waitall(2 * kParts, requests.data(), MPI_STATUSES_IGNORE);
    times.push_back(MPI_Wtime() - t0);
    bench::progress();
  }
  for (auto& r : requests) MPI_Request_free(&r);
  bench::report_slowest_rank(state, times, [](const double* in_, double* out_, int n) { MPI_Allreduce(in_, out_, n, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD); });
  state.SetLabel("MPI_Send_init per part (what the readiness counters start), compute thread");
}

void BM_PartsPlanReady(benchmark::State& state) {
  bench::phase("BM_PartsPlanReady");
  const int count = static_cast<int>(state.range(0));
  std::vector<double> out(static_cast<std::size_t>(count * kParts)), in(out.size());
  proxy::Plan plan;
  through_proxy(state, [&](proxy::ProxyThread& proxy) -> std::function<void()> {
    proxy::PlanSpec spec("parts");
    spec.parts(kParts);
    for (int p = 0; p < kParts; ++p) {
      spec.send_when_ready({p}, peer(), p, &out[static_cast<std::size_t>(p * count)], count, MPI_DOUBLE);
      spec.recv(peer(), p, &in[static_cast<std::size_t>(p * count)], count, MPI_DOUBLE);
    }
    plan = proxy.commit(spec);
    return [&proxy, &plan] {
      const proxy::Ticket ticket = proxy.start(plan);
      for (int p = 0; p < kParts; ++p) proxy.ready(ticket, p);
      proxy.wait(ticket);
    };
  });
  plan = proxy::Plan();
  state.SetLabel("plan with 4 parts, ready() per part, through the proxy");
}

}  // namespace

BENCHMARK(BM_PanelBroadcastClosure)->ArgName("doubles")->Arg(1)->Arg(8192)->Iterations(kIterations)->UseRealTime();
BENCHMARK(BM_PanelBroadcastPlan)->ArgName("doubles")->Arg(1)->Arg(8192)->Iterations(kIterations)->UseRealTime();
BENCHMARK(BM_PartsMpiPartitioned)->ArgName("doubles_per_part")->Arg(1)->Arg(2048)->Iterations(kIterations)->UseRealTime();
BENCHMARK(BM_PartsPersistentPerPart)->ArgName("doubles_per_part")->Arg(1)->Arg(2048)->Iterations(kIterations)->UseRealTime();
BENCHMARK(BM_PartsPlanReady)->ArgName("doubles_per_part")->Arg(1)->Arg(2048)->Iterations(kIterations)->UseRealTime();

int main(int argc, char** argv) try {
  apps::guard_program_exit("bench_plan_features");
  proxy::Environment env(argc, argv);
  environment = &env;
  apps::Options options("bench_plan_features", "Plan features on 2 ranks: a panel broadcast as a plan vs a closure, and partitioned\n"
                                "readiness vs MPI_Psend_init (Google Benchmark).");
  return bench::run_on_two_ranks(options, env, argc, argv);
} catch (const proxy::SettingsError& refused) {  // every rank; one of them says why
  return refused.exit_status();
}
