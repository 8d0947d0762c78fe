// Config: the settings of a ProxyThread and of every wait on it, kept apart from start/stop.
// Values come from the API; PROXY_* environment variables override them (Config::from_env).
// Plain data: any thread may read a Config; nothing here is shared or synchronised.
#pragma once

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

  // `defaults` with the PROXY_* environment variables applied; throws proxy::Error naming a bad value.
  static Config from_env(Config defaults);
  static Config from_env();  // the built-in defaults with the environment applied
};

}  // namespace proxy
