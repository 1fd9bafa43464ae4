# SPDX-License-Identifier: Apache-2.0
# CTest script (test build.no_vendor_headers): no object of the build included a vendor header.
# Reads the dependency files the compiler wrote beside every object (<object>.d, the Makefile
# generator's) and fails naming any object whose inputs include cuda.h, cudaTypedefs.h or
# hip/hip_runtime_api.h; fails too when it finds no dependency file for the cuda and hip backends'
# device code (nothing would have been checked).
#   cmake -DBUILD_DIR=<build folder> -P TkrtNoVendorHeaders.cmake
cmake_minimum_required(VERSION 3.25)
if(NOT BUILD_DIR)
  message(FATAL_ERROR "TkrtNoVendorHeaders.cmake: BUILD_DIR is not set")
endif()
file(GLOB_RECURSE depfiles "${BUILD_DIR}/*.o.d")
set(offenders "")
set(seen_cuda FALSE)
set(seen_hip FALSE)
foreach(depfile IN LISTS depfiles)
  if(depfile MATCHES "/backends/cuda/cuda_launch\\.c\\.o\\.d$")
    set(seen_cuda TRUE)
  elseif(depfile MATCHES "/backends/hip/hip_device\\.c\\.o\\.d$")
    set(seen_hip TRUE)
  endif()
  file(READ "${depfile}" text)
  if(text MATCHES "[/ ](cuda\\.h|cudaTypedefs\\.h|hip/hip_runtime_api\\.h)([ \n\\\\]|$)")
    string(APPEND offenders "\n  ${depfile}: includes ${CMAKE_MATCH_1}")
  endif()
endforeach()
list(LENGTH depfiles count)
if(offenders)
  message(FATAL_ERROR "build.no_vendor_headers: objects compiled with a vendor header:${offenders}")
endif()
if(NOT seen_cuda OR NOT seen_hip)
  message(FATAL_ERROR "build.no_vendor_headers: no dependency file of the cuda and hip backends' "
                      "device code in ${BUILD_DIR} (${count} files read): build the library first, "
                      "with the Makefile generator and both backends on")
endif()
message("build.no_vendor_headers: ${count} objects, none included cuda.h, cudaTypedefs.h or "
        "hip/hip_runtime_api.h")
