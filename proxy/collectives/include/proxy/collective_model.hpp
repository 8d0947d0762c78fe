// CollectiveModel: the latency/bandwidth cost model of the team-collective algorithms (Li, Hoefler, Snir,
// "NUMA-Aware Shared-Memory Collective Communication for MPI", HPDC'13, seed 001, section 2) and the
// size-based algorithm selection it drives. A contiguous access of m bytes costs a + b*m; d simultaneous
// accesses over one shared link cost a + B*d*m. alpha: within a socket (NUMA domain), beta: across them.
// apps/calibrate measures the parameters and writes them to a file; the runtime reads the file named by
// PROXY_COLLECTIVE_MODEL and otherwise uses built-in defaults.
// On the team shape calibrate measured, the file also holds each allreduce algorithm's measured curve
// (its time at the calibration sizes), and predictions for that shape interpolate the curve: one set of
// a, b, B cannot follow a machine whose per-byte costs change from L2 to L3 to memory, nor an algorithm
// whose real data movement the formula does not count (bench/RESULTS.md, "Model"). Other shapes, which
// nobody measured, use the formulas.
// Thread safety: immutable after construction; any thread may call the const functions.
#pragma once

#include "proxy/cxx20.hpp"  // first: C++20, or one line saying so

#include <cstddef>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace proxy {

enum class AllreduceAlgorithm { automatic, tree_one_stage, tree_two_stage, dissemination, tiled_one_stage,
                                tiled_two_stage };
enum class ReduceAlgorithm { automatic, tree, tiled };
enum class BroadcastAlgorithm { automatic, one_stage, two_stage };

std::string_view to_string(AllreduceAlgorithm algorithm) noexcept;
std::string_view to_string(ReduceAlgorithm algorithm) noexcept;
std::string_view to_string(BroadcastAlgorithm algorithm) noexcept;
// Accept the names to_string gives ("tree-one-stage", ...); throw proxy::Error naming the bad value.
AllreduceAlgorithm parse_allreduce_algorithm(std::string_view text);
BroadcastAlgorithm parse_broadcast_algorithm(std::string_view text);
// The concrete algorithms, in a fixed order (what calibrate and the benchmarks sweep).
const std::vector<AllreduceAlgorithm>& allreduce_algorithms() noexcept;

struct ModelParameters {
  double a_alpha = 1.2e-7;   // s: first-access latency within a socket (cache-line round trip ~116 ns)
  double b_alpha = 1.0e-10;  // s/byte: one thread reading another core's data within a socket (~10 GB/s)
  double B_alpha = 4.0e-11;  // s/byte: shared intra-socket bandwidth under contention (~25 GB/s in all)
  double a_beta = 2.0e-7;    // the same across sockets
  double b_beta = 2.0e-10;
  double B_beta = 1.0e-10;
};

// Team shape the formulas need: p threads over s sockets, q = ceil(p/s) per socket.
struct TeamShape {
  int threads = 1;
  int sockets = 1;
  bool operator==(const TeamShape&) const = default;
};

// The algorithm a team of `shape` runs for `algorithm`: on one socket a two-stage broadcast is the one-stage
// one (team_broadcast.cpp), so tree-two-stage and tiled-two-stage run as tree-one-stage and tiled-one-stage.
AllreduceAlgorithm as_run(AllreduceAlgorithm algorithm, TeamShape shape) noexcept;
// The concrete algorithms that differ on `shape` (those as_run leaves as they are), in allreduce_algorithms()'
// order: what calibrate measures and the model chooses among. Measuring twins apart only measured noise.
std::vector<AllreduceAlgorithm> distinct_allreduce_algorithms(TeamShape shape);

// One allreduce algorithm's measured time (seconds) at increasing sizes (bytes per thread).
struct MeasuredCurve {
  AllreduceAlgorithm algorithm = AllreduceAlgorithm::dissemination;
  std::vector<std::pair<std::size_t, double>> points;
  // Linear between the points; the first point's time below it; past the last, proportional to the bytes.
  double at(std::size_t bytes) const noexcept;
};

class CollectiveModel {
 public:
  CollectiveModel() = default;
  explicit CollectiveModel(ModelParameters parameters) : parameters_(parameters) {}
  // The formulas' parameters, and the curves measured on `shape` (every curve with at least one point, each
  // algorithm at most once; else proxy::Error).
  CollectiveModel(ModelParameters parameters, TeamShape shape, std::vector<MeasuredCurve> curves);

  const ModelParameters& parameters() const noexcept { return parameters_; }
  const TeamShape& measured_shape() const noexcept { return measured_shape_; }
  const std::vector<MeasuredCurve>& curves() const noexcept { return curves_; }

  // Predicted seconds for `bytes` per thread (allreduce: the measured curve on the measured shape).
  double predict(AllreduceAlgorithm algorithm, TeamShape shape, std::size_t bytes) const noexcept;
  // The HPDC'13 formula alone, whatever was measured.
  double formula(AllreduceAlgorithm algorithm, TeamShape shape, std::size_t bytes) const noexcept;
  double predict(BroadcastAlgorithm algorithm, TeamShape shape, std::size_t bytes) const noexcept;
  double predict(ReduceAlgorithm algorithm, TeamShape shape, std::size_t bytes) const noexcept;

  // The cheapest concrete algorithm by the model (on the measured shape: among the measured curves).
  AllreduceAlgorithm choose_allreduce(TeamShape shape, std::size_t bytes) const noexcept;
  ReduceAlgorithm choose_reduce(TeamShape shape, std::size_t bytes) const noexcept;
  BroadcastAlgorithm choose_broadcast(TeamShape shape, std::size_t bytes) const noexcept;

  // "name value" lines, then "shape <threads> <sockets>" and "curve <algorithm> <bytes> <seconds>" lines;
  // '#' starts a comment. load() throws proxy::Error naming the file and bad line.
  static CollectiveModel load(const std::string& path);
  // Writes the file whole or not at all (a temporary beside it, renamed over it); throws proxy::Error with
  // the reason ("No space left on device"), leaving an existing file as it was. A symbolic link is written
  // through: the file it points to is replaced (or created), the link kept.
  void save(const std::string& path) const;
  // The file named by PROXY_COLLECTIVE_MODEL when set (errors are thrown), else the built-in defaults.
  static CollectiveModel from_env();

 private:
  const MeasuredCurve* curve_of(AllreduceAlgorithm algorithm, TeamShape shape) const noexcept;

  ModelParameters parameters_;
  TeamShape measured_shape_{0, 0};  // no curves: matches no team
  std::vector<MeasuredCurve> curves_;
};

}  // namespace proxy
