# SPDX-License-Identifier: Apache-2.0
# The host backend's conformance and core tests (test/cts, test/core include this file with
# TKRT_TESTS set to cts or core): the test kernels built from C into host images. They run in CI.
if(TKRT_TESTS STREQUAL "cts")
  tkrt_add_host_image(cts_host_kernels SOURCES "${PROJECT_SOURCE_DIR}/test/cts/kernels/cts_host.c")
  tkrt_cts_test(cts.host host $<TARGET_FILE:cts_host_kernels>)
elseif(TKRT_TESTS STREQUAL "core")
  tkrt_add_host_image(core_test_kernels
                      SOURCES "${PROJECT_SOURCE_DIR}/test/core/kernels/core_kernels.c")
  tkrt_core_tests(core host $<TARGET_FILE:core_test_kernels>)
endif()
