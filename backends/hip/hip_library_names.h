/* tkrt HIP backend: the names libamdhip64 is looked for under: the usual sonames, newest ROCm
 * first, or the caller's list (tkrt_device_options_t.hip_library). */
#ifndef TKRT_BACKENDS_HIP_HIP_LIBRARY_NAMES_H_
#define TKRT_BACKENDS_HIP_HIP_LIBRARY_NAMES_H_

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>

/* At most this many names in a caller's ':'-separated list. */
#define TKRT_HIP_LIBRARY_NAMES_MAX 8

/* names[] may point into storage[]: use the record where it was filled, never a copy of it. */
typedef struct tkrt_hip_library_names {
  const char* names[TKRT_HIP_LIBRARY_NAMES_MAX];
  size_t count;
  bool overridden; /* the names come from the caller's list */
  char storage[1024];
} tkrt_hip_library_names_t;

/* Fills `out` with the names to try: `spec` (a ':'-separated list of paths or sonames) when it is
 * set, else the sonames of ROCm 7, 6 and 5, then libamdhip64.so. */
static inline void tkrt_hip_library_names_get(const char* spec, tkrt_hip_library_names_t* out) {
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

#endif /* TKRT_BACKENDS_HIP_HIP_LIBRARY_NAMES_H_ */
