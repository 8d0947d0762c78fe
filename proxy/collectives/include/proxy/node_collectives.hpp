// NodeCollectives: allreduce, reduce, broadcast and barrier over every compute thread of every rank, built
// as team phase -> inter-node phase on the proxy -> team phase (Tanase et al., "Hybrid Collective Operations
// on Power7 IH", seed 003: phase state machines chained by completion, composition of a local and a leader
// topology, pipeline chaining for large buffers).
//
// Non-blocking: a start call (allreduce(), ...) returns a NodeRequest; the thread computes and later calls
// wait(). For allreduce, start runs the team reduce of each segment and hands the segment to the proxy,
// which starts its MPI_Iallreduce among the ranks at once, so the proxy reduces segment k across ranks while
// the threads reduce segment k + 1; wait() broadcasts each segment inside the team as soon as the proxy
// has completed it. Each rank is one "node" of the inter-node phase: the runtime's multi-tier mode runs one
// rank per node, and in tests several ranks on one machine each stand for a node. A rank alone on its
// inter-node communicator (one node) has no inter-node phase: the start call runs the team collective and
// the request is complete when it returns (wait() only releases it, as before, so the outstanding limit
// holds the same on any number of ranks).
//
// Thread contract: every thread of the team calls the same sequence of start and wait calls with its own
// thread index (as for Team), and at most `max_outstanding` requests may be started and not yet waited by a
// thread (Error otherwise, on every thread alike). As for MPI's own collectives, every rank must call with the
// same count, operation and root: a call is not agreed between the ranks (that would cost a collective per call;
// plan elements, committed once, are: plan_collective.hpp), and a mismatch gives what MPI gives, a wrong or
// truncated result on some rank. Construct and destroy on the thread that owns the ProxyThread while it runs
// (communicators are duplicated and freed through it); destroy before it. After a thread's collective timed out
// (a thread missing: proxy::Error from the start call or wait), the team is not used again; destroying the node
// collectives and the proxy then cancels the epoch that never reached MPI (a warning on stderr).
#pragma once

#include "proxy/cxx20.hpp"  // first: C++20, or one line saying so

#include <chrono>
#include <cstddef>
#include <functional>
#include <cstdint>
#include <memory>
#include <vector>

#include <mpi.h>

#include "proxy/memory.hpp"
#include "proxy/operation.hpp"
#include "proxy/reduction.hpp"

namespace proxy {

class Notifier;
class ProxyThread;
class Team;

struct NodeCollectivesConfig {
  // Buffers longer than this are pipelined in segments of this many bytes (rounded to whole elements).
  std::size_t segment_bytes = std::size_t{256} << 10;
  int max_outstanding = 16;  // requests in flight per thread; one duplicated communicator each
  int window = 4;            // inter-node segments the proxy keeps in flight per request
};

enum class NodeCollectiveKind { none, allreduce, reduce, broadcast, barrier };

// What a start call returns; pass it to wait() by the same thread. Plain data.
struct NodeRequest {
  NodeCollectiveKind kind = NodeCollectiveKind::none;  // none: nothing to wait for (empty buffer)
  int slot = -1;
  std::uint64_t epoch = 0;  // the slot operation's epoch
  std::uint64_t base = 0;   // segments completed by the slot before this request
  std::size_t segments = 0;
  std::size_t segment_elements = 0;
  std::size_t count = 0;
  std::size_t element_size = 1;
  void* buffer = nullptr;  // this thread's result buffer
  int team_root = 0;       // the team thread whose buffer holds the inter-node result
  bool local = false;      // completed by the team at start (one rank): wait() only releases the slot
};

class NodeCollectives {
 public:
  // inter_node: the communicator of the ranks taking part (one per node), e.g. proxy.comm(); every rank of
  // it runs a team of the same size. Throws proxy::Error for bad settings.
  NodeCollectives(ProxyThread& proxy, Team& team, MPI_Comm inter_node, NodeCollectivesConfig config = {});
  ~NodeCollectives();
  NodeCollectives(const NodeCollectives&) = delete;
  NodeCollectives& operator=(const NodeCollectives&) = delete;

  // Every start call refuses a count whose bytes no buffer can hold (more than PTRDIFF_MAX), before anything starts.
  // Every thread's recv = reduction over all threads of all ranks (built-in operations; MPI's order across
  // ranks, thread order within one). In place: send == recv or send == nullptr.
  NodeRequest allreduce(int thread, const void* send, void* recv, std::size_t count, const Reduction& reduction);
  // recv of thread root_thread on rank root_rank (significant there only) = the reduction over everything.
  // Off the root rank the leader thread stages its team's partial result in a buffer of count elements: a count
  // whose buffer is more than this process could allocate is refused (proxy::Error naming count and bytes) on
  // every thread of every rank before anything starts.
  NodeRequest reduce(int thread, const void* send, void* recv, std::size_t count, const Reduction& reduction,
                     int root_rank, int root_thread);
  // buffer of thread root_thread on rank root_rank goes to every thread's buffer on every rank.
  NodeRequest broadcast(int thread, void* buffer, std::size_t bytes, int root_rank, int root_thread);
  // Completes once every thread of every rank has started it.
  NodeRequest barrier(int thread);

  // Completes the request: the remaining team phase, after the proxy's inter-node phase. Rethrows a
  // CommError from the proxy; throws TimeoutError after the proxy's wait timeout.
  void wait(int thread, NodeRequest& request);
  // True when the proxy's inter-node phase is complete (wait() then only runs the team phase).
  bool test(const NodeRequest& request) const;

  int rank() const noexcept { return rank_; }
  int ranks() const noexcept { return ranks_; }

 private:
  class SlotOperation;
  struct PerThread;
  NodeRequest begin(int thread, NodeCollectiveKind kind, std::size_t count, std::size_t element_size);
  // One rank: `team_phase` is the whole collective; the request completes with it.
  template <class TeamPhase>
  NodeRequest complete_in_team(NodeRequest request, TeamPhase&& team_phase) {
    team_phase();
    request.local = true;
    return request;
  }
  // `thread` awaits the inter-node phase of `segment`. Under cooperative progress the team root moves it;
  // another thread moves it only once it has spun its spin count while the root was not awaiting.
  void await_segment(int thread, const NodeRequest& request, std::size_t segment) const;
  // Until done() or the deadline. Under cooperative progress a thread moves the work itself while
  // drive(whether it has spun its spin count) says so, and otherwise only watches. True when done.
  bool wait_until(const std::function<bool()>& done, const std::function<bool(bool)>& drive,
                  std::chrono::steady_clock::time_point deadline) const;
  void reduce_segments(int thread, const NodeRequest& request, const void* send, char* target,
                       const Reduction& reduction, int leader);

  ProxyThread& proxy_;
  Team& team_;
  NodeCollectivesConfig config_;
  std::shared_ptr<Notifier> progress_;  // the slots publish "segment done" through it; wait() sleeps on it
  int rank_ = 0;
  int ranks_ = 1;
  std::vector<std::shared_ptr<SlotOperation>> slots_;
  std::unique_ptr<PerThread[]> threads_;
  std::vector<std::vector<char>> staging_;  // per slot: a reduce's partial result off the root rank
  // What this process could still allocate when constructed: a reduce whose staging buffer would not fit is refused
  // by every thread alike before it starts (read once: each thread reading /proc could decide otherwise).
  MemoryShare memory_;
};

}  // namespace proxy
