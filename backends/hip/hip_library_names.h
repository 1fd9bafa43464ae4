/* tkrt HIP backend: the names libamdhip64 is looked for under, in one place for the backend (which
 * opens the library) and the XLA adapter (which only looks for the copy XLA already loaded). */
#ifndef TKRT_BACKENDS_HIP_HIP_LIBRARY_NAMES_H_
#define TKRT_BACKENDS_HIP_HIP_LIBRARY_NAMES_H_

/* Header-only on purpose: it needs no HIP header, so libtkrt_xla can use it even in a build
 * without the HIP backend (which is compiled only where hip/hip_runtime_api.h exists). */
#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Replaces the library names tried (libamdhip64.so.7, .so.6, .so.5, .so) with a ':'-separated
 * list of paths or sonames (at most TKRT_HIP_LIBRARY_NAMES_MAX). Meant for tests and for picking
 * one ROCm install: with TKRT_HIP_LIBRARY=/nonexistent/libamdhip64.so the backend reports the
 * library as missing and names what it tried. */
#define TKRT_HIP_LIBRARY_ENV "TKRT_HIP_LIBRARY"
#define TKRT_HIP_LIBRARY_NAMES_MAX 8

/* names[] may point into storage[]: use the record where it was filled, never a copy of it. */
typedef struct tkrt_hip_library_names {
  const char* names[TKRT_HIP_LIBRARY_NAMES_MAX];
  size_t count;
  bool overridden; /* the names come from TKRT_HIP_LIBRARY */
  char storage[1024];
} tkrt_hip_library_names_t;

/* Fills `out` with the names to try, newest ROCm first. Both users must try the same list: a
 * loaded-only lookup by soname (dlopen RTLD_NOLOAD) matches neither the load name nor the soname
 * of a ROCm whose soname is missing from it, and the XLA adapter must find the runtime the
 * backend will use. Reads the environment, so callers do it once (under their call_once). */
static inline void tkrt_hip_library_names_get(tkrt_hip_library_names_t* out) {
  static const char* const defaults[] = {"libamdhip64.so.7", "libamdhip64.so.6",
                                         "libamdhip64.so.5", "libamdhip64.so"};
  memset(out, 0, sizeof(*out));
  const char* value = getenv(TKRT_HIP_LIBRARY_ENV);
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

#endif /* TKRT_BACKENDS_HIP_HIP_LIBRARY_NAMES_H_ */
