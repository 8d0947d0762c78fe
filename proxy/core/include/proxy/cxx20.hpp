// The language of the C++ headers: C++20, checked first by every public header, so that a program compiled in an
// older mode (-std=c++17 given after pkg-config proxyrt's -std=c++20 overrides it) is told so in one line before
// the errors an older language makes of the templates. <proxy/proxy.h>, the C API, is C and C++ of any standard and
// does not include it. (GCC 10 calls its C++20 mode 201709L: anything after C++17 passes.)
#pragma once

#if __cplusplus <= 201703L
#error "proxy: these headers need C++20 (-std=c++20, which pkg-config proxyrt gives); the compiler is in an older mode"
#endif
