/* The hierarchical collective elements from C, on real ranks (2 or more) with OpenMP threads: one
 * contribution per thread, reduced by the proxy, then over the ranks (proxy_plan_spec_allreduce_contributions,
 * _reduce_contributions, and the _when_ready forms with broadcast_when_ready). Results are checked against
 * exact integers and against doubles whose sum is exact only in the documented order (c0 + c1) + c2.
 * Prints "test_c_hierarchical: N checks passed on R ranks" on rank 0, exit 0; a failed check prints what
 * failed and ends the job with exit 1. */
#include <stdio.h>
#include <string.h>

#include <proxy/proxy.h>

enum { kThreads = 3, kEpochs = 4 };

#define CHECK_PROGRAM "test_c_hierarchical"
#include "c_check.h"

/* What thread t of rank r contributes at epoch e, element i: integers whose sum has a closed form. */
static long long contribution(int rank, int thread, int epoch, int i) {
  return 1000LL * (rank + 1) + 10LL * thread + epoch + 100000LL * i;
}

/* The sum of contribution() over every thread of every rank. */
static long long expected_sum(int size, int epoch, int i) {
  const long long per_rank_threads = (long long)kThreads * 1000LL * size * (size + 1) / 2;
  const long long per_thread = (long long)size * 10LL * kThreads * (kThreads - 1) / 2;
  return per_rank_threads + per_thread + (long long)size * kThreads * (epoch + 100000LL * i);
}

int main(int argc, char** argv) {
  proxy_environment* env = NULL;
  proxy_status status = proxy_environment_create(&argc, &argv, &env);
  if (status != PROXY_SUCCESS) {
    fprintf(stderr, "test_c_hierarchical: error: %s\n", proxy_last_error());
    return status == PROXY_ERROR_SETTINGS ? 2 : 1;
  }
  int rank = -1, size = 0;
  OK(proxy_environment_rank(env, &rank));
  OK(proxy_environment_size(env, &size));
  CHECK(size >= 2);
  proxy_thread* thread = NULL;
  OK(proxy_thread_create(MPI_COMM_WORLD, &thread));

  /* The dot-product shape: each thread writes its partial, marks its part; the proxy reduces and allreduces.
   * A broadcast in the same plan waits for rank 0's part 0 (its data written by thread 0), and a reduce to
   * the last rank takes each thread's maximum. */
  long long partial[kThreads][2];
  long long total[2] = {0, 0};
  int maximum_in[kThreads];
  int maximum = -1;
  double announced = 0.0;
  const void* partials[kThreads];
  const void* maxima[kThreads];
  int all_parts[kThreads];
  for (int t = 0; t < kThreads; ++t) {
    partials[t] = partial[t];
    maxima[t] = &maximum_in[t];
    all_parts[t] = t;
  }
  proxy_plan_spec* spec = NULL;
  OK(proxy_plan_spec_create("dot", &spec));
  OK(proxy_plan_spec_parts(spec, kThreads));
  OK(proxy_plan_spec_allreduce_when_ready(spec, all_parts, kThreads, MPI_COMM_WORLD, partials, kThreads, total, 2,
                                          MPI_LONG_LONG, MPI_SUM));
  OK(proxy_plan_spec_broadcast_when_ready(spec, all_parts, 1, MPI_COMM_WORLD, 0, &announced, 1, MPI_DOUBLE));
  OK(proxy_plan_spec_reduce_when_ready(spec, all_parts, kThreads, MPI_COMM_WORLD, size - 1, maxima, kThreads,
                                       &maximum, 1, MPI_INT, MPI_MAX));
  proxy_plan* dot = NULL;
  OK(proxy_commit(thread, spec, &dot));
  OK(proxy_plan_spec_free(spec));

  for (int epoch = 0; epoch < kEpochs; ++epoch) {
    proxy_ticket ticket;
    OK(proxy_start(thread, dot, &ticket));
    proxy_status marked[kThreads];
#pragma omp parallel for num_threads(kThreads) schedule(static, 1)
    for (int t = 0; t < kThreads; ++t) {
      partial[t][0] = contribution(rank, t, epoch, 0);
      partial[t][1] = contribution(rank, t, epoch, 1);
      maximum_in[t] = 100 * rank + 10 * t + epoch;
      if (t == 0 && rank == 0) announced = 0.5 + epoch;
      marked[t] = proxy_ready(thread, ticket, t);
    }
    for (int t = 0; t < kThreads; ++t) OK(marked[t]);
    OK(proxy_wait(thread, ticket, PROXY_WAIT_DEFAULT_TIMEOUT));
    CHECK(total[0] == expected_sum(size, epoch, 0));
    CHECK(total[1] == expected_sum(size, epoch, 1));
    CHECK(announced == 0.5 + epoch);
    if (rank == size - 1) CHECK(maximum == 100 * (size - 1) + 10 * (kThreads - 1) + epoch);
  }

  /* Without parts: the contributions are reduced at the start, left to right. 1e16 + 1 rounds to 1e16 (ties
   * to even), so ((1e16 + 1) + 1) is 1e16 on every rank, and the sum over the ranks is exactly size * 1e16;
   * any other order (1 + 1 + 1e16 = 1e16 + 2) gives other bits. */
  double terms[3] = {1e16, 1.0, 1.0};
  const double* term_pointers[3] = {&terms[0], &terms[1], &terms[2]};
  double sum = 0.0, root_sum = -1.0;
  OK(proxy_plan_spec_create("ordered", &spec));
  OK(proxy_plan_spec_allreduce_contributions(spec, MPI_COMM_WORLD, (const void* const*)term_pointers, 3, &sum, 1,
                                             MPI_DOUBLE, MPI_SUM));
  OK(proxy_plan_spec_reduce_contributions(spec, MPI_COMM_WORLD, 0, (const void* const*)term_pointers, 3, &root_sum,
                                          1, MPI_DOUBLE, MPI_SUM));
  proxy_plan* ordered = NULL;
  OK(proxy_commit(thread, spec, &ordered));
  OK(proxy_plan_spec_free(spec));
  proxy_ticket ticket;
  OK(proxy_start(thread, ordered, &ticket));
  OK(proxy_wait(thread, ticket, PROXY_WAIT_DEFAULT_TIMEOUT));
  CHECK(sum == size * 1e16);
  if (rank == 0) CHECK(root_sum == size * 1e16);
  if (rank != 0) CHECK(root_sum == -1.0); /* a reduce's result is the root's alone */

  /* Refused elements: the C++ validation's message at commit, and the C boundary's own checks. */
  const void* with_null[2] = {&terms[0], NULL};
  proxy_plan* refused = NULL;
  OK(proxy_plan_spec_create("dot", &spec));
  OK(proxy_plan_spec_allreduce_contributions(spec, MPI_COMM_WORLD, with_null, 2, &sum, 1, MPI_DOUBLE, MPI_SUM));
  CHECK(proxy_commit(thread, spec, &refused) == PROXY_ERROR);
  CHECK(last_error_is("plan 'dot': allreduce element 0 has a null contribution 1 for count 1"));
  CHECK(refused == NULL);
  OK(proxy_plan_spec_free(spec));
  const int outside[1] = {2};
  OK(proxy_plan_spec_create("dot", &spec));
  OK(proxy_plan_spec_parts(spec, 2));
  OK(proxy_plan_spec_allreduce_when_ready(spec, outside, 1, MPI_COMM_WORLD, (const void* const*)term_pointers, 1,
                                          &sum, 1, MPI_DOUBLE, MPI_SUM));
  CHECK(proxy_commit(thread, spec, &refused) == PROXY_ERROR);
  CHECK(last_error_is("plan 'dot': allreduce element 0 waits for part 2, outside [0, 2)"));
  CHECK(proxy_plan_spec_reduce_contributions(spec, MPI_COMM_WORLD, 0, NULL, -1, &sum, 1, MPI_DOUBLE, MPI_SUM) ==
        PROXY_ERROR_ARGUMENT);
  CHECK(last_error_is("proxy_plan_spec_reduce_contributions: contribution_count is -1"));
  CHECK(proxy_plan_spec_allreduce_when_ready(spec, all_parts, 1, MPI_COMM_WORLD, NULL, 2, &sum, 1, MPI_DOUBLE,
                                             MPI_SUM) == PROXY_ERROR_ARGUMENT);
  CHECK(last_error_is("proxy_plan_spec_allreduce_when_ready: contributions is NULL"));
  CHECK(proxy_plan_spec_broadcast_when_ready(spec, NULL, 1, MPI_COMM_WORLD, 0, &sum, 1, MPI_DOUBLE) ==
        PROXY_ERROR_ARGUMENT);
  CHECK(last_error_is("proxy_plan_spec_broadcast_when_ready: parts is NULL"));
  OK(proxy_plan_spec_free(spec));

  OK(proxy_plan_free(dot));
  OK(proxy_plan_free(ordered));
  OK(proxy_thread_free(thread));
  if (rank == 0) printf("test_c_hierarchical: %d checks passed on %d ranks\n", checks, size);
  OK(proxy_environment_free(env));
  return 0;
}
