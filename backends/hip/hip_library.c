/* SPDX-License-Identifier: Apache-2.0 */
/* tkrt HIP backend: finds libamdhip64 at run time (an already-loaded copy first, then the sonames
 * of ROCm 7, 6 and 5), resolves its entry points and initialises it, once per process. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "backends/hip/hip_internal.h"
#include "base/dylib.h"
#include "base/log.h"

/* ---------------------------------------------------------------- library names */

/* Fills `out` with the names to try: `spec` (a ':'-separated list of paths or sonames) when it is
 * set, else the sonames of ROCm 7, 6 and 5, then libamdhip64.so. */
void tkrt_hip_library_names_get(const char* spec, tkrt_hip_library_names_t* out) {
  static const char* const defaults[] = {"libamdhip64.so.7", "libamdhip64.so.6",
                                         "libamdhip64.so.5", "libamdhip64.so"};
  memset(out, 0, sizeof(*out));
  const char* value = spec;
  if (value && *value) {
    out->overridden = true;
    snprintf(out->storage, sizeof(out->storage), "%s", value);
    for (char* cursor = out->storage; cursor && out->count < TKRT_HIP_LIBRARY_NAMES_MAX;) {
      char* colon = strchr(cursor, ':');
      if (colon) *colon = '\0';
      if (*cursor) out->names[out->count++] = cursor;
      cursor = colon ? colon + 1 : NULL;
    }
    return;
  }
  for (size_t i = 0; i < sizeof(defaults) / sizeof(defaults[0]); ++i) {
    out->names[out->count++] = defaults[i];
  }
}

/* Oldest runtime whose hipDeviceAttribute_t numbering we use (see hip_device.c). */
#define TKRT_HIP_MIN_RUNTIME_VERSION 50000000

typedef struct tkrt_hip_symbol_entry {
  const char* name;
  size_t offset;
  bool required;
} tkrt_hip_symbol_entry_t;

static const tkrt_hip_symbol_entry_t tkrt_hip_symbol_table[] = {
#define TKRT_HIP_REQUIRED_ENTRY(name) {#name, offsetof(tkrt_hip_symbols_t, name), true},
#define TKRT_HIP_OPTIONAL_ENTRY(name) {#name, offsetof(tkrt_hip_symbols_t, name), false},
    TKRT_HIP_SYMBOLS(TKRT_HIP_REQUIRED_ENTRY, TKRT_HIP_OPTIONAL_ENTRY)
#undef TKRT_HIP_REQUIRED_ENTRY
#undef TKRT_HIP_OPTIONAL_ENTRY
};

/* The library, filled once by the load below; the outcome (usable, or why not) is kept by the
 * open-once record (base/dylib.h), which turns it into a fresh status for every caller. */
static tkrt_hip_library_t tkrt_hip_library;
static tkrt_dylib_once_t tkrt_hip_load_record = TKRT_DYLIB_ONCE_INIT;

void tkrt_hip_format_version(int version, char* buffer, size_t capacity) {
  if (version <= 0) {
    snprintf(buffer, capacity, "unknown");
    return;
  }
  snprintf(buffer, capacity, "%d.%d.%d", version / 10000000, version / 100000 % 100,
           version % 100000);
}

static const char* tkrt_hip_error_name(const tkrt_hip_symbols_t* api, hipError_t error) {
  const char* name = api->hipGetErrorName ? api->hipGetErrorName(error) : NULL;
  return name ? name : "unknown hipError_t";
}

/* `context`: the names to try (tkrt_hip_library_names_get's spec), or NULL. */
static tkrt_status_t tkrt_hip_load_once(void* context) {
  const char* spec = context;
  tkrt_hip_library_t* lib = &tkrt_hip_library;
  /* Static: the names are read once, and `opened` below points into them. */
  static tkrt_hip_library_names_t names;
  tkrt_hip_library_names_get(spec, &names);
  void* handle = NULL;
  const char* opened = NULL;
  tkrt_status_t status = tkrt_dylib_open(names.names, names.count, 1, &handle, &opened);
  if (status) {
    tkrt_status_t failure = TKRT_STATUS_MAKE(
        TKRT_STATUS_UNAVAILABLE, "HIP runtime library not found%s: %s",
        names.overridden ? " (names from the hip_library option, TKRT_HIP_LIBRARY)" : "",
        tkrt_status_message(status));
    tkrt_status_free(status);
    return failure;
  }
  /* The name is kept for messages. */
  static char opened_copy[256];
  snprintf(opened_copy, sizeof(opened_copy), "%s", opened);
  lib->handle = handle;
  lib->opened_name = opened_copy;

  char missing[512] = "";
  lib->api.hipGetErrorName =
      (tkrt_hip_pfn_hipGetErrorName)tkrt_dylib_symbol(handle, "hipGetErrorName");
  if (!lib->api.hipGetErrorName) snprintf(missing, sizeof(missing), "hipGetErrorName");
  for (size_t i = 0; i < sizeof(tkrt_hip_symbol_table) / sizeof(tkrt_hip_symbol_table[0]); ++i) {
    const tkrt_hip_symbol_entry_t* entry = &tkrt_hip_symbol_table[i];
    void* symbol = tkrt_dylib_symbol(handle, entry->name);
    /* POSIX guarantees data and function pointers convert (dlsym relies on it). */
    memcpy((char*)&lib->api + entry->offset, &symbol, sizeof(symbol));
    if (!symbol && entry->required) {
      size_t used = strlen(missing);
      snprintf(missing + used, sizeof(missing) - used, "%s%s", used ? ", " : "", entry->name);
    }
  }
  if (missing[0]) {
    return TKRT_STATUS_MAKE(TKRT_STATUS_UNAVAILABLE,
                            "%s lacks required HIP entry points (%s); tkrt needs ROCm 5.0 or newer",
                            opened_copy, missing);
  }

  const tkrt_hip_symbols_t* api = &lib->api;
  char version_text[32];
  hipError_t error = api->hipRuntimeGetVersion(&lib->runtime_version);
  if (error != hipSuccess) lib->runtime_version = 0;
  tkrt_hip_format_version(lib->runtime_version, version_text, sizeof(version_text));
  if (lib->runtime_version > 0 && lib->runtime_version < TKRT_HIP_MIN_RUNTIME_VERSION) {
    return TKRT_STATUS_MAKE(TKRT_STATUS_UNAVAILABLE,
                            "%s is HIP %s; tkrt needs ROCm 5.0 or newer (older runtimes number "
                            "device attributes differently)",
                            opened_copy, version_text);
  }
  if (api->hipDriverGetVersion(&lib->driver_version) != hipSuccess) lib->driver_version = 0;

  hipError_t init_error = api->hipInit(0);
  int count = 0;
  hipError_t count_error = api->hipGetDeviceCount(&count);
  if (count_error == hipErrorNoDevice || (count_error == hipSuccess && count <= 0)) {
    return TKRT_STATUS_MAKE(TKRT_STATUS_UNAVAILABLE,
                            "HIP runtime found no device: no AMD GPU is visible to %s (HIP %s); "
                            "hipInit: %s (%d), hipGetDeviceCount: %s (%d), %d devices",
                            opened_copy, version_text, tkrt_hip_error_name(api, init_error),
                            (int)init_error, tkrt_hip_error_name(api, count_error),
                            (int)count_error, count_error == hipSuccess ? count : 0);
  }
  if (init_error != hipSuccess) {
    return TKRT_STATUS_MAKE(TKRT_STATUS_UNAVAILABLE, "hipInit failed in %s (HIP %s): %s (%d)",
                            opened_copy, version_text, tkrt_hip_error_name(api, init_error),
                            (int)init_error);
  }
  if (count_error != hipSuccess) {
    return TKRT_STATUS_MAKE(TKRT_STATUS_UNAVAILABLE,
                            "hipGetDeviceCount failed in %s (HIP %s): %s (%d)", opened_copy,
                            version_text, tkrt_hip_error_name(api, count_error), (int)count_error);
  }
  lib->device_count = count;
  return NULL;
}

tkrt_status_t tkrt_hip_library_get(const char* names, const tkrt_hip_library_t** out_library) {
  bool loaded_here = false;
  tkrt_status_t status =
      tkrt_dylib_once(&tkrt_hip_load_record, tkrt_hip_load_once, (void*)names, &loaded_here);
  /* Said by the thread that loaded, after the load (a sink may block). */
  if (loaded_here && !status) {
    char version[32];
    tkrt_hip_format_version(tkrt_hip_library.runtime_version, version, sizeof(version));
    TKRT_LOG_AT(TKRT_LOG_INFO, "hip", "loaded %s (HIP %s, %d device%s)",
                tkrt_hip_library.opened_name, version, tkrt_hip_library.device_count,
                tkrt_hip_library.device_count == 1 ? "" : "s");
  } else if (loaded_here) {
    TKRT_LOG_AT(TKRT_LOG_DEBUG, "hip", "runtime not loaded: %s",
                tkrt_dylib_once_message(&tkrt_hip_load_record));
  }
  if (status) return status;
  *out_library = &tkrt_hip_library;
  return NULL;
}
