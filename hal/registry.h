/* tkrt: the build-time list of compiled-in backends, and selection by name or environment. */
#ifndef TKRT_HAL_REGISTRY_H_
#define TKRT_HAL_REGISTRY_H_

#include <stddef.h>

#include "hal/hal.h"

/* Compiled-in backends in default order (cuda, hip, host). */
const tkrt_hal_backend_t* const* tkrt_hal_registry_backends(size_t* out_count);
/* NULL when the backend is not compiled in (or the name is not a backend at all). */
const tkrt_hal_backend_t* tkrt_hal_registry_find(const char* name);
/* True for the names tkrt knows, compiled in or not. */
int tkrt_hal_registry_is_known_name(const char* name);

#endif /* TKRT_HAL_REGISTRY_H_ */
