// PlanOperation: a committed plan as persistent MPI requests progressed by the proxy (plan_operation.hpp).
#include "plan_operation.hpp"

#include <algorithm>
#include <cstdint>
#include <new>
#include <string>

#include "plan_checks.hpp"
#include "plan_collectives.hpp"
#include "proxy/memory.hpp"
#include "proxy/detail/counted.hpp"
#include "proxy/error.hpp"

namespace proxy {

namespace {
// "send to rank 1 tag 3"
std::string describe_transfer(const Transfer& t) {
  return std::string(t.direction == Transfer::Direction::send ? "send to" : "recv from") + " rank " +
         std::to_string(t.peer) + " tag " + std::to_string(t.tag);
}

const char* init_call_name(CollectiveElement::Kind kind) {
  switch (kind) {
    case CollectiveElement::Kind::broadcast: return "Bcast";
    case CollectiveElement::Kind::reduce: return "Reduce";
    case CollectiveElement::Kind::allreduce: return "Allreduce";
  }
  return "?";
}

std::string describe(const Transfer& t, std::uint64_t bytes) {
  return describe_transfer(t) + " (" + detail::counted(bytes, "byte") + ")";
}

}  // namespace

PlanOperation::PlanOperation(const PlanSpec& spec, MPI_Comm comm, std::uint64_t proxy_id,
                             CommunicatorCache& communicators, HelpBoard& helpers)
    : Operation(spec.name()), comm_(comm), proxy_id_(proxy_id), helpers_(helpers), readiness_(spec.part_count()) {
  slots_.reserve(spec.transfers().size() + spec.collectives().size());
  for (std::size_t index = 0; index < spec.transfers().size(); ++index) {
    const Transfer& t = spec.transfers()[index];
    if (t.peer == MPI_PROC_NULL) continue;  // nothing to move: dropped here rather than started every epoch
    auto slot = std::make_unique<Slot>();
    slot->transfer = t;
    const std::uint64_t type_size = t.pack || t.unpack ? 1 : datatype_size(t.type);
    slot->bytes = static_cast<std::uint64_t>(t.count) * type_size;
    bytes_ += slot->bytes;
    void* buffer = t.buffer;
    if (t.pack || t.unpack) {
      allocate_staging(*slot, slot->bytes, "transfer " + std::to_string(index));
      buffer = slot->staging.data();
    }
    MPI_Request request = MPI_REQUEST_NULL;
    const int code = t.direction == Transfer::Direction::send
                         ? MPI_Send_init(buffer, t.count, t.type, t.peer, t.tag, comm_, &request)
                         : MPI_Recv_init(buffer, t.count, t.type, t.peer, t.tag, comm_, &request);
    if (code != MPI_SUCCESS) {
      release();
      // Not a CommError: no epoch has started (the datatypes MPI refuses are refused before, plan_checks.hpp).
      throw Error(label() + ": transfer " + std::to_string(index) + " (" + describe_transfer(t) + "): " +
                  (t.direction == Transfer::Direction::send ? "MPI_Send_init" : "MPI_Recv_init") +
                  " failed at commit: " + mpi_error_string(code));
    }
    slot->parts = t.parts;
    if (!t.parts.empty()) start_all_at_once_ = false;
    if (t.unpack) has_unpack_ = true;
    if (t.pack) has_pack_ = true;
    slots_.push_back(std::move(slot));
    requests_.push_back(request);
  }
  for (std::size_t index = 0; index < spec.collectives().size(); ++index) {
    const CollectiveElement& e = spec.collectives()[index];
    auto slot = std::make_unique<Slot>();
    slot->collective = e;
    slot->bytes = static_cast<std::uint64_t>(e.count) * datatype_size(e.type);
    bytes_ += slot->bytes;
    slot->parts = e.parts;
    if (!e.contributions.empty()) {
      // The collective sends what the threads' contributions reduce to. An allreduce reduces them into its
      // own result and runs in place: no staging copy for MPI to read (on one rank, nothing more to do).
      // A reduce (its result is the root's only), or a result that overlaps a contribution: a staging buffer.
      if (!needs_staging(e, buffer_span(static_cast<std::uint64_t>(e.count), e.type))) {
        slot->reduced = static_cast<std::byte*>(e.buffer);
        slot->collective->send = MPI_IN_PLACE;
      } else {
        MPI_Aint lower = 0, extent = 0;  // laid out as the contributions: padding after each element too
        MPI_Type_get_extent(e.type, &lower, &extent);
        allocate_staging(*slot, static_cast<std::uint64_t>(e.count) * static_cast<std::uint64_t>(extent),
                         std::string(kind_name(e.kind)) + " element " + std::to_string(index));
        slot->reduced = slot->staging.data();
        slot->collective->send = slot->reduced;
      }
    }
    if (!e.parts.empty() || !e.contributions.empty()) start_all_at_once_ = false;
    MPI_Request request = MPI_REQUEST_NULL;
    CollectiveQueue* queue = nullptr;
    try {
      const CommunicatorCache::Duplicate duplicate = communicators.duplicate_of(e.comm);
      slot->collective_comm = duplicate.comm;
      queue = duplicate.queue;
    } catch (...) {
      release();
      throw;
    }
    MPI_Comm_size(slot->collective_comm, &slot->collective_size);
    slot->persistent = persistent_collectives_available();
    if (slot->persistent) {
      const int code = init_persistent_collective(*slot->collective, slot->collective_comm, &request);
      if (code != MPI_SUCCESS) {
        release();
        throw Error(label() + ": " + kind_name(e.kind) + " element " + std::to_string(index) + ": MPI_" +
                    init_call_name(e.kind) + "_init failed at commit: " + mpi_error_string(code));
      }
    } else {
      start_all_at_once_ = false;
    }
    queue->reserve_one_more();
    slot->queue = queue;
    ++collective_count_;
    slots_.push_back(std::move(slot));
    requests_.push_back(request);
  }
  indices_.resize(slots_.size());
  statuses_.resize(slots_.size());
  starts_plainly_ = start_all_at_once_ && collective_count_ == 0 && !has_pack_ && !slots_.empty();
  tests_plainly_ = collective_count_ == 0 && !has_unpack_;
}

void PlanOperation::allocate_staging(Slot& slot, std::uint64_t bytes, const std::string& item) {
  try {
    slot.staging.resize(static_cast<std::size_t>(bytes));
  } catch (const std::bad_alloc&) {  // checked against the memory available at validation; taken since
    release();
    throw Error(label() + ": " + item + " could not allocate its staging buffer of " +
                bytes_text(static_cast<double>(bytes)) + " (out of memory)");
  }
}

PlanOperation::~PlanOperation() = default;  // requests are freed by release() on the proxy thread

void PlanOperation::release() noexcept {
  if (released_) return;
  leave_queues();
  for (const auto& slot : slots_)
    if (slot->queue != nullptr) slot->queue->release_one();
  // Freeing an active (cancelled) request is allowed: MPI deallocates it once it completes.
  for (std::size_t i = 0; i < requests_.size(); ++i)
    if (requests_[i] != MPI_REQUEST_NULL && slots_[i]->persistent) MPI_Request_free(&requests_[i]);
  released_ = true;
  starts_plainly_ = false;  // start_general refuses
}

void PlanOperation::release_when_idle() noexcept {
  if (in_flight_)
    release_requested_ = true;
  else
    release();
}

void PlanOperation::left_flight() noexcept {
  // An epoch that failed or was cancelled with collectives still held leaves their queues (only collectives
  // join one: a plan of transfers skips the walk over its slots on every completion).
  if (collective_count_ > 0) leave_queues();
  if (release_requested_) release();
}

void PlanOperation::start_general(std::uint64_t epoch) {
  if (released_) throw CommError(label(), -1, epoch, "started after its proxy shut down");
  epoch_ = epoch;
  pending_ = 0;
  held_ = 0;
  if (start_all_at_once_ && (collective_count_ == 0 || queues_empty())) {
    if (has_pack_)
      for (auto& slot : slots_)
        if (slot->transfer.pack) slot->transfer.pack(slot->staging.data());
    pending_ = static_cast<int>(slots_.size());
    if (pending_ == 0) return;
    const int code = MPI_Startall(static_cast<int>(requests_.size()), requests_.data());
    if (code != MPI_SUCCESS) startall_failed(code);
    return;
  }
  // One by one, in spec order (transfers, then collectives, the same order on every rank). Transfers waiting
  // for parts are held until progress() finds their parts ready. A collective waiting for parts, or behind one
  // that waits (in this plan or in a plan started before), joins its communicator's queue and starts in turn.
  try {
    for (std::size_t i = 0; i < slots_.size(); ++i) {
      Slot& slot = *slots_[i];
      const bool waits_for_parts = !slot.parts.empty() && !readiness_.all_ready(slot.parts, epoch);
      if (waits_for_parts || (slot.queue != nullptr && !slot.queue->empty())) {
        if (slot.queue != nullptr) slot.queue->push(&slot);
        slot.held.store(true, std::memory_order_relaxed);
        ++held_;
        continue;
      }
      start_slot(i);
    }
  } catch (...) {
    leave_queues();
    throw;
  }
}

bool PlanOperation::queues_empty() const noexcept {
  for (const auto& slot : slots_)
    if (slot->queue != nullptr && !slot->queue->empty()) return false;
  return true;
}

void PlanOperation::leave_queues() noexcept {
  for (const auto& slot : slots_)
    if (slot->queue != nullptr && slot->held.load(std::memory_order_relaxed)) slot->queue->remove(slot.get());
}

void PlanOperation::start_slot(std::size_t index) {
  Slot& slot = *slots_[index];
  int code = MPI_SUCCESS;
  if (slot.collective && !slot.collective->contributions.empty()) reduce_contributions_of(slot);
  if (slot.collective && !slot.persistent) {
    code = start_nonblocking_collective(*slot.collective, slot.collective_comm, &requests_[index]);
  } else {
    if (slot.transfer.pack) slot.transfer.pack(slot.staging.data());
    code = MPI_Start(&requests_[index]);
  }
  if (code != MPI_SUCCESS)
    throw CommError(label(), slot.collective ? -1 : slot.transfer.peer, epoch_,
                    "starting " + describe_slot(slot) + " failed: " + mpi_error_string(code));
  ++pending_;
}

void PlanOperation::reduce_contributions_of(Slot& slot) {
  // Strips of about 16 KiB of input (contributions x strip), at least 1 KiB of result (a whole number of
  // cache lines): small enough that 16 threads share 16 vectors of 8 KiB. Shared once there are two strips:
  // 32 KiB of contributions in all. At most 1024 strips: every claim is an atomic add on one line that all
  // the helpers contend for (16 threads on 16 vectors of 8 MiB took 8192 claims an epoch, 1024 now).
  constexpr std::uint64_t kStripInputBytes = 16 * 1024, kMinStripBytes = 1024, kMaxStrips = 1024;
  const CollectiveElement& e = *slot.collective;
  const std::uint64_t strip_bytes =
      std::max({kMinStripBytes, kStripInputBytes / e.contributions.size() / 64 * 64,
                (slot.bytes + kMaxStrips * 64 - 1) / (kMaxStrips * 64) * 64});
  if (slot.bytes >= 2 * strip_bytes && reduces_in_ranges(e)) {
    struct Strips {
      const CollectiveElement* element;
      std::byte* result;
      std::size_t per_strip;  // elements
      std::size_t count;
    };
    const std::size_t count = static_cast<std::size_t>(e.count);
    Strips strips{&e, slot.reduced, std::max<std::size_t>(1, strip_bytes * count / slot.bytes), count};
    StripJob job;
    job.run = [](void* context, std::size_t strip) noexcept {
      const Strips& s = *static_cast<const Strips*>(context);
      const std::size_t first = strip * s.per_strip;
      reduce_contribution_range(*s.element, s.result, first, std::min(s.per_strip, s.count - first));
    };
    job.context = &strips;
    job.strips = (count + strips.per_strip - 1) / strips.per_strip;
    helpers_.run(job);
    return;
  }
  const int code = reduce_contributions(e, slot.reduced);
  if (code != MPI_SUCCESS)
    throw CommError(label(), -1, epoch_, "reducing the contributions of " + describe_slot(slot) + " failed: " +
                                             mpi_error_string(code));
}

void PlanOperation::start_ready_slots() {
  for (std::size_t i = 0; i < slots_.size() && held_ > 0; ++i) {
    Slot& slot = *slots_[i];
    if (!slot.held.load(std::memory_order_relaxed) || !readiness_.all_ready(slot.parts, epoch_)) continue;
    if (slot.queue != nullptr) {
      if (!slot.queue->at_front(&slot)) continue;  // an earlier collective on its communicator has not started
      slot.queue->pop_front();
    }
    slot.held.store(false, std::memory_order_relaxed);
    --held_;
    start_slot(i);
  }
}

void PlanOperation::mark_ready(int part, std::uint64_t epoch) { readiness_.mark(name(), part, epoch); }

bool PlanOperation::progress_general() {
  if (held_ > 0) start_ready_slots();
  if (pending_ > 0 && collective_count_ > 0) {
    test_one_by_one();
    if (pending_ > 0) return false;
  } else if (pending_ > 0 && !test_transfers()) {
    return false;
  }
  if (held_ > 0) return false;
  if (has_unpack_)
    for (auto& slot : slots_)
      if (slot->transfer.unpack) slot->transfer.unpack(slot->staging.data());
  return true;
}

void PlanOperation::stamp(int completed) noexcept {
  for (int j = 0; j < completed; ++j)
    slots_[static_cast<std::size_t>(indices_[static_cast<std::size_t>(j)])]->done_epoch.store(epoch_,
                                                                                              std::memory_order_relaxed);
}

void PlanOperation::startall_failed(int code) const {
  throw CommError(label(), -1, epoch_, "MPI_Startall failed: " + mpi_error_string(code));
}

void PlanOperation::testsome_failed(int code, int completed) const {
  for (int j = 0; code == MPI_ERR_IN_STATUS && j < completed; ++j) {
    const int error = statuses_[static_cast<std::size_t>(j)].MPI_ERROR;
    if (error != MPI_SUCCESS) {
      const Slot& slot = *slots_[static_cast<std::size_t>(indices_[static_cast<std::size_t>(j)])];
      throw CommError(label(), slot.collective ? -1 : slot.transfer.peer, epoch_,
                      describe_slot(slot) + " failed: " + mpi_error_string(error));
    }
  }
  throw CommError(label(), -1, epoch_, "MPI_Testsome failed: " + mpi_error_string(code));
}

void PlanOperation::test_one_by_one() {
  // MPICH 4.0.2's MPI_Testsome reports a completed (inactive) persistent collective as completing again and
  // never reports others, so plans with collective elements test each outstanding request on its own.
  for (std::size_t i = 0; i < slots_.size() && pending_ > 0; ++i) {
    Slot& slot = *slots_[i];
    if (done_in(slot, epoch_) || slot.held.load(std::memory_order_relaxed)) continue;
    int flag = 0;
    MPI_Status status;
    const int code = MPI_Test(&requests_[i], &flag, &status);
    if (code != MPI_SUCCESS)
      throw CommError(label(), slot.collective ? -1 : slot.transfer.peer, epoch_,
                      describe_slot(slot) + " failed: " + mpi_error_string(code));
    if (!flag) continue;
    slot.done_epoch.store(epoch_, std::memory_order_relaxed);
    --pending_;
  }
}

void PlanOperation::cancel() noexcept {
  // Collectives cannot be cancelled (MPI forbids it); held transfers were never started.
  for (std::size_t i = 0; i < slots_.size(); ++i) {
    const Slot& slot = *slots_[i];
    if (!done_in(slot, epoch_) && !slot.collective && !slot.held.load(std::memory_order_relaxed) &&
        requests_[i] != MPI_REQUEST_NULL)
      MPI_Cancel(&requests_[i]);
  }
}

bool PlanOperation::cancellable() const noexcept {
  for (const auto& slot : slots_)
    if (slot->collective && !done_in(*slot, epoch_) && !slot->held.load(std::memory_order_relaxed))
      return false;
  return true;
}

std::string PlanOperation::describe_outstanding() const {
  // The first 16, then how many more: a plan with a transfer to and from every rank (a transpose) can have
  // thousands outstanding, and "one peer missing" reads differently from "all of them".
  constexpr std::size_t kListed = 16;
  std::string text;
  std::size_t outstanding = 0;
  const std::uint64_t epoch = started_epoch();
  for (const auto& slot : slots_) {
    if (done_in(*slot, epoch)) continue;
    if (++outstanding <= kListed) text += (text.empty() ? "" : "; ") + describe_slot(*slot);
  }
  if (outstanding > kListed) text += "; ... (" + std::to_string(outstanding - kListed) + " more)";
  return text;
}

std::string PlanOperation::describe_slot(const Slot& slot) const {
  std::string text = slot.collective ? describe(*slot.collective, slot.collective_size, slot.bytes)
                                     : describe(slot.transfer, slot.bytes);
  if (slot.held.load(std::memory_order_relaxed)) {
    const std::string missing = readiness_.missing(slot.parts, started_epoch());
    text += missing.empty() && slot.collective ? " held behind an earlier element on its communicator"
                                               : " waiting for parts " + missing;
  }
  return text;
}

int PlanOperation::outstanding_peer() const noexcept {
  // Receives first: a missing receive is what a waiter is usually stuck on.
  const std::uint64_t epoch = started_epoch();
  for (const auto direction : {Transfer::Direction::recv, Transfer::Direction::send})
    for (const auto& slot : slots_)
      if (!slot->collective && slot->transfer.direction == direction && !done_in(*slot, epoch))
        return slot->transfer.peer;
  return -1;
}

}  // namespace proxy
