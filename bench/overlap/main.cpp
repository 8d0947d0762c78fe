// overlap: how much communication is hidden behind computation, OSU/IMB style, for the project's real
// patterns (3-D halo plan, SUMMA panel broadcast) and single point-to-point messages, in three modes:
//   async           MPI_Isend/Irecv (or MPI_Ibcast) + compute + MPI_Waitall from the compute thread;
//   async-progress  the same with MPICH's progress thread (MPIR_CVAR_ASYNC_PROGRESS=1, MPI_THREAD_MULTIPLE);
//                   refused under an MPI without one (Open MPI 4.1: none for shared memory or TCP);
//   proxy           the plan (or the broadcast closure) run by the proxy thread.
// async-progress needs the variable at MPI_Init, so it runs in its own launch: bench/overlap/run-overlap
// runs all three and bench/emulated-cluster does so over a bandwidth-limited TCP loopback.
#include <algorithm>
#include <cerrno>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <iomanip>
#include <iostream>
#include <memory>
#include <sstream>
#include <string>
#include <utility>
#include <vector>

#include <mpi.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "apps/common.hpp"
#include "compute_kernel.hpp"
#include "measurement.hpp"
#include "pattern.hpp"
#include "proxy/config.hpp"
#include "proxy/detail/counted.hpp"
#include "proxy/environment.hpp"
#include "proxy/error.hpp"
#include "proxy/harness/memory.hpp"
#include "proxy/proxy_thread.hpp"

namespace {

constexpr const char* kProgram = "overlap";
constexpr std::size_t kLargeStep = std::size_t{1} << 20;  // steps moving this much use --iters-large

bool async_progress_requested() {
  const char* value = std::getenv("MPIR_CVAR_ASYNC_PROGRESS");
  return value != nullptr && std::strcmp(value, "1") == 0;
}

// The first line of MPI_Get_library_version (callable before MPI_Init), e.g. "Open MPI v4.1.4, ...".
std::string mpi_library() {
  char version[MPI_MAX_LIBRARY_VERSION_STRING] = {};
  int length = 0;
  MPI_Get_library_version(version, &length);
  std::string text(version, static_cast<std::size_t>(length));
  const auto end = text.find_first_of(",\n");
  return end == std::string::npos ? text : text.substr(0, end);
}

// async-progress is MPICH's progress thread (MPIR_CVAR_ASYNC_PROGRESS). Other MPIs ignore the variable: Open
// MPI 4.1 is built without an asynchronous progress thread for shared memory ("OMPI progress: no" in
// ompi_info; only its TCP transport has btl_tcp_progress_thread), so a run there would be plain async
// under another label.
bool mpi_has_progress_thread() { return mpi_library().find("MPICH") != std::string::npos; }

apps::Options make_options() {
  apps::Options options(kProgram,
                        "OSU/IMB-style overlap benchmark: pure communication time, compute calibrated to equal "
                        "it, overall time, overlap % (OSU and IMB formulas) and compute slowdown.");
  options
      .option("mode", "LIST",
              "modes to compare in this launch: async (start, compute, wait), async-test (MPI_Testall at "
              "every progress point, as often as the proxy's), proxy, or async-progress alone (which needs "
              "MPIR_CVAR_ASYNC_PROGRESS=1 in the ranks' environment). The modes of one launch compute the same "
              "units per cell, sized from their slowest pure communication time", "async,async-test,proxy")
      .list()
      .one_of({"async", "async-test", "async-progress", "proxy"})
      .option("patterns", "LIST", "patterns: p2p (one message pair), halo (3-D halo plan), bcast (SUMMA panels)",
              "p2p,halo,bcast")
      .list()
      .one_of({"p2p", "halo", "bcast"})
      .option("sizes", "LIST", "p2p message sizes in bytes, suffixes K/M (KiB/MiB)", "1K,16K,256K,1M,4M")
      .list()
      .suffixes()
      .range(1, 1 << 30)
      .option("halo-edge", "LIST", "halo: local block edges in points (faces of edge^2 doubles)", "16,64,128")
      .list()
      .suffixes()
      .range(1, 8192)
      .option("bcast-n", "LIST", "bcast: matrix orders n (panels of n/r x panel and panel x n/c doubles)",
              "256,1024")
      .list()
      .suffixes()
      .range(1, 1 << 16)
      .option("panel", "W", "bcast: panel width", "64")
      .suffixes()
      .range(1, 1 << 16)
      .option("iters", "N", "timed iterations per phase", "40")
      .range(1, 1 << 20)
      .option("iters-large", "N", "timed iterations for steps moving 1 MiB or more", "10")
      .range(1, 1 << 20)
      .option("warmup", "N", "untimed iterations first", "3")
      .range(0, 1 << 20)
      .option("proxy-nice", "N",
              "proxy mode: set the proxy thread's nice value (-20..19; negative needs root). On cores shared "
              "with compute threads a higher priority lets the proxy preempt a compute phase", "0")
      .range(-20, 19)
      .option("label", "TEXT", "transport label written to every record (e.g. shm, tcp-tbf-1gbit)", "shm")
      .option("output", "FILE", "append one record per measurement: .csv, or .json/.jsonl (JSON Lines)")
      .flag("verbose", "print the effective configuration first (also PROXY_VERBOSE=1)")
      .epilog(
          "Figures are medians over iterations, maxima over ranks. overlap_osu = max(0, 100 - 100 (T_overall - "
          "T_compute) / T_pure), also clamped at 100; overlap_imb = 100 max(0, min(1, (T_pure + T_compute - T_overall) / "
          "min(T_pure, T_compute))); slowdown = compute time during communication / alone.\n"
          "examples:\n"
          "  mpiexec -n 2 build/bin/overlap --patterns p2p --sizes 1K,1M\n"
          "  bench/overlap/run-overlap build/bin/overlap --output overlap.csv   # all three modes\n"
          "  bench/emulated-cluster build/bin/overlap                           # the same over TCP + tbf\n"
          "  build/bin/overlap --mpi-library   # the MPI it runs on and whether async-progress can run");
  return options;
}

struct Settings {
  std::vector<std::string> modes;
  std::vector<std::string> patterns;
  std::vector<std::size_t> sizes;
  std::vector<long long> halo_edges;
  std::vector<long long> bcast_orders;
  int panel = 64;
  int iterations = 40;
  int iterations_large = 10;
  int warmup = 3;
  int proxy_nice = 0;
  std::string label;
  std::string output;
  apps::Provenance provenance;  // of this launch, in every record (placement set per mode)
};

// Identical on every rank (reads only the command line, the environment and the rank count).
Settings validate(const apps::Options& options, int ranks) {
  Settings s;
  s.modes = options.values("mode");
  const bool progress = async_progress_requested();
  for (const auto& mode : s.modes) {
    if (mode == "async-progress" && !mpi_has_progress_thread()) {
      throw apps::UsageError("--mode async-progress needs MPICH's asynchronous progress thread; this MPI (" +
                             mpi_library() + ") has none for shared memory or TCP");
    }
    if (mode == "async-progress" && !progress) {
      throw apps::UsageError("--mode async-progress needs MPIR_CVAR_ASYNC_PROGRESS=1 in the ranks' environment "
                             "(bench/overlap/run-overlap sets it)");
    }
    if (mode != "async-progress" && progress) {
      throw apps::UsageError("--mode " + mode + " cannot run with MPIR_CVAR_ASYNC_PROGRESS=1 (its figures would "
                             "include MPICH's progress thread); use --mode async-progress");
    }
  }
  s.patterns = options.values("patterns");
  for (const long long bytes : options.integers("sizes")) s.sizes.push_back(static_cast<std::size_t>(bytes));
  s.halo_edges = options.integers("halo-edge");
  s.bcast_orders = options.integers("bcast-n");
  s.panel = static_cast<int>(options.integer("panel"));
  s.iterations = static_cast<int>(options.integer("iters"));
  s.iterations_large = static_cast<int>(options.integer("iters-large"));
  s.warmup = static_cast<int>(options.integer("warmup"));
  s.proxy_nice = static_cast<int>(options.integer("proxy-nice"));
  s.label = options.value("label");
  if (options.has("output")) {
    s.output = options.value("output");
    apps::record_format_for(s.output);
  }
  int dims[2] = {0, 0};
  MPI_Dims_create(ranks, 2, dims);
  for (long long n : s.bcast_orders) {
    // A SUMMA panel is at most the matrix's n columns wide (--panel 1000 with --bcast-n 64 broadcast panels
    // larger than the matrix).
    if (std::count(s.patterns.begin(), s.patterns.end(), "bcast") && s.panel > n) {
      throw apps::UsageError("--panel " + std::to_string(s.panel) + " is wider than the matrix (--bcast-n " +
                             std::to_string(n) + "): a panel is at most n columns");
    }
    if (n < dims[0] || n < dims[1]) {
      throw apps::UsageError("--bcast-n " + std::to_string(n) + " is smaller than the " + std::to_string(dims[0]) +
                             "x" + std::to_string(dims[1]) + " process grid");
    }
  }
  return s;
}

struct Case {
  std::unique_ptr<overlap::Pattern> pattern;
  long long size;  // the swept parameter: bytes (p2p), edge (halo), n (bcast)
  double target_s = 0.0;    // the slowest mode's pure time (the pre-pass), 0 with one mode
  std::int64_t units = 0;   // the compute every mode of this launch runs, sized by the first
};

// What every case's buffers hold at once on one rank, at most (a rank with fewer neighbours holds less): p2p
// a send and a receive buffer of each size, halo six faces each way, bcast two panels of n x panel doubles.
// With the options that set it, for the memory check's line.
std::pair<double, std::string> case_bytes(const Settings& s, const apps::Options& options) {
  double bytes = 0.0;
  std::string what;
  for (const auto& name : s.patterns) {
    if (name == "p2p") {
      for (const auto size : s.sizes) bytes += 2.0 * double(size);
      what += " --sizes " + options.value("sizes");
    } else if (name == "halo") {
      for (const auto edge : s.halo_edges) bytes += 12.0 * double(edge) * double(edge) * sizeof(double);
      what += " --halo-edge " + options.value("halo-edge");
    } else {
      for (const auto n : s.bcast_orders) bytes += 2.0 * double(n) * double(s.panel) * sizeof(double);
      what += " --bcast-n " + options.value("bcast-n") + " --panel " + options.value("panel");
    }
  }
  return {bytes, what.empty() ? what : what.substr(1)};
}

std::vector<Case> make_cases(const Settings& s, MPI_Comm comm) {
  std::vector<Case> cases;
  for (const auto& name : s.patterns) {
    if (name == "p2p") {
      for (auto bytes : s.sizes) cases.push_back({overlap::make_point_to_point(comm, bytes), (long long)bytes});
    } else if (name == "halo") {
      for (auto edge : s.halo_edges) cases.push_back({overlap::make_halo(comm, (int)edge), edge});
    } else {
      for (auto n : s.bcast_orders) cases.push_back({overlap::make_panel_broadcast(comm, (int)n, s.panel), n});
    }
  }
  return cases;
}

std::string human_bytes(std::size_t bytes) {
  std::ostringstream out;
  if (bytes >= (1u << 20) && bytes % (1u << 20) == 0) {
    out << bytes / (1u << 20) << " MiB";
  } else if (bytes >= 1024 && bytes % 1024 == 0) {
    out << bytes / 1024 << " KiB";
  } else {
    out << bytes << " B";
  }
  return out.str();
}

void print_header() {
  std::cout << std::left << std::setw(15) << "mode" << std::setw(8) << "pattern" << std::setw(10) << "size"
            << std::right << std::setw(11) << "bytes/step" << std::setw(7) << "iters" << std::setw(12) << "pure(us)"
            << std::setw(12) << "compute(us)" << std::setw(12) << "overall(us)" << std::setw(12) << "hidden(us)"
            << std::setw(8) << "OSU %"
            << std::setw(8) << "IMB %" << std::setw(10) << "slowdown" << "\n";
}

// One measurement's record (also, with any values, the prototype whose CSV header --output is checked against).
apps::RunRecord make_record(const Settings& s, const std::string& mode, const std::string& pattern,
                            const std::string& shape, long long size, long long bytes, int ranks,
                            const overlap::Overlap& r, const std::string& wait_policy, apps::Provenance provenance) {
  apps::RunRecord record;
  record.set("benchmark", "overlap")
      .set("label", s.label)
      .set("mode", mode)
      .set("pattern", pattern)
      .set("shape", shape)
      .set("size", size)
      .set("bytes", bytes)
      .set("ranks", ranks)
      .set("iterations", r.iterations)
      .set("pure_us", r.pure_s * 1e6)
      .set("compute_us", r.compute_s * 1e6)
      .set("overall_us", r.overall_s * 1e6)
      .set("compute_during_us", r.compute_during_s * 1e6)
      .set("hidden_us", r.hidden_s() * 1e6)
      .set("compute_units", static_cast<long long>(r.units))
      .set("overlap_osu_pct", r.osu_percent())
      .set("overlap_imb_pct", r.imb_percent())
      .set("compute_slowdown", r.slowdown())
      .set("wait_policy", wait_policy);
  record.set_provenance(std::move(provenance));
  return record;
}

void report(const Settings& s, const std::string& mode, const Case& c, const overlap::Overlap& r, int ranks,
            const std::string& wait_policy, const std::string& placement) {
  const std::string size = c.pattern->name() == "p2p" ? human_bytes(static_cast<std::size_t>(c.size))
                                                       : std::to_string(c.size);
  std::cout << std::left << std::setw(15) << mode << std::setw(8) << c.pattern->name() << std::setw(10) << size
            << std::right << std::setw(11) << human_bytes(c.pattern->bytes()) << std::setw(7) << r.iterations
            << std::fixed << std::setprecision(1) << std::setw(12) << r.pure_s * 1e6 << std::setw(12)
            << r.compute_s * 1e6 << std::setw(12) << r.overall_s * 1e6 << std::setw(12) << r.hidden_s() * 1e6
            << std::setw(8) << r.osu_percent()
            << std::setw(8) << r.imb_percent() << std::setprecision(2) << std::setw(10) << r.slowdown() << "\n"
            << std::flush;
  if (s.output.empty()) return;
  apps::Provenance provenance = s.provenance;
  provenance.placement = placement;
  make_record(s, mode, c.pattern->name(), c.pattern->shape(), c.size, static_cast<long long>(c.pattern->bytes()),
              ranks, r, wait_policy, std::move(provenance))
      .append_to(s.output);
}

// One mode over every case. pure_only: the pre-pass, which only raises each case's target_s to this mode's
// pure time; otherwise the whole measurement, reported.
void run_mode(const Settings& s, const std::string& mode, std::vector<Case>& cases, overlap::ComputeKernel& kernel,
              const proxy::Environment& environment, bool pure_only) {
  const int rank = environment.rank(), ranks = environment.size();
  auto iterations_for = [&](const Case& c) {
    return c.pattern->bytes() >= kLargeStep ? s.iterations_large : s.iterations;
  };
  auto measure = [&](Case& c, overlap::Exchange& exchange, overlap::RankSync& sync, const std::string& policy,
                     const std::string& placement) {
    try {
      if (pure_only) {
        c.target_s = std::max(c.target_s, overlap::measure_pure(exchange, sync, iterations_for(c), s.warmup));
        return;
      }
      const auto result = overlap::measure(exchange, sync, kernel, c.target_s, c.units, iterations_for(c), s.warmup);
      if (rank == 0) report(s, mode, c, result, ranks, policy, placement);
    } catch (const proxy::CommError& cause) {
      // Which mode, pattern and rank (the iteration is in the cause). Ended here, inside the proxy's scope:
      // unwinding through ~ProxyThread would first wait PROXY_WAIT_TIMEOUT for the failed step to drain.
      const overlap::Failure failure(
          "mode " + mode + ", " + c.pattern->name() + " (" + c.pattern->shape() + "), rank " + std::to_string(rank),
          cause);
      proxy::Environment::abort(std::string(kProgram) + ": communication failed: " + failure.what(), 1);
    }
  };
  if (mode == "proxy") {
    // The compute thread (this one) and the proxy where the placement puts them; from here until the proxy is
    // destroyed only it calls MPI.
    const proxy::Placement placement = environment.placement(1, true);
    environment.topology().bind_this_thread(placement.compute_cores.front());
    proxy::ProxyThread proxy(MPI_COMM_WORLD, placement);
    overlap::RankSync sync(proxy.comm(), &proxy);
    std::string policy(proxy::to_string(proxy.config().wait_policy));
    if (s.proxy_nice != 0) {
      // Runs on the proxy thread: on Linux, setpriority(PRIO_PROCESS, tid) renices that one thread.
      const int error = proxy.call([&] {
        return setpriority(PRIO_PROCESS, static_cast<id_t>(syscall(SYS_gettid)), s.proxy_nice) == 0 ? 0 : errno;
      });
      if (error != 0) throw proxy::Error("--proxy-nice " + std::to_string(s.proxy_nice) + ": " + std::strerror(error));
      policy += ", nice " + std::to_string(s.proxy_nice);
    }
    for (auto& c : cases) {
      auto exchange = c.pattern->make_proxy(proxy);
      measure(c, *exchange, sync, policy, placement.describe());
    }
    return;
  }
  overlap::RankSync sync(MPI_COMM_WORLD, nullptr);
  for (auto& c : cases) {
    auto exchange = c.pattern->make_async(MPI_COMM_WORLD, mode == "async-test");
    measure(c, *exchange, sync, "", "one rank per core, unbound");
  }
}

int run(proxy::Environment& environment, int argc, char** argv) {
  auto options = make_options();
  Settings settings;
  if (!apps::parse_agreed(MPI_COMM_WORLD, environment.rank(), options, argc, argv,
                          [&] { settings = validate(options, environment.size()); }))
    return apps::kExitSuccess;
  settings.provenance = apps::collect_provenance(argc, argv);
  // Before any measurement: a bad --output ends every rank now with one line (exit 2), not after the work,
  // and not with one rank gone while the others wait in the set-up.
  if (!settings.output.empty())
    apps::check_record_output(MPI_COMM_WORLD, settings.output,
                              make_record(settings, "", "", "", 0, 0, 0, overlap::Overlap{}, "", settings.provenance));
  const auto [bytes, what] = case_bytes(settings, options);
  proxy::harness::check_memory(MPI_COMM_WORLD, what, bytes, environment.node().size);
  // --show-config once every option has passed the checks of a run (the memory and --output too): a bad value
  // ends it as a run would. The launch itself may differ (one rank shows the configuration).
  if (apps::answer_show_config(options, environment.rank())) return apps::kExitSuccess;
  // One rank has no peer: its p2p pattern sent to itself, its halo moved 0 bytes and its broadcasts none, and
  // the rows looked like measurements. (The same on every rank: each throws, rank 0 prints.)
  if (environment.size() < 2)
    throw apps::UsageError("1 rank is running, at least 2 are needed (on 1 rank no pattern moves data between "
                           "ranks): run it with mpiexec -n 2 or bench/overlap/run-overlap");
  overlap::ComputeKernel kernel;
  kernel.calibrate();
  auto cases = make_cases(settings, MPI_COMM_WORLD);
  if (environment.rank() == 0) {
    std::cout << "# overlap: " << proxy::detail::counted(environment.size(), "rank") << ", label " << settings.label
              << ", thread level "
              << environment.thread_level() << ", compute " << std::setprecision(3) << kernel.units_per_second() / 1e6
              << " M units/s\n";
    print_header();
  }
  // Like with like: with several modes, a pre-pass finds each cell's slowest pure time, and every mode then
  // computes the units the first one sizes to it.
  if (settings.modes.size() > 1)
    for (const auto& mode : settings.modes) run_mode(settings, mode, cases, kernel, environment, true);
  for (const auto& mode : settings.modes) run_mode(settings, mode, cases, kernel, environment, false);
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  apps::guard_program_exit(kProgram);
  // --mpi-library: which MPI this binary runs on (run-overlap asks before it launches async-progress).
  if (argc == 2 && std::strcmp(argv[1], "--mpi-library") == 0) {
    std::cout << mpi_library() << (mpi_has_progress_thread() ? " (progress thread: yes)\n" : " (progress thread: no)\n");
    return 0;
  }
  try {
    proxy::Environment environment(argc, argv,
                                   async_progress_requested() ? MPI_THREAD_MULTIPLE : MPI_THREAD_SERIALIZED, kProgram);
    return apps::run_guarded(kProgram, environment.rank(), [&] { return run(environment, argc, argv); });
  } catch (const proxy::SettingsError& refused) {  // every rank; one of them says why
    return refused.exit_status();
  } catch (const proxy::CommError& error) {
    // The other ranks may be waiting on this one: end them all with the line.
    proxy::Environment::abort(std::string(kProgram) + ": communication failed: " + error.what(), 1);
  } catch (const std::exception& error) {
    // A failure on one rank (an I/O error while writing a record, a set-up error): the others cannot know.
    proxy::Environment::abort(std::string(kProgram) + ": error: " + error.what(), 1);
  }
}
