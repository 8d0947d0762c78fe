#include "apps/output_file.hpp"

#include <algorithm>
#include <array>
#include <chrono>
#include <cerrno>
#include <cstring>
#include <optional>
#include <stdexcept>

#include <fcntl.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <unistd.h>

#include <proxy/config.hpp>
#include <proxy/detail/counted.hpp>
#include <proxy/harness/timed_wait.hpp>

#include "apps/file_lock.hpp"
#include "apps/usage_error.hpp"

namespace apps {
namespace {

using proxy::detail::directory_of;

// How long the check before the run waits for a lock another process holds on the output file (a run
// appending holds it for microseconds): 2 s, and at most half the wait timeout, which the other ranks
// spend waiting for this check's outcome.
std::chrono::milliseconds lock_patience() {
  return std::min<std::chrono::milliseconds>(std::chrono::seconds(2), proxy::Config::from_env().wait_timeout / 2);
}

std::string base_name(const std::string& path) {
  const auto slash = path.find_last_of('/');
  return slash == std::string::npos ? path : path.substr(slash + 1);
}

// Free space below this on an output's file system refuses the output before the run: every program's output
// (a run record, a model, a table) is far smaller, and a full disk would otherwise lose the run's result after
// all its work. (A quota is not seen here; its failed write is still reported, after the run.)
constexpr unsigned long long kLeastFreeBytes = 64 * 1024;

// Why the file system holding `where` has no room for an output, or "" (also when statvfs cannot tell).
std::string no_room_reason(const std::string& what, const std::string& where) {
  struct statvfs fs{};
  if (::statvfs(where.c_str(), &fs) != 0) return "";
  const unsigned long long free_bytes = static_cast<unsigned long long>(fs.f_bavail) * fs.f_frsize;
  if (free_bytes >= kLeastFreeBytes) return "";
  return what + "its file system has " + proxy::detail::counted(free_bytes, "byte") + " free (at least " +
         std::to_string(kLeastFreeBytes) + " needed)";
}

}  // namespace

bool same_output_file(const std::string& first, const std::string& second) {
  if (first == second) return true;
  std::string a, b;
  try {
    a = link_target(first), b = link_target(second);
  } catch (const std::runtime_error&) {
    return false;  // a loop: unwritable_reason refuses it
  }
  struct stat x{}, y{};
  if (::stat(a.c_str(), &x) == 0 && ::stat(b.c_str(), &y) == 0) return x.st_dev == y.st_dev && x.st_ino == y.st_ino;
  // Not there yet: one name in one directory ("runs.csv" and "./runs.csv").
  if (base_name(a) != base_name(b)) return false;
  return ::stat(directory_of(a).c_str(), &x) == 0 && ::stat(directory_of(b).c_str(), &y) == 0 &&
         x.st_dev == y.st_dev && x.st_ino == y.st_ino;
}

std::string unwritable_reason(const std::string& option, const std::string& path) {
  std::string what = option + " " + path + ": ";
  if (path.empty()) return option + ": empty file name";
  struct stat info{};
  if (::stat(path.c_str(), &info) == 0) {
    if (S_ISDIR(info.st_mode)) return what + "is a directory";
    if (!S_ISREG(info.st_mode)) return what + "is not a regular file (a device, pipe or socket)";
    const int fd = ::open(path.c_str(), O_WRONLY | O_APPEND | O_CLOEXEC);  // opens, writes nothing
    if (fd < 0) return what + "cannot be written: " + std::strerror(errno);
    ::close(fd);
    return no_room_reason(what, path);
  }
  if (errno != ENOENT) return what + std::strerror(errno);
  // A symbolic link whose target does not exist (yet): opening it creates the target, so the target's
  // directory must take a new file, not the link's (stat said ENOENT for both alike).
  std::string file;
  try {
    file = link_target(path);
  } catch (const std::runtime_error& error) {
    return what + error.what();
  }
  if (file != path) what += "a symbolic link to '" + file + "': ";
  const std::string directory = directory_of(file);
  if (::stat(directory.c_str(), &info) != 0) return what + "directory '" + directory + "': " + std::strerror(errno);
  if (!S_ISDIR(info.st_mode)) return what + "'" + directory + "' is not a directory";
  // access() says yes where creating says no (root in sysfs or procfs, NFS's root squashing): create a probe
  // beside the file and remove it.
  const std::string probe = directory + "/.proxy-output-probe-" + std::to_string(::getpid());
  const int fd = ::open(probe.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
  if (fd < 0) return what + "cannot create a file in '" + directory + "': " + std::strerror(errno);
  ::close(fd);
  ::unlink(probe.c_str());
  return no_room_reason(what, directory);
}

std::string record_output_problem(const std::string& path, const RunRecord& prototype) {
  RecordFormat format{};
  try {
    format = record_format_for(path);
  } catch (const UsageError& error) {
    return error.what();
  }
  if (std::string reason = unwritable_reason("--output", path); !reason.empty()) return reason;
  const int fd = ::open(path.c_str(), O_RDWR | O_APPEND | O_CLOEXEC);  // as append_to opens it
  if (fd < 0) {
    if (errno == ENOENT) return "";  // new: created when the record is written
    return "--output " + path + ": cannot be opened to append: " + std::strerror(errno);
  }
  std::optional<FileLock> probe;
  try {
    // Another process keeping the file locked would hold the run's records after all its work: say so now.
    probe.emplace(fd, path, lock_patience());
  } catch (const std::runtime_error& error) {
    return std::string("--output ") + error.what();
  }
  std::string why;
  try {
    struct stat info{};
    if (::fstat(fd, &info) == 0 && info.st_size > 0) why = prototype.mismatch_with(first_line_of(fd), format);
  } catch (const std::runtime_error& error) {
    why = error.what();
  }
  return why.empty() ? "" : "--output " + path + ": " + why + "; choose another file";
}

void check_record_output(MPI_Comm comm, const std::string& path, const RunRecord& prototype) {
  int rank = 0;
  MPI_Comm_rank(comm, &rank);
  std::array<char, 4096> message{};  // rank 0's outcome: empty when fine
  if (rank == 0) record_output_problem(path, prototype).copy(message.data(), message.size() - 1);
  MPI_Request request = MPI_REQUEST_NULL;
  MPI_Ibcast(message.data(), static_cast<int>(message.size()), MPI_CHAR, 0, comm, &request);
  proxy::harness::wait_collective(request, "the --output check");
  if (message[0] != '\0') throw UsageError(message.data());
}

}  // namespace apps
