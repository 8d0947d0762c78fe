#include "proxy/error.hpp"

#include <mpi.h>

namespace proxy {

namespace {
std::string format(const std::string& operation, int peer, std::uint64_t epoch, const std::string& detail) {
  // Epoch 0 is none: the failure came while the operation was being made (a plan's commit).
  std::string text = operation + (epoch == 0 ? std::string(" at commit") : " epoch " + std::to_string(epoch));
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
  // One line, as every message of ours: MPICH's text of a specific error is an error stack, one call a line
  // ("Invalid datatype, error stack:\ninternal_Send_init(108): ... failed\n..."); its lines are joined by "; ".
  std::string line;
  for (const char c : std::string(text, static_cast<std::size_t>(length))) {
    if (c != '\n') {
      line += c;
      continue;
    }
    while (!line.empty() && line.back() == ' ') line.pop_back();
    if (!line.empty()) line += line.back() == ':' ? " " : "; ";
  }
  while (!line.empty() && (line.back() == ' ' || line.back() == ';')) line.pop_back();
  return line;
}

}  // namespace proxy
