// Private to proxy::collectives: the inter-node phase of one NodeCollectives request slot, an Operation the
// proxy progresses, and the checks the start calls share. One file per collective (node_allreduce.cpp,
// node_reduce.cpp, node_broadcast.cpp, node_barrier.cpp); the slots, the bookkeeping and wait() are
// node_collectives.cpp.
// Per segment the state machine is: reduced by the team (ready, published by the team's leader thread) ->
// issued by the proxy (MPI_I*) -> completed (done, published by the proxy) -> broadcast by the team in
// wait(). `ready` and `done` count segments over the slot's whole life, so nothing is reset between epochs.
// Each segment is a CollectiveElement started by the plans' collective elements' code
// (proxy/detail/collective_requests.hpp). A request of one segment up to kPersistentBytes (a solver's dot
// product, a small broadcast) takes an MPI-4 persistent collective on the slot's own buffer: an MPI_I* call
// builds its schedule every time, which at 8 B costs more than the transfer. The slot keeps the request
// while its shape (kind, count, type, operation, root) stays the same; every rank makes the same calls on a
// slot in the same order, so the ranks re-create it together, as a persistent collective's initialisation
// requires.
// Thread contract: prepare() runs on the thread that posts (before post(), whose queue hand-off orders it
// before start()); start/progress/release run on the proxy thread; ready is written by the leader thread,
// done by the proxy, both read by anyone.
#pragma once

#include <algorithm>
#include <atomic>
#include <cstdint>
#include <cstring>
#include <memory>
#include <string>
#include <vector>

#include <mpi.h>

#include "proxy/detail/collective_requests.hpp"
#include "proxy/detail/counted.hpp"
#include "proxy/error.hpp"
#include "proxy/node_collectives.hpp"
#include "proxy/operation.hpp"
#include "proxy/reduction.hpp"
#include "proxy/detail/notifier.hpp"

namespace proxy {

namespace node_detail {

const char* name_of(NodeCollectiveKind kind) noexcept;
// Throws proxy::Error for a user-defined operation (an MPI_Op cannot carry the user's context).
void check_builtin(const Reduction& reduction);
// Throws proxy::Error unless the root rank and thread lie inside the ranks and the team ("node collective
// reduce: root rank 3 is outside [0, 2)").
void check_root(const char* what, int root_rank, int ranks, int root_thread, int threads);

}  // namespace node_detail

class NodeCollectives::SlotOperation final : public Operation {
 public:
  SlotOperation(int index, int window, std::shared_ptr<Notifier> progress)
      : Operation("node collective slot " + std::to_string(index)), requests_(window, MPI_REQUEST_NULL),
        progress_(std::move(progress)) {}

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
    persistent_now_ = work_.segments == 1 && work_.what != NodeCollectiveKind::barrier &&
                      work_.count * work_.element_size <= kPersistentBytes && persistent_collectives_available();
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
      check(MPI_Test(persistent_now_ ? &persistent_ : &requests_[finished_ % window], &flag, MPI_STATUS_IGNORE),
            "MPI_Test");
      if (!flag) break;
      if (persistent_now_) copy_out();
      ++finished_;
      done.store(finished_, std::memory_order_release);
      progress_->notify_all();
    }
    return finished_ == end;
  }

  std::string describe_outstanding() const override {
    const std::uint64_t d = done.load(std::memory_order_acquire), r = ready.load(std::memory_order_acquire);
    return std::string(node_detail::name_of(work_.what)) + ": " + std::to_string(d - std::min(d, work_.base)) +
           " of " + detail::counted(work_.segments, "segment") + " done across ranks, " +
           std::to_string(r - std::min(r, work_.base)) + " handed to the proxy";
  }

  std::uint64_t bytes_per_epoch() const noexcept override { return work_.count * work_.element_size; }
  // Its requests are collectives, which MPI cannot cancel. With none in flight (the team never handed a segment
  // over: a thread missing, its collective timed out) there is nothing in MPI to cancel, and shutdown cancels the
  // epoch with a warning; it ended the job ("0 handed to the proxy, which cannot be cancelled").
  bool cancellable() const noexcept override { return issued_ == finished_; }

  // Proxy thread, before the slot's communicator is freed: frees the persistent request unless an epoch
  // nobody waited for still uses it (the proxy goes on testing it; MPI_Finalize takes it then).
  void release() noexcept {
    if (persistent_ != MPI_REQUEST_NULL && completed_epoch() >= started_epoch()) MPI_Request_free(&persistent_);
  }

  MPI_Comm comm = MPI_COMM_NULL;
  alignas(64) std::atomic<std::uint64_t> ready{0};  // segments the team has handed over (leader thread)
  alignas(64) std::atomic<std::uint64_t> done{0};   // segments complete across ranks (proxy thread)
  // The epoch whose segment the team root is awaiting, 0 when none: the other waiters leave progress to it.
  alignas(64) std::atomic<std::uint64_t> root_awaiting{0};

 private:
  void check(int code, const char* call) const {
    if (code != MPI_SUCCESS) throw CommError(label(), -1, epoch_, std::string(call) + ": " + mpi_error_string(code));
  }

  void issue(std::uint64_t segment, MPI_Request& request) {
    const std::size_t offset = segment * work_.segment_elements;
    const int n = static_cast<int>(std::min(work_.segment_elements, work_.count - offset));
    if (work_.what == NodeCollectiveKind::barrier) {
      check(MPI_Ibarrier(comm, &request), "MPI_Ibarrier");
    } else if (persistent_now_) {
      start_persistent(element_for(staging_, n));
    } else {
      check(detail::start_nonblocking_collective(element_for(work_.buffer + offset * work_.element_size, n), comm,
                                                 &request),
            "starting the non-blocking collective");
    }
  }

  // A segment of `n` elements at `data` as a collective element, in place (on the root, for a reduce).
  CollectiveElement element_for(char* data, int n) const {
    CollectiveElement e;
    e.comm = comm;
    e.count = n;
    e.root = work_.root;
    e.type = work_.type;
    e.op = work_.op;
    if (work_.what == NodeCollectiveKind::allreduce) {
      e.kind = CollectiveElement::Kind::allreduce;
      e.send = MPI_IN_PLACE;
      e.buffer = data;
    } else if (work_.what == NodeCollectiveKind::reduce) {
      e.kind = CollectiveElement::Kind::reduce;
      e.send = work_.is_root ? MPI_IN_PLACE : static_cast<const void*>(data);
      e.buffer = work_.is_root ? data : nullptr;
    } else {
      e.kind = CollectiveElement::Kind::broadcast;
      e.type = MPI_BYTE;
      e.buffer = data;
    }
    return e;
  }

  // The persistent path: the request for this shape on the slot's buffer (re-created when the shape
  // changes), the data copied in before the start and out at completion (copy_out).
  void start_persistent(const CollectiveElement& shape) {
    if (persistent_ == MPI_REQUEST_NULL || !same_shape(shape, shape_)) {
      if (persistent_ != MPI_REQUEST_NULL) MPI_Request_free(&persistent_);  // inactive: the last epoch was waited
      const int code = detail::init_persistent_collective(shape, comm, &persistent_);
      if (code != MPI_SUCCESS) persistent_ = MPI_REQUEST_NULL;  // nothing to free later
      check(code, "creating the persistent collective");
      shape_ = shape;
    }
    if (work_.what != NodeCollectiveKind::broadcast || work_.is_root)
      std::memcpy(staging_, work_.buffer, work_.count * work_.element_size);
    check(MPI_Start(&persistent_), "MPI_Start");
  }

  void copy_out() noexcept {
    if (work_.what == NodeCollectiveKind::allreduce || (work_.what == NodeCollectiveKind::reduce && work_.is_root) ||
        (work_.what == NodeCollectiveKind::broadcast && !work_.is_root))
      std::memcpy(work_.buffer, staging_, work_.count * work_.element_size);
  }

  static bool same_shape(const CollectiveElement& a, const CollectiveElement& b) noexcept {
    return a.kind == b.kind && a.count == b.count && a.root == b.root && a.type == b.type && a.op == b.op &&
           a.send == b.send && a.buffer == b.buffer;
  }

  static constexpr std::size_t kPersistentBytes = 8 * 1024;

  Work work_;
  std::uint64_t epoch_ = 0;
  std::uint64_t issued_ = 0, finished_ = 0;  // proxy thread only
  std::vector<MPI_Request> requests_;        // ring of `window` in-flight segments
  bool persistent_now_ = false;              // this epoch takes the persistent path (proxy thread only)
  MPI_Request persistent_ = MPI_REQUEST_NULL;
  CollectiveElement shape_;                  // what persistent_ was created for
  alignas(64) char staging_[kPersistentBytes];
  // Shared with the NodeCollectives: a slot the proxy still holds after an unwaited request may outlive it.
  std::shared_ptr<Notifier> progress_;
};

}  // namespace proxy
