/* SPDX-License-Identifier: Apache-2.0 */
/* tkrt: opening vendor libraries at run time. Libraries are never closed: drivers do not survive
 * being unloaded, and their handles are process-wide anyway. */
#ifndef TKRT_BASE_DYLIB_H_
#define TKRT_BASE_DYLIB_H_

#include <stddef.h>

#include "tkrt/status.h"

/* Tries each name in order (dlopen with RTLD_NOW | RTLD_LOCAL). When `prefer_loaded` is set, a
 * copy already loaded in the process (RTLD_NOLOAD) is taken first. On failure: UNAVAILABLE, and the
 * message lists every name tried with the loader's reason. */
tkrt_status_t tkrt_dylib_open(const char* const* names, size_t count, int prefer_loaded,
                              void** out_handle, const char** out_opened_name);

/* NULL when absent. */
void* tkrt_dylib_symbol(void* handle, const char* name);

#endif /* TKRT_BASE_DYLIB_H_ */
