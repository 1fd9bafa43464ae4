/* SPDX-License-Identifier: Apache-2.0 */
/* tkrt: dlopen helper that remembers every failed attempt for the error message, and the
 * open-once record of a vendor library's load (see dylib.h). */
#include "base/dylib.h"

#include <dlfcn.h>
#include <stdio.h>
#include <string.h>

#include "tkrt/device.h"

_Static_assert(TKRT_DYLIB_ONCE_MESSAGE_MAX == TKRT_REASON_MAX,
               "a probe's reason holds a kept load failure whole");

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

tkrt_status_t tkrt_dylib_once_at(tkrt_dylib_once_t* once, tkrt_status_t (*load)(void* context),
                                 void* context, bool* out_ran, const char* file, int line) {
  if (out_ran) *out_ran = false;
  if (!atomic_load_explicit(&once->done, memory_order_acquire)) {
    pthread_mutex_lock(&once->lock);
    if (!atomic_load_explicit(&once->done, memory_order_relaxed)) {
      tkrt_status_t status = load(context);
      once->code = status ? tkrt_status_code(status) : TKRT_STATUS_OK;
      snprintf(once->message, sizeof(once->message), "%s",
               status ? tkrt_status_message(status) : "");
      tkrt_status_free(status);
      atomic_store_explicit(&once->done, true, memory_order_release);
      if (out_ran) *out_ran = true;
    }
    pthread_mutex_unlock(&once->lock);
  }
  if (once->code == TKRT_STATUS_OK) return NULL;
  return tkrt_status_make(once->code, file, line, "%s", once->message);
}

bool tkrt_dylib_once_loaded(tkrt_dylib_once_t* once) {
  return atomic_load_explicit(&once->done, memory_order_acquire) && once->code == TKRT_STATUS_OK;
}

const char* tkrt_dylib_once_message(const tkrt_dylib_once_t* once) { return once->message; }
