/* SPDX-License-Identifier: Apache-2.0 */
/* tkrt example: add two vectors with a compiled kernel on the best available backend (CUDA, then
 * HIP, then the host CPU), time it with device events, and verify every element. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tkrt/tkrt.h"

static int report(tkrt_status_t status) {
  char* text = tkrt_status_to_string(status);
  fprintf(stderr, "vector_add: %s\n", text ? text : "out of memory");
  free(text);
  tkrt_status_free(status);
  return 1;
}

static void* read_file(const char* path, size_t* out_size) {
  FILE* file = fopen(path, "rb");
  if (!file) return NULL;
  fseek(file, 0, SEEK_END);
  long size = ftell(file);
  fseek(file, 0, SEEK_SET);
  void* data = size > 0 ? malloc((size_t)size) : NULL;
  if (data && fread(data, 1, (size_t)size, file) != (size_t)size) {
    free(data);
    data = NULL;
  }
  fclose(file);
  *out_size = data ? (size_t)size : 0;
  return data;
}

static const char kUsage[] =
    "usage: vector_add [--backend cuda|hip|host] [--n N] [--image FILE]\n"
    "Adds two float vectors of N elements (default 1000003) with the vector_add kernel on the\n"
    "best available backend, or the one named (TKRT_BACKEND is honoured too), and checks the\n"
    "result bit for bit. Exit status: 0 verified, 1 error or mismatch, 2 bad usage.\n";

int main(int argc, char** argv) {
  const char* backend = NULL;
  const char* image_path = NULL;
  long n = 1000003;
  for (int i = 1; i < argc; ++i) {
    if (strcmp(argv[i], "--backend") == 0 && i + 1 < argc) {
      backend = argv[++i];
    } else if (strcmp(argv[i], "--n") == 0 && i + 1 < argc) {
      n = strtol(argv[++i], NULL, 10);
    } else if (strcmp(argv[i], "--image") == 0 && i + 1 < argc) {
      image_path = argv[++i];
    } else if (strcmp(argv[i], "--help") == 0 || strcmp(argv[i], "-h") == 0) {
      fputs(kUsage, stdout);
      return 0;
    } else {
      fputs(kUsage, stderr);
      return 2;
    }
  }
  if (n < 1 || n > (1L << 30)) {
    fprintf(stderr, "vector_add: --n must be in 1..2^30\n");
    return 2;
  }

  tkrt_device_options_t options;
  tkrt_device_options_init(&options);
  /* The TKRT_* variables (TKRT_BACKEND, TKRT_HOST_THREADS, TKRT_CACHE_DIR, ...), as tools read
   * them; a backend named on the command line wins. */
  tkrt_status_t env_status = tkrt_options_from_environment(&options, NULL);
  if (env_status) return report(env_status);
  if (backend && *backend) options.backend = backend;
  tkrt_device_t* device = NULL;
  tkrt_status_t status = tkrt_device_open(&options, &device);
  if (status) return report(status);
  const tkrt_device_info_t* info = tkrt_device_info(device);
  if (!image_path) {
    if (strcmp(info->backend, "host") == 0) image_path = TKRT_EXAMPLE_HOST_IMAGE;
    if (strcmp(info->backend, "cuda") == 0) image_path = TKRT_EXAMPLE_PTX;
  }
  if (!image_path) {
    fprintf(stderr, "vector_add: no kernel image for the %s backend; pass --image\n",
            info->backend);
    tkrt_device_release(device);
    return 1;
  }
  size_t image_size = 0;
  void* image_bytes = read_file(image_path, &image_size);
  if (!image_bytes) {
    fprintf(stderr, "vector_add: cannot read %s\n", image_path);
    tkrt_device_release(device);
    return 1;
  }

  const size_t bytes = (size_t)n * sizeof(float);
  float* x = malloc(bytes);
  float* y = malloc(bytes);
  float* out = malloc(bytes);
  tkrt_module_t* module = NULL;
  tkrt_function_t* function = NULL;
  tkrt_deviceptr_t dx = 0, dy = 0, dout = 0;
  tkrt_event_t start = NULL, end = NULL;
  int32_t count = (int32_t)n;
  void* params[] = {&dx, &dy, &dout, &count};
  tkrt_launch_params_t launch = {.grid = {(uint32_t)((n + 1023) / 1024), 1, 1},
                                 .block = {128, 1, 1}, .params = params, .param_count = 4};
  tkrt_image_t image = {.kind = TKRT_IMAGE_AUTO, .data = image_bytes, .size = image_size};
  float ms = 0;
  int result = 1;
  if (!x || !y || !out) {
    status = TKRT_STATUS_MAKE(TKRT_STATUS_RESOURCE_EXHAUSTED, "out of host memory");
    goto done;
  }
  for (long i = 0; i < n; ++i) {
    x[i] = (float)i * 0.5f;
    y[i] = 1.0f / (float)(i + 1);
  }
  if ((status = tkrt_module_load(device, &image, &module)) ||
      (status = tkrt_module_get_function(module, "vector_add", &function)) ||
      (status = tkrt_memory_alloc(device, bytes, &dx)) ||
      (status = tkrt_memory_alloc(device, bytes, &dy)) ||
      (status = tkrt_memory_alloc(device, bytes, &dout)) ||
      (status = tkrt_event_create(device, &start)) || (status = tkrt_event_create(device, &end)) ||
      (status = tkrt_memcpy_htod_async(device, dx, x, bytes, NULL)) ||
      (status = tkrt_memcpy_htod_async(device, dy, y, bytes, NULL)) ||
      (status = tkrt_event_record(device, start, NULL)) ||
      (status = tkrt_launch(function, &launch, NULL)) ||
      (status = tkrt_event_record(device, end, NULL)) ||
      (status = tkrt_memcpy_dtoh_async(device, out, dout, bytes, NULL)) ||
      (status = tkrt_stream_synchronize(device, NULL)) ||
      (status = tkrt_event_elapsed_ms(device, start, end, &ms))) {
    goto done;
  }
  long wrong = 0;
  for (long i = 0; i < n; ++i) {
    float expected = x[i] + y[i];
    wrong += memcmp(&out[i], &expected, sizeof(float)) != 0;
  }
  printf("backend %s, device %s (%s)\n", info->backend, info->name, info->arch);
  printf("vector_add of %ld floats: grid %u x block %u, kernel time %.3f ms\n", n,
         launch.grid[0], launch.block[0], ms);
  if (wrong) {
    printf("MISMATCH: %ld of %ld elements differ\n", wrong, n);
  } else {
    printf("verified: all %ld elements equal x + y bit for bit\n", n);
    result = 0;
  }

done:
  if (status) result = report(status);
  /* Teardown errors would hide the first one; they are reported only when all else went well. */
  tkrt_status_t cleanup = NULL;
  if (start) cleanup = tkrt_event_destroy(device, start);
  if (end && !cleanup) cleanup = tkrt_event_destroy(device, end);
  if (!cleanup) cleanup = tkrt_memory_free(device, dx);
  if (!cleanup) cleanup = tkrt_memory_free(device, dy);
  if (!cleanup) cleanup = tkrt_memory_free(device, dout);
  if (cleanup) result = result ? (tkrt_status_free(cleanup), result) : report(cleanup);
  tkrt_module_unload(module);
  tkrt_device_release(device);
  free(image_bytes);
  free(x);
  free(y);
  free(out);
  return result;
}
