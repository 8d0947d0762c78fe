#include "apps/file_lock.hpp"

#include <cerrno>
#include <cstdio>
#include <fstream>
#include <sstream>
#include <stdexcept>
#include <thread>

#include <sys/file.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

namespace apps {

FileLock::FileLock(int fd, const std::string& path, std::chrono::milliseconds patience) : fd_(fd) {
  const auto deadline = std::chrono::steady_clock::now() + patience;
  for (;;) {
    if (::flock(fd_, LOCK_EX | LOCK_NB) == 0) return;
    if (errno == EINTR) continue;
    if (errno != EWOULDBLOCK) return;  // no locking on this file system
    if (std::chrono::steady_clock::now() >= deadline) {
      const std::string holder = lock_holder(fd_);
      ::close(fd_);
      char seconds[32];
      std::snprintf(seconds, sizeof seconds, "%.0f", static_cast<double>(patience.count()) / 1000.0);
      throw std::runtime_error("'" + path + "' is locked by " + holder + "; waited " + seconds + " s");
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
}

FileLock::~FileLock() { ::close(fd_); }

std::string lock_holder(int fd) {
  struct stat info{};
  if (::fstat(fd, &info) != 0) return "another process";
  // /proc/locks: "1: FLOCK  ADVISORY  WRITE 1234 08:01:5678 0 EOF" (pid, then major:minor:inode in hex).
  char device[64];
  std::snprintf(device, sizeof device, "%02x:%02x:%llu", major(info.st_dev), minor(info.st_dev),
                static_cast<unsigned long long>(info.st_ino));
  std::ifstream locks("/proc/locks");
  std::string line;
  while (std::getline(locks, line)) {
    std::istringstream fields(line);
    std::string index, kind, mode, access, pid, where;
    if (!(fields >> index >> kind)) continue;
    if (kind == "->") fields >> kind;  // a waiter's line
    if (!(fields >> mode >> access >> pid >> where) || where != device) continue;
    if (pid == std::to_string(::getpid())) continue;
    std::string name;
    std::ifstream comm("/proc/" + pid + "/comm");
    std::getline(comm, name);
    return "process " + pid + (name.empty() ? "" : " (" + name + ")");
  }
  return "another process";
}

}  // namespace apps
