// Private to the library: a committed plan (persistent requests) and a submitted closure, as Operations.
#pragma once

#include <atomic>
#include <cstddef>
#include <memory>
#include <vector>

#include <mpi.h>

#include "proxy/plan.hpp"
#include "proxy/proxy_thread.hpp"

namespace proxy {

// Throws proxy::Error naming the first bad transfer (peer outside the communicator, bad tag, count, buffer).
void validate_plan(const PlanSpec& spec, int comm_size, int tag_upper_bound);

class PlanOperation final : public Operation {
 public:
  // Proxy thread: creates the persistent requests.
  PlanOperation(const PlanSpec& spec, MPI_Comm comm);
  ~PlanOperation() override;
  const char* kind() const noexcept override { return "plan"; }

  void start(std::uint64_t epoch) override;
  bool progress() override;
  void cancel() noexcept override;
  std::string describe_outstanding() const override;
  int outstanding_peer() const noexcept override;
  std::uint64_t bytes_per_epoch() const noexcept override { return bytes_; }

  std::size_t transfer_count() const noexcept { return slots_.size(); }
  // Proxy thread, at shutdown: frees the persistent requests; later starts fail.
  void release() noexcept;

 private:
  struct Slot {
    Transfer transfer;
    std::vector<std::byte> staging;  // packed transfers only
    std::uint64_t bytes = 0;
    std::atomic<bool> done{false};   // read by waiters for timeout reports
  };
  MPI_Comm comm_;
  std::vector<std::unique_ptr<Slot>> slots_;
  std::vector<MPI_Request> requests_;  // persistent, one per slot, contiguous for MPI_Startall / MPI_Testsome
  std::vector<int> indices_;
  std::vector<MPI_Status> statuses_;
  std::uint64_t bytes_ = 0;
  std::uint64_t epoch_ = 0;
  int pending_ = 0;
  bool released_ = false;
};

class ClosureOperation final : public Operation {
 public:
  ClosureOperation(std::function<void(ClosureContext&)> fn, MPI_Comm comm);
  const char* kind() const noexcept override { return "closure"; }
  void start(std::uint64_t epoch) override;
  bool progress() override;
  void cancel() noexcept override;
  std::string describe_outstanding() const override;

 private:
  std::function<void(ClosureContext&)> fn_;
  ClosureContext context_;
  std::uint64_t epoch_ = 0;
  std::atomic<int> outstanding_{0};
};

}  // namespace proxy
