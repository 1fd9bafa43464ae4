# SPDX-License-Identifier: Apache-2.0
# Where the vendors' headers are, for the ABI checks only (test/cuda/cuda_abi_check.c and
# test/hip/hip_abi_check.c, run by cmake/TkrtAbiCheck.cmake): no target includes them. Either may
# be absent; the check then reports itself skipped, with the reason. Point a variable at a folder
# without the header (the novendor preset does) to keep a build from ever seeing one.
find_path(TKRT_CUDA_INCLUDE_DIR cuda.h
          HINTS ENV CUDA_HOME ENV CUDA_PATH PATH_SUFFIXES include
          PATHS /usr/local/cuda/include /usr/local/cuda /opt/cuda/include
          DOC "Folder with cuda.h and cudaTypedefs.h, read by the ABI check (cuda.abi) only")
find_path(TKRT_HIP_INCLUDE_DIR hip/hip_runtime_api.h
          HINTS ENV ROCM_PATH ENV HIP_PATH PATH_SUFFIXES include
          PATHS /opt/rocm/include /usr/include
          DOC "Folder with hip/hip_runtime_api.h, read by the ABI check (hip.abi) only")
foreach(vendor CUDA HIP)
  if(TKRT_${vendor}_INCLUDE_DIR)
    message(STATUS "tkrt: ${vendor} headers for the ABI check: ${TKRT_${vendor}_INCLUDE_DIR}")
  else()
    message(STATUS "tkrt: no ${vendor} headers: the ${vendor} ABI check will report itself skipped")
  endif()
endforeach()

# tkrt_add_abi_check(<vendor> <name> <check source> [INJECT <file> <from> <to> <expect>]...): the
# test <name> runs the check (cmake/TkrtAbiCheck.cmake); each INJECT adds <name>.catches_wrong.<i>,
# which makes one declaration of <file> wrong and passes only when the check then fails naming it.
# Skipped (with the reason) where the vendor's headers are missing, failed instead when the
# environment has TKRT_ABI_CHECK_REQUIRED=1. (No ';' in the INJECT texts: it separates list items.)
function(tkrt_add_abi_check vendor name source)
  set(script "${PROJECT_SOURCE_DIR}/cmake/TkrtAbiCheck.cmake")
  set(args -DVENDOR=${vendor} "-DCOMPILER=${CMAKE_C_COMPILER}" "-DSOURCE=${source}"
           "-DROOT=${PROJECT_SOURCE_DIR}" "-DHEADERS=${TKRT_${vendor}_INCLUDE_DIR}")
  set(work "${CMAKE_CURRENT_BINARY_DIR}/${name}")
  add_test(NAME ${name} COMMAND ${CMAKE_COMMAND} ${args} "-DWORK=${work}" -P "${script}")
  set(tests ${name})
  string(TOLOWER "${vendor}" vendor_label)
  set(rest ${ARGN})
  set(index 0)
  while(rest)
    list(POP_FRONT rest keyword file from to expect)
    if(NOT keyword STREQUAL "INJECT" OR expect STREQUAL "")
      message(FATAL_ERROR "tkrt_add_abi_check: INJECT <file> <from> <to> <expect>, got ${keyword}")
    endif()
    math(EXPR index "${index} + 1")
    add_test(NAME ${name}.catches_wrong.${index}
             COMMAND ${CMAKE_COMMAND} ${args} "-DWORK=${work}.inject${index}"
                     "-DINJECT_FILE=${file}" "-DINJECT_FROM=${from}" "-DINJECT_TO=${to}"
                     "-DINJECT_EXPECT=${expect}" -P "${script}")
    list(APPEND tests ${name}.catches_wrong.${index})
  endwhile()
  set_tests_properties(${tests} PROPERTIES LABELS "${vendor_label};abi"
                       SKIP_REGULAR_EXPRESSION "tkrt-abi-check: skipped")
endfunction()
