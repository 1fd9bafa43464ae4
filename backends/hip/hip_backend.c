/* SPDX-License-Identifier: Apache-2.0 */
/* tkrt HIP backend: its descriptor (always compiled: which images it runs needs no HIP header) and
 * its factory, which opens libamdhip64 only when a build has the backend. */
#include <string.h>

#include "hal/hal.h"

#if TKRT_HAVE_BACKEND_HIP
#include "backends/hip/hip_internal.h"
#endif

extern const tkrt_hal_backend_t tkrt_hip_backend;

/* HSACO for the device's processor ("gfx90a" of "gfx90a:sramecc+:xnack-"); features are checked
 * when the code object loads. An empty device arch means the backend could not read it safely:
 * then any HSACO fits, because the arch is unknown, not mismatched, and the runtime's own check
 * at load still refuses one built for another device. */
static int tkrt_hip_image_rank(const tkrt_device_info_t* info, tkrt_image_kind_t kind,
                               const char* arch) {
  if (kind != TKRT_IMAGE_HSACO) return 0;
  if (!info || !arch || !*arch || !info->arch[0]) return 2;
  size_t base = strcspn(arch, ":");
  size_t device_base = strcspn(info->arch, ":");
  return base == device_base && strncmp(arch, info->arch, base) == 0 ? 2 : 0;
}

/* Triton's target.arch for HIP is the processor ("gfx942"); a code object's arch may add target
 * features ("gfx942:sramecc+:xnack-"), which the processor part must match. */
static bool tkrt_hip_triton_image_matches(const tkrt_image_info_t* info, const char* triton_arch) {
  size_t base = strcspn(info->arch, ":");
  return strlen(triton_arch) == base && strncmp(triton_arch, info->arch, base) == 0;
}

/* hip.library: the runtime library to open (a path or soname, or a ':' list). */
static tkrt_status_t tkrt_hip_parse_param(const char* key, const char* value,
                                          tkrt_device_options_t* options) {
  if (strcmp(key, "library") != 0) {
    return TKRT_STATUS_MAKE(TKRT_STATUS_INVALID_ARGUMENT,
                            "unknown backend parameter hip.%s; the hip backend takes library",
                            key);
  }
  options->hip_library = value;
  return NULL;
}

static const char* const kHipAliases[] = {"rocm", NULL};
static const tkrt_hal_image_format_t kHipFormats[] = {
    {.kind = TKRT_IMAGE_HSACO, .triton_extension = ".hsaco", .triton_asm_key = "hsaco"},
};
/* kDLROCM */
static const int32_t kHipDlpackTypes[] = {10};

#if TKRT_HAVE_BACKEND_HIP

static tkrt_status_t tkrt_hip_probe(const tkrt_device_options_t* options, int* out_device_count) {
  const tkrt_hip_library_t* library = NULL;
  TKRT_RETURN_IF_ERROR(tkrt_hip_library_get(options->hip_library, &library));
  *out_device_count = library->device_count;
  return NULL;
}

static tkrt_status_t tkrt_hip_backend_device_create(const tkrt_device_options_t* options,
                                                    tkrt_device_t** out_device) {
  return tkrt_hip_device_create(&tkrt_hip_backend, options, out_device);
}

/* hipStreamGetDevice where the runtime has it, else the calling thread's current device. */
static tkrt_status_t tkrt_hip_native_stream_ordinal(void* stream, int* out_ordinal) {
  const tkrt_hip_library_t* library = NULL;
  TKRT_RETURN_IF_ERROR(tkrt_hip_library_get(NULL, &library));
  int device = -1;
  const tkrt_hip_symbols_t* api = &library->api;
  if (api->hipStreamGetDevice && stream &&
      api->hipStreamGetDevice((hipStream_t)stream, &device) == hipSuccess) {
    *out_ordinal = device;
    return NULL;
  }
  hipError_t error = api->hipGetDevice(&device);
  if (error != hipSuccess) {
    return TKRT_HIP_STATUS(api, error, "hipGetDevice (finding the device of stream %p)", stream);
  }
  *out_ordinal = device;
  return NULL;
}

#endif

const tkrt_hal_backend_t tkrt_hip_backend = {
    .name = "hip",
    .compiled = TKRT_HAVE_BACKEND_HIP,
#if TKRT_HAVE_BACKEND_HIP
    .probe = tkrt_hip_probe,
    .device_create = tkrt_hip_backend_device_create,
    .native_stream_ordinal = tkrt_hip_native_stream_ordinal,
#endif
    .image_rank = tkrt_hip_image_rank,
    .aliases = kHipAliases,
    .foreign_streams = true,
    .formats.image_formats = kHipFormats,
    .formats.image_format_count = sizeof(kHipFormats) / sizeof(kHipFormats[0]),
    .formats.dlpack_device_types = kHipDlpackTypes,
    .formats.dlpack_device_type_count = sizeof(kHipDlpackTypes) / sizeof(kHipDlpackTypes[0]),
    .formats.triton_target = "hip",
    .formats.triton_output_versioned = true,
    .tma_unsupported = "the HIP backend has no tensor-descriptor (TMA) support yet: HIP has no "
                       "equivalent of CUDA's tensor maps that tkrt can encode (this refuses "
                       "descriptors in TMA form; Triton's decomposed ones, empty "
                       "tensordesc_meta as for AMD targets, run on HIP)",
    .formats.triton_arch_expected = "the processor name as a string (e.g. \"gfx942\")",
    .formats.triton_image_matches = tkrt_hip_triton_image_matches,
    .parse_param = tkrt_hip_parse_param,
};
