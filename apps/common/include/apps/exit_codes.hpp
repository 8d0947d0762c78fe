// Exit statuses of every driver (README "Conventions"): 0 success, 1 run-time failure (communication
// error, timeout, I/O error), 2 usage error (bad option, value or environment variable), 3 failed
// verification.
#pragma once

namespace apps {

inline constexpr int kExitSuccess = 0;
inline constexpr int kExitRunFailure = 1;
inline constexpr int kExitUsage = 2;
inline constexpr int kExitVerificationFailed = 3;

}  // namespace apps
