/* The C tests' checks: CHECK counts a passed condition or ends the job with the line and the last error;
 * OK checks a call returned PROXY_SUCCESS; last_error_is compares proxy_last_error() exactly. Define
 * CHECK_PROGRAM (the test's name, for the messages) before including. */
#ifndef PROXY_TESTS_C_CHECK_H
#define PROXY_TESTS_C_CHECK_H

#include <stdio.h>
#include <string.h>

#include <proxy/proxy.h>

static int checks = 0;

static void fail_check(const char* what, int line) {
  char text[1024];
  snprintf(text, sizeof text, CHECK_PROGRAM ": line %d: check failed: %s (last error: '%s')", line, what,
           proxy_last_error());
  proxy_abort(text, 1);
}
#define CHECK(condition) ((condition) ? (void)++checks : fail_check(#condition, __LINE__))
#define OK(call) CHECK((call) == PROXY_SUCCESS)

/* The last error, exactly. */
static int last_error_is(const char* expected) {
  if (strcmp(proxy_last_error(), expected) == 0) return 1;
  fprintf(stderr, CHECK_PROGRAM ": expected error '%s', got '%s'\n", expected, proxy_last_error());
  return 0;
}

#endif
