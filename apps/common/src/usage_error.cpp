#include "apps/usage_error.hpp"

#include <cstdio>
#include <string>

#include <proxy/harness/timed_wait.hpp>

namespace apps {

int report_usage_error(std::string_view program, int rank, const std::exception& error) {
  if (rank == 0) {
    std::fprintf(stderr, "%.*s: error: %s\n", static_cast<int>(program.size()), program.data(), error.what());
    std::fflush(stderr);
  }
  return kExitUsage;
}

void warn(std::string_view program, int rank, std::string_view message) {
  if (rank != 0) return;
  std::fprintf(stderr, "%.*s: warning: %.*s\n", static_cast<int>(program.size()), program.data(),
               static_cast<int>(message.size()), message.data());
  std::fflush(stderr);
}

void agree_on_usage(std::string_view program, MPI_Comm comm, const std::exception* failure) {
  int rank = 0, size = 1;
  MPI_Comm_rank(comm, &rank);
  MPI_Comm_size(comm, &size);
  int lowest_failed = failure != nullptr ? rank : size;
  MPI_Request request = MPI_REQUEST_NULL;
  MPI_Iallreduce(MPI_IN_PLACE, &lowest_failed, 1, MPI_INT, MPI_MIN, comm, &request);
  proxy::harness::wait_collective(request);
  if (lowest_failed == size) return;
  if (rank == lowest_failed) {
    std::fprintf(stderr, "%.*s: error: %s\n", static_cast<int>(program.size()), program.data(), failure->what());
    std::fflush(stderr);
  }
  throw UsageReported();
}

}  // namespace apps
