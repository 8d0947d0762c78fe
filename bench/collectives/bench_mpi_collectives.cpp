// MPI_Allreduce (double sum) and MPI_Bcast with one rank per core, OSU style, the baseline the team
// collectives replace: warm-up, many iterations, MPI_Barrier before each outside the timed region, the
// send buffer rewritten before each (dirty), and avg/min/max over ranks of each rank's mean time.
// Usage: mpiexec -n <cores> build/bin/bench_mpi_collectives [--max-bytes B]   (CSV on stdout from rank 0)
#include <mpi.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <iostream>
#include <string>
#include <vector>

#include "apps/agreed_parse.hpp"
#include "apps/exit_codes.hpp"
#include "apps/options.hpp"
#include "apps/program_exit.hpp"
#include "apps/usage_error.hpp"
#include "progress_watchdog.hpp"
#include "proxy/harness/memory.hpp"

namespace {

int iterations_for(std::size_t bytes) {
  return static_cast<int>(std::clamp<std::size_t>((std::size_t{64} << 20) / std::max<std::size_t>(bytes, 1), 10, 2000));
}

template <class Dirty, class Call>
void run(const char* name, std::size_t bytes, int rank, int size, Dirty dirty, Call call) {
  const int warmup = 3, iterations = iterations_for(bytes);
  double total = 0;
  bench::phase(name);
  for (int i = 0; i < warmup + iterations; ++i) {
    dirty(i);
    MPI_Barrier(MPI_COMM_WORLD);
    const double start = MPI_Wtime();
    call(i);
    if (i >= warmup) total += MPI_Wtime() - start;
    bench::progress();
  }
  const double mean = total / iterations;
  double sum = 0, lo = 0, hi = 0;
  MPI_Reduce(&mean, &sum, 1, MPI_DOUBLE, MPI_SUM, 0, MPI_COMM_WORLD);
  MPI_Reduce(&mean, &lo, 1, MPI_DOUBLE, MPI_MIN, 0, MPI_COMM_WORLD);
  MPI_Reduce(&mean, &hi, 1, MPI_DOUBLE, MPI_MAX, 0, MPI_COMM_WORLD);
  if (rank == 0) std::printf("%s,%zu,%d,%.3f,%.3f,%.3f\n", name, bytes, size, sum / size * 1e6, lo * 1e6, hi * 1e6);
}

constexpr const char* kProgram = "bench_mpi_collectives";

int run_program(int rank, int size, int argc, char** argv) {
  apps::Options options(kProgram, "MPI_Allreduce (double sum) and MPI_Bcast with one rank per core, OSU style: CSV of\n"
                                  "avg/min/max over ranks of each rank's mean time, from 8 B in steps of x8.");
  options.option("max-bytes", "B", "largest message, at least 8 (K/M/G suffixes)", "16M").suffixes().range(8, 1LL << 30);
  options.epilog("Example:\n  proxy-mpiexec -n 2 bench_mpi_collectives --max-bytes 1M > mpi.csv");
  long long max_bytes = 0;
  if (!apps::parse_agreed(MPI_COMM_WORLD, rank, options, argc, argv, [&] { max_bytes = options.integer("max-bytes"); }))
    return apps::kExitSuccess;
  if (apps::answer_show_config(options, rank)) return apps::kExitSuccess;
  // Before measuring: the largest size's send, receive and broadcast buffers, on every rank of this node.
  std::size_t largest = 8;
  while (largest * 8 <= std::size_t(max_bytes)) largest *= 8;
  MPI_Comm node = MPI_COMM_NULL;
  int node_ranks = 1;
  MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, rank, MPI_INFO_NULL, &node);
  MPI_Comm_size(node, &node_ranks);
  MPI_Comm_free(&node);
  proxy::harness::check_memory(MPI_COMM_WORLD, "--max-bytes " + options.value("max-bytes"), 3.0 * double(largest),
                               node_ranks);
  bench::watch_progress(kProgram, rank);  // a stopped or vanished peer ends the job (progress_watchdog.hpp)
  if (rank == 0) std::printf("collective,bytes,ranks,avg_us,min_us,max_us\n");
  for (std::size_t bytes = 8; bytes <= std::size_t(max_bytes); bytes *= 8) {
    const std::size_t count = bytes / sizeof(double);
    std::vector<double> send(count), recv(count);
    run("MPI_Allreduce", bytes, rank, size, [&](int i) { std::fill(send.begin(), send.end(), double(i + rank)); },
        [&](int) { MPI_Allreduce(send.data(), recv.data(), int(count), MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD); });
    std::vector<char> buffer(bytes, char(rank));
    run("MPI_Bcast", bytes, rank, size, [&](int i) { std::fill(buffer.begin(), buffer.end(), char(i + rank)); },
        [&](int) { MPI_Bcast(buffer.data(), int(bytes), MPI_BYTE, 0, MPI_COMM_WORLD); });
  }
  return apps::kExitSuccess;
}

}  // namespace

int main(int argc, char** argv) {
  apps::guard_program_exit(kProgram);
  MPI_Init(&argc, &argv);
  int rank = 0, size = 1;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  const int status = apps::run_guarded(kProgram, rank, [&] { return run_program(rank, size, argc, argv); });
  MPI_Finalize();
  return status;
}
