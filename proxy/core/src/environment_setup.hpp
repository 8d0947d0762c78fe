// Private to proxy::core: the bounds on the Environment's blocking steps (StepWatchdog, step_watchdog.cpp; the
// end of the program, job_end.cpp) and the steps of its construction once MPI is up, one file each: the
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

// PROXY_NODE_SIZE as this rank reads it, 0 when unset; throws Error naming a value outside 1 .. kMaxNodeSize.
int emulated_node_size();

// The ranks of this rank's node (MPI_COMM_TYPE_SHARED, or PROXY_NODE_SIZE consecutive ranks) and one leader
// per node, into `node`, whose communicators the caller frees (also after a throw part way).
void discover_node(int world_rank, NodeInfo& node);

// The bound on a step of the Environment whose MPI calls block: the whole construction, MPI_Init included (its
// collectives block: MPI_Comm_split has no non-blocking form), and MPI_Finalize (collective over the processes;
// MPICH and Open MPI wait there for every peer), so that a rank that stops, leaves or hangs there does not leave the
// others waiting for ever. Armed while it lives (step_watchdog.cpp): past its bound, the wait timeout but at least
// kStepBoundFloor (MPI_Init on a loaded machine takes seconds), a thread says so in one line, "<program>: error:
// rank 1: <step> did not complete within 15 s (PROXY_WAIT_TIMEOUT, at least 15 s): a rank has stopped, left or
// hangs", and ends the job (Environment::abort, exit 1; inside MPI_Finalize, where MPI_Abort fails, this process
// exits 1 and the launcher ends the others).
inline constexpr std::chrono::seconds kStepBoundFloor{15};
// PROXY_WAIT_TIMEOUT (the default when the variable is bad: it is refused later, with its own line), at least
// kStepBoundFloor.
std::chrono::milliseconds step_bound();
// "15 s (PROXY_WAIT_TIMEOUT, at least 15 s)" for `bound`, "30 s (2 x PROXY_WAIT_TIMEOUT, at least 2 x 15 s)" for
// twice it: how the lines of the bounded steps state it.
std::string step_bound_text(std::chrono::milliseconds bound, int times = 1);
class StepWatchdog {
 public:
  enum class Ending { abort_job, exit_process };
  // `step` as the line names it: "the set-up (MPI_Init, host and node discovery)", "MPI_Finalize".
  StepWatchdog(std::string program, std::string step, Ending ending = Ending::abort_job);
  ~StepWatchdog();  // disarms it
  StepWatchdog(const StepWatchdog&) = delete;
  StepWatchdog& operator=(const StepWatchdog&) = delete;
  // The line's rank: the launcher's numbering until MPI_Init returns (launch.hpp: PMI_RANK,
  // OMPI_COMM_WORLD_RANK, SLURM_PROCID; none in a singleton run), then MPI_COMM_WORLD's, set here.
  void set_rank(int rank) noexcept;

  struct State;

 private:
  std::shared_ptr<State> state_;  // shared with the thread, which may outlive this object
};

// The end of the program, before MPI_Finalize: every rank of `comm` (a duplicate of MPI_COMM_WORLD, two or more
// ranks) says it has arrived to rank 0, which answers each once all have (zero-byte messages, polled, never a
// blocking call). Bounded, so that a rank stopped or hung after its last communication is named instead of
// leaving the others in MPI_Finalize for ever: rank 0 waits twice step_bound() (a rank still in a timed wait of its
// own reports first, naming its step) and ends the job naming the ranks that did not arrive; the others wait three
// times it for rank 0's answer (rank 0 says who is missing first) and end the job naming rank 0 (job_end.cpp).
void end_together(MPI_Comm comm, const std::string& program, int rank, int size);

}  // namespace proxy
