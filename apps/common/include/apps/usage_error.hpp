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

// A usage error already reported by another rank (agree_on_usage): exit 2 without printing again.
class UsageReported : public std::runtime_error {
 public:
  UsageReported() : std::runtime_error("usage error reported by another rank") {}
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
  } catch (const UsageReported&) {
    return kExitUsage;
  }
}

// Collective over comm, before anything else communicates: runs parse() (the command line's parsing and
// validation, returning whatever the caller needs) on every rank, then agrees on the outcome with a timed
// all-reduce, so that a rank whose input is bad (an MPMD launch with other arguments, say) never leaves
// the others waiting in the set-up. The lowest rank that failed prints its one line; every rank then
// throws UsageReported (run_guarded: exit 2). Returns parse()'s result when every rank succeeded.
void agree_on_usage(std::string_view program, MPI_Comm comm, const std::exception* failure);
template <class Parse>
auto agree_on_usage(std::string_view program, MPI_Comm comm, Parse&& parse) -> decltype(parse()) {
  try {
    auto result = parse();
    agree_on_usage(program, comm, nullptr);
    return result;
  } catch (const UsageError& error) {
    agree_on_usage(program, comm, &error);
  } catch (const proxy::harness::InvalidSettings& error) {
    agree_on_usage(program, comm, &error);
  }
  throw UsageReported();  // not reached: agree_on_usage throws when a rank failed
}

}  // namespace apps
