// Command-line handling that every rank agrees on. Each rank parses and validates its own argv (an MPMD
// launch can give ranks different command lines); one MPI_Allreduce then tells every rank whether any
// rank found a usage error, and the lowest such rank's message is broadcast, so every rank throws the
// same UsageError (rank 0 prints it, every rank exits 2) and no rank is left waiting in a collective the
// others never reach. Main thread, after MPI_Init and before the proxy thread owns MPI (collective).
#pragma once

#include <mpi.h>

#include <cstdio>
#include <optional>
#include <string>

#include <proxy/harness/mode.hpp>

#include "apps/options.hpp"
#include "apps/usage_error.hpp"

namespace apps {

// Throws UsageError(message of the lowest rank with one) on every rank when any rank passed one.
void agree_on_usage_error(const std::optional<std::string>& my_error, MPI_Comm comm);

// Every rank's Options::agreed_values() against rank 0's (a broadcast, timed): a rank whose options differ
// names the first that does, "--n 16,16,18 here, --n 16 on rank 0: every rank of a run needs the same
// options", and every rank throws that UsageError (agree_on_usage_error).
void agree_on_options(const std::string& my_values, MPI_Comm comm);

// What agree_on_options compares for one rank's parse: Options::agreed_values(), or, when --help or
// --version stopped the parse (parsed false), a line saying so: every rank must stop alike.
inline std::string agreed_values_after(bool parsed, const Options& options) {
  return parsed ? options.agreed_values() : std::string("--help or --version\n");
}

// Runs parse_and_validate() (the command line into settings) on every rank of comm and agrees on its
// usage errors (UsageError, InvalidSettings); returns its result.
template <class Fn>
auto agreed(MPI_Comm comm, Fn&& parse_and_validate) -> decltype(parse_and_validate()) {
  std::optional<std::string> error;
  decltype(parse_and_validate()) result{};
  try {
    result = parse_and_validate();
  } catch (const UsageError& e) {
    error = e.what();
  } catch (const proxy::harness::InvalidSettings& e) {
    error = e.what();
  }
  agree_on_usage_error(error, comm);
  return result;
}

// How every program starts: argv parsed on every rank of comm and agreed, read() turning the parsed options
// into settings (it may throw UsageError). False when --help or --version was asked: rank 0 has printed
// the answer and the program exits 0.
template <class Read>
bool parse_agreed(MPI_Comm comm, int rank, Options& options, int argc, char** argv, Read&& read) {
  const bool parsed = agreed(comm, [&] {
    if (!options.parse(argc, argv)) return false;
    read();
    return true;
  });
  agree_on_options(agreed_values_after(parsed, options), comm);
  if (!parsed && rank == 0) std::fputs(options.answer().c_str(), stdout);
  return parsed;
}

// --show-config, or --verbose (which prints the configuration before the run): rank 0 prints the effective
// configuration. True when --show-config asked for it: the program then exits 0.
bool answer_show_config(const Options& options, int rank);

}  // namespace apps
