// A variable set in the environment for one scope of a unit test, removed when the scope ends.
#pragma once

#include <cstdlib>

struct EnvVar {
  EnvVar(const char* name, const char* value) : name_(name) { setenv(name, value, 1); }
  ~EnvVar() { unsetenv(name_); }
  EnvVar(const EnvVar&) = delete;
  EnvVar& operator=(const EnvVar&) = delete;
  const char* name_;
};
