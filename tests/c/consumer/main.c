/* An outside C program on the installed package: a ring of ranks through one plan, built with -DMPI. */
#include <stdio.h>

#include <proxy/proxy.h>

int main(int argc, char** argv) {
  proxy_environment* env = NULL;
  if (proxy_environment_create(&argc, &argv, &env) != PROXY_SUCCESS) {
    fprintf(stderr, "c-consumer: error: %s\n", proxy_last_error());
    return 1;
  }
  int rank = 0, size = 1, left = -1;
  proxy_environment_rank(env, &rank);
  proxy_environment_size(env, &size);
  proxy_thread* thread = NULL;
  proxy_plan_spec* spec = NULL;
  proxy_plan* plan = NULL;
  proxy_ticket ticket;
  if (proxy_thread_create(MPI_COMM_WORLD, &thread) != PROXY_SUCCESS ||
      proxy_plan_spec_create("ring", &spec) != PROXY_SUCCESS ||
      proxy_plan_spec_send(spec, (rank + 1) % size, 0, &rank, 1, MPI_INT) != PROXY_SUCCESS ||
      proxy_plan_spec_recv(spec, (rank + size - 1) % size, 0, &left, 1, MPI_INT) != PROXY_SUCCESS ||
      proxy_commit(thread, spec, &plan) != PROXY_SUCCESS || proxy_start(thread, plan, &ticket) != PROXY_SUCCESS ||
      proxy_wait(thread, ticket, PROXY_WAIT_DEFAULT_TIMEOUT) != PROXY_SUCCESS)
    proxy_abort(proxy_last_error(), 1);
  printf("c-consumer: rank %d got %d from the left\n", rank, left);
  proxy_plan_free(plan);
  proxy_plan_spec_free(spec);
  proxy_thread_free(thread);
  proxy_environment_free(env);
  return left == (rank + size - 1) % size ? 0 : 1;
}
