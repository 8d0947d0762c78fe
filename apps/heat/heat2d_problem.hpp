// The 2-D heat problem that heat2d (a plain loop) and heat2d-tasks (an OpenMP task graph) both solve:
// their one command line, one rank's slab of rows with its ghost rows, the row update, and the serial
// reference that --verify compares against bit for bit. The two programs differ only in how a step is
// scheduled, so everything else lives here once. Main thread only, except update_row (any thread).
#pragma once

#include <cstddef>
#include <vector>

#include <proxy/environment.hpp>
#include <proxy/plan.hpp>
#include <proxy/proxy_thread.hpp>

namespace heat2d {

inline constexpr double kRate = 0.2;  // dt*alpha/h^2: stable below 0.25

// One row of the explicit update (5-point stencil); fixed (Dirichlet) values at the global boundary.
inline void update_row(const double* up, const double* row, const double* down, double* out, int nx,
                       bool fixed) noexcept {
  out[0] = row[0];
  out[nx - 1] = row[nx - 1];
  for (int x = 1; x < nx - 1; ++x)
    out[x] = fixed ? row[x] : row[x] + kRate * (up[x] + down[x] + row[x - 1] + row[x + 1] - 4.0 * row[x]);
}

struct Problem {
  int nx = 0, ny = 0, steps = 0;
  bool verify = false, verbose = false;
};

// parse_command_line's "go on": the command line is valid and asks for a run.
inline constexpr int kRun = -1;

// Parses and validates argv on every rank (agreed, so every rank takes the same exit), prints --help,
// --version and --show-config from rank 0, and refuses a size the node cannot hold. Returns kRun, or
// main's exit status (0 after --help/--version/--show-config, 2 for bad usage, the message printed).
int parse_command_line(const char* program, const char* description, const proxy::Environment& env, int argc,
                       char** argv, Problem* problem);

// One rank's rows (ny split as evenly as possible), two buffers of rows + 2 ghost rows each, buffer 0
// holding the initial values. Row r (1..rows) is global row first_row + r - 1; rows 0 and rows + 1 are
// the ghosts.
class Slab {
 public:
  Slab(const Problem& problem, int rank, int ranks);

  int rows() const { return rows_; }
  // The neighbour ranks that own the rows above and below (MPI_PROC_NULL at the global boundary).
  int above() const { return rank_ > 0 ? rank_ - 1 : MPI_PROC_NULL; }
  int below() const { return rank_ < ranks_ - 1 ? rank_ + 1 : MPI_PROC_NULL; }
  double* row(int buffer, int r) { return u_[buffer].data() + static_cast<std::size_t>(r) * nx_; }
  // The global boundary rows keep their values.
  bool fixed(int r) const { return first_row_ + r - 1 == 0 || first_row_ + r - 1 == ny_ - 1; }
  // Rows lo..hi-1 of `buffer` updated into the other buffer.
  void update(int buffer, int lo, int hi);

  // The halo exchange of each buffer as a plan (a plan names fixed memory, so double buffering means two
  // plans): rows 1 and rows() go to the neighbours above and below, whose edge rows land in the ghosts.
  void commit_halo(proxy::ProxyThread& proxy, proxy::Plan (&halo)[2]);

  // The largest difference between this rank's rows of `buffer` after `steps` steps and the same rows
  // of the serial solver (which this recomputes whole): 0 when the run is bitwise right.
  double max_difference_from_serial(int buffer, int steps) const;

 private:
  int nx_, ny_, rank_, ranks_, rows_, first_row_;
  std::vector<double> u_[2];
};

}  // namespace heat2d
