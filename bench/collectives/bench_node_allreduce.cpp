// bench_node_allreduce: the hierarchical allreduce in its two forms, the call (proxy::NodeCollectives: team
// reduce, the proxy's allreduce among the ranks, team broadcast) and the plan element (the proxy adds the
// threads' vectors into the result, the waiting threads taking strips of large ones, then a persistent
// allreduce in place among the ranks), against what hybrid MPI+OpenMP codes write today: the threads sum
// their vectors into a shared one (an OpenMP worksharing loop over elements), the master calls
// MPI_Allreduce, and a barrier releases the team. The last column counts the plan form's strips that
// waiting threads ran, of all its strips (warm-up included). The same T threads per rank, the same vector
// of doubles per thread, the same result on every thread of every rank (checked), one parallel region for
// all the iterations of each form (no fork/join timed). Per iteration: a team barrier, the master's clock, the
// allreduce, a team barrier, the clock; the figure is the mean over iterations of the slowest rank's time.
// Run under mpiexec with any number of ranks; table on stdout from rank 0.
//   mpiexec -n 2 build/bin/bench_node_allreduce --threads 1
//   mpiexec -n 1 build/bin/bench_node_allreduce --threads 2
#include <omp.h>

#include <algorithm>
#include <cctype>
#include <cstdio>
#include <functional>
#include <iostream>
#include <optional>
#include <string>
#include <vector>

#include "apps/common.hpp"
#include "proxy/detail/counted.hpp"
#include "proxy/harness/memory.hpp"
#include "proxy/harness/session.hpp"
#include "proxy/proxy.hpp"
#include "progress_watchdog.hpp"
#include "slowest_rank.hpp"

namespace {

constexpr const char* kProgram = "bench_node_allreduce";

int iterations_for(std::size_t bytes) {
  return static_cast<int>(std::clamp<std::size_t>((std::size_t{16} << 20) / std::max<std::size_t>(bytes, 1), 20, 2000));
}

// Thread t of rank r contributes r * threads + t + 1 in every element: the sum is exact in doubles.
double contribution(int rank, int threads, int t) { return rank * threads + t + 1.0; }

struct Result {
  double mean_us = 0.0;  // slowest rank's mean per iteration
  bool correct = true;
  std::string strips = "-";  // plan form: strips of the thread-level phase run by waiting threads / all
};

// Runs `iterations` of one(t) inside one parallel region, timed by the master between team barriers; one(t)
// must leave the sum in out[t]. Returns this rank's per-iteration times.
template <class One>
std::vector<double> timed_loop(int threads, int iterations, std::vector<std::vector<double>>& in, One&& one) {
  std::vector<double> times(static_cast<std::size_t>(iterations));
#pragma omp parallel num_threads(threads)
  {
    const int t = omp_get_thread_num();
    for (int i = -2; i < iterations; ++i) {  // two warm-up iterations
      std::fill(in[t].begin(), in[t].end(), in[t].front());  // dirty: the input is rewritten every time
      double start = 0.0;
#pragma omp barrier
#pragma omp master
      start = MPI_Wtime();
      one(t);
#pragma omp barrier
#pragma omp master
      {
        if (i >= 0) times[static_cast<std::size_t>(i)] = MPI_Wtime() - start;
        bench::progress();
      }
    }
  }
  return times;
}

bool all_equal(const std::vector<std::vector<double>>& out, double expected) {
  for (const auto& v : out)
    for (double x : v)
      if (x != expected) return false;
  return true;
}

// Today's hybrid code: OpenMP sums the threads' vectors, the master calls MPI_Allreduce, a barrier.
Result hybrid_today(const proxy::Environment& env, int threads, std::size_t count, int iterations) {
  std::vector<std::vector<double>> in(threads), out(threads, std::vector<double>(count));
  for (int t = 0; t < threads; ++t) in[t].assign(count, contribution(env.rank(), threads, t));
  std::vector<double> shared(count);
  proxy::harness::bind_compute_threads(env, proxy::harness::placement_for(env, proxy::harness::Mode::mt, threads));
  const auto times = timed_loop(threads, iterations, in, [&](int t) {
#pragma omp for schedule(static)
    for (std::size_t k = 0; k < count; ++k) {
      double sum = 0.0;
      for (int u = 0; u < threads; ++u) sum += in[u][k];
      shared[k] = sum;
    }  // implicit barrier
#pragma omp master
    MPI_Allreduce(MPI_IN_PLACE, shared.data(), static_cast<int>(count), MPI_DOUBLE, MPI_SUM, env.world());
#pragma omp barrier
    std::copy(shared.begin(), shared.end(), out[t].begin());
  });
  const double ranks_threads = static_cast<double>(env.size()) * threads;
  Result result;
  result.correct = all_equal(out, ranks_threads * (ranks_threads + 1.0) / 2.0);
  result.mean_us = bench::mean_of_slowest_us(times, [&](const double* in, double* out, int n) {
    MPI_Allreduce(in, out, n, MPI_DOUBLE, MPI_MAX, env.world());
  });
  return result;
}

// The runtime's node collective: team reduce, the proxy's inter-node phase, team broadcast.
Result node_collectives(const proxy::Environment& env, int threads, std::size_t count, int iterations,
                        std::string& placement) {
  std::vector<std::vector<double>> in(threads), out(threads, std::vector<double>(count));
  for (int t = 0; t < threads; ++t) in[t].assign(count, contribution(env.rank(), threads, t));
  const proxy::Placement where = proxy::harness::placement_for(env, proxy::harness::Mode::proxy, threads);
  placement = where.describe();
  proxy::ProxyThread proxy(env.world(), where);
  proxy::harness::bind_compute_threads(env, where);
  proxy::Team team(threads, proxy::TeamConfig::from(proxy.config(), env.topology(), where));
  proxy::NodeCollectives node(proxy, team, proxy.comm());
  const proxy::Reduction sum = proxy::Reduction::builtin(proxy::DataType::float64, proxy::ReduceOp::sum);
  const auto times = timed_loop(threads, iterations, in, [&](int t) {
    proxy::NodeRequest request = node.allreduce(t, in[t].data(), out[t].data(), count, sum);
    node.wait(t, request);
  });
  const double ranks_threads = static_cast<double>(env.size()) * threads;
  Result result;
  result.correct = all_equal(out, ranks_threads * (ranks_threads + 1.0) / 2.0);
  result.mean_us = bench::mean_of_slowest_us(times, [&](const double* in, double* out, int n) {
    proxy.call([&] { MPI_Allreduce(in, out, n, MPI_DOUBLE, MPI_MAX, proxy.comm()); });
  });
  return result;
}

// The plan form: one hierarchical allreduce element over the threads' vectors (proxy/plan_collective.hpp).
// The master starts the epoch; each thread marks its vector ready and waits; the proxy adds the vectors in
// thread order into the result (the waiting threads taking strips from 32 KiB of contributions on), runs
// the allreduce in place among the ranks, and every thread copies the one result.
Result plan_element(const proxy::Environment& env, int threads, std::size_t count, int iterations) {
  std::vector<std::vector<double>> in(threads), out(threads, std::vector<double>(count));
  for (int t = 0; t < threads; ++t) in[t].assign(count, contribution(env.rank(), threads, t));
  const proxy::Placement where = proxy::harness::placement_for(env, proxy::harness::Mode::proxy, threads);
  proxy::ProxyThread proxy(env.world(), where);
  proxy::harness::bind_compute_threads(env, where);
  std::vector<double> shared(count);
  std::vector<const void*> contributions;
  std::vector<int> parts;
  for (int t = 0; t < threads; ++t) contributions.push_back(in[t].data()), parts.push_back(t);
  proxy::PlanSpec spec("node allreduce");
  spec.parts(threads).allreduce_when_ready(parts, proxy.comm(), contributions, shared.data(), static_cast<int>(count),
                                           MPI_DOUBLE, MPI_SUM);
  const proxy::Plan plan = proxy.commit(spec);
  proxy::Ticket ticket;
  const auto times = timed_loop(threads, iterations, in, [&](int t) {
#pragma omp master
    ticket = proxy.start(plan);
#pragma omp barrier
    proxy.ready(ticket, t);
    proxy.wait(ticket);
    std::copy(shared.begin(), shared.end(), out[t].begin());
  });
  const double ranks_threads = static_cast<double>(env.size()) * threads;
  Result result;
  result.correct = all_equal(out, ranks_threads * (ranks_threads + 1.0) / 2.0);
  result.mean_us = bench::mean_of_slowest_us(times, [&](const double* in, double* out, int n) {
    proxy.call([&] { MPI_Allreduce(in, out, n, MPI_DOUBLE, MPI_MAX, proxy.comm()); });
  });
  const proxy::ProxyStatistics stats = proxy.statistics();
  result.strips = stats.strips == 0 ? "-" : std::to_string(stats.strips_by_waiters) + "/" + std::to_string(stats.strips);
  return result;
}

int run(proxy::Environment& env, int argc, char** argv) {
  apps::Options options(kProgram,
                        "The node collectives' hierarchical allreduce (team, proxy, team) against an OpenMP sum\n"
                        "and MPI_Allreduce from the master, T threads per rank, doubles, slowest rank's mean.");
  options.option("threads", "T", "threads per rank", "2")
      .range(1, 1024)
      .option("max-bytes", "B", "largest vector per thread, from 8 B in steps of x32 (K/M/G suffixes)", "1M")
      .suffixes()
      .range(8, 1LL << 30);
  options.epilog("Examples:\n  mpiexec -n 2 bench_node_allreduce --threads 1\n  mpiexec -n 1 bench_node_allreduce --threads 2");
  int threads = 2;
  std::size_t max_bytes = 0;
  if (!apps::parse_agreed(MPI_COMM_WORLD, env.rank(), options, argc, argv, [&] {
        threads = static_cast<int>(options.integer("threads"));
        max_bytes = static_cast<std::size_t>(options.integer("max-bytes"));
        try {  // the model file's content, read by every team: refused here, not by the first team (exit 1)
          proxy::TeamConfig::from(proxy::Config::from_env());
        } catch (const proxy::Error& error) {
          throw apps::UsageError(error.what());
        }
      }))
    return apps::kExitSuccess;
  if (apps::answer_show_config(options, env.rank())) return apps::kExitSuccess;
  std::vector<std::size_t> sizes;
  for (std::size_t bytes = 8; bytes <= max_bytes; bytes *= 32) sizes.push_back(bytes);
  // Before measuring (collective; no proxy thread yet): each form holds every thread's input and output
  // vector and one shared vector of the largest size at once.
  proxy::harness::check_memory(env.world(), "--threads " + std::to_string(threads) + " --max-bytes " +
                                                options.value("max-bytes"),
                               (2.0 * threads + 1.0) * double(sizes.back()), env.node().size);
  // Oversubscribed, OpenMP's spinning barriers (two per timed iteration, thousands of iterations) wait for the
  // scheduler's time slices: 2 ranks x 2 threads on 2 cores took 148 s with nothing printed. Refused unless
  // OpenMP waits passively, on every rank alike.
  std::optional<std::string> crowded;
  const proxy::Placement mine = proxy::harness::placement_for(env, proxy::harness::Mode::mt, threads);
  std::string wait_policy = std::getenv("OMP_WAIT_POLICY") ? std::getenv("OMP_WAIT_POLICY") : "";
  for (char& c : wait_policy) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));  // any case
  if (mine.oversubscribed && wait_policy != "passive")
    crowded = proxy::detail::counted(env.size(), "rank") + " x --threads " + std::to_string(threads) +
              " oversubscribe the cores (rank " + std::to_string(env.rank()) + "'s " +
              proxy::detail::counted(threads, "thread") + " on " +
              proxy::detail::counted(static_cast<long long>(mine.compute_cores.size()), "core") +
              ", shared with other ranks or with each other): the OpenMP barriers it times would wait for the "
              "scheduler; use fewer ranks or threads, or set OMP_WAIT_POLICY=passive to measure anyway";
  apps::agree_on_usage_error(crowded, env.world());
  bench::watch_progress(kProgram, env.rank());  // a stopped or vanished peer ends the job (progress_watchdog.hpp)
  std::vector<Result> today;
  bench::phase("OpenMP sum + MPI_Allreduce from the master");
  for (std::size_t bytes : sizes) today.push_back(hybrid_today(env, threads, bytes / 8, iterations_for(bytes)));
  std::string placement;
  std::vector<Result> node;
  bench::phase("node collective");
  for (std::size_t bytes : sizes) node.push_back(node_collectives(env, threads, bytes / 8, iterations_for(bytes), placement));
  std::vector<Result> planned;
  bench::phase("plan element");
  for (std::size_t bytes : sizes) planned.push_back(plan_element(env, threads, bytes / 8, iterations_for(bytes)));
  bool correct = true;
  for (std::size_t i = 0; i < sizes.size(); ++i)
    correct = correct && today[i].correct && node[i].correct && planned[i].correct;
  if (env.rank() == 0) {
    std::printf("# %s: %s x %s; node collectives' rank 0: %s\n", kProgram,
                proxy::detail::counted(env.size(), "rank").c_str(), proxy::detail::counted(threads, "thread").c_str(),
                placement.c_str());
    std::printf("%10s %14s %14s %10s %14s %10s %16s\n", "bytes", "omp+mpi_us", "node_us", "speedup", "plan_us",
                "speedup", "waiter_strips");
    for (std::size_t i = 0; i < sizes.size(); ++i)
      std::printf("%10zu %14.2f %14.2f %10.2f %14.2f %10.2f %16s\n", sizes[i], today[i].mean_us, node[i].mean_us,
                  today[i].mean_us / node[i].mean_us, planned[i].mean_us, today[i].mean_us / planned[i].mean_us,
                  planned[i].strips.c_str());
    if (!correct) std::fprintf(stderr, "%s: error: a result differs from the exact sum\n", kProgram);
  }
  return correct ? apps::kExitSuccess : apps::kExitRunFailure;
}

}  // namespace

int main(int argc, char** argv) {
  return apps::driver_main(kProgram, argc, argv, [&](proxy::Environment& env) { return run(env, argc, argv); });
}
