/* SPDX-License-Identifier: Apache-2.0 */
/* Runs one jaxlib 0.11.2 test vector on the cuda backend the way jaxlib's runtime does (see
 * docs/jaxlib-compat §3) and compares every output with jaxlib's own result bit for bit.
 * Usage: gpu_vector_test <vector folder with call.pb, in*.bin, out*.bin>. Exit 77: no device. */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gpu_common.h"

enum { MAX_BUFFERS = 16 };

typedef struct buffer {
  void* host;     /* inputs: the data; outputs: jaxlib's expected result */
  size_t size;
  tkrt_deviceptr_t device;
} buffer_t;

static int load_buffers(const char* dir, const char* prefix, buffer_t* buffers, int* count) {
  for (int i = 0; *count < MAX_BUFFERS; ++i) {
    char path[1024];
    snprintf(path, sizeof(path), "%s/%s%d.bin", dir, prefix, i);
    size_t size = 0;
    void* data = gpu_read_file(path, &size);
    if (!data) return 0;
    buffers[*count].host = data;
    buffers[*count].size = size;
    ++*count;
  }
  return 0;
}

int main(int argc, char** argv) {
  if (argc != 2) {
    fprintf(stderr, "usage: %s <vector folder>\n", argv[0]);
    return 2;
  }
  const char* dir = argv[1];
  const char* case_name = strrchr(dir, '/') ? strrchr(dir, '/') + 1 : dir;
  int rc = 1;
  tkrt_device_t* device = NULL;
  tkrt_module_t* module = NULL;
  void* pb = NULL;
  buffer_t buffers[MAX_BUFFERS];
  memset(buffers, 0, sizeof(buffers));
  int inputs = 0, total = 0;
  char path[1024];
  snprintf(path, sizeof(path), "%s/call.pb", dir);
  size_t pb_size = 0;
  pb = gpu_read_file(path, &pb_size);
  gpu_call_t call;
  if (!pb || gpu_parse_call(pb, pb_size, &call) != 0) {
    fprintf(stderr, "FAILED: cannot read or parse %s\n", path);
    goto cleanup;
  }
  load_buffers(dir, "in", buffers, &total);
  inputs = total;
  load_buffers(dir, "out", buffers, &total);
  if (inputs == 0 || total == inputs) {
    fprintf(stderr, "FAILED: no in*.bin / out*.bin in %s\n", dir);
    goto cleanup;
  }

  device = gpu_open_cuda_or_skip();
  if (!device) {
    rc = GPU_SKIP;
    goto cleanup;
  }
  const tkrt_device_info_t* info = tkrt_device_info(device);
  printf("%s: kernel %s, grid %ux%ux%u, %u warps, num_ctas %u, %u B shared, %d params, %zu B PTX\n",
         case_name, call.name, call.grid[0], call.grid[1], call.grid[2], call.num_warps,
         call.num_ctas, call.shared_mem_bytes, call.param_count, call.ptx_size);

  tkrt_image_t image = {.kind = TKRT_IMAGE_PTX, .data = call.ptx, .size = call.ptx_size};
  double started = gpu_now_ms();
  if (gpu_failed("loading the PTX", tkrt_module_load(device, &image, &module))) goto cleanup;
  printf("%s: module loaded in %.1f ms\n", case_name, gpu_now_ms() - started);
  tkrt_function_t* function = NULL;
  if (gpu_failed("looking the kernel up", tkrt_module_get_function(module, call.name, &function))) {
    goto cleanup;
  }

  for (int i = 0; i < total; ++i) {
    if (gpu_failed("cuMemAlloc", tkrt_memory_alloc(device, buffers[i].size, &buffers[i].device))) {
      goto cleanup;
    }
    if (i < inputs) {
      if (gpu_failed("copy in", tkrt_memcpy_htod_async(device, buffers[i].device, buffers[i].host,
                                                       buffers[i].size, NULL))) {
        goto cleanup;
      }
    } else if (gpu_failed("poison output", tkrt_memset_async(device, buffers[i].device, 0xFF,
                                                             buffers[i].size, NULL))) {
      goto cleanup; /* NaN everywhere: an output the kernel misses cannot match by luck */
    }
  }

  /* Parameters as jaxlib packs them: array k takes buffer k, scalars their own value; then the
   * two hidden pointers (global scratch, profile scratch), both NULL here. */
  void* params[GPU_MAX_PARAMS + 2];
  uint64_t scalars[GPU_MAX_PARAMS];
  int32_t scalars32[GPU_MAX_PARAMS];
  uint64_t hidden[2] = {0, 0};
  int next_buffer = 0, count = 0;
  for (int i = 0; i < call.param_count; ++i) {
    const gpu_param_t* p = &call.params[i];
    if (p->is_array) {
      if (next_buffer >= total) {
        fprintf(stderr, "FAILED: more array parameters than buffers\n");
        goto cleanup;
      }
      buffer_t* b = &buffers[next_buffer++];
      if (p->divisibility && b->device % p->divisibility) {
        fprintf(stderr, "FAILED: parameter %d is not %" PRIu64 "-byte aligned\n", i,
                p->divisibility);
        goto cleanup;
      }
      if (p->bytes_to_zero &&
          gpu_failed("bytes_to_zero", tkrt_memset_async(device, b->device, 0,
                                                        (size_t)p->bytes_to_zero, NULL))) {
        goto cleanup;
      }
      params[count++] = &b->device;
    } else if (p->field == 3 || p->field == 4 || p->field == 2 || p->field == 7) {
      scalars32[i] = (int32_t)(uint32_t)p->value; /* i32, u32, bool, f32: 4 bytes */
      params[count++] = &scalars32[i];
    } else {
      scalars[i] = p->value; /* i64, u64, f64 */
      params[count++] = &scalars[i];
    }
  }
  params[count++] = &hidden[0];
  params[count++] = &hidden[1];

  tkrt_launch_params_t launch;
  memset(&launch, 0, sizeof(launch));
  launch.grid[0] = call.grid[0] * call.num_ctas;
  launch.grid[1] = call.grid[1];
  launch.grid[2] = call.grid[2];
  launch.block[0] = call.num_warps * info->warp_size;
  launch.block[1] = launch.block[2] = 1;
  if (call.num_ctas > 1) {
    launch.cluster[0] = call.num_ctas;
    launch.cluster[1] = launch.cluster[2] = 1;
    launch.flags = TKRT_LAUNCH_CLUSTER_SPREAD;
  }
  launch.shared_mem_bytes = call.shared_mem_bytes;
  launch.params = params;
  launch.param_count = (uint32_t)count;
  printf("%s: launch grid %ux%ux%u block %u cluster %ux%ux%u%s\n", case_name, launch.grid[0],
         launch.grid[1], launch.grid[2], launch.block[0], launch.cluster[0], launch.cluster[1],
         launch.cluster[2], launch.flags & TKRT_LAUNCH_CLUSTER_SPREAD ? " (spread)" : "");
  if (gpu_failed("launch", tkrt_launch(function, &launch, NULL))) goto cleanup;
  if (gpu_failed("synchronize", tkrt_stream_synchronize(device, NULL))) goto cleanup;

  int mismatched = 0;
  for (int i = inputs; i < total; ++i) {
    void* got = malloc(buffers[i].size);
    if (!got) goto cleanup;
    tkrt_status_t status =
        tkrt_memcpy_dtoh_async(device, got, buffers[i].device, buffers[i].size, NULL);
    if (!status) status = tkrt_stream_synchronize(device, NULL);
    if (gpu_failed("copy out", status)) {
      free(got);
      goto cleanup;
    }
    size_t differing = 0, first = (size_t)-1;
    const uint8_t* a = got;
    const uint8_t* b = buffers[i].host;
    for (size_t j = 0; j < buffers[i].size; ++j) {
      if (a[j] != b[j]) {
        if (first == (size_t)-1) first = j;
        ++differing;
      }
    }
    free(got);
    if (differing) {
      fprintf(stderr, "FAILED: out%d.bin: %zu of %zu bytes differ (first at byte %zu)\n",
              i - inputs, differing, buffers[i].size, first);
      mismatched = 1;
    } else {
      printf("%s: out%d.bin matches jaxlib bit for bit (%zu bytes)\n", case_name, i - inputs,
             buffers[i].size);
    }
  }
  rc = mismatched;

cleanup:
  for (int i = 0; i < total; ++i) {
    if (device && buffers[i].device) gpu_failed("free", tkrt_memory_free(device, buffers[i].device));
    free(buffers[i].host);
  }
  tkrt_module_unload(module);
  tkrt_device_release(device);
  free(pb);
  printf("%s: %s\n", case_name, rc == 0 ? "PASS" : rc == GPU_SKIP ? "SKIP" : "FAIL");
  return rc;
}
