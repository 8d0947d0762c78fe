// Errors. Error: set-up and misuse, thrown where they happen. SettingsError: the job's settings, refused by
// every rank together. CommError: a communication failure on the
// proxy thread, stored with the operation and rethrown to the thread that waits on it. TimeoutError: a wait
// that expired; its message lists what was still outstanding.
#pragma once

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
// it. what() is the whole line, "<program>: error: <what is wrong>"; announce() is true on the one rank that
// should print it (the lowest that found it), so the job says it once. The library never exits; a program
// catches it and returns report(): it writes the line where announce() is, and gives the exit status of a
// usage error, 2.
class SettingsError : public Error {
 public:
  SettingsError(const std::string& line, bool announce) : Error(line), announce_(announce) {}
  bool announce() const noexcept { return announce_; }
  static constexpr int kExitStatus = 2;
  int report() const noexcept;

 private:
  bool announce_;
};

class CommError : public Error {
 public:
  // operation: its label, e.g. "plan 'halo'"; peer: the rank involved, or -1 when unknown; epoch: which
  // start of the operation failed. what() reads "plan 'halo' epoch 3, peer rank 1: <detail>".
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

// The text of an MPI error code (MPI_Error_string).
std::string mpi_error_string(int code);

}  // namespace proxy
