/* mpich-ucx-finalize-fix: preloaded into MPICH ranks by bench/emulated-cluster.
 *
 * MPICH 4.0.x (Debian 12's) ch4:ucx hangs in MPI_Finalize when ranks reach it at different times: each rank
 * closes its UCX endpoints with ucp_disconnect_nb (a flush that needs the peer's progress), waits for the
 * closes, then enters a PMI barrier. A rank that finished early sits in the barrier and no longer progresses
 * UCX, so a late rank's close waits for it forever (seen with 2 emulated nodes x 2 ranks in most runs, and
 * as the overlap benchmark's async-progress launch that "prints its rows and never exits"). MPICH removed
 * the barrier upstream (pmodels/mpich pull request 6596, 2023).
 *
 * Here the per-endpoint close becomes a no-op reporting immediate completion; ucp_worker_destroy later
 * releases the endpoints without a handshake. Safe for programs whose last communication is completed
 * before MPI_Finalize (every receive matched and completed, as in all the project's drivers).
 * No UCX header: the signature is ucs_status_ptr_t ucp_disconnect_nb(ucp_ep_h), two pointers. */
void* ucp_disconnect_nb(void* endpoint);

void* ucp_disconnect_nb(void* endpoint) {
  (void)endpoint;
  return 0; /* UCS_OK: completed */
}
