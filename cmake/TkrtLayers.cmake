# SPDX-License-Identifier: Apache-2.0
# tkrt's layers: one object library per layer (tkrt_<name>), given the folders it may include
# (ROOT) and the layers it may call (DEPS, every one of them, not only the nearest).
#
# Includes: each layer compiles against an include root that holds only its ROOT folders (a
# folder of symbolic links), so an #include that reaches up fails to compile; the same holds for
# tkrt's public headers (HEADERS: the ones of include/tkrt/ it may include, linked into its own
# public root; without HEADERS, all of them). build.layering.includes_up proves the check bites
# (a backend-layer file that includes tkrt/call.h must fail to compile, naming the header). Calls: for each
# layer, tkrt_layer_check_<name> is a shared library of its objects and its DEPS' objects,
# linked with --no-undefined against the system libraries only, so a call up the layers (a symbol
# that only a higher layer defines) fails to link. The test build.layering.<name> builds it;
# build.layering.calls_up proves the check bites (a base-layer object that calls
# tkrt_call_prepare must fail to link, naming the symbol).

set(TKRT_LAYERS "")

function(tkrt_layer name)
  cmake_parse_arguments(ARG "" "" "ROOT;DEPS;HEADERS" ${ARGN})
  set(root "${PROJECT_BINARY_DIR}/layers/${name}")
  file(MAKE_DIRECTORY "${root}")
  # Links a reconfigure no longer asks for go (a layer that lost a folder must not keep it).
  file(GLOB stale LIST_DIRECTORIES true "${root}/*" "${PROJECT_BINARY_DIR}/layers/${name}-public/tkrt/*")
  foreach(link IN LISTS stale)
    get_filename_component(leaf "${link}" NAME)
    if(NOT leaf IN_LIST ARG_ROOT AND NOT leaf IN_LIST ARG_HEADERS)
      file(REMOVE "${link}")
    endif()
  endforeach()
  foreach(dir IN LISTS ARG_ROOT)
    if(NOT EXISTS "${root}/${dir}")
      file(CREATE_LINK "${PROJECT_SOURCE_DIR}/${dir}" "${root}/${dir}" SYMBOLIC)
    endif()
  endforeach()
  if(ARG_HEADERS)
    set(public "${PROJECT_BINARY_DIR}/layers/${name}-public")
    file(MAKE_DIRECTORY "${public}/tkrt")
    foreach(header IN LISTS ARG_HEADERS)
      if(NOT EXISTS "${PROJECT_SOURCE_DIR}/include/tkrt/${header}")
        message(FATAL_ERROR "tkrt_layer(${name}): no public header tkrt/${header}")
      endif()
      if(NOT EXISTS "${public}/tkrt/${header}")
        file(CREATE_LINK "${PROJECT_SOURCE_DIR}/include/tkrt/${header}" "${public}/tkrt/${header}"
             SYMBOLIC)
      endif()
    endforeach()
  else()
    set(public "${PROJECT_SOURCE_DIR}/include")
  endif()
  set_property(GLOBAL PROPERTY TKRT_LAYER_PUBLIC_${name} "${public}")
  set_property(GLOBAL PROPERTY TKRT_LAYER_ROOT_${name} "${root}")
  add_library(tkrt_${name} OBJECT)
  set_target_properties(tkrt_${name} PROPERTIES POSITION_INDEPENDENT_CODE ON
                        C_VISIBILITY_PRESET hidden)
  target_include_directories(tkrt_${name} PRIVATE "${public}" "${root}")
  target_compile_definitions(tkrt_${name} PRIVATE _GNU_SOURCE)
  target_link_libraries(tkrt_${name} PUBLIC Threads::Threads ZLIB::ZLIB ${CMAKE_DL_LIBS})
  set_property(GLOBAL PROPERTY TKRT_LAYER_DEPS_${name} "${ARG_DEPS}")
  set(layers ${TKRT_LAYERS})
  list(APPEND layers ${name})
  set(TKRT_LAYERS ${layers} PARENT_SCOPE)
endfunction()

# A shared library of `objects` that must resolve every symbol from them and the system libraries.
function(tkrt_layer_link_check target)
  add_library(${target} SHARED EXCLUDE_FROM_ALL ${ARGN})
  target_link_libraries(${target} PRIVATE Threads::Threads ZLIB::ZLIB ${CMAKE_DL_LIBS} m)
  target_link_options(${target} PRIVATE "LINKER:--no-undefined")
  set_target_properties(${target} PROPERTIES LIBRARY_OUTPUT_DIRECTORY
                        "${PROJECT_BINARY_DIR}/layers/check")
endfunction()

# After every layer has its sources. Only in plain builds: sanitizer runtimes are resolved by the
# executable, so a shared library of sanitized objects cannot resolve everything by itself.
function(tkrt_layer_checks)
  if(NOT BUILD_TESTING OR NOT TKRT_SANITIZE STREQUAL "")
    return()
  endif()
  foreach(layer IN LISTS TKRT_LAYERS)
    get_property(deps GLOBAL PROPERTY TKRT_LAYER_DEPS_${layer})
    set(objects $<TARGET_OBJECTS:tkrt_${layer}>)
    foreach(dep IN LISTS deps)
      list(APPEND objects $<TARGET_OBJECTS:tkrt_${dep}>)
    endforeach()
    tkrt_layer_link_check(tkrt_layer_check_${layer} ${objects})
    add_test(NAME build.layering.${layer}
             COMMAND ${CMAKE_COMMAND} --build "${PROJECT_BINARY_DIR}" --config $<CONFIG>
                     --target tkrt_layer_check_${layer})
    set_tests_properties(build.layering.${layer} PROPERTIES LABELS "core"
                         RESOURCE_LOCK tkrt_build_tree)
  endforeach()
  # The check must fail on a call up: base objects plus one that calls into the core.
  add_library(tkrt_layer_calls_up_obj OBJECT EXCLUDE_FROM_ALL
              "${PROJECT_SOURCE_DIR}/test/package/layer_calls_up.c")
  set_target_properties(tkrt_layer_calls_up_obj PROPERTIES POSITION_INDEPENDENT_CODE ON)
  target_include_directories(tkrt_layer_calls_up_obj PRIVATE "${PROJECT_SOURCE_DIR}/include")
  tkrt_layer_link_check(tkrt_layer_check_calls_up $<TARGET_OBJECTS:tkrt_base>
                        $<TARGET_OBJECTS:tkrt_layer_calls_up_obj>)
  add_test(NAME build.layering.calls_up
           COMMAND ${CMAKE_COMMAND} --build "${PROJECT_BINARY_DIR}" --config $<CONFIG>
                   --target tkrt_layer_check_calls_up)
  # And a public header above the layer: a file compiled as the backends are that includes
  # tkrt/call.h (the kernel-call API, the core's) must not find it.
  get_property(public GLOBAL PROPERTY TKRT_LAYER_PUBLIC_backends)
  get_property(root GLOBAL PROPERTY TKRT_LAYER_ROOT_backends)
  add_library(tkrt_layer_includes_up_obj OBJECT EXCLUDE_FROM_ALL
              "${PROJECT_SOURCE_DIR}/test/package/layer_includes_up.c")
  target_include_directories(tkrt_layer_includes_up_obj PRIVATE "${public}" "${root}")
  add_test(NAME build.layering.includes_up
           COMMAND ${CMAKE_COMMAND} --build "${PROJECT_BINARY_DIR}" --config $<CONFIG>
                   --target tkrt_layer_includes_up_obj)
  set_tests_properties(build.layering.includes_up PROPERTIES LABELS "core"
    RESOURCE_LOCK tkrt_build_tree PASS_REGULAR_EXPRESSION "tkrt/call\\.h(: No such file|' file not found)")
  # Passes only when the link fails for the call up (GNU ld, gold and lld spellings), not for
  # any other reason.
  set_tests_properties(build.layering.calls_up PROPERTIES LABELS "core"
    RESOURCE_LOCK tkrt_build_tree
    PASS_REGULAR_EXPRESSION "undefined (reference to [`']|symbol: )tkrt_call_prepare")
endfunction()
