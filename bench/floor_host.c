/* SPDX-License-Identifier: Apache-2.0 */
/* tkrt benchmarks: the host-side check of the floor handlers (bench/xla_floor.c), run in CI. It
 * drives them as XLA would — a metadata query at registration, then executes with a call frame
 * whose API table answers stream_get and error_create — and times the no-op handlers (ns per
 * call; nothing about time is asserted). Without a CUDA driver the launching handlers must fail
 * with a clear error, never crash. Writes JSON to argv[1].
 *
 * usage: bench_floor_host OUT.json PATH/libtkrt_bench_floor.so */
#include <dlfcn.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "xla/xla_ffi_abi.h"

typedef tkrt_ffi_error_t* floor_ffi_fn(tkrt_ffi_call_frame_t*);
typedef void floor_legacy_fn(void*, void**, const char*, size_t, void*);
typedef int floor_setup_fn(int, const void*, size_t, const char*, unsigned, unsigned, unsigned,
                           unsigned, unsigned, const char*, const int32_t*, char*, size_t);
typedef unsigned long long floor_count_fn(void);

/* The pieces of XLA's API table the handlers use: errors keep their message. */
struct tkrt_ffi_error {
  char message[256];
};

static tkrt_ffi_error_t* host_error_create(tkrt_ffi_error_create_args_t* args) {
  tkrt_ffi_error_t* error = calloc(1, sizeof(*error));
  if (error) snprintf(error->message, sizeof(error->message), "%s", args->message);
  return error;
}

static tkrt_ffi_error_t* host_stream_get(tkrt_ffi_stream_get_args_t* args) {
  args->stream = NULL;
  return NULL;
}

static double now_ns(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return (double)t.tv_sec * 1e9 + (double)t.tv_nsec;
}

static int failures;
#define CHECK(cond)                                                        \
  do {                                                                     \
    if (!(cond)) {                                                         \
      fprintf(stderr, "bench_floor_host: %s:%d: %s\n", __FILE__, __LINE__, #cond); \
      ++failures;                                                          \
    }                                                                      \
  } while (0)

int main(int argc, char** argv) {
  if (argc != 3) {
    fprintf(stderr, "usage: %s OUT.json libtkrt_bench_floor.so\n", argv[0]);
    return 2;
  }
  void* lib = dlopen(argv[2], RTLD_NOW | RTLD_LOCAL);
  if (!lib) {
    fprintf(stderr, "bench_floor_host: %s\n", dlerror());
    return 1;
  }
  floor_ffi_fn* ffi_noop = (floor_ffi_fn*)dlsym(lib, "bench_floor_ffi_noop");
  floor_ffi_fn* ffi_launch = (floor_ffi_fn*)dlsym(lib, "bench_floor_ffi_launch");
  floor_legacy_fn* legacy_noop = (floor_legacy_fn*)dlsym(lib, "bench_floor_legacy_noop");
  floor_legacy_fn* legacy_launch = (floor_legacy_fn*)dlsym(lib, "bench_floor_legacy_launch");
  floor_setup_fn* setup = (floor_setup_fn*)dlsym(lib, "bench_floor_setup");
  floor_count_fn* errors = (floor_count_fn*)dlsym(lib, "bench_floor_errors");
  floor_count_fn* launches = (floor_count_fn*)dlsym(lib, "bench_floor_launches");
  if (!ffi_noop || !ffi_launch || !legacy_noop || !legacy_launch || !setup || !errors || !launches) {
    fprintf(stderr, "bench_floor_host: %s lacks a handler\n", argv[2]);
    return 1;
  }

  tkrt_ffi_api_t api;
  memset(&api, 0, sizeof(api));
  api.struct_size = sizeof(api);
  api.error_create = host_error_create;
  api.stream_get = host_stream_get;

  /* Registration: the metadata query. */
  tkrt_ffi_metadata_t metadata = {.struct_size = sizeof(metadata)};
  tkrt_ffi_metadata_extension_t extension = {
      .extension_base = {.type = TKRT_FFI_EXTENSION_METADATA, .next = NULL},
      .metadata = &metadata};
  extension.extension_base.struct_size = sizeof(extension);
  tkrt_ffi_call_frame_t frame;
  memset(&frame, 0, sizeof(frame));
  frame.struct_size = sizeof(frame);
  frame.api = &api;
  frame.extension_start = &extension.extension_base;
  floor_ffi_fn* ffi[2] = {ffi_noop, ffi_launch};
  for (int i = 0; i < 2; ++i) {
    memset(&metadata, 0, sizeof(metadata));
    metadata.struct_size = sizeof(metadata);
    CHECK(ffi[i](&frame) == NULL);
    CHECK(metadata.api_version.major_version == TKRT_FFI_API_MAJOR);
    CHECK(metadata.api_version.minor_version == TKRT_FFI_API_MINOR);
    CHECK(metadata.traits == TKRT_FFI_TRAIT_COMMAND_BUFFER_COMPATIBLE);
  }

  /* Executes: one f32[256] operand and result, the opaque attribute naming slot 3. */
  frame.extension_start = NULL;
  frame.stage = TKRT_FFI_STAGE_EXECUTE;
  static float x[256], out[256];
  int64_t dims[1] = {256};
  tkrt_ffi_buffer_t bx = {.struct_size = sizeof(bx), .dtype = TKRT_FFI_DTYPE_F32, .data = x,
                          .rank = 1, .dims = dims};
  tkrt_ffi_buffer_t bout = bx;
  bout.data = out;
  tkrt_ffi_arg_type_t arg_types[1] = {TKRT_FFI_ARG_BUFFER};
  tkrt_ffi_ret_type_t ret_types[1] = {TKRT_FFI_RET_BUFFER};
  void* args[1] = {&bx};
  void* rets[1] = {&bout};
  frame.args = (tkrt_ffi_args_t){.struct_size = sizeof(tkrt_ffi_args_t), .size = 1,
                                 .types = arg_types, .args = args};
  frame.rets = (tkrt_ffi_rets_t){.struct_size = sizeof(tkrt_ffi_rets_t), .size = 1,
                                 .types = ret_types, .rets = rets};
  static const char opaque_name[] = "opaque", opaque_value[] = "floor:3";
  tkrt_ffi_byte_span_t name = {opaque_name, 6}, value = {opaque_value, 7};
  tkrt_ffi_byte_span_t* names[1] = {&name};
  tkrt_ffi_attr_type_t attr_types[1] = {TKRT_FFI_ATTR_STRING};
  void* attrs[1] = {&value};
  frame.attrs = (tkrt_ffi_attrs_t){.struct_size = sizeof(tkrt_ffi_attrs_t), .size = 1,
                                   .types = attr_types, .names = names, .attrs = attrs};
  CHECK(ffi_noop(&frame) == NULL);

  /* Slot 3 was never set up (and here there is no driver to set it up with): a clear error. */
  tkrt_ffi_error_t* error = ffi_launch(&frame);
  CHECK(error != NULL && strstr(error->message, "slot 3") != NULL);
  if (error) fprintf(stderr, "bench_floor_host: expected error: %s\n", error->message);
  free(error);
  void* legacy_buffers[2] = {x, out};
  unsigned long long before = errors();
  legacy_launch(NULL, legacy_buffers, opaque_value, 7, NULL);
  CHECK(errors() == before + 1);
  char message[256] = "";
  static const char ptx[] = "// not loaded\n";
  int setup_rc = setup(0, ptx, sizeof(ptx), "k", 1, 1, 1, 32, 0, "aa", NULL, message,
                       sizeof(message));
  if (setup_rc != 0) {
    fprintf(stderr, "bench_floor_host: setup without a usable driver: %s\n", message);
    CHECK(message[0] != '\0');
  }
  CHECK(launches() == 0);

  /* ns per call of the no-op handlers: what a handler costs before doing anything. */
  enum { CALLS = 200000 };
  double t0 = now_ns();
  for (int i = 0; i < CALLS; ++i) CHECK(ffi_noop(&frame) == NULL);
  double t1 = now_ns();
  for (int i = 0; i < CALLS; ++i) legacy_noop(NULL, legacy_buffers, opaque_value, 7, NULL);
  double t2 = now_ns();
  double ffi_ns = (t1 - t0) / CALLS, legacy_ns = (t2 - t1) / CALLS;
  printf("floor (host): FFI no-op handler %.1f ns/call, legacy no-op handler %.1f ns/call\n",
         ffi_ns, legacy_ns);

  FILE* json = fopen(argv[1], "w");
  if (!json) {
    fprintf(stderr, "bench_floor_host: cannot write %s\n", argv[1]);
    return 1;
  }
  fprintf(json,
          "{\"bench\": \"floor_host\", \"calls\": %d, \"ffi_noop_ns_per_call\": %.2f, "
          "\"legacy_noop_ns_per_call\": %.2f, \"launch_without_setup_is_error\": %s, "
          "\"driver_available\": %s}\n",
          CALLS, ffi_ns, legacy_ns, failures ? "false" : "true", setup_rc == 0 ? "true" : "false");
  if (fclose(json)) return 1;
  dlclose(lib);
  return failures ? 1 : 0;
}
