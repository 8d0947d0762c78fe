// One overlap measurement in the OSU style (osu_benchmarks' non-blocking tests; IMB-NBC's "ovrl"):
//   T_pure     start + wait, nothing else;
//   T_compute  calibrated compute alone, sized to take the cell's target (the slowest mode's T_pure when
//              several modes share a launch, so that every mode computes the same units; else T_pure);
//   T_overall  start, the same compute, wait;
// hidden = T_pure + T_compute - T_overall (microseconds of communication the compute covered; negative
// when communicating slowed the step by more than it took alone),
// then overlap% by OSU: max(0, 100 - 100 (T_overall - T_compute) / T_pure), by IMB:
// 100 max(0, min(1, (T_pure + T_compute - T_overall) / min(T_pure, T_compute))), and the compute slowdown:
// compute time while communicating / compute time alone. Every figure is the median over iterations (OSU
// takes the mean; the median resists preemption on a shared machine), then the maximum over ranks (the
// slowest rank decides a bulk-synchronous step). Main thread only.
#pragma once

#include <cstdint>
#include <functional>
#include <string>

#include <mpi.h>

#include "compute_kernel.hpp"
#include "pattern.hpp"
#include "proxy/error.hpp"

namespace overlap {

// A communication failure placed in the run: what() is "<where>: <cause>" (where: "overlapped, iteration 3 of
// 20"; the driver adds the mode and the pattern).
class Failure : public proxy::CommError {
 public:
  Failure(const std::string& where, const proxy::CommError& cause);
  const char* what() const noexcept override { return message_.c_str(); }

 private:
  std::string message_;
};

// Barrier and max-reduction from the main thread: directly, or through the proxy while it owns MPI.
class RankSync {
 public:
  RankSync(MPI_Comm comm, proxy::ProxyThread* proxy) : comm_(comm), proxy_(proxy) {}
  void barrier();
  double max(double value);

 private:
  // Posts one collective's request (on the proxy thread when there is one) and waits for it.
  void complete(const char* name, const std::function<void(MPI_Request&)>& post);

  MPI_Comm comm_;
  proxy::ProxyThread* proxy_;
};

struct Overlap {
  double pure_s = 0.0;
  double compute_s = 0.0;          // compute alone
  double overall_s = 0.0;
  double compute_during_s = 0.0;   // the same compute while communication is in flight
  int iterations = 0;
  std::int64_t units = 0;          // the compute's size (the same for every mode of a cell in one launch)

  double osu_percent() const noexcept;
  double hidden_s() const noexcept { return pure_s + compute_s - overall_s; }
  double imb_percent() const noexcept;
  double slowdown() const noexcept { return compute_s > 0.0 ? compute_during_s / compute_s : 0.0; }
};

// T_pure alone (median over iterations, maximum over ranks): the pre-pass that sizes a cell's compute.
double measure_pure(Exchange& exchange, RankSync& sync, int iterations, int warmup);
// The whole measurement. units: the compute's size; 0 on the cell's first mode, which calibrates it to
// target_s (or to its own T_pure when target_s is 0) and stores it for the cell's other modes.
Overlap measure(Exchange& exchange, RankSync& sync, ComputeKernel& kernel, double target_s, std::int64_t& units,
                int iterations, int warmup);

}  // namespace overlap
