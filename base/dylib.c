/* SPDX-License-Identifier: Apache-2.0 */
/* tkrt: dlopen helper that remembers every failed attempt for the error message. */
#include "base/dylib.h"

#include <dlfcn.h>
#include <stdio.h>
#include <string.h>

tkrt_status_t tkrt_dylib_open(const char* const* names, size_t count, int prefer_loaded,
                              void** out_handle, const char** out_opened_name) {
  char tried[2048];
  size_t used = 0;
  tried[0] = '\0';
  if (prefer_loaded) {
    for (size_t i = 0; i < count; ++i) {
      void* handle = dlopen(names[i], RTLD_NOW | RTLD_LOCAL | RTLD_NOLOAD);
      if (handle) {
        *out_handle = handle;
        if (out_opened_name) *out_opened_name = names[i];
        return NULL;
      }
    }
  }
  for (size_t i = 0; i < count; ++i) {
    void* handle = dlopen(names[i], RTLD_NOW | RTLD_LOCAL);
    if (handle) {
      *out_handle = handle;
      if (out_opened_name) *out_opened_name = names[i];
      return NULL;
    }
    const char* why = dlerror();
    int n = snprintf(tried + used, sizeof(tried) - used, "%s%s (%s)", i ? "; " : "", names[i],
                     why ? why : "unknown loader error");
    if (n > 0) used += (size_t)n < sizeof(tried) - used ? (size_t)n : sizeof(tried) - used - 1;
  }
  return TKRT_STATUS_MAKE(TKRT_STATUS_UNAVAILABLE, "could not load any of: %s", tried);
}

void* tkrt_dylib_symbol(void* handle, const char* name) { return dlsym(handle, name); }
