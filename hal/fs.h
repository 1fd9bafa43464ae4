/* tkrt: the few file-system helpers shared by the on-disk caches (CUDA's PTX cache, the tuning
 * decision store): switching them off, creating folders, mapping errno to codes. */
#ifndef TKRT_HAL_FS_H_
#define TKRT_HAL_FS_H_

#include <stddef.h>

#include "tkrt/status.h"

/* True for the values that switch a cache off: off, 0, none, false, no (any case). */
int tkrt_fs_is_off(const char* value);

/* mkdir -p; an existing folder is fine, an existing non-folder is an error naming it. */
tkrt_status_t tkrt_fs_mkdirs(const char* dir);

/* The status code an errno value stands for (ENOSPC: RESOURCE_EXHAUSTED, EACCES/EPERM/EROFS:
 * PERMISSION_DENIED, ENOENT/ENOTDIR: NOT_FOUND, ...). */
tkrt_status_code_t tkrt_fs_errno_code(int error);

#endif /* TKRT_HAL_FS_H_ */
