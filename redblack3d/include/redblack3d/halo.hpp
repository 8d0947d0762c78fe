// Halo: the ghost-cell exchange of one block, described once with MPI subarray datatypes (one per face
// to send, one per ghost face to receive; the stencil has no diagonal terms, so no edges or corners).
// Three ways to run it, one per mode: exchange() blocking (sync, mt), post() non-blocking (async) and
// plan() as a proxy::PlanSpec that the proxy thread runs (proxy mode; the kernel then never calls MPI),
// optionally with early-bird parts (face_part) that hold each face's transfers until the threads are done.
// Message tags say which way a face travels: 2*d for "down" along d, 2*d+1 for "up".
// Thread contract: construct, exchange/post and destroy on the thread that may call MPI (in proxy mode:
// construct before the ProxyThread starts and destroy after it stopped; the types stay valid meanwhile).
#pragma once

#include <array>

#include <mpi.h>

#include "proxy/plan.hpp"
#include "redblack3d/decomposition.hpp"
#include "redblack3d/grid.hpp"

namespace redblack3d {

// Early-bird part of `face` (0..5) that compute thread `thread` of `threads` marks: it is done with the face.
constexpr int face_part(int face, int thread, int threads) noexcept { return face * threads + thread; }

class Halo {
 public:
  Halo(const Decomposition& decomposition, const Grid& grid);
  ~Halo();
  Halo(const Halo&) = delete;
  Halo& operator=(const Halo&) = delete;

  // Blocking: one MPI_Sendrecv per direction and dimension.
  void exchange(Grid& u, MPI_Comm comm) const;
  // Non-blocking: posts every receive, then every send; the caller waits on `requests` (MPI_PROC_NULL
  // faces leave MPI_REQUEST_NULL). Returns how many requests it filled.
  int post(Grid& u, MPI_Comm comm, std::array<MPI_Request, 12>& requests) const;
  // The same transfers as a plan for the proxy thread (ranks of the ProxyThread's communicator).
  // marking_threads > 0 makes it early-bird: 6 * marking_threads parts, face_part(face, thread, threads),
  // and both transfers of a face (its send and the receive into its ghosts) wait for that face's parts
  // from every thread.
  proxy::PlanSpec plan(Grid& u, const std::string& name, int marking_threads = 0) const;

  // Bytes one exchange sends from this block.
  long long bytes_sent() const noexcept { return bytes_sent_; }

 private:
  std::array<int, 6> neighbour_{};
  std::array<MPI_Datatype, 6> send_type_{};  // face i: inner plane next to neighbour i
  std::array<MPI_Datatype, 6> recv_type_{};  // face i: ghost plane next to neighbour i
  long long bytes_sent_ = 0;
};

}  // namespace redblack3d
