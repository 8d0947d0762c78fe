/* The Fortran module's way into the C API (proxy/fortran binds to these by name; they are not in proxy.h):
 * the entry points that take MPI handles, with Fortran handles (MPI_Fint, the MPI_VAL of mpi_f08's types)
 * converted by MPI_*_f2c, and the environment's argv made from the program's name. They live here, in
 * C, because the Fortran library's MPI flags are Fortran flags. */
#include <stddef.h>

#include <proxy/proxy.h>

proxy_status proxy_f_environment_create(char* program, proxy_environment** environment) {
  int argc = 1;
  char* arguments[2] = {program, NULL};
  char** argv = arguments;
  return proxy_environment_create(&argc, &argv, environment);
}

proxy_status proxy_f_thread_create(MPI_Fint comm, proxy_thread** thread) {
  return proxy_thread_create(MPI_Comm_f2c(comm), thread);
}

proxy_status proxy_f_thread_create_placed(MPI_Fint comm, const proxy_placement* placement, proxy_thread** thread) {
  return proxy_thread_create_placed(MPI_Comm_f2c(comm), placement, thread);
}

proxy_status proxy_f_thread_comm(const proxy_thread* thread, MPI_Fint* comm) {
  MPI_Comm c = MPI_COMM_NULL;
  const proxy_status status = proxy_thread_comm(thread, &c);
  if (comm != NULL) *comm = MPI_Comm_c2f(c); /* MPI_COMM_NULL's handle on failure, as in C */
  return status;
}

proxy_status proxy_f_plan_spec_send(proxy_plan_spec* spec, int peer, int tag, const void* buffer, int count,
                                    MPI_Fint type) {
  return proxy_plan_spec_send(spec, peer, tag, buffer, count, MPI_Type_f2c(type));
}

proxy_status proxy_f_plan_spec_recv(proxy_plan_spec* spec, int peer, int tag, void* buffer, int count, MPI_Fint type) {
  return proxy_plan_spec_recv(spec, peer, tag, buffer, count, MPI_Type_f2c(type));
}

proxy_status proxy_f_plan_spec_broadcast(proxy_plan_spec* spec, MPI_Fint comm, int root, void* buffer, int count,
                                         MPI_Fint type) {
  return proxy_plan_spec_broadcast(spec, MPI_Comm_f2c(comm), root, buffer, count, MPI_Type_f2c(type));
}

proxy_status proxy_f_plan_spec_reduce(proxy_plan_spec* spec, MPI_Fint comm, int root, const void* send, void* result,
                                      int count, MPI_Fint type, MPI_Fint op) {
  return proxy_plan_spec_reduce(spec, MPI_Comm_f2c(comm), root, send, result, count, MPI_Type_f2c(type),
                                MPI_Op_f2c(op));
}

proxy_status proxy_f_plan_spec_allreduce(proxy_plan_spec* spec, MPI_Fint comm, const void* send, void* result,
                                         int count, MPI_Fint type, MPI_Fint op) {
  return proxy_plan_spec_allreduce(spec, MPI_Comm_f2c(comm), send, result, count, MPI_Type_f2c(type),
                                   MPI_Op_f2c(op));
}

proxy_status proxy_f_plan_spec_send_when_ready(proxy_plan_spec* spec, const int* parts, int part_count, int peer,
                                               int tag, const void* buffer, int count, MPI_Fint type) {
  return proxy_plan_spec_send_when_ready(spec, parts, part_count, peer, tag, buffer, count, MPI_Type_f2c(type));
}

proxy_status proxy_f_plan_spec_recv_when_ready(proxy_plan_spec* spec, const int* parts, int part_count, int peer,
                                               int tag, void* buffer, int count, MPI_Fint type) {
  return proxy_plan_spec_recv_when_ready(spec, parts, part_count, peer, tag, buffer, count, MPI_Type_f2c(type));
}

proxy_status proxy_f_plan_spec_reduce_contributions(proxy_plan_spec* spec, MPI_Fint comm, int root,
                                                    const void* const* contributions, int contribution_count,
                                                    void* result, int count, MPI_Fint type, MPI_Fint op) {
  return proxy_plan_spec_reduce_contributions(spec, MPI_Comm_f2c(comm), root, contributions, contribution_count, result,
                                              count, MPI_Type_f2c(type), MPI_Op_f2c(op));
}

proxy_status proxy_f_plan_spec_allreduce_contributions(proxy_plan_spec* spec, MPI_Fint comm,
                                                       const void* const* contributions, int contribution_count,
                                                       void* result, int count, MPI_Fint type, MPI_Fint op) {
  return proxy_plan_spec_allreduce_contributions(spec, MPI_Comm_f2c(comm), contributions, contribution_count, result,
                                                 count, MPI_Type_f2c(type), MPI_Op_f2c(op));
}

proxy_status proxy_f_plan_spec_broadcast_when_ready(proxy_plan_spec* spec, const int* parts, int part_count,
                                                    MPI_Fint comm, int root, void* buffer, int count, MPI_Fint type) {
  return proxy_plan_spec_broadcast_when_ready(spec, parts, part_count, MPI_Comm_f2c(comm), root, buffer, count,
                                              MPI_Type_f2c(type));
}

proxy_status proxy_f_plan_spec_reduce_when_ready(proxy_plan_spec* spec, const int* parts, int part_count, MPI_Fint comm,
                                                 int root, const void* const* contributions, int contribution_count,
                                                 void* result, int count, MPI_Fint type, MPI_Fint op) {
  return proxy_plan_spec_reduce_when_ready(spec, parts, part_count, MPI_Comm_f2c(comm), root, contributions,
                                           contribution_count, result, count, MPI_Type_f2c(type), MPI_Op_f2c(op));
}

proxy_status proxy_f_plan_spec_allreduce_when_ready(proxy_plan_spec* spec, const int* parts, int part_count,
                                                    MPI_Fint comm, const void* const* contributions,
                                                    int contribution_count, void* result, int count, MPI_Fint type,
                                                    MPI_Fint op) {
  return proxy_plan_spec_allreduce_when_ready(spec, parts, part_count, MPI_Comm_f2c(comm), contributions,
                                              contribution_count, result, count, MPI_Type_f2c(type), MPI_Op_f2c(op));
}
