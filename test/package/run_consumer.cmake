# SPDX-License-Identifier: Apache-2.0
# Builds and runs the consumer project against an installed tkrt, either through
# find_package(tkrt) (MODE=find_package) or through pkg-config (MODE=pkg_config).
file(REMOVE_RECURSE "${BINARY}")
file(MAKE_DIRECTORY "${BINARY}")
function(run)
  execute_process(COMMAND ${ARGN} RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR "failed (${rc}): ${ARGN}\n${out}\n${err}")
  endif()
  message(STATUS "${out}")
endfunction()
if(MODE STREQUAL "find_package")
  run(${CMAKE_COMMAND} -S "${SOURCE}" -B "${BINARY}" "-DCMAKE_PREFIX_PATH=${PREFIX}"
      "-DCMAKE_C_COMPILER=${CC}")
  run(${CMAKE_COMMAND} --build "${BINARY}")
  run("${BINARY}/consumer" "${BINARY}/consumer_kernels.so")
elseif(MODE STREQUAL "pkg_config")
  file(GLOB pcdirs "${PREFIX}/lib*/pkgconfig")
  set(ENV{PKG_CONFIG_PATH} "${pcdirs}")
  execute_process(COMMAND pkg-config --cflags tkrt OUTPUT_VARIABLE cflags RESULT_VARIABLE rc
                  OUTPUT_STRIP_TRAILING_WHITESPACE)
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR "pkg-config cannot find tkrt.pc under ${PREFIX}")
  endif()
  execute_process(COMMAND pkg-config --libs tkrt OUTPUT_VARIABLE libs
                  OUTPUT_STRIP_TRAILING_WHITESPACE)
  separate_arguments(cflags UNIX_COMMAND "${cflags}")
  separate_arguments(libs UNIX_COMMAND "${libs}")
  run(${CC} -std=c11 -Wall -Wextra -Werror ${cflags} "${SOURCE}/main.c" -o "${BINARY}/consumer"
      ${libs})
  run(${CC} -std=c11 -Wall -Wextra -Werror -shared -fPIC ${cflags} "${SOURCE}/kernel.c"
      -o "${BINARY}/consumer_kernels.so")
  file(GLOB libdirs "${PREFIX}/lib*")
  string(REPLACE ";" ":" libpath "${libdirs}")
  run(${CMAKE_COMMAND} -E env "LD_LIBRARY_PATH=${libpath}" "${BINARY}/consumer"
      "${BINARY}/consumer_kernels.so")
else()
  message(FATAL_ERROR "MODE must be find_package or pkg_config")
endif()
