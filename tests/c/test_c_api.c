/* The C API from C, on real ranks (2 or more): every element a plan can hold (send, recv, packed, broadcast,
 * reduce, allreduce, parts), start / ready / wait / test / progress points / call / then, the memory check, and
 * the failures: their status and their message, word for word the C++ exception's what(). Built with -DMPI (a
 * macro a C stencil code defines) and no MPI C++ bindings. Prints "test_c_api: N checks passed" on rank 0, exit 0; a failed
 * check prints what failed and ends the job with exit 1. */
#include <math.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <proxy/proxy.h>

#if !defined(MPI)
#error "this test is built with -DMPI, as the C stencil codes that use the runtime are"
#endif

#define CHECK_PROGRAM "test_c_api"
#include "c_check.h"

struct packed_context {
  int value;
  int received;
};
static void pack_value(void* staging, void* context) {
  memcpy(staging, &((struct packed_context*)context)->value, sizeof(int));
}
static void unpack_value(const void* staging, void* context) {
  memcpy(&((struct packed_context*)context)->received, staging, sizeof(int));
}

/* A then callback: what the plan's receive buffer held when it ran on the proxy, and how often it ran. */
struct then_context {
  const int* received;
  int seen;
  int runs;
};
static void record_received(void* context) {
  struct then_context* c = context;
  c->seen = *c->received;
  ++c->runs;
}
static void count_run(void* context) { atomic_fetch_add((atomic_int*)context, 1); }

struct barrier_context {
  proxy_thread* thread;
  int sum;
};
static void sum_ranks(void* context) {
  struct barrier_context* c = context;
  MPI_Comm comm;
  int rank;
  proxy_thread_comm(c->thread, &comm);
  MPI_Comm_rank(comm, &rank);
  MPI_Allreduce(&rank, &c->sum, 1, MPI_INT, MPI_SUM, comm);
}

int main(int argc, char** argv) {
  proxy_environment* env = NULL;
  proxy_status status = proxy_environment_create(&argc, &argv, &env);
  if (status != PROXY_SUCCESS) {
    fprintf(stderr, "test_c_api: error: %s\n", proxy_last_error());
    return status == PROXY_ERROR_SETTINGS ? 2 : 1;
  }
  int rank = -1, size = 0;
  OK(proxy_environment_rank(env, &rank));
  OK(proxy_environment_size(env, &size));
  CHECK(size >= 2);
  const int right = (rank + 1) % size, left = (rank + size - 1) % size;
  char text[256];

  proxy_placement* placement = NULL;
  OK(proxy_environment_placement(env, 1, 1, &placement));
  int threads = 0;
  OK(proxy_placement_threads(placement, &threads));
  CHECK(threads == 1);
  OK(proxy_placement_describe(placement, text, sizeof text));
  CHECK(strncmp(text, "cores ", 6) == 0);

  /* A derived datatype never committed (made before the proxy owns MPI), refused at commit below. */
  MPI_Datatype uncommitted = MPI_DATATYPE_NULL;
  CHECK(MPI_Type_contiguous(2, MPI_INT, &uncommitted) == MPI_SUCCESS);

  proxy_thread* thread = NULL;
  OK(proxy_thread_create_placed(MPI_COMM_WORLD, placement, &thread));
  int thread_rank = -1, thread_size = 0;
  OK(proxy_thread_rank(thread, &thread_rank));
  OK(proxy_thread_size(thread, &thread_size));
  CHECK(thread_rank == rank && thread_size == size);
  const char* strategy = NULL;
  OK(proxy_thread_progress_strategy(thread, &strategy));
  CHECK(strcmp(strategy, "dedicated") == 0 || strcmp(strategy, "cooperative") == 0 ||
        strcmp(strategy, "polling") == 0);

  /* The memory check, collective: a byte per rank fits; 2^80 bytes on every rank but 0 does not, and every rank
   * is told so, with the largest need (all ranks of the test share one node). */
  OK(proxy_check_memory(thread, env, "--n 1", 1.0));
  CHECK(proxy_check_memory(thread, env, "--n 2", rank == 0 ? 1.0 : 0x1p80) == PROXY_ERROR_SETTINGS);
  snprintf(text, sizeof text, "--n 2 needs 1.0 YiB per rank (%d ranks on this node), ", size);
  CHECK(strncmp(proxy_last_error(), text, strlen(text)) == 0);
  CHECK(proxy_check_memory(NULL, env, "--n 1", 1.0) == PROXY_ERROR_ARGUMENT);
  CHECK(last_error_is("proxy_check_memory: thread is NULL"));
  /* A need below 0 or NaN is the caller's error, refused before the collective (it read "needs nan B"). */
  CHECK(proxy_check_memory(thread, env, "--n 3", -1.0) == PROXY_ERROR_ARGUMENT);
  CHECK(last_error_is("proxy_check_memory: bytes_per_rank is -1, not a number of bytes >= 0"));
  CHECK(proxy_check_memory(thread, env, "--n 3", NAN) == PROXY_ERROR_ARGUMENT);
  CHECK(last_error_is("proxy_check_memory: bytes_per_rank is nan, not a number of bytes >= 0"));

  /* A ring: each rank sends its rank + 100 * epoch to the right and receives from the left. */
  int out = 0, in = -1;
  proxy_plan_spec* spec = NULL;
  OK(proxy_plan_spec_create("ring", &spec));
  OK(proxy_plan_spec_send(spec, right, 0, &out, 1, MPI_INT));
  OK(proxy_plan_spec_recv(spec, left, 0, &in, 1, MPI_INT));
  OK(proxy_plan_spec_send(spec, MPI_PROC_NULL, 0, NULL, 0, MPI_INT)); /* accepted and skipped */
  proxy_plan* ring = NULL;
  OK(proxy_commit(thread, spec, &ring));
  OK(proxy_plan_spec_free(spec));
  const char* name = NULL;
  OK(proxy_plan_name(ring, &name));
  CHECK(strcmp(name, "ring") == 0);
  for (int epoch = 1; epoch <= 5; ++epoch) {
    out = rank + 100 * epoch;
    proxy_ticket ticket;
    OK(proxy_start(thread, ring, &ticket));
    CHECK(ticket.plan == ring && ticket.epoch == (uint64_t)epoch);
    OK(proxy_progress_point(thread));
    OK(proxy_wait(thread, ticket, PROXY_WAIT_DEFAULT_TIMEOUT));
    int done = 0;
    OK(proxy_test(thread, ticket, &done));
    CHECK(done == 1);
    CHECK(in == left + 100 * epoch);
  }

  /* A receive nobody has sent to yet: restarting it, and a short wait on it, fail as in C++. */
  int late = -1, late_out = 7 * rank;
  OK(proxy_plan_spec_create("pending", &spec));
  OK(proxy_plan_spec_recv(spec, left, 7, &late, 1, MPI_INT));
  proxy_plan* pending = NULL;
  OK(proxy_commit(thread, spec, &pending));
  OK(proxy_plan_spec_free(spec));
  proxy_ticket pending_ticket, again;
  OK(proxy_start(thread, pending, &pending_ticket));
  int done = -1;
  OK(proxy_test(thread, pending_ticket, &done));
  CHECK(done == 0);
  again = pending_ticket;
  CHECK(proxy_start(thread, pending, &again) == PROXY_ERROR);
  CHECK(strstr(proxy_last_error(), "plan 'pending'") != NULL);
  CHECK(again.plan == NULL && again.epoch == 0); /* the empty ticket, not the earlier start's */
  CHECK(proxy_wait(thread, pending_ticket, 50) == PROXY_ERROR_TIMEOUT);
  CHECK(strstr(proxy_last_error(), "plan 'pending'") != NULL);
  /* then: nobody has sent yet (the late sends start after the barrier below), so the callback has not run. */
  struct then_context after_late = {&late, -1, 0};
  proxy_completion* completion = NULL;
  OK(proxy_then(thread, pending_ticket, record_received, &after_late, &completion));
  OK(proxy_completion_test(thread, completion, &done));
  CHECK(done == 0 && after_late.runs == 0);
  struct barrier_context barrier = {thread, -1};
  OK(proxy_call(thread, sum_ranks, &barrier, "sum of ranks")); /* every rank has checked: now send */
  CHECK(barrier.sum == size * (size - 1) / 2);
  OK(proxy_plan_spec_create("late", &spec));
  OK(proxy_plan_spec_send(spec, right, 7, &late_out, 1, MPI_INT));
  proxy_plan* late_send = NULL;
  OK(proxy_commit(thread, spec, &late_send));
  OK(proxy_plan_spec_free(spec));
  proxy_ticket late_ticket;
  OK(proxy_start(thread, late_send, &late_ticket));
  OK(proxy_wait(thread, late_ticket, PROXY_WAIT_DEFAULT_TIMEOUT));
  OK(proxy_wait(thread, pending_ticket, PROXY_WAIT_DEFAULT_TIMEOUT));
  CHECK(late == 7 * left);
  /* ... and it ran once, on the proxy, after the receive completed: it saw the value. */
  OK(proxy_completion_wait(thread, completion, PROXY_WAIT_DEFAULT_TIMEOUT));
  CHECK(after_late.runs == 1 && after_late.seen == 7 * left);
  OK(proxy_completion_test(thread, completion, &done));
  CHECK(done == 1);
  OK(proxy_completion_free(completion));
  /* Without a completion (nobody waits), on an epoch already complete: it runs all the same. */
  atomic_int fired = 0;
  OK(proxy_then(thread, pending_ticket, count_run, &fired, NULL));
  while (atomic_load(&fired) == 0) proxy_progress_point(thread);
  CHECK(atomic_load(&fired) == 1);
  completion = NULL;
  CHECK(proxy_then(thread, pending_ticket, NULL, NULL, &completion) == PROXY_ERROR_ARGUMENT);
  CHECK(last_error_is("proxy_then: function is NULL"));
  CHECK(completion == NULL);
  CHECK(proxy_completion_wait(thread, NULL, 0) == PROXY_ERROR_ARGUMENT);
  CHECK(last_error_is("proxy_completion_wait: completion is NULL"));
  OK(proxy_completion_free(NULL));

  /* Collective elements: broadcast from the last rank, reduce to rank 0, allreduce. */
  int shared = rank == size - 1 ? 4242 : 0, mine = rank + 1, total = 0, everywhere = 0;
  OK(proxy_plan_spec_create("collectives", &spec));
  OK(proxy_plan_spec_broadcast(spec, MPI_COMM_WORLD, size - 1, &shared, 1, MPI_INT));
  OK(proxy_plan_spec_reduce(spec, MPI_COMM_WORLD, 0, &mine, &total, 1, MPI_INT, MPI_SUM));
  OK(proxy_plan_spec_allreduce(spec, MPI_COMM_WORLD, &mine, &everywhere, 1, MPI_INT, MPI_MAX));
  proxy_plan* collectives = NULL;
  OK(proxy_commit(thread, spec, &collectives));
  OK(proxy_plan_spec_free(spec));
  proxy_ticket collective_ticket;
  OK(proxy_start(thread, collectives, &collective_ticket));
  OK(proxy_wait(thread, collective_ticket, PROXY_WAIT_DEFAULT_TIMEOUT));
  CHECK(shared == 4242);
  CHECK(everywhere == size);
  if (rank == 0) CHECK(total == size * (size + 1) / 2);

  /* Parts: the send waits for parts 0 and 1; packed transfers carry a value through callbacks. */
  int chunk[2] = {0, 0}, chunk_in[2] = {-1, -1};
  const int both[2] = {0, 1};
  struct packed_context packed = {1000 + rank, -1};
  OK(proxy_plan_spec_create("parts", &spec));
  OK(proxy_plan_spec_parts(spec, 2));
  OK(proxy_plan_spec_send_when_ready(spec, both, 2, right, 3, chunk, 2, MPI_INT));
  OK(proxy_plan_spec_recv_when_ready(spec, both, 2, left, 3, chunk_in, 2, MPI_INT));
  OK(proxy_plan_spec_send_packed(spec, right, 4, sizeof(int), pack_value, &packed));
  OK(proxy_plan_spec_recv_packed(spec, left, 4, sizeof(int), unpack_value, &packed));
  proxy_plan* parts = NULL;
  OK(proxy_commit(thread, spec, &parts));
  OK(proxy_plan_spec_free(spec));
  proxy_ticket parts_ticket;
  OK(proxy_start(thread, parts, &parts_ticket));
  chunk[0] = 10 * rank;
  OK(proxy_ready(thread, parts_ticket, 0));
  CHECK(proxy_ready(thread, parts_ticket, 0) == PROXY_ERROR); /* marked twice */
  CHECK(strstr(proxy_last_error(), "plan 'parts'") != NULL);
  chunk[1] = 10 * rank + 1;
  OK(proxy_ready(thread, parts_ticket, 1));
  OK(proxy_wait(thread, parts_ticket, PROXY_WAIT_DEFAULT_TIMEOUT));
  CHECK(chunk_in[0] == 10 * left && chunk_in[1] == 10 * left + 1);
  CHECK(packed.received == 1000 + left);

  /* Refusals: the C++ messages, word for word. */
  OK(proxy_plan_spec_create("bad-peer", &spec));
  OK(proxy_plan_spec_send(spec, size, 0, &out, 1, MPI_INT));
  proxy_plan* bad = NULL;
  CHECK(proxy_commit(thread, spec, &bad) == PROXY_ERROR);
  CHECK(bad == NULL);
  snprintf(text, sizeof text, "plan 'bad-peer': transfer 0 names rank %d, outside the communicator (size %d)", size,
           size);
  CHECK(last_error_is(text));
  OK(proxy_plan_spec_free(spec));
  OK(proxy_plan_spec_create("bad-part", &spec));
  OK(proxy_plan_spec_parts(spec, 1));
  OK(proxy_plan_spec_send_when_ready(spec, both, 2, right, 0, &out, 1, MPI_INT));
  CHECK(proxy_commit(thread, spec, &bad) == PROXY_ERROR);
  CHECK(last_error_is("plan 'bad-part': transfer 0 waits for part 1, outside [0, 1)"));
  OK(proxy_plan_spec_free(spec));
  OK(proxy_plan_spec_create("uncommitted", &spec));
  OK(proxy_plan_spec_recv(spec, left, 0, &in, 1, MPI_INT));
  OK(proxy_plan_spec_send(spec, right, 6, &out, 1, uncommitted));
  CHECK(proxy_commit(thread, spec, &bad) == PROXY_ERROR); /* was PROXY_ERROR_COMM, "epoch 0" */
  snprintf(text, sizeof text, "plan 'uncommitted': transfer 1 (send to rank %d tag 6) has a datatype that is not "
           "committed: call MPI_Type_commit on it before committing the plan", right);
  CHECK(last_error_is(text));
  OK(proxy_plan_spec_free(spec));
  CHECK(proxy_commit(NULL, NULL, &bad) == PROXY_ERROR_ARGUMENT);
  CHECK(last_error_is("proxy_commit: thread is NULL"));
  CHECK(proxy_start(thread, NULL, &again) == PROXY_ERROR_ARGUMENT);
  CHECK(last_error_is("proxy_start: plan is NULL"));
  proxy_ticket unstarted = {bad, 0};
  CHECK(proxy_wait(thread, unstarted, 0) == PROXY_ERROR_ARGUMENT);
  CHECK(last_error_is("proxy_wait: ticket.plan is NULL"));

  /* A failed call leaves every output parameter empty, never as it was: a ticket that a failed start left
   * holding garbage was waited on and crashed; the empty ticket is refused by proxy_wait. */
  proxy_ticket garbage;
  memset(&garbage, 0x5a, sizeof garbage);
  CHECK(proxy_start(thread, NULL, &garbage) == PROXY_ERROR_ARGUMENT);
  CHECK(garbage.plan == NULL && garbage.epoch == 0);
  CHECK(proxy_wait(thread, garbage, PROXY_WAIT_DEFAULT_TIMEOUT) == PROXY_ERROR_ARGUMENT);
  CHECK(last_error_is("proxy_wait: ticket.plan is NULL"));
  memset(&garbage, 0x5a, sizeof garbage);
  CHECK(proxy_start(NULL, ring, &garbage) == PROXY_ERROR_ARGUMENT);
  CHECK(last_error_is("proxy_start: thread is NULL"));
  CHECK(garbage.plan == NULL && garbage.epoch == 0);
  int number = 7;
  CHECK(proxy_environment_rank(NULL, &number) == PROXY_ERROR_ARGUMENT && number == MPI_UNDEFINED);
  number = 7;
  CHECK(proxy_environment_size(NULL, &number) == PROXY_ERROR_ARGUMENT && number == 0);
  number = 7;
  CHECK(proxy_environment_bind_openmp_threads(env, NULL, &number) == PROXY_ERROR_ARGUMENT && number == 0);
  number = 7;
  CHECK(proxy_placement_threads(NULL, &number) == PROXY_ERROR_ARGUMENT && number == 0);
  number = 7;
  CHECK(proxy_thread_rank(NULL, &number) == PROXY_ERROR_ARGUMENT && number == MPI_UNDEFINED);
  number = 7;
  CHECK(proxy_thread_size(NULL, &number) == PROXY_ERROR_ARGUMENT && number == 0);
  MPI_Comm comm = MPI_COMM_WORLD;
  CHECK(proxy_thread_comm(NULL, &comm) == PROXY_ERROR_ARGUMENT && comm == MPI_COMM_NULL);
  const char* stale = "stale";
  CHECK(proxy_thread_progress_strategy(NULL, &stale) == PROXY_ERROR_ARGUMENT && strcmp(stale, "") == 0);
  stale = "stale";
  CHECK(proxy_plan_name(NULL, &stale) == PROXY_ERROR_ARGUMENT && strcmp(stale, "") == 0);
  snprintf(text, sizeof text, "stale");
  CHECK(proxy_placement_describe(NULL, text, sizeof text) == PROXY_ERROR_ARGUMENT && text[0] == '\0');
  proxy_plan* stale_plan = ring;
  CHECK(proxy_commit(NULL, NULL, &stale_plan) == PROXY_ERROR_ARGUMENT && stale_plan == NULL);
  proxy_thread* stale_thread = thread;
  CHECK(proxy_thread_create_placed(MPI_COMM_WORLD, NULL, &stale_thread) == PROXY_ERROR_ARGUMENT &&
        stale_thread == NULL);
  proxy_placement* stale_placement = placement;
  CHECK(proxy_environment_placement(NULL, 1, 1, &stale_placement) == PROXY_ERROR_ARGUMENT && stale_placement == NULL);
  proxy_plan_spec* stale_spec = (proxy_plan_spec*)ring;
  CHECK(proxy_plan_spec_create(NULL, &stale_spec) == PROXY_ERROR_ARGUMENT && stale_spec == NULL);
  number = 7;
  CHECK(proxy_test(thread, garbage, &number) == PROXY_ERROR_ARGUMENT && number == 0);
  proxy_completion* stale_completion = (proxy_completion*)ring;
  CHECK(proxy_then(thread, garbage, count_run, NULL, &stale_completion) == PROXY_ERROR_ARGUMENT &&
        stale_completion == NULL);
  CHECK(strcmp(proxy_status_name(PROXY_ERROR_TIMEOUT), "PROXY_ERROR_TIMEOUT") == 0);
  CHECK(strcmp(proxy_status_name((proxy_status)99), "unknown proxy_status") == 0);
  OK(proxy_plan_free(NULL));

  /* Misuse refused with its status and the C++ message: a second Environment or ProxyThread, a packed size past
   * int, too many parts, a negative timeout other than PROXY_WAIT_DEFAULT_TIMEOUT, a ticket no start gave. */
  proxy_environment* second_env = (proxy_environment*)ring;
  CHECK(proxy_environment_create(&argc, &argv, &second_env) == PROXY_ERROR && second_env == NULL);
  CHECK(last_error_is("Environment: another Environment is alive in this process: keep one for main's lifetime and "
                      "pass it where it is needed"));
  proxy_thread* second_thread = (proxy_thread*)ring;
  CHECK(proxy_thread_create(MPI_COMM_WORLD, &second_thread) == PROXY_ERROR && second_thread == NULL);
  CHECK(last_error_is("ProxyThread: another ProxyThread is alive in this process; only one thread may call MPI "
                      "(MPI_THREAD_SERIALIZED): destroy the first before creating the next"));
  OK(proxy_plan_spec_create("misuse", &spec));
  CHECK(proxy_plan_spec_send_packed(spec, right, 3, (size_t)1 << 31, pack_value, &packed) == PROXY_ERROR);
  snprintf(text, sizeof text, "plan 'misuse': transfer 0 (send_packed to rank %d tag 3) has 2147483648 bytes, more "
           "than one message carries (at most 2147483647)", right);
  CHECK(last_error_is(text));
  CHECK(proxy_plan_spec_parts(spec, 1 << 21) == PROXY_ERROR);
  CHECK(last_error_is("plan 'misuse': parts(2097152): at most 1048576 parts"));
  OK(proxy_plan_spec_free(spec));
  proxy_ticket misused;
  OK(proxy_start(thread, ring, &misused));
  CHECK(proxy_wait(thread, misused, -5) == PROXY_ERROR_ARGUMENT);
  CHECK(last_error_is("proxy_wait: timeout_ms is -5 (PROXY_WAIT_DEFAULT_TIMEOUT, -1, or a count of milliseconds "
                      ">= 0)"));
  OK(proxy_wait(thread, misused, PROXY_WAIT_DEFAULT_TIMEOUT));
  const proxy_ticket forged = {ring, misused.epoch + 3};
  CHECK(proxy_wait(thread, forged, PROXY_WAIT_DEFAULT_TIMEOUT) == PROXY_ERROR);
  snprintf(text, sizeof text, "wait on plan 'ring' epoch %llu: it was started up to epoch %llu only: use the ticket "
           "start() returned", (unsigned long long)forged.epoch, (unsigned long long)misused.epoch);
  CHECK(last_error_is(text));
  number = 7;
  CHECK(proxy_test(thread, forged, &number) == PROXY_ERROR && number == 0);
  const proxy_ticket zero = {ring, 0}; /* older than any start: it passed as completed */
  CHECK(proxy_wait(thread, zero, PROXY_WAIT_DEFAULT_TIMEOUT) == PROXY_ERROR);
  CHECK(last_error_is("wait on plan 'ring' epoch 0: start() numbers epochs from 1: use the ticket start() returned"));
  /* A ticket made by hand for a plan committed but never started. */
  OK(proxy_plan_spec_create("idle", &spec));
  OK(proxy_plan_spec_send(spec, MPI_PROC_NULL, 0, &out, 1, MPI_INT));
  proxy_plan* idle = NULL;
  OK(proxy_commit(thread, spec, &idle));
  OK(proxy_plan_spec_free(spec));
  const proxy_ticket never = {idle, 1};
  CHECK(proxy_wait(thread, never, PROXY_WAIT_DEFAULT_TIMEOUT) == PROXY_ERROR_ARGUMENT);
  CHECK(last_error_is("proxy_wait: plan 'idle' has not been started: the ticket did not come from proxy_start"));
  CHECK(proxy_ready(thread, never, 0) == PROXY_ERROR_ARGUMENT);
  CHECK(last_error_is("proxy_ready: plan 'idle' has not been started: the ticket did not come from proxy_start"));
  OK(proxy_plan_free(idle));

  OK(proxy_plan_free(ring));
  OK(proxy_plan_free(pending));
  OK(proxy_plan_free(late_send));
  OK(proxy_plan_free(collectives));
  OK(proxy_plan_free(parts));
  OK(proxy_thread_free(thread));
  CHECK(MPI_Type_free(&uncommitted) == MPI_SUCCESS);
  OK(proxy_placement_free(placement));
  if (rank == 0) printf("test_c_api: %d checks passed on %d ranks\n", checks, size);
  OK(proxy_environment_free(env));
  return 0;
}
