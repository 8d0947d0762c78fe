#include "apps/provenance.hpp"

#include <dlfcn.h>
#include <hwloc.h>
#include <mpi.h>
#include <sched.h>
#include <sys/utsname.h>
#include <unistd.h>

#include <charconv>
#include <climits>
#include <cstdlib>
#include <ctime>
#include <fstream>
#include <memory>

#include "apps/build_info.hpp"  // generated at configure time: kBuildCommit, kBuildType, kBuildFlags
#include "apps/environment_variables.hpp"
#include "apps/json_string.hpp"

namespace apps {
namespace {

// JSON text with json.dumps' default separators (", " and ": "), so the Python tools' flattening of the
// same object gives the same CSV cells (apps/toolkit/provenance.py flat).
std::string env_json(const std::vector<std::pair<std::string, std::string>>& env) {
  std::string out = "{";
  for (std::size_t i = 0; i < env.size(); ++i) {
    if (i > 0) out += ", ";
    out += json_string(env[i].first) + ": " + json_string(env[i].second);
  }
  return out + "}";
}

std::string list_json(const std::vector<std::string>& items) {
  std::string out = "[";
  for (std::size_t i = 0; i < items.size(); ++i) out += (i > 0 ? ", " : "") + json_string(items[i]);
  return out + "]";
}

std::string load_text(const std::optional<double>& load) {
  if (!load) return "";
  char buffer[32];
  const auto result = std::to_chars(buffer, buffer + sizeof buffer, *load);
  return std::string(buffer, result.ptr);
}

std::string utc_now() {
  const std::time_t now = std::time(nullptr);
  std::tm utc{};
  gmtime_r(&now, &utc);
  char buffer[32];
  std::strftime(buffer, sizeof buffer, "%Y-%m-%dT%H:%M:%SZ", &utc);
  return buffer;
}

std::string host_name() {
  char buffer[256] = {};
  if (gethostname(buffer, sizeof buffer - 1) != 0) return "unknown";
  return buffer;
}

// "MPICH 4.0.2" from "MPICH Version:\t4.0.2\n...", "Open MPI 4.1.4" from "Open MPI v4.1.4, package: ...";
// another library's first line with runs of blanks made one space. MPI_Get_library_version may be called
// before MPI_Init (MPI-3.1 8.7), so the benchmarks that never start MPI name it too.
std::string mpi_library() {
  char text[MPI_MAX_LIBRARY_VERSION_STRING] = {};
  int length = 0;
  if (MPI_Get_library_version(text, &length) != MPI_SUCCESS) return "unknown";
  std::string line;
  for (int i = 0; i < length && text[i] != '\n' && text[i] != '\0'; ++i) {
    const bool blank = text[i] == ' ' || text[i] == '\t' || text[i] == '\r';
    if (!blank) line += text[i];
    else if (!line.empty() && line.back() != ' ') line += ' ';
  }
  while (!line.empty() && line.back() == ' ') line.pop_back();
  for (const std::string_view prefix : {"MPICH Version: ", "Open MPI v"}) {
    if (line.starts_with(prefix)) {
      const std::string version = line.substr(prefix.size(), line.find(',') - prefix.size());
      return (prefix[0] == 'M' ? "MPICH " : "Open MPI ") + version;
    }
  }
  return line;
}

std::string compiler() {
#if defined(__clang__)
  return __VERSION__;  // "Debian Clang 14.0.6"
#elif defined(__GNUC__)
  return std::string("GCC ") + __VERSION__;
#else
  return "unknown";
#endif
}

std::string version_text(unsigned version) {
  return std::to_string(version >> 16 & 0xff) + "." + std::to_string(version >> 8 & 0xff) + "." +
         std::to_string(version & 0xff);
}

// The distribution's PRETTY_NAME from /etc/os-release, "" where there is none.
std::string distribution() {
  std::ifstream file("/etc/os-release");
  std::string line;
  while (std::getline(file, line)) {
    if (!line.starts_with("PRETTY_NAME=")) continue;
    std::string value = line.substr(12);
    if (value.size() >= 2 && (value.front() == '"' || value.front() == '\'')) value = value.substr(1, value.size() - 2);
    return value;
  }
  return "";
}

std::string operating_system() {
  utsname name{};
  if (uname(&name) != 0) return "unknown";
  std::string text = std::string(name.sysname) + " " + name.release + " " + name.machine;
  const std::string release = distribution();
  return release.empty() ? text : text + " (" + release + ")";
}

int cpus_bound() {
  cpu_set_t set;
  CPU_ZERO(&set);
  if (sched_getaffinity(0, sizeof set, &set) != 0) return 0;
  return CPU_COUNT(&set);
}

using Topology = std::unique_ptr<hwloc_topology, decltype(&hwloc_topology_destroy)>;

// CPU model and core count from hwloc (its CPUModel info comes from /proc/cpuinfo "model name" on Linux).
void read_machine(Provenance& p) {
  p.cpu_model = "unknown";
  hwloc_topology_t raw = nullptr;
  if (hwloc_topology_init(&raw) != 0) return;
  const Topology topology(raw, &hwloc_topology_destroy);
  if (hwloc_topology_load(topology.get()) != 0) return;
  p.cores = hwloc_get_nbobjs_by_type(topology.get(), HWLOC_OBJ_CORE);
  for (hwloc_obj_t object = hwloc_get_root_obj(topology.get()); object != nullptr;
       object = object->first_child) {  // the root, then the first package (or whatever holds CPUModel)
    if (const char* model = hwloc_obj_get_info_by_name(object, "CPUModel"); model != nullptr) {
      p.cpu_model = model;
      return;
    }
  }
}

// The library that defines cblas_dgemm in the running program, "none" when none does.
std::string blas_library() {
  const void* symbol = dlsym(RTLD_DEFAULT, "cblas_dgemm");
  return symbol != nullptr ? linked_library(symbol) : "none";
}

// The fields in the schema's order, each as its flat text and whether JSON quotes it (argv, env and the
// numbers are JSON already; a missing number is null in JSON, "" in CSV).
struct Field {
  const char* name;
  std::string text;
  bool quoted;
};

std::vector<Field> fields(const Provenance& p) {
  return {{"time_utc", p.time_utc, true},
          {"host", p.host, true},
          {"argv", list_json(p.argv), false},
          {"commit", p.commit, true},
          {"build_type", p.build_type, true},
          {"build_flags", p.build_flags, true},
          {"compiler", p.compiler, true},
          {"mpi", p.mpi, true},
          {"hwloc", p.hwloc, true},
          {"blas", p.blas, true},
          {"os", p.os, true},
          {"cpu_model", p.cpu_model, true},
          {"cores", std::to_string(p.cores), false},
          {"cpus_bound", std::to_string(p.cpus_bound), false},
          {"env", env_json(p.env), false},
          {"load_1m", load_text(p.load_1m), false},
          {"placement", p.placement, true}};
}

}  // namespace

std::string Provenance::json() const {
  std::string out = "{";
  for (const Field& field : fields(*this)) {
    if (out.size() > 1) out += ',';
    out += json_string(field.name) + ':';
    out += field.quoted ? json_string(field.text) : field.text.empty() ? std::string("null") : field.text;
  }
  return out + "}";
}

std::vector<std::pair<std::string, std::string>> Provenance::flat() const {
  std::vector<std::pair<std::string, std::string>> out;
  for (Field& field : fields(*this)) out.emplace_back(std::string("prov_") + field.name, std::move(field.text));
  return out;
}

Provenance collect_provenance(int argc, const char* const* argv) {
  Provenance p;
  p.time_utc = utc_now();
  p.host = host_name();
  for (int i = 0; i < argc; ++i) p.argv.emplace_back(argv[i]);
  p.commit = kBuildCommit;
  p.build_type = kBuildType;
  p.build_flags = kBuildFlags;
  p.compiler = compiler();
  p.mpi = mpi_library();
  p.hwloc = std::string(HWLOC_VERSION) + " (API " + version_text(hwloc_get_api_version()) + ")";
  p.blas = blas_library();
  p.os = operating_system();
  read_machine(p);
  p.cpus_bound = cpus_bound();
  p.env = proxy_and_omp_settings();
  double load[1] = {0.0};
  if (getloadavg(load, 1) == 1) p.load_1m = static_cast<double>(static_cast<long long>(load[0] * 100.0 + 0.5)) / 100.0;
  p.placement = "unknown";
  return p;
}

std::string linked_library(const void* symbol) {
  Dl_info info{};
  if (dladdr(symbol, &info) == 0 || info.dli_fname == nullptr) return "unknown";
  const std::string path = info.dli_fname;
  char resolved[PATH_MAX];
  const std::string real = realpath(path.c_str(), resolved) != nullptr ? std::string(resolved) : path;
  char self[PATH_MAX];
  const ssize_t self_length = readlink("/proc/self/exe", self, sizeof self - 1);
  if (self_length > 0 && real == std::string(self, static_cast<std::size_t>(self_length))) return "static";
  const std::string name = path.substr(path.rfind('/') + 1);
  return real == path ? name : name + " (" + real + ")";
}

}  // namespace apps
