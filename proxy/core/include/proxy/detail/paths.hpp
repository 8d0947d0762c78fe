// Output paths as the programs write them: the directory a file lands in, and the file a symbolic link (or a
// chain of them) leads to. Shared by the drivers' output checks (apps/common/output_file.hpp) and
// CollectiveModel::save, which renames onto link_target(path) so that a user's link stays a link.
// Thread contract: any thread; reads links, changes nothing.
#pragma once

#include <string>

namespace proxy::detail {

// "." for "runs.csv", "/" for "/runs.csv", "a/b" for "a/b/runs.csv".
std::string directory_of(const std::string& path);

// The file that writing `path` lands on: a symbolic link, or a chain of them (at most 40, as the kernel
// follows), resolved to its last target, which need not exist (a relative target is taken from the link's
// directory); any other path as it is. Throws std::runtime_error "a symbolic link's target is too long" or
// "Too many levels of symbolic links" (a loop).
std::string link_target(const std::string& path);

}  // namespace proxy::detail
