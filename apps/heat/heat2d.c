/* heat2d-c: heat2d (heat2d.cpp) in C, through the C API <proxy/proxy.h>: the same explicit 2-D heat
 * equation, rows split over the ranks, the halo rows moved by a plan per buffer while OpenMP threads update
 * the interior rows. --verify recomputes the whole grid serially on every rank, compares bit for bit, and
 * prints a checksum of the final grid (the XOR of every value's bits, rotated by its global index), which
 * the tests compare with the C++ heat2d's own rows (tests/c).
 *   usage: mpiexec -n 2 heat2d-c [--nx 256] [--ny 256] [--iters 200] [--verify] [--bad-peer] [--verbose]
 * The drivers' vocabulary: --help, --version, --show-config (every setting with its source, from
 * proxy_settings_show for the PROXY_* ones) and --verbose (also PROXY_VERBOSE=1: the same table first).
 * --bad-peer adds a transfer to a rank outside the communicator: the commit's one-line refusal, exit 1.
 * Every rank's command line is agreed with rank 0's before the run (agree), through two plans; a grid the node
 * cannot hold is refused before anything is allocated (check_size), as the C++ heat2d refuses it.
 * Exit status: 0, 1 for a run-time failure, 2 for a bad argument, 3 when --verify finds a difference. */
#include <math.h>
#include <ctype.h>
#include <errno.h>
#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <proxy/proxy.h>

enum { kExitSuccess = 0, kExitRunFailure = 1, kExitUsage = 2, kExitVerificationFailed = 3 };
static const double kRate = 0.2; /* dt*alpha/h^2, as heat2d_problem.hpp */

struct problem {
  int nx, ny, steps, verify, bad_peer, verbose, show_config;
  int given[5]; /* whether each of --nx, --ny, --iters, --verify, --bad-peer was on the command line */
  int verbose_from_environment; /* PROXY_VERBOSE=1 */
};

/* heat2d_problem.cpp's initial values, row split and row update, operation for operation. */
static double initial(int gx, int gy, int nx, int ny) {
  return (gx == 0 || gy == 0 || gx == nx - 1 || gy == ny - 1) ? 0.0 : sin(0.1 * gx) * cos(0.07 * gy);
}
static int rows_of(int rank, int ranks, int ny) { return ny / ranks + (rank < ny % ranks ? 1 : 0); }
static int first_row_of(int rank, int ranks, int ny) {
  return rank * (ny / ranks) + (rank < ny % ranks ? rank : ny % ranks);
}
static void update_row(const double* up, const double* row, const double* down, double* out, int nx, int fixed) {
  out[0] = row[0];
  out[nx - 1] = row[nx - 1];
  for (int x = 1; x < nx - 1; ++x)
    out[x] = fixed ? row[x] : row[x] + kRate * (up[x] + down[x] + row[x - 1] + row[x + 1] - 4.0 * row[x]);
}

/* One value's share of the checksum: its bits rotated left by its global index modulo 64. */
static uint64_t checksum_term(double value, long long index) {
  uint64_t bits;
  memcpy(&bits, &value, sizeof bits);
  const unsigned shift = (unsigned)(index % 64);
  return shift == 0 ? bits : (bits << shift) | (bits >> (64 - shift));
}

/* The options, as the C++ heat2d declares them (heat2d_problem.cpp), and --bad-peer: a value's name in messages
 * (NULL for a flag), whether it reads K, M, G suffixes (the sizes; --iters is a count), its bounds (the least
 * --ny is the rank count, set by parse) and its --help line. --version, --help and --show-config are the built-in
 * flags, as in the C++ drivers. */
enum {
  kOptionNx, kOptionNy, kOptionIters, kOptionVerify, kOptionBadPeer, kOptionVerbose, kOptionCount,
  kValueOptions = kOptionVerify
};
static const struct {
  const char* name;
  const char* value_name;
  int suffixes;
  long long least, most;
  const char* help;
} kOptions[kOptionCount] = {
    {"--nx", "NX", 1, 3, 1 << 24, "grid points per row, at least 3 (K suffix allowed) (default: 256)"},
    {"--ny", "NY", 1, 1, 1 << 24, "rows, at least the number of ranks (K suffix allowed) (default: 256)"},
    {"--iters", "K", 0, 1, 1 << 30, "time steps, at least 1 (default: 200)"},
    {"--verify", NULL, 0, 0, 0,
     "recompute the whole grid serially on every rank and compare bit for bit; exit 3 if not"},
    {"--bad-peer", NULL, 0, 0, 0, "add a transfer to a rank outside the communicator: the commit's refusal, exit 1"},
    {"--verbose", NULL, 0, 0, 0, "print the effective configuration first (also PROXY_VERBOSE=1)"}};

static int is_blank(char c) { return c == ' ' || c == '\t'; }
static int is_letter(char c) { return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z'); }

/* read_integer in apps/common/src/options.cpp: "64", "+3", "-1", " 8 ", and where `suffixes`, "4K", "8 kib",
 * "1GB": a decimal integer and one unit (b; k, kb, ki, kib ... e: powers of 1024), any case; "0x10" and "1e3" are
 * not integers, "010" is 10. Returns 0 when the text is none of these, 1 with *value, 2 when it is one but its
 * value does not fit a long long. */
static int read_integer(const char* text, int suffixes, long long* value) {
  const char* begin = text;
  const char* end = text + strlen(text);
  while (begin < end && is_blank(*begin)) ++begin;
  while (end > begin && is_blank(end[-1])) --end;
  const char* unit = end;
  while (unit > begin && is_letter(unit[-1])) --unit;
  const char* digits = begin;
  const char* digits_end = unit;
  while (digits_end > digits && is_blank(digits_end[-1])) --digits_end;
  if (digits < digits_end && *digits == '+') ++digits;  /* users write a leading '+' */
  const int negative = digits < digits_end && *digits == '-';
  if (negative && *begin == '+') return 0;  /* "+-3" */
  if (negative) ++digits;
  if (digits == digits_end) return 0;
  /* The magnitude, up to LLONG_MAX + 1 for a negative value; further digits only overflow. */
  const unsigned long long limit = negative ? (unsigned long long)LLONG_MAX + 1 : (unsigned long long)LLONG_MAX;
  unsigned long long magnitude = 0;
  int overflow = 0;
  for (const char* c = digits; c < digits_end; ++c) {
    if (*c < '0' || *c > '9') return 0;
    const unsigned digit = (unsigned)(*c - '0');
    if (magnitude > (limit - digit) / 10) overflow = 1;
    else magnitude = magnitude * 10 + digit;
  }
  long long factor = 1;
  if (unit < end) {
    static const char kPowers[] = "kmgtpe";
    const size_t length = (size_t)(end - unit);
    char lower[4];
    if (!suffixes || length > 3) return 0;
    for (size_t i = 0; i < length; ++i) lower[i] = (char)tolower((unsigned char)unit[i]);
    lower[length] = '\0';
    if (strcmp(lower, "b") != 0) {
      const char* power = strchr(kPowers, lower[0]);
      const char* rest = lower + 1;
      if (power == NULL || !(strcmp(rest, "") == 0 || strcmp(rest, "b") == 0 || strcmp(rest, "i") == 0 ||
                             strcmp(rest, "ib") == 0))
        return 0;
      factor = 1LL << (10 * (power - kPowers + 1));
    }
  }
  if (overflow) return 2;
  if (negative) {
    *value = magnitude == (unsigned long long)LLONG_MAX + 1 ? LLONG_MIN : -(long long)magnitude;
    if (*value < LLONG_MIN / factor) return 2;
  } else {
    *value = (long long)magnitude;
    if (*value > LLONG_MAX / factor) return 2;
  }
  *value *= factor;
  return 1;
}

/* integer_in_range in options.cpp: option k's value read by read_integer and within its bounds, else its words
 * ("--nx: expected an integer (suffixes K, M, G allowed), got 'abc'", "--nx: Value 2 not in range 3 to 16777216",
 * "--iters: Value 0 not in range 1 to 1073741824 (given as '+0')": the text as given where the value reads
 * otherwise). Returns 1 with *value, 0 with the refusal in answer. */
static int checked_integer(int k, const char* text, long long least, long long* value, char* answer, size_t size) {
  const char* name = kOptions[k].name;
  const int read = read_integer(text, kOptions[k].suffixes, value);
  if (read == 0) {
    snprintf(answer, size, "%s: expected an integer%s, got '%s'", name,
             kOptions[k].suffixes ? " (suffixes K, M, G allowed)" : "", text);
    return 0;
  }
  char decimal[32];
  snprintf(decimal, sizeof decimal, "%lld", *value);
  if (read == 2) {  /* too large for a long long: named as given */
    snprintf(answer, size, "%s: Value %s not in range %lld to %lld", name, text, least, kOptions[k].most);
    return 0;
  }
  if (*value < least || *value > kOptions[k].most) {
    const int same = strcmp(decimal, text) == 0;
    snprintf(answer, size, "%s: Value %s not in range %lld to %lld%s%s%s", name, decimal, least, kOptions[k].most,
             same ? "" : " (given as '", same ? "" : text, same ? "" : "')");
    return 0;
  }
  return 1;
}

/* --help in the C++ drivers' layout (apps/common/src/options.cpp): usage, Options, the PROXY_* table. */
static void help_text(char* answer, size_t size) {
  int used = snprintf(answer, size,
                      "usage: heat2d-c [options]\n"
                      "heat2d in C through <proxy/proxy.h>: the explicit 2-D heat equation, rows split over the ranks\n"
                      "Options:\n  -h, --help           print this help and exit\n");
  for (int k = 0; k < kOptionCount && used >= 0 && (size_t)used < size; ++k) {
    char name[32];
    snprintf(name, sizeof name, "%s%s%s", kOptions[k].name, kOptions[k].value_name ? " " : "",
             kOptions[k].value_name ? kOptions[k].value_name : "");
    used += snprintf(answer + used, size - used, "  %-19s  %s\n", name, kOptions[k].help);
  }
  if (used >= 0 && (size_t)used < size)
    used += snprintf(answer + used, size - used,
                     "  --version            print \"heat2d-c (proxy) %s\" and exit\n"
                     "  --show-config        print every effective setting (options, PROXY_*, OMP_*) with its source "
                     "and exit\n\n", proxy_version());
  if (used >= 0 && (size_t)used < size) proxy_settings_help(answer + used, size - used);
  const size_t length = strlen(answer);
  if (length > 0 && answer[length - 1] == '\n') answer[length - 1] = '\0'; /* printed with its own newline */
}

/* --show-config's table (and --verbose's): each option with its value and source, then the PROXY_* and OMP_*
 * settings (proxy_settings_show), as the C++ drivers print theirs. */
static void configuration(const struct problem* p, char* answer, size_t size) {
  const int values[kOptionCount] = {p->nx, p->ny, p->steps, p->verify, p->bad_peer, p->verbose};
  int used = snprintf(answer, size, "heat2d-c: effective configuration (setting, value, source)\n");
  for (int k = 0; k < kOptionCount && used >= 0 && (size_t)used < size; ++k) {
    char value[32];
    if (kOptions[k].value_name != NULL) snprintf(value, sizeof value, "%d", values[k]);
    else snprintf(value, sizeof value, "%s", values[k] ? "true" : "false");
    const char* source = k < kOptionVerbose ? (p->given[k] ? "option" : "default")
                         : p->verbose_from_environment ? "environment (PROXY_VERBOSE)"
                         : p->verbose ? "option" : "default";
    used += snprintf(answer + used, size - used, "  %-20s  %-20s  %s\n", kOptions[k].name, value, source);
  }
  if (used >= 0 && (size_t)used < size) proxy_settings_show(answer + used, size - used);
  const size_t length = strlen(answer);
  if (length > 0 && answer[length - 1] == '\n') answer[length - 1] = '\0'; /* printed with its own newline */
}

/* The bytes --help's and --show-config's text may take: 8 KiB for the options and the PROXY_* table, and what
 * proxy_settings_show's rows need, which have no bound (they list every OMP_* variable set: a long OMP_PLACES). */
static size_t answer_bytes(void) {
  size_t rows = 4096;
  for (;;) {
    char* text = malloc(rows);
    if (text == NULL) return 8192;
    const proxy_status status = proxy_settings_show(text, rows);
    free(text);
    if (status != PROXY_ERROR_ARGUMENT || rows >= ((size_t)1 << 24)) return 8192 + rows;
    rows *= 2;
  }
}

/* Whether the option part of arg (its first `length` characters, before any '=') is `name`. */
static int is_named(const char* arg, size_t length, const char* name) {
  return strlen(name) == length && strncmp(arg, name, length) == 0;
}

/* Parses argv as the C++ drivers parse theirs (apps/common/src/options.cpp, through CLI11), in their words and
 * with their precedence when an argument is wrong in several ways: first, word by word, an option given twice, a
 * flag given a value, an empty value after '='; then a missing value; then each value against its bounds, in the
 * order of kOptions; then --help (or -h); then the first argument that is no option ("unknown option '--bogus'
 * (see --help)", "unexpected argument 'extra' (options start with --; see --help)"); then --version. After
 * "--" every word is an argument. Returns -1 to run, 0 when --help or --version stopped the parse (answer holds
 * the text), kExitUsage for a bad argument (answer holds the line). Nothing is printed before every rank agrees. */
static int parse(int argc, char** argv, int ranks, struct problem* p, char* answer, size_t size) {
  memset(p, 0, sizeof *p);
  p->nx = 256, p->ny = 256, p->steps = 200;
  int given[kOptionCount] = {0};
  const char* text[kValueOptions] = {NULL, NULL, NULL}; /* each value as given */
  int missing = -1, help = 0, version = 0, separated = 0;
  const char* first_argument = NULL; /* the first word that is no option of this program */
  for (int i = 1; i < argc; ++i) {
    const char* arg = argv[i];
    if (strncmp(arg, "--", 2) != 0 || arg[2] == '\0') {
      if (!separated && strncmp(arg, "-h=", 3) == 0) {
        snprintf(answer, size, "option -h takes no value, got '%s'", arg + 3);
        return kExitUsage;
      }
      if (!separated && strcmp(arg, "-h") == 0) {
        help = 1;
        continue;
      }
      if (first_argument == NULL) first_argument = arg;
      if (strcmp(arg, "--") == 0) separated = 1;
      continue;
    }
    const char* equals = strchr(arg, '=');
    const size_t length = equals != NULL ? (size_t)(equals - arg) : strlen(arg);
    int k = 0;
    while (k < kOptionCount && !is_named(arg, length, kOptions[k].name)) ++k;
    const int is_version = is_named(arg, length, "--version"), is_help = is_named(arg, length, "--help");
    const int is_show_config = is_named(arg, length, "--show-config");
    if (k < kOptionCount && given[k]++) {
      snprintf(answer, size, "option %s given twice", kOptions[k].name);
      return kExitUsage;
    }
    if (((k < kOptionCount && kOptions[k].value_name == NULL) || is_version || is_help || is_show_config) &&
        equals != NULL) {
      snprintf(answer, size, "option %.*s takes no value, got '%s'", (int)length, arg, equals + 1);
      return kExitUsage;
    }
    if (k < kValueOptions) {
      if (equals != NULL && equals[1] == '\0') {
        snprintf(answer, size, "option %s needs a value after '=' (%s)", kOptions[k].name, kOptions[k].value_name);
        return kExitUsage;
      }
      /* The next word is the value, whatever it looks like; after "--" it is an argument as the option is. */
      const char* value = equals != NULL ? equals + 1 : i + 1 < argc ? argv[++i] : NULL;
      if (separated) continue;
      if (value == NULL) missing = k;
      text[k] = value;
      continue;
    }
    if (separated || (k == kOptionCount && !is_version && !is_help && !is_show_config)) {
      if (first_argument == NULL) first_argument = arg;
      continue;
    }
    if (is_version) version = 1;
    else if (is_help) help = 1;
    else if (is_show_config) p->show_config = 1;
    else if (k == kOptionVerify) p->verify = 1;
    else if (k == kOptionBadPeer) p->bad_peer = 1;
    else p->verbose = 1;
  }
  memcpy(p->given, given, sizeof p->given);
  if (missing >= 0) {
    snprintf(answer, size, "option %s needs a value (%s)", kOptions[missing].name, kOptions[missing].value_name);
    return kExitUsage;
  }
  int* const targets[kValueOptions] = {&p->nx, &p->ny, &p->steps};
  for (int k = 0; k < kValueOptions; ++k) {
    long long value = 0;
    if (text[k] == NULL) continue;
    const long long least = k == kOptionNy ? ranks : kOptions[k].least;
    if (!checked_integer(k, text[k], least, &value, answer, size)) return kExitUsage;
    *targets[k] = (int)value;
  }
  /* --verbose's environment name, 0 or 1 (the C++ drivers' check, in their words). */
  const char* verbose = getenv("PROXY_VERBOSE");
  if (verbose != NULL && strcmp(verbose, "0") != 0 && strcmp(verbose, "1") != 0) {
    snprintf(answer, size, "PROXY_VERBOSE='%s' is not an integer from 0 to 1", verbose);
    return kExitUsage;
  }
  if (!p->verbose && verbose != NULL && strcmp(verbose, "1") == 0) p->verbose = p->verbose_from_environment = 1;
  if (help) {
    help_text(answer, size);
    p->show_config = 0;  /* --help answers, whatever else was given */
    return kExitSuccess;
  }
  if (first_argument != NULL) {
    if (strncmp(first_argument, "--", 2) == 0 && first_argument[2] != '\0')
      snprintf(answer, size, "unknown option '%.*s' (see --help)", (int)strcspn(first_argument, "="), first_argument);
    else
      snprintf(answer, size, "unexpected argument '%s' (options start with --; see --help)", first_argument);
    return kExitUsage;
  }
  if (version) {
    snprintf(answer, size, "heat2d-c (proxy) %s", proxy_version());
    p->show_config = 0;
    return kExitSuccess;
  }
  if (p->show_config) {
    configuration(p, answer, size);
    return kExitSuccess;
  }
  return -1;
}

/* "s" after a noun whose count is not 1 ("1 rank", "2 ranks"), as proxy::detail::counted in the C++ programs. */
static const char* plural(long count) { return count == 1 ? "" : "s"; }

/* A failure the other ranks cannot know about: ends the whole job now, while the proxy still runs. */
static void abort_job(int rank) {
  char line[1024];
  snprintf(line, sizeof line, "heat2d-c: error: rank %d: %s", rank, proxy_last_error());
  proxy_abort(line, kExitRunFailure);
}

/* Runs a plan once (committed, started, waited, freed) and frees its spec; a failure ends the job. */
static void run_plan_once(proxy_thread* proxy, proxy_plan_spec* spec, int rank) {
  proxy_plan* plan = NULL;
  proxy_ticket ticket;
  if (proxy_commit(proxy, spec, &plan) != PROXY_SUCCESS || proxy_start(proxy, plan, &ticket) != PROXY_SUCCESS ||
      proxy_wait(proxy, ticket, PROXY_WAIT_DEFAULT_TIMEOUT) != PROXY_SUCCESS)
    abort_job(rank);
  proxy_plan_free(plan);
  proxy_plan_spec_free(spec);
}

/* What every rank compares with rank 0's: whether --help or --version stopped the parse, then each option. */
enum { kStopped, kNx, kNy, kSteps, kVerify, kBadPeer, kAgreedCount };

/* One option's value as the C++ drivers name it ("--iters 60", "--verify given"); "--help or --version" when
 * that stopped the parse. */
static void describe(const int* values, int which, char* text, size_t size) {
  static const char* const names[kAgreedCount] = {"", "--nx", "--ny", "--iters", "--verify", "--bad-peer"};
  if (values[kStopped])
    snprintf(text, size, "--help, --version or --show-config");
  else if (which == kVerify || which == kBadPeer)
    snprintf(text, size, "%s %s", names[which], values[which] ? "given" : "not given");
  else
    snprintf(text, size, "%s %d", names[which], values[which]);
}

/* Every rank's parse agreed, as the C++ drivers agree theirs (apps/agreed_parse.hpp): rank 0's values are
 * broadcast, then the lowest rank with a usage error or other values than rank 0's prints its line and every
 * rank exits 2 (an MPMD launch can give ranks different command lines). Both steps are plans, waited with the
 * wait timeout: a rank that never takes part ends the job with the plan's line. Returns the outcome every rank
 * takes: -1 to run, 0 after --help or --version (rank 0 prints the answer), kExitUsage. */
static int agree(proxy_thread* proxy, int rank, int size, int outcome, const struct problem* p, const char* answer) {
  int mine[kAgreedCount] = {outcome == kExitSuccess, p->nx, p->ny, p->steps, p->verify, p->bad_peer};
  int theirs[kAgreedCount];
  memcpy(theirs, mine, sizeof mine);
  proxy_plan_spec* spec = NULL;
  if (proxy_plan_spec_create("options", &spec) != PROXY_SUCCESS ||
      proxy_plan_spec_broadcast(spec, MPI_COMM_WORLD, 0, theirs, kAgreedCount, MPI_INT) != PROXY_SUCCESS)
    abort_job(rank);
  run_plan_once(proxy, spec, rank);

  char line[1024] = "";
  if (outcome == kExitUsage) {
    snprintf(line, sizeof line, "%s", answer);
  } else {
    for (int which = kNx; which < kAgreedCount && line[0] == '\0'; ++which) {
      char here[64], there[64];
      describe(mine, which, here, sizeof here);
      describe(theirs, which, there, sizeof there);
      if (strcmp(here, there) != 0)
        snprintf(line, sizeof line, "%s here, %s on rank 0: every rank of a run needs the same options", here, there);
    }
  }
  const int problem_rank = line[0] != '\0' ? rank : size;
  int first = size;
  if (proxy_plan_spec_create("options-agreed", &spec) != PROXY_SUCCESS ||
      proxy_plan_spec_allreduce(spec, MPI_COMM_WORLD, &problem_rank, &first, 1, MPI_INT, MPI_MIN) != PROXY_SUCCESS)
    abort_job(rank);
  run_plan_once(proxy, spec, rank);
  if (first < size) {
    if (rank == first) {
      if (first == 0) fprintf(stderr, "heat2d-c: error: %s\n", line);
      else fprintf(stderr, "heat2d-c: error: %s (on rank %d)\n", line, first);
    }
    return kExitUsage;
  }
  /* --show-config answers once every check of a run has passed (check_size's too): in main. */
  if (outcome == kExitSuccess && p->show_config) return -1;
  if (outcome == kExitSuccess && rank == 0) printf("%s\n", answer);
  return outcome;
}

/* Before allocating, as the C++ heat2d checks (heat2d_problem.cpp): both buffers of this rank's rows with their
 * ghost rows, and the serial grids of --verify, against what the node can give each rank (proxy_check_memory,
 * collective). In doubles: nx * ny passes the range of int. Returns -1 to run, or kExitUsage when it does not
 * fit (rank 0 prints the line, "heat2d-c: error: --nx 100000 --ny 100000 needs 149.0 GiB per rank ..."). */
static int check_size(proxy_thread* proxy, const proxy_environment* env, const struct problem* p, int rank,
                      int size) {
  const double nx = p->nx, ny = p->ny, rows = rows_of(rank, size, p->ny);
  const double bytes = sizeof(double) * (2.0 * (rows + 2) * nx + (p->verify ? 2.0 * nx * ny : 0.0));
  char what[64];
  snprintf(what, sizeof what, "--nx %d --ny %d", p->nx, p->ny);
  const proxy_status status = proxy_check_memory(proxy, env, what, bytes);
  if (status == PROXY_SUCCESS) return -1;
  if (status != PROXY_ERROR_SETTINGS) abort_job(rank);
  if (rank == 0) fprintf(stderr, "heat2d-c: error: %s\n", proxy_last_error());
  return kExitUsage;
}

/* The failing call's message, "heat2d-c: error: <what the C++ API says>", from every rank that failed. */
static int report(const char* what) {
  fprintf(stderr, "heat2d-c: error: %s\n", what);
  return kExitRunFailure;
}

/* The run on a placed proxy thread; returns main's exit status. */
static int run(const proxy_placement* placement, proxy_thread* proxy, const struct problem* p, int rank, int size) {
  const int nx = p->nx, ny = p->ny, rows = rows_of(rank, size, ny), first = first_row_of(rank, size, ny);
  const size_t row_count = (size_t)(rows + 2);
  double* u[2] = {calloc(row_count * nx, sizeof(double)), calloc(row_count * nx, sizeof(double))};
  if (u[0] == NULL || u[1] == NULL) return report("out of memory for the grid");
#define ROW(b, r) (u[b] + (size_t)(r) * nx)
  for (int r = 1; r <= rows; ++r)
    for (int x = 0; x < nx; ++x) ROW(0, r)[x] = initial(x, first + r - 1, nx, ny);

  int status = kExitSuccess;
  proxy_plan* halo[2] = {NULL, NULL};
  proxy_plan_spec* spec = NULL;
  if (rank == 0) {
    char where[256];
    const char* strategy = "";
    proxy_placement_describe(placement, where, sizeof where);
    proxy_thread_progress_strategy(proxy, &strategy);
    printf("heat2d-c: %dx%d, %d step%s, %d rank%s; rank 0 %s; progress %s\n", nx, ny, p->steps, plural(p->steps), size,
           plural(size), where, strategy);
  }

  /* The halo of each buffer, as heat2d_problem.cpp's commit_halo: edge rows out, ghost rows in. */
  const int up = rank > 0 ? rank - 1 : MPI_PROC_NULL, down = rank < size - 1 ? rank + 1 : MPI_PROC_NULL;
  for (int b = 0; b < 2; ++b) {
    char name[16];
    snprintf(name, sizeof name, "halo-%d", b);
    if (proxy_plan_spec_create(name, &spec) != PROXY_SUCCESS ||
        proxy_plan_spec_send(spec, up, 0, ROW(b, 1), nx, MPI_DOUBLE) != PROXY_SUCCESS ||
        proxy_plan_spec_recv(spec, down, 0, ROW(b, rows + 1), nx, MPI_DOUBLE) != PROXY_SUCCESS ||
        proxy_plan_spec_send(spec, down, 1, ROW(b, rows), nx, MPI_DOUBLE) != PROXY_SUCCESS ||
        proxy_plan_spec_recv(spec, up, 1, ROW(b, 0), nx, MPI_DOUBLE) != PROXY_SUCCESS ||
        (p->bad_peer && proxy_plan_spec_send(spec, size, 2, ROW(b, 1), nx, MPI_DOUBLE) != PROXY_SUCCESS) ||
        proxy_commit(proxy, spec, &halo[b]) != PROXY_SUCCESS) {
      /* --bad-peer: every rank refuses the same plan; rank 0 says so. */
      status = rank == 0 ? report(proxy_last_error()) : kExitRunFailure;
      goto done;
    }
    proxy_plan_spec_free(spec);
    spec = NULL;
  }

  for (int step = 0; step < p->steps; ++step) {
    const int b = step % 2;
    proxy_ticket ticket;
    if (proxy_start(proxy, halo[b], &ticket) != PROXY_SUCCESS) abort_job(rank);
#pragma omp parallel for schedule(static)
    for (int r = 2; r <= rows - 1; ++r) {
      const int global = first + r - 1;
      update_row(ROW(b, r - 1), ROW(b, r), ROW(b, r + 1), ROW(1 - b, r), nx, global == 0 || global == ny - 1);
      if (r % 16 == 0) proxy_progress_point(proxy); /* moves the halo along under cooperative progress */
    }
    if (proxy_wait(proxy, ticket, PROXY_WAIT_DEFAULT_TIMEOUT) != PROXY_SUCCESS) abort_job(rank);
    for (int r = 1; r <= rows; r += (rows > 1 ? rows - 1 : 1)) {
      const int global = first + r - 1;
      update_row(ROW(b, r - 1), ROW(b, r), ROW(b, r + 1), ROW(1 - b, r), nx, global == 0 || global == ny - 1);
    }
  }

  if (p->verify) {
    /* The serial solver, whole, on every rank (heat2d_problem.cpp's max_difference_from_serial). */
    double* g[2] = {calloc((size_t)ny * nx, sizeof(double)), calloc((size_t)ny * nx, sizeof(double))};
    if (g[0] == NULL || g[1] == NULL) proxy_abort("heat2d-c: error: out of memory for the serial grid", 1);
    for (int y = 0; y < ny; ++y)
      for (int x = 0; x < nx; ++x) g[0][(size_t)y * nx + x] = initial(x, y, nx, ny);
    for (int step = 0; step < p->steps; ++step)
      for (int y = 0; y < ny; ++y) {
        const double* r = g[step % 2] + (size_t)y * nx;
        update_row(y > 0 ? r - nx : r, r, y < ny - 1 ? r + nx : r, g[(step + 1) % 2] + (size_t)y * nx, nx,
                   y == 0 || y == ny - 1);
      }
    const int last = p->steps % 2;
    double difference = 0.0, max_difference = 0.0;
    uint64_t checksum = 0, global_checksum = 0;
    for (int r = 1; r <= rows; ++r)
      for (int x = 0; x < nx; ++x) {
        const double mine = ROW(last, r)[x], serial = g[last][(size_t)(first + r - 1) * nx + x];
        difference = fmax(difference, fabs(mine - serial));
        checksum ^= checksum_term(mine, (long long)(first + r - 1) * nx + x);
      }
    free(g[0]);
    free(g[1]);
    /* The reductions as a plan of two collective elements, started once. */
    proxy_plan_spec* reductions = NULL;
    if (proxy_plan_spec_create("verify", &reductions) != PROXY_SUCCESS ||
        proxy_plan_spec_allreduce(reductions, MPI_COMM_WORLD, &difference, &max_difference, 1, MPI_DOUBLE, MPI_MAX) !=
            PROXY_SUCCESS ||
        proxy_plan_spec_allreduce(reductions, MPI_COMM_WORLD, &checksum, &global_checksum, 1, MPI_UINT64_T,
                                  MPI_BXOR) != PROXY_SUCCESS)
      abort_job(rank);
    run_plan_once(proxy, reductions, rank);
    if (rank == 0) {
      printf("heat2d-c: checksum %016llx\n", (unsigned long long)global_checksum);
      printf("heat2d-c: verify: max difference from the serial solver %g\n", max_difference);
    }
    if (max_difference != 0.0) status = kExitVerificationFailed;
  }
#undef ROW

done:
  proxy_plan_spec_free(spec);
  proxy_plan_free(halo[0]);
  proxy_plan_free(halo[1]);
  free(u[0]);
  free(u[1]);
  return status;
}

/* Output that cannot be written fails the program, as in every C++ program (apps/program_exit.hpp). */
static void check_standard_output(void) {
  errno = 0;
  const int flushed = fflush(stdout) == 0;
  const int error = errno;
  if (flushed && !ferror(stdout)) return;
  if (!flushed && error != 0)
    fprintf(stderr, "heat2d-c: error: cannot write to standard output: %s\n", strerror(error));
  else
    fprintf(stderr, "heat2d-c: error: cannot write to standard output\n");
  _Exit(kExitRunFailure);
}

int main(int argc, char** argv) {
  atexit(check_standard_output);
  proxy_environment* env = NULL;
  const proxy_status started = proxy_environment_create(&argc, &argv, &env);
  if (started != PROXY_SUCCESS) {
    /* A refused PROXY_* setting has been written by the environment already; anything else is said here. */
    if (started == PROXY_ERROR_SETTINGS) return kExitUsage;
    return report(proxy_last_error());
  }
  int rank = 0, size = 1;
  proxy_environment_rank(env, &rank);
  proxy_environment_size(env, &size);
  struct problem problem;
  const size_t answer_size = answer_bytes();
  char* answer = calloc(answer_size, 1);
  if (answer == NULL) return report("out of memory");
  int status = parse(argc, argv, size, &problem, answer, answer_size);
  proxy_placement* placement = NULL;
  proxy_thread* proxy = NULL;
  /* The checks (the parse agreed between ranks, the memory) on an unplaced proxy, the run on a placed one: the
   * placement says when the proxy shares a core ("proxy: notice: ..."), which does not belong before --help,
   * --version, --show-config or a refusal (the C++ drivers place their proxy after their checks). */
  if (proxy_thread_create(MPI_COMM_WORLD, &proxy) != PROXY_SUCCESS) {
    status = report(proxy_last_error());
  } else {
    status = agree(proxy, rank, size, status, &problem, answer);
    if (status < 0) status = check_size(proxy, env, &problem, rank, size);
    if (status < 0 && problem.show_config) { /* every check of a run has passed: the configuration, and exit */
      if (rank == 0) printf("%s\n", answer);
      status = kExitSuccess;
    }
    if (status < 0 && problem.verbose && rank == 0) { /* --verbose: the effective configuration first */
      configuration(&problem, answer, answer_size);
      printf("%s\n", answer);
    }
    if (status < 0) {
      proxy_thread_free(proxy);
      proxy = NULL;
      if (proxy_environment_placement(env, 0, 1, &placement) != PROXY_SUCCESS ||
          proxy_thread_create_placed(MPI_COMM_WORLD, placement, &proxy) != PROXY_SUCCESS ||
          proxy_environment_bind_openmp_threads(env, placement, NULL) != PROXY_SUCCESS)
        status = report(proxy_last_error());
      else
        status = run(placement, proxy, &problem, rank, size);
    }
  }
  free(answer);
  proxy_thread_free(proxy);
  proxy_placement_free(placement);
  proxy_environment_free(env);
  return status;
}
