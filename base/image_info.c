/* SPDX-License-Identifier: Apache-2.0 */
/* tkrt base: the image inspector (tkrt/image.h): detects an image's kind from its bytes and
 * dispatches to the format readers (image_elf.c, image_ptx.c, image_fatbin.c). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/image_internal.h"

static bool tkrt_image_store_kernel(const char* name, size_t length, void* user) {
  tkrt_image_info_t* info = user;
  if (info->kernel_count < TKRT_IMAGE_KERNELS_MAX) {
    tkrt_image_copy(info->kernels[info->kernel_count], TKRT_IMAGE_KERNEL_NAME_MAX, name, length);
  }
  info->kernel_count++;
  return true;
}

/* The names of the public image kinds (tkrt/device.h; also the wire's numbers), beside the
 * detector that recognises them: the words of tkrt info, the Triton loader and Python. Which
 * backend loads each kind is the backends' answer (their descriptors), not this table's. */
const char* tkrt_image_kind_name(tkrt_image_kind_t kind) {
  switch (kind) {
    case TKRT_IMAGE_AUTO: return "auto";
    case TKRT_IMAGE_PTX: return "ptx";
    case TKRT_IMAGE_CUBIN: return "cubin";
    case TKRT_IMAGE_FATBIN: return "fatbin";
    case TKRT_IMAGE_HSACO: return "hsaco";
    case TKRT_IMAGE_HOST: return "host";
  }
  return "unknown";
}

tkrt_status_t tkrt_image_kind_from_name(const char* name, tkrt_image_kind_t* out_kind) {
  static const tkrt_image_kind_t kinds[] = {TKRT_IMAGE_PTX, TKRT_IMAGE_CUBIN, TKRT_IMAGE_FATBIN,
                                            TKRT_IMAGE_HSACO, TKRT_IMAGE_HOST};
  char listed[64] = "";
  for (size_t i = 0; i < sizeof(kinds) / sizeof(kinds[0]); ++i) {
    if (name && out_kind && strcmp(name, tkrt_image_kind_name(kinds[i])) == 0) {
      *out_kind = kinds[i];
      return NULL;
    }
    size_t used = strlen(listed);
    snprintf(listed + used, sizeof(listed) - used, "%s%s", i ? ", " : "",
             tkrt_image_kind_name(kinds[i]));
  }
  return TKRT_STATUS_MAKE(TKRT_STATUS_INVALID_ARGUMENT, "unknown image kind '%s' (known: %s)",
                          name ? name : "(null)", listed);
}

tkrt_image_kind_t tkrt_image_detect(const void* data, size_t size) {
  const unsigned char* bytes = data;
  if (!bytes || size < 4) return TKRT_IMAGE_AUTO;
  if (size >= 20 && bytes[0] == 0x7f && bytes[1] == 'E' && bytes[2] == 'L' && bytes[3] == 'F') {
    unsigned machine = bytes[5] == 2 ? (unsigned)bytes[18] << 8 | bytes[19]  /* big endian */
                                     : (unsigned)bytes[19] << 8 | bytes[18];
    if (machine == 190) return TKRT_IMAGE_CUBIN;  /* EM_CUDA */
    if (machine == 224) return TKRT_IMAGE_HSACO;  /* EM_AMDGPU */
    return TKRT_IMAGE_HOST;
  }
  uint32_t magic = (uint32_t)bytes[0] | (uint32_t)bytes[1] << 8 | (uint32_t)bytes[2] << 16 |
                   (uint32_t)bytes[3] << 24;
  if (magic == 0xBA55ED50u || magic == 0x466243B1u) return TKRT_IMAGE_FATBIN;
  /* PTX: text with a .version directive near the start. */
  size_t scan = size < 65536 ? size : 65536;
  for (size_t i = 0; i < scan; ++i) {
    if (bytes[i] == 0 && i + 1 != size) return TKRT_IMAGE_AUTO;
    if (bytes[i] == '.' && i + 8 <= size && memcmp(bytes + i, ".version", 8) == 0) {
      return TKRT_IMAGE_PTX;
    }
  }
  return TKRT_IMAGE_AUTO;
}

/* ---------------------------------------------------------------- entry points */

/* The one walker behind both public functions: info (optional) gets the target; sink gets the
 * kernel names. */
static tkrt_status_t tkrt_image_walk(const void* data, size_t size, tkrt_image_info_t* info,
                                     tkrt_image_sink_t* sink) {
  if (!data || size == 0) return TKRT_IMAGE_INVALID("the image is empty");
  tkrt_image_kind_t kind = tkrt_image_detect(data, size);
  const uint8_t* bytes = data;
  if (info) info->kind = kind;
  switch (kind) {
    case TKRT_IMAGE_AUTO:
      return TKRT_IMAGE_INVALID("unrecognised image of %zu bytes (starts %02x %02x %02x %02x); "
                                "expected PTX, cubin, fatbin, HSACO or a host ELF",
                                size, bytes[0], size > 1 ? bytes[1] : 0, size > 2 ? bytes[2] : 0,
                                size > 3 ? bytes[3] : 0);
    case TKRT_IMAGE_PTX:
      return tkrt_image_ptx_walk(data, size, info, sink);
    case TKRT_IMAGE_FATBIN:
      return tkrt_image_fatbin_walk(bytes, size, info);
    case TKRT_IMAGE_CUBIN:
    case TKRT_IMAGE_HSACO:
    case TKRT_IMAGE_HOST:
      return tkrt_image_elf_walk(data, size, kind, info, sink);
  }
  return TKRT_IMAGE_INVALID("unknown image kind %d", (int)kind);
}

tkrt_status_t tkrt_image_inspect(const void* data, size_t size, tkrt_image_info_t* out_info) {
  if (!out_info) return TKRT_IMAGE_INVALID("tkrt_image_inspect: out_info is NULL");
  /* Built off to the side: out_info is written only on success. */
  tkrt_image_info_t* info = calloc(1, sizeof(*info));
  if (!info) return TKRT_STATUS_MAKE(TKRT_STATUS_RESOURCE_EXHAUSTED, "out of host memory");
  info->struct_size = sizeof(*info);
  tkrt_image_sink_t sink = {tkrt_image_store_kernel, info, false};
  tkrt_status_t status = tkrt_image_walk(data, size, info, &sink);
  if (!status) {
    /* Never more than the caller's struct holds: struct_size 0 means this header's size. */
    size_t capacity = out_info->struct_size ? out_info->struct_size : sizeof(*info);
    if (capacity > sizeof(*info)) capacity = sizeof(*info);
    if (capacity < sizeof(size_t)) capacity = sizeof(size_t);
    info->struct_size = capacity;
    memcpy(out_info, info, capacity);
  }
  free(info);
  return status;
}

tkrt_status_t tkrt_image_for_each_kernel(const void* data, size_t size,
                                         tkrt_image_kernel_visitor_t visit, void* user) {
  if (!visit) return TKRT_IMAGE_INVALID("tkrt_image_for_each_kernel: visit is NULL");
  tkrt_image_sink_t sink = {visit, user, false};
  return tkrt_image_walk(data, size, NULL, &sink);
}

const char* tkrt_image_feature_name(tkrt_image_feature_t feature) {
  switch (feature) {
    case TKRT_IMAGE_FEATURE_UNSUPPORTED: return "unsupported";
    case TKRT_IMAGE_FEATURE_ANY: return "any";
    case TKRT_IMAGE_FEATURE_OFF: return "off";
    case TKRT_IMAGE_FEATURE_ON: return "on";
  }
  return "unknown";
}

