// Timing of team collectives the OSU way: warm-up, then many iterations, each preceded (outside the timed
// region) by a team barrier and by every thread rewriting its own input, so the data sits modified in the
// producer's cache as after a real compute phase (HPDC'13 sec. 3.4) instead of flattering the reader.
// The figure is the mean over iterations of the slowest thread's time.
#pragma once

#include <cstddef>
#include <functional>
#include <vector>

#include "proxy/collective_model.hpp"
#include "proxy/team.hpp"
#include "proxy/topology.hpp"

namespace calibrate {

struct Timing {
  double mean_seconds = 0.0;    // mean over iterations of the max over threads
  double median_seconds = 0.0;  // their median: what the model's curves and its check use (one descheduled
                                // iteration on a shared machine moves the mean, not the median)
  double min_seconds = 0.0;     // fastest iteration (its slowest thread)
};

// What one timed call does on thread t: operate on `bytes` of its buffers.
enum class Collective { allreduce, reduce_tree, broadcast_one_stage };

// Every thread's send and receive vector, allocated once for the largest size and reused by every
// measurement: fresh vectors per measurement made each one pay its page faults again (calibrate on 16
// threads: 45 s, 15 s reusing them) and put it at new addresses.
struct Buffers {
  Buffers(int threads, std::size_t largest_bytes);
  std::vector<std::vector<double>> send, recv;
};

struct Bench {
  proxy::Team* team = nullptr;
  const proxy::Topology* topology = nullptr;  // binds thread t to core t (mod cores) when not null
  int warmup = 3;
  int iterations = 50;
  Buffers* buffers = nullptr;  // at least team->size() threads of at least the measured size
};

// Times `collective` (allreduce with `algorithm`) on doubles, bytes per thread.
Timing time_collective(const Bench& bench, Collective collective, proxy::AllreduceAlgorithm algorithm,
                       std::size_t bytes);

// Iterations for a size: many for small messages, fewer for large ones, at least `minimum`.
int iterations_for(std::size_t bytes, int base);

}  // namespace calibrate
