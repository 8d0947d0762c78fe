#include "apps/provenance.hpp"

#include <dlfcn.h>
#include <mpi.h>
#include <unistd.h>

#include <charconv>
#include <climits>
#include <cstdlib>
#include <ctime>

#include "apps/build_commit.hpp"  // generated at configure time: kBuildCommit
#include "apps/environment_variables.hpp"
#include "apps/json_string.hpp"

namespace apps {
namespace {

std::string env_json(const std::vector<std::pair<std::string, std::string>>& env) {
  std::string out = "{";
  for (std::size_t i = 0; i < env.size(); ++i) {
    if (i > 0) out += ", ";  // json.dumps(sort_keys=True) spacing, so CSV cells match the toolkit's
    out += json_string(env[i].first) + ": " + json_string(env[i].second);
  }
  return out + "}";
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

std::string mpi_library() {
  char text[MPI_MAX_LIBRARY_VERSION_STRING] = {};
  int length = 0;
  if (MPI_Get_library_version(text, &length) != MPI_SUCCESS) return "unknown";
  // The first line with runs of blanks made one space ("MPICH Version:\t4.0.2" -> "MPICH Version: 4.0.2").
  std::string line;
  for (int i = 0; i < length && text[i] != '\n' && text[i] != '\0'; ++i) {
    const bool blank = text[i] == ' ' || text[i] == '\t' || text[i] == '\r';
    if (!blank) line += text[i];
    else if (!line.empty() && line.back() != ' ') line += ' ';
  }
  while (!line.empty() && line.back() == ' ') line.pop_back();
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

}  // namespace

std::string Provenance::json() const {
  return "{\"time_utc\":" + json_string(time_utc) + ",\"host\":" + json_string(host) +
         ",\"commit\":" + json_string(commit) + ",\"mpi\":" + json_string(mpi) + ",\"compiler\":" +
         json_string(compiler) + ",\"blas\":" + json_string(blas) + ",\"env\":" + env_json(env) +
         ",\"load_1m\":" + (load_1m ? load_text(load_1m) : "null") + ",\"placement\":" + json_string(placement) + "}";
}

std::vector<std::pair<std::string, std::string>> Provenance::flat() const {
  return {{"prov_time_utc", time_utc}, {"prov_host", host},     {"prov_commit", commit},
          {"prov_mpi", mpi},           {"prov_compiler", compiler}, {"prov_blas", blas},
          {"prov_env", env_json(env)}, {"prov_load_1m", load_text(load_1m)}, {"prov_placement", placement}};
}

Provenance collect_provenance() {
  Provenance p;
  p.time_utc = utc_now();
  p.host = host_name();
  p.commit = kBuildCommit;
  p.mpi = mpi_library();
  p.compiler = compiler();
  p.blas = "none";
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
