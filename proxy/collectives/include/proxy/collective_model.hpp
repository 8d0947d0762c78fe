// CollectiveModel: the latency/bandwidth cost model of the team-collective algorithms (Li, Hoefler, Snir,
// "NUMA-Aware Shared-Memory Collective Communication for MPI", HPDC'13, seed 001, section 2) and the
// size-based algorithm selection it drives. A contiguous access of m bytes costs a + b*m; d simultaneous
// accesses over one shared link cost a + B*d*m. alpha: within a socket (NUMA domain), beta: across them.
// apps/calibrate measures the parameters and writes them to a file; the runtime reads the file named by
// PROXY_COLLECTIVE_MODEL and otherwise uses built-in defaults.
// Thread safety: immutable after construction; any thread may call the const functions.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>
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
};

class CollectiveModel {
 public:
  CollectiveModel() = default;
  explicit CollectiveModel(ModelParameters parameters) : parameters_(parameters) {}

  const ModelParameters& parameters() const noexcept { return parameters_; }

  // Predicted seconds for `bytes` per thread.
  double predict(AllreduceAlgorithm algorithm, TeamShape shape, std::size_t bytes) const noexcept;
  double predict(BroadcastAlgorithm algorithm, TeamShape shape, std::size_t bytes) const noexcept;
  double predict(ReduceAlgorithm algorithm, TeamShape shape, std::size_t bytes) const noexcept;

  // The cheapest concrete algorithm by the model.
  AllreduceAlgorithm choose_allreduce(TeamShape shape, std::size_t bytes) const noexcept;
  ReduceAlgorithm choose_reduce(TeamShape shape, std::size_t bytes) const noexcept;
  BroadcastAlgorithm choose_broadcast(TeamShape shape, std::size_t bytes) const noexcept;

  // "name value" lines; '#' starts a comment. load() throws proxy::Error naming the file and bad line.
  static CollectiveModel load(const std::string& path);
  void save(const std::string& path) const;
  // The file named by PROXY_COLLECTIVE_MODEL when set (errors are thrown), else the built-in defaults.
  static CollectiveModel from_env();

 private:
  ModelParameters parameters_;
};

}  // namespace proxy
