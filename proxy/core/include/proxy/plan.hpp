// Plans: persistent communication described once and started many times.
// A PlanSpec lists transfers (peer, tag, send or receive region as buffer + count + MPI_Datatype, or a
// packed region with pack/unpack callbacks). ProxyThread::commit() turns it into persistent requests
// (MPI_Send_init / MPI_Recv_init) on the proxy thread and returns a Plan handle, which owns them. Each ProxyThread::start(plan)
// returns a Ticket; the proxy does MPI_Startall, progresses, runs unpack callbacks, then publishes the epoch.
//
// Thread contract: build a PlanSpec on any one thread. A Plan may be started by one thread at a time and
// not again before its previous epoch completed (that is reported as proxy::Error, not a race). Pack and
// unpack callbacks run on the proxy thread. Buffers must stay valid and untouched by compute threads
// between start and completion (receive buffers) or until completion (send buffers).
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include <mpi.h>

#include "proxy/operation.hpp"

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
};

class PlanSpec {
 public:
  explicit PlanSpec(std::string name) : name_(std::move(name)) {}

  PlanSpec& send(int peer, int tag, const void* buffer, int count, MPI_Datatype type);
  PlanSpec& recv(int peer, int tag, void* buffer, int count, MPI_Datatype type);
  PlanSpec& send_packed(int peer, int tag, std::size_t bytes, std::function<void(std::byte*)> pack);
  PlanSpec& recv_packed(int peer, int tag, std::size_t bytes, std::function<void(const std::byte*)> unpack);

  const std::string& name() const noexcept { return name_; }
  const std::vector<Transfer>& transfers() const noexcept { return transfers_; }

 private:
  std::string name_;
  std::vector<Transfer> transfers_;
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
  std::size_t transfer_count() const;
  explicit operator bool() const noexcept { return owner_ != nullptr; }

  struct Owner;  // private to the library: releases the plan when the last handle goes

 private:
  friend class ProxyThread;
  explicit Plan(std::shared_ptr<Owner> owner) : owner_(std::move(owner)) {}
  std::shared_ptr<Owner> owner_;
};

}  // namespace proxy
