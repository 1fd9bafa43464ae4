# SPDX-License-Identifier: Apache-2.0
# The null backend's conformance and core tests: none. Skipped because the skeleton has no device
# (its probe refuses, which registry_test checks). A real backend registers its images here:
#   cts:  tkrt_cts_test(cts.<name> <name> <image>)
#   core: tkrt_core_tests(core.<name> <name> <image> [test properties])
