// Errors. Error: set-up and misuse, thrown where they happen. SettingsError: the job's settings, refused by
// every rank together. CommError: a communication failure on the
// proxy thread, stored with the operation and rethrown to the thread that waits on it. TimeoutError: a wait
// that expired; its message lists what was still outstanding.
#pragma once

#include "proxy/cxx20.hpp"  // first: C++20, or one line saying so

#include <cstdint>
#include <stdexcept>
#include <string>

namespace proxy {

class Error : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// Settings the job cannot run with (a PROXY_* variable, a resource this machine lacks, a launch that is not
// what the launcher started), found by every rank together while the Environment starts: every rank throws
// it. what() is the whole line, "<program>: error: <what is wrong>", which the one rank that found it first
// (announced()) has already written to stderr, before MPI was finalised: a launcher that ends the job when
// the first process exits must not lose it. The library never exits; a program catches it and returns
// exit_status(), 2 (a usage error).
class SettingsError : public Error {
 public:
  SettingsError(const std::string& line, bool announced) : Error(line), announced_(announced) {}
  bool announced() const noexcept { return announced_; }
  static constexpr int kExitStatus = 2;
  int exit_status() const noexcept { return kExitStatus; }

 private:
  bool announced_;
};

class CommError : public Error {
 public:
  // operation: its label, e.g. "plan 'halo'"; peer: the rank involved, or -1 when unknown; epoch: which
  // start of the operation failed, 0 for its commit. what() reads "plan 'halo' epoch 3, peer rank 1: <detail>"
  // ("plan 'halo' at commit, peer rank 1: <detail>" for epoch 0).
  CommError(std::string operation, int peer, std::uint64_t epoch, std::string detail);
  const std::string& operation() const noexcept { return operation_; }
  int peer() const noexcept { return peer_; }
  std::uint64_t epoch() const noexcept { return epoch_; }
  const std::string& detail() const noexcept { return detail_; }

 private:
  std::string operation_;
  int peer_;
  std::uint64_t epoch_;
  std::string detail_;
};

class TimeoutError : public CommError {
 public:
  using CommError::CommError;
};

// The text of an MPI error code (MPI_Error_string), on one line (MPICH's error stacks joined by "; ").
std::string mpi_error_string(int code);

// While one lives on a thread, an MPI error raised on that thread returns to the failing call as its return
// code instead of ending the job: for code that checks every return code, as proxy::harness's timed waits do.
// It works through MPI_COMM_WORLD's handler as proxy::Environment installs it (where the program has not set
// its own), which the communicators made from the world afterwards inherit; outside such a scope that handler
// ends the job with one line, "proxy: error: rank 0: fatal MPI error on MPI_COMM_WORLD: <MPI's text>".
class MpiErrorsReturnHere {
 public:
  MpiErrorsReturnHere() noexcept;
  ~MpiErrorsReturnHere();
  MpiErrorsReturnHere(const MpiErrorsReturnHere&) = delete;
  MpiErrorsReturnHere& operator=(const MpiErrorsReturnHere&) = delete;
};

}  // namespace proxy
