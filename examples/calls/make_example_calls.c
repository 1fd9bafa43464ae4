/* SPDX-License-Identifier: Apache-2.0 */
/* Writes the example case directories that `tkrt run` replays: serialized calls made with tkrt's
 * encoder that carry both a host image (tkrt's own image field) and CUDA PTX (jaxlib's ptx field),
 * so the same file runs on the CPU or on an NVIDIA GPU, plus their inputs and expected outputs.
 *   make_example_calls <out dir> <vector_add host image> <vector_add ptx>
 *                      <inplace host image> <inplace ptx> */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "tkrt/tkrt.h"
#include "tkrt/wire.h"

#define N 100003

static void* read_all(const char* path, size_t* size) {
  FILE* f = fopen(path, "rb");
  if (!f) return NULL;
  fseek(f, 0, SEEK_END);
  long n = ftell(f);
  fseek(f, 0, SEEK_SET);
  void* data = n > 0 ? malloc((size_t)n) : NULL;
  if (data && fread(data, 1, (size_t)n, f) != (size_t)n) {
    free(data);
    data = NULL;
  }
  fclose(f);
  *size = data ? (size_t)n : 0;
  return data;
}

static int write_all(const char* dir, const char* name, const void* data, size_t size) {
  char path[4096];
  snprintf(path, sizeof(path), "%s/%s", dir, name);
  FILE* f = fopen(path, "wb");
  if (!f) return 0;
  int ok = fwrite(data, 1, size, f) == size;
  return (fclose(f) == 0) && ok;
}

/* A kernel with two images: the host ELF and the PTX (for sm_80 and newer). */
static tkrt_status_t make_kernel(const char* name, uint32_t num_warps, const void* host,
                                 size_t host_size, const void* ptx, size_t ptx_size,
                                 tkrt_kernel_t** out) {
  tkrt_kernel_image_t images[2] = {
      {.backend = "cuda", .arch = "sm_80", .kind = TKRT_IMAGE_PTX, .data = ptx, .size = ptx_size,
       .origin = TKRT_IMAGE_ORIGIN_PTX_FIELD},
      {.backend = "host", .kind = TKRT_IMAGE_HOST, .data = host, .size = host_size}};
  tkrt_kernel_desc_t desc;
  tkrt_kernel_desc_init(&desc);
  desc.name = name;
  desc.num_warps = num_warps;
  desc.num_ctas = 1;
  desc.compute_capability = 80;
  desc.images = images;
  desc.image_count = 2;
  return tkrt_kernel_create(&desc, out);
}

static tkrt_status_t write_call(const char* dir, const tkrt_call_t* call) {
  tkrt_wire_encode_options_t options;
  tkrt_wire_encode_options_init(&options);
  void* bytes = NULL;
  size_t size = 0;
  TKRT_RETURN_IF_ERROR(tkrt_wire_encode(call, &options, &bytes, &size));
  int ok = write_all(dir, "call.pb.z", bytes, size);
  tkrt_wire_free(bytes);
  return ok ? NULL : TKRT_STATUS_MAKE(TKRT_STATUS_PERMISSION_DENIED, "cannot write %s/call.pb.z", dir);
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
  if (argc != 6) {
    fprintf(stderr, "usage: %s <out dir> <add host image> <add ptx> <inplace host image> "
                    "<inplace ptx>\n", argv[0]);
    return 2;
  }
  const char* out = argv[1];
  size_t sizes[4];
  void* files[4];
  for (int i = 0; i < 4; ++i) {
    files[i] = read_all(argv[2 + i], &sizes[i]);
    if (!files[i]) {
      fprintf(stderr, "cannot read %s\n", argv[2 + i]);
      return 1;
    }
  }
  float* x = malloc(N * sizeof(float));
  float* y = malloc(N * sizeof(float));
  float* sum = malloc(N * sizeof(float));
  for (int i = 0; i < N; ++i) {
    x[i] = (float)i * 0.37f - 1000.0f;
    y[i] = 1.0f / (float)(i + 3);
    sum[i] = x[i] + y[i];
  }
  tkrt_status_t status = NULL;
  tkrt_kernel_t* kernels[4] = {NULL};
  tkrt_call_t* calls[2] = {NULL};
  char dir[4096];
  mkdir(out, 0755);

  /* vector_add: a plain call, out0 = in0 + in1 (jaxlib's add_f32 vector, for any backend). */
  snprintf(dir, sizeof(dir), "%s/vector_add", out);
  mkdir(dir, 0755);
  status = make_kernel("vector_add", 4, files[0], sizes[0], files[1], sizes[1], &kernels[0]);
  if (!status) {
    tkrt_param_t params[] = {array16(), array16(), array16(), i32(N)};
    tkrt_config_desc_t config = {.kernel = kernels[0], .grid = {(N + 1023) / 1024, 1, 1},
                                 .params = params, .param_count = 4};
    tkrt_call_desc_t desc;
    tkrt_call_desc_init(&desc);
    desc.name = "vector_add";
    desc.configs = &config;
    desc.config_count = 1;
    status = tkrt_call_create(&desc, &calls[0]);
  }
  if (!status) status = write_call(dir, calls[0]);
  if (!status && !(write_all(dir, "in0.bin", x, N * 4) && write_all(dir, "in1.bin", y, N * 4) &&
                   write_all(dir, "out0.bin", sum, N * 4))) {
    status = TKRT_STATUS_MAKE(TKRT_STATUS_PERMISSION_DENIED, "cannot write into %s", dir);
  }

  /* autotuned_inplace: three configs with their own grids, in0 aliased to out0 (x += y in place);
   * autotuning must restore in0 so that out0 = in0 + in1 exactly once. */
  snprintf(dir, sizeof(dir), "%s/autotuned_inplace", out);
  mkdir(dir, 0755);
  static const char* names[3] = {"inplace_add_128", "inplace_add_512", "inplace_add_2048"};
  static const char* labels[3] = {"BLOCK: 128, num_warps: 4", "BLOCK: 512, num_warps: 4",
                                  "BLOCK: 2048, num_warps: 8"};
  static const uint32_t blocks[3] = {128, 512, 2048};
  tkrt_param_t params[] = {array16(), array16(), i32(N)};
  tkrt_config_desc_t configs[3];
  for (int c = 0; c < 3 && !status; ++c) {
    status = make_kernel(names[c], c == 2 ? 8 : 4, files[2], sizes[2], files[3], sizes[3],
                         &kernels[1 + c]);
    configs[c] = (tkrt_config_desc_t){.kernel = kernels[1 + c],
                                      .grid = {(N + blocks[c] - 1) / blocks[c], 1, 1},
                                      .params = params, .param_count = 3, .description = labels[c]};
  }
  if (!status) {
    tkrt_alias_t alias = {0, 0, N * 4};
    tkrt_call_desc_t desc;
    tkrt_call_desc_init(&desc);
    desc.name = "autotuned_inplace";
    desc.autotuned = true;
    desc.configs = configs;
    desc.config_count = 3;
    desc.aliases = &alias;
    desc.alias_count = 1;
    status = tkrt_call_create(&desc, &calls[1]);
  }
  if (!status) status = write_call(dir, calls[1]);
  if (!status && !(write_all(dir, "in0.bin", x, N * 4) && write_all(dir, "in1.bin", y, N * 4) &&
                   write_all(dir, "out0.bin", sum, N * 4))) {
    status = TKRT_STATUS_MAKE(TKRT_STATUS_PERMISSION_DENIED, "cannot write into %s", dir);
  }

  for (int i = 0; i < 2; ++i) tkrt_call_release(calls[i]);
  for (int i = 0; i < 4; ++i) tkrt_kernel_release(kernels[i]);
  for (int i = 0; i < 4; ++i) free(files[i]);
  free(x);
  free(y);
  free(sum);
  if (status) {
    char* text = tkrt_status_to_string(status);
    fprintf(stderr, "make_example_calls: %s\n", text);
    free(text);
    tkrt_status_free(status);
    return 1;
  }
  return 0;
}
