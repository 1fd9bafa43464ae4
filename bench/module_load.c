/* SPDX-License-Identifier: Apache-2.0 */
/* tkrt benchmarks: loading the matmul_autotuned kernels (Triton PTX) in a fresh process: cold, with
 * an empty TKRT_CACHE_DIR (PTX JIT), then warm, with the cubins that the first process cached. */
#include <dirent.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "bench/bench_main.h"

#define ML_MAX_CONFIGS 16

/* Child: loads every config's image through tkrt, then through the bare driver, and writes one
 * line per measurement to options->child_out. */
static int ml_child(const bench_options_t* o) {
  bench_cuda_t cu;
  memset(&cu, 0, sizeof(cu));
  tkrt_device_t* device = NULL;
  void* blob = NULL;
  size_t blob_size = 0;
  tkrt_call_t* call = NULL;
  FILE* out = fopen(o->child_out, "w");
  int rc = 1;
  if (!out) return 1;
  if (bench_cuda_load(&cu) || bench_device_open("cuda", &device) ||
      bench_vector_call(o, "matmul_autotuned", &blob, &blob_size, &call)) {
    goto done;
  }
  const tkrt_call_desc_t* desc = tkrt_call_get_desc(call);
  for (size_t i = 0; i < desc->config_count && i < ML_MAX_CONFIGS; ++i) {
    const tkrt_kernel_image_t* image = &tkrt_kernel_get_desc(desc->configs[i].kernel)->images[0];
    tkrt_image_t raw = {.kind = image->kind, .data = image->data, .size = image->size};
    tkrt_module_t* module = NULL;
    uint64_t start = bench_now_ns();
    if (bench_fail(tkrt_module_load(device, &raw, &module), "tkrt_module_load")) goto done;
    double tkrt_ms = (double)(bench_now_ns() - start) * 1e-6;
    tkrt_module_unload(module);
    /* The driver's own JIT on the same PTX: the cost every process pays without a cache. */
    char* ptx = malloc(image->size + 1);
    if (!ptx) goto done;
    memcpy(ptx, image->data, image->size);
    ptx[image->size] = '\0';
    void* raw_module = NULL;
    start = bench_now_ns();
    int failed = bench_cuda_check(&cu, cu.cuModuleLoadData(&raw_module, ptx), "cuModuleLoadData");
    double driver_ms = (double)(bench_now_ns() - start) * 1e-6;
    free(ptx);
    if (failed) goto done;
    cu.cuModuleUnload(raw_module);
    fprintf(out, "%zu %.4f %.4f %zu\n", i, tkrt_ms, driver_ms, image->size);
  }
  rc = 0;
done:
  if (fclose(out)) rc = 1;
  if (call) tkrt_call_release(call);
  free(blob);
  if (device) tkrt_device_release(device);
  return rc;
}

static int ml_count_entries(const char* dir) {
  char path[4200];
  snprintf(path, sizeof(path), "%s/cubin", dir);
  DIR* d = opendir(path);
  if (!d) return 0;
  int count = 0;
  for (struct dirent* e; (e = readdir(d));) count += strstr(e->d_name, ".cubin") != NULL;
  closedir(d);
  return count;
}

typedef struct ml_row {
  double tkrt_ms, driver_ms;
  size_t bytes;
} ml_row_t;

static int ml_read(const char* path, ml_row_t* rows, size_t* count) {
  FILE* f = fopen(path, "r");
  if (!f) return -1;
  size_t index, bytes;
  double t, d;
  *count = 0;
  while (fscanf(f, "%zu %lf %lf %zu", &index, &t, &d, &bytes) == 4 && index < ML_MAX_CONFIGS) {
    rows[index].tkrt_ms = t;
    rows[index].driver_ms = d;
    rows[index].bytes = bytes;
    if (index + 1 > *count) *count = index + 1;
  }
  fclose(f);
  return *count ? 0 : -1;
}

int bench_module_load(const bench_options_t* o) {
  if (o->child) return ml_child(o);
  if (strcmp(o->backend, "cuda") != 0) {
    fprintf(stderr, "bench: module-load measures the CUDA PTX cache; use --backend cuda\n");
    return 77;
  }
  char dir[] = "/tmp/tkrt_bench_cache.XXXXXX";
  if (!mkdtemp(dir)) return 1;
  char cache_env[4200], result_cold[4200], result_warm[4200];
  snprintf(cache_env, sizeof(cache_env), "TKRT_CACHE_DIR=%s", dir);
  snprintf(result_cold, sizeof(result_cold), "%s/cold.txt", dir);
  snprintf(result_warm, sizeof(result_warm), "%s/warm.txt", dir);
  /* CUDA_CACHE_DISABLE: the driver's own JIT cache would otherwise make "cold" warm. */
  char* env[] = {cache_env, "CUDA_CACHE_DISABLE=1", NULL};
  char* cold_args[] = {"module-load", "--vectors", (char*)o->vectors, "--child", "cold",
                       "--child-out", result_cold, NULL};
  char* warm_args[] = {"module-load", "--vectors", (char*)o->vectors, "--child", "warm",
                       "--child-out", result_warm, NULL};
  ml_row_t cold[ML_MAX_CONFIGS], warm[ML_MAX_CONFIGS];
  size_t cold_n = 0, warm_n = 0;
  int rc = 1;
  int entries = 0;
  bench_json_t json;
  if (bench_json_open(&json, o->json_path)) return 1;
  if (bench_spawn_self(o, cold_args, env) != 0 || ml_read(result_cold, cold, &cold_n)) {
    fprintf(stderr, "bench: the cold process failed\n");
    goto done;
  }
  entries = ml_count_entries(dir);
  if (bench_spawn_self(o, warm_args, env) != 0 || ml_read(result_warm, warm, &warm_n) ||
      warm_n != cold_n) {
    fprintf(stderr, "bench: the warm process failed\n");
    goto done;
  }
  printf("\nmodule load: matmul_autotuned kernels (Triton PTX for sm_90a), one process each,\n"
         "TKRT_CACHE_DIR fresh (cold: PTX JIT, %d cubins written) then reused (warm); driver JIT\n"
         "cache off (CUDA_CACHE_DISABLE=1); ms per tkrt_module_load\n", entries);
  printf("%-8s %10s %12s %12s %10s %18s\n", "config", "PTX bytes", "cold ms", "warm ms",
         "cold/warm", "driver JIT ms");
  double total_cold = 0, total_warm = 0, total_driver = 0;
  for (size_t i = 0; i < cold_n; ++i) {
    char ratio[32];
    printf("%-8zu %10zu %12.2f %12.2f %10s %18.2f\n", i, cold[i].bytes, cold[i].tkrt_ms,
           warm[i].tkrt_ms, bench_ratio(ratio, sizeof(ratio), cold[i].tkrt_ms, warm[i].tkrt_ms),
           cold[i].driver_ms);
    total_cold += cold[i].tkrt_ms;
    total_warm += warm[i].tkrt_ms;
    total_driver += cold[i].driver_ms;
  }
  char ratio[32];
  printf("%-8s %10s %12.2f %12.2f %10s %18.2f\n", "all", "", total_cold, total_warm,
         bench_ratio(ratio, sizeof(ratio), total_cold, total_warm), total_driver);

  bench_json_begin_object(&json, NULL);
  bench_json_header(&json, "module_load", o, NULL);
  bench_json_string(&json, "vector", "matmul_autotuned");
  bench_json_string(&json, "unit", "ms per tkrt_module_load, one process per column");
  bench_json_int(&json, "cubins_cached_by_cold_process", entries);
  bench_json_begin_array(&json, "configs");
  for (size_t i = 0; i < cold_n; ++i) {
    bench_json_begin_object(&json, NULL);
    bench_json_int(&json, "config", (long long)i);
    bench_json_int(&json, "ptx_bytes", (long long)cold[i].bytes);
    bench_json_number(&json, "cold_ms", cold[i].tkrt_ms);
    bench_json_number(&json, "warm_ms", warm[i].tkrt_ms);
    bench_json_number(&json, "cold_over_warm", cold[i].tkrt_ms / warm[i].tkrt_ms);
    bench_json_number(&json, "driver_jit_ms_cold_process", cold[i].driver_ms);
    bench_json_number(&json, "driver_jit_ms_warm_process", warm[i].driver_ms);
    bench_json_end_object(&json);
  }
  bench_json_end_array(&json);
  bench_json_number(&json, "total_cold_ms", total_cold);
  bench_json_number(&json, "total_warm_ms", total_warm);
  bench_json_number(&json, "total_driver_jit_ms", total_driver);
  bench_json_end_object(&json);
  rc = 0;
done:
  if (bench_json_close(&json)) rc = 1;
  char command[4300];
  snprintf(command, sizeof(command), "rm -rf '%s'", dir);
  if (system(command) != 0) fprintf(stderr, "bench: could not remove %s\n", dir);
  return rc;
}
