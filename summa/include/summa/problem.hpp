// Problem: one SUMMA run as the user asked for it (sizes, grid, panel, mode, threads, repetitions, node
// layout), and its validation against the number of ranks. validate() reads only the problem and the rank
// count, so every rank reaches the same verdict and the drivers can fail on all ranks without an abort.
// Plain data, any thread.
#pragma once

#include <cstdint>
#include <stdexcept>
#include <string>
#include <string_view>

#include <proxy/harness/mode.hpp>

namespace summa {

// The harness's modes (sync, async: one rank per core; mt, proxy: one rank per node; DESIGN.md).
using proxy::harness::is_multi_tier;
using proxy::harness::Mode;
using proxy::harness::parse_mode;
using proxy::harness::to_string;

// A problem that cannot run; the message is one line naming the option and the bad value.
using InvalidProblem = proxy::harness::InvalidSettings;

struct Problem {
  std::int64_t m = 1024;  // rows of A and C
  std::int64_t n = 1024;  // columns of B and C
  std::int64_t k = 1024;  // columns of A, rows of B
  int grid_rows = 1;
  int grid_cols = 1;
  int panel = 128;        // widest panel along k (thesis IV.D: 100-256 was best there)
  Mode mode = Mode::sync;
  int threads = 0;        // compute threads per rank in mt/proxy; 0 = one per compute core of the placement
  int reps = 1;           // timed repetitions (timings are their mean)
  int node_rows = 0;      // ranks per node as a node_rows x node_cols tile of the grid (sync/async);
  int node_cols = 0;      //   0 x 0 = ranks fill the grid row by row on their real nodes
  bool verify = false;    // recompute each block of C from the generator and compare
  bool proxy_timings = false;  // proxy mode: the proxy times its plans' epochs (Config::timings; --verbose)
  // The option that set each of m, n and k, for messages that name the value: "--size" when the driver took
  // that dimension from --size, so that `--size 4G` is refused as --size, not as --m.
  std::string m_option = "--m";
  std::string n_option = "--n";
  std::string k_option = "--k";

  std::string grid() const { return std::to_string(grid_rows) + "x" + std::to_string(grid_cols); }
  bool has_node_layout() const noexcept { return node_rows > 0; }
  // The sizes as the options that set them: "--size 1024", "--m 2000 --n 1000 --k 500", "--size 64 --k 9".
  std::string sizes() const;
};

// Throws InvalidProblem unless the problem can run on `ranks` ranks.
void validate(const Problem& problem, int ranks);

// Bytes the largest rank allocates for `problem` (blocks of A, B and C, two panel buffers each for A and
// B, and with verify the reference's A rows, B columns and C block): for a memory check before the run.
double bytes_per_rank(const Problem& problem);

}  // namespace summa
