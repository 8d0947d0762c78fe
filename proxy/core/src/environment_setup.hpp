// Private to proxy::core: the bound on the Environment's whole construction (SetupWatchdog,
// setup_watchdog.cpp) and the steps of that construction once MPI is up, one file each: the
// settings every rank checks together (settings_check.cpp), the ranks sharing this host's cores
// (host_discovery.cpp) and the ranks forming this rank's node (node_discovery.cpp). Each is collective over
// MPI_COMM_WORLD, runs on the main thread and throws proxy::Error naming an MPI call that failed.
#pragma once

#include <chrono>
#include <memory>
#include <string>

#include "proxy/environment.hpp"
#include "proxy/placement.hpp"
#include "proxy/topology.hpp"

namespace proxy {

// Throws Error("<call> failed: <MPI's text>") unless code is MPI_SUCCESS.
void check_mpi(int code, const char* call);

// Whether a ProxyThread is alive in this process (proxy_thread.cpp): the Environment must not finalise MPI
// under it.
bool a_proxy_thread_is_alive() noexcept;

// Every rank validates the PROXY_* variables and the launch; they agree on the outcome (one MPI_Allreduce)
// and, when something is wrong, every rank throws the same SettingsError, which the lowest rank that found
// it announces: "<program>: error: PROXY_CORE='9' names core 9, but this host has cores 0-1". `found`: a problem
// the caller found already (an MPI thread level too low), said unless the launch is wrong.
void refuse_bad_settings_on_every_rank(const std::string& program, int rank, int size, const Topology& topology,
                                       const std::string& found = {});

// The ranks on this physical host, by host name, with the bindings they inherited; host_rank is this
// rank's index among them.
HostLayout discover_host(const Topology& topology, int world_rank, int& host_rank);

// The ranks of this rank's node (MPI_COMM_TYPE_SHARED, or PROXY_NODE_SIZE consecutive ranks) and one leader
// per node, into `node`, whose communicators the caller frees (also after a throw part way).
void discover_node(int world_rank, NodeInfo& node);

// The bound on the whole construction, MPI_Init included: its collectives block (MPI_Comm_split has no
// non-blocking form), so a rank that stops, leaves or hangs there would leave the others waiting for ever.
// Armed while it lives (setup_watchdog.cpp): past its bound, the wait timeout but at least kSetupBoundFloor
// (MPI_Init on a loaded machine takes seconds), a thread says so in one line, "<program>: error: rank 1: the
// set-up (MPI_Init, host and node discovery) did not complete within 15 s (PROXY_WAIT_TIMEOUT, at least 15
// s): a rank has stopped, left or hangs", and ends the job (Environment::abort, exit 1).
inline constexpr std::chrono::seconds kSetupBoundFloor{15};
class SetupWatchdog {
 public:
  explicit SetupWatchdog(std::string program);
  ~SetupWatchdog();  // disarms it
  SetupWatchdog(const SetupWatchdog&) = delete;
  SetupWatchdog& operator=(const SetupWatchdog&) = delete;
  // The line's rank: the launcher's numbering until MPI_Init returns (launch.hpp: PMI_RANK,
  // OMPI_COMM_WORLD_RANK, SLURM_PROCID; none in a singleton run), then MPI_COMM_WORLD's, set here.
  void set_rank(int rank) noexcept;

  struct State;

 private:
  std::shared_ptr<State> state_;  // shared with the thread, which may outlive this object
};

}  // namespace proxy
