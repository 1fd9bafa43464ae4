/* SPDX-License-Identifier: Apache-2.0 */
/* tkrt wire: field numbers of jaxlib's kernel-call protobuf (package jax_triton) and of tkrt's own
 * additions, shared by the decoder and the encoder. docs/wire.md has the whole schema. */
#ifndef TKRT_WIRE_SCHEMA_H_
#define TKRT_WIRE_SCHEMA_H_

#include "wire/wire_proto.h"
#include "tkrt/wire.h"

enum {
  /* TritonAnyKernelCall */
  TKRT_F_ANY_KERNEL_CALL = 1,
  TKRT_F_ANY_AUTOTUNED = 2,
  TKRT_F_ANY_METADATA = 3,
  TKRT_F_ANY_NAME = 4,
  /* TritonKernelCall */
  TKRT_F_CALL_KERNEL = 1,
  TKRT_F_CALL_GRID_0 = 2, /* grid_1 = 3, grid_2 = 4 */
  TKRT_F_CALL_PARAMETERS = 5,
  /* Parameter: the oneof member numbers equal tkrt_param_kind_t (array 1 ... tma 9) */
  /* Array */
  TKRT_F_ARRAY_BYTES_TO_ZERO = 1,
  TKRT_F_ARRAY_PTR_DIVISIBILITY = 2,
  /* TMA parameter: an outer message whose field 1 is the descriptor */
  TKRT_F_TMA_DESCRIPTOR = 1,
  TKRT_F_TMA_ELEM_TYPE = 1,
  TKRT_F_TMA_SWIZZLE = 2,
  TKRT_F_TMA_SHAPE = 3,
  TKRT_F_TMA_STRIDES = 4,
  TKRT_F_TMA_BLOCK_SHAPE = 5,
  TKRT_F_TMA_OOB_FILL = 6,
  /* TritonKernel */
  TKRT_F_KERNEL_NAME = 1,
  TKRT_F_KERNEL_NUM_WARPS = 2,
  TKRT_F_KERNEL_SHARED_MEM = 3,
  TKRT_F_KERNEL_PTX = 4,
  TKRT_F_KERNEL_TTIR = 5,
  TKRT_F_KERNEL_CC = 6,
  TKRT_F_KERNEL_CLUSTER_0 = 7, /* 8, 9 */
  TKRT_F_KERNEL_NUM_CTAS = 10,
  TKRT_F_KERNEL_MODULE_IMAGE = 11,
  TKRT_F_KERNEL_SCRATCH_SIZE = 12,
  TKRT_F_KERNEL_SCRATCH_ALIGN = 13,
  TKRT_F_KERNEL_TKRT_IMAGES = TKRT_WIRE_IMAGE_FIELD, /* 1000, tkrt's */
  TKRT_F_KERNEL_TKRT_LAUNCH_FLAGS = 1001,            /* tkrt's */
  TKRT_F_KERNEL_TKRT_PROFILE_SCRATCH_SIZE = 1002,    /* tkrt's */
  TKRT_F_KERNEL_TKRT_PROFILE_SCRATCH_ALIGN = 1003,   /* tkrt's */
  TKRT_F_KERNEL_TKRT_HIDDEN_POINTERS = 1004,         /* tkrt's */
  /* ModuleImage */
  TKRT_F_MODULE_OBJECT_FILE = 1,
  TKRT_F_MODULE_KERNEL_NAME = 2,
  TKRT_F_MODULE_SHARED_MEM = 3,
  /* TkrtImage (tkrt's) */
  TKRT_F_IMAGE_BACKEND = 1,
  TKRT_F_IMAGE_ARCH = 2,
  TKRT_F_IMAGE_KIND = 3,
  TKRT_F_IMAGE_DATA = 4,
  TKRT_F_IMAGE_ENTRY_NAME = 5,
  TKRT_F_IMAGE_SHARED_MEM = 6,
  TKRT_F_IMAGE_SOURCE_PATH = 7,
  /* TritonAutotunedKernelCall */
  TKRT_F_AUTOTUNED_NAME = 1,
  TKRT_F_AUTOTUNED_CONFIGS = 2,
  TKRT_F_AUTOTUNED_ALIASES = 3,
  /* Config */
  TKRT_F_CONFIG_KERNEL_CALL = 1,
  TKRT_F_CONFIG_DESCRIPTION = 2,
  /* InputOutputAlias */
  TKRT_F_ALIAS_INPUT = 1,
  TKRT_F_ALIAS_OUTPUT = 2,
  TKRT_F_ALIAS_SIZE = 3,
};

#endif /* TKRT_WIRE_SCHEMA_H_ */
