# Install rules for the programs and the Python/shell tools (the library and headers: proxy/CMakeLists.txt,
# the launcher wrapper: cmake/ProxyLauncher.cmake). Installed names clash with no Debian, PyPI or npm
# package: generic names carry a proxy- prefix (summa, sweep, plot, overlap and calibrate are taken
# elsewhere); redblack3d and proxy-info keep their names. Component "programs", so that a library-only
# install (cmake --install build --component Unspecified) stays small.

# proxy_install_program(TARGET installed-name): install a built executable under a chosen name.
function(proxy_install_program target name)
  if(TARGET ${target})
    install(PROGRAMS $<TARGET_FILE:${target}> DESTINATION ${CMAKE_INSTALL_BINDIR} RENAME ${name}
            COMPONENT programs)
  endif()
endfunction()

proxy_install_program(summa_driver proxy-summa)
proxy_install_program(heat2d proxy-heat2d)
proxy_install_program(heat2d-tasks proxy-heat2d-tasks)
proxy_install_program(proxy-info proxy-info)
proxy_install_program(calibrate proxy-calibrate)
proxy_install_program(overlap proxy-overlap)
if(TARGET redblack3d_driver)
  # apps/redblack3d/CMakeLists.txt installs it already (component Unspecified); repeat it for "programs".
  install(TARGETS redblack3d_driver RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR} COMPONENT programs)
endif()

# The tools, when their source is part of this tree.
function(proxy_install_tool source name)
  if(EXISTS ${PROJECT_SOURCE_DIR}/${source})
    install(PROGRAMS ${PROJECT_SOURCE_DIR}/${source} DESTINATION ${CMAKE_INSTALL_BINDIR} RENAME ${name}
            COMPONENT programs)
  endif()
endfunction()
if(PROXY_BUILD_APPS AND NOT PROXY_CORE_ONLY)
  proxy_install_tool(apps/sweep proxy-sweep)
  proxy_install_tool(apps/plot proxy-plot)
  proxy_install_tool(apps/redblack3d/compare proxy-redblack3d-compare)
  proxy_install_tool(apps/cg3d/compare proxy-cg3d-compare)
  proxy_install_tool(apps/summa/compare-panels.py proxy-summa-compare-panels)
  proxy_install_tool(bench/overlap/run-overlap proxy-run-overlap)
  # The tools' shared Python package: they look for share/proxy/toolkit one level above bin/, and read the
  # project version from toolkit/VERSION there (the source tree's CMakeLists.txt is not installed).
  install(DIRECTORY ${PROJECT_SOURCE_DIR}/apps/toolkit DESTINATION ${CMAKE_INSTALL_DATADIR}/proxy
          COMPONENT programs PATTERN __pycache__ EXCLUDE)
  file(WRITE ${CMAKE_CURRENT_BINARY_DIR}/toolkit-VERSION "${PROJECT_VERSION}\n")
  install(FILES ${CMAKE_CURRENT_BINARY_DIR}/toolkit-VERSION DESTINATION ${CMAKE_INSTALL_DATADIR}/proxy/toolkit
          RENAME VERSION COMPONENT programs)
endif()
