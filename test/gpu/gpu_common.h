/* SPDX-License-Identifier: Apache-2.0 */
/* Shared helpers of the GPU test programs: opening the cuda device (exit 77 when there is none),
 * reading files, timing, and a minimal reader for jaxlib's TritonAnyKernelCall (call.pb) that
 * takes only what a launch needs, so these tests do not depend on the core's wire decoder. */
#ifndef TKRT_TEST_GPU_GPU_COMMON_H_
#define TKRT_TEST_GPU_GPU_COMMON_H_

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "tkrt/device.h"
#include "tkrt/environment.h"

#define GPU_SKIP 77

static inline double gpu_now_ms(void) {
  struct timespec now;
  clock_gettime(CLOCK_MONOTONIC, &now);
  return (double)now.tv_sec * 1e3 + (double)now.tv_nsec / 1e6;
}

/* Prints the status (and frees it); returns 1 when there was one. */
static inline int gpu_failed(const char* what, tkrt_status_t status) {
  if (!status) return 0;
  char* text = tkrt_status_to_string(status);
  fprintf(stderr, "FAILED: %s: %s\n", what, text ? text : "(no memory)");
  free(text);
  tkrt_status_free(status);
  return 1;
}

/* Opens cuda device 0, or returns NULL after printing why (the caller exits 77). */
static inline tkrt_device_t* gpu_open_cuda_or_skip(void) {
  tkrt_device_options_t options;
  tkrt_device_options_init(&options);
  /* The environment's settings (TKRT_CACHE_DIR, TKRT_LOG, TKRT_HIP_LIBRARY, ...), as the tools
   * pass them; the backend is this program's choice. */
  tkrt_status_free(tkrt_options_from_environment(&options, NULL));
  options.backend = "cuda";
  tkrt_device_t* device = NULL;
  tkrt_status_t status = tkrt_device_open(&options, &device);
  if (status) {
    fprintf(stderr, "skipped: no CUDA device: %s\n", tkrt_status_message(status));
    tkrt_status_free(status);
    return NULL;
  }
  const tkrt_device_info_t* info = tkrt_device_info(device);
  printf("device: %s (%s, cc %d.%d, %u SMs, driver %d, features 0x%x)\n", info->name, info->arch,
         info->cc_major, info->cc_minor, info->sm_count, info->driver_version, info->features);
  return device;
}

static inline void* gpu_read_file(const char* path, size_t* out_size) {
  FILE* file = fopen(path, "rb");
  if (!file) return NULL;
  void* data = NULL;
  long size = -1;
  if (fseek(file, 0, SEEK_END) == 0) size = ftell(file);
  if (size >= 0 && fseek(file, 0, SEEK_SET) == 0) {
    data = malloc((size_t)size + 1);
    if (data && fread(data, 1, (size_t)size, file) != (size_t)size) {
      free(data);
      data = NULL;
    }
  }
  fclose(file);
  if (data) {
    ((char*)data)[size] = '\0';
    *out_size = (size_t)size;
  }
  return data;
}

/* ---------------------------------------------------------------- call.pb */

enum { GPU_MAX_PARAMS = 32 };

typedef struct gpu_param {
  int is_array;
  uint64_t bytes_to_zero;
  uint64_t divisibility;
  int field;      /* scalar: the Parameter oneof field number (3 = i32, ...) */
  uint64_t value; /* scalar bits as on the wire */
} gpu_param_t;

typedef struct gpu_call {
  char name[128];
  uint32_t num_warps;
  uint32_t shared_mem_bytes;
  uint32_t num_ctas; /* 1 when absent */
  const char* ptx;   /* points into the call.pb bytes; not NUL-terminated */
  size_t ptx_size;
  uint32_t grid[3];
  gpu_param_t params[GPU_MAX_PARAMS];
  int param_count;
} gpu_call_t;

typedef struct gpu_pb {
  const uint8_t* at;
  const uint8_t* end;
} gpu_pb_t;

static inline int gpu_pb_varint(gpu_pb_t* pb, uint64_t* out) {
  uint64_t value = 0;
  for (int shift = 0; shift < 70 && pb->at < pb->end; shift += 7) {
    uint8_t byte = *pb->at++;
    value |= (uint64_t)(byte & 0x7f) << shift;
    if (!(byte & 0x80)) {
      *out = value;
      return 0;
    }
  }
  return -1;
}

/* Reads one field: its number, wire type, and either a varint/fixed value or a byte range. */
static inline int gpu_pb_field(gpu_pb_t* pb, int* number, int* wire, uint64_t* value,
                               gpu_pb_t* sub) {
  uint64_t key;
  if (gpu_pb_varint(pb, &key)) return -1;
  *number = (int)(key >> 3);
  *wire = (int)(key & 7);
  switch (*wire) {
    case 0: return gpu_pb_varint(pb, value);
    case 1:
    case 5: {
      size_t n = *wire == 1 ? 8 : 4;
      if ((size_t)(pb->end - pb->at) < n) return -1;
      *value = 0;
      for (size_t i = 0; i < n; ++i) *value |= (uint64_t)pb->at[i] << 8 * i;
      pb->at += n;
      return 0;
    }
    case 2: {
      uint64_t length;
      if (gpu_pb_varint(pb, &length) || length > (uint64_t)(pb->end - pb->at)) return -1;
      sub->at = pb->at;
      sub->end = pb->at + length;
      pb->at += length;
      return 0;
    }
    default: return -1;
  }
}

static inline int gpu_parse_kernel(gpu_pb_t pb, gpu_call_t* call) {
  int number, wire;
  uint64_t value = 0;
  gpu_pb_t sub = {0, 0};
  while (pb.at < pb.end) {
    if (gpu_pb_field(&pb, &number, &wire, &value, &sub)) return -1;
    if (number == 1 && wire == 2) {
      size_t n = (size_t)(sub.end - sub.at);
      if (n >= sizeof(call->name)) n = sizeof(call->name) - 1;
      memcpy(call->name, sub.at, n);
      call->name[n] = '\0';
    } else if (number == 2 && wire == 0) {
      call->num_warps = (uint32_t)value;
    } else if (number == 3 && wire == 0) {
      call->shared_mem_bytes = (uint32_t)value;
    } else if (number == 4 && wire == 2) {
      call->ptx = (const char*)sub.at;
      call->ptx_size = (size_t)(sub.end - sub.at);
    } else if (number == 10 && wire == 0) {
      call->num_ctas = (uint32_t)value;
    }
  }
  return 0;
}

static inline int gpu_parse_param(gpu_pb_t pb, gpu_param_t* param) {
  int number, wire;
  uint64_t value = 0;
  gpu_pb_t sub = {0, 0};
  while (pb.at < pb.end) {
    if (gpu_pb_field(&pb, &number, &wire, &value, &sub)) return -1;
    if (number == 1 && wire == 2) {
      param->is_array = 1;
      while (sub.at < sub.end) {
        gpu_pb_t unused;
        if (gpu_pb_field(&sub, &number, &wire, &value, &unused)) return -1;
        if (number == 1) param->bytes_to_zero = value;
        if (number == 2) param->divisibility = value;
      }
    } else if (number >= 2 && number <= 8 && wire != 2) {
      param->is_array = 0;
      param->field = number;
      param->value = value;
    }
  }
  return 0;
}

/* Parses TritonAnyKernelCall.kernel_call (field 1): kernel (1), grid (2, 3, 4), parameters (5). */
static inline int gpu_parse_call(const void* data, size_t size, gpu_call_t* call) {
  memset(call, 0, sizeof(*call));
  call->num_ctas = 1;
  gpu_pb_t pb = {(const uint8_t*)data, (const uint8_t*)data + size};
  int number, wire, found = 0;
  uint64_t value = 0;
  gpu_pb_t kernel_call = {0, 0};
  while (pb.at < pb.end) {
    if (gpu_pb_field(&pb, &number, &wire, &value, &kernel_call)) return -1;
    if (number == 1 && wire == 2) {
      found = 1;
      break;
    }
  }
  if (!found) return -1;
  pb = kernel_call;
  gpu_pb_t sub = {0, 0};
  while (pb.at < pb.end) {
    if (gpu_pb_field(&pb, &number, &wire, &value, &sub)) return -1;
    if (number == 1 && wire == 2) {
      if (gpu_parse_kernel(sub, call)) return -1;
    } else if (number >= 2 && number <= 4 && wire == 0) {
      call->grid[number - 2] = (uint32_t)value;
    } else if (number == 5 && wire == 2) {
      if (call->param_count == GPU_MAX_PARAMS) return -1;
      if (gpu_parse_param(sub, &call->params[call->param_count++])) return -1;
    }
  }
  /* proto3 leaves zeros off the wire; an empty grid is not something these tests launch. */
  if (!call->grid[0] || !call->grid[1] || !call->grid[2]) return -1;
  return call->ptx && call->name[0] && call->num_warps ? 0 : -1;
}

#endif /* TKRT_TEST_GPU_GPU_COMMON_H_ */
