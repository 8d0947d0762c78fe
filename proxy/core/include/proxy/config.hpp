// Config: the settings of a ProxyThread and of every wait on it, kept apart from start/stop.
// Values come from the API; PROXY_* environment variables override them (Config::from_env).
// Plain data: any thread may read a Config; nothing here is shared or synchronised.
#pragma once

#include "proxy/cxx20.hpp"  // first: C++20, or one line saying so

#include <chrono>
#include <cstddef>
#include <string>
#include <string_view>

#include "proxy/progress.hpp"

namespace proxy {

// How a thread waits for something another thread will do: the proxy for commands and MPI progress,
// compute threads for completions. `spin` wants a dedicated core; `block` suits oversubscribed machines.
enum class WaitPolicy { spin, spin_then_yield, block };

std::string_view to_string(WaitPolicy policy) noexcept;
// Accepts "spin", "spin-then-yield" (or "spin_then_yield") and "block"; throws proxy::Error naming the value.
WaitPolicy parse_wait_policy(std::string_view text);

struct Config {
  WaitPolicy wait_policy = WaitPolicy::spin_then_yield;  // PROXY_WAIT_POLICY
  // Every wait gives up after this long and throws TimeoutError with a report.  PROXY_WAIT_TIMEOUT (seconds)
  std::chrono::milliseconds wait_timeout{120'000};
  // Spins before a spin_then_yield waiter starts yielding (and a block waiter starts sleeping).  PROXY_SPIN_COUNT
  int spin_count = 2000;
  // Logical core (hwloc index) for the proxy; -1 lets the placement decide.  PROXY_CORE
  int proxy_core = -1;
  // Bind the proxy and compute threads to cores.  PROXY_BIND=0 turns binding off.
  bool bind = true;
  // Request-queue slots; a power of two.  PROXY_QUEUE_CAPACITY
  std::size_t queue_capacity = 1024;
  // Who drives MPI progress (proxy/progress.hpp); automatic chooses from the placement.  PROXY_PROGRESS
  ProgressStrategy progress = ProgressStrategy::automatic;
  // Time each plan epoch and the loop's busy periods for statistics() (two clock reads an epoch, ~12 ns
  // each in a VM: 3 % of an 8-byte round trip). Off, statistics() still counts starts, bytes and commands.
  // PROXY_TIMINGS=1 turns it on; the drivers' --verbose asks for it.
  bool timings = false;

  // `defaults` with the PROXY_* environment variables applied; throws proxy::Error naming a bad value.
  static Config from_env(Config defaults);
  static Config from_env();  // the built-in defaults with the environment applied
};

// The documented bounds of the settings (README "Settings"): a value outside them is refused by name, so a
// huge timeout cannot overflow a clock and a huge queue cannot exhaust memory.
inline constexpr double kMinWaitTimeoutSeconds = 0.01;  // PROXY_WAIT_TIMEOUT in [0.01, 1e6]: below 10 ms a
inline constexpr double kMaxWaitTimeoutSeconds = 1e6;   // wait would fail on a scheduler time slice alone
inline constexpr long kMaxSpinCount = 1'000'000'000;              // PROXY_SPIN_COUNT in [0, 1e9]
inline constexpr long kMaxCore = 65535;                           // PROXY_CORE in [-1, 65535]
inline constexpr long kMaxQueueCapacity = 1L << 20;               // PROXY_QUEUE_CAPACITY a power of two in [2, 2^20]
inline constexpr long kMaxNodeSize = 1L << 20;                    // PROXY_NODE_SIZE in [1, 2^20]
inline constexpr long kMaxCollectiveModelBytes = 1L << 20;        // a model file (PROXY_COLLECTIVE_MODEL) is at most 1 MiB

// "" when `timeout` lies in [kMinWaitTimeoutSeconds, kMaxWaitTimeoutSeconds], else why not, after the setting's
// name: "is 5 ms, outside [10 ms, 1e6 s]".
std::string wait_timeout_refusal(std::chrono::milliseconds timeout);
// "" when `spin_count` lies in [0, kMaxSpinCount], else "is -1, outside [0, 1000000000]".
std::string spin_count_refusal(long long spin_count);
// Throws proxy::Error, prefixed by `who`, naming the first setting of `config` outside the bounds above (a value
// set through the API is held to the PROXY_* variables' bounds too): "ProxyThread: Config::queue_capacity is 3,
// not a power of two in [2, 1048576]".
void check_bounds(const Config& config, std::string_view who);

// Checks every PROXY_* variable the runtime reads (Config's, PROXY_NODE_SIZE, PROXY_COLLECTIVE_MODEL: a
// readable, non-empty regular file of at most kMaxCollectiveModelBytes); throws proxy::Error naming the first bad variable and its value.
// proxy::Environment calls it on every rank at start-up, so every mode of every program refuses bad values.
void validate_environment();

}  // namespace proxy
