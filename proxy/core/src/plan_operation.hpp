// Private to proxy::core: a committed plan as an Operation (persistent MPI requests started per epoch).
//
// Thread contract: constructed, started, progressed, cancelled and released ONLY on the proxy thread.
// describe_outstanding(), outstanding_peer() and the statistics may be read from any thread (atomics).
#pragma once

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include <mpi.h>

#include "proxy/operation.hpp"
#include "proxy/plan.hpp"

#include "communicator_cache.hpp"
#include "help_board.hpp"
#include "part_readiness.hpp"

namespace proxy {

// Throws proxy::Error naming the first bad transfer (peer outside the communicator, bad tag, count, buffer,
// a part outside the declared parts). Collective elements are checked on the proxy thread (validate_collectives).
void validate_plan(const PlanSpec& spec, int comm_size, int tag_upper_bound);

// Per-plan timings when Config::timings asks, written by the proxy thread only and read (relaxed) by
// ProxyThread::statistics(). The count of epochs is the plan's completed epoch (epochs are numbered 1, 2, ...).
struct PlanTimings {
  std::atomic<std::uint64_t> total_ticks{0};  // the loop's clock (detail/timer.hpp)
  std::atomic<std::uint64_t> max_ticks{0};

  // The loop's runner: one epoch took `ticks` from its start to its completion.
  void record(std::uint64_t ticks) noexcept {
    total_ticks.store(total_ticks.load(std::memory_order_relaxed) + ticks, std::memory_order_relaxed);
    if (ticks > max_ticks.load(std::memory_order_relaxed)) max_ticks.store(ticks, std::memory_order_relaxed);
  }
};

class PlanOperation final : public Operation {
 public:
  // Proxy thread: creates the persistent requests. proxy_id: the committing ProxyThread (start() on any
  // other is refused). communicators: where collective elements get their duplicated communicator.
  // helpers: where the thread-level phase of a hierarchical element is shared with waiting threads.
  PlanOperation(const PlanSpec& spec, MPI_Comm comm, std::uint64_t proxy_id, CommunicatorCache& communicators,
                HelpBoard& helpers);
  ~PlanOperation() override;
  const char* kind() const noexcept override { return "plan"; }

  // The loop calls these on a PlanOperation (final), so their common case inlines into its pass: a plan of
  // transfers that wait for nothing, started with one MPI_Startall and tested with one MPI_Testsome (an 8-byte
  // round trip is bound by instructions, bench/RESULTS.md). The rest goes out of line (start_general,
  // progress_general).
  void start(std::uint64_t epoch) override {
    if (!starts_plainly_) [[unlikely]] {
      start_general(epoch);
      return;
    }
    // Nothing to reset: a slot is done in this epoch once stamped with it (done_in).
    epoch_ = epoch;
    pending_ = static_cast<int>(requests_.size());
    const int code = MPI_Startall(pending_, requests_.data());
    if (code != MPI_SUCCESS) [[unlikely]] startall_failed(code);
  }
  bool progress() override {
    if (!tests_plainly_ || held_ > 0 || pending_ == 0) [[unlikely]]
      return progress_general();
    return test_transfers();
  }
  void cancel() noexcept override;
  // False while a collective element is outstanding (MPI cannot cancel it): shutdown reports and ends the job.
  bool cancellable() const noexcept override;
  std::string describe_outstanding() const override;
  int outstanding_peer() const noexcept override;
  std::uint64_t bytes_per_epoch() const noexcept override { return bytes_; }

  // Whether start() and progress() run no code of the user's: no pack or unpack, parts or collectives (and
  // not released). ProgressLoop::pass_for then tests it without the rest of a pass.
  bool runs_plainly() const noexcept { return starts_plainly_ && tests_plainly_; }
  std::size_t transfer_count() const noexcept { return slots_.size() - collective_count_; }
  std::size_t collective_count() const noexcept { return collective_count_; }
  int part_count() const noexcept { return readiness_.count(); }
  // Any thread (ProxyThread::ready): part `part` of `epoch` is ready; throws proxy::Error on misuse.
  void mark_ready(int part, std::uint64_t epoch);
  std::uint64_t proxy_id() const noexcept { return proxy_id_; }
  PlanTimings& timings() noexcept { return timings_; }
  const PlanTimings& timings() const noexcept { return timings_; }

  // Proxy thread: the last handle is gone. Frees the requests now, or when the running epoch leaves the
  // active set (an active persistent request must not be freed under MPI_Testsome).
  void release_when_idle() noexcept;
  // Proxy thread: an epoch entered / left the active set.
  void set_in_flight(bool in_flight) noexcept {
    in_flight_ = in_flight;
    if (!in_flight && (collective_count_ > 0 || release_requested_)) left_flight();
  }
  // Proxy thread, at shutdown or on release: frees the persistent requests; later starts fail.
  void release() noexcept;

 private:
  struct Slot {
    Transfer transfer;
    std::vector<std::byte> staging;  // packed transfers; a hierarchical element's thread-level result
    std::byte* reduced = nullptr;    // where that result goes: staging, or an allreduce's own result buffer
    std::uint64_t bytes = 0;
    // The last epoch this slot completed in, read by waiters for timeout reports (done_in). Stamped one by
    // one only while others are outstanding: an epoch that completes at once is published as a whole.
    std::atomic<std::uint64_t> done_epoch{0};
    std::optional<CollectiveElement> collective;
    MPI_Comm collective_comm = MPI_COMM_NULL;
    CollectiveQueue* queue = nullptr;  // the order of the collectives on collective_comm (communicator_cache.hpp)
    int collective_size = 0;
    bool persistent = true;          // false: a non-blocking collective posted every epoch
    std::vector<int> parts;          // a *_when_ready() transfer or element: started once these are ready
    std::atomic<bool> held{false};   // ... and they are not all ready yet in this epoch
  };
  // Constructor: slot.staging of `bytes`; a failure releases what was made and throws proxy::Error naming the
  // plan and `item` ("reduce element 0") rather than a bare std::bad_alloc.
  void allocate_staging(Slot& slot, std::uint64_t bytes, const std::string& item);
  // One MPI_Testsome over the started requests (pending_ > 0); true once none is pending. While the epoch goes
  // on (others pending or held), its completed slots are stamped one by one (done_in); its completion is
  // published for all of them.
  bool test_transfers() {
    int completed = 0;
    const int code = MPI_Testsome(static_cast<int>(requests_.size()), requests_.data(), &completed,
                                  indices_.data(), statuses_.data());
    if (code != MPI_SUCCESS) [[unlikely]] testsome_failed(code, completed);
    if (completed == 0) return false;  // the common failing poll
    if (completed == MPI_UNDEFINED) {  // no active request left
      pending_ = 0;
      return true;
    }
    pending_ -= completed;
    if (pending_ == 0 && held_ == 0) return true;
    stamp(completed);
    return pending_ == 0;
  }
  void start_general(std::uint64_t epoch);  // packs, parts, collectives, a released plan: one by one
  bool progress_general();                  // held slots, collectives, unpacks
  [[noreturn, gnu::noinline, gnu::cold]] void startall_failed(int code) const;
  void stamp(int completed) noexcept;       // the first `completed` of indices_ are done in epoch_
  void start_slot(std::size_t index);  // pack (if packed) or reduce contributions, and start one request
  void reduce_contributions_of(Slot& slot);  // a hierarchical element's thread-level phase, into `reduced`
  void start_ready_slots();            // start the held transfers and elements whose parts are now all ready
  bool queues_empty() const noexcept;  // no collective of this or another plan waits on our communicators
  void leave_queues() noexcept;        // this epoch's held collectives will not start (failed, cancelled)
  void test_one_by_one();              // MPI_Test each outstanding request (plans with collectives)
  // Throws the CommError for MPI_Testsome's `code`: the failed transfer's, or the call's (off the hot path).
  [[noreturn, gnu::noinline, gnu::cold]] void testsome_failed(int code, int completed) const;
  void left_flight() noexcept;         // set_in_flight(false) with collectives, or a release waiting
  // Whether `slot` has completed in `epoch` (any thread): stamped, or the whole epoch is published.
  bool done_in(const Slot& slot, std::uint64_t epoch) const noexcept {
    return slot.done_epoch.load(std::memory_order_relaxed) == epoch || completed_epoch() >= epoch;
  }
  std::string describe_slot(const Slot& slot) const;
  MPI_Comm comm_;
  std::uint64_t proxy_id_;
  HelpBoard& helpers_;
  std::vector<std::unique_ptr<Slot>> slots_;
  std::vector<MPI_Request> requests_;  // persistent, one per slot, contiguous for MPI_Startall / MPI_Testsome
  std::vector<int> indices_;
  std::vector<MPI_Status> statuses_;
  std::uint64_t bytes_ = 0;
  std::uint64_t epoch_ = 0;
  int pending_ = 0;   // started and not yet complete
  int held_ = 0;      // waiting for their parts
  bool start_all_at_once_ = true;  // every request persistent, none waits for parts or contributions: one MPI_Startall
  std::size_t collective_count_ = 0;
  bool has_unpack_ = false;  // a transfer unpacks its staging buffer at completion
  bool has_pack_ = false;    // a transfer packs its staging buffer at the start
  // The inlined paths: transfers only, none waiting for parts, none packed (starts), none unpacked (tests);
  // starts_plainly_ turns false on release (a start is then refused, out of line).
  bool starts_plainly_ = false;
  bool tests_plainly_ = false;
  PartReadiness readiness_;
  bool released_ = false;
  bool in_flight_ = false;
  bool release_requested_ = false;
  PlanTimings timings_;
};

}  // namespace proxy
