/* SPDX-License-Identifier: Apache-2.0 */
/* tkrt benchmarks: what every benchmark shares: clocks and statistics, a small JSON writer, the
 * CUDA driver entry points the raw baselines use, and the calls under test (built once, the same
 * kernel and sizes for every path that is compared). */
#ifndef TKRT_BENCH_BENCH_UTIL_H_
#define TKRT_BENCH_BENCH_UTIL_H_

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "tkrt/tkrt.h"
#include "tkrt/wire.h"

/* ---------------------------------------------------------------- options */

/* Command-line options shared by the subcommands (parsed once in bench_main.c). */
typedef struct bench_options {
  const char* backend;      /* "cuda" or "host" */
  const char* json_path;    /* where to write the JSON; NULL: nowhere */
  const char* vectors;      /* the jaxlib vectors folder (add_f32, matmul_autotuned, ...) */
  const char* vector;       /* tune: the vector in it (default matmul_autotuned) */
  const char* xla_library;  /* libtkrt_xla.so for path (c); NULL: emulate only */
  const char* self_exe;     /* this program, for the subcommands that spawn processes */
  const char* commit;       /* recorded in the JSON */
  long launches;            /* launches per repetition */
  long reps;                /* repetitions */
  int quick;                /* CI: few launches, no assertions about time */
  const char* child;        /* internal: role of a spawned child process */
  const char* child_out;    /* internal: where a child writes its result lines */
  void* jaxlib_fn;          /* jaxlib's legacy custom call (from the Python driver), or NULL */
  const char* jaxlib_fn_why; /* why there is none, for the report */
} bench_options_t;

/* ---------------------------------------------------------------- clocks and statistics */

uint64_t bench_now_ns(void);

typedef struct bench_stats {
  double median, p10, p90, min, max;
  size_t count;
} bench_stats_t;

/* Order statistics of `count` samples (the array is not modified). */
bench_stats_t bench_stats(const double* samples, size_t count);

/* ---------------------------------------------------------------- JSON */

/* A streaming writer: nesting is tracked so that commas are placed correctly. */
typedef struct bench_json {
  FILE* file;
  int depth;
  bool need_comma[32];
} bench_json_t;

/* NULL path: every call is a no-op (file stays NULL). Returns -1 when the file cannot be opened. */
int bench_json_open(bench_json_t* json, const char* path);
/* Closes the file; returns -1 when anything failed to be written. */
int bench_json_close(bench_json_t* json);
void bench_json_begin_object(bench_json_t* json, const char* key); /* key NULL inside arrays */
void bench_json_end_object(bench_json_t* json);
void bench_json_begin_array(bench_json_t* json, const char* key);
void bench_json_end_array(bench_json_t* json);
void bench_json_string(bench_json_t* json, const char* key, const char* value);
void bench_json_number(bench_json_t* json, const char* key, double value); /* NaN -> null */
void bench_json_int(bench_json_t* json, const char* key, long long value);
void bench_json_bool(bench_json_t* json, const char* key, bool value);
void bench_json_stats(bench_json_t* json, const char* key, const bench_stats_t* stats);

/* The header every benchmark's JSON starts with: name, commit, time, device. */
void bench_json_header(bench_json_t* json, const char* bench, const bench_options_t* options,
                       tkrt_device_t* device);

/* ---------------------------------------------------------------- errors and files */

/* Prints "bench: <what>: <status>" and frees the status; returns -1 (0 for a NULL status). */
int bench_fail(tkrt_status_t status, const char* what);
void* bench_read_file(const char* path, size_t* out_size);

/* ---------------------------------------------------------------- the CUDA driver */

/* The few driver entry points the raw baselines call, opened at run time like tkrt opens them
 * (the benchmark must build where there is no cuda.h). Types are the driver's, by size. */
typedef int bench_curesult_t;
typedef struct bench_cuda {
  int loaded;
  bench_curesult_t (*cuInit)(unsigned);
  bench_curesult_t (*cuDeviceGet)(int*, int);
  bench_curesult_t (*cuDevicePrimaryCtxRetain)(void**, int);
  bench_curesult_t (*cuCtxSetCurrent)(void*);
  bench_curesult_t (*cuModuleLoadData)(void**, const void*);
  bench_curesult_t (*cuModuleUnload)(void*);
  bench_curesult_t (*cuModuleGetFunction)(void**, void*, const char*);
  bench_curesult_t (*cuLaunchKernel)(void*, unsigned, unsigned, unsigned, unsigned, unsigned,
                                     unsigned, unsigned, void*, void**, void**);
  bench_curesult_t (*cuStreamSynchronize)(void*);
  bench_curesult_t (*cuDriverGetVersion)(int*);
  bench_curesult_t (*cuGetErrorName)(bench_curesult_t, const char**);
  void* context; /* device 0's primary context, current on the thread that loaded */
} bench_cuda_t;

/* Opens libcuda.so.1, initialises it and makes device 0's primary context (the one tkrt, XLA and
 * jaxlib use) current. Returns -1 with a message on stderr when there is no usable driver. */
int bench_cuda_load(bench_cuda_t* cuda);
/* 0 for CUDA_SUCCESS, else prints the driver's name for the error and returns -1. */
int bench_cuda_check(const bench_cuda_t* cuda, bench_curesult_t result, const char* what);

/* ---------------------------------------------------------------- the calls under test */

/* The small kernel every launch benchmark uses: out[i] = x[i] + y[i] on 256 float32 elements,
 * grid 1. On CUDA it is jaxlib's add_f32 vector (Triton 3.6 PTX, BLOCK 1024, 4 warps) re-encoded
 * with n = 256 and grid 1; on the host it is bench_host_kernels.c's add_kernel. `blob` is the
 * zlib-compressed TritonAnyKernelCall (jaxlib's fields only on CUDA, so jaxlib can run it) and
 * `call` is decoded from exactly those bytes. */
#define BENCH_ADD_N 256

typedef struct bench_add_call {
  void* blob;
  size_t blob_size;
  tkrt_call_t* call;
} bench_add_call_t;

int bench_add_call_build(const bench_options_t* options, const char* backend,
                         bench_add_call_t* out);
void bench_add_call_free(bench_add_call_t* add);

/* Decodes <vectors>/<name>/call.pb.z. */
int bench_vector_call(const bench_options_t* options, const char* name, void** out_blob,
                      size_t* out_blob_size, tkrt_call_t** out_call);

/* Spawns this program again with `args` (NULL-terminated) and extra environment assignments
 * `env` (NULL-terminated "K=V" strings), waits, and returns its exit status (-1 on failure). */
int bench_spawn_self(const bench_options_t* options, char* const* args, char* const* env);

/* Opens the device of options->backend (ordinal 0). */
int bench_device_open(const char* backend, tkrt_device_t** out_device);

/* "a/b" formatted for the tables (prints "-" for a missing value). */
const char* bench_ratio(char* buffer, size_t capacity, double value, double base);

#endif /* TKRT_BENCH_BENCH_UTIL_H_ */
