#include "proxy/harness/timings.hpp"

#include <array>

#include "proxy/harness/timed_wait.hpp"

namespace proxy::harness {

Timings slowest_rank(const Timings& mine, MPI_Comm comm) {
  struct {
    double total;
    int rank;
  } local{mine.total_s, 0}, slowest{};
  MPI_Comm_rank(comm, &local.rank);
  MPI_Request request = MPI_REQUEST_NULL;
  MPI_Iallreduce(&local, &slowest, 1, MPI_DOUBLE_INT, MPI_MAXLOC, comm, &request);
  wait_collective(request);
  std::array<double, 4> columns{mine.total_s, mine.compute_s, mine.comm_s, mine.wait_s};
  MPI_Ibcast(columns.data(), 4, MPI_DOUBLE, slowest.rank, comm, &request);
  wait_collective(request);
  return Timings{columns[0], columns[1], columns[2], columns[3]};
}

Timings mean(const std::vector<Timings>& runs) noexcept {
  Timings sum;
  if (runs.empty()) return sum;
  for (const Timings& t : runs) {
    sum.total_s += t.total_s;
    sum.compute_s += t.compute_s;
    sum.comm_s += t.comm_s;
    sum.wait_s += t.wait_s;
  }
  const double n = static_cast<double>(runs.size());
  return Timings{sum.total_s / n, sum.compute_s / n, sum.comm_s / n, sum.wait_s / n};
}

}  // namespace proxy::harness
