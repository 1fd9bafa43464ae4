# SPDX-License-Identifier: Apache-2.0
# The cuda backend's conformance and core tests (test/cts, test/core include this file with
# TKRT_TESTS set to cts or core): the committed PTX and sm_90a cubin builds of the test kernels
# (test/cts/kernels, test/core/kernels/regen_cuda.sh). Without a GPU they skip (exit 77);
# test/gpu/run.sh runs them on the GPU machine.
if(NOT TKRT_HAVE_BACKEND_CUDA)
  return()
endif()
set(kernels "${PROJECT_SOURCE_DIR}/test/cts/kernels")
if(TKRT_TESTS STREQUAL "cts")
  tkrt_cts_test(cts.cuda.ptx cuda "${kernels}/cts_cuda.ptx")
  tkrt_cts_test(cts.cuda.cubin cuda "${kernels}/cts_cuda_sm90a.cubin")
elseif(TKRT_TESTS STREQUAL "core")
  # One test at a time on the GPU: the timing-based cases must not share it with each other.
  tkrt_core_tests(core.cuda cuda "${PROJECT_SOURCE_DIR}/test/core/kernels/core_kernels.ptx"
                  RESOURCE_LOCK tkrt_gpu TIMEOUT 300)
endif()
