# SPDX-License-Identifier: Apache-2.0
# tkrt_add_host_image(<name> SOURCES <c files>...)
# Compiles C kernels written against <tkrt/host_kernel.h> into a host module image: a native
# shared object (<name>.so) that the host backend loads from memory. The image does not link
# libtkrt; it only needs the header. Use $<TARGET_FILE:<name>> to find it.
function(tkrt_add_host_image name)
  cmake_parse_arguments(ARG "" "" "SOURCES" ${ARGN})
  if(NOT ARG_SOURCES)
    message(FATAL_ERROR "tkrt_add_host_image(${name}): SOURCES is empty")
  endif()
  add_library(${name} MODULE ${ARG_SOURCES})
  set_target_properties(${name} PROPERTIES PREFIX "" SUFFIX ".so" C_VISIBILITY_PRESET hidden
                                           C_STANDARD 11)
  if(TARGET tkrt::tkrt)
    target_include_directories(${name} PRIVATE
      $<TARGET_PROPERTY:tkrt::tkrt,INTERFACE_INCLUDE_DIRECTORIES>)
  endif()
  target_link_libraries(${name} PRIVATE m)
endfunction()
