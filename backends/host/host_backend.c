/* SPDX-License-Identifier: Apache-2.0 */
/* tkrt host backend: its descriptor and factory. Always available: it needs nothing but the C
 * library, so it is the embedded default where no GPU is present. The device lives in
 * host_device.c. */
#include <string.h>

#include "backends/host/host_internal.h"

extern const tkrt_hal_backend_t tkrt_host_backend;

static tkrt_status_t tkrt_host_probe(const tkrt_device_options_t* options,
                                     int* out_device_count) {
  (void)options;
  *out_device_count = 1;
  return NULL;
}

/* Host images are native ELF objects for this machine's arch ("x86_64"); any arch of the kind is
 * judged by the ELF checks at load. */
static int tkrt_host_image_rank(const tkrt_device_info_t* info, tkrt_image_kind_t kind,
                                const char* arch) {
  if (kind != TKRT_IMAGE_HOST) return 0;
  if (!info || !arch || !*arch) return 2;
  return strcmp(arch, info->arch) == 0 ? 2 : 0;
}

/* One device, so every host stream belongs to device 0. */
static tkrt_status_t tkrt_host_native_stream_ordinal(void* stream, int* out_ordinal) {
  (void)stream;
  *out_ordinal = 0;
  return NULL;
}

static tkrt_status_t tkrt_host_backend_device_create(const tkrt_device_options_t* options,
                                                     tkrt_device_t** out_device) {
  return tkrt_host_device_create(&tkrt_host_backend, options, out_device);
}

const tkrt_hal_backend_t tkrt_host_backend = {
    .name = "host",
    /* Always compiled; with TKRT_BACKEND_HOST=OFF the registry refuses it before any call. */
    .compiled = TKRT_HAVE_BACKEND_HOST,
    .probe = tkrt_host_probe,
    .device_create = tkrt_host_backend_device_create,
    .native_stream_ordinal = tkrt_host_native_stream_ordinal,
    .image_rank = tkrt_host_image_rank,
};
