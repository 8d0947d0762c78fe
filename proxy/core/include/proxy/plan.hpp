// Plans: persistent communication described once and started many times.
// A PlanSpec lists transfers (peer, tag, send or receive region as buffer + count + MPI_Datatype, or a
// packed region with pack/unpack callbacks) and collective elements (broadcast, reduce, allreduce on a
// communicator the user gives; see plan_collective.hpp). ProxyThread::commit() turns it into persistent requests
// (MPI_Send_init / MPI_Recv_init / MPI_Bcast_init ...) on the proxy thread and returns a Plan handle, which owns them. Each ProxyThread::start(plan)
// returns a Ticket; the proxy does MPI_Startall, progresses, runs unpack callbacks, then publishes the epoch.
// Partitioned readiness (early-bird): a spec may declare parts(n); a send_when_ready() or recv_when_ready()
// transfer waits, each epoch, until compute threads have marked its parts ready (ProxyThread::ready(ticket,
// part)), and the proxy starts it as soon as they all are, while the rest of the plan is already in flight.
//
// Thread contract: build a PlanSpec on any one thread. A Plan may be started by one thread at a time and
// not again before its previous epoch completed (that is reported as proxy::Error, not a race). Pack and
// unpack callbacks run on the proxy thread. Buffers must stay valid and untouched by compute threads
// between start and completion (receive buffers) or until completion (send buffers).
#pragma once

#include "proxy/cxx20.hpp"  // first: C++20, or one line saying so

#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include <mpi.h>

#include "proxy/operation.hpp"
#include "proxy/plan_collective.hpp"

namespace proxy {

struct Transfer {
  enum class Direction { send, recv };
  Direction direction = Direction::send;
  int peer = MPI_PROC_NULL;  // MPI_PROC_NULL transfers are accepted and skipped
  int tag = 0;
  void* buffer = nullptr;
  int count = 0;
  MPI_Datatype type = MPI_BYTE;
  // Packed transfers: the proxy owns a staging buffer of `count` bytes; pack fills it before a send
  // starts, unpack drains it after a receive completes.
  std::function<void(std::byte* staging)> pack;
  std::function<void(const std::byte* staging)> unpack;
  // The parts that must be marked ready, each epoch, before the proxy starts this transfer (a send: its data
  // is written; a receive: its buffer's old contents are no longer read).
  std::vector<int> parts;
};

class PlanSpec {
 public:
  explicit PlanSpec(std::string name) : name_(std::move(name)) {}

  PlanSpec& send(int peer, int tag, const void* buffer, int count, MPI_Datatype type);
  PlanSpec& recv(int peer, int tag, void* buffer, int count, MPI_Datatype type);
  PlanSpec& send_packed(int peer, int tag, std::size_t bytes, std::function<void(std::byte*)> pack);
  PlanSpec& recv_packed(int peer, int tag, std::size_t bytes, std::function<void(const std::byte*)> unpack);

  // Collective elements on `comm` (duplicated by the proxy at commit; the user's communicator may be freed
  // after commit). Every rank of `comm` must commit and start them in the same order.
  PlanSpec& broadcast(MPI_Comm comm, int root, void* buffer, int count, MPI_Datatype type);
  PlanSpec& reduce(MPI_Comm comm, int root, const void* send, void* result, int count, MPI_Datatype type, MPI_Op op);
  PlanSpec& allreduce(MPI_Comm comm, const void* send, void* result, int count, MPI_Datatype type, MPI_Op op);
  // Hierarchical forms (plan_collective.hpp): one contribution per compute thread (or per row, ...), reduced
  // by the proxy in order at each start, then over the ranks of `comm` into `result`.
  PlanSpec& reduce(MPI_Comm comm, int root, std::vector<const void*> contributions, void* result, int count,
                   MPI_Datatype type, MPI_Op op);
  PlanSpec& allreduce(MPI_Comm comm, std::vector<const void*> contributions, void* result, int count,
                      MPI_Datatype type, MPI_Op op);
  // The same, started each epoch only once all of `parts` are marked ready (a thread marks its part when its
  // contribution is written; the broadcast's root marks when the data is).
  PlanSpec& broadcast_when_ready(std::vector<int> parts, MPI_Comm comm, int root, void* buffer, int count,
                                 MPI_Datatype type);
  PlanSpec& reduce_when_ready(std::vector<int> parts, MPI_Comm comm, int root, std::vector<const void*> contributions,
                              void* result, int count, MPI_Datatype type, MPI_Op op);
  PlanSpec& allreduce_when_ready(std::vector<int> parts, MPI_Comm comm, std::vector<const void*> contributions,
                                 void* result, int count, MPI_Datatype type, MPI_Op op);

  // Partitioned readiness: the plan's outgoing data has `count` parts, numbered 0..count-1, which compute
  // threads mark ready one by one each epoch. A send_when_ready() transfer (or a *_when_ready() collective
  // element) starts once all its parts are.
  // At most kMaxParts (each part is a cache line of its own); parts(), send_packed() and recv_packed() refuse bad
  // values at once (proxy::Error naming the plan and the bound), the rest at commit.
  static constexpr int kMaxParts = 1 << 20;
  PlanSpec& parts(int count);
  PlanSpec& send_when_ready(std::vector<int> parts, int peer, int tag, const void* buffer, int count,
                            MPI_Datatype type);
  // A receive posted only once all its parts are ready: until then the incoming data cannot land, so
  // threads may still read the buffer's previous contents (ghost cells a boundary update still needs).
  PlanSpec& recv_when_ready(std::vector<int> parts, int peer, int tag, void* buffer, int count, MPI_Datatype type);

  const std::string& name() const noexcept { return name_; }
  const std::vector<Transfer>& transfers() const noexcept { return transfers_; }
  const std::vector<CollectiveElement>& collectives() const noexcept { return collectives_; }
  int part_count() const noexcept { return part_count_; }

 private:
  std::string name_;
  std::vector<Transfer> transfers_;
  std::vector<CollectiveElement> collectives_;
  int part_count_ = 0;
};

// Handle to a committed plan. Copies share one plan; when the last copy goes, the plan's persistent
// requests are released on the proxy thread that committed it (after its running epoch, if any, completes),
// and the plan leaves that proxy's statistics. A plan can be started only on the ProxyThread that committed
// it; a handle that outlives its ProxyThread stays valid to destroy, but cannot be started.
// Thread contract: copying and destroying handles is safe from any thread (like std::shared_ptr).
class Plan {
 public:
  Plan() = default;
  const std::string& name() const;
  std::size_t transfer_count() const;    // point-to-point transfers (MPI_PROC_NULL ones dropped)
  std::size_t collective_count() const;  // collective elements
  int part_count() const;                // parts declared with PlanSpec::parts()
  explicit operator bool() const noexcept { return owner_ != nullptr; }

  struct Owner;  // private to the library: releases the plan when the last handle goes

 private:
  friend class ProxyThread;
  explicit Plan(std::shared_ptr<Owner> owner) : owner_(std::move(owner)) {}
  std::shared_ptr<Owner> owner_;
};

}  // namespace proxy
