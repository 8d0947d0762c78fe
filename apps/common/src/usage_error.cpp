#include "apps/usage_error.hpp"

#include <cstdio>
#include <string>


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

}  // namespace apps
