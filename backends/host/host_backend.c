/* SPDX-License-Identifier: Apache-2.0 */
/* tkrt host backend: its descriptor and factory. Always available: it needs nothing but the C
 * library, so it is the embedded default where no GPU is present. The device lives in
 * host_device.c. */
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
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

/* host.threads: worker threads, 1 to 256; 0: one per online CPU (checked when the device opens). */
static tkrt_status_t tkrt_host_parse_param(const char* key, const char* value,
                                           tkrt_device_options_t* options) {
  if (strcmp(key, "threads") != 0) {
    return TKRT_STATUS_MAKE(TKRT_STATUS_INVALID_ARGUMENT,
                            "unknown backend parameter host.%s; the host backend takes threads",
                            key);
  }
  char* end = NULL;
  errno = 0;
  unsigned long threads = strtoul(value, &end, 10);
  if (!*value || *end || errno || value[0] == '-' || threads > UINT32_MAX) {
    return TKRT_STATUS_MAKE(TKRT_STATUS_INVALID_ARGUMENT,
                            "backend parameter host.threads is '%s'; expected a thread count "
                            "(0: one per online CPU)",
                            value);
  }
  options->host_threads = (uint32_t)threads;
  return NULL;
}

static const char* const kHostAliases[] = {"cpu", NULL};
static const tkrt_hal_image_format_t kHostFormats[] = {
    {.kind = TKRT_IMAGE_HOST, .triton_extension = ".so", .native_code = true,
     .any_triton_target = true},
};
/* kDLCPU, kDLCUDAHost, kDLROCMHost: memory the host's programs can read directly. */
static const int32_t kHostDlpackTypes[] = {1, 3, 11};

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
    .aliases = kHostAliases,
    .formats.image_formats = kHostFormats,
    .formats.image_format_count = sizeof(kHostFormats) / sizeof(kHostFormats[0]),
    .formats.dlpack_device_types = kHostDlpackTypes,
    .formats.dlpack_device_type_count = sizeof(kHostDlpackTypes) / sizeof(kHostDlpackTypes[0]),
    .formats.triton_target = "host",
    .formats.triton_arch_expected = "the machine's arch as a string (e.g. \"x86_64\")",
    .parse_param = tkrt_host_parse_param,
};
