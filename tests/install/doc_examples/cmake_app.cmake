# README.md's CMakeLists.txt for app.cpp (install.readme_api also builds it): the lines before it. Configured
# against the installed package, not built (app.cpp is an empty file here).
cmake_minimum_required(VERSION 3.25)
project(app LANGUAGES CXX)
file(TOUCH ${CMAKE_CURRENT_SOURCE_DIR}/app.cpp)
# @example@
