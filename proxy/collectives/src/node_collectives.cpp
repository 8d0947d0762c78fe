// Node collectives: team phase -> inter-node phase on the proxy -> team phase (seed 003). One
// SlotOperation per outstanding request, each with its own duplicated communicator, so that requests in
// flight at once never depend on the order in which ranks' proxies issue them. Per segment the state
// machine is: reduced by the team (ready, published by the team's leader thread) -> issued by the proxy
// (MPI_I*) -> completed (done, published by the proxy) -> broadcast by the team in wait(). `ready` and
// `done` count segments over the slot's whole life, so nothing is reset between epochs.
#include "proxy/node_collectives.hpp"

#include <algorithm>
#include <atomic>
#include <climits>
#include <string>

#include "proxy/error.hpp"
#include "proxy/proxy_thread.hpp"
#include "proxy/team.hpp"
#include "proxy/detail/notifier.hpp"

namespace proxy {

namespace {

MPI_Datatype mpi_type(DataType type) noexcept {
  switch (type) {
    case DataType::float32: return MPI_FLOAT;
    case DataType::float64: return MPI_DOUBLE;
    case DataType::int32: return MPI_INT32_T;
    case DataType::int64: return MPI_INT64_T;
  }
  return MPI_DATATYPE_NULL;
}

MPI_Op mpi_op(ReduceOp op) noexcept {
  switch (op) {
    case ReduceOp::sum: return MPI_SUM;
    case ReduceOp::prod: return MPI_PROD;
    case ReduceOp::min: return MPI_MIN;
    case ReduceOp::max: return MPI_MAX;
    case ReduceOp::user: break;
  }
  return MPI_OP_NULL;
}

const char* name_of(NodeCollectiveKind kind) noexcept {
  switch (kind) {
    case NodeCollectiveKind::none: return "none";
    case NodeCollectiveKind::allreduce: return "allreduce";
    case NodeCollectiveKind::reduce: return "reduce";
    case NodeCollectiveKind::broadcast: return "broadcast";
    case NodeCollectiveKind::barrier: return "barrier";
  }
  return "?";
}

}  // namespace

// The inter-node phase of one request slot. prepare() runs on the thread that posts (before post(), whose
// queue hand-off orders it before start()); start/progress run on the proxy thread.
class NodeCollectives::SlotOperation final : public Operation {
 public:
  SlotOperation(int index, int window, Notifier* progress)
      : Operation("node collective slot " + std::to_string(index)), requests_(window, MPI_REQUEST_NULL),
        progress_(progress) {}

  const char* kind() const noexcept override { return "node collective"; }

  struct Work {
    NodeCollectiveKind what = NodeCollectiveKind::none;
    char* buffer = nullptr;
    std::size_t count = 0, element_size = 1, segment_elements = 1, segments = 0;
    std::uint64_t base = 0;
    MPI_Datatype type = MPI_BYTE;
    MPI_Op op = MPI_OP_NULL;
    int root = 0;
    bool is_root = false;
  };
  // The work of one request: its geometry from the request, the MPI specifics filled in by the caller.
  static Work work_for(const NodeRequest& request, char* buffer) noexcept {
    Work work;
    work.what = request.kind;
    work.buffer = buffer;
    work.count = request.count;
    work.element_size = request.element_size;
    work.segment_elements = request.segment_elements;
    work.segments = request.segments;
    work.base = request.base;
    return work;
  }
  void prepare(const Work& work) noexcept { work_ = work; }

  void start(std::uint64_t epoch) override {
    epoch_ = epoch;
    issued_ = finished_ = work_.base;
  }

  bool progress() override {
    const std::uint64_t end = work_.base + work_.segments;
    const std::uint64_t ready_now = ready.load(std::memory_order_acquire);
    const std::uint64_t window = requests_.size();
    while (issued_ < std::min(ready_now, end) && issued_ - finished_ < window) {
      issue(issued_ - work_.base, requests_[issued_ % window]);
      ++issued_;
    }
    while (finished_ < issued_) {  // oldest first: segments complete, and are published, in order
      int flag = 0;
      check(MPI_Test(&requests_[finished_ % window], &flag, MPI_STATUS_IGNORE), "MPI_Test");
      if (!flag) break;
      ++finished_;
      done.store(finished_, std::memory_order_release);
      progress_->notify_all();
    }
    return finished_ == end;
  }

  std::string describe_outstanding() const override {
    const std::uint64_t d = done.load(std::memory_order_acquire), r = ready.load(std::memory_order_acquire);
    return std::string(name_of(work_.what)) + ": " + std::to_string(d - std::min(d, work_.base)) + " of " +
           std::to_string(work_.segments) + " segments done across ranks, " +
           std::to_string(r - std::min(r, work_.base)) + " handed to the proxy";
  }

  std::uint64_t bytes_per_epoch() const noexcept override { return work_.count * work_.element_size; }
  // Its requests are collectives, which MPI cannot cancel.
  bool cancellable() const noexcept override { return false; }

  MPI_Comm comm = MPI_COMM_NULL;
  alignas(64) std::atomic<std::uint64_t> ready{0};  // segments the team has handed over (leader thread)
  alignas(64) std::atomic<std::uint64_t> done{0};   // segments complete across ranks (proxy thread)

 private:
  void check(int code, const char* call) const {
    if (code != MPI_SUCCESS) throw CommError(label(), -1, epoch_, std::string(call) + ": " + mpi_error_string(code));
  }

  void issue(std::uint64_t segment, MPI_Request& request) {
    const std::size_t offset = segment * work_.segment_elements;
    const int n = static_cast<int>(std::min(work_.segment_elements, work_.count - offset));
    char* data = work_.buffer + offset * work_.element_size;
    switch (work_.what) {
      case NodeCollectiveKind::allreduce:
        check(MPI_Iallreduce(MPI_IN_PLACE, data, n, work_.type, work_.op, comm, &request), "MPI_Iallreduce");
        break;
      case NodeCollectiveKind::reduce:
        check(work_.is_root ? MPI_Ireduce(MPI_IN_PLACE, data, n, work_.type, work_.op, work_.root, comm, &request)
                            : MPI_Ireduce(data, nullptr, n, work_.type, work_.op, work_.root, comm, &request),
              "MPI_Ireduce");
        break;
      case NodeCollectiveKind::broadcast:
        check(MPI_Ibcast(data, n, MPI_BYTE, work_.root, comm, &request), "MPI_Ibcast");
        break;
      case NodeCollectiveKind::barrier:
        check(MPI_Ibarrier(comm, &request), "MPI_Ibarrier");
        break;
      case NodeCollectiveKind::none:
        break;
    }
  }

  Work work_;
  std::uint64_t epoch_ = 0;
  std::uint64_t issued_ = 0, finished_ = 0;  // proxy thread only
  std::vector<MPI_Request> requests_;        // ring of `window` in-flight segments
  Notifier* progress_;
};

// A thread's own bookkeeping: every thread makes the same calls, so each can know the slot, epoch and
// segment base of a request without asking the others.
struct alignas(64) NodeCollectives::PerThread {
  int next_slot = 0;
  std::vector<std::uint64_t> uses;      // epochs started per slot
  std::vector<std::uint64_t> segments;  // segments handed over per slot, all epochs
  std::vector<char> pending;            // started and not yet waited
};

namespace {
Notifier& progress_notifier() {
  // One notifier for all node collectives of the process: waits are rare and short-lived, and a
  // Notifier costs the publisher one load when nobody sleeps.
  static Notifier notifier;
  return notifier;
}
}  // namespace

NodeCollectives::NodeCollectives(ProxyThread& proxy, Team& team, MPI_Comm inter_node, NodeCollectivesConfig config)
    : proxy_(proxy), team_(team), config_(config) {
  if (config_.max_outstanding < 1)
    throw Error("node collectives: max_outstanding must be at least 1, got " + std::to_string(config_.max_outstanding));
  if (config_.window < 1) throw Error("node collectives: window must be at least 1, got " + std::to_string(config_.window));
  if (config_.segment_bytes < 64 || config_.segment_bytes > (std::size_t{1} << 30))
    throw Error("node collectives: segment_bytes must lie in [64, 2^30], got " + std::to_string(config_.segment_bytes));
  for (int i = 0; i < config_.max_outstanding; ++i)
    slots_.push_back(std::make_shared<SlotOperation>(i, config_.window, &progress_notifier()));
  // Only the proxy may call MPI now: duplicate through it (one communicator per slot).
  proxy_.call(
      [&] {
        auto check = [](int code, const char* call) {
          if (code != MPI_SUCCESS) throw Error(std::string("node collectives: ") + call + " failed: " + mpi_error_string(code));
        };
        check(MPI_Comm_rank(inter_node, &rank_), "MPI_Comm_rank");
        check(MPI_Comm_size(inter_node, &ranks_), "MPI_Comm_size");
        for (auto& slot : slots_) {
          check(MPI_Comm_dup(inter_node, &slot->comm), "MPI_Comm_dup");
          check(MPI_Comm_set_errhandler(slot->comm, MPI_ERRORS_RETURN), "MPI_Comm_set_errhandler");
        }
      },
      "node collectives set-up");
  staging_.resize(slots_.size());
  threads_ = std::make_unique<PerThread[]>(team_.size());
  for (int t = 0; t < team_.size(); ++t) {
    threads_[t].uses.assign(slots_.size(), 0);
    threads_[t].segments.assign(slots_.size(), 0);
    threads_[t].pending.assign(slots_.size(), 0);
  }
}

NodeCollectives::~NodeCollectives() {
  try {
    proxy_.call([&] {
      for (auto& slot : slots_)
        if (slot->comm != MPI_COMM_NULL) MPI_Comm_free(&slot->comm);
    });
  } catch (...) {
    // The proxy has failed or is stopping; the communicators go with MPI_Finalize.
  }
}

NodeRequest NodeCollectives::begin(int thread, NodeCollectiveKind kind, std::size_t count, std::size_t element_size) {
  if (thread < 0 || thread >= team_.size())
    throw Error("node collective: thread " + std::to_string(thread) + " is outside [0, " +
                std::to_string(team_.size()) + ")");
  NodeRequest request;
  if (count == 0 && kind != NodeCollectiveKind::barrier) return request;  // nothing to do anywhere
  PerThread& me = threads_[thread];
  const int slot = me.next_slot;
  if (me.pending[slot])
    throw Error("node collective: thread " + std::to_string(thread) + " started more than " +
                std::to_string(slots_.size()) + " requests without waiting (slot " + std::to_string(slot) +
                " still pending; raise max_outstanding or wait first)");
  me.next_slot = (slot + 1) % static_cast<int>(slots_.size());
  request.kind = kind;
  request.slot = slot;
  request.count = count;
  request.element_size = element_size;
  request.segment_elements = std::max<std::size_t>(1, config_.segment_bytes / element_size);
  request.segments = kind == NodeCollectiveKind::barrier ? 1 : (count + request.segment_elements - 1) / request.segment_elements;
  request.epoch = ++me.uses[slot];
  request.base = me.segments[slot];
  me.segments[slot] += request.segments;
  me.pending[slot] = 1;
  return request;
}

namespace {
void check_builtin(const Reduction& reduction) {
  if (reduction.op == ReduceOp::user)
    throw Error("node collective: user-defined operations are not supported across ranks (an MPI_Op cannot carry "
                "the user context); use sum, prod, min or max");
}
}  // namespace

NodeRequest NodeCollectives::allreduce(int thread, const void* send, void* recv, std::size_t count,
                                       const Reduction& reduction) {
  check_builtin(reduction);
  if (send == nullptr) send = recv;
  NodeRequest request = begin(thread, NodeCollectiveKind::allreduce, count, reduction.element_size());
  if (request.kind == NodeCollectiveKind::none) return request;
  request.buffer = recv;
  request.team_root = 0;
  auto& slot = slots_[request.slot];
  if (thread == 0) {
    auto work = SlotOperation::work_for(request, static_cast<char*>(recv));
    work.type = mpi_type(reduction.type);
    work.op = mpi_op(reduction.op);
    slot->prepare(work);
    proxy_.post(slot);
  }
  reduce_segments(thread, request, send, static_cast<char*>(recv), reduction, 0);
  return request;
}

NodeRequest NodeCollectives::reduce(int thread, const void* send, void* recv, std::size_t count,
                                    const Reduction& reduction, int root_rank, int root_thread) {
  check_builtin(reduction);
  if (root_rank < 0 || root_rank >= ranks_)
    throw Error("node collective reduce: root rank " + std::to_string(root_rank) + " is outside [0, " +
                std::to_string(ranks_) + ")");
  if (root_thread < 0 || root_thread >= team_.size())
    throw Error("node collective reduce: root thread " + std::to_string(root_thread) + " is outside [0, " +
                std::to_string(team_.size()) + ")");
  if (send == nullptr) send = recv;
  NodeRequest request = begin(thread, NodeCollectiveKind::reduce, count, reduction.element_size());
  if (request.kind == NodeCollectiveKind::none) return request;
  const bool root_here = rank_ == root_rank;
  const int leader = root_here ? root_thread : 0;
  request.team_root = leader;
  auto& slot = slots_[request.slot];
  char* target = nullptr;
  if (thread == leader) {
    // Off the root rank the team's partial result needs a home until the proxy has sent it: the slot's
    // staging buffer, which only grows (no allocation once warmed up).
    auto& staging = staging_[request.slot];
    if (!root_here && staging.size() < count * request.element_size) staging.resize(count * request.element_size);
    target = root_here ? static_cast<char*>(recv) : staging.data();
    auto work = SlotOperation::work_for(request, target);
    work.type = mpi_type(reduction.type);
    work.op = mpi_op(reduction.op);
    work.root = root_rank;
    work.is_root = root_here;
    slot->prepare(work);
    proxy_.post(slot);
  }
  reduce_segments(thread, request, send, target, reduction, leader);
  return request;
}

// Phase 1 per segment: team reduce into the leader's target, then the leader hands the segment to the
// proxy (pipelined: the proxy starts segment k across ranks while the team reduces k + 1).
void NodeCollectives::reduce_segments(int thread, const NodeRequest& request, const void* send, char* target,
                                      const Reduction& reduction, int leader) {
  auto& slot = slots_[request.slot];
  for (std::size_t k = 0; k < request.segments; ++k) {
    const std::size_t offset = k * request.segment_elements;
    const std::size_t n = std::min(request.segment_elements, request.count - offset);
    const std::size_t byte_offset = offset * request.element_size;
    team_.reduce(thread, static_cast<const char*>(send) + byte_offset, target ? target + byte_offset : nullptr, n,
                 reduction, leader);
    if (thread == leader) slot->ready.store(request.base + k + 1, std::memory_order_release);
  }
}

NodeRequest NodeCollectives::broadcast(int thread, void* buffer, std::size_t bytes, int root_rank, int root_thread) {
  if (root_rank < 0 || root_rank >= ranks_)
    throw Error("node collective broadcast: root rank " + std::to_string(root_rank) + " is outside [0, " +
                std::to_string(ranks_) + ")");
  if (root_thread < 0 || root_thread >= team_.size())
    throw Error("node collective broadcast: root thread " + std::to_string(root_thread) + " is outside [0, " +
                std::to_string(team_.size()) + ")");
  NodeRequest request = begin(thread, NodeCollectiveKind::broadcast, bytes, 1);
  if (request.kind == NodeCollectiveKind::none) return request;
  const bool root_here = rank_ == root_rank;
  const int leader = root_here ? root_thread : 0;
  request.buffer = buffer;
  request.team_root = leader;
  if (thread == leader) {
    auto& slot = slots_[request.slot];
    auto work = SlotOperation::work_for(request, static_cast<char*>(buffer));
    work.root = root_rank;
    work.is_root = root_here;
    slot->prepare(work);
    slot->ready.store(request.base + request.segments, std::memory_order_release);  // nothing to reduce first
    proxy_.post(slot);
  }
  return request;
}

NodeRequest NodeCollectives::barrier(int thread) {
  NodeRequest request = begin(thread, NodeCollectiveKind::barrier, 0, 1);
  team_.barrier(thread);  // every thread of this rank has arrived ...
  if (thread == 0) {      // ... so thread 0 tells the other ranks
    auto& slot = slots_[request.slot];
    slot->prepare(SlotOperation::work_for(request, nullptr));
    slot->ready.store(request.base + 1, std::memory_order_release);
    proxy_.post(slot);
  }
  return request;
}

void NodeCollectives::await_segment(const NodeRequest& request, std::size_t segment) const {
  const SlotOperation& slot = *slots_[request.slot];
  const std::uint64_t target = request.base + segment + 1;
  const auto done = [&] {
    return slot.done.load(std::memory_order_acquire) >= target || slot.completed_epoch() >= request.epoch;
  };
  const Config& config = proxy_.config();
  if (!done() && !progress_notifier().wait(done, config.wait_policy, Notifier::Clock::now() + config.wait_timeout,
                                           config.spin_count))
    throw TimeoutError(slot.label(), -1, request.epoch,
                       "segment " + std::to_string(segment + 1) + " of " + std::to_string(request.segments) +
                           " not complete after " + std::to_string(config.wait_timeout.count()) +
                           " ms on rank " + std::to_string(rank_) + "; outstanding: " + slot.describe_outstanding());
  if (slot.done.load(std::memory_order_acquire) < target) {
    proxy_.test(Ticket{slots_[request.slot], request.epoch});  // rethrows the stored CommError
    throw Error(slot.label() + " completed without segment " + std::to_string(segment + 1));
  }
}

void NodeCollectives::wait(int thread, NodeRequest& request) {
  if (request.kind == NodeCollectiveKind::none) return;
  if (thread < 0 || thread >= team_.size())
    throw Error("node collective: thread " + std::to_string(thread) + " is outside [0, " +
                std::to_string(team_.size()) + ")");
  PerThread& me = threads_[thread];
  if (request.slot < 0 || !me.pending[request.slot]) throw Error("node collective: wait on a request already waited");
  me.pending[request.slot] = 0;
  const Ticket ticket{slots_[request.slot], request.epoch};
  if (request.kind == NodeCollectiveKind::allreduce || request.kind == NodeCollectiveKind::broadcast) {
    // Phase 3 per segment, as soon as the proxy has it: the team broadcast from the thread holding it.
    for (std::size_t k = 0; k < request.segments; ++k) {
      await_segment(request, k);
      const std::size_t offset = k * request.segment_elements;
      const std::size_t n = std::min(request.segment_elements, request.count - offset);
      team_.broadcast(thread, static_cast<char*>(request.buffer) + offset * request.element_size,
                      n * request.element_size, request.team_root);
    }
  }
  proxy_.wait(ticket);  // the slot's epoch is complete (and its error, if any, rethrown) before it is reused
  request.kind = NodeCollectiveKind::none;
}

bool NodeCollectives::test(const NodeRequest& request) const {
  if (request.kind == NodeCollectiveKind::none) return true;
  return proxy_.test(Ticket{slots_[request.slot], request.epoch});
}

}  // namespace proxy
