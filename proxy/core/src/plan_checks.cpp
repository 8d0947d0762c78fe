// The commit-time checks that ask MPI or the machine (plan_checks.hpp).
#include "plan_checks.hpp"

#include <vector>

#include "proxy/error.hpp"
#include "proxy/memory.hpp"

namespace proxy {

std::string datatype_refusal(MPI_Datatype type, MPI_Comm comm) {
  int integers = 0, addresses = 0, types = 0, combiner = MPI_COMBINER_NAMED;
  if (MPI_Type_get_envelope(type, &integers, &addresses, &types, &combiner) == MPI_SUCCESS &&
      combiner == MPI_COMBINER_NAMED)
    return {};  // predefined: always committed
  char unused = 0;  // never read or written: the peer is MPI_PROC_NULL
  const int code = MPI_Sendrecv(&unused, 1, type, MPI_PROC_NULL, 0, &unused, 1, type, MPI_PROC_NULL, 0, comm,
                                MPI_STATUS_IGNORE);
  if (code == MPI_SUCCESS) return {};
  int error_class = MPI_ERR_OTHER;
  MPI_Error_class(code, &error_class);
  if (error_class == MPI_ERR_TYPE)
    return "has a datatype that is not committed: call MPI_Type_commit on it before committing the plan";
  return "has a datatype MPI refuses for communication: " + mpi_error_string(code);
}

void validate_transfer_datatypes(const PlanSpec& spec, MPI_Comm comm) {
  std::vector<MPI_Datatype> accepted;  // each derived type asked once
  for (std::size_t i = 0; i < spec.transfers().size(); ++i) {
    const Transfer& t = spec.transfers()[i];
    // MPI_BYTE; refused by validate_plan; never sent (the plan drops transfers to MPI_PROC_NULL).
    if (t.pack || t.unpack || t.type == MPI_DATATYPE_NULL || t.peer == MPI_PROC_NULL) continue;
    bool known = false;
    for (const MPI_Datatype type : accepted) known = known || type == t.type;
    if (known) continue;
    const std::string refusal = datatype_refusal(t.type, comm);
    if (!refusal.empty())
      throw Error("plan '" + spec.name() + "': transfer " + std::to_string(i) + " (" +
                  (t.direction == Transfer::Direction::send ? "send to" : "recv from") + " rank " +
                  std::to_string(t.peer) + " tag " + std::to_string(t.tag) + ") " + refusal);
    accepted.push_back(t.type);
  }
}

std::string staging_refusal(std::uint64_t count, std::uint64_t element_bytes) {
  const double bytes = static_cast<double>(count) * static_cast<double>(element_bytes);
  const MemoryShare share = memory_share(1);
  if (bytes <= share.bytes) return {};
  return "needs a staging buffer of " + bytes_text(bytes) + " (count " + std::to_string(count) + " of " +
         std::to_string(element_bytes) + " bytes), more than this process can allocate: " + bytes_text(share.bytes) +
         " available (" + std::string(to_string(share.limit)) + ")";
}

std::uint64_t datatype_size(MPI_Datatype type) {
  MPI_Count size = 0;
  MPI_Type_size_x(type, &size);
  return size > 0 ? static_cast<std::uint64_t>(size) : 0;
}

std::uint64_t buffer_span(std::uint64_t count, MPI_Datatype type) {
  if (count == 0) return 0;
  MPI_Aint lower = 0;
  MPI_Aint extent = 0;
  MPI_Type_get_extent(type, &lower, &extent);
  return (count - 1) * static_cast<std::uint64_t>(extent) + datatype_size(type);
}

}  // namespace proxy
