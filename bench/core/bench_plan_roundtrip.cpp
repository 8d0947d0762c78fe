// Plan round trip on 2 ranks: each rank exchanges a halo of `bytes` with the other, either through the
// proxy (start + wait on a committed plan) or directly from the compute thread (MPI_Isend/Irecv/Waitall,
// or the persistent requests a plan uses, MPI_Startall and MPI_Testall), always on the same core.
// Iteration counts are fixed so both ranks run in lockstep. Every iteration is timed with MPI_Wtime on
// both ranks; after the loop the per-iteration maxima over the ranks are averaged into `max_rank_us`
// (one reduction at the end, so that no reduction runs inside the timed loop). Only rank 0 prints.
// BM_ProxyOverDirect takes the ratio in one run: blocks of the proxy's round trips and of the direct
// persistent ones, alternated, so that both see the same host; its `proxy_over_direct` is the median of
// the blocks' ratios (the figure issue 21's goal is stated in); BM_ProxyOverDirectSelf the same with each rank
// exchanging with itself (the runtime's own cost per round trip).
// Run: mpiexec -n 2 build/bin/bench_plan_roundtrip
#include <benchmark/benchmark.h>
#include <mpi.h>

#include <algorithm>
#include <functional>
#include <vector>

#include "apps/program_exit.hpp"
#include "proxy/core.hpp"
#include "progress_watchdog.hpp"
#include "two_rank_benchmark.hpp"

namespace {

proxy::Environment* environment = nullptr;
constexpr int kIterations = 100000;

int peer() { return environment->rank() ^ 1; }

// Every variant's compute thread on the same core (BM_Proxy's placement): they differ only in who calls MPI.
void bind_like_the_proxy_benchmark() {
  environment->topology().bind_this_thread(environment->placement(1, true).compute_cores.front());
}

// What the direct variants report: the slowest rank's mean (reduced by this thread, which calls MPI), the
// bytes both ranks sent, and what was timed.
void report_direct(benchmark::State& state, const std::vector<double>& times, const char* label) {
  bench::report_slowest_rank(state, times, [](const double* in_, double* out_, int n) {
    MPI_Allreduce(in_, out_, n, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
  });
  state.SetBytesProcessed(static_cast<int64_t>(state.iterations()) * state.range(0) * 2);
  state.SetLabel(label);
}

void BM_Direct(benchmark::State& state) {
  bench::phase("BM_Direct");
  const int bytes = static_cast<int>(state.range(0));
  std::vector<char> out(static_cast<std::size_t>(bytes), 1), in(static_cast<std::size_t>(bytes));
  bind_like_the_proxy_benchmark();
  std::vector<double> times;
  times.reserve(kIterations);
  MPI_Barrier(MPI_COMM_WORLD);
  for (auto _ : state) {
    const double t0 = MPI_Wtime();
    MPI_Request r[2];
    MPI_Irecv(in.data(), bytes, MPI_BYTE, peer(), 0, MPI_COMM_WORLD, &r[0]);
    MPI_Isend(out.data(), bytes, MPI_BYTE, peer(), 0, MPI_COMM_WORLD, &r[1]);
    MPI_Waitall(2, r, MPI_STATUSES_IGNORE);
    times.push_back(MPI_Wtime() - t0);
    bench::progress();
  }
  report_direct(state, times, "Isend/Irecv/Waitall from the compute thread");
}

// The requests a plan uses, made once with MPI_Recv_init/MPI_Send_init; round_trip() starts them and tests
// them until both are done, from the calling thread.
class PersistentExchange {
 public:
  PersistentExchange(std::vector<char>& in, std::vector<char>& out, int tag, int partner = peer()) {
    MPI_Recv_init(in.data(), static_cast<int>(in.size()), MPI_BYTE, partner, tag, MPI_COMM_WORLD, &requests_[0]);
    MPI_Send_init(out.data(), static_cast<int>(out.size()), MPI_BYTE, partner, tag, MPI_COMM_WORLD, &requests_[1]);
  }
  ~PersistentExchange() {
    MPI_Request_free(&requests_[0]);
    MPI_Request_free(&requests_[1]);
  }
  PersistentExchange(const PersistentExchange&) = delete;
  PersistentExchange& operator=(const PersistentExchange&) = delete;
  void round_trip() {
    MPI_Startall(2, requests_);
    int done = 0;
    while (!done) MPI_Testall(2, requests_, &done, MPI_STATUSES_IGNORE);
  }

 private:
  MPI_Request requests_[2];
};

// What a plan starts: the same persistent requests, started and tested by the compute thread itself.
void BM_DirectPersistent(benchmark::State& state) {
  bench::phase("BM_DirectPersistent");
  const int bytes = static_cast<int>(state.range(0));
  std::vector<char> out(static_cast<std::size_t>(bytes), 1), in(static_cast<std::size_t>(bytes));
  bind_like_the_proxy_benchmark();
  std::vector<double> times;
  times.reserve(kIterations);
  PersistentExchange exchange(in, out, 0);
  MPI_Barrier(MPI_COMM_WORLD);
  for (auto _ : state) {
    const double t0 = MPI_Wtime();
    exchange.round_trip();
    times.push_back(MPI_Wtime() - t0);
    bench::progress();
  }
  report_direct(state, times, "Recv_init/Send_init once, Startall and a Testall loop from the compute thread");
}

void BM_Proxy(benchmark::State& state) {
  bench::phase("BM_Proxy");
  const int bytes = static_cast<int>(state.range(0));
  std::vector<char> out(static_cast<std::size_t>(bytes), 1), in(static_cast<std::size_t>(bytes));
  const proxy::Placement placement = environment->placement(1, true);
  environment->topology().bind_this_thread(placement.compute_cores.front());
  proxy::ProxyThread proxy(MPI_COMM_WORLD, placement);
  proxy::PlanSpec spec("halo");
  spec.recv(peer(), 0, in.data(), bytes, MPI_BYTE).send(peer(), 0, out.data(), bytes, MPI_BYTE);
  proxy::Plan plan = proxy.commit(spec);
  std::vector<double> times;
  times.reserve(kIterations);
  proxy.call([&] { MPI_Barrier(proxy.comm()); });
  for (auto _ : state) {
    const double t0 = MPI_Wtime();
    proxy.wait(proxy.start(plan));
    times.push_back(MPI_Wtime() - t0);
    bench::progress();
  }
  bench::report_slowest_rank(state, times, [&](const double* in_, double* out_, int n) {
    proxy.call([&] { MPI_Allreduce(in_, out_, n, MPI_DOUBLE, MPI_MAX, proxy.comm()); });
  });
  state.SetBytesProcessed(static_cast<int64_t>(state.iterations()) * state.range(0) * 2);
  state.SetLabel("start+wait through the proxy (" + std::string(to_string(proxy.progress_strategy())) +
                 " progress); " + placement.describe());
}

// Alternated blocks: kBlock round trips through a proxy, then kBlock direct persistent ones, one pair per
// iteration. Each block's time is the slower rank's. A ProxyThread lives for its block only (it is built and
// committed before the clock starts, destroyed after it stops), so that the direct block's MPI calls come
// from the thread that owns MPI, as the thread contract asks (MPI_THREAD_SERIALIZED). partner: the other
// rank, or this one (BM_ProxyOverDirectSelf: every message is there at once, so the difference is the
// runtime's own work per start and wait, with no wait for a peer to blur it).
void proxy_over_direct(benchmark::State& state, int partner) {
  constexpr int kBlock = 1000;
  const int bytes = static_cast<int>(state.range(0));
  std::vector<char> out(static_cast<std::size_t>(bytes), 1), in(static_cast<std::size_t>(bytes));
  const proxy::Placement placement = environment->placement(1, true);
  environment->topology().bind_this_thread(placement.compute_cores.front());
  PersistentExchange exchange(in, out, 1, partner);  // its own tag: the proxy's communicator is a duplicate anyway
  std::vector<double> times;  // per pair: the proxy block's seconds, then the direct block's
  times.reserve(2 * static_cast<std::size_t>(state.max_iterations));
  std::string strategy;
  for (auto _ : state) {
    {
      proxy::ProxyThread proxy(MPI_COMM_WORLD, placement);
      proxy::PlanSpec spec("halo");
      spec.recv(partner, 0, in.data(), bytes, MPI_BYTE).send(partner, 0, out.data(), bytes, MPI_BYTE);
      proxy::Plan plan = proxy.commit(spec);
      strategy = to_string(proxy.progress_strategy());
      proxy.call([&] { MPI_Barrier(proxy.comm()); });
      const double t0 = MPI_Wtime();
      for (int i = 0; i < kBlock; ++i) proxy.wait(proxy.start(plan));
      times.push_back(MPI_Wtime() - t0);
      bench::progress();
    }
    MPI_Barrier(MPI_COMM_WORLD);
    const double t0 = MPI_Wtime();
    for (int i = 0; i < kBlock; ++i) exchange.round_trip();
    times.push_back(MPI_Wtime() - t0);
    bench::progress();
  }
  std::vector<double> slowest(times.size());
  MPI_Allreduce(times.data(), slowest.data(), static_cast<int>(times.size()), MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
  std::vector<double> ratios, proxy_ns, direct_ns;
  for (std::size_t i = 0; i + 1 < slowest.size(); i += 2) {
    ratios.push_back(slowest[i] / slowest[i + 1]);
    proxy_ns.push_back(slowest[i] / kBlock * 1e9);
    direct_ns.push_back(slowest[i + 1] / kBlock * 1e9);
  }
  const auto median = [](std::vector<double> v) {
    std::nth_element(v.begin(), v.begin() + static_cast<std::ptrdiff_t>(v.size() / 2), v.end());
    return v[v.size() / 2];
  };
  state.counters["proxy_over_direct"] = median(ratios);
  state.counters["proxy_ns"] = median(proxy_ns);
  state.counters["direct_ns"] = median(direct_ns);
  state.SetLabel("medians over " + std::to_string(ratios.size()) + " alternated blocks of " + std::to_string(kBlock) +
                 (partner == peer() ? " round trips" : " exchanges with itself") + ": the proxy (" + strategy +
                 " progress) / direct persistent, same core");
}

void BM_ProxyOverDirect(benchmark::State& state) {
  bench::phase("BM_ProxyOverDirect");
  proxy_over_direct(state, peer());
}
void BM_ProxyOverDirectSelf(benchmark::State& state) {
  bench::phase("BM_ProxyOverDirectSelf");
  proxy_over_direct(state, environment->rank());
}

}  // namespace

BENCHMARK(BM_Direct)->ArgName("bytes")->Arg(8)->Arg(64 << 10)->Iterations(kIterations)->UseRealTime();
BENCHMARK(BM_DirectPersistent)->ArgName("bytes")->Arg(8)->Arg(64 << 10)->Iterations(kIterations)->UseRealTime();
BENCHMARK(BM_Proxy)->ArgName("bytes")->Arg(8)->Arg(64 << 10)->Iterations(kIterations)->UseRealTime();
BENCHMARK(BM_ProxyOverDirect)->ArgName("bytes")->Arg(8)->Arg(64 << 10)->Iterations(50)->UseRealTime();
BENCHMARK(BM_ProxyOverDirectSelf)->ArgName("bytes")->Arg(8)->Iterations(50)->UseRealTime();

int main(int argc, char** argv) try {
  apps::guard_program_exit("bench_plan_roundtrip");
  proxy::Environment env(argc, argv);
  environment = &env;
  apps::Options options("bench_plan_roundtrip", "A persistent plan's round trip through the proxy vs the same exchange by direct MPI\n"
                                "on 2 ranks (Google Benchmark).");
  return bench::run_on_two_ranks(options, env, argc, argv);
} catch (const proxy::SettingsError& refused) {  // every rank; one of them says why
  return refused.exit_status();
}
