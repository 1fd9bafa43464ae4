/* SPDX-License-Identifier: Apache-2.0 */
/* tkrt registry: the build-time list of backends (one descriptor per folder of backends/, in
 * default selection order), and lookups by name. */
#ifndef TKRT_REGISTRY_REGISTRY_H_
#define TKRT_REGISTRY_REGISTRY_H_

#include <stddef.h>

#include "hal/hal.h"

/* Every backend in default order (cuda, hip, host), compiled in or not (see `compiled`). */
const tkrt_hal_backend_t* const* tkrt_hal_registry_backends(size_t* out_count);
/* The backend of that name or alias; NULL when there is none (groups such as "gpu" are the
 * backend-list parser's, registry/registry_api.c). */
const tkrt_hal_backend_t* tkrt_hal_registry_find(const char* name);
/* The backend whose Triton output says target.backend `target`; NULL when none. */
const tkrt_hal_backend_t* tkrt_hal_registry_find_triton_target(const char* target);
/* "cuda, hip and host": the Triton targets, for messages. */
void tkrt_hal_registry_triton_targets(char* out, size_t capacity);
/* The format entry of `kind` and its backend (the first in default order that loads it); NULL
 * when no backend loads it. */
const tkrt_hal_image_format_t* tkrt_hal_registry_format(tkrt_image_kind_t kind,
                                                        const tkrt_hal_backend_t** out_backend);
/* "cuda, hip, host": the names, for messages. */
void tkrt_hal_registry_names(char* out, size_t capacity);
/* The backend whose devices load images of `kind` (the first in default order), or NULL. */
const tkrt_hal_backend_t* tkrt_hal_registry_backend_for_kind(tkrt_image_kind_t kind);

#endif /* TKRT_REGISTRY_REGISTRY_H_ */
