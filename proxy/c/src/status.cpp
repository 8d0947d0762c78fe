// proxy_last_error and proxy_status_name: the thread-local message every failing entry point leaves;
// proxy_version.
#include <string>

#include "c_boundary.hpp"
#include "proxy/version.hpp"

namespace {
thread_local std::string last_error;
}  // namespace

namespace proxy::c {

proxy_status fail(proxy_status status, const char* message) noexcept {
  try {
    last_error = message;
  } catch (...) {
    last_error.clear();  // no memory for the message: the status still says what happened
  }
  return status;
}

}  // namespace proxy::c

extern "C" {

const char* proxy_last_error(void) { return last_error.c_str(); }

const char* proxy_version(void) { return PROXY_VERSION_STRING; }

const char* proxy_status_name(proxy_status status) {
  switch (status) {
    case PROXY_SUCCESS: return "PROXY_SUCCESS";
    case PROXY_ERROR: return "PROXY_ERROR";
    case PROXY_ERROR_SETTINGS: return "PROXY_ERROR_SETTINGS";
    case PROXY_ERROR_COMMUNICATION: return "PROXY_ERROR_COMMUNICATION";
    case PROXY_ERROR_TIMEOUT: return "PROXY_ERROR_TIMEOUT";
    case PROXY_ERROR_ARGUMENT: return "PROXY_ERROR_ARGUMENT";
    case PROXY_ERROR_NO_MEMORY: return "PROXY_ERROR_NO_MEMORY";
    case PROXY_ERROR_UNKNOWN: return "PROXY_ERROR_UNKNOWN";
  }
  return "unknown proxy_status";
}

}  // extern "C"
