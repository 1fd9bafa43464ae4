/* SPDX-License-Identifier: Apache-2.0 */
/* tkrt host backend: the device (limits, worker pool, memory) and its vtable. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "backends/host/host_internal.h"
#include "base/log.h"

#define TKRT_HOST_ALLOC_MAGIC 0x746b7274686f7374ULL /* "tkrthost" */
#define TKRT_HOST_ALLOC_HEADER 256u /* keeps allocations 256-byte aligned, like cuMemAlloc */

static const tkrt_hal_device_vtable_t tkrt_host_device_vtable; /* at the end of this file */

tkrt_host_device_t* tkrt_host_device_cast(tkrt_device_t* device) {
  assert(device->resource.vtable == &tkrt_host_device_vtable);
  return (tkrt_host_device_t*)device;
}

/* ---------------------------------------------------------------- memory
 * Allocations carry a header so that frees of foreign pointers are caught, not crashed on. */

typedef struct tkrt_host_alloc_header {
  uint64_t magic;
  uint64_t size;
} tkrt_host_alloc_header_t;

static tkrt_status_t tkrt_host_alloc_impl(size_t size, const char* what, void** out_ptr) {
  if (size > SIZE_MAX - TKRT_HOST_ALLOC_HEADER) {
    return TKRT_STATUS_MAKE(TKRT_STATUS_RESOURCE_EXHAUSTED, "cannot allocate %zu bytes of %s",
                            size, what);
  }
  void* base = NULL;
  if (posix_memalign(&base, TKRT_HOST_ALLOC_HEADER, TKRT_HOST_ALLOC_HEADER + size) != 0) {
    return TKRT_STATUS_MAKE(TKRT_STATUS_RESOURCE_EXHAUSTED, "out of memory allocating %zu bytes "
                            "of %s", size, what);
  }
  tkrt_host_alloc_header_t* header = base;
  header->magic = TKRT_HOST_ALLOC_MAGIC;
  header->size = size;
  *out_ptr = (unsigned char*)base + TKRT_HOST_ALLOC_HEADER;
  return NULL;
}

static tkrt_status_t tkrt_host_free_impl(void* ptr, const char* what) {
  if ((uintptr_t)ptr % TKRT_HOST_ALLOC_HEADER != 0) {
    return TKRT_STATUS_MAKE(TKRT_STATUS_INVALID_ARGUMENT,
                            "%p is not the start of a host backend %s allocation", ptr, what);
  }
  tkrt_host_alloc_header_t* header =
      (tkrt_host_alloc_header_t*)((unsigned char*)ptr - TKRT_HOST_ALLOC_HEADER);
  if (header->magic != TKRT_HOST_ALLOC_MAGIC) {
    return TKRT_STATUS_MAKE(TKRT_STATUS_INVALID_ARGUMENT,
                            "%p was not allocated by the host backend, or was already freed", ptr);
  }
  header->magic = 0;
  free(header);
  return NULL;
}

static tkrt_status_t tkrt_host_check_not_capturing(tkrt_device_t* device, const char* what) {
  if (atomic_load(&tkrt_host_device_cast(device)->capturing_streams) > 0) {
    return TKRT_STATUS_MAKE(TKRT_STATUS_FAILED_PRECONDITION,
                            "%s is not allowed while a stream of the device is capturing", what);
  }
  return NULL;
}

tkrt_status_t tkrt_host_memory_alloc(tkrt_device_t* device, size_t size,
                                            tkrt_deviceptr_t* out_ptr) {
  TKRT_RETURN_IF_ERROR(tkrt_host_check_not_capturing(device, "memory allocation"));
  void* ptr = NULL;
  TKRT_RETURN_IF_ERROR(tkrt_host_alloc_impl(size, "device memory", &ptr));
  *out_ptr = (tkrt_deviceptr_t)(uintptr_t)ptr;
  return NULL;
}

tkrt_status_t tkrt_host_memory_free(tkrt_device_t* device, tkrt_deviceptr_t ptr) {
  /* As cuMemFree: work queued before the free may still use the memory, so it finishes first. */
  tkrt_host_device_drain(tkrt_host_device_cast(device));
  return tkrt_host_free_impl((void*)(uintptr_t)ptr, "device memory");
}

tkrt_status_t tkrt_host_host_alloc(tkrt_device_t* device, size_t size, void** out_ptr) {
  TKRT_RETURN_IF_ERROR(tkrt_host_check_not_capturing(device, "pinned memory allocation"));
  return tkrt_host_alloc_impl(size, "pinned host memory", out_ptr);
}

tkrt_status_t tkrt_host_host_free(tkrt_device_t* device, void* ptr) {
  (void)device;
  return tkrt_host_free_impl(ptr, "pinned host memory");
}

tkrt_status_t tkrt_host_memory_info(tkrt_device_t* device, size_t* out_free,
                                           size_t* out_total) {
  long page = sysconf(_SC_PAGESIZE), available = sysconf(_SC_AVPHYS_PAGES);
  *out_free = page > 0 && available > 0 ? (size_t)page * (size_t)available : 0;
  *out_total = device->info.total_memory;
  return NULL;
}

/* ---------------------------------------------------------------- device */

void tkrt_host_destroy(tkrt_device_t* device) {
  tkrt_host_device_t* host = tkrt_host_device_cast(device);
  for (;;) { /* user streams left behind are drained and freed, the default one last */
    pthread_mutex_lock(&host->streams_lock);
    tkrt_host_stream_t* stream = host->streams;
    pthread_mutex_unlock(&host->streams_lock);
    if (!stream) break;
    tkrt_host_stream_delete(stream);
  }
  tkrt_host_pool_destroy(host->pool);
  pthread_mutex_destroy(&host->streams_lock);
  free(host);
}

/* The worker count asked for, or one per online CPU. */
static tkrt_status_t tkrt_host_worker_count(uint32_t asked, uint32_t* out_count) {
  long count = asked;
  if (asked > TKRT_HOST_MAX_WORKERS) {
    return TKRT_STATUS_MAKE(TKRT_STATUS_INVALID_ARGUMENT,
                            "host_threads is %u; the host backend runs 1 to %u worker threads",
                            asked, TKRT_HOST_MAX_WORKERS);
  }
  if (count == 0) {
    count = sysconf(_SC_NPROCESSORS_ONLN);
    if (count < 1) count = 1;
    if (count > (long)TKRT_HOST_MAX_WORKERS) count = TKRT_HOST_MAX_WORKERS;
  }
  *out_count = (uint32_t)count;
  return NULL;
}

static void tkrt_host_cpu_name(char* out, size_t capacity, uint32_t threads) {
  char model[192] = "CPU";
  FILE* file = fopen("/proc/cpuinfo", "r");
  if (file) {
    char line[512];
    while (fgets(line, sizeof(line), file)) {
      if (strncmp(line, "model name", 10) == 0) {
        const char* colon = strchr(line, ':');
        if (colon) {
          snprintf(model, sizeof(model), "%s", colon + 1 + (colon[1] == ' '));
          model[strcspn(model, "\n")] = '\0';
        }
        break;
      }
    }
    fclose(file);
  }
  snprintf(out, capacity, "host %s (%u threads)", model, threads);
}


tkrt_status_t tkrt_host_device_create(const tkrt_hal_backend_t* backend,
                                      const tkrt_device_options_t* options,
                                      tkrt_device_t** out_device) {
  int ordinal = options->ordinal;
  if (ordinal != 0) {
    return TKRT_STATUS_MAKE(TKRT_STATUS_OUT_OF_RANGE,
                            "the host backend has one device (ordinal 0), not ordinal %d", ordinal);
  }
  tkrt_host_device_t* host = calloc(1, sizeof(*host));
  if (!host) return TKRT_STATUS_MAKE(TKRT_STATUS_RESOURCE_EXHAUSTED, "out of host memory");
  tkrt_hal_device_initialize(&host->base, backend, &tkrt_host_device_vtable, ordinal);
  pthread_mutex_init(&host->streams_lock, NULL);
  atomic_init(&host->capturing_streams, 0);
  uint32_t workers = 1;
  tkrt_status_t status = tkrt_host_worker_count(options->host_threads, &workers);
  if (!status) status = tkrt_host_pool_create(workers - 1, &host->pool);
  if (!status) status = tkrt_host_stream_new(host, &host->default_stream);
  if (status) {
    tkrt_host_destroy(&host->base);
    return status;
  }

  tkrt_device_info_t* info = &host->base.info;
  tkrt_host_cpu_name(info->name, sizeof(info->name), workers);
#if defined(__x86_64__)
  snprintf(info->arch, sizeof(info->arch), "x86_64");
#else
  snprintf(info->arch, sizeof(info->arch), "aarch64");
#endif
  info->warp_size = TKRT_HOST_WARP_SIZE;
  info->sm_count = workers;
  info->max_threads_per_block = TKRT_HOST_MAX_THREADS_PER_BLOCK;
  info->max_block_dim[0] = info->max_block_dim[1] = 1024;
  info->max_block_dim[2] = 64;
  info->max_grid_dim[0] = TKRT_HOST_MAX_GRID_X;
  info->max_grid_dim[1] = info->max_grid_dim[2] = TKRT_HOST_MAX_GRID_YZ;
  info->max_shared_per_block = TKRT_HOST_SHARED_DEFAULT;
  info->max_shared_per_block_optin = TKRT_HOST_SHARED_OPTIN;
  info->max_cluster_size = TKRT_HOST_MAX_CLUSTER;
  long pages = sysconf(_SC_PHYS_PAGES), page = sysconf(_SC_PAGESIZE);
  info->total_memory = pages > 0 && page > 0 ? (uint64_t)pages * (uint64_t)page : 0;
  info->driver_version = TKRT_VERSION_MAJOR * 10000 + TKRT_VERSION_MINOR * 100 +
                         TKRT_VERSION_PATCH;
  info->features = TKRT_DEVICE_FEATURE_CLUSTER | TKRT_DEVICE_FEATURE_COOPERATIVE |
                   TKRT_DEVICE_FEATURE_GRAPHS;
  TKRT_LOG_AT(TKRT_LOG_INFO, "host", "device 0: %s, %s", info->name, info->arch);
  *out_device = &host->base;
  return NULL;
}

/* ---------------------------------------------------------------- vtable */

static const tkrt_hal_device_vtable_t tkrt_host_device_vtable = {
    TKRT_HAL_REQUIRED_ENTRIES(tkrt_host)
    .function_set_shared_limit = NULL, /* each launch gets its shared memory */
    .encode_tma = NULL, /* the host has no TMA */
};
