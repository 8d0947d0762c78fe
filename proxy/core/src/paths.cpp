#include "proxy/detail/paths.hpp"

#include <array>
#include <cerrno>
#include <cstring>
#include <stdexcept>

#include <unistd.h>

namespace proxy::detail {

std::string directory_of(const std::string& path) {
  const auto slash = path.find_last_of('/');
  if (slash == std::string::npos) return ".";
  return slash == 0 ? "/" : path.substr(0, slash);
}

std::string link_target(const std::string& path) {
  constexpr int kMostLinks = 40;  // the kernel follows no more in a path (ELOOP beyond)
  std::string current = path;
  for (int links = 0; links <= kMostLinks; ++links) {
    std::array<char, 4096> buffer{};
    const ssize_t length = ::readlink(current.c_str(), buffer.data(), buffer.size());
    if (length < 0) return current;  // not a link (EINVAL), or not there (ENOENT): the file itself
    if (static_cast<std::size_t>(length) == buffer.size())
      throw std::runtime_error("a symbolic link's target is too long");
    std::string next(buffer.data(), static_cast<std::size_t>(length));
    if (next.front() != '/' && current.find('/') != std::string::npos) next = directory_of(current) + "/" + next;
    current = std::move(next);
  }
  throw std::runtime_error(std::strerror(ELOOP));
}

}  // namespace proxy::detail
