#include "measure.hpp"

#include <algorithm>
#include <thread>
#include <vector>

#include "proxy/detail/timer.hpp"

namespace calibrate {

Buffers::Buffers(int threads, std::size_t largest_bytes)
    : send(threads, std::vector<double>(std::max<std::size_t>(1, largest_bytes / sizeof(double)))), recv(send) {}

Timing time_collective(const Bench& bench, Collective collective, proxy::AllreduceAlgorithm algorithm,
                       std::size_t bytes) {
  proxy::Team& team = *bench.team;
  const int p = team.size();
  const std::size_t count = std::max<std::size_t>(1, bytes / sizeof(double));
  const int total = bench.warmup + bench.iterations;
  auto& send = bench.buffers->send;
  auto& recv = bench.buffers->recv;
  std::vector<std::vector<double>> elapsed(p, std::vector<double>(total));
  const auto reduction = proxy::Reduction::builtin(proxy::DataType::float64, proxy::ReduceOp::sum);
  auto body = [&](int t) {
    if (bench.topology) bench.topology->bind_this_thread(t);
    for (int i = 0; i < total; ++i) {
      for (std::size_t k = 0; k < count; ++k) send[t][k] = double(i + t) + double(k & 7);  // dirty, untimed
      team.barrier(t);
      const double start = proxy::now_seconds();
      switch (collective) {
        case Collective::allreduce:
          team.allreduce(t, send[t].data(), recv[t].data(), count, reduction, algorithm);
          break;
        case Collective::reduce_tree:
          team.reduce(t, send[t].data(), recv[t].data(), count, reduction, 0, proxy::ReduceAlgorithm::tree);
          break;
        case Collective::broadcast_one_stage:
          team.broadcast(t, send[t].data(), count * sizeof(double), 0, proxy::BroadcastAlgorithm::one_stage);
          break;
      }
      elapsed[t][i] = proxy::now_seconds() - start;
    }
  };
  std::vector<std::thread> threads;  // every one new: the calling thread keeps its binding
  for (int t = 0; t < p; ++t) threads.emplace_back(body, t);
  for (auto& thread : threads) thread.join();
  Timing timing;
  std::vector<double> slowest(static_cast<std::size_t>(bench.iterations));
  for (int i = bench.warmup; i < total; ++i) {
    double& s = slowest[static_cast<std::size_t>(i - bench.warmup)];
    for (int t = 0; t < p; ++t) s = std::max(s, elapsed[t][i]);
    timing.mean_seconds += s;
  }
  timing.mean_seconds /= bench.iterations;
  std::sort(slowest.begin(), slowest.end());
  timing.min_seconds = slowest.front();
  const std::size_t n = slowest.size();
  timing.median_seconds = n % 2 == 1 ? slowest[n / 2] : (slowest[n / 2 - 1] + slowest[n / 2]) / 2.0;
  return timing;
}

int iterations_for(std::size_t bytes, int base) {
  // About 32 MiB moved per measurement, between 5 and `base` iterations.
  const std::size_t budget = std::size_t{32} << 20;
  return static_cast<int>(std::clamp<std::size_t>(budget / std::max<std::size_t>(bytes, 1), 5, std::size_t(base)));
}

}  // namespace calibrate
