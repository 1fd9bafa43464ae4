/* SPDX-License-Identifier: Apache-2.0 */
/* tkrt benchmarks: shared helpers (clocks, statistics, JSON, the CUDA driver, the calls under
 * test, spawning child processes for the cross-process measurements). */
#include "bench/bench_util.h"

#include <dlfcn.h>
#include <math.h>
#include <spawn.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>

extern char** environ;

/* ---------------------------------------------------------------- clocks and statistics */

uint64_t bench_now_ns(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

static int bench_compare_doubles(const void* a, const void* b) {
  double x = *(const double*)a, y = *(const double*)b;
  return x < y ? -1 : x > y ? 1 : 0;
}

/* Linear interpolation between order statistics (q in [0, 1]). */
static double bench_quantile(const double* sorted, size_t count, double q) {
  double position = q * (double)(count - 1);
  size_t low = (size_t)position;
  size_t high = low + 1 < count ? low + 1 : low;
  double weight = position - (double)low;
  return sorted[low] * (1.0 - weight) + sorted[high] * weight;
}

bench_stats_t bench_stats(const double* samples, size_t count) {
  bench_stats_t stats = {NAN, NAN, NAN, NAN, NAN, count};
  if (count == 0) return stats;
  double* sorted = malloc(count * sizeof(*sorted));
  if (!sorted) return stats;
  memcpy(sorted, samples, count * sizeof(*sorted));
  qsort(sorted, count, sizeof(*sorted), bench_compare_doubles);
  stats.median = bench_quantile(sorted, count, 0.5);
  stats.p10 = bench_quantile(sorted, count, 0.1);
  stats.p90 = bench_quantile(sorted, count, 0.9);
  stats.min = sorted[0];
  stats.max = sorted[count - 1];
  free(sorted);
  return stats;
}

const char* bench_ratio(char* buffer, size_t capacity, double value, double base) {
  if (!(value == value) || !(base > 0)) {
    snprintf(buffer, capacity, "-");
  } else {
    snprintf(buffer, capacity, "%.2f", value / base);
  }
  return buffer;
}

/* ---------------------------------------------------------------- JSON */

int bench_json_open(bench_json_t* json, const char* path) {
  memset(json, 0, sizeof(*json));
  if (!path) return 0;
  json->file = fopen(path, "w");
  if (!json->file) {
    fprintf(stderr, "bench: cannot write %s\n", path);
    return -1;
  }
  return 0;
}

int bench_json_close(bench_json_t* json) {
  if (!json->file) return 0;
  fputc('\n', json->file);
  int failed = ferror(json->file);
  failed |= fclose(json->file);
  json->file = NULL;
  return failed ? -1 : 0;
}

static void bench_json_escaped(FILE* file, const char* text) {
  fputc('"', file);
  for (const unsigned char* p = (const unsigned char*)text; *p; ++p) {
    if (*p == '"' || *p == '\\') {
      fputc('\\', file);
      fputc(*p, file);
    } else if (*p < 0x20) {
      fprintf(file, "\\u%04x", *p);
    } else {
      fputc(*p, file);
    }
  }
  fputc('"', file);
}

/* Separator and key of the next member. */
static void bench_json_key(bench_json_t* json, const char* key) {
  if (json->need_comma[json->depth]) fputc(',', json->file);
  json->need_comma[json->depth] = true;
  fputc('\n', json->file);
  for (int i = 0; i < json->depth; ++i) fputs("  ", json->file);
  if (key) {
    bench_json_escaped(json->file, key);
    fputs(": ", json->file);
  }
}

static void bench_json_open_scope(bench_json_t* json, const char* key, char bracket) {
  if (!json->file) return;
  if (json->depth > 0) bench_json_key(json, key);
  fputc(bracket, json->file);
  if (json->depth + 1 < (int)(sizeof(json->need_comma) / sizeof(json->need_comma[0]))) {
    json->depth++;
  }
  json->need_comma[json->depth] = false;
}

static void bench_json_close_scope(bench_json_t* json, char bracket) {
  if (!json->file) return;
  bool had_members = json->need_comma[json->depth];
  json->depth--;
  if (had_members) {
    fputc('\n', json->file);
    for (int i = 0; i < json->depth; ++i) fputs("  ", json->file);
  }
  fputc(bracket, json->file);
}

void bench_json_begin_object(bench_json_t* json, const char* key) {
  bench_json_open_scope(json, key, '{');
}
void bench_json_end_object(bench_json_t* json) { bench_json_close_scope(json, '}'); }
void bench_json_begin_array(bench_json_t* json, const char* key) {
  bench_json_open_scope(json, key, '[');
}
void bench_json_end_array(bench_json_t* json) { bench_json_close_scope(json, ']'); }

void bench_json_string(bench_json_t* json, const char* key, const char* value) {
  if (!json->file) return;
  bench_json_key(json, key);
  if (value) {
    bench_json_escaped(json->file, value);
  } else {
    fputs("null", json->file);
  }
}

void bench_json_number(bench_json_t* json, const char* key, double value) {
  if (!json->file) return;
  bench_json_key(json, key);
  if (isfinite(value)) {
    fprintf(json->file, "%.6g", value);
  } else {
    fputs("null", json->file); /* JSON has no NaN or infinity */
  }
}

void bench_json_int(bench_json_t* json, const char* key, long long value) {
  if (!json->file) return;
  bench_json_key(json, key);
  fprintf(json->file, "%lld", value);
}

void bench_json_bool(bench_json_t* json, const char* key, bool value) {
  if (!json->file) return;
  bench_json_key(json, key);
  fputs(value ? "true" : "false", json->file);
}

void bench_json_stats(bench_json_t* json, const char* key, const bench_stats_t* stats) {
  bench_json_begin_object(json, key);
  bench_json_number(json, "median", stats->median);
  bench_json_number(json, "p10", stats->p10);
  bench_json_number(json, "p90", stats->p90);
  bench_json_number(json, "min", stats->min);
  bench_json_number(json, "max", stats->max);
  bench_json_int(json, "samples", (long long)stats->count);
  bench_json_end_object(json);
}

void bench_json_header(bench_json_t* json, const char* bench, const bench_options_t* options,
                       tkrt_device_t* device) {
  char when[64];
  time_t now = time(NULL);
  struct tm tm_utc;
  gmtime_r(&now, &tm_utc);
  strftime(when, sizeof(when), "%Y-%m-%dT%H:%M:%SZ", &tm_utc);
  bench_json_string(json, "bench", bench);
  bench_json_string(json, "commit", options->commit);
  bench_json_string(json, "time_utc", when);
  bench_json_bool(json, "quick", options->quick != 0);
  if (device) {
    const tkrt_device_info_t* info = tkrt_device_info(device);
    bench_json_begin_object(json, "device");
    bench_json_string(json, "backend", info->backend);
    bench_json_string(json, "name", info->name);
    bench_json_string(json, "arch", info->arch);
    bench_json_int(json, "driver_version", info->driver_version);
    bench_json_int(json, "sm_count", info->sm_count);
    bench_json_end_object(json);
  }
}

/* ---------------------------------------------------------------- errors and files */

int bench_fail(tkrt_status_t status, const char* what) {
  if (!status) return 0;
  char text[2048];
  tkrt_status_format(status, text, sizeof(text));
  fprintf(stderr, "bench: %s: %s\n", what, text);
  tkrt_status_free(status);
  return -1;
}

void* bench_read_file(const char* path, size_t* out_size) {
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
  if (data) *out_size = (size_t)size;
  return data;
}

int bench_device_open(const char* backend, tkrt_device_t** out_device) {
  tkrt_device_options_t options;
  tkrt_device_options_init(&options);
  /* The environment's settings (TKRT_CACHE_DIR, TKRT_LOG, TKRT_HIP_LIBRARY, ...), as the tools
   * pass them; the backend is this program's choice. */
  tkrt_status_free(tkrt_options_from_environment(&options, NULL));
  options.backend = backend;
  /* The benchmarks run calls they built themselves, host images included. */
  options.allow_native_code_from_calls = true;
  return bench_fail(tkrt_device_open(&options, out_device), "opening the device");
}

/* ---------------------------------------------------------------- the CUDA driver */

int bench_cuda_load(bench_cuda_t* cuda) {
  if (cuda->loaded) return bench_cuda_check(cuda, cuda->cuCtxSetCurrent(cuda->context), "cuCtxSetCurrent");
  memset(cuda, 0, sizeof(*cuda));
  void* lib = dlopen("libcuda.so.1", RTLD_NOW | RTLD_LOCAL);
  if (!lib) lib = dlopen("libcuda.so", RTLD_NOW | RTLD_LOCAL);
  if (!lib) {
    fprintf(stderr, "bench: libcuda.so.1 does not load: %s\n", dlerror());
    return -1;
  }
  /* The _v2 names are the ABI every current driver exports for these entry points. */
  struct {
    void** slot;
    const char* name;
  } symbols[] = {
      {(void**)&cuda->cuInit, "cuInit"},
      {(void**)&cuda->cuDeviceGet, "cuDeviceGet"},
      {(void**)&cuda->cuDevicePrimaryCtxRetain, "cuDevicePrimaryCtxRetain"},
      {(void**)&cuda->cuCtxSetCurrent, "cuCtxSetCurrent"},
      {(void**)&cuda->cuModuleLoadData, "cuModuleLoadData"},
      {(void**)&cuda->cuModuleUnload, "cuModuleUnload"},
      {(void**)&cuda->cuModuleGetFunction, "cuModuleGetFunction"},
      {(void**)&cuda->cuLaunchKernel, "cuLaunchKernel"},
      {(void**)&cuda->cuStreamSynchronize, "cuStreamSynchronize"},
      {(void**)&cuda->cuDriverGetVersion, "cuDriverGetVersion"},
      {(void**)&cuda->cuGetErrorName, "cuGetErrorName"},
  };
  for (size_t i = 0; i < sizeof(symbols) / sizeof(symbols[0]); ++i) {
    *symbols[i].slot = dlsym(lib, symbols[i].name);
    if (!*symbols[i].slot) {
      fprintf(stderr, "bench: libcuda.so.1 lacks %s\n", symbols[i].name);
      return -1;
    }
  }
  cuda->loaded = 1;
  int device = 0;
  if (bench_cuda_check(cuda, cuda->cuInit(0), "cuInit") ||
      bench_cuda_check(cuda, cuda->cuDeviceGet(&device, 0), "cuDeviceGet") ||
      bench_cuda_check(cuda, cuda->cuDevicePrimaryCtxRetain(&cuda->context, device),
                       "cuDevicePrimaryCtxRetain") ||
      bench_cuda_check(cuda, cuda->cuCtxSetCurrent(cuda->context), "cuCtxSetCurrent")) {
    cuda->loaded = 0;
    return -1;
  }
  return 0;
}

int bench_cuda_check(const bench_cuda_t* cuda, bench_curesult_t result, const char* what) {
  if (result == 0) return 0;
  const char* name = NULL;
  if (cuda->cuGetErrorName) cuda->cuGetErrorName(result, &name);
  fprintf(stderr, "bench: %s failed: %s (%d)\n", what, name ? name : "unknown CUresult", result);
  return -1;
}

/* ---------------------------------------------------------------- the calls under test */

int bench_vector_call(const bench_options_t* options, const char* name, void** out_blob,
                      size_t* out_blob_size, tkrt_call_t** out_call) {
  char path[4096];
  snprintf(path, sizeof(path), "%s/%s/call.pb.z", options->vectors, name);
  size_t size = 0;
  void* blob = bench_read_file(path, &size);
  if (!blob) {
    fprintf(stderr, "bench: cannot read %s (--vectors: a folder like test/data/jaxlib-0.11.2)\n", path);
    return -1;
  }
  tkrt_call_t* call = NULL;
  if (bench_fail(tkrt_wire_decode(blob, size, NULL, &call), path)) {
    free(blob);
    return -1;
  }
  *out_blob = blob;
  *out_blob_size = size;
  *out_call = call;
  return 0;
}

void bench_add_call_free(bench_add_call_t* add) {
  if (add->call) tkrt_call_release(add->call);
  tkrt_wire_free(add->blob);
  memset(add, 0, sizeof(*add));
}

/* Encodes `call` (zlib, as the custom call's opaque bytes) and decodes the bytes back into the
 * call under test, so every path launches what the blob says. */
static int bench_add_call_finish(tkrt_call_t* call, bool tkrt_images, bench_add_call_t* out) {
  tkrt_wire_encode_options_t encode;
  tkrt_wire_encode_options_init(&encode);
  encode.include_tkrt_images = tkrt_images;
  if (bench_fail(tkrt_wire_encode(call, &encode, &out->blob, &out->blob_size), "encoding the call")) {
    return -1;
  }
  tkrt_wire_decode_options_t decode;
  tkrt_wire_decode_options_init(&decode);
  decode.format = TKRT_WIRE_FORMAT_ZLIB;
  if (bench_fail(tkrt_wire_decode(out->blob, out->blob_size, &decode, &out->call), "decoding the call")) {
    tkrt_wire_free(out->blob);
    out->blob = NULL;
    return -1;
  }
  return 0;
}

static int bench_add_call_build_cuda(const bench_options_t* options, bench_add_call_t* out) {
  void* blob = NULL;
  size_t blob_size = 0;
  tkrt_call_t* source = NULL;
  if (bench_vector_call(options, "add_f32", &blob, &blob_size, &source)) return -1;
  free(blob);
  const tkrt_call_desc_t* sd = tkrt_call_get_desc(source);
  const tkrt_config_desc_t* sc = &sd->configs[0];
  /* Same kernel, same parameter list (x, y, n, out), only n and the grid change. */
  tkrt_param_t params[8];
  size_t count = sc->param_count < 8 ? sc->param_count : 8;
  memcpy(params, sc->params, count * sizeof(params[0]));
  for (size_t i = 0; i < count; ++i) {
    if (params[i].kind == TKRT_PARAM_I32) params[i].value.i32 = BENCH_ADD_N;
  }
  tkrt_config_desc_t config = {sc->kernel, {1, 1, 1}, params, count, NULL};
  tkrt_call_desc_t desc;
  tkrt_call_desc_init(&desc);
  desc.name = "tkrt_bench_add256";
  desc.configs = &config;
  desc.config_count = 1;
  tkrt_call_t* call = NULL;
  int rc = bench_fail(tkrt_call_create(&desc, &call), "creating the add call");
  tkrt_call_release(source);
  if (rc) return -1;
  rc = bench_add_call_finish(call, false, out);
  tkrt_call_release(call);
  return rc;
}

#ifndef BENCH_HOST_IMAGE
#define BENCH_HOST_IMAGE ""
#endif

static int bench_add_call_build_host(bench_add_call_t* out) {
  size_t image_size = 0;
  void* image_bytes = bench_read_file(BENCH_HOST_IMAGE, &image_size);
  if (!image_bytes) {
    fprintf(stderr, "bench: cannot read the host kernel image '%s'\n", BENCH_HOST_IMAGE);
    return -1;
  }
  tkrt_kernel_image_t image = {0};
  image.backend = "host";
  image.kind = TKRT_IMAGE_HOST;
  image.data = image_bytes;
  image.size = image_size;
  tkrt_kernel_desc_t kd;
  tkrt_kernel_desc_init(&kd);
  kd.name = "add_kernel";
  kd.num_warps = 4;
  kd.images = &image;
  kd.image_count = 1;
  tkrt_kernel_t* kernel = NULL;
  int rc = bench_fail(tkrt_kernel_create(&kd, &kernel), "creating the host add kernel");
  free(image_bytes);
  if (rc) return -1;
  /* The parameter list of jaxlib's add_f32 vector: x, y, n, out. */
  tkrt_param_t params[4];
  memset(params, 0, sizeof(params));
  for (int i = 0; i < 4; ++i) {
    params[i].kind = TKRT_PARAM_ARRAY;
    params[i].value.array.ptr_divisibility = 16;
  }
  params[2].kind = TKRT_PARAM_I32;
  params[2].value.i32 = BENCH_ADD_N;
  tkrt_config_desc_t config = {kernel, {1, 1, 1}, params, 4, NULL};
  tkrt_call_desc_t desc;
  tkrt_call_desc_init(&desc);
  desc.name = "tkrt_bench_add256";
  desc.configs = &config;
  desc.config_count = 1;
  tkrt_call_t* call = NULL;
  rc = bench_fail(tkrt_call_create(&desc, &call), "creating the host add call");
  tkrt_kernel_release(kernel);
  if (rc) return -1;
  rc = bench_add_call_finish(call, true, out);
  tkrt_call_release(call);
  return rc;
}

int bench_add_call_build(const bench_options_t* options, const char* backend,
                         bench_add_call_t* out) {
  memset(out, 0, sizeof(*out));
  return strcmp(backend, "host") == 0 ? bench_add_call_build_host(out)
                                      : bench_add_call_build_cuda(options, out);
}

/* ---------------------------------------------------------------- child processes */

int bench_spawn_self(const bench_options_t* options, char* const* args, char* const* env) {
  size_t env_count = 0, extra = 0, arg_count = 0;
  while (environ[env_count]) ++env_count;
  while (env && env[extra]) ++extra;
  while (args[arg_count]) ++arg_count;
  char** envp = calloc(env_count + extra + 1, sizeof(*envp));
  char** argv = calloc(arg_count + 2, sizeof(*argv));
  if (!envp || !argv) {
    free(envp);
    free(argv);
    return -1;
  }
  /* The child's variables: ours, less the ones `env` overrides, then `env`. */
  size_t n = 0;
  for (size_t i = 0; i < env_count; ++i) {
    bool overridden = false;
    for (size_t j = 0; j < extra && !overridden; ++j) {
      size_t key = strcspn(env[j], "=");
      overridden = strncmp(environ[i], env[j], key + 1) == 0;
    }
    if (!overridden) envp[n++] = environ[i];
  }
  for (size_t j = 0; j < extra; ++j) envp[n++] = env[j];
  argv[0] = (char*)options->self_exe;
  for (size_t i = 0; i < arg_count; ++i) argv[i + 1] = args[i];
  pid_t pid;
  int rc = posix_spawn(&pid, options->self_exe, NULL, NULL, argv, envp);
  free(envp);
  free(argv);
  if (rc != 0) {
    fprintf(stderr, "bench: cannot start %s: %s\n", options->self_exe, strerror(rc));
    return -1;
  }
  int status = 0;
  if (waitpid(pid, &status, 0) < 0) return -1;
  return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}
