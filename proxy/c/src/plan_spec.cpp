// proxy_plan_spec_*: proxy::PlanSpec built element by element from C.
#include <cstddef>
#include <vector>

#include "c_boundary.hpp"

using proxy::c::guarded;
using proxy::c::require;

namespace {

proxy::PlanSpec& spec_of(proxy_plan_spec* spec, const char* function) { return require(spec, function, "spec").spec; }

// The part list of a *_when_ready transfer; a negative count is refused here (the spec's validation names
// bad part numbers at commit, as in C++).
std::vector<int> part_list(const int* parts, int part_count, const char* function) {
  if (part_count < 0)
    throw proxy::c::ArgumentError(std::string(function) + ": part_count is " + std::to_string(part_count));
  if (part_count > 0) require(parts, function, "parts");
  return std::vector<int>(parts, parts + part_count);
}

// The contributions of a hierarchical element; a negative count is refused here (null contributions are
// named by the spec's validation at commit, as in C++).
std::vector<const void*> contribution_list(const void* const* contributions, int contribution_count,
                                           const char* function) {
  if (contribution_count < 0)
    throw proxy::c::ArgumentError(std::string(function) + ": contribution_count is " +
                                  std::to_string(contribution_count));
  if (contribution_count > 0) require(contributions, function, "contributions");
  return std::vector<const void*>(contributions, contributions + contribution_count);
}

}  // namespace

extern "C" {

proxy_status proxy_plan_spec_create(const char* name, proxy_plan_spec** spec) {
  return guarded([&] {
    require(spec, "proxy_plan_spec_create", "spec");
    *spec = nullptr;
    require(name, "proxy_plan_spec_create", "name");
    *spec = new proxy_plan_spec{proxy::PlanSpec(name)};
  });
}

proxy_status proxy_plan_spec_free(proxy_plan_spec* spec) {
  return guarded([&] { delete spec; });
}

proxy_status proxy_plan_spec_send(proxy_plan_spec* spec, int peer, int tag, const void* buffer, int count,
                                  MPI_Datatype type) {
  return guarded([&] { spec_of(spec, "proxy_plan_spec_send").send(peer, tag, buffer, count, type); });
}

proxy_status proxy_plan_spec_recv(proxy_plan_spec* spec, int peer, int tag, void* buffer, int count,
                                  MPI_Datatype type) {
  return guarded([&] { spec_of(spec, "proxy_plan_spec_recv").recv(peer, tag, buffer, count, type); });
}

proxy_status proxy_plan_spec_send_packed(proxy_plan_spec* spec, int peer, int tag, size_t bytes,
                                         void (*pack)(void* staging, void* context), void* context) {
  return guarded([&] {
    proxy::PlanSpec& s = spec_of(spec, "proxy_plan_spec_send_packed");
    require(pack, "proxy_plan_spec_send_packed", "pack");
    s.send_packed(peer, tag, bytes, [pack, context](std::byte* staging) { pack(staging, context); });
  });
}

proxy_status proxy_plan_spec_recv_packed(proxy_plan_spec* spec, int peer, int tag, size_t bytes,
                                         void (*unpack)(const void* staging, void* context), void* context) {
  return guarded([&] {
    proxy::PlanSpec& s = spec_of(spec, "proxy_plan_spec_recv_packed");
    require(unpack, "proxy_plan_spec_recv_packed", "unpack");
    s.recv_packed(peer, tag, bytes, [unpack, context](const std::byte* staging) { unpack(staging, context); });
  });
}

proxy_status proxy_plan_spec_broadcast(proxy_plan_spec* spec, MPI_Comm comm, int root, void* buffer, int count,
                                       MPI_Datatype type) {
  return guarded([&] { spec_of(spec, "proxy_plan_spec_broadcast").broadcast(comm, root, buffer, count, type); });
}

proxy_status proxy_plan_spec_reduce(proxy_plan_spec* spec, MPI_Comm comm, int root, const void* send,
                                    void* result, int count, MPI_Datatype type, MPI_Op op) {
  return guarded(
      [&] { spec_of(spec, "proxy_plan_spec_reduce").reduce(comm, root, send, result, count, type, op); });
}

proxy_status proxy_plan_spec_allreduce(proxy_plan_spec* spec, MPI_Comm comm, const void* send, void* result,
                                       int count, MPI_Datatype type, MPI_Op op) {
  return guarded([&] { spec_of(spec, "proxy_plan_spec_allreduce").allreduce(comm, send, result, count, type, op); });
}

proxy_status proxy_plan_spec_reduce_contributions(proxy_plan_spec* spec, MPI_Comm comm, int root,
                                                  const void* const* contributions, int contribution_count,
                                                  void* result, int count, MPI_Datatype type, MPI_Op op) {
  return guarded([&] {
    const char* function = "proxy_plan_spec_reduce_contributions";
    spec_of(spec, function)
        .reduce(comm, root, contribution_list(contributions, contribution_count, function), result, count, type, op);
  });
}

proxy_status proxy_plan_spec_allreduce_contributions(proxy_plan_spec* spec, MPI_Comm comm,
                                                     const void* const* contributions, int contribution_count,
                                                     void* result, int count, MPI_Datatype type, MPI_Op op) {
  return guarded([&] {
    const char* function = "proxy_plan_spec_allreduce_contributions";
    spec_of(spec, function)
        .allreduce(comm, contribution_list(contributions, contribution_count, function), result, count, type, op);
  });
}

proxy_status proxy_plan_spec_parts(proxy_plan_spec* spec, int count) {
  return guarded([&] { spec_of(spec, "proxy_plan_spec_parts").parts(count); });
}

proxy_status proxy_plan_spec_send_when_ready(proxy_plan_spec* spec, const int* parts, int part_count, int peer,
                                             int tag, const void* buffer, int count, MPI_Datatype type) {
  return guarded([&] {
    const char* function = "proxy_plan_spec_send_when_ready";
    spec_of(spec, function).send_when_ready(part_list(parts, part_count, function), peer, tag, buffer, count, type);
  });
}

proxy_status proxy_plan_spec_recv_when_ready(proxy_plan_spec* spec, const int* parts, int part_count, int peer,
                                             int tag, void* buffer, int count, MPI_Datatype type) {
  return guarded([&] {
    const char* function = "proxy_plan_spec_recv_when_ready";
    spec_of(spec, function).recv_when_ready(part_list(parts, part_count, function), peer, tag, buffer, count, type);
  });
}

proxy_status proxy_plan_spec_broadcast_when_ready(proxy_plan_spec* spec, const int* parts, int part_count,
                                                  MPI_Comm comm, int root, void* buffer, int count,
                                                  MPI_Datatype type) {
  return guarded([&] {
    const char* function = "proxy_plan_spec_broadcast_when_ready";
    spec_of(spec, function).broadcast_when_ready(part_list(parts, part_count, function), comm, root, buffer, count, type);
  });
}

proxy_status proxy_plan_spec_reduce_when_ready(proxy_plan_spec* spec, const int* parts, int part_count,
                                               MPI_Comm comm, int root, const void* const* contributions,
                                               int contribution_count, void* result, int count,
                                               MPI_Datatype type, MPI_Op op) {
  return guarded([&] {
    const char* function = "proxy_plan_spec_reduce_when_ready";
    spec_of(spec, function)
        .reduce_when_ready(part_list(parts, part_count, function), comm, root,
                           contribution_list(contributions, contribution_count, function), result, count, type, op);
  });
}

proxy_status proxy_plan_spec_allreduce_when_ready(proxy_plan_spec* spec, const int* parts, int part_count,
                                                  MPI_Comm comm, const void* const* contributions,
                                                  int contribution_count, void* result, int count,
                                                  MPI_Datatype type, MPI_Op op) {
  return guarded([&] {
    const char* function = "proxy_plan_spec_allreduce_when_ready";
    spec_of(spec, function)
        .allreduce_when_ready(part_list(parts, part_count, function), comm,
                              contribution_list(contributions, contribution_count, function), result, count, type,
                              op);
  });
}

}  // extern "C"
