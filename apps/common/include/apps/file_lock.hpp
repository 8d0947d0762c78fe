// An exclusive advisory lock (flock) on an open file, taken with a bounded wait: runs that append records take
// it, so their lines never interleave and exactly one of them writes a new CSV's header, and a file that
// another process keeps locked is reported (naming the holder from /proc/locks) instead of waited on for ever.
// Thread contract: any thread; one FileLock per open file descriptor.
#pragma once

#include <chrono>
#include <string>

namespace apps {

class FileLock {
 public:
  // Takes ownership of fd (closed on destruction, which releases the lock). Waits at most `patience` for
  // the lock; then throws std::runtime_error "'<path>' is locked by <holder>; waited <s> s". A file system
  // without locks: no lock, still one write(2) per record.
  FileLock(int fd, const std::string& path, std::chrono::milliseconds patience);
  ~FileLock();
  FileLock(const FileLock&) = delete;
  FileLock& operator=(const FileLock&) = delete;

 private:
  int fd_;
};

// Who holds a lock on the open file fd, from /proc/locks: "process 1234 (flock)", or "another process"
// when the holder cannot be named.
std::string lock_holder(int fd);

}  // namespace apps
