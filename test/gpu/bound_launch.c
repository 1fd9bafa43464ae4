/* SPDX-License-Identifier: Apache-2.0 */
/* A Triton kernel launched through tkrt's C API alone (tkrt/triton_bound.h), for
 * test/gpu/kernels_check.py: loads each variant's Triton folder, binds the call to device 0 of a
 * runtime, copies the inputs to the device, launches once with every argument given at launch,
 * and writes the outputs it was asked to save.
 *
 *   bound_launch [--store DIR] [--key NAME,...] --variant FOLDER GRID CONSTS [--variant ...] -- ARG...
 *
 * ARG, one per kernel parameter in order:
 *   ptr:NAME:@FILE[:save=PATH]  ptr:NAME:zeros=BYTES[:save=PATH]     a pointer
 *   int:NAME:VALUE   float:NAME:VALUE                                a scalar
 *   desc:NAME:(@FILE|zeros=BYTES):D0xD1..:B0xB1..[:save=PATH]        a tensor descriptor
 *                                                                    (shape, block; contiguous) */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tkrt/tkrt.h"

#define MAX_ARGS 64
#define MAX_VARIANTS 16

static int fail_status(tkrt_status_t status, const char* what) {
  fprintf(stderr, "bound_launch: %s: %s: %s\n", what, tkrt_status_code_name(tkrt_status_code(status)),
          tkrt_status_message(status));
  tkrt_status_free(status);
  return 1;
}

static int parse_dims(const char* text, int64_t* out, uint32_t* rank) {
  *rank = 0;
  while (*text && *rank < TKRT_TMA_MAX_RANK) {
    char* end;
    out[(*rank)++] = strtoll(text, &end, 10);
    if (end == text) return 0;
    text = *end == 'x' ? end + 1 : end;
    if (*end != 'x' && *end) return 0;
  }
  return *rank > 0;
}

static void* read_file(const char* path, size_t* size) {
  FILE* f = fopen(path, "rb");
  if (!f) return NULL;
  fseek(f, 0, SEEK_END);
  long n = ftell(f);
  fseek(f, 0, SEEK_SET);
  void* data = malloc(n > 0 ? (size_t)n : 1);
  if (data && fread(data, 1, (size_t)n, f) != (size_t)n) {
    free(data);
    data = NULL;
  }
  fclose(f);
  *size = (size_t)n;
  return data;
}

int main(int argc, char** argv) {
  const char* store = NULL;
  char* key_text = NULL;
  const char* folders[MAX_VARIANTS];
  tkrt_triton_variant_t variants[MAX_VARIANTS];
  size_t variant_count = 0;
  int i = 1;
  for (; i < argc && strcmp(argv[i], "--") != 0; ++i) {
    if (!strcmp(argv[i], "--store") && i + 1 < argc) {
      store = argv[++i];
    } else if (!strcmp(argv[i], "--key") && i + 1 < argc) {
      key_text = argv[++i];
    } else if (!strcmp(argv[i], "--variant") && i + 3 < argc && variant_count < MAX_VARIANTS) {
      folders[variant_count] = argv[i + 1];
      memset(&variants[variant_count], 0, sizeof(variants[0]));
      variants[variant_count].grid = argv[i + 2];
      variants[variant_count].constants = argv[i + 3];
      ++variant_count;
      i += 3;
    } else {
      fprintf(stderr, "bound_launch: unexpected '%s' (see the comment at the top)\n", argv[i]);
      return 2;
    }
  }
  if (i >= argc || variant_count == 0) {
    fprintf(stderr, "bound_launch: needs --variant ... -- ARG...\n");
    return 2;
  }
  ++i;

  tkrt_runtime_t* runtime = NULL;
  tkrt_runtime_options_t options;
  tkrt_runtime_options_init(&options);
  options.read_environment = 1;
  tkrt_status_t status = tkrt_runtime_create(&options, &runtime);
  if (status) return fail_status(status, "creating a runtime");
  if (store && (status = tkrt_runtime_configure(runtime, "tune_dir", store))) {
    return fail_status(status, "--store");
  }
  tkrt_device_t* device = NULL;
  if ((status = tkrt_runtime_device(runtime, NULL, 0, &device))) return fail_status(status, "device 0");

  tkrt_triton_load_options_t load;
  tkrt_triton_load_options_init(&load);
  for (size_t v = 0; v < variant_count; ++v) {
    status = tkrt_triton_kernel_load(&folders[v], 1, &load, &variants[v].kernel);
    if (status) return fail_status(status, folders[v]);
  }
  const char* keys[8];
  size_t key_count = 0;
  for (char* k = key_text ? strtok(key_text, ",") : NULL; k && key_count < 8; k = strtok(NULL, ",")) {
    keys[key_count++] = k;
  }
  tkrt_triton_call_desc_t desc;
  tkrt_triton_call_desc_init(&desc);
  desc.variants = variants;
  desc.variant_count = variant_count;
  tkrt_triton_bound_options_t bound_options;
  tkrt_triton_bound_options_init(&bound_options);
  bound_options.runtime = runtime;
  bound_options.device = device;
  bound_options.tuning_key = keys;
  bound_options.tuning_key_count = key_count;
  tkrt_triton_bound_t* bound = NULL;
  if ((status = tkrt_triton_bound_create(&desc, &bound_options, &bound))) {
    return fail_status(status, "tkrt_triton_bound_create");
  }

  tkrt_triton_arg_t args[MAX_ARGS];
  const char* saves[MAX_ARGS] = {0};
  size_t arg_count = 0;
  for (; i < argc && arg_count < MAX_ARGS; ++i, ++arg_count) {
    tkrt_triton_arg_t* a = &args[arg_count];
    memset(a, 0, sizeof(*a));
    char* spec = argv[i];
    char* kind = strtok(spec, ":");
    char* name = strtok(NULL, ":");
    char* value = strtok(NULL, ":");
    if (!kind || !name || !value) {
      fprintf(stderr, "bound_launch: argument %zu: KIND:NAME:VALUE expected\n", arg_count);
      return 2;
    }
    if (!strcmp(kind, "int")) {
      a->kind = TKRT_TRITON_ARG_INT;
      a->i = strtoll(value, NULL, 0);
      continue;
    }
    if (!strcmp(kind, "float")) {
      a->kind = TKRT_TRITON_ARG_FLOAT;
      a->f = strtod(value, NULL);
      continue;
    }
    int is_desc = !strcmp(kind, "desc");
    if (!is_desc && strcmp(kind, "ptr") != 0) {
      fprintf(stderr, "bound_launch: argument %zu: unknown kind '%s'\n", arg_count, kind);
      return 2;
    }
    void* host = NULL;
    size_t bytes = 0;
    if (value[0] == '@') {
      host = read_file(value + 1, &bytes);
      if (!host) {
        fprintf(stderr, "bound_launch: cannot read %s\n", value + 1);
        return 1;
      }
    } else if (!strncmp(value, "zeros=", 6)) {
      bytes = (size_t)strtoull(value + 6, NULL, 10);
      host = calloc(bytes ? bytes : 1, 1);
    }
    if (is_desc) {
      a->kind = TKRT_TRITON_ARG_DESCRIPTOR;
      char* shape = strtok(NULL, ":");
      char* block = strtok(NULL, ":");
      uint32_t block_rank = 0;
      if (!shape || !block || !parse_dims(shape, a->shape, &a->rank) ||
          !parse_dims(block, a->block, &block_rank) || block_rank != a->rank) {
        fprintf(stderr, "bound_launch: argument %zu: desc needs SHAPE:BLOCK\n", arg_count);
        return 2;
      }
      int64_t stride = 1;
      for (int d = (int)a->rank - 1; d >= 0; --d) {
        a->strides[d] = stride;
        stride *= a->shape[d];
      }
    } else {
      a->kind = TKRT_TRITON_ARG_POINTER;
    }
    for (char* extra = strtok(NULL, ":"); extra; extra = strtok(NULL, ":")) {
      if (!strncmp(extra, "save=", 5)) saves[arg_count] = extra + 5;
    }
    if ((status = tkrt_memory_alloc(device, bytes ? bytes : 16, &a->ptr))) {
      return fail_status(status, "allocating");
    }
    a->size = bytes;
    if ((status = tkrt_memcpy_htod_async(device, a->ptr, host, bytes, NULL))) {
      return fail_status(status, "copying an input");
    }
    free(host);
  }
  tkrt_launch_decision_t decision;
  status = tkrt_triton_bound_launch(bound, NULL, args, arg_count, &decision);
  if (status) return fail_status(status, "tkrt_triton_bound_launch");
  if ((status = tkrt_stream_synchronize(device, NULL))) return fail_status(status, "synchronizing");
  printf("launched: config %zu (source %d)\n", decision.config, (int)decision.source);
  for (size_t k = 0; k < arg_count; ++k) {
    if (!saves[k]) continue;
    void* host = malloc(args[k].size);
    if ((status = tkrt_memcpy_dtoh_async(device, host, args[k].ptr, args[k].size, NULL)) ||
        (status = tkrt_stream_synchronize(device, NULL))) {
      return fail_status(status, "copying an output");
    }
    FILE* f = fopen(saves[k], "wb");
    if (!f || fwrite(host, 1, args[k].size, f) != args[k].size) {
      fprintf(stderr, "bound_launch: cannot write %s\n", saves[k]);
      return 1;
    }
    fclose(f);
    free(host);
  }
  for (size_t k = 0; k < arg_count; ++k) {
    if (args[k].kind == TKRT_TRITON_ARG_POINTER || args[k].kind == TKRT_TRITON_ARG_DESCRIPTOR) {
      tkrt_status_free(tkrt_memory_free(device, args[k].ptr));
    }
  }
  tkrt_triton_bound_destroy(bound);
  for (size_t v = 0; v < variant_count; ++v) tkrt_triton_kernel_release(variants[v].kernel);
  tkrt_runtime_release(runtime);
  return 0;
}
