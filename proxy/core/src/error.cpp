#include "proxy/error.hpp"

#include <mpi.h>

namespace proxy {

namespace {
std::string format(const std::string& operation, int peer, std::uint64_t epoch, const std::string& detail) {
  std::string text = operation + " epoch " + std::to_string(epoch);
  if (peer >= 0) text += ", peer rank " + std::to_string(peer);
  return text + ": " + detail;
}
}  // namespace

CommError::CommError(std::string operation, int peer, std::uint64_t epoch, std::string detail)
    : Error(format(operation, peer, epoch, detail)),
      operation_(std::move(operation)),
      peer_(peer),
      epoch_(epoch),
      detail_(std::move(detail)) {}

std::string mpi_error_string(int code) {
  char text[MPI_MAX_ERROR_STRING];
  int length = 0;
  if (MPI_Error_string(code, text, &length) != MPI_SUCCESS) return "MPI error " + std::to_string(code);
  return std::string(text, static_cast<std::size_t>(length));
}

}  // namespace proxy
