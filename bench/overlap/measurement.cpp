#include "measurement.hpp"

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <vector>

#include "proxy/detail/timer.hpp"
#include "proxy/harness/timed_wait.hpp"

namespace overlap {

// Non-blocking and waited under PROXY_WAIT_TIMEOUT either way: a rank that never joins ends the run with a
// line (a blocking MPI_Barrier waited for ever, on the proxy thread too).
void RankSync::complete(const char* name, const std::function<void(MPI_Request&)>& post) {
  if (proxy_) {
    proxy_->wait(proxy_->submit(
        [&](proxy::ClosureContext& context) {
          MPI_Request request = MPI_REQUEST_NULL;
          post(request);
          context.track(request);
        },
        name));
  } else {
    MPI_Request request = MPI_REQUEST_NULL;
    post(request);
    proxy::harness::wait_collective(request, name);
  }
}

void RankSync::barrier() {
  complete("barrier", [this](MPI_Request& request) { MPI_Ibarrier(comm_, &request); });
}

double RankSync::max(double value) {
  double result = value;
  complete("maximum over ranks", [&](MPI_Request& request) {
    MPI_Iallreduce(&value, &result, 1, MPI_DOUBLE, MPI_MAX, comm_, &request);
  });
  return result;
}

double Overlap::osu_percent() const noexcept {
  if (pure_s <= 0.0) return 0.0;
  // Clamped at 100 as well: a compute-alone phase slowed by noise can otherwise push it above.
  return std::clamp(100.0 - 100.0 * (overall_s - compute_s) / pure_s, 0.0, 100.0);
}

double Overlap::imb_percent() const noexcept {
  const double shorter = std::min(pure_s, compute_s);
  if (shorter <= 0.0) return 0.0;
  return 100.0 * std::max(0.0, std::min(1.0, (pure_s + compute_s - overall_s) / shorter));
}

namespace {

// Median rather than mean: on a shared, oversubscribed machine one preempted iteration must not decide.
double median(std::vector<double> values) {
  const auto middle = values.begin() + static_cast<std::ptrdiff_t>(values.size() / 2);
  std::nth_element(values.begin(), middle, values.end());
  return *middle;
}

// Runs step(i) for i in [0, count), placing a communication failure in its pass and iteration.
template <class Step>
void steps(const char* pass, int count, Step&& step) {
  for (int i = 0; i < count; ++i) {
    try {
      step(i);
    } catch (const proxy::CommError& cause) {
      throw Failure(std::string(pass) + ", iteration " + std::to_string(i + 1) + " of " + std::to_string(count),
                    cause);
    }
  }
}

}  // namespace

Failure::Failure(const std::string& where, const proxy::CommError& cause)
    : proxy::CommError(cause.operation(), cause.peer(), cause.epoch(), cause.detail()),
      message_(where + ": " + cause.what()) {}

double measure_pure(Exchange& exchange, RankSync& sync, int iterations, int warmup) {
  steps("warm-up", warmup, [&](int) {
    sync.barrier();
    exchange.start();
    exchange.wait();
  });
  std::vector<double> pure(iterations);
  steps("communication alone", iterations, [&](int i) {
    sync.barrier();  // every step starts together, as in a bulk-synchronous code; not timed
    const double t0 = proxy::now_seconds();
    exchange.start();
    exchange.wait();
    pure[i] = proxy::now_seconds() - t0;
  });
  return sync.max(median(pure));
}

Overlap measure(Exchange& exchange, RankSync& sync, ComputeKernel& kernel, double target_s, std::int64_t& units,
                int iterations, int warmup) {
  Overlap result;
  result.iterations = iterations;
  volatile double sink = 0.0;  // keeps the compute from being optimised away
  result.pure_s = measure_pure(exchange, sync, iterations, warmup);

  auto time_compute = [&](std::int64_t n) {
    std::vector<double> compute(iterations);
    for (auto& t : compute) {
      const double t0 = proxy::now_seconds();
      sink = sink + kernel.run(n);
      t = proxy::now_seconds() - t0;
    }
    return sync.max(median(compute));
  };
  if (units > 0) {
    result.compute_s = time_compute(units);  // the cell's compute, as the first mode sized it
  } else {
    // Every rank computes the same amount, sized from the slowest rank's time; short runs and a loaded
    // machine make the one-off calibration inexact, so rescale up to twice until compute is within 10%.
    const double target = target_s > 0.0 ? target_s : result.pure_s;
    units = kernel.units_for(target);
    for (int round = 0; round < 4; ++round) {
      result.compute_s = time_compute(units);
      const double ratio = target / result.compute_s;
      if (round == 3 || (ratio > 0.9 && ratio < 1.1)) break;
      units = std::max<std::int64_t>(1, static_cast<std::int64_t>(static_cast<double>(units) * ratio));
    }
  }

  // The overlapped compute runs in chunks of ~20 us with a progress point between them, as an
  // application's kernel would call it between planes or tiles (the proxy's, or async-test's MPI_Testall).
  const std::int64_t chunk = std::max<std::int64_t>(1, kernel.units_for(20e-6));
  std::vector<double> overall(iterations), during(iterations);
  steps("overlapped", iterations, [&](int i) {
    sync.barrier();
    const double t0 = proxy::now_seconds();
    exchange.start();
    const double c0 = proxy::now_seconds();
    for (std::int64_t done = 0; done < units; done += chunk) {
      sink = sink + kernel.run(std::min(chunk, units - done));
      exchange.progress_point();
    }
    const double c1 = proxy::now_seconds();
    exchange.wait();
    const double t1 = proxy::now_seconds();
    overall[i] = t1 - t0;
    during[i] = c1 - c0;
  });
  result.units = units;
  result.overall_s = sync.max(median(overall));
  result.compute_during_s = sync.max(median(during));
  return result;
}

}  // namespace overlap
