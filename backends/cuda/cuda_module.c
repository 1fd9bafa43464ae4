/* SPDX-License-Identifier: Apache-2.0 */
/* tkrt CUDA backend: loading module images (cubin, fatbin, PTX through the driver's JIT linker
 * and the on-disk cubin cache) and the function records launches use. */
#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "tkrt/image.h"
#include "backends/cuda/cuda_cache.h"
#include "backends/cuda/cuda_internal.h"
#include "base/log.h"

typedef struct tkrt_cuda_module {
  CUmodule module;
} tkrt_cuda_module_t;

/* ---------------------------------------------------------------- statistics and warnings */

static struct {
  atomic_ullong jit_compiles;
  atomic_ullong cache_hits;
  atomic_ullong cache_misses;
  atomic_ullong cache_corrupt;
  atomic_ullong cache_write_failures;
} tkrt_cuda_stats;

void tkrt_cuda_module_stats(tkrt_cuda_module_stats_t* out_stats) {
  out_stats->jit_compiles = atomic_load(&tkrt_cuda_stats.jit_compiles);
  out_stats->cache_hits = atomic_load(&tkrt_cuda_stats.cache_hits);
  out_stats->cache_misses = atomic_load(&tkrt_cuda_stats.cache_misses);
  out_stats->cache_corrupt = atomic_load(&tkrt_cuda_stats.cache_corrupt);
  out_stats->cache_write_failures = atomic_load(&tkrt_cuda_stats.cache_write_failures);
}

/* A damaged cache is worth a warning even at the default level (it costs a JIT per load and may
 * point at a failing disk), but not one per load: the first is a warning, the rest debug. */
static atomic_int tkrt_cuda_corrupt_warned;

static void tkrt_cuda_warn_corrupt(const char* path, const char* why) {
  tkrt_log_level_t level =
      atomic_exchange(&tkrt_cuda_corrupt_warned, 1) ? TKRT_LOG_DEBUG : TKRT_LOG_WARN;
  TKRT_LOG_AT(level, "cuda", "PTX cache entry %s is corrupt (%s); removed and rebuilt", path, why);
}

static atomic_int tkrt_cuda_untrusted_warned;

/* A cache that is not trusted is not an error: the PTX is compiled instead, said once as a
 * warning. */
static void tkrt_cuda_warn_untrusted(const char* why) {
  tkrt_log_level_t level =
      atomic_exchange(&tkrt_cuda_untrusted_warned, 1) ? TKRT_LOG_DEBUG : TKRT_LOG_WARN;
  TKRT_LOG_AT(level, "cuda", "PTX cache not used: %s", why);
}

static double tkrt_cuda_now_ms(void) {
  struct timespec now;
  clock_gettime(CLOCK_MONOTONIC, &now);
  return (double)now.tv_sec * 1e3 + (double)now.tv_nsec / 1e6;
}

/* ---------------------------------------------------------------- PTX */

enum { TKRT_CUDA_JIT_LOG_SIZE = 16384 };

/* Compiles NUL-terminated PTX with the driver's JIT linker. On success *out_state owns the cubin
 * (*out_cubin, *out_size) until cuLinkDestroy. The target comes from the current context unless
 * `accelerated_target` asks for the arch-specific one (CU_TARGET_COMPUTE_90A and later). */
static tkrt_status_t tkrt_cuda_jit(tkrt_cuda_device_t* device, const char* ptx, size_t size,
                                   int accelerated_target, CUlinkState* out_state,
                                   void** out_cubin, size_t* out_size) {
  const tkrt_cuda_driver_t* driver = device->driver;
  tkrt_status_t status = NULL;
  CUlinkState state = NULL;
  char* error_log = calloc(1, TKRT_CUDA_JIT_LOG_SIZE);
  char* info_log = calloc(1, TKRT_CUDA_JIT_LOG_SIZE);
  if (!error_log || !info_log) {
    status = TKRT_STATUS_MAKE(TKRT_STATUS_RESOURCE_EXHAUSTED, "out of host memory");
    goto cleanup;
  }
  const tkrt_device_info_t* info = &device->base.info;
  const unsigned target = (unsigned)CU_COMPUTE_ACCELERATED_TARGET_BASE +
                          (unsigned)(info->cc_major * 10 + info->cc_minor);
  CUjit_option options[] = {CU_JIT_ERROR_LOG_BUFFER, CU_JIT_ERROR_LOG_BUFFER_SIZE_BYTES,
                            CU_JIT_INFO_LOG_BUFFER,  CU_JIT_INFO_LOG_BUFFER_SIZE_BYTES,
                            CU_JIT_LOG_VERBOSE,      CU_JIT_TARGET};
  void* values[] = {error_log,
                    (void*)(uintptr_t)TKRT_CUDA_JIT_LOG_SIZE,
                    info_log,
                    (void*)(uintptr_t)TKRT_CUDA_JIT_LOG_SIZE,
                    (void*)(uintptr_t)(tkrt_log_enabled(TKRT_LOG_DEBUG) ? 1 : 0),
                    (void*)(uintptr_t)target};
  _Static_assert(sizeof(options) / sizeof(options[0]) == sizeof(values) / sizeof(values[0]),
                 "one value per JIT option");
  const unsigned option_count =
      sizeof(options) / sizeof(options[0]) - (accelerated_target ? 0u : 1u);
  CUresult result = driver->cuLinkCreate(option_count, options, values, &state);
  if (result != CUDA_SUCCESS) {
    state = NULL;
    status = TKRT_CUDA_STATUS(result, "cuLinkCreate");
    goto cleanup;
  }
  const char* operation = "cuLinkAddData(PTX)";
  result = driver->cuLinkAddData(state, CU_JIT_INPUT_PTX, (void*)ptx, size + 1, "tkrt.ptx", 0,
                                 NULL, NULL);
  void* cubin = NULL;
  size_t cubin_size = 0;
  if (result == CUDA_SUCCESS) {
    operation = "cuLinkComplete";
    result = driver->cuLinkComplete(state, &cubin, &cubin_size);
  }
  if (result != CUDA_SUCCESS) {
    status = TKRT_CUDA_STATUS(result, "PTX JIT compilation for %s (%s)", device->ptx_target,
                              operation);
    /* A compile error is the caller's PTX, whatever code the driver chose for it. */
    if (tkrt_status_code(status) == TKRT_STATUS_INTERNAL) {
      tkrt_status_t wrapped = TKRT_STATUS_MAKE(TKRT_STATUS_INVALID_ARGUMENT, "%s",
                                               tkrt_status_message(status));
      tkrt_status_free(status);
      status = wrapped;
    }
    if (error_log[0]) {
      error_log[TKRT_CUDA_JIT_LOG_SIZE - 1] = '\0';
      tkrt_status_t logged = TKRT_STATUS_MAKE(tkrt_status_code(status), "%s; JIT log: %s",
                                              tkrt_status_message(status), error_log);
      tkrt_status_free(status);
      status = logged;
    }
    goto cleanup;
  }
  if (info_log[0]) {
    info_log[TKRT_CUDA_JIT_LOG_SIZE - 1] = '\0';
    /* One message per line of the driver's log. */
    for (char *line = info_log, *end = NULL; *line; line = end + 1) {
      end = strchr(line, '\n');
      if (end) *end = '\0';
      if (*line) TKRT_LOG_AT(TKRT_LOG_DEBUG, "cuda", "JIT info log: %s", line);
      if (!end) break;
    }
  }
  atomic_fetch_add(&tkrt_cuda_stats.jit_compiles, 1);
  *out_state = state;
  *out_cubin = cubin;
  *out_size = cubin_size;
  state = NULL;

cleanup:
  if (state) driver->cuLinkDestroy(state);
  free(error_log);
  free(info_log);
  return status;
}

static tkrt_status_t tkrt_cuda_load_data(tkrt_cuda_device_t* device, const void* data,
                                         const char* what, CUmodule* out_module) {
  CUmodule module = NULL;
  CUresult result = device->driver->cuModuleLoadData(&module, data);
  if (result != CUDA_SUCCESS) {
    return TKRT_CUDA_STATUS(result, "cuModuleLoadData(%s for %s)", what,
                            device->base.info.arch);
  }
  *out_module = module;
  return NULL;
}

static tkrt_status_t tkrt_cuda_load_ptx(tkrt_cuda_device_t* device, const tkrt_image_t* image,
                                        CUmodule* out_module) {
  tkrt_status_t status = NULL;
  CUlinkState link = NULL;
  void* cached = NULL;
  /* The driver wants NUL-terminated PTX; the API allows unterminated text. */
  char* ptx = malloc(image->size + 1);
  if (!ptx) return TKRT_STATUS_MAKE(TKRT_STATUS_RESOURCE_EXHAUSTED, "out of host memory");
  memcpy(ptx, image->data, image->size);
  ptx[image->size] = '\0';
  size_t ptx_size = strlen(ptx); /* a trailing NUL in the image is not part of the text */

  const char* dir = device->cache_dir;
  const int cache_on = dir != NULL;
  tkrt_cuda_cache_key_t key;
  tkrt_cuda_cache_key(ptx, ptx_size, device->ptx_target, device->driver->driver_version, &key);
  char path[4096 + 80];
  if (!cache_on || tkrt_cuda_cache_entry_path(dir, &key, path, sizeof(path)) != 0) {
    snprintf(path, sizeof(path), "(cache off)");
  }
  const double started = tkrt_cuda_now_ms();

  if (cache_on) {
    size_t cached_size = 0;
    char why[512];
    tkrt_cuda_cache_result_t lookup =
        tkrt_cuda_cache_read(dir, device->trust_shared_cache, &key, &cached, &cached_size, why,
                             sizeof(why));
    if (lookup == TKRT_CUDA_CACHE_HIT) {
      CUmodule module = NULL;
      CUresult result = device->driver->cuModuleLoadData(&module, cached);
      if (result == CUDA_SUCCESS) {
        atomic_fetch_add(&tkrt_cuda_stats.cache_hits, 1);
        TKRT_LOG_AT(TKRT_LOG_DEBUG, "cuda",
                    "PTX cache hit %s (%zu-byte cubin from %s, loaded in %.3f ms)", key.hex,
                    cached_size, path, tkrt_cuda_now_ms() - started);
        *out_module = module;
        goto cleanup;
      }
      /* Intact but refused (say, a driver downgrade with an unchanged version number): rebuild. */
      atomic_fetch_add(&tkrt_cuda_stats.cache_corrupt, 1);
      tkrt_cuda_cache_remove(dir, &key);
      tkrt_cuda_warn_corrupt(path, "the driver refused the cached cubin");
    } else if (lookup == TKRT_CUDA_CACHE_CORRUPT) {
      atomic_fetch_add(&tkrt_cuda_stats.cache_corrupt, 1);
      tkrt_cuda_warn_corrupt(path, why);
    } else if (lookup == TKRT_CUDA_CACHE_UNTRUSTED) {
      atomic_fetch_add(&tkrt_cuda_stats.cache_misses, 1);
      tkrt_cuda_warn_untrusted(why);
    } else {
      atomic_fetch_add(&tkrt_cuda_stats.cache_misses, 1);
      TKRT_LOG_AT(TKRT_LOG_DEBUG, "cuda", "PTX cache miss %s (%s; %s)", key.hex, path, why);
    }
  }

  void* cubin = NULL;
  size_t cubin_size = 0;
  status = tkrt_cuda_jit(device, ptx, ptx_size, 0, &link, &cubin, &cubin_size);
  if (status && tkrt_status_code(status) == TKRT_STATUS_INVALID_ARGUMENT &&
      device->base.info.cc_major >= 9) {
    /* The context's target is sm_90; arch-specific PTX (.target sm_90a, all of Triton's Hopper
     * output) is accepted for it by the drivers we know, but should one insist on the explicit
     * accelerated target, ask once more before giving up. The first error is what is reported. */
    tkrt_status_t retry = tkrt_cuda_jit(device, ptx, ptx_size, 1, &link, &cubin, &cubin_size);
    if (!retry) {
      TKRT_LOG_AT(TKRT_LOG_DEBUG, "cuda", "PTX JIT needed the explicit %s target",
                  device->ptx_target);
      tkrt_status_free(status);
      status = NULL;
    } else {
      tkrt_status_free(retry);
    }
  }
  if (status) goto cleanup;
  const double compiled = tkrt_cuda_now_ms();
  status = tkrt_cuda_load_data(device, cubin, "JIT-compiled cubin", out_module);
  if (status) goto cleanup;
  TKRT_LOG_AT(TKRT_LOG_DEBUG, "cuda",
              "PTX JIT %s: %zu bytes of PTX -> %zu-byte cubin for %s in %.3f ms", key.hex,
              ptx_size, cubin_size, device->ptx_target, compiled - started);
  if (cache_on) {
    char why[512];
    if (tkrt_cuda_cache_write(dir, device->trust_shared_cache, &key, cubin, cubin_size, why,
                              sizeof(why)) != 0) {
      /* The module is loaded; a cache that cannot be written only costs the next process a JIT. */
      atomic_fetch_add(&tkrt_cuda_stats.cache_write_failures, 1);
      TKRT_LOG_AT(TKRT_LOG_DEBUG, "cuda", "PTX cache write %s failed: %s", key.hex, why);
    } else {
      TKRT_LOG_AT(TKRT_LOG_DEBUG, "cuda", "PTX cache store %s (%s)", key.hex, path);
    }
  }

cleanup:
  if (link) device->driver->cuLinkDestroy(link);
  free(cached);
  free(ptx);
  return status;
}

/* ---------------------------------------------------------------- vtable methods */

tkrt_status_t tkrt_cuda_module_load(tkrt_device_t* base, const tkrt_image_t* image,
                                    void** out_module) {
  tkrt_cuda_device_t* device = tkrt_cuda_device_cast(base);
  tkrt_status_t status = NULL;
  void* aligned = NULL;
  tkrt_cuda_module_t* module = calloc(1, sizeof(*module));
  if (!module) return TKRT_STATUS_MAKE(TKRT_STATUS_RESOURCE_EXHAUSTED, "out of host memory");
  status = tkrt_cuda_device_activate(device);
  if (status) goto cleanup;
  switch (image->kind) {
    case TKRT_IMAGE_PTX:
      status = tkrt_cuda_load_ptx(device, image, &module->module);
      break;
    case TKRT_IMAGE_CUBIN:
    case TKRT_IMAGE_FATBIN: {
      /* cuModuleLoadData takes no size: the driver trusts the headers. Check them against the
       * bytes we were given first, so a truncated image is an error, not an overread. */
      tkrt_image_info_t info;
      info.struct_size = sizeof(info);
      status = tkrt_image_inspect(image->data, image->size, &info);
      if (status) {
        status = tkrt_status_annotate(status, "refusing a malformed %s image",
                                      tkrt_image_kind_name(image->kind));
        break;
      }
      /* ELF and fatbin headers are read in place as 8-byte fields; callers' buffers (a slice of
       * a protobuf, say) need not be aligned. */
      const void* data = image->data;
      if ((uintptr_t)data % 8 != 0) {
        aligned = malloc(image->size);
        if (!aligned) {
          status = TKRT_STATUS_MAKE(TKRT_STATUS_RESOURCE_EXHAUSTED, "out of host memory");
          break;
        }
        memcpy(aligned, image->data, image->size);
        data = aligned;
      }
      status = tkrt_cuda_load_data(device, data, tkrt_image_kind_name(image->kind),
                                   &module->module);
      break;
    }
    case TKRT_IMAGE_AUTO:
    case TKRT_IMAGE_HSACO:
    case TKRT_IMAGE_HOST:
    default:
      status = TKRT_STATUS_MAKE(TKRT_STATUS_INVALID_ARGUMENT,
                                "the cuda backend loads PTX, cubin and fatbin images, not %s",
                                tkrt_image_kind_name(image->kind));
      break;
  }
  if (status) goto cleanup;
  *out_module = module;
  module = NULL;

cleanup:
  free(aligned);
  free(module);
  return status;
}

void tkrt_cuda_module_unload(tkrt_device_t* base, void* module_handle) {
  tkrt_cuda_device_t* device = tkrt_cuda_device_cast(base);
  tkrt_cuda_module_t* module = module_handle;
  if (!module) return;
  tkrt_status_t status = tkrt_cuda_device_activate(device);
  if (!status) {
    CUresult result = device->driver->cuModuleUnload(module->module);
    if (result != CUDA_SUCCESS && result != CUDA_ERROR_DEINITIALIZED) {
      status = TKRT_CUDA_STATUS(result, "cuModuleUnload");
    }
  }
  if (status) {
    /* Unloading cannot report failure; leaking the module is all that happens. */
    TKRT_LOG_AT(TKRT_LOG_WARN, "cuda", "unloading a module: %s", tkrt_status_message(status));
    tkrt_status_free(status);
  }
  free(module);
}

static tkrt_status_t tkrt_cuda_function_attribute(const tkrt_cuda_device_t* device,
                                                  CUfunction function,
                                                  CUfunction_attribute attribute,
                                                  const char* what, int* out_value) {
  int value = 0;
  CUresult result = device->driver->cuFuncGetAttribute(&value, attribute, function);
  if (result != CUDA_SUCCESS) return TKRT_CUDA_STATUS(result, "cuFuncGetAttribute(%s)", what);
  *out_value = value;
  return NULL;
}

tkrt_status_t tkrt_cuda_function_create(tkrt_device_t* base, void* module_handle,
                                        const char* name, tkrt_hal_function_info_t* out_info) {
  tkrt_cuda_device_t* device = tkrt_cuda_device_cast(base);
  tkrt_cuda_module_t* module = module_handle;
  TKRT_RETURN_IF_ERROR(tkrt_cuda_device_activate(device));
  CUfunction handle = NULL;
  CUresult result = device->driver->cuModuleGetFunction(&handle, module->module, name);
  if (result != CUDA_SUCCESS) {
    tkrt_status_t status = TKRT_CUDA_STATUS(result, "cuModuleGetFunction");
    return tkrt_status_annotate(status, "kernel '%s' is not in the module", name);
  }
  int static_shared = 0, dynamic_limit = 0;
  TKRT_RETURN_IF_ERROR(tkrt_cuda_function_attribute(
      device, handle, CU_FUNC_ATTRIBUTE_SHARED_SIZE_BYTES, "SHARED_SIZE_BYTES", &static_shared));
  TKRT_RETURN_IF_ERROR(tkrt_cuda_function_attribute(
      device, handle, CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES,
      "MAX_DYNAMIC_SHARED_SIZE_BYTES", &dynamic_limit));
  out_info->handle = handle; /* the driver's handle lives as long as its module */
  out_info->static_shared_bytes = static_shared < 0 ? 0u : (uint32_t)static_shared;
  out_info->dynamic_shared_limit = dynamic_limit < 0 ? 0u : (uint32_t)dynamic_limit;
  return NULL;
}

void tkrt_cuda_function_destroy(tkrt_device_t* device, void* function) {
  (void)device;
  (void)function;
}

tkrt_status_t tkrt_cuda_function_attrs(tkrt_device_t* base, void* function,
                                       tkrt_function_attrs_t* out_attrs) {
  tkrt_cuda_device_t* device = tkrt_cuda_device_cast(base);
  TKRT_RETURN_IF_ERROR(tkrt_cuda_device_activate(device));
  int threads = 0, regs = 0;
  TKRT_RETURN_IF_ERROR(tkrt_cuda_function_attribute(
      device, (CUfunction)function, CU_FUNC_ATTRIBUTE_MAX_THREADS_PER_BLOCK,
      "MAX_THREADS_PER_BLOCK", &threads));
  TKRT_RETURN_IF_ERROR(tkrt_cuda_function_attribute(device, (CUfunction)function,
                                                    CU_FUNC_ATTRIBUTE_NUM_REGS, "NUM_REGS", &regs));
  out_attrs->max_threads_per_block = threads < 0 ? 0u : (uint32_t)threads;
  out_attrs->num_regs = regs < 0 ? 0u : (uint32_t)regs;
  return NULL;
}

tkrt_status_t tkrt_cuda_function_set_shared_limit(tkrt_device_t* base, void* function,
                                                  uint32_t bytes) {
  tkrt_cuda_device_t* device = tkrt_cuda_device_cast(base);
  TKRT_RETURN_IF_ERROR(tkrt_cuda_device_activate(device));
  CUresult result = device->driver->cuFuncSetAttribute(
      (CUfunction)function, CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES, (int)bytes);
  if (result != CUDA_SUCCESS) {
    return TKRT_CUDA_STATUS(result, "cuFuncSetAttribute(MAX_DYNAMIC_SHARED_SIZE_BYTES, %u)",
                            bytes);
  }
  return NULL;
}
