/* SPDX-License-Identifier: Apache-2.0 */
/* tkrt registry: the list of backends. CMake writes tkrt_backends.inc from the folders of
 * backends/ (one TKRT_BACKEND(name) line each, in default order); nothing registers itself at run
 * time, and no code above this layer names a backend. */
#include "registry/registry.h"

#include <stdio.h>
#include <string.h>

#define TKRT_BACKEND(name) extern const tkrt_hal_backend_t tkrt_##name##_backend;
#include "tkrt_backends.inc"
#undef TKRT_BACKEND

static const tkrt_hal_backend_t* const tkrt_registry[] = {
#define TKRT_BACKEND(name) &tkrt_##name##_backend,
#include "tkrt_backends.inc"
#undef TKRT_BACKEND
    NULL, /* keeps the array non-empty */
};

const tkrt_hal_backend_t* const* tkrt_hal_registry_backends(size_t* out_count) {
  *out_count = sizeof(tkrt_registry) / sizeof(tkrt_registry[0]) - 1;
  return tkrt_registry;
}

const tkrt_hal_backend_t* tkrt_hal_registry_find(const char* name) {
  size_t count;
  const tkrt_hal_backend_t* const* backends = tkrt_hal_registry_backends(&count);
  for (size_t i = 0; i < count; ++i) {
    if (strcmp(backends[i]->name, name) == 0) return backends[i];
  }
  for (size_t i = 0; i < count; ++i) {
    for (const char* const* alias = backends[i]->aliases; alias && *alias; ++alias) {
      if (strcmp(*alias, name) == 0) return backends[i];
    }
  }
  return NULL;
}

const tkrt_hal_backend_t* tkrt_hal_registry_find_triton_target(const char* target) {
  size_t count;
  const tkrt_hal_backend_t* const* backends = tkrt_hal_registry_backends(&count);
  for (size_t i = 0; i < count; ++i) {
    if (backends[i]->formats.triton_target && strcmp(backends[i]->formats.triton_target, target) == 0) {
      return backends[i];
    }
  }
  return NULL;
}

void tkrt_hal_registry_triton_targets(char* out, size_t capacity) {
  size_t count;
  const tkrt_hal_backend_t* const* backends = tkrt_hal_registry_backends(&count);
  size_t total = 0;
  for (size_t i = 0; i < count; ++i) total += backends[i]->formats.triton_target != NULL;
  if (capacity) out[0] = '\0';
  size_t listed = 0;
  for (size_t i = 0; i < count; ++i) {
    if (!backends[i]->formats.triton_target) continue;
    size_t used = strlen(out);
    if (used + 1 >= capacity) break;
    const char* joint = listed == 0 ? "" : listed + 1 == total ? " and " : ", ";
    snprintf(out + used, capacity - used, "%s%s", joint, backends[i]->formats.triton_target);
    listed++;
  }
}

const tkrt_hal_image_format_t* tkrt_hal_registry_format(tkrt_image_kind_t kind,
                                                        const tkrt_hal_backend_t** out_backend) {
  size_t count;
  const tkrt_hal_backend_t* const* backends = tkrt_hal_registry_backends(&count);
  for (size_t i = 0; i < count; ++i) {
    for (size_t j = 0; j < backends[i]->formats.image_format_count; ++j) {
      if (backends[i]->formats.image_formats[j].kind == kind) {
        if (out_backend) *out_backend = backends[i];
        return &backends[i]->formats.image_formats[j];
      }
    }
  }
  return NULL;
}

void tkrt_hal_registry_names(char* out, size_t capacity) {
  size_t count;
  const tkrt_hal_backend_t* const* backends = tkrt_hal_registry_backends(&count);
  if (capacity) out[0] = '\0';
  for (size_t i = 0; i < count; ++i) {
    size_t used = strlen(out);
    if (used + 1 >= capacity) break;
    snprintf(out + used, capacity - used, "%s%s", i ? ", " : "", backends[i]->name);
  }
}

const tkrt_hal_backend_t* tkrt_hal_registry_backend_for_kind(tkrt_image_kind_t kind) {
  size_t count;
  const tkrt_hal_backend_t* const* backends = tkrt_hal_registry_backends(&count);
  for (size_t i = 0; i < count; ++i) {
    if (backends[i]->image_rank(NULL, kind, NULL) > 0) return backends[i];
  }
  return NULL;
}
