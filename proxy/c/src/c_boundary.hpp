// The C boundary: the structs behind the opaque handles of <proxy/proxy.h>, and guarded(), which runs an
// entry point's body and turns any exception into a proxy_status plus the thread's last-error message
// (the exception's what(), unchanged). Every entry point is `return guarded([&] { ... });`, so no C++
// exception reaches C. Thread rules: those of the C++ objects each handle holds.
#pragma once

#include <memory>
#include <new>
#include <string>

#include <proxy/environment.hpp>
#include <proxy/error.hpp>
#include <proxy/operation.hpp>
#include <proxy/placement.hpp>
#include <proxy/plan.hpp>
#include <proxy/proxy_thread.hpp>

#include "proxy/proxy.h"

struct proxy_environment {
  std::unique_ptr<proxy::Environment> environment;
};

struct proxy_placement {
  proxy::Placement placement;
};

struct proxy_thread {
  std::unique_ptr<proxy::ProxyThread> thread;
};

struct proxy_plan_spec {
  proxy::PlanSpec spec;
};

struct proxy_plan {
  proxy::Plan plan;
  // The plan's operation, taken from the first start's ticket: a proxy_ticket is (this, epoch), and a wait
  // rebuilds the C++ Ticket from it. Written by the first start, read by waiters that got a ticket after it.
  std::shared_ptr<proxy::Operation> operation;
};

// What proxy_then returns: the callback's own ticket (its operation is not a plan, so no proxy_ticket).
struct proxy_completion {
  proxy::Ticket ticket;
};

namespace proxy::c {

// A null handle or pointer passed to the C API: PROXY_ERROR_ARGUMENT.
class ArgumentError : public Error {
 public:
  using Error::Error;
};

// Records `message` as this thread's last error and returns `status`.
proxy_status fail(proxy_status status, const char* message) noexcept;

// Sets *output to its empty value (NULL, {NULL, 0}, 0, "") unless output is NULL. An entry point with an
// output parameter does this first, so that on any failure the caller reads the empty value, never a stale
// or uninitialised one (a ticket left unset by a failed start, then waited on, crashed).
template <class T, class Empty>
void clear(T* output, const Empty& empty) noexcept {
  if (output != nullptr) *output = empty;
}

// Throws ArgumentError "<function>: <what> is NULL" when pointer is null.
template <class T>
T& require(T* pointer, const char* function, const char* what) {
  if (pointer == nullptr) throw ArgumentError(std::string(function) + ": " + what + " is NULL");
  return *pointer;
}

// Runs body(); PROXY_SUCCESS, or the status of the exception it threw (most derived class first).
template <class Body>
proxy_status guarded(Body&& body) noexcept {
  try {
    body();
    return PROXY_SUCCESS;
  } catch (const ArgumentError& error) {
    return fail(PROXY_ERROR_ARGUMENT, error.what());
  } catch (const SettingsError& error) {
    return fail(PROXY_ERROR_SETTINGS, error.what());
  } catch (const TimeoutError& error) {
    return fail(PROXY_ERROR_TIMEOUT, error.what());
  } catch (const CommError& error) {
    return fail(PROXY_ERROR_COMMUNICATION, error.what());
  } catch (const Error& error) {
    return fail(PROXY_ERROR, error.what());
  } catch (const std::bad_alloc& error) {
    return fail(PROXY_ERROR_NO_MEMORY, error.what());
  } catch (const std::exception& error) {
    return fail(PROXY_ERROR_UNKNOWN, error.what());
  } catch (...) {
    return fail(PROXY_ERROR_UNKNOWN, "unknown exception");
  }
}

}  // namespace proxy::c
