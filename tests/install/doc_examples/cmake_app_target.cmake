# docs/install.md's find_package lines: a C++ project whose target `app` exists already. Configured against the
# installed package, not built.
cmake_minimum_required(VERSION 3.25)
project(app LANGUAGES CXX)
file(TOUCH ${CMAKE_CURRENT_SOURCE_DIR}/app.cpp)
add_executable(app app.cpp)
# @example@
