# SPDX-License-Identifier: Apache-2.0
# The hip backend's conformance and core tests: none in CTest. Skipped because the committed test
# kernels (test/cts/kernels/cts_hip_gfx90a.hsaco, test/core/kernels/core_kernels_gfx90a.hsaco)
# only run once packed with the CUDA build of the same kernels for hip-over-cuda (no AMD GPU is
# at hand): test/gpu/run_hip.sh does that on the GPU machine and runs cts_test and the core
# programs through the hip backend.
