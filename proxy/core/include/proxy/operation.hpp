// Operation: a unit of communication work that the proxy thread progresses (a committed plan, a closure,
// a phase of a node collective). Ticket: one start of an operation, returned to the thread that started
// it, which later tests or waits on it.
//
// Thread contract (as in a callback queue: one thread dispatches, any thread adds):
//   - start(), progress(), cancel() are called ONLY on the proxy thread; they may call MPI.
//   - describe_outstanding() may be called from a waiting compute thread; it reads only atomics.
//   - completed_epoch() and error() may be read from any thread (acquire after the proxy's release).
// Subclass it to give the proxy a new kind of work (e.g. a collective's state machine): start() begins
// epoch e, progress() returns true when e is complete ("do not requeue me"), and throwing from either
// stores the error with the operation and rethrows it to the waiter as CommError.
#pragma once

#include "proxy/cxx20.hpp"  // first: C++20, or one line saying so

#include <atomic>
#include <cstdint>
#include <exception>
#include <memory>
#include <string>

namespace proxy {

class ProxyThread;

class Operation {
 public:
  explicit Operation(std::string name) : name_(std::move(name)) {}
  virtual ~Operation() = default;
  Operation(const Operation&) = delete;
  Operation& operator=(const Operation&) = delete;

  const std::string& name() const noexcept { return name_; }
  // What kind of work this is, for messages: "plan", "closure", "allreduce", ...
  virtual const char* kind() const noexcept { return "operation"; }
  // "plan 'halo'": how errors and timeout reports name the operation.
  std::string label() const { return std::string(kind()) + " '" + name_ + "'"; }

  // Proxy thread: begin the work of `epoch`.
  virtual void start(std::uint64_t epoch) = 0;
  // Proxy thread: advance; true when the current epoch is complete.
  virtual bool progress() = 0;
  // Proxy thread, at shutdown with the epoch still incomplete: release what can be released.
  virtual void cancel() noexcept {}
  // Whether cancel() can end what is outstanding (point-to-point requests can be cancelled; collectives
  // cannot: MPI_Cancel on one is a fatal error). A shutdown that cannot drain an operation that is not
  // cancellable ends the job with a report instead.
  virtual bool cancellable() const noexcept { return true; }
  // Any thread: what is still outstanding, one line per item, for timeout reports.
  virtual std::string describe_outstanding() const { return {}; }
  // Any thread: the first peer still outstanding (for timeout reports), or -1.
  virtual int outstanding_peer() const noexcept { return -1; }
  // Bytes moved per epoch, for the statistics.
  virtual std::uint64_t bytes_per_epoch() const noexcept { return 0; }
  // Whether no compute thread waits on this work, so only the proxy thread will ever progress it (a
  // completion callback, whose waiters sleep in another runtime: libgomp's barrier). Under the
  // cooperative strategy the proxy thread polls while such work is active instead of backing up.
  virtual bool unattended() const noexcept { return false; }

  std::uint64_t completed_epoch() const noexcept { return completed_.load(std::memory_order_acquire); }
  std::uint64_t started_epoch() const noexcept { return started_.load(std::memory_order_acquire); }
  // The stored failure, if any (sticky: every later wait rethrows it). Read after completed_epoch().
  std::exception_ptr error() const noexcept { return error_; }

 private:
  // What a waiter reads. The proxy's own bookkeeping (what keeps the operation alive while it works on it,
  // the epoch it is running, timings) lives in its active-set entry, not here.
  friend class ProxyThread;
  friend class ProgressLoop;
  std::string name_;
  alignas(64) std::atomic<std::uint64_t> completed_{0};  // written by the proxy (release)
  alignas(64) std::atomic<std::uint64_t> started_{0};    // written by the starting thread
  std::exception_ptr error_;                              // written by the proxy before completed_
};

// One start of an operation. Copyable; valid after the ProxyThread is gone only for completed epochs.
struct Ticket {
  std::shared_ptr<Operation> operation;
  std::uint64_t epoch = 0;

  explicit operator bool() const noexcept { return operation != nullptr; }
};

}  // namespace proxy
