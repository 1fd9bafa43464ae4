/* tkrt: backend registry. Which backends exist is decided by CMake options, which define
 * TKRT_HAVE_BACKEND_<NAME>; nothing registers itself at run time. */
#include "hal/registry.h"

#include <string.h>

#if TKRT_HAVE_BACKEND_CUDA
extern const tkrt_hal_backend_t tkrt_cuda_backend;
#endif
#if TKRT_HAVE_BACKEND_HIP
extern const tkrt_hal_backend_t tkrt_hip_backend;
#endif
#if TKRT_HAVE_BACKEND_HOST
extern const tkrt_hal_backend_t tkrt_host_backend;
#endif

static const tkrt_hal_backend_t* const tkrt_registry[] = {
#if TKRT_HAVE_BACKEND_CUDA
    &tkrt_cuda_backend,
#endif
#if TKRT_HAVE_BACKEND_HIP
    &tkrt_hip_backend,
#endif
#if TKRT_HAVE_BACKEND_HOST
    &tkrt_host_backend,
#endif
    NULL, /* keeps the array non-empty in a build without backends */
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
  return NULL;
}

int tkrt_hal_registry_is_known_name(const char* name) {
  return strcmp(name, "cuda") == 0 || strcmp(name, "hip") == 0 || strcmp(name, "host") == 0;
}
