# docs/c-fortran.md's CMakeLists.txt for a C code, mycode.c (its project() line included): the line before it.
# Configured against the installed package, not built.
cmake_minimum_required(VERSION 3.25)
file(TOUCH ${CMAKE_CURRENT_SOURCE_DIR}/mycode.c)
# @example@
