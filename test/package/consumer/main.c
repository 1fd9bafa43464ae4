/* SPDX-License-Identifier: Apache-2.0 */
/* Consumer of an installed tkrt: opens the host backend, launches a kernel, checks its output. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <tkrt/tkrt.h>

static int fail(tkrt_status_t status) {
  char* text = tkrt_status_to_string(status);
  fprintf(stderr, "consumer: %s\n", text);
  free(text);
  tkrt_status_free(status);
  return 1;
}

int main(int argc, char** argv) {
  if (argc < 2) return 2;
  /* The library found is the one the installed headers describe. */
  if (!tkrt_version_matches_headers() || strcmp(tkrt_version(), TKRT_VERSION_STRING) != 0 ||
      tkrt_version_number() != TKRT_VERSION_NUMBER) {
    fprintf(stderr, "consumer: library %s (%u), headers %s (%u)\n", tkrt_version(),
            (unsigned)tkrt_version_number(), TKRT_VERSION_STRING, (unsigned)TKRT_VERSION_NUMBER);
    return 1;
  }
  FILE* file = fopen(argv[1], "rb");
  if (!file) return 2;
  static unsigned char image_bytes[1 << 20];
  size_t size = fread(image_bytes, 1, sizeof(image_bytes), file);
  fclose(file);
  tkrt_device_options_t options;
  tkrt_device_options_init(&options);
  options.backend = "host";
  tkrt_device_t* device = NULL;
  tkrt_status_t status = tkrt_device_open(&options, &device);
  if (status) return fail(status);
  tkrt_image_t image = {.kind = TKRT_IMAGE_AUTO, .data = image_bytes, .size = size};
  tkrt_module_t* module = NULL;
  tkrt_function_t* function = NULL;
  tkrt_deviceptr_t out = 0;
  int32_t n = 1000, host[1000];
  void* params[] = {&out, &n};
  tkrt_launch_params_t launch = {.grid = {4, 1, 1}, .block = {128, 1, 1}, .params = params,
                                 .param_count = 2};
  if ((status = tkrt_module_load(device, &image, &module)) ||
      (status = tkrt_module_get_function(module, "triple_index", &function)) ||
      (status = tkrt_memory_alloc(device, sizeof(host), &out)) ||
      (status = tkrt_launch(function, &launch, NULL)) ||
      (status = tkrt_memcpy_dtoh_async(device, host, out, sizeof(host), NULL)) ||
      (status = tkrt_stream_synchronize(device, NULL)) ||
      (status = tkrt_memory_free(device, out))) {
    return fail(status);
  }
  for (int32_t i = 0; i < n; ++i) {
    if (host[i] != 3 * i) {
      fprintf(stderr, "consumer: out[%d] = %d, expected %d\n", i, host[i], 3 * i);
      return 1;
    }
  }
  printf("consumer: tkrt %s, kernel ran on %s, output verified\n", TKRT_VERSION_STRING,
         tkrt_device_info(device)->name);
  tkrt_module_unload(module);
  tkrt_device_release(device);
  return 0;
}
