/* The proxy runtime for C (C99 or later; C++ too): a thin layer over the C++ API of proxy::core.
 * Opaque handles (environment, placement, proxy thread, plan spec, plan), plans built element by element
 * (send, recv, packed, broadcast, reduce, allreduce, their hierarchical forms over per-thread contributions,
 * parts and transfers and collectives that wait for them), commit, start,
 * ready, wait with a timeout, test, progress points, call (a C function run on the proxy thread) and then (one
 * run there once a ticket's epoch has completed).
 * docs/c-fortran.md has the table that maps each function onto its C++ counterpart.
 *
 * Errors: every function returns a proxy_status; PROXY_SUCCESS is 0. On failure proxy_last_error() is the
 * one-line message the C++ exception carries (its what(), word for word), kept per thread until the next
 * failing call on that thread. No C++ exception ever crosses into C. On failure every output parameter given
 * (not NULL) holds its empty value, never what it held before nor garbage: NULL for a handle, {NULL, 0} for a
 * ticket (which proxy_wait refuses, PROXY_ERROR_ARGUMENT "proxy_wait: ticket.plan is NULL"), MPI_COMM_NULL for a
 * communicator, "" for a name or text, MPI_UNDEFINED for a rank, 0 for a size, a count or a flag.
 *
 * Thread contract (the C++ one, proxy/proxy_thread.hpp): create and free the environment and the proxy
 * thread on the main thread; commit, start, ready, wait, test, progress_point and call from any thread; a
 * plan is started by one thread at a time and not again before its previous epoch completed. Callbacks
 * (pack, unpack, call) run on the proxy thread (or, under cooperative progress, on the thread holding the
 * progress token): keep them short, never wait in them. Buffers named by a plan must stay valid while the
 * plan lives and untouched between start and completion.
 *
 * Only the C declarations of mpi.h are used: no MPI C++ bindings, and nothing here is named MPI (codes that
 * compile with -DMPI keep working). */
#ifndef PROXY_PROXY_H
#define PROXY_PROXY_H

#include <stddef.h>
#include <stdint.h>

#include <mpi.h>

#ifdef __cplusplus
extern "C" {
#endif

/* What a call's failure was, named after the C++ exception it caught. */
typedef enum proxy_status {
  PROXY_SUCCESS = 0,
  PROXY_ERROR = 1,               /* proxy::Error: set-up or misuse (a bad peer, a restarted plan, ...) */
  PROXY_ERROR_SETTINGS = 2,      /* settings every rank refuses alike (exit 2): a PROXY_* variable
                                  * (proxy::SettingsError), a size proxy_check_memory finds too big */
  PROXY_ERROR_COMMUNICATION = 3, /* proxy::CommError: an MPI failure, stored with the plan and rethrown */
  PROXY_ERROR_TIMEOUT = 4,       /* proxy::TimeoutError: a wait expired; the message lists what is outstanding */
  PROXY_ERROR_ARGUMENT = 5,      /* a null handle or pointer given to this API */
  PROXY_ERROR_NO_MEMORY = 6,     /* std::bad_alloc */
  PROXY_ERROR_UNKNOWN = 7        /* any other exception */
} proxy_status;

/* The message of the last failing call on this thread ("" before any failure). Valid until the next failing
 * call on this thread. */
const char* proxy_last_error(void);
/* "PROXY_SUCCESS", "PROXY_ERROR_TIMEOUT", ...; "unknown proxy_status" for other values. */
const char* proxy_status_name(proxy_status status);
/* The runtime's version, "0.1.0" (what the C++ drivers print after "(proxy)"). */
const char* proxy_version(void);
/* A program's --help footer and --show-config rows, as the C++ drivers print them: proxy_settings_help writes
 * the table of the PROXY_* variables with their defaults, the OMP_* note and the exit statuses;
 * proxy_settings_show one line "  SETTING  VALUE  SOURCE" per PROXY_* variable (its value from the environment,
 * else its default) and per other PROXY_* or OMP_* variable set. Any thread, before or without an environment.
 * A text that does not fit `size` bytes whole is PROXY_ERROR_ARGUMENT, its message saying how many bytes it needs
 * (4096 hold the help; the rows grow with the OMP_* variables set, a long OMP_PLACES: call again with more). */
proxy_status proxy_settings_help(char* text, size_t size);
proxy_status proxy_settings_show(char* text, size_t size);

/* Wait timeout meaning "the proxy's configured one" (PROXY_WAIT_TIMEOUT, default 120 s). */
#define PROXY_WAIT_DEFAULT_TIMEOUT (-1)

typedef struct proxy_environment proxy_environment;
typedef struct proxy_placement proxy_placement;
typedef struct proxy_thread proxy_thread;
typedef struct proxy_plan_spec proxy_plan_spec;
typedef struct proxy_plan proxy_plan;
typedef struct proxy_completion proxy_completion;

/* One start of a plan: valid while the plan is. Plain data: copy it freely, to any thread. */
typedef struct proxy_ticket {
  proxy_plan* plan;
  uint64_t epoch;
} proxy_ticket;

/* ---- Environment (proxy::Environment): MPI start-up at MPI_THREAD_SERIALIZED unless the code already
 * initialised MPI, the node and host layout, PROXY_* settings checked on every rank. argc and argv may be
 * NULL. A refused setting returns PROXY_ERROR_SETTINGS after its line was written: exit with status 2. */
proxy_status proxy_environment_create(int* argc, char*** argv, proxy_environment** environment);
/* Finalises MPI if the environment initialised it. NULL is accepted. */
proxy_status proxy_environment_free(proxy_environment* environment);
proxy_status proxy_environment_rank(const proxy_environment* environment, int* rank);
proxy_status proxy_environment_size(const proxy_environment* environment, int* size);
/* This rank's share of its host (proxy::Environment::placement): threads = 0 means one compute thread per
 * compute core; with_proxy != 0 reserves a core for the proxy. */
proxy_status proxy_environment_placement(const proxy_environment* environment, int threads, int with_proxy,
                                         proxy_placement** placement);
/* Sizes OpenMP teams to the placement and binds their threads; *bound = 0 when binding was refused. */
proxy_status proxy_environment_bind_openmp_threads(const proxy_environment* environment,
                                                   const proxy_placement* placement, int* bound);
/* Ends every rank: writes `line` (if not NULL) and a newline to stderr whole, then MPI_Abort(code). */
void proxy_abort(const char* line, int code);

proxy_status proxy_placement_free(proxy_placement* placement);
proxy_status proxy_placement_threads(const proxy_placement* placement, int* threads);
/* The placement's one-line description, e.g. "cores 0-3: proxy on 3 (dedicated), 3 compute threads on 0-2",
 * NUL-terminated and cut to `size` bytes. */
proxy_status proxy_placement_describe(const proxy_placement* placement, char* text, size_t size);

/* ---- Proxy thread (proxy::ProxyThread): the one thread of the rank that calls MPI. comm is duplicated.
 * proxy_thread_create: settings from PROXY_* variables, no placement. proxy_thread_create_placed: bound
 * where the placement says, progress strategy chosen from it. */
proxy_status proxy_thread_create(MPI_Comm comm, proxy_thread** thread);
proxy_status proxy_thread_create_placed(MPI_Comm comm, const proxy_placement* placement, proxy_thread** thread);
/* Drains outstanding work and joins (or ends the job when it cannot). NULL is accepted. */
proxy_status proxy_thread_free(proxy_thread* thread);
proxy_status proxy_thread_rank(const proxy_thread* thread, int* rank);
proxy_status proxy_thread_size(const proxy_thread* thread, int* size);
/* The proxy's private duplicate of the communicator, for MPI calls made through proxy_call. */
proxy_status proxy_thread_comm(const proxy_thread* thread, MPI_Comm* comm);
/* "dedicated", "cooperative" or "polling": the progress strategy that runs. */
proxy_status proxy_thread_progress_strategy(const proxy_thread* thread, const char** name);

/* ---- Memory (<proxy/memory.hpp>, as the C++ programs' proxy::harness::check_memory): before allocating,
 * whether bytes_per_rank fits in what each rank of the node may still take (the host's MemAvailable or the room
 * under the cgroup's memory limits, divided among the node's ranks, or what RLIMIT_AS still lets the process
 * map, whichever is smallest). Collective over the proxy's communicator: the largest need and the smallest share
 * of any rank are reduced by a plan on the proxy thread, so every rank gets the same answer. When it does not
 * fit: PROXY_ERROR_SETTINGS on every rank, and proxy_last_error() is the line, `what` naming the options that set
 * the size: "--nx 100000 --ny 100000 needs 149.0 GiB per rank (1 rank on this node), 23.1 GiB available per rank
 * (the host's MemAvailable)" (print it from rank 0, exit 2). A bytes_per_rank below 0 or NaN is
 * PROXY_ERROR_ARGUMENT on the rank that gave it, before the collective. */
proxy_status proxy_check_memory(proxy_thread* thread, const proxy_environment* environment, const char* what,
                                double bytes_per_rank);

/* ---- Plan specs (proxy::PlanSpec): build on one thread; the name is copied. */
proxy_status proxy_plan_spec_create(const char* name, proxy_plan_spec** spec);
proxy_status proxy_plan_spec_free(proxy_plan_spec* spec);  /* NULL is accepted */
/* Point-to-point transfers with `peer` of the proxy's communicator (MPI_PROC_NULL: skipped). */
proxy_status proxy_plan_spec_send(proxy_plan_spec* spec, int peer, int tag, const void* buffer, int count,
                                  MPI_Datatype type);
proxy_status proxy_plan_spec_recv(proxy_plan_spec* spec, int peer, int tag, void* buffer, int count,
                                  MPI_Datatype type);
/* Packed transfers: the proxy owns a staging buffer of `bytes`; pack(staging, context) fills it before the
 * send starts, unpack(staging, context) drains it after the receive completes (on the proxy thread). */
proxy_status proxy_plan_spec_send_packed(proxy_plan_spec* spec, int peer, int tag, size_t bytes,
                                         void (*pack)(void* staging, void* context), void* context);
proxy_status proxy_plan_spec_recv_packed(proxy_plan_spec* spec, int peer, int tag, size_t bytes,
                                         void (*unpack)(const void* staging, void* context), void* context);
/* Collective elements on `comm` (duplicated at commit): every rank of comm commits and starts the plans that
 * hold them in the same order. send may be MPI_IN_PLACE where MPI allows it. */
proxy_status proxy_plan_spec_broadcast(proxy_plan_spec* spec, MPI_Comm comm, int root, void* buffer, int count,
                                       MPI_Datatype type);
proxy_status proxy_plan_spec_reduce(proxy_plan_spec* spec, MPI_Comm comm, int root, const void* send,
                                    void* result, int count, MPI_Datatype type, MPI_Op op);
proxy_status proxy_plan_spec_allreduce(proxy_plan_spec* spec, MPI_Comm comm, const void* send, void* result,
                                       int count, MPI_Datatype type, MPI_Op op);
/* Hierarchical forms: `contribution_count` contributions (one per compute thread, or per row) of `count`
 * elements each, reduced by the proxy in their order (c0 op c1 op ...) at each start, then over the ranks of
 * comm into result (docs/api.md, "Hierarchical elements"). The contributions' addresses are copied; the
 * buffers they point to must stay valid while the plan lives. */
proxy_status proxy_plan_spec_reduce_contributions(proxy_plan_spec* spec, MPI_Comm comm, int root,
                                                  const void* const* contributions, int contribution_count,
                                                  void* result, int count, MPI_Datatype type, MPI_Op op);
proxy_status proxy_plan_spec_allreduce_contributions(proxy_plan_spec* spec, MPI_Comm comm,
                                                     const void* const* contributions, int contribution_count,
                                                     void* result, int count, MPI_Datatype type, MPI_Op op);
/* Partitioned readiness: the plan's data has `count` parts, marked ready each epoch by proxy_ready(); a
 * *_when_ready transfer starts once all its `part_count` parts are. */
proxy_status proxy_plan_spec_parts(proxy_plan_spec* spec, int count);
proxy_status proxy_plan_spec_send_when_ready(proxy_plan_spec* spec, const int* parts, int part_count, int peer,
                                             int tag, const void* buffer, int count, MPI_Datatype type);
proxy_status proxy_plan_spec_recv_when_ready(proxy_plan_spec* spec, const int* parts, int part_count, int peer,
                                             int tag, void* buffer, int count, MPI_Datatype type);
/* The collective elements, started each epoch only once all their `part_count` parts are ready (a thread
 * marks its part when its contribution is written; the broadcast's root when the data is). */
proxy_status proxy_plan_spec_broadcast_when_ready(proxy_plan_spec* spec, const int* parts, int part_count,
                                                  MPI_Comm comm, int root, void* buffer, int count,
                                                  MPI_Datatype type);
proxy_status proxy_plan_spec_reduce_when_ready(proxy_plan_spec* spec, const int* parts, int part_count,
                                               MPI_Comm comm, int root, const void* const* contributions,
                                               int contribution_count, void* result, int count,
                                               MPI_Datatype type, MPI_Op op);
proxy_status proxy_plan_spec_allreduce_when_ready(proxy_plan_spec* spec, const int* parts, int part_count,
                                                  MPI_Comm comm, const void* const* contributions,
                                                  int contribution_count, void* result, int count,
                                                  MPI_Datatype type, MPI_Op op);

/* ---- Plans (proxy::Plan) */
/* Validates the spec (peers and roots inside their communicator, tags, counts, parts: PROXY_ERROR naming
 * the plan and the bad value) and creates its persistent requests. The spec may be freed afterwards. */
proxy_status proxy_commit(proxy_thread* thread, const proxy_plan_spec* spec, proxy_plan** plan);
/* Releases the plan's requests on the proxy (after its running epoch). Its tickets become invalid. NULL is
 * accepted. */
proxy_status proxy_plan_free(proxy_plan* plan);
proxy_status proxy_plan_name(const proxy_plan* plan, const char** name);

/* Starts the plan's next epoch. PROXY_ERROR if its previous epoch has not completed. On any failure *ticket is
 * the empty ticket {NULL, 0} (also when it held an earlier start's ticket: keep that one in another variable). */
proxy_status proxy_start(proxy_thread* thread, proxy_plan* plan, proxy_ticket* ticket);
/* Part `part` of the ticket's epoch is ready (proxy::ProxyThread::ready). */
proxy_status proxy_ready(proxy_thread* thread, proxy_ticket ticket, int part);
/* Waits for the ticket's epoch under the wait policy, at most timeout_ms milliseconds
 * (PROXY_WAIT_DEFAULT_TIMEOUT, -1: the configured timeout; another negative value is PROXY_ERROR_ARGUMENT; more
 * than 1e6 s waits 1e6 s, so INT64_MAX waits without practical end). PROXY_ERROR_TIMEOUT or PROXY_ERROR_COMMUNICATION
 * with the message on failure. */
proxy_status proxy_wait(proxy_thread* thread, proxy_ticket ticket, int64_t timeout_ms);
/* *done = 1 when the epoch has completed, else 0; a stored communication failure is returned. */
proxy_status proxy_test(proxy_thread* thread, proxy_ticket ticket, int* done);
/* A progress point for compute kernels (does something only under cooperative progress). */
proxy_status proxy_progress_point(proxy_thread* thread);
/* Runs function(context) on the proxy thread and waits for it: the way to make a one-off MPI call (use
 * proxy_thread_comm's communicator). name (may be NULL: "call") names it in errors. */
proxy_status proxy_call(proxy_thread* thread, void (*function)(void* context), void* context, const char* name);
/* Runs function(context) on the proxy thread once the ticket's epoch has completed, successfully or not
 * (function may call proxy_test on the ticket to tell), and returns at once (proxy::ProxyThread::then).
 * function must be short and never wait: it runs on the thread that progresses all communication. Timed like
 * a wait: if the epoch has not completed within the configured timeout, function runs all the same and the
 * completion fails with PROXY_ERROR_TIMEOUT. completion may be NULL (nobody waits for the callback);
 * otherwise wait for it or test it, and free it (at any time: the proxy keeps its own reference). */
proxy_status proxy_then(proxy_thread* thread, proxy_ticket ticket, void (*function)(void* context), void* context,
                        proxy_completion** completion);
/* As proxy_wait and proxy_test, for the callback: done once it has returned. */
proxy_status proxy_completion_wait(proxy_thread* thread, const proxy_completion* completion, int64_t timeout_ms);
proxy_status proxy_completion_test(proxy_thread* thread, const proxy_completion* completion, int* done);
proxy_status proxy_completion_free(proxy_completion* completion); /* NULL is accepted */

#ifdef __cplusplus
}
#endif

#endif /* PROXY_PROXY_H */
