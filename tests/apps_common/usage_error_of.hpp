// Test helper for apps/common: the message of the apps::UsageError that fn() throws, or "" when it throws
// none, so that a test compares the exact line a user would read.
#pragma once

#include <string>

#include "apps/usage_error.hpp"

template <class Fn>
std::string usage_error_of(Fn&& fn) {
  try {
    fn();
  } catch (const apps::UsageError& e) {
    return e.what();
  }
  return "";
}
