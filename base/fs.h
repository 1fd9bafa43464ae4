/* SPDX-License-Identifier: Apache-2.0 */
/* tkrt: the file-system helpers shared by the on-disk stores and caches (CUDA's cubin cache, the
 * tuning decision store) and the CLI: safe reads and atomic writes, trust checks, folders. */
#ifndef TKRT_BASE_FS_H_
#define TKRT_BASE_FS_H_

#include <stdbool.h>
#include <stddef.h>
#include <sys/stat.h>

#include "tkrt/status.h"

/* True for the values that switch a cache off: off, 0, none, false, no (any case). */
int tkrt_fs_is_off(const char* value);

/* mkdir -p; an existing folder is fine, an existing non-folder is an error naming it. New folders
 * are 0755 (less the umask). */
tkrt_status_t tkrt_fs_mkdirs(const char* dir);

/* The status code an errno value stands for (ENOSPC: RESOURCE_EXHAUSTED, EACCES/EPERM/EROFS:
 * PERMISSION_DENIED, ENOENT/ENOTDIR: NOT_FOUND, ELOOP: FAILED_PRECONDITION, ...). */
tkrt_status_code_t tkrt_fs_errno_code(int error);

/* What a file is, in words ("a folder", "a FIFO", "a character device", ...), for errors. */
const char* tkrt_fs_type_name(mode_t mode);

/* ---------------------------------------------------------------- reading files */

enum {
  /* A symbolic link as the last path component is refused (FAILED_PRECONDITION). */
  TKRT_FS_READ_NOFOLLOW = 1u << 0,
  /* The file must pass tkrt_fs_check_trusted (store and cache entries). */
  TKRT_FS_READ_TRUSTED = 1u << 1,
  /* With TKRT_FS_READ_TRUSTED: files other users own or can write are trusted too (the caller
   * opted in to a shared store). */
  TKRT_FS_READ_SHARED_OK = 1u << 2,
  /* An empty file is refused (INVALID_ARGUMENT "<label> is empty"): formats with no empty
   * instance (an HSACO file). Without it an empty file reads as 0 bytes (and its NUL). */
  TKRT_FS_READ_NONEMPTY = 1u << 3,
};

/* Reads a whole regular file of at most max_size bytes: the one file reader of the library, the
 * formats (wire, triton), the stores and the CLI. The file is opened non-blocking (a FIFO or a
 * device cannot hang the caller), fstat'ed, refused unless it is a regular file (INVALID_ARGUMENT
 * "<label> is not a regular file: it is a FIFO"), and its size is checked against max_size
 * (OUT_OF_RANGE "<label> has N bytes, more than the M bytes accepted") before anything is
 * allocated. The size fstat gives is the file's: one that shrinks or grows while it is read is
 * DATA_LOSS ("shrank" / "grew while being read"), never a truncated read; one of 0 bytes (also a
 * /proc pseudo-file) is empty and not read (see TKRT_FS_READ_NONEMPTY). Open errors keep errno's
 * meaning (tkrt_fs_errno_code: NOT_FOUND, PERMISSION_DENIED, ...). dirfd is AT_FDCWD or an open
 * folder that relative names are resolved in; `label` names the file in errors (NULL: name).
 * *out_data is malloc'd with one NUL byte after the contents (so text parses safely), also for an
 * empty file; nothing is written to the outputs on error. */
tkrt_status_t tkrt_fs_read_file_at(int dirfd, const char* name, const char* label,
                                   size_t max_size, unsigned flags, void** out_data,
                                   size_t* out_size);
tkrt_status_t tkrt_fs_read_file(const char* path, size_t max_size, unsigned flags,
                                void** out_data, size_t* out_size);

/* ---------------------------------------------------------------- trust */

/* A store or cache file (or folder) is trusted when it belongs to this user or to root and no
 * other user can write it (no group or other write bit; a folder with the sticky bit still
 * counts as writable by others), or when `shared_ok` (the caller opted in to a shared store:
 * tkrt_device_options_t.trust_shared_cache, tkrt_autotuner_options_t.trust_shared_store,
 * TKRT_TRUST_SHARED_STORES for the tools). Otherwise PERMISSION_DENIED naming `path`, its owner
 * and mode, and how to opt in. */
tkrt_status_t tkrt_fs_check_trusted(const struct stat* info, const char* path, bool shared_ok);

/* Opens a store or cache folder for its entries (O_DIRECTORY, following links in the path as the
 * user configured it) and checks that it is trusted. NOT_FOUND when it does not exist. */
tkrt_status_t tkrt_fs_open_trusted_dir(const char* dir, bool shared_ok, int* out_fd);

/* ---------------------------------------------------------------- writing files */

/* Replaces dir/name atomically: the pieces, in order, go to a new temporary file made with mkstemp in the same
 * folder (O_EXCL: never an existing file or link), are flushed with fsync, given `mode` and
 * renamed over the name (which replaces a link rather than following it). On any error the
 * temporary file is removed and dir/name is untouched. */
typedef struct tkrt_fs_piece {
  const void* data;
  size_t size;
} tkrt_fs_piece_t;
tkrt_status_t tkrt_fs_write_file_atomic(const char* dir, const char* name,
                                        const tkrt_fs_piece_t* pieces, size_t piece_count,
                                        mode_t mode);
/* The same in the folder open as dir_fd (tkrt_fs_open_trusted_dir): the temporary file is created
 * with openat(O_CREAT | O_EXCL | O_NOFOLLOW) under mkstemp's pattern and renamed with renameat, so
 * the write lands in the folder that was checked even if a parent on its path was swapped since.
 * dir_label names the folder in errors; `name` has no '/'. */
tkrt_status_t tkrt_fs_write_file_atomic_at(int dir_fd, const char* dir_label, const char* name,
                                           const tkrt_fs_piece_t* pieces, size_t piece_count,
                                           mode_t mode);

#endif /* TKRT_BASE_FS_H_ */
