// PlanSpec: building a plan's list of transfers and collective elements, and validate_plan, which checks a
// spec against the communicator before it is committed (plan_operation.hpp).
#include <climits>
#include <string>

#include "plan_checks.hpp"
#include "plan_operation.hpp"
#include "proxy/error.hpp"
#include "proxy/plan.hpp"

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

// `item` ("plan 'p': transfer 3 ") waits for `parts`: each inside the declared parts, none twice.
void validate_parts(const std::string& item, const std::vector<int>& parts, int part_count) {
  for (std::size_t j = 0; j < parts.size(); ++j) {
    if (parts[j] < 0 || parts[j] >= part_count)
      throw Error(item + "waits for part " + std::to_string(parts[j]) + ", outside [0, " + std::to_string(part_count) + ")");
    for (std::size_t k = 0; k < j; ++k)
      if (parts[k] == parts[j]) throw Error(item + "lists part " + std::to_string(parts[j]) + " twice");
  }
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

namespace {
// A packed transfer's staging buffer is one message of `bytes` MPI_BYTEs, and its callback is what fills or drains
// it: refused while the spec is built, naming the transfer (its index, peer and tag) and the bound.
void check_packed(const std::string& plan, const char* what, std::size_t index, int peer, int tag, std::size_t bytes,
                  bool has_function) {
  const std::string item = "plan '" + plan + "': transfer " + std::to_string(index) + " (" + what + " " +
                           (std::string(what) == "send_packed" ? "to" : "from") + " rank " + std::to_string(peer) +
                           " tag " + std::to_string(tag) + ") ";
  if (bytes > static_cast<std::size_t>(INT_MAX))
    throw Error(item + "has " + std::to_string(bytes) + " bytes, more than one message carries (at most " +
                std::to_string(INT_MAX) + ")");
  if (!has_function)
    throw Error(item + "has an empty " + (std::string(what) == "send_packed" ? "pack" : "unpack") + " function");
}

}  // namespace

PlanSpec& PlanSpec::send_packed(int peer, int tag, std::size_t bytes, std::function<void(std::byte*)> pack) {
  check_packed(name_, "send_packed", transfers_.size(), peer, tag, bytes, static_cast<bool>(pack));
  Transfer t = region(Transfer::Direction::send, peer, tag, nullptr, static_cast<int>(bytes), MPI_BYTE);
  t.pack = std::move(pack);
  transfers_.push_back(std::move(t));
  return *this;
}

PlanSpec& PlanSpec::recv_packed(int peer, int tag, std::size_t bytes,
                                std::function<void(const std::byte*)> unpack) {
  check_packed(name_, "recv_packed", transfers_.size(), peer, tag, bytes, static_cast<bool>(unpack));
  Transfer t = region(Transfer::Direction::recv, peer, tag, nullptr, static_cast<int>(bytes), MPI_BYTE);
  t.unpack = std::move(unpack);
  transfers_.push_back(std::move(t));
  return *this;
}

PlanSpec& PlanSpec::broadcast(MPI_Comm comm, int root, void* buffer, int count, MPI_Datatype type) {
  CollectiveElement e;
  e.kind = CollectiveElement::Kind::broadcast;
  e.comm = comm;
  e.root = root;
  e.buffer = buffer;
  e.count = count;
  e.type = type;
  collectives_.push_back(e);
  return *this;
}

PlanSpec& PlanSpec::reduce(MPI_Comm comm, int root, const void* send, void* result, int count, MPI_Datatype type,
                           MPI_Op op) {
  broadcast(comm, root, result, count, type);
  collectives_.back().kind = CollectiveElement::Kind::reduce;
  collectives_.back().send = send;
  collectives_.back().op = op;
  return *this;
}

PlanSpec& PlanSpec::allreduce(MPI_Comm comm, const void* send, void* result, int count, MPI_Datatype type, MPI_Op op) {
  reduce(comm, 0, send, result, count, type, op);
  collectives_.back().kind = CollectiveElement::Kind::allreduce;
  return *this;
}

PlanSpec& PlanSpec::reduce(MPI_Comm comm, int root, std::vector<const void*> contributions, void* result, int count,
                           MPI_Datatype type, MPI_Op op) {
  reduce(comm, root, nullptr, result, count, type, op);
  collectives_.back().contributions = std::move(contributions);
  return *this;
}

PlanSpec& PlanSpec::allreduce(MPI_Comm comm, std::vector<const void*> contributions, void* result, int count,
                              MPI_Datatype type, MPI_Op op) {
  allreduce(comm, nullptr, result, count, type, op);
  collectives_.back().contributions = std::move(contributions);
  return *this;
}

PlanSpec& PlanSpec::broadcast_when_ready(std::vector<int> parts, MPI_Comm comm, int root, void* buffer, int count,
                                         MPI_Datatype type) {
  broadcast(comm, root, buffer, count, type);
  collectives_.back().parts = std::move(parts);
  return *this;
}

PlanSpec& PlanSpec::reduce_when_ready(std::vector<int> parts, MPI_Comm comm, int root,
                                      std::vector<const void*> contributions, void* result, int count,
                                      MPI_Datatype type, MPI_Op op) {
  reduce(comm, root, std::move(contributions), result, count, type, op);
  collectives_.back().parts = std::move(parts);
  return *this;
}

PlanSpec& PlanSpec::allreduce_when_ready(std::vector<int> parts, MPI_Comm comm, std::vector<const void*> contributions,
                                         void* result, int count, MPI_Datatype type, MPI_Op op) {
  allreduce(comm, std::move(contributions), result, count, type, op);
  collectives_.back().parts = std::move(parts);
  return *this;
}

PlanSpec& PlanSpec::parts(int count) {
  if (count < 0) throw Error("plan '" + name_ + "': parts(" + std::to_string(count) + "): the count must be >= 0");
  if (count > kMaxParts)  // each part takes a cache line of its own (part_readiness.hpp)
    throw Error("plan '" + name_ + "': parts(" + std::to_string(count) + "): at most " + std::to_string(kMaxParts) +
                " parts");
  part_count_ = count;
  return *this;
}

PlanSpec& PlanSpec::send_when_ready(std::vector<int> parts, int peer, int tag, const void* buffer, int count,
                                    MPI_Datatype type) {
  send(peer, tag, buffer, count, type);
  transfers_.back().parts = std::move(parts);
  return *this;
}

PlanSpec& PlanSpec::recv_when_ready(std::vector<int> parts, int peer, int tag, void* buffer, int count,
                                    MPI_Datatype type) {
  recv(peer, tag, buffer, count, type);
  transfers_.back().parts = std::move(parts);
  return *this;
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
    if (t.count < 0) throw Error(item + "has a negative count " + std::to_string(t.count));
    const bool packed = t.pack || t.unpack;
    if (!packed && t.count > 0 && t.buffer == nullptr) throw Error(item + "has a null buffer for count " + std::to_string(t.count));
    if (!packed && t.type == MPI_DATATYPE_NULL) throw Error(item + "has MPI_DATATYPE_NULL");
    validate_parts(item, t.parts, spec.part_count());
    if (packed && t.peer != MPI_PROC_NULL)  // its staging buffer is allocated at commit
      if (const std::string refusal = staging_refusal(static_cast<std::uint64_t>(t.count), 1); !refusal.empty())
        throw Error(item + refusal);
  }
  for (std::size_t i = 0; i < spec.collectives().size(); ++i) {
    const CollectiveElement& e = spec.collectives()[i];
    validate_parts("plan '" + spec.name() + "': " + kind_name(e.kind) + " element " + std::to_string(i) + " ", e.parts,
                   spec.part_count());
  }
}

}  // namespace proxy
