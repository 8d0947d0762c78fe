// PlanSpec building, the Plan handle, and PlanOperation: a committed plan as persistent MPI requests
// progressed by the proxy.
#include "plan_operation.hpp"
#include "plan_registry.hpp"

#include <string>

#include "proxy/error.hpp"

namespace proxy {

namespace {
Transfer region(Transfer::Direction direction, int peer, int tag, void* buffer, int count, MPI_Datatype type) {
  Transfer t;
  t.direction = direction;
  t.peer = peer;
  t.tag = tag;
  t.buffer = buffer;
  t.count = count;
  t.type = type;
  return t;
}

std::string describe(const Transfer& t, std::uint64_t bytes) {
  return std::string(t.direction == Transfer::Direction::send ? "send to" : "recv from") + " rank " +
         std::to_string(t.peer) + " tag " + std::to_string(t.tag) + " (" + std::to_string(bytes) + " bytes)";
}
}  // namespace

PlanSpec& PlanSpec::send(int peer, int tag, const void* buffer, int count, MPI_Datatype type) {
  // MPI_Send_init takes a const buffer; the cast only lets one Transfer type hold both directions.
  transfers_.push_back(region(Transfer::Direction::send, peer, tag, const_cast<void*>(buffer), count, type));
  return *this;
}

PlanSpec& PlanSpec::recv(int peer, int tag, void* buffer, int count, MPI_Datatype type) {
  transfers_.push_back(region(Transfer::Direction::recv, peer, tag, buffer, count, type));
  return *this;
}

PlanSpec& PlanSpec::send_packed(int peer, int tag, std::size_t bytes, std::function<void(std::byte*)> pack) {
  Transfer t = region(Transfer::Direction::send, peer, tag, nullptr, static_cast<int>(bytes), MPI_BYTE);
  if (bytes > static_cast<std::size_t>(INT32_MAX)) t.count = -1;  // refused at commit with the size
  t.pack = std::move(pack);
  transfers_.push_back(std::move(t));
  return *this;
}

PlanSpec& PlanSpec::recv_packed(int peer, int tag, std::size_t bytes,
                                std::function<void(const std::byte*)> unpack) {
  Transfer t = region(Transfer::Direction::recv, peer, tag, nullptr, static_cast<int>(bytes), MPI_BYTE);
  if (bytes > static_cast<std::size_t>(INT32_MAX)) t.count = -1;
  t.unpack = std::move(unpack);
  transfers_.push_back(std::move(t));
  return *this;
}

const std::string& Plan::name() const {
  if (!owner_) throw Error("empty Plan handle");
  return owner_->operation->name();
}

std::size_t Plan::transfer_count() const {
  if (!owner_) throw Error("empty Plan handle");
  return owner_->operation->transfer_count();
}

void validate_plan(const PlanSpec& spec, int comm_size, int tag_upper_bound) {
  const std::string where = "plan '" + spec.name() + "': transfer ";
  for (std::size_t i = 0; i < spec.transfers().size(); ++i) {
    const Transfer& t = spec.transfers()[i];
    const std::string item = where + std::to_string(i) + " ";
    if (t.peer != MPI_PROC_NULL && (t.peer < 0 || t.peer >= comm_size))
      throw Error(item + "names rank " + std::to_string(t.peer) + ", outside the communicator (size " +
                  std::to_string(comm_size) + ")");
    if (t.tag < 0 || t.tag > tag_upper_bound)
      throw Error(item + "has tag " + std::to_string(t.tag) + ", outside [0, " + std::to_string(tag_upper_bound) + "]");
    if (t.count < 0) throw Error(item + "has a negative or oversized count " + std::to_string(t.count));
    const bool packed = t.pack || t.unpack;
    if (!packed && t.count > 0 && t.buffer == nullptr) throw Error(item + "has a null buffer for count " + std::to_string(t.count));
    if (!packed && t.type == MPI_DATATYPE_NULL) throw Error(item + "has MPI_DATATYPE_NULL");
  }
}

PlanOperation::PlanOperation(const PlanSpec& spec, MPI_Comm comm, std::uint64_t proxy_id)
    : Operation(spec.name()), comm_(comm), proxy_id_(proxy_id) {
  slots_.reserve(spec.transfers().size());
  for (const Transfer& t : spec.transfers()) {
    if (t.peer == MPI_PROC_NULL) continue;  // nothing to move: dropped here rather than started every epoch
    auto slot = std::make_unique<Slot>();
    slot->transfer = t;
    int type_size = 1;
    if (!(t.pack || t.unpack)) MPI_Type_size(t.type, &type_size);
    slot->bytes = static_cast<std::uint64_t>(t.count) * static_cast<std::uint64_t>(type_size);
    bytes_ += slot->bytes;
    void* buffer = t.buffer;
    if (t.pack || t.unpack) {
      slot->staging.resize(static_cast<std::size_t>(t.count));
      buffer = slot->staging.data();
    }
    MPI_Request request = MPI_REQUEST_NULL;
    const int code = t.direction == Transfer::Direction::send
                         ? MPI_Send_init(buffer, t.count, t.type, t.peer, t.tag, comm_, &request)
                         : MPI_Recv_init(buffer, t.count, t.type, t.peer, t.tag, comm_, &request);
    if (code != MPI_SUCCESS) {
      release();
      throw CommError(label(), t.peer, 0, "creating the persistent request failed: " + mpi_error_string(code));
    }
    slots_.push_back(std::move(slot));
    requests_.push_back(request);
  }
  indices_.resize(slots_.size());
  statuses_.resize(slots_.size());
}

PlanOperation::~PlanOperation() = default;  // requests are freed by release() on the proxy thread

void PlanOperation::release() noexcept {
  // Freeing an active (cancelled) request is allowed: MPI deallocates it once it completes.
  for (MPI_Request& r : requests_)
    if (r != MPI_REQUEST_NULL) MPI_Request_free(&r);
  released_ = true;
}

void PlanOperation::release_when_idle() noexcept {
  if (in_flight_)
    release_requested_ = true;
  else
    release();
}

void PlanOperation::set_in_flight(bool in_flight) noexcept {
  in_flight_ = in_flight;
  if (!in_flight_ && release_requested_) release();
}

void PlanOperation::start(std::uint64_t epoch) {
  if (released_) throw CommError(label(), -1, epoch, "started after its proxy shut down");
  epoch_ = epoch;
  for (auto& slot : slots_) {
    slot->done.store(false, std::memory_order_relaxed);
    if (slot->transfer.pack) slot->transfer.pack(slot->staging.data());
  }
  pending_ = static_cast<int>(slots_.size());
  if (pending_ == 0) return;
  const int code = MPI_Startall(static_cast<int>(requests_.size()), requests_.data());
  if (code != MPI_SUCCESS) throw CommError(label(), -1, epoch, "MPI_Startall failed: " + mpi_error_string(code));
}

bool PlanOperation::progress() {
  if (pending_ > 0) {
    int completed = 0;
    const int code = MPI_Testsome(static_cast<int>(requests_.size()), requests_.data(), &completed,
                                  indices_.data(), statuses_.data());
    if (code != MPI_SUCCESS) {
      for (int j = 0; code == MPI_ERR_IN_STATUS && j < completed; ++j) {
        const int error = statuses_[static_cast<std::size_t>(j)].MPI_ERROR;
        if (error != MPI_SUCCESS) {
          const Slot& slot = *slots_[static_cast<std::size_t>(indices_[static_cast<std::size_t>(j)])];
          throw CommError(label(), slot.transfer.peer, epoch_,
                          describe(slot.transfer, slot.bytes) + " failed: " + mpi_error_string(error));
        }
      }
      throw CommError(label(), -1, epoch_, "MPI_Testsome failed: " + mpi_error_string(code));
    }
    if (completed == MPI_UNDEFINED) {
      pending_ = 0;
    } else {
      for (int j = 0; j < completed; ++j)
        slots_[static_cast<std::size_t>(indices_[static_cast<std::size_t>(j)])]->done.store(true, std::memory_order_relaxed);
      pending_ -= completed;
    }
    if (pending_ > 0) return false;
  }
  for (auto& slot : slots_)
    if (slot->transfer.unpack) slot->transfer.unpack(slot->staging.data());
  return true;
}

void PlanOperation::cancel() noexcept {
  for (std::size_t i = 0; i < slots_.size(); ++i)
    if (!slots_[i]->done.load(std::memory_order_relaxed) && requests_[i] != MPI_REQUEST_NULL) MPI_Cancel(&requests_[i]);
}

std::string PlanOperation::describe_outstanding() const {
  std::string text;
  int listed = 0;
  for (const auto& slot : slots_) {
    if (slot->done.load(std::memory_order_relaxed)) continue;
    if (++listed > 16) {
      text += "; ...";
      break;
    }
    text += (text.empty() ? "" : "; ") + describe(slot->transfer, slot->bytes);
  }
  return text;
}

int PlanOperation::outstanding_peer() const noexcept {
  // Receives first: a missing receive is what a waiter is usually stuck on.
  for (const auto direction : {Transfer::Direction::recv, Transfer::Direction::send})
    for (const auto& slot : slots_)
      if (slot->transfer.direction == direction && !slot->done.load(std::memory_order_relaxed))
        return slot->transfer.peer;
  return -1;
}

}  // namespace proxy
