/* SPDX-License-Identifier: Apache-2.0 */
/* tkrt null backend: the descriptor of the skeleton backend. It loads no image kind, runs no
 * Triton target and refuses every probe, so a build with it (TKRT_BACKEND_NULL=ON, in CI) proves
 * that a backend needs only its folder and its name in TKRT_BACKENDS. See README.md. */
#include "hal/hal.h"

extern const tkrt_hal_backend_t tkrt_null_backend;

/* A real backend opens its vendor library here (once per process) and counts the devices;
 * without them it answers UNAVAILABLE, saying what it tried. */
static tkrt_status_t tkrt_null_probe(const tkrt_device_options_t* options,
                                     int* out_device_count) {
  (void)options;
  (void)out_device_count;
  return TKRT_STATUS_MAKE(TKRT_STATUS_UNAVAILABLE,
                          "the null backend is a skeleton (backends/null/README.md): it has no "
                          "devices and opens none");
}

/* A real backend probes, checks the ordinal, then creates the device (<name>_device.c). */
static tkrt_status_t tkrt_null_device_create(const tkrt_device_options_t* options,
                                             tkrt_device_t** out_device) {
  int count = 0;
  TKRT_RETURN_IF_ERROR(tkrt_null_probe(options, &count));
  (void)out_device;
  return TKRT_STATUS_MAKE(TKRT_STATUS_INTERNAL, "the null backend reported devices");
}

/* How well an image fits a device: a real backend ranks the kinds it loads (machine code over
 * code it must compile) and checks the arch. The skeleton loads nothing. */
static int tkrt_null_image_rank(const tkrt_device_info_t* info, tkrt_image_kind_t kind,
                                const char* arch) {
  (void)info;
  (void)kind;
  (void)arch;
  return 0;
}

const tkrt_hal_backend_t tkrt_null_backend = {
    .name = "null",
    .compiled = TKRT_HAVE_BACKEND_NULL,
    .probe = tkrt_null_probe,
    .device_create = tkrt_null_device_create,
    .image_rank = tkrt_null_image_rank,
    /* A real backend also fills, as it has them: native_stream_ordinal and foreign_streams (it
     * runs on streams others made), aliases, tma_descriptor_size/align, parse_param (its own
     * "<name>.<key>" parameters) and its format facts: .formats.image_formats (with Triton's file
     * extension and asm key), .formats.dlpack_device_types, .formats.triton_target and its arch
     * fields, .formats.arch_for_capability (jaxlib's compute_capability). */
};
