# proxy_add_subdirectories(a b c ...): add each listed subfolder that has a CMakeLists.txt. Each component
# (core, heat, redblack3d, summa, collectives, overlap) owns its own subfolder of apps/, tests/ and bench/.
macro(proxy_add_subdirectories)
  foreach(_part ${ARGN})
    if(EXISTS ${CMAKE_CURRENT_SOURCE_DIR}/${_part}/CMakeLists.txt)
      add_subdirectory(${_part})
    endif()
  endforeach()
endmacro()
