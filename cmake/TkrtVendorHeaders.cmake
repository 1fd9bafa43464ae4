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
