/* SPDX-License-Identifier: Apache-2.0 */
/* tkrt wire: recognising the image bytes a jaxlib blob carries (module_image, HSACO files), and
 * reading ROCm's HSACO files once. Only headers are looked at: the backends validate the rest. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/fs.h"
#include "base/image_detect.h"
#include "wire/wire_internal.h"
#include "hal/hal.h"
#include "registry/registry.h"
#include "tkrt/image.h"

static bool tkrt_wire_has_prefix(const uint8_t* data, size_t size, const char* prefix) {
  size_t n = strlen(prefix);
  return size >= n && memcmp(data, prefix, n) == 0;
}

/* The kind comes from the HAL's detector, the arch from the image inspector; an image whose
 * headers do not inspect cleanly keeps its kind and no arch (its backend refuses it at load). */
void tkrt_wire_image_detect(const uint8_t* data, size_t size, tkrt_wire_image_facts_t* facts) {
  memset(facts, 0, sizeof(*facts));
  facts->kind = tkrt_image_detect(data, size);
  if (facts->kind == TKRT_IMAGE_AUTO) return;
  tkrt_kernel_image_t probe = {.kind = facts->kind};
  facts->backend = tkrt_kernel_image_backend(&probe);
  if (facts->kind == TKRT_IMAGE_FATBIN) return; /* several archs: the driver picks */
  tkrt_image_info_t* info = malloc(sizeof(*info));
  if (!info) return;
  info->struct_size = sizeof(*info);
  tkrt_status_t status = tkrt_image_inspect(data, size, info);
  if (!status && info->kind == facts->kind) {
    snprintf(facts->arch, sizeof(facts->arch), "%.*s", (int)sizeof(facts->arch) - 1, info->arch);
  }
  tkrt_status_free(status);
  free(info);
}

bool tkrt_wire_ptx_field_is_text(const uint8_t* data, size_t size) {
  return memchr(data, '\n', size) != NULL || memchr(data, '\r', size) != NULL ||
         tkrt_wire_has_prefix(data, size, ".version");
}

void tkrt_wire_cuda_arch(uint32_t compute_capability, char arch[TKRT_WIRE_ARCH_MAX]) {
  /* The backend that runs PTX names the arch jaxlib compiled it for (sm_90a for 90). */
  const tkrt_hal_backend_t* backend = tkrt_hal_registry_backend_for_kind(TKRT_IMAGE_PTX);
  arch[0] = '\0';
  if (backend && backend->formats.arch_for_capability) {
    backend->formats.arch_for_capability(compute_capability, arch, TKRT_WIRE_ARCH_MAX);
  }
}

tkrt_status_t tkrt_wire_read_file(const char* base_dir, const char* path, size_t limit,
                                  uint8_t** out_data, size_t* out_size) {
  char* joined = NULL;
  const char* full = path;
  if (path[0] != '/' && base_dir && base_dir[0]) {
    size_t length = strlen(base_dir) + 1 + strlen(path) + 1;
    joined = malloc(length);
    if (!joined) return TKRT_STATUS_MAKE(TKRT_STATUS_RESOURCE_EXHAUSTED, "out of host memory");
    snprintf(joined, length, "%s/%s", base_dir, path);
    full = joined;
  }
  /* The library's one file reader (base/fs.h); an HSACO file is never empty. */
  void* data = NULL;
  tkrt_status_t status = tkrt_fs_read_file(full, limit, TKRT_FS_READ_NONEMPTY, &data, out_size);
  if (status && tkrt_status_code(status) == TKRT_STATUS_OUT_OF_RANGE) {
    /* The codec's limits are INVALID_ARGUMENT (docs/wire.md), the files' total too. */
    tkrt_status_t invalid =
        TKRT_STATUS_MAKE(TKRT_STATUS_INVALID_ARGUMENT, "%s", tkrt_status_message(status));
    tkrt_status_free(status);
    status = invalid;
  }
  if (!status) *out_data = data;
  free(joined);
  return status;
}
