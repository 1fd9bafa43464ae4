/* SPDX-License-Identifier: Apache-2.0 */
/* tkrt example: run Triton's add_kernel straight from Triton's compile output (metadata JSON,
 * cubin / PTX / HSACO, TTIR) on whatever backend is present, with no Python and no Triton. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tkrt/tkrt.h"

#define MAX_PATHS 16

static int report(tkrt_status_t status) {
  fflush(stdout); /* what was printed so far comes before the error */
  char* text = tkrt_status_to_string(status);
  fprintf(stderr, "triton_add: %s\n", text ? text : "out of memory");
  free(text);
  tkrt_status_free(status);
  return 1;
}

static const char kUsage[] =
    "usage: triton_add [--backend cuda|hip|host] [--n N] [--kernel DIR|JSON]... [--allow-native-code]\n"
    "Loads Triton's add_kernel(x_ptr, y_ptr, out_ptr, n; BLOCK=1024) from Triton's output (by\n"
    "default the folder assembled at build time: Triton 3.6's sm_90 cubin and PTX, gfx942 and gfx90a\n"
    "HSACO, and a host build of the same kernel beside them), adds two float vectors of N elements\n"
    "(default 1000003) on the best available backend or the one named, with the grid\n"
    "cdiv(n, BLOCK), and checks the result bit for bit. The host image (add_kernel.so) is native\n"
    "code and is taken only with --allow-native-code; without it the host backend has no image.\n"
    "Exit status: 0 verified, 1 error or mismatch, 2 bad usage.\n";

int main(int argc, char** argv) {
  const char* backend = NULL;
  const char* paths[MAX_PATHS];
  size_t path_count = 0;
  long n = 1000003;
  bool allow_native_code = false;
  for (int i = 1; i < argc; ++i) {
    if (strcmp(argv[i], "--backend") == 0 && i + 1 < argc) {
      backend = argv[++i];
    } else if (strcmp(argv[i], "--n") == 0 && i + 1 < argc) {
      n = strtol(argv[++i], NULL, 10);
    } else if (strcmp(argv[i], "--kernel") == 0 && i + 1 < argc && path_count < MAX_PATHS) {
      paths[path_count++] = argv[++i];
    } else if (strcmp(argv[i], "--allow-native-code") == 0) {
      allow_native_code = true;
    } else if (strcmp(argv[i], "--help") == 0 || strcmp(argv[i], "-h") == 0) {
      fputs(kUsage, stdout);
      return 0;
    } else {
      fputs(kUsage, stderr);
      return 2;
    }
  }
  if (n < 1 || n > (1L << 30)) {
    fprintf(stderr, "triton_add: --n must be in 1..2^30\n");
    return 2;
  }
  if (path_count == 0) paths[path_count++] = TKRT_EXAMPLE_TRITON_DIR;

  /* The kernel: every target's image, its launch metadata and its parameter list. A host image
   * beside them is native code: taken only when the user says the folder is trusted. */
  tkrt_triton_load_options_t load;
  tkrt_triton_load_options_init(&load);
  load.allow_native_code = allow_native_code;
  tkrt_triton_kernel_t* kernel = NULL;
  tkrt_status_t status = tkrt_triton_kernel_load(paths, path_count, &load, &kernel);
  if (status) return report(status);
  printf("kernel %s:", tkrt_triton_kernel_name(kernel));
  for (size_t i = 0; i < tkrt_triton_kernel_param_count(kernel); ++i) {
    const tkrt_triton_param_t* p = tkrt_triton_kernel_param(kernel, i);
    printf("%s %s: %s", i ? "," : "", p->name, p->type);
  }
  printf("\n");
  const tkrt_kernel_desc_t* desc = tkrt_kernel_get_desc(tkrt_triton_kernel_get(kernel));
  for (size_t i = 0; i < desc->image_count; ++i) {
    printf("  image: %s %s%s%s\n", tkrt_kernel_image_backend(&desc->images[i]),
           tkrt_image_kind_name(desc->images[i].kind), desc->images[i].arch ? " for " : "",
           desc->images[i].arch ? desc->images[i].arch : "");
  }
  for (size_t i = 0; i < tkrt_triton_kernel_target_count(kernel); ++i) {
    const char* left_out = tkrt_triton_kernel_target(kernel, i)->native_code_left_out;
    if (left_out) printf("  left out: %s (native code; --allow-native-code takes it)\n", left_out);
  }

  /* The call: n by name, the grid from Triton's own formula for this kernel. */
  tkrt_triton_scalar_t count = {"n", false, n, 0.0};
  tkrt_triton_variant_t variant = {kernel, "cdiv(n, BLOCK)", {0, 0, 0}, "BLOCK=1024", NULL};
  tkrt_triton_call_desc_t call_desc;
  tkrt_triton_call_desc_init(&call_desc);
  call_desc.variants = &variant;
  call_desc.variant_count = 1;
  call_desc.scalars = &count;
  call_desc.scalar_count = 1;
  tkrt_call_t* call = NULL;
  status = tkrt_triton_call_create(&call_desc, &call);
  tkrt_triton_kernel_release(kernel); /* the call keeps what it needs */
  if (status) return report(status);

  tkrt_device_options_t options;
  tkrt_device_options_init(&options);
  /* The TKRT_* variables (TKRT_BACKEND, TKRT_HOST_THREADS, TKRT_CACHE_DIR, ...), as tools read
   * them; a backend named on the command line wins. */
  tkrt_status_t env_status = tkrt_options_from_environment(&options, NULL);
  if (env_status) return report(env_status);
  if (backend && *backend) options.backend = backend;
  tkrt_device_t* device = NULL;
  status = tkrt_device_open(&options, &device);
  if (status) {
    tkrt_call_release(call);
    return report(status);
  }
  const tkrt_device_info_t* info = tkrt_device_info(device);

  const size_t bytes = (size_t)n * sizeof(float);
  float* x = malloc(bytes);
  float* y = malloc(bytes);
  float* out = malloc(bytes);
  tkrt_deviceptr_t dx = 0, dy = 0, dout = 0;
  tkrt_event_t start = NULL, end = NULL;
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
  if ((status = tkrt_call_prepare(call, device)) ||
      (status = tkrt_memory_alloc(device, bytes, &dx)) ||
      (status = tkrt_memory_alloc(device, bytes, &dy)) ||
      (status = tkrt_memory_alloc(device, bytes, &dout)) ||
      (status = tkrt_event_create(device, &start)) || (status = tkrt_event_create(device, &end)) ||
      (status = tkrt_memcpy_htod_async(device, dx, x, bytes, NULL)) ||
      (status = tkrt_memcpy_htod_async(device, dy, y, bytes, NULL))) {
    goto done;
  }
  tkrt_buffer_t buffers[3] = {{dx, bytes}, {dy, bytes}, {dout, bytes}};
  if ((status = tkrt_event_record(device, start, NULL)) ||
      (status = tkrt_triton_call_launch(call, device, NULL, buffers, 3, NULL)) ||
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
  printf("add_kernel on %ld floats: grid %u, kernel time %.3f ms\n", n,
         tkrt_call_get_desc(call)->configs[0].grid[0], ms);
  if (wrong) {
    printf("MISMATCH: %ld of %ld elements differ\n", wrong, n);
  } else {
    printf("verified: all %ld elements equal x + y bit for bit\n", n);
    result = 0;
  }

done:
  if (status) result = report(status);
  tkrt_status_t cleanup = NULL;
  if (start) cleanup = tkrt_event_destroy(device, start);
  if (end && !cleanup) cleanup = tkrt_event_destroy(device, end);
  if (dx && !cleanup) cleanup = tkrt_memory_free(device, dx);
  if (dy && !cleanup) cleanup = tkrt_memory_free(device, dy);
  if (dout && !cleanup) cleanup = tkrt_memory_free(device, dout);
  if (cleanup && result == 0) result = report(cleanup);
  else tkrt_status_free(cleanup);
  free(x);
  free(y);
  free(out);
  tkrt_call_release(call);
  tkrt_device_release(device);
  return result;
}
