/* tkrt: file-system helpers for the on-disk caches (see fs.h). */
#include "hal/fs.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>

int tkrt_fs_is_off(const char* value) {
  static const char* const off[] = {"off", "0", "none", "false", "no"};
  for (size_t i = 0; value && i < sizeof(off) / sizeof(off[0]); ++i) {
    if (strcasecmp(value, off[i]) == 0) return 1;
  }
  return 0;
}

tkrt_status_code_t tkrt_fs_errno_code(int error) {
  switch (error) {
    case ENOSPC:
    case EDQUOT:
    case ENOMEM: return TKRT_STATUS_RESOURCE_EXHAUSTED;
    case EACCES:
    case EPERM:
    case EROFS: return TKRT_STATUS_PERMISSION_DENIED;
    case ENOENT:
    case ENOTDIR: return TKRT_STATUS_NOT_FOUND;
    case EEXIST: return TKRT_STATUS_ALREADY_EXISTS;
    case ENAMETOOLONG:
    case EINVAL: return TKRT_STATUS_INVALID_ARGUMENT;
    case EINTR:
    case EAGAIN: return TKRT_STATUS_UNAVAILABLE;
    case EIO: return TKRT_STATUS_DATA_LOSS;
  }
  return TKRT_STATUS_INTERNAL;
}

tkrt_status_t tkrt_fs_mkdirs(const char* dir) {
  char path[4096];
  size_t length = strlen(dir);
  if (length == 0 || length >= sizeof(path)) {
    return TKRT_STATUS_MAKE(TKRT_STATUS_INVALID_ARGUMENT, "bad folder name '%.200s'", dir);
  }
  memcpy(path, dir, length + 1);
  for (size_t i = 1; i <= length; ++i) {
    if (path[i] != '/' && path[i] != '\0') continue;
    char saved = path[i];
    path[i] = '\0';
    if (mkdir(path, 0755) != 0 && errno != EEXIST) {
      int error = errno;
      return TKRT_STATUS_MAKE(tkrt_fs_errno_code(error), "cannot create %s: %s", path,
                              strerror(error));
    }
    path[i] = saved;
  }
  struct stat info;
  if (stat(dir, &info) != 0 || !S_ISDIR(info.st_mode)) {
    return TKRT_STATUS_MAKE(TKRT_STATUS_FAILED_PRECONDITION, "%s exists and is not a folder", dir);
  }
  return NULL;
}
