// The usage-error path of every driver. Each rank parses and validates the same command line (and the
// same global facts: rank count, geometry), so each rank throws the same UsageError; rank 0 alone prints
// "<program>: error: <message>", and every rank returns 2 (apps/exit_codes.hpp) from main after
// MPI_Finalize (the proxy::Environment destructor). No MPI_Abort, so no abort storm and no rank left
// waiting. An application library's proxy::harness::InvalidSettings is a usage error too.
#pragma once

#include <stdexcept>
#include <string>
#include <string_view>

#include <mpi.h>

#include <proxy/harness/mode.hpp>

#include "apps/exit_codes.hpp"

namespace apps {

// Bad user input: the message names the option and the bad value, on one line.
class UsageError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// Prints "<program>: error: <message>" to stderr on rank 0 only; returns kExitUsage, main's exit status.
int report_usage_error(std::string_view program, int rank, const std::exception& error);

// Prints "<program>: warning: <message>" to stderr on rank 0 only (e.g. "running with a shared proxy").
void warn(std::string_view program, int rank, std::string_view message);

// Runs body() (which returns main's exit status); a UsageError or InvalidSettings from it becomes
// report_usage_error(...).
// Every rank must call it with the same outcome, which holds when validation reads only global facts.
template <class Body>
int run_guarded(std::string_view program, int rank, Body&& body) {
  try {
    return body();
  } catch (const UsageError& error) {
    return report_usage_error(program, rank, error);
  } catch (const proxy::harness::InvalidSettings& error) {
    return report_usage_error(program, rank, error);
  }
}

}  // namespace apps
