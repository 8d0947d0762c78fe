#include "apps/agreed_parse.hpp"

namespace apps {

void agree_on_usage_error(const std::optional<std::string>& my_error, MPI_Comm comm) {
  int rank = 0, size = 1;
  MPI_Comm_rank(comm, &rank);
  MPI_Comm_size(comm, &size);
  int mine = my_error ? rank : size, first = size;
  MPI_Allreduce(&mine, &first, 1, MPI_INT, MPI_MIN, comm);
  if (first == size) return;
  std::string message = rank == first ? *my_error : std::string();
  int length = static_cast<int>(message.size());
  MPI_Bcast(&length, 1, MPI_INT, first, comm);
  message.resize(static_cast<std::size_t>(length));
  MPI_Bcast(message.data(), length, MPI_CHAR, first, comm);
  throw UsageError(first == 0 ? message : message + " (on rank " + std::to_string(first) + ")");
}

}  // namespace apps
