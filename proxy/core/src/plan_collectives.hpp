// Private to proxy::core: collective elements of a plan as MPI requests. Committed to MPI-4 persistent
// collectives when the library has them (PROXY_HAVE_PERSISTENT_COLLECTIVES, set at configure time), else
// posted as non-blocking collectives every epoch.
//
// Thread contract: everything here calls MPI, so the proxy thread only, except reduce_contribution_range.
#pragma once

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <string>

#include <mpi.h>

#include "proxy/detail/collective_requests.hpp"
#include "proxy/plan.hpp"

namespace proxy {

// Throws proxy::Error naming the plan and the first bad element (root outside its communicator, null
// communicator, negative count, missing operation, a datatype not committed, a staging buffer that cannot be
// allocated). `comm`: where datatypes are checked (plan_checks.hpp), the proxy's duplicate.
void validate_collectives(const PlanSpec& spec, MPI_Comm comm);

// Whether an element's result buffer shares a byte with one of its contributions (then the thread-level phase
// cannot write the result while it reads them). `span`: the bytes each covers, buffer_span (plan_checks.hpp).
bool result_overlaps_contributions(const CollectiveElement& element, std::uint64_t span);
// Whether the element reduces its contributions into a staging buffer of its own (count x extent bytes): a
// reduce (its result is the root's only), or an allreduce whose result overlaps a contribution.
bool needs_staging(const CollectiveElement& element, std::uint64_t span);

// Collective over each communicator the spec's collective elements name (blocking MPI_Allreduce, proxy thread):
// every rank compares what it committed there, element by element (how many; kind, root, bytes = count x type
// size, operation), so that elements MPI would match into a silent wrong answer, a truncation or a hang are
// refused at commit on every rank, with the same message naming the plan, the element and both values.
// `refused_here`: this rank's own validation failed (it rethrows that afterwards); the others then throw
// "... refused on another rank". Communicators of one rank and intercommunicators are skipped, as is everything
// when an element names MPI_COMM_NULL (refused by validate_collectives).
// `waiting`: where the comparison is, for the committing thread's report if it does not finish (a rank that
// never joins it: one that committed no collective element there, or plans in another order).
struct AgreementProgress {
  std::atomic<int> element{-1};  // the first element on the communicator being compared; -1: none
  std::atomic<int> ranks{0};     // that communicator's size
};
void agree_on_collectives(const PlanSpec& spec, bool refused_here, AgreementProgress& waiting);

// Thread-level phase of a hierarchical element: staging = the element's contributions reduced in order
// (plan_collective.hpp), `staging` holding count elements. Built-in operations on the common types are
// reduced inline, others through MPI_Reduce_local. Returns the MPI error code.
int reduce_contributions(const CollectiveElement& element, std::byte* staging);
// Whether the runtime's own kernels reduce the element's contributions (a built-in operation on a common
// type): then reduce_contribution_range computes any range of the result, from any thread, and disjoint
// ranges may be computed at once (the proxy shares the strips with waiting threads, help_board.hpp).
bool reduces_in_ranges(const CollectiveElement& element);
// staging[first, first + n) (in elements) = the contributions' elements there reduced in order; the same
// bits as reduce_contributions. Only where reduces_in_ranges; touches no MPI state.
void reduce_contribution_range(const CollectiveElement& element, std::byte* staging, std::size_t first,
                               std::size_t n);

using detail::init_persistent_collective;    // proxy/detail/collective_requests.hpp: shared with the
using detail::start_nonblocking_collective;  // node collectives' inter-node phase

// "broadcast from root 0 over 2 ranks (80 bytes)": how timeout reports name an element.
std::string describe(const CollectiveElement& element, int comm_size, unsigned long long bytes);

}  // namespace proxy
