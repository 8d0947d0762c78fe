#include "redblack3d/halo.hpp"

#include <vector>

namespace redblack3d {
namespace {

// The face of the padded block at plane `plane` along `dim`, interior extent along the other dimensions.
MPI_Datatype face_type(const Grid& grid, int dim, int plane) {
  const Extent padded = grid.padded();
  const Extent& interior = grid.interior();
  // MPI subarrays are listed slowest dimension first (C order): z, y, x.
  int sizes[3], subsizes[3], starts[3];
  for (int d = 0; d < 3; ++d) {
    const int c = 2 - d;
    sizes[c] = padded[d];
    subsizes[c] = d == dim ? 1 : interior[d];
    starts[c] = d == dim ? plane : 1;
  }
  MPI_Datatype type = MPI_DATATYPE_NULL;
  MPI_Type_create_subarray(3, sizes, subsizes, starts, MPI_ORDER_C, MPI_DOUBLE, &type);
  MPI_Type_commit(&type);
  return type;
}

// Tag of a face travelling from this block towards neighbour `face` (2*d below, 2*d+1 above).
int outgoing_tag(int face) { return face; }
// Tag of a face arriving from neighbour `face`: it travels the opposite way.
int incoming_tag(int face) { return face ^ 1; }

}  // namespace

Halo::Halo(const Decomposition& decomposition, const Grid& grid) : neighbour_(decomposition.neighbour) {
  const Extent& n = grid.interior();
  for (int face = 0; face < 6; ++face) {
    const int dim = face / 2;
    const bool above = face % 2 == 1;
    send_type_[face] = face_type(grid, dim, above ? n[dim] : 1);
    recv_type_[face] = face_type(grid, dim, above ? n[dim] + 1 : 0);
    if (neighbour_[face] >= 0) {
      const long long face_points = 1LL * n[0] * n[1] * n[2] / n[dim];
      bytes_sent_ += face_points * static_cast<long long>(sizeof(double));
    }
  }
}

Halo::~Halo() {
  for (auto* types : {&send_type_, &recv_type_}) {
    for (MPI_Datatype& type : *types) {
      if (type != MPI_DATATYPE_NULL) MPI_Type_free(&type);
    }
  }
}

void Halo::exchange(Grid& u, MPI_Comm comm) const {
  for (int face = 0; face < 6; ++face) {
    // Send towards neighbour `face` while receiving from the opposite one: matched pairs, no deadlock.
    const int opposite = face ^ 1;
    const int to = neighbour_[face] >= 0 ? neighbour_[face] : MPI_PROC_NULL;
    const int from = neighbour_[opposite] >= 0 ? neighbour_[opposite] : MPI_PROC_NULL;
    MPI_Sendrecv(u.data(), 1, send_type_[face], to, outgoing_tag(face), u.data(), 1, recv_type_[opposite], from,
                 incoming_tag(opposite), comm, MPI_STATUS_IGNORE);
  }
}

int Halo::post(Grid& u, MPI_Comm comm, std::array<MPI_Request, 12>& requests) const {
  requests.fill(MPI_REQUEST_NULL);
  int count = 0;
  for (int face = 0; face < 6; ++face) {
    if (neighbour_[face] < 0) continue;
    MPI_Irecv(u.data(), 1, recv_type_[face], neighbour_[face], incoming_tag(face), comm, &requests[count++]);
  }
  for (int face = 0; face < 6; ++face) {
    if (neighbour_[face] < 0) continue;
    MPI_Isend(u.data(), 1, send_type_[face], neighbour_[face], outgoing_tag(face), comm, &requests[count++]);
  }
  return count;
}

proxy::PlanSpec Halo::plan(Grid& u, const std::string& name, int marking_threads) const {
  proxy::PlanSpec spec(name);
  std::array<std::vector<int>, 6> parts;  // empty: the transfer starts with the plan
  if (marking_threads > 0) {
    spec.parts(6 * marking_threads);
    for (int face = 0; face < 6; ++face)
      for (int thread = 0; thread < marking_threads; ++thread) parts[face].push_back(face_part(face, thread, marking_threads));
  }
  for (int face = 0; face < 6; ++face) {
    if (neighbour_[face] < 0) continue;
    spec.recv_when_ready(parts[face], neighbour_[face], incoming_tag(face), u.data(), 1, recv_type_[face]);
  }
  for (int face = 0; face < 6; ++face) {
    if (neighbour_[face] < 0) continue;
    spec.send_when_ready(parts[face], neighbour_[face], outgoing_tag(face), u.data(), 1, send_type_[face]);
  }
  return spec;
}

}  // namespace redblack3d
