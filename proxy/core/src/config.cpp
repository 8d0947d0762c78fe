#include "proxy/config.hpp"

#include <cerrno>
#include <cmath>
#include <cstdlib>
#include <string>
#include <string_view>

#include <sys/stat.h>
#include <unistd.h>

#include "proxy/error.hpp"
#include "proxy/detail/enum_names.hpp"

namespace proxy {

namespace {
constexpr detail::EnumNames<WaitPolicy, 4> kWaitPolicies{{{WaitPolicy::spin, "spin"},
                                                          {WaitPolicy::spin_then_yield, "spin-then-yield"},
                                                          {WaitPolicy::block, "block"},
                                                          {WaitPolicy::spin_then_yield, "spin_then_yield"}}};
constexpr std::size_t kDocumentedWaitPolicies = 3;  // the last is an old spelling, accepted and not offered
}  // namespace

std::string_view to_string(WaitPolicy policy) noexcept { return detail::name_of(kWaitPolicies, policy); }

WaitPolicy parse_wait_policy(std::string_view text) {
  if (const auto policy = detail::value_named(kWaitPolicies, text)) return *policy;
  throw Error("unknown wait policy '" + std::string(text) + "' (expected " +
              detail::expected_names(kWaitPolicies, kDocumentedWaitPolicies) + ")");
}

namespace {

const char* env(const char* name) {
  const char* value = std::getenv(name);
  return (value != nullptr && *value != '\0') ? value : nullptr;
}

// Whether `text` is written as a decimal number: digits, a sign, a point and an exponent only. strtol and strtod take
// more (leading blanks, strtod hexadecimal: PROXY_WAIT_TIMEOUT=0x10 was 16 s, though the README refuses 0x10 as the
// integer variables did).
bool decimal_text(const char* text) {
  for (const char* c = text; *c != '\0'; ++c)
    if (std::string_view("0123456789+-.eE").find(*c) == std::string_view::npos) return false;
  return true;
}

long parse_long(const char* name, const char* text, long min, long max) {
  errno = 0;
  char* end = nullptr;
  const long value = std::strtol(text, &end, 10);
  if (errno != 0 || end == text || *end != '\0' || !decimal_text(text) || value < min || value > max)
    throw Error(std::string(name) + "='" + text + "' is not an integer from " + std::to_string(min) + " to " +
                std::to_string(max));
  return value;
}

void check_collective_model_file(const char* path) {
  struct stat info {};
  if (::stat(path, &info) != 0)
    throw Error(std::string("PROXY_COLLECTIVE_MODEL='") + path + "' does not exist");
  if (!S_ISREG(info.st_mode)) throw Error(std::string("PROXY_COLLECTIVE_MODEL='") + path + "' is not a regular file");
  if (info.st_size == 0) throw Error(std::string("PROXY_COLLECTIVE_MODEL='") + path + "' is an empty file");
  if (info.st_size > kMaxCollectiveModelBytes)
    throw Error(std::string("PROXY_COLLECTIVE_MODEL='") + path + "' is " + std::to_string(info.st_size) +
                " bytes, more than a model can be (" + std::to_string(kMaxCollectiveModelBytes) + " bytes at most)");
  if (::access(path, R_OK) != 0) throw Error(std::string("PROXY_COLLECTIVE_MODEL='") + path + "' is not readable");
}

}  // namespace

Config Config::from_env() { return from_env(Config{}); }

Config Config::from_env(Config config) {
  if (const char* v = env("PROXY_WAIT_POLICY")) {
    try {
      config.wait_policy = parse_wait_policy(v);
    } catch (const Error& e) {
      throw Error(std::string("PROXY_WAIT_POLICY: ") + e.what());
    }
  }
  if (const char* v = env("PROXY_WAIT_TIMEOUT")) {
    char* end = nullptr;
    const double seconds = std::strtod(v, &end);
    if (end == v || *end != '\0' || !decimal_text(v) || !std::isfinite(seconds) || seconds < kMinWaitTimeoutSeconds ||
        seconds > kMaxWaitTimeoutSeconds)
      throw Error(std::string("PROXY_WAIT_TIMEOUT='") + v + "' is not a number of seconds from 0.01 to 1e6");
    config.wait_timeout = std::chrono::milliseconds(static_cast<long long>(std::ceil(seconds * 1000)));
  }
  if (const char* v = env("PROXY_SPIN_COUNT"))
    config.spin_count = static_cast<int>(parse_long("PROXY_SPIN_COUNT", v, 0, kMaxSpinCount));
  if (const char* v = env("PROXY_CORE")) config.proxy_core = static_cast<int>(parse_long("PROXY_CORE", v, -1, kMaxCore));
  if (const char* v = env("PROXY_BIND")) config.bind = parse_long("PROXY_BIND", v, 0, 1) != 0;
  if (const char* v = env("PROXY_TIMINGS")) config.timings = parse_long("PROXY_TIMINGS", v, 0, 1) != 0;
  if (const char* v = env("PROXY_QUEUE_CAPACITY")) {
    const long capacity = parse_long("PROXY_QUEUE_CAPACITY", v, 2, kMaxQueueCapacity);
    if ((capacity & (capacity - 1)) != 0)
      throw Error(std::string("PROXY_QUEUE_CAPACITY='") + v + "' is not a power of two from 2 to 1048576");
    config.queue_capacity = static_cast<std::size_t>(capacity);
  }
  if (const char* v = env("PROXY_PROGRESS")) {
    try {
      config.progress = parse_progress_strategy(v);
    } catch (const Error& e) {
      throw Error(std::string("PROXY_PROGRESS: ") + e.what());
    }
  }
  return config;
}

std::string wait_timeout_refusal(std::chrono::milliseconds timeout) {
  const auto least = std::chrono::milliseconds(static_cast<long long>(kMinWaitTimeoutSeconds * 1000));
  const auto most = std::chrono::milliseconds(static_cast<long long>(kMaxWaitTimeoutSeconds * 1000));
  if (timeout >= least && timeout <= most) return {};
  return "is " + std::to_string(timeout.count()) + " ms, outside [10 ms, 1e6 s]";
}

std::string spin_count_refusal(long long spin_count) {
  if (spin_count >= 0 && spin_count <= kMaxSpinCount) return {};
  return "is " + std::to_string(spin_count) + ", outside [0, " + std::to_string(kMaxSpinCount) + "]";
}

void check_bounds(const Config& config, std::string_view who) {
  const std::string prefix = std::string(who) + ": Config::";
  if (const std::string refusal = wait_timeout_refusal(config.wait_timeout); !refusal.empty())
    throw Error(prefix + "wait_timeout " + refusal);
  if (const std::string refusal = spin_count_refusal(config.spin_count); !refusal.empty())
    throw Error(prefix + "spin_count " + refusal);
  if (config.proxy_core < -1 || config.proxy_core > kMaxCore)
    throw Error(prefix + "proxy_core is " + std::to_string(config.proxy_core) + ", outside [-1, " +
                std::to_string(kMaxCore) + "]");
  const std::size_t capacity = config.queue_capacity;
  if (capacity < 2 || capacity > static_cast<std::size_t>(kMaxQueueCapacity) || (capacity & (capacity - 1)) != 0)
    throw Error(prefix + "queue_capacity is " + std::to_string(capacity) + ", not a power of two in [2, " +
                std::to_string(kMaxQueueCapacity) + "]");
}

void validate_environment() {
  Config::from_env();
  if (const char* v = env("PROXY_NODE_SIZE")) parse_long("PROXY_NODE_SIZE", v, 1, kMaxNodeSize);
  if (const char* v = env("PROXY_COLLECTIVE_MODEL")) check_collective_model_file(v);
}

}  // namespace proxy
