/* proxy_thread_free where threads that use the proxy may still run, one case per argument, each a process of its
 * own, run on real ranks by CTest (label `faults`): the C++ ~ProxyThread's check (tests/core/lifecycle_misuse.cpp)
 * reached through the C API, which keeps its line and its end of the job:
 *   destroyed-elsewhere  freed on a POSIX thread other than the one that created it: one line, the job ends
 *   destroyed-in-region  freed by the creating thread inside an OpenMP parallel region of 2 threads begun after it
 *                        was created: one line, the job ends
 *   destroyed-by-itself  freed by a function proxy_call runs, on its own proxy thread: one line, the job ends
 * A case whose free comes back prints what it returned and exits 0 (so its test fails). */
#include <pthread.h>
#include <stdio.h>
#include <string.h>

#include <proxy/proxy.h>

static proxy_thread* proxy = NULL;
static proxy_status freed = PROXY_SUCCESS;

static void* free_the_proxy(void* unused) {
  (void)unused;
  freed = proxy_thread_free(proxy); /* ends the job in every case */
  return NULL;
}
static void free_the_proxy_here(void* unused) { free_the_proxy(unused); }

int main(int argc, char** argv) {
  const char* which = argc > 1 ? argv[1] : "";
  proxy_environment* env = NULL;
  if (proxy_environment_create(&argc, &argv, &env) != PROXY_SUCCESS) return 2;
  if (proxy_thread_create(MPI_COMM_WORLD, &proxy) != PROXY_SUCCESS) {
    printf("lifecycle_misuse_c: error: %s\n", proxy_last_error());
    return 1;
  }
  if (strcmp(which, "destroyed-elsewhere") == 0) {
    pthread_t other;
    if (pthread_create(&other, NULL, free_the_proxy, NULL) != 0) return 1;
    pthread_join(other, NULL);
  } else if (strcmp(which, "destroyed-in-region") == 0) {
#pragma omp parallel num_threads(2)
    {
#pragma omp master
      free_the_proxy(NULL);
    }
  } else if (strcmp(which, "destroyed-by-itself") == 0) {
    freed = proxy_call(proxy, free_the_proxy_here, NULL, "destroyer");
  } else {
    printf("lifecycle_misuse_c: unknown case '%s'\n", which);
    return 2;
  }
  printf("lifecycle_misuse_c: no error (%s)\n", proxy_status_name(freed));
  proxy_environment_free(env);
  return 0;
}
