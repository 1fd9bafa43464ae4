/* SPDX-License-Identifier: Apache-2.0 */
/* tkrt: inspecting module images (PTX, cubin, fatbin, HSACO, host ELF) without a device: kind,
 * target architecture and kernel entry names. Backend-independent; parses untrusted bytes. */
#ifndef TKRT_IMAGE_H_
#define TKRT_IMAGE_H_

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "tkrt/api.h"
#include "tkrt/device.h"
#include "tkrt/status.h"

#ifdef __cplusplus
extern "C" {
#endif

#define TKRT_IMAGE_ARCH_MAX 64
#define TKRT_IMAGE_TARGET_MAX 96
#define TKRT_IMAGE_KERNELS_MAX 32
#define TKRT_IMAGE_KERNEL_NAME_MAX 256
#define TKRT_IMAGE_FATBIN_ENTRIES_MAX 32
#define TKRT_IMAGE_FATBIN_ENTRY_NAME_MAX 24

/* An AMDGPU target feature (xnack, sramecc) as recorded in a code object (v4+ e_flags). */
typedef enum tkrt_image_feature {
  TKRT_IMAGE_FEATURE_UNSUPPORTED = 0, /* the processor does not have it (or code object < v4) */
  TKRT_IMAGE_FEATURE_ANY = 1,         /* compiled to run with either setting */
  TKRT_IMAGE_FEATURE_OFF = 2,         /* "feature-" */
  TKRT_IMAGE_FEATURE_ON = 3,          /* "feature+" */
} tkrt_image_feature_t;

/* Everything tkrt_image_inspect learns about an image. Self-contained: it holds copies, never
 * pointers into the inspected bytes, so it stays valid after they are freed. Strings are
 * NUL-terminated and "" when unknown. */
typedef struct tkrt_image_info {
  /* Set by the caller to sizeof(tkrt_image_info_t) (0 means the same): tkrt_image_inspect never
   * writes past it, so a program built against an older, smaller struct stays safe. On return it
   * holds the number of bytes written. */
  size_t struct_size;
  tkrt_image_kind_t kind; /* never TKRT_IMAGE_AUTO on success */
  /* The processor the code is for: "sm_90a" (PTX, cubin), "gfx90a" (HSACO), "x86_64" or
   * "aarch64" (host ELF), "" for a fatbin (see fatbin_entries) or an unknown processor. */
  char arch[TKRT_IMAGE_ARCH_MAX];
  /* The full target: HSACO adds the features it was compiled with, as in ROCm's target IDs
   * ("gfx90a:sramecc+:xnack-"); "fatbin" for a fatbin; otherwise equal to arch. */
  char target[TKRT_IMAGE_TARGET_MAX];

  /* ELF images (cubin, HSACO, host): the raw header fields; 0 otherwise. */
  uint32_t elf_machine;    /* e_machine: 190 EM_CUDA, 224 EM_AMDGPU, 62 EM_X86_64, ... */
  uint32_t elf_flags;      /* e_flags */
  uint32_t elf_osabi;      /* e_ident[EI_OSABI] */
  uint32_t elf_abi_version; /* e_ident[EI_ABIVERSION] */

  /* CUDA: the SM number ("sm_90a" -> 90) of PTX and cubin images; 0 otherwise. */
  uint32_t sm;
  /* PTX: the .version directive (8.7 -> 8, 7); 0 otherwise. */
  uint32_t ptx_version_major, ptx_version_minor;

  /* HSACO: the code object version (2 to 6, from EI_ABIVERSION), and the features. */
  uint32_t code_object_version;
  tkrt_image_feature_t xnack, sramecc;

  /* Kernel entry points in file order: PTX .entry names; cubin functions marked as CUDA entries;
   * HSACO global functions; host images' tkrt_host_kernel__<name> descriptors (prefix removed).
   * kernel_count is the total found; names are kept for the first TKRT_IMAGE_KERNELS_MAX, each
   * cut to TKRT_IMAGE_KERNEL_NAME_MAX - 1 bytes. Use tkrt_image_for_each_kernel for all of them,
   * whole. Fatbins report none. */
  size_t kernel_count;
  char kernels[TKRT_IMAGE_KERNELS_MAX][TKRT_IMAGE_KERNEL_NAME_MAX];

  /* Fatbin: one name per embedded image, "sm_90a" for machine code, "compute_90" for PTX;
   * fatbin_entry_count is the total, names are kept for the first TKRT_IMAGE_FATBIN_ENTRIES_MAX. */
  size_t fatbin_entry_count;
  char fatbin_entries[TKRT_IMAGE_FATBIN_ENTRIES_MAX][TKRT_IMAGE_FATBIN_ENTRY_NAME_MAX];
} tkrt_image_info_t;

/* Inspects an image. The kind is detected from the bytes (as tkrt_module_load does with
 * TKRT_IMAGE_AUTO). Unrecognised bytes, truncated or inconsistent headers and tables are
 * INVALID_ARGUMENT naming what is wrong and its byte offset. *out_info is written only on
 * success. The bytes are only read, never kept. Thread-safe. */
TKRT_MUST_USE TKRT_API tkrt_status_t tkrt_image_inspect(const void* data, size_t size,
                                          tkrt_image_info_t* out_info);

/* Called once per kernel entry name, in file order. `name` is lent for the call only and is not
 * NUL-terminated: use `length`. Return false to stop early. */
typedef bool (*tkrt_image_kernel_visitor_t)(const char* name, size_t length, void* user);

/* Visits every kernel entry name of an image, with no limit on their number or length (the same
 * names, in the same order, that tkrt_image_inspect reports). Malformed images fail as in
 * tkrt_image_inspect, possibly after some names were visited. */
TKRT_MUST_USE TKRT_API tkrt_status_t tkrt_image_for_each_kernel(const void* data, size_t size,
                                                  tkrt_image_kernel_visitor_t visit, void* user);

/* "unsupported", "any", "off", "on". */
TKRT_API const char* tkrt_image_feature_name(tkrt_image_feature_t feature);

#ifdef __cplusplus
}
#endif

#endif /* TKRT_IMAGE_H_ */
