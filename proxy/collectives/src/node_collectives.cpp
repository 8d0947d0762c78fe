// Node collectives (seed 003): team phase -> inter-node phase on the proxy -> team phase. This file holds
// what every collective shares: one SlotOperation per outstanding request (node_slot_operation.hpp), each
// with its own duplicated communicator, so that requests in flight at once never depend on the order in
// which ranks' proxies issue them; each thread's bookkeeping of slots and segments; and wait(), the last
// team phase. The start calls are one file each: node_allreduce.cpp, node_reduce.cpp, node_broadcast.cpp,
// node_barrier.cpp.
#include "proxy/node_collectives.hpp"

#include <algorithm>
#include <chrono>
#include <cstddef>
#include <functional>
#include <limits>
#include <string>
#include <thread>

#include "node_slot_operation.hpp"
#include "proxy/detail/counted.hpp"
#include "proxy/proxy_thread.hpp"
#include "proxy/team.hpp"

namespace proxy {

const char* node_detail::name_of(NodeCollectiveKind kind) noexcept {
  switch (kind) {
    case NodeCollectiveKind::none: return "none";
    case NodeCollectiveKind::allreduce: return "allreduce";
    case NodeCollectiveKind::reduce: return "reduce";
    case NodeCollectiveKind::broadcast: return "broadcast";
    case NodeCollectiveKind::barrier: return "barrier";
  }
  return "?";
}

void node_detail::check_builtin(const Reduction& reduction) {
  if (reduction.op == ReduceOp::user)
    throw Error("node collective: user-defined operations are not supported across ranks (an MPI_Op cannot carry "
                "the user context); use sum, prod, min or max");
}

void node_detail::check_root(const char* what, int root_rank, int ranks, int root_thread, int threads) {
  if (root_rank < 0 || root_rank >= ranks)
    throw Error(std::string("node collective ") + what + ": root rank " + std::to_string(root_rank) +
                " is outside [0, " + std::to_string(ranks) + ")");
  if (root_thread < 0 || root_thread >= threads)
    throw Error(std::string("node collective ") + what + ": root thread " + std::to_string(root_thread) +
                " is outside [0, " + std::to_string(threads) + ")");
}

// A thread's own bookkeeping: every thread makes the same calls, so each can know the slot, epoch and
// segment base of a request without asking the others.
struct alignas(64) NodeCollectives::PerThread {
  int next_slot = 0;
  std::vector<std::uint64_t> uses;      // epochs started per slot
  std::vector<std::uint64_t> segments;  // segments handed over per slot, all epochs
  std::vector<char> pending;            // started and not yet waited
};

NodeCollectives::NodeCollectives(ProxyThread& proxy, Team& team, MPI_Comm inter_node, NodeCollectivesConfig config)
    : proxy_(proxy), team_(team), config_(config), progress_(std::make_shared<Notifier>()) {
  if (config_.max_outstanding < 1)
    throw Error("node collectives: max_outstanding must be at least 1, got " + std::to_string(config_.max_outstanding));
  if (config_.window < 1) throw Error("node collectives: window must be at least 1, got " + std::to_string(config_.window));
  if (config_.segment_bytes < 64 || config_.segment_bytes > (std::size_t{1} << 30))
    throw Error("node collectives: segment_bytes must lie in [64, 2^30], got " + std::to_string(config_.segment_bytes));
  for (int i = 0; i < config_.max_outstanding; ++i)
    slots_.push_back(std::make_shared<SlotOperation>(i, config_.window, progress_));
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
  memory_ = memory_share(1);
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
      for (auto& slot : slots_) {
        slot->release();
        if (slot->comm != MPI_COMM_NULL) MPI_Comm_free(&slot->comm);
      }
    });
  } catch (...) {
    // The proxy has failed or is stopping; the communicators go with MPI_Finalize.
  }
}

NodeRequest NodeCollectives::begin(int thread, NodeCollectiveKind kind, std::size_t count, std::size_t element_size) {
  if (thread < 0 || thread >= team_.size())
    throw Error("node collective: thread " + std::to_string(thread) + " is outside [0, " +
                std::to_string(team_.size()) + ")");
  if (count > static_cast<std::size_t>(std::numeric_limits<std::ptrdiff_t>::max()) / element_size)
    throw Error(std::string("node collective ") + node_detail::name_of(kind) + ": count " + std::to_string(count) +
                " of " + detail::counted(element_size, "byte") + " is more than a buffer can hold (at most " +
                std::to_string(std::numeric_limits<std::ptrdiff_t>::max()) + " bytes)");
  NodeRequest request;
  if (count == 0 && kind != NodeCollectiveKind::barrier) return request;  // nothing to do anywhere
  PerThread& me = threads_[thread];
  const int slot = me.next_slot;
  if (me.pending[slot])
    throw Error("node collective: thread " + std::to_string(thread) + " started more than " +
                detail::counted(slots_.size(), "request") + " without waiting (slot " + std::to_string(slot) +
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

bool NodeCollectives::wait_until(const std::function<bool()>& done, const std::function<bool(bool)>& drive,
                                 Notifier::Clock::time_point deadline) const {
  const Config& config = proxy_.config();
  const auto spins = static_cast<unsigned long>(config.spin_count);
  for (unsigned long i = 0;; ++i) {
    if (done()) return true;
    if (proxy_.needs_progress()) {
      // Cooperative progress: the proxy thread sleeps, so a waiter moves the inter-node phase itself (a
      // wait on the notifier alone would take the proxy's backstop interval per segment). Outside the
      // notifier's wait: the pass publishes through that notifier.
      if (drive(i >= spins)) proxy_.progress_point();
      if (i < spins)
        cpu_relax();
      else
        std::this_thread::yield();
      if ((i & 63) == 63 && Notifier::Clock::now() >= deadline) return done();
      continue;
    }
    // The proxy thread progresses (or nothing is left in flight): sleep on its notifications, a slice at a
    // time, so that the loop looks again at whether this thread should progress.
    const auto slice = std::min(deadline, Notifier::Clock::now() + std::chrono::milliseconds(10));
    if (progress_->wait(done, config.wait_policy, slice, config.spin_count)) return true;
    if (Notifier::Clock::now() >= deadline) return done();
  }
}

void NodeCollectives::await_segment(int thread, const NodeRequest& request, std::size_t segment) const {
  SlotOperation& slot = *slots_[request.slot];
  const std::uint64_t target = request.base + segment + 1;
  const auto done = [&] {
    return slot.done.load(std::memory_order_acquire) >= target || slot.completed_epoch() >= request.epoch;
  };
  // One driver per rank while the team root awaits a segment: with every waiting thread trying the progress
  // token, the token and the MPI state moved between cores at every pass (2 ranks x 8 threads on 16 cores,
  // 8 B: 6.8 us against 5.9-6.2 us with the root alone; bench/RESULTS.md). A thread that has spun its spin
  // count without the root awaiting (the root still computing, or broadcasting the previous segment) drives
  // too, so that a late root holds nothing back.
  const Config& config = proxy_.config();
  const bool root = thread == request.team_root;
  const auto drive = [&](bool spun_out) {
    return root || (spun_out && slot.root_awaiting.load(std::memory_order_relaxed) != request.epoch);
  };
  if (root) slot.root_awaiting.store(request.epoch, std::memory_order_relaxed);
  const bool complete = wait_until(done, drive, Notifier::Clock::now() + config.wait_timeout);
  if (root) slot.root_awaiting.store(0, std::memory_order_relaxed);
  if (!complete)
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
  if (request.local) {
    request.kind = NodeCollectiveKind::none;
    return;
  }
  const Ticket ticket{slots_[request.slot], request.epoch};
  if (request.kind == NodeCollectiveKind::allreduce || request.kind == NodeCollectiveKind::broadcast) {
    // Phase 3 per segment, as soon as the proxy has it: the team broadcast from the thread holding it.
    for (std::size_t k = 0; k < request.segments; ++k) {
      await_segment(thread, request, k);
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
  if (request.kind == NodeCollectiveKind::none || request.local) return true;
  return proxy_.test(Ticket{slots_[request.slot], request.epoch});
}

}  // namespace proxy
