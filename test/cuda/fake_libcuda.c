/* SPDX-License-Identifier: Apache-2.0 */
/* A stand-in libcuda.so.1 for testing the CUDA backend without a GPU: it exports only
 * cuGetProcAddress_v2 and emulates just enough of the driver (one sm_90 device, host memory,
 * a pretend JIT that turns PTX into "FAKECUBIN" images) to drive every backend code path.
 * FAKE_CUDA_MODE picks a scenario: "" (default), "nodevice", "zerodevices", "minimal" (no optional
 * entry points). Counters are exported as tkrt_cuda_fake_counters for the test to read. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define FAKE_API __attribute__((visibility("default")))

#include "backends/cuda/cuda_api.h"
#include "fake_libcuda.h"

static tkrt_cuda_fake_counters_t fake;
static _Thread_local CUcontext fake_current;
static int fake_primary_context; /* its address is the context handle */

FAKE_API tkrt_cuda_fake_counters_t* tkrt_cuda_fake_counters(void) { return &fake; }

static const char* fake_mode(void) {
  const char* mode = getenv("FAKE_CUDA_MODE");
  return mode ? mode : "";
}

enum { FAKE_STATIC_SHARED = 1024, FAKE_OPTIN = 232448, FAKE_DEFAULT_SHARED = 49152 };

typedef struct fake_function {
  char name[128];
  int dynamic_limit;
} fake_function_t;

typedef struct fake_module {
  fake_function_t functions[8];
  int count;
} fake_module_t;

typedef struct fake_stream {
  int capturing;
  int captured;
} fake_stream_t;

static CUresult fake_cuGetErrorName(CUresult error, const char** name) {
  switch ((int)error) {
    case 218: *name = "CUDA_ERROR_INVALID_PTX"; return CUDA_SUCCESS;
    case 200: *name = "CUDA_ERROR_INVALID_IMAGE"; return CUDA_SUCCESS;
    case 500: *name = "CUDA_ERROR_NOT_FOUND"; return CUDA_SUCCESS;
    case 1: *name = "CUDA_ERROR_INVALID_VALUE"; return CUDA_SUCCESS;
    default: *name = NULL; return CUDA_ERROR_INVALID_VALUE;
  }
}

static CUresult fake_cuGetErrorString(CUresult error, const char** text) {
  switch ((int)error) {
    case 218: *text = "a PTX JIT compilation failed"; return CUDA_SUCCESS;
    case 200: *text = "device kernel image is invalid"; return CUDA_SUCCESS;
    case 500: *text = "named symbol not found"; return CUDA_SUCCESS;
    case 1: *text = "invalid argument"; return CUDA_SUCCESS;
    default: *text = NULL; return CUDA_ERROR_INVALID_VALUE;
  }
}

static CUresult fake_cuDriverGetVersion(int* version) {
  *version = 13000;
  return CUDA_SUCCESS;
}

static CUresult fake_cuInit(unsigned flags) {
  (void)flags;
  return strcmp(fake_mode(), "nodevice") == 0 ? CUDA_ERROR_NO_DEVICE : CUDA_SUCCESS;
}

static CUresult fake_cuDeviceGetCount(int* count) {
  *count = strcmp(fake_mode(), "zerodevices") == 0 ? 0 : 1;
  return CUDA_SUCCESS;
}

static CUresult fake_cuDeviceGet(CUdevice* device, int ordinal) {
  if (ordinal != 0) return CUDA_ERROR_INVALID_DEVICE;
  *device = 0;
  return CUDA_SUCCESS;
}

static CUresult fake_cuDeviceGetName(char* name, int length, CUdevice device) {
  (void)device;
  snprintf(name, (size_t)length, "Fake H100 (tkrt test driver)");
  return CUDA_SUCCESS;
}

static CUresult fake_cuDeviceGetAttribute(int* value, CUdevice_attribute attribute,
                                          CUdevice device) {
  (void)device;
  switch (attribute) {
    case CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR: *value = 9; break;
    case CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR: *value = 0; break;
    case CU_DEVICE_ATTRIBUTE_WARP_SIZE: *value = 32; break;
    case CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT: *value = 132; break;
    case CU_DEVICE_ATTRIBUTE_MAX_THREADS_PER_BLOCK: *value = 1024; break;
    case CU_DEVICE_ATTRIBUTE_MAX_BLOCK_DIM_X: *value = 1024; break;
    case CU_DEVICE_ATTRIBUTE_MAX_BLOCK_DIM_Y: *value = 1024; break;
    case CU_DEVICE_ATTRIBUTE_MAX_BLOCK_DIM_Z: *value = 64; break;
    case CU_DEVICE_ATTRIBUTE_MAX_GRID_DIM_X: *value = 2147483647; break;
    case CU_DEVICE_ATTRIBUTE_MAX_GRID_DIM_Y: *value = 65535; break;
    case CU_DEVICE_ATTRIBUTE_MAX_GRID_DIM_Z: *value = 65535; break;
    case CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK: *value = FAKE_DEFAULT_SHARED; break;
    case CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK_OPTIN: *value = FAKE_OPTIN; break;
    case CU_DEVICE_ATTRIBUTE_COOPERATIVE_LAUNCH: *value = 1; break;
    case CU_DEVICE_ATTRIBUTE_CLUSTER_LAUNCH: *value = 1; break;
    default: return CUDA_ERROR_INVALID_VALUE;
  }
  return CUDA_SUCCESS;
}

static CUresult fake_cuDeviceTotalMem(size_t* bytes, CUdevice device) {
  (void)device;
  *bytes = (size_t)80 << 30;
  return CUDA_SUCCESS;
}

static CUresult fake_cuDevicePrimaryCtxRetain(CUcontext* context, CUdevice device) {
  (void)device;
  ++fake.primary_retained;
  *context = (CUcontext)&fake_primary_context;
  return CUDA_SUCCESS;
}

static CUresult fake_cuDevicePrimaryCtxRelease(CUdevice device) {
  (void)device;
  if (fake.primary_retained <= 0) return CUDA_ERROR_INVALID_CONTEXT;
  --fake.primary_retained;
  return CUDA_SUCCESS;
}

static CUresult fake_cuCtxGetCurrent(CUcontext* context) {
  *context = fake_current;
  return CUDA_SUCCESS;
}

static CUresult fake_cuCtxSetCurrent(CUcontext context) {
  ++fake.ctx_set_current;
  fake_current = context;
  return CUDA_SUCCESS;
}

static CUresult fake_require_context(void) {
  return fake_current == (CUcontext)&fake_primary_context ? CUDA_SUCCESS
                                                          : CUDA_ERROR_INVALID_CONTEXT;
}

/* A fake image is "FAKECUBIN\n" followed by PTX-like text; its kernels are the `.entry` names. */
static CUresult fake_cuModuleLoadData(CUmodule* module, const void* image) {
  if (fake_require_context()) return CUDA_ERROR_INVALID_CONTEXT;
  const char* text = image;
  if (strncmp(text, "FAKECUBIN\n", 10) != 0) return CUDA_ERROR_INVALID_IMAGE;
  fake_module_t* loaded = calloc(1, sizeof(*loaded));
  if (!loaded) return CUDA_ERROR_OUT_OF_MEMORY;
  for (const char* at = strstr(text, ".entry "); at && loaded->count < 8;
       at = strstr(at + 1, ".entry ")) {
    at += 7;
    size_t length = strcspn(at, "( \n");
    if (length >= sizeof(loaded->functions[0].name)) length = sizeof(loaded->functions[0].name) - 1;
    memcpy(loaded->functions[loaded->count].name, at, length);
    loaded->functions[loaded->count].dynamic_limit = FAKE_DEFAULT_SHARED - FAKE_STATIC_SHARED;
    ++loaded->count;
  }
  ++fake.module_loads;
  *module = (CUmodule)loaded;
  return CUDA_SUCCESS;
}

static CUresult fake_cuModuleUnload(CUmodule module) {
  free(module);
  return CUDA_SUCCESS;
}

static CUresult fake_cuModuleGetFunction(CUfunction* function, CUmodule module,
                                         const char* name) {
  fake_module_t* loaded = (fake_module_t*)module;
  for (int i = 0; i < loaded->count; ++i) {
    if (strcmp(loaded->functions[i].name, name) == 0) {
      *function = (CUfunction)&loaded->functions[i];
      return CUDA_SUCCESS;
    }
  }
  return CUDA_ERROR_NOT_FOUND;
}

static CUresult fake_cuFuncGetAttribute(int* value, CUfunction_attribute attribute,
                                        CUfunction function) {
  fake_function_t* f = (fake_function_t*)function;
  switch (attribute) {
    case CU_FUNC_ATTRIBUTE_SHARED_SIZE_BYTES: *value = FAKE_STATIC_SHARED; break;
    case CU_FUNC_ATTRIBUTE_MAX_THREADS_PER_BLOCK: *value = 1024; break;
    case CU_FUNC_ATTRIBUTE_NUM_REGS: *value = 40; break;
    case CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES: *value = f->dynamic_limit; break;
    default: return CUDA_ERROR_INVALID_VALUE;
  }
  return CUDA_SUCCESS;
}

static CUresult fake_cuFuncSetAttribute(CUfunction function, CUfunction_attribute attribute,
                                        int value) {
  fake_function_t* f = (fake_function_t*)function;
  ++fake.func_set_attribute;
  fake.last_func_set_attribute_value = value;
  if (attribute != CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES) return CUDA_ERROR_INVALID_VALUE;
  if (value > FAKE_OPTIN - FAKE_STATIC_SHARED) return CUDA_ERROR_INVALID_VALUE;
  f->dynamic_limit = value;
  return CUDA_SUCCESS;
}

typedef struct fake_link {
  char* error_log;
  size_t error_log_size;
  char* cubin;
  size_t cubin_size;
} fake_link_t;

static CUresult fake_cuLinkCreate(unsigned count, CUjit_option* options, void** values,
                                  CUlinkState* state) {
  fake_link_t* link = calloc(1, sizeof(*link));
  if (!link) return CUDA_ERROR_OUT_OF_MEMORY;
  for (unsigned i = 0; i < count; ++i) {
    if (options[i] == CU_JIT_ERROR_LOG_BUFFER) link->error_log = values[i];
    if (options[i] == CU_JIT_ERROR_LOG_BUFFER_SIZE_BYTES) {
      link->error_log_size = (size_t)(uintptr_t)values[i];
    }
  }
  *state = (CUlinkState)link;
  return CUDA_SUCCESS;
}

static CUresult fake_cuLinkAddData(CUlinkState state, CUjitInputType type, void* data,
                                   size_t size, const char* name, unsigned count,
                                   CUjit_option* options, void** values) {
  (void)name, (void)count, (void)options, (void)values;
  fake_link_t* link = (fake_link_t*)state;
  const char* ptx = data;
  if (type != CU_JIT_INPUT_PTX || size == 0 || ptx[size - 1] != '\0') {
    return CUDA_ERROR_INVALID_VALUE; /* the backend must pass NUL-terminated PTX and its size */
  }
  if (strstr(ptx, "SYNTAX_ERROR")) {
    if (link->error_log) {
      snprintf(link->error_log, link->error_log_size,
               "ptxas application ptx input, line 3; fatal   : Parsing error near "
               "'SYNTAX_ERROR': syntax error");
    }
    return CUDA_ERROR_INVALID_PTX;
  }
  link->cubin_size = 10 + size;
  link->cubin = malloc(link->cubin_size);
  if (!link->cubin) return CUDA_ERROR_OUT_OF_MEMORY;
  memcpy(link->cubin, "FAKECUBIN\n", 10);
  memcpy(link->cubin + 10, ptx, size);
  return CUDA_SUCCESS;
}

static CUresult fake_cuLinkComplete(CUlinkState state, void** cubin, size_t* size) {
  fake_link_t* link = (fake_link_t*)state;
  if (!link->cubin) return CUDA_ERROR_INVALID_VALUE;
  ++fake.jit_compiles;
  *cubin = link->cubin;
  *size = link->cubin_size;
  return CUDA_SUCCESS;
}

static CUresult fake_cuLinkDestroy(CUlinkState state) {
  fake_link_t* link = (fake_link_t*)state;
  free(link->cubin);
  free(link);
  return CUDA_SUCCESS;
}

static void fake_record_launch(CUstream stream) {
  fake_stream_t* s = (fake_stream_t*)stream;
  if (s && s->capturing) {
    ++s->captured;
    ++fake.captured_launches;
  }
}

static CUresult fake_cuLaunchKernel(CUfunction f, unsigned gx, unsigned gy, unsigned gz,
                                    unsigned bx, unsigned by, unsigned bz, unsigned shared,
                                    CUstream stream, void** params, void** extra) {
  (void)gx, (void)gy, (void)gz, (void)bx, (void)by, (void)bz, (void)params, (void)extra;
  if (fake_require_context()) return CUDA_ERROR_INVALID_CONTEXT;
  fake_function_t* function = (fake_function_t*)f;
  if ((int)shared > function->dynamic_limit) return CUDA_ERROR_INVALID_VALUE;
  ++fake.launches;
  fake_record_launch(stream);
  return CUDA_SUCCESS;
}

static CUresult fake_cuLaunchKernelEx(const CUlaunchConfig* config, CUfunction f, void** params,
                                      void** extra) {
  (void)params, (void)extra;
  if (fake_require_context()) return CUDA_ERROR_INVALID_CONTEXT;
  fake_function_t* function = (fake_function_t*)f;
  if ((int)config->sharedMemBytes > function->dynamic_limit) return CUDA_ERROR_INVALID_VALUE;
  ++fake.launches_ex;
  fake.last_ex_num_attrs = (int)config->numAttrs;
  fake.last_cluster_x = 0;
  fake.last_spread = fake.last_cooperative = fake.last_pdl = 0;
  for (unsigned i = 0; i < config->numAttrs; ++i) {
    const CUlaunchAttribute* a = &config->attrs[i];
    if (a->id == CU_LAUNCH_ATTRIBUTE_CLUSTER_DIMENSION) {
      if (config->gridDimX % a->value.clusterDim.x) return CUDA_ERROR_INVALID_CLUSTER_SIZE;
      fake.last_cluster_x = a->value.clusterDim.x;
    }
    if (a->id == CU_LAUNCH_ATTRIBUTE_CLUSTER_SCHEDULING_POLICY_PREFERENCE) {
      fake.last_spread = a->value.clusterSchedulingPolicyPreference ==
                         CU_CLUSTER_SCHEDULING_POLICY_SPREAD;
    }
    if (a->id == CU_LAUNCH_ATTRIBUTE_COOPERATIVE) fake.last_cooperative = a->value.cooperative;
    if (a->id == CU_LAUNCH_ATTRIBUTE_PROGRAMMATIC_STREAM_SERIALIZATION) {
      fake.last_pdl = a->value.programmaticStreamSerializationAllowed;
    }
  }
  fake_record_launch(config->hStream);
  return CUDA_SUCCESS;
}

static CUresult fake_cuTensorMapEncodeTiled(void) { return CUDA_ERROR_NOT_SUPPORTED; }

static CUresult fake_cuMemAlloc(CUdeviceptr* ptr, size_t size) {
  if (fake_require_context()) return CUDA_ERROR_INVALID_CONTEXT;
  if (size > ((size_t)1 << 40)) return CUDA_ERROR_OUT_OF_MEMORY;
  void* p = malloc(size);
  if (!p) return CUDA_ERROR_OUT_OF_MEMORY;
  ++fake.live_allocations;
  *ptr = (CUdeviceptr)(uintptr_t)p;
  return CUDA_SUCCESS;
}

static CUresult fake_cuMemFree(CUdeviceptr ptr) {
  free((void*)(uintptr_t)ptr);
  --fake.live_allocations;
  return CUDA_SUCCESS;
}

static CUresult fake_cuMemHostAlloc(void** ptr, size_t size, unsigned flags) {
  (void)flags;
  *ptr = malloc(size);
  if (!*ptr) return CUDA_ERROR_OUT_OF_MEMORY;
  ++fake.live_allocations;
  return CUDA_SUCCESS;
}

static CUresult fake_cuMemFreeHost(void* ptr) {
  free(ptr);
  --fake.live_allocations;
  return CUDA_SUCCESS;
}

static CUresult fake_cuMemGetInfo(size_t* free_bytes, size_t* total) {
  *free_bytes = (size_t)79 << 30;
  *total = (size_t)80 << 30;
  return CUDA_SUCCESS;
}

static CUresult fake_cuMemsetD8Async(CUdeviceptr dst, unsigned char value, size_t size,
                                     CUstream stream) {
  (void)stream;
  memset((void*)(uintptr_t)dst, value, size);
  return CUDA_SUCCESS;
}

static CUresult fake_cuMemcpyHtoDAsync(CUdeviceptr dst, const void* src, size_t size,
                                       CUstream stream) {
  (void)stream;
  memcpy((void*)(uintptr_t)dst, src, size);
  return CUDA_SUCCESS;
}

static CUresult fake_cuMemcpyDtoHAsync(void* dst, CUdeviceptr src, size_t size, CUstream stream) {
  (void)stream;
  memcpy(dst, (const void*)(uintptr_t)src, size);
  return CUDA_SUCCESS;
}

static CUresult fake_cuMemcpyDtoDAsync(CUdeviceptr dst, CUdeviceptr src, size_t size,
                                       CUstream stream) {
  (void)stream;
  memmove((void*)(uintptr_t)dst, (const void*)(uintptr_t)src, size);
  return CUDA_SUCCESS;
}

static CUresult fake_cuStreamCreate(CUstream* stream, unsigned flags) {
  if (flags != CU_STREAM_NON_BLOCKING) return CUDA_ERROR_INVALID_VALUE;
  fake_stream_t* s = calloc(1, sizeof(*s));
  if (!s) return CUDA_ERROR_OUT_OF_MEMORY;
  *stream = (CUstream)s;
  return CUDA_SUCCESS;
}

static CUresult fake_cuStreamDestroy(CUstream stream) {
  free(stream);
  return CUDA_SUCCESS;
}

static CUresult fake_cuStreamSynchronize(CUstream stream) {
  fake_stream_t* s = (fake_stream_t*)stream;
  return s && s->capturing ? CUDA_ERROR_STREAM_CAPTURE_UNSUPPORTED : CUDA_SUCCESS;
}

static CUresult fake_cuCtxSynchronize(CUcontext context) {
  (void)context;
  return CUDA_SUCCESS;
}

static CUresult fake_cuStreamIsCapturing(CUstream stream, CUstreamCaptureStatus* status) {
  fake_stream_t* s = (fake_stream_t*)stream;
  *status = s && s->capturing ? CU_STREAM_CAPTURE_STATUS_ACTIVE : CU_STREAM_CAPTURE_STATUS_NONE;
  return CUDA_SUCCESS;
}

static CUresult fake_cuStreamBeginCapture(CUstream stream, CUstreamCaptureMode mode) {
  fake_stream_t* s = (fake_stream_t*)stream;
  if (!s || s->capturing) return CUDA_ERROR_ILLEGAL_STATE;
  if (mode != CU_STREAM_CAPTURE_MODE_THREAD_LOCAL) return CUDA_ERROR_INVALID_VALUE;
  s->capturing = 1;
  s->captured = 0;
  return CUDA_SUCCESS;
}

static CUresult fake_cuStreamEndCapture(CUstream stream, CUgraph* graph) {
  fake_stream_t* s = (fake_stream_t*)stream;
  if (!s || !s->capturing) return CUDA_ERROR_ILLEGAL_STATE;
  s->capturing = 0;
  int* nodes = malloc(sizeof(int));
  if (!nodes) return CUDA_ERROR_OUT_OF_MEMORY;
  *nodes = s->captured;
  *graph = (CUgraph)nodes;
  return CUDA_SUCCESS;
}

static CUresult fake_cuGraphInstantiateWithFlags(CUgraphExec* exec, CUgraph graph,
                                                 unsigned long long flags) {
  (void)flags;
  int* nodes = malloc(sizeof(int));
  if (!nodes) return CUDA_ERROR_OUT_OF_MEMORY;
  *nodes = *(int*)graph;
  *exec = (CUgraphExec)nodes;
  return CUDA_SUCCESS;
}

static CUresult fake_cuGraphDestroy(CUgraph graph) {
  free(graph);
  return CUDA_SUCCESS;
}

static CUresult fake_cuGraphLaunch(CUgraphExec exec, CUstream stream) {
  (void)stream;
  fake.graph_launches += 1;
  fake.launches += *(int*)exec;
  return CUDA_SUCCESS;
}

static CUresult fake_cuGraphExecDestroy(CUgraphExec exec) {
  free(exec);
  return CUDA_SUCCESS;
}

static CUresult fake_cuEventCreate(CUevent* event, unsigned flags) {
  if (flags != CU_EVENT_DEFAULT) return CUDA_ERROR_INVALID_VALUE;
  *event = (CUevent)calloc(1, 16);
  return *event ? CUDA_SUCCESS : CUDA_ERROR_OUT_OF_MEMORY;
}

static CUresult fake_cuEventDestroy(CUevent event) {
  free(event);
  return CUDA_SUCCESS;
}

static CUresult fake_cuEventRecord(CUevent event, CUstream stream) {
  (void)stream;
  ((int*)event)[0] = 1;
  return CUDA_SUCCESS;
}

static CUresult fake_cuEventSynchronize(CUevent event) {
  return ((int*)event)[0] ? CUDA_SUCCESS : CUDA_ERROR_INVALID_HANDLE;
}

static CUresult fake_cuEventElapsedTime(float* ms, CUevent start, CUevent end) {
  if (!((int*)start)[0] || !((int*)end)[0]) return CUDA_ERROR_INVALID_HANDLE;
  *ms = 1.5f;
  return CUDA_SUCCESS;
}

typedef struct fake_entry {
  const char* name;
  void* function;
  int optional; /* left out in mode "minimal" */
} fake_entry_t;

#define FAKE_ENTRY(name, optional) {#name, (void*)fake_##name, optional}

static const fake_entry_t fake_entries[] = {
    FAKE_ENTRY(cuGetErrorName, 1),
    FAKE_ENTRY(cuGetErrorString, 1),
    FAKE_ENTRY(cuDriverGetVersion, 0),
    FAKE_ENTRY(cuInit, 0),
    FAKE_ENTRY(cuDeviceGetCount, 0),
    FAKE_ENTRY(cuDeviceGet, 0),
    FAKE_ENTRY(cuDeviceGetName, 0),
    FAKE_ENTRY(cuDeviceGetAttribute, 0),
    FAKE_ENTRY(cuDeviceTotalMem, 0),
    FAKE_ENTRY(cuDevicePrimaryCtxRetain, 0),
    FAKE_ENTRY(cuDevicePrimaryCtxRelease, 0),
    FAKE_ENTRY(cuCtxGetCurrent, 0),
    FAKE_ENTRY(cuCtxSetCurrent, 0),
    FAKE_ENTRY(cuModuleLoadData, 0),
    FAKE_ENTRY(cuModuleUnload, 0),
    FAKE_ENTRY(cuModuleGetFunction, 0),
    FAKE_ENTRY(cuFuncGetAttribute, 0),
    FAKE_ENTRY(cuFuncSetAttribute, 0),
    FAKE_ENTRY(cuLinkCreate, 0),
    FAKE_ENTRY(cuLinkAddData, 0),
    FAKE_ENTRY(cuLinkComplete, 0),
    FAKE_ENTRY(cuLinkDestroy, 0),
    FAKE_ENTRY(cuLaunchKernel, 0),
    FAKE_ENTRY(cuLaunchKernelEx, 1),
    FAKE_ENTRY(cuTensorMapEncodeTiled, 1),
    FAKE_ENTRY(cuMemAlloc, 0),
    FAKE_ENTRY(cuMemFree, 0),
    FAKE_ENTRY(cuMemHostAlloc, 0),
    FAKE_ENTRY(cuMemFreeHost, 0),
    FAKE_ENTRY(cuMemGetInfo, 0),
    FAKE_ENTRY(cuMemsetD8Async, 0),
    FAKE_ENTRY(cuMemcpyHtoDAsync, 0),
    FAKE_ENTRY(cuMemcpyDtoHAsync, 0),
    FAKE_ENTRY(cuMemcpyDtoDAsync, 0),
    FAKE_ENTRY(cuStreamCreate, 0),
    FAKE_ENTRY(cuStreamDestroy, 0),
    FAKE_ENTRY(cuStreamSynchronize, 0),
    FAKE_ENTRY(cuCtxSynchronize, 0),
    FAKE_ENTRY(cuStreamIsCapturing, 0),
    FAKE_ENTRY(cuStreamBeginCapture, 1),
    FAKE_ENTRY(cuStreamEndCapture, 1),
    FAKE_ENTRY(cuGraphInstantiateWithFlags, 1),
    FAKE_ENTRY(cuGraphDestroy, 1),
    FAKE_ENTRY(cuGraphLaunch, 1),
    FAKE_ENTRY(cuGraphExecDestroy, 1),
    FAKE_ENTRY(cuEventCreate, 0),
    FAKE_ENTRY(cuEventDestroy, 0),
    FAKE_ENTRY(cuEventRecord, 0),
    FAKE_ENTRY(cuEventSynchronize, 0),
    FAKE_ENTRY(cuEventElapsedTime, 0),
};

/* cuGetProcAddress_v2 (CUDA 12.0's variant), the name the backend looks up. Only
 * base names are accepted, the legacy-stream flavour is insisted on, and asking for a version
 * above the driver's fails as the real driver does. */
FAKE_API CUresult cuGetProcAddress_v2(const char* symbol, void** pfn, int version, cuuint64_t flags,
                                   CUdriverProcAddressQueryResult* status) {
  *pfn = NULL;
  if (status) *status = CU_GET_PROC_ADDRESS_SYMBOL_NOT_FOUND;
  if (version > 13000) return CUDA_ERROR_INVALID_VALUE;
  if (flags != CU_GET_PROC_ADDRESS_LEGACY_STREAM) return CUDA_ERROR_INVALID_VALUE;
  int minimal = strcmp(fake_mode(), "minimal") == 0;
  for (size_t i = 0; i < sizeof(fake_entries) / sizeof(fake_entries[0]); ++i) {
    if (strcmp(fake_entries[i].name, symbol) != 0) continue;
    if (minimal && fake_entries[i].optional) return CUDA_SUCCESS;
    *pfn = fake_entries[i].function;
    if (status) *status = CU_GET_PROC_ADDRESS_SUCCESS;
    return CUDA_SUCCESS;
  }
  return CUDA_SUCCESS;
}
