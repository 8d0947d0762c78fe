/* docs/c-fortran.md's dot product over OpenMP threads in C (tests/c/test_c_hierarchical.c runs one): the spec
 * it adds its element to, and the number of threads. Compiled, not run. */
#include <proxy/proxy.h>

#define THREADS 4

void example(proxy_plan_spec* spec) {
  /* @example@ */
}
