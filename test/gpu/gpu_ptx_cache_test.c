/* SPDX-License-Identifier: Apache-2.0 */
/* The PTX cache on a real driver: a process loading PTX with an empty cache must JIT it, a second
 * process loading the same PTX must not. Prints cold and warm load times.
 *   gpu_ptx_cache_test <call.pb or .ptx> --expect miss|hit   one load in this process
 *   gpu_ptx_cache_test <call.pb or .ptx> --self              both, in two child processes, with
 *                                                            a fresh TKRT_CACHE_DIR
 * Exit 77: no CUDA device. Reads the backend's load counters (it links tkrt statically). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "backends/cuda/cuda_internal.h"
#include "gpu_common.h"

/* The PTX of a call.pb, or a .ptx file as is. Sets *out_ptx into *out_buffer (free that). */
static int read_ptx(const char* path, void** out_buffer, const char** out_ptx, size_t* out_size,
                    char* kernel, size_t kernel_capacity) {
  size_t size = 0;
  void* data = gpu_read_file(path, &size);
  if (!data) return -1;
  size_t length = strlen(path);
  if (length > 3 && strcmp(path + length - 3, ".pb") == 0) {
    gpu_call_t call;
    if (gpu_parse_call(data, size, &call) != 0) {
      free(data);
      return -1;
    }
    *out_ptx = call.ptx;
    *out_size = call.ptx_size;
    snprintf(kernel, kernel_capacity, "%s", call.name);
  } else {
    *out_ptx = data;
    *out_size = size;
    kernel[0] = '\0';
  }
  *out_buffer = data;
  return 0;
}

static int load_once(const char* path, const char* expect) {
  void* buffer = NULL;
  const char* ptx = NULL;
  size_t size = 0;
  char kernel[128];
  if (read_ptx(path, &buffer, &ptx, &size, kernel, sizeof(kernel)) != 0) {
    fprintf(stderr, "FAILED: cannot read PTX from %s\n", path);
    return 1;
  }
  double opened = gpu_now_ms();
  tkrt_device_t* device = gpu_open_cuda_or_skip();
  if (!device) {
    free(buffer);
    return GPU_SKIP;
  }
  opened = gpu_now_ms() - opened;
  tkrt_cuda_module_stats_t before, after;
  tkrt_cuda_module_stats(&before);
  tkrt_image_t image = {.kind = TKRT_IMAGE_PTX, .data = ptx, .size = size};
  tkrt_module_t* module = NULL;
  double started = gpu_now_ms();
  tkrt_status_t status = tkrt_module_load(device, &image, &module);
  double load_ms = gpu_now_ms() - started;
  int rc = gpu_failed("loading the PTX", status);
  if (!rc && kernel[0]) {
    tkrt_function_t* function = NULL;
    rc = gpu_failed("looking the kernel up", tkrt_module_get_function(module, kernel, &function));
  }
  tkrt_cuda_module_stats(&after);
  const unsigned long long jits = after.jit_compiles - before.jit_compiles;
  const unsigned long long hits = after.cache_hits - before.cache_hits;
  const char* got = hits == 1 && jits == 0 ? "hit" : jits == 1 && hits == 0 ? "miss" : "other";
  printf("ptx_cache: pid %d: %s, load %.2f ms (device open %.1f ms), jit %llu, cache hit %llu, "
         "miss %llu, corrupt %llu, write failures %llu\n",
         (int)getpid(), got, load_ms, opened, jits, hits,
         (unsigned long long)(after.cache_misses - before.cache_misses),
         (unsigned long long)(after.cache_corrupt - before.cache_corrupt),
         (unsigned long long)(after.cache_write_failures - before.cache_write_failures));
  if (!rc && expect && strcmp(expect, got) != 0) {
    fprintf(stderr, "FAILED: expected a cache %s, got %s\n", expect, got);
    rc = 1;
  }
  if (!rc && expect && strcmp(expect, "miss") == 0 &&
      after.cache_write_failures != before.cache_write_failures) {
    fprintf(stderr, "FAILED: the JIT result could not be stored\n");
    rc = 1;
  }
  tkrt_module_unload(module);
  tkrt_device_release(device);
  free(buffer);
  return rc;
}

/* Runs load_once in a child. The parent never touches the driver (CUDA does not survive fork). */
static int child(const char* path, const char* expect) {
  fflush(NULL);
  pid_t pid = fork();
  if (pid < 0) return 1;
  if (pid == 0) _exit(load_once(path, expect));
  int status = 0;
  if (waitpid(pid, &status, 0) != pid || !WIFEXITED(status)) return 1;
  return WEXITSTATUS(status);
}

int main(int argc, char** argv) {
  if (argc == 4 && strcmp(argv[2], "--expect") == 0) return load_once(argv[1], argv[3]);
  if (argc != 3 || strcmp(argv[2], "--self") != 0) {
    fprintf(stderr, "usage: %s <call.pb|file.ptx> --expect miss|hit | --self\n", argv[0]);
    return 2;
  }
  char dir[] = "/tmp/tkrt_ptx_cache_XXXXXX";
  if (!mkdtemp(dir)) {
    perror("mkdtemp");
    return 1;
  }
  setenv("TKRT_CACHE_DIR", dir, 1);
  int rc = child(argv[1], "miss");
  if (rc == 0) rc = child(argv[1], "hit");
  char command[128];
  snprintf(command, sizeof(command), "rm -rf '%s'", dir);
  if (system(command) != 0) fprintf(stderr, "could not remove %s\n", dir);
  printf("ptx_cache: %s\n", rc == 0 ? "PASS" : rc == GPU_SKIP ? "SKIP" : "FAIL");
  return rc;
}
