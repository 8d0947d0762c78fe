// Environment: MPI start-up and shut-down plus what a rank needs to know about its node.
// Initialises MPI at MPI_THREAD_SERIALIZED (or the level asked for) unless the application already did,
// and refuses with proxy::Error if the library gives less; finalises MPI in the destructor only if it
// initialised it, after a bounded meeting of every rank (a rank stopped or hung after its last communication is
// named in one line and the job ends: MPI_Finalize would wait for it for ever; PROXY_WAIT_TIMEOUT, at least 15 s,
// as the construction is bounded). Discovers the ranks sharing this node (MPI_COMM_TYPE_SHARED, or
// PROXY_NODE_SIZE) and one leader per node, and, for dividing cores, the ranks on this physical host (by host
// name, whatever MPIR_CVAR_NOLOCAL or PROXY_NODE_SIZE make of the node) with the bindings they inherited.
// Before anything else it validates every PROXY_* environment variable on every rank (validate_environment);
// when one is bad the ranks agree on it (one MPI_Allreduce), the lowest rank that saw it writes one line
// `PROGRAM: error: PROXY_...='value' is ...`, and every rank throws proxy::SettingsError: a program's main
// catches it and returns its exit_status() (2). The library never exits. A
// failing set-up call throws proxy::Error naming it; either way MPI is finalised first if the Environment
// initialised it.
// Thread safety: construct, use and destroy on the main thread; const accessors from any thread.
#pragma once

#include "proxy/cxx20.hpp"  // first: C++20, or one line saying so

#include <atomic>
#include <memory>
#include <string>
#include <string_view>

#include <mpi.h>

#include "proxy/error.hpp"  // SettingsError, which the constructor throws
#include "proxy/placement.hpp"
#include "proxy/topology.hpp"

namespace proxy {

struct NodeInfo {
  MPI_Comm comm = MPI_COMM_NULL;     // the ranks on this node
  int rank = 0;                      // this rank's index on the node
  int size = 1;                      // ranks on this node
  MPI_Comm leaders = MPI_COMM_NULL;  // node rank 0 of every node; MPI_COMM_NULL on the others
  int index = 0;                     // which node (rank of its leader among the leaders)
  int count = 1;                     // nodes in the job
};

class Environment {
 public:
  // `program`: the name its lines give (the settings it refuses, the bounded set-up and end); empty: argv[0]'s
  // last component. A program installed under another name than it calls itself (proxy-summa, "summa: error: ...")
  // passes its own, so that every line of one run names it alike.
  Environment(int& argc, char**& argv, int required_thread_level = MPI_THREAD_SERIALIZED,
              std::string_view program = {});
  ~Environment();
  Environment(const Environment&) = delete;
  Environment& operator=(const Environment&) = delete;

  MPI_Comm world() const noexcept { return MPI_COMM_WORLD; }
  int rank() const noexcept { return rank_; }
  int size() const noexcept { return size_; }
  int thread_level() const noexcept { return thread_level_; }
  const NodeInfo& node() const noexcept { return node_; }
  const Topology& topology() const noexcept { return *topology_; }
  // The ranks on this physical host and their inherited bindings; host_rank() is this rank's index.
  const HostLayout& host() const noexcept { return host_; }
  int host_rank() const noexcept { return host_rank_; }

  // This rank's share of its host (see placement.hpp), from the bindings read at construction; every rank
  // on the host must ask for the same threads and with_proxy. threads = 0: one compute thread per compute
  // core. When its proxy must share a core, world rank 0 prints a one-line notice (once). Under
  // PROXY_PROGRESS=auto and threads = 0 a core is kept for the proxy only where it can pay for itself
  // (auto_keeps_a_proxy_core: a world of more than one rank, at least kCoresForAProxyCore cores); else
  // with_proxy is dropped, every core computes and the proxy is cooperative.
  Placement placement(int threads, bool with_proxy) const;
  // Sizes the calling thread's OpenMP teams to placement.threads (omp_set_num_threads: a parallel region
  // without num_threads gets the placement's count, not one thread per core the process may use) and binds
  // their threads to placement.compute_cores (call outside a parallel region; it opens one). Returns false
  // if binding was refused.
  bool bind_openmp_threads(const Placement& placement) const;

  // Ends every rank at once after a failure that the others cannot know about (a timeout, a peer error):
  // flushes stdout and stderr, gives the launcher a moment to forward them (it can lose output that is
  // still in a pipe when MPI_Abort tears the job down), then MPI_Abort(MPI_COMM_WORLD, code). Bounded: if
  // MPI_Abort has not ended the process 10 s after the call, a watchdog thread _exits with `code`.
  [[noreturn]] static void abort(int code) noexcept;
  // The same after writing `line` (a newline is added) to stderr in one write, so it is never cut short.
  [[noreturn]] static void abort(std::string_view line, int code) noexcept;
  // Writes `line` and a newline to stderr in one write(2) (whole, never interleaved with another rank's).
  static void report(std::string_view line) noexcept;

 private:
  void release_communicators() noexcept;

  bool owns_mpi_ = false;
  std::string program_;          // the name the Environment's lines give (the constructor's `program`)
  MPI_Comm end_ = MPI_COMM_NULL;  // the end of the program (two or more ranks, MPI initialised here)
  int rank_ = 0;
  int size_ = 1;
  int thread_level_ = MPI_THREAD_SINGLE;
  HostLayout host_;    // the ranks sharing this machine's cores (placement)
  int host_rank_ = 0;
  NodeInfo node_;
  std::unique_ptr<Topology> topology_;
  mutable std::atomic<bool> shared_proxy_noticed_{false};  // placement()'s notice, once per Environment
};

}  // namespace proxy
