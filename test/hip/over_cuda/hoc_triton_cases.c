/* SPDX-License-Identifier: Apache-2.0 */
/* Writes `tkrt run` case folders for Triton 3.6's add and matmul kernels as HIP calls (their real
 * HSACO, packed with the sm_90 cubin of the same kernel): call.pb.z, in0.bin, in1.bin and the
 * expected out0.bin, computed here. The inputs are chosen so that every sum is exact, so the GPU's
 * result must match bit for bit (matmul: fp16 values in steps of 1/8, fp32 accumulation).
 * Usage: hoc_triton_cases OUT_DIR add|matmul PACKED.hsaco ARCH SHARED_BYTES */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "tkrt/tkrt.h"

#define ADD_N 98432 /* 96 blocks of 1024 and a partial one: the mask matters */
#define MM_M 128
#define MM_N 256
#define MM_K 128

static void* read_all(const char* path, size_t* out_size) {
  FILE* f = fopen(path, "rb");
  if (!f) return NULL;
  fseek(f, 0, SEEK_END);
  long size = ftell(f);
  fseek(f, 0, SEEK_SET);
  void* data = size > 0 ? malloc((size_t)size) : NULL;
  if (data && fread(data, 1, (size_t)size, f) != (size_t)size) {
    free(data);
    data = NULL;
  }
  fclose(f);
  if (data) *out_size = (size_t)size;
  return data;
}

static int write_all(const char* dir, const char* name, const void* data, size_t size) {
  char path[4096];
  snprintf(path, sizeof(path), "%s/%s", dir, name);
  FILE* f = fopen(path, "wb");
  if (!f) return 0;
  int ok = fwrite(data, 1, size, f) == size;
  return fclose(f) == 0 && ok;
}

/* IEEE half <-> float for the normal and zero values used here (round to nearest even). */
static uint16_t half_from_float(float value) {
  uint32_t bits;
  memcpy(&bits, &value, 4);
  uint32_t sign = (bits >> 16) & 0x8000u;
  int32_t exponent = (int32_t)((bits >> 23) & 0xff) - 127 + 15;
  uint32_t mantissa = bits & 0x7fffffu;
  if ((bits & 0x7fffffffu) == 0) return (uint16_t)sign;
  if (exponent <= 0 || exponent >= 31) abort(); /* outside what these cases produce */
  uint32_t half = sign | (uint32_t)exponent << 10 | mantissa >> 13;
  uint32_t rest = mantissa & 0x1fffu;
  if (rest > 0x1000u || (rest == 0x1000u && (half & 1u))) ++half;
  return (uint16_t)half;
}

static float float_from_half(uint16_t half) {
  uint32_t sign = (uint32_t)(half & 0x8000u) << 16;
  uint32_t exponent = (half >> 10) & 0x1f;
  uint32_t mantissa = half & 0x3ffu;
  uint32_t bits = exponent == 0 ? sign : sign | (exponent - 15 + 127) << 23 | mantissa << 13;
  float value;
  memcpy(&value, &bits, 4);
  return value;
}

static tkrt_param_t array16(void) {
  tkrt_param_t p = {.kind = TKRT_PARAM_ARRAY};
  p.value.array.ptr_divisibility = 16;
  return p;
}

static tkrt_param_t i32(int32_t v) {
  tkrt_param_t p = {.kind = TKRT_PARAM_I32};
  p.value.i32 = v;
  return p;
}

int main(int argc, char** argv) {
  if (argc != 6 || (strcmp(argv[2], "add") != 0 && strcmp(argv[2], "matmul") != 0)) {
    fprintf(stderr, "usage: %s OUT_DIR add|matmul PACKED.hsaco ARCH SHARED_BYTES\n", argv[0]);
    return 2;
  }
  const char* dir = argv[1];
  bool add = strcmp(argv[2], "add") == 0;
  size_t image_size = 0;
  void* image = read_all(argv[3], &image_size);
  if (!image) {
    fprintf(stderr, "cannot read %s\n", argv[3]);
    return 1;
  }
  mkdir(dir, 0755);
  tkrt_kernel_image_t kernel_image = {.backend = "hip", .arch = argv[4],
                                      .kind = TKRT_IMAGE_HSACO, .data = image,
                                      .size = image_size};
  tkrt_kernel_desc_t kernel_desc;
  tkrt_kernel_desc_init(&kernel_desc);
  kernel_desc.name = add ? "add_kernel" : "matmul_kernel";
  kernel_desc.num_warps = 4;
  kernel_desc.num_ctas = 1;
  kernel_desc.shared_mem_bytes = (uint32_t)strtoul(argv[5], NULL, 10);
  kernel_desc.images = &kernel_image;
  kernel_desc.image_count = 1;
  tkrt_kernel_t* kernel = NULL;
  tkrt_call_t* call = NULL;
  void* bytes = NULL;
  size_t size = 0;
  tkrt_status_t status = tkrt_kernel_create(&kernel_desc, &kernel);
  tkrt_param_t params[6] = {array16(), array16(), array16()};
  if (add) {
    params[3] = i32(ADD_N);
  } else {
    params[3] = i32(MM_M);
    params[4] = i32(MM_N);
    params[5] = i32(MM_K);
  }
  if (!status) {
    tkrt_config_desc_t config = {
        .kernel = kernel,
        .grid = {add ? (ADD_N + 1023) / 1024 : MM_M / 64, add ? 1 : MM_N / 128, 1},
        .params = params, .param_count = add ? 4 : 6};
    tkrt_call_desc_t desc;
    tkrt_call_desc_init(&desc);
    desc.name = kernel_desc.name;
    desc.configs = &config;
    desc.config_count = 1;
    status = tkrt_call_create(&desc, &call);
  }
  if (!status) {
    tkrt_wire_encode_options_t options;
    tkrt_wire_encode_options_init(&options);
    status = tkrt_wire_encode(call, &options, &bytes, &size);
  }
  int ok = !status && write_all(dir, "call.pb.z", bytes, size);
  if (ok && add) {
    float* x = malloc(ADD_N * 4);
    float* y = malloc(ADD_N * 4);
    float* out = malloc(ADD_N * 4);
    for (int i = 0; i < ADD_N; ++i) {
      x[i] = (float)i * 0.37f - 1000.0f;
      y[i] = 1.0f / (float)(i + 3);
      out[i] = x[i] + y[i];
    }
    ok = write_all(dir, "in0.bin", x, ADD_N * 4) && write_all(dir, "in1.bin", y, ADD_N * 4) &&
         write_all(dir, "out0.bin", out, ADD_N * 4);
    free(x);
    free(y);
    free(out);
  } else if (ok) {
    uint16_t* a = malloc(MM_M * MM_K * 2);
    uint16_t* b = malloc(MM_K * MM_N * 2);
    uint16_t* c = malloc(MM_M * MM_N * 2);
    for (int i = 0; i < MM_M * MM_K; ++i) a[i] = half_from_float((float)((i * 7) % 17 - 8) / 8);
    for (int i = 0; i < MM_K * MM_N; ++i) b[i] = half_from_float((float)((i * 5) % 13 - 6) / 8);
    for (int m = 0; m < MM_M; ++m) {
      for (int n = 0; n < MM_N; ++n) {
        float acc = 0; /* exact: products are multiples of 1/64, sums stay below 2^10 */
        for (int k = 0; k < MM_K; ++k) {
          acc += float_from_half(a[m * MM_K + k]) * float_from_half(b[k * MM_N + n]);
        }
        c[m * MM_N + n] = half_from_float(acc);
      }
    }
    ok = write_all(dir, "in0.bin", a, MM_M * MM_K * 2) &&
         write_all(dir, "in1.bin", b, MM_K * MM_N * 2) &&
         write_all(dir, "out0.bin", c, MM_M * MM_N * 2);
    free(a);
    free(b);
    free(c);
  }
  if (status) {
    char* text = tkrt_status_to_string(status);
    fprintf(stderr, "%s: %s\n", argv[0], text ? text : "out of memory");
    free(text);
    tkrt_status_free(status);
  } else if (!ok) {
    fprintf(stderr, "%s: cannot write into %s\n", argv[0], dir);
  }
  tkrt_wire_free(bytes);
  tkrt_call_release(call);
  tkrt_kernel_release(kernel);
  free(image);
  return ok ? 0 : 1;
}
