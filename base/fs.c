/* SPDX-License-Identifier: Apache-2.0 */
/* tkrt: file-system helpers for the on-disk stores and caches and the CLI (see fs.h). Everything
 * here assumes a hostile file system: links, FIFOs, huge files and other users' files. */
#include "base/fs.h"

#include <errno.h>
#include <fcntl.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

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
    case ELOOP: return TKRT_STATUS_FAILED_PRECONDITION;
    case EISDIR: return TKRT_STATUS_INVALID_ARGUMENT;
    case EMFILE:
    case ENFILE: return TKRT_STATUS_RESOURCE_EXHAUSTED;
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

const char* tkrt_fs_type_name(mode_t mode) {
  if (S_ISREG(mode)) return "a regular file";
  if (S_ISDIR(mode)) return "a folder";
  if (S_ISFIFO(mode)) return "a FIFO";
  if (S_ISCHR(mode)) return "a character device";
  if (S_ISBLK(mode)) return "a block device";
  if (S_ISSOCK(mode)) return "a socket";
  if (S_ISLNK(mode)) return "a symbolic link";
  return "a file of an unknown type";
}

/* ---------------------------------------------------------------- reading files */

tkrt_status_t tkrt_fs_read_file_at(int dirfd, const char* name, const char* label,
                                   size_t max_size, unsigned flags, void** out_data,
                                   size_t* out_size) {
  if (!label) label = name;
  int open_flags = O_RDONLY | O_CLOEXEC | O_NONBLOCK | O_NOCTTY;
  if (flags & TKRT_FS_READ_NOFOLLOW) open_flags |= O_NOFOLLOW;
  int fd = openat(dirfd, name, open_flags);
  if (fd < 0) {
    int error = errno;
    if (error == ELOOP && (flags & TKRT_FS_READ_NOFOLLOW)) {
      return TKRT_STATUS_MAKE(TKRT_STATUS_FAILED_PRECONDITION,
                              "%s is a symbolic link, which is not followed here", label);
    }
    return TKRT_STATUS_MAKE(tkrt_fs_errno_code(error), "cannot open %s: %s", label,
                            strerror(error));
  }
  tkrt_status_t status = NULL;
  void* data = NULL;
  struct stat info;
  if (fstat(fd, &info) != 0) {
    int error = errno;
    status = TKRT_STATUS_MAKE(tkrt_fs_errno_code(error), "cannot stat %s: %s", label,
                              strerror(error));
    goto done;
  }
  if (!S_ISREG(info.st_mode)) {
    /* Both halves are what callers look for: "is not a regular file", and what it is instead. */
    status = TKRT_STATUS_MAKE(TKRT_STATUS_INVALID_ARGUMENT, "%s is not a regular file: it is %s",
                              label, tkrt_fs_type_name(info.st_mode));
    goto done;
  }
  if ((flags & TKRT_FS_READ_TRUSTED) &&
      (status = tkrt_fs_check_trusted(&info, label, (flags & TKRT_FS_READ_SHARED_OK) != 0))) {
    goto done;
  }
  if (info.st_size < 0 || (uint64_t)info.st_size > max_size) {
    status = TKRT_STATUS_MAKE(TKRT_STATUS_OUT_OF_RANGE,
                              "%s has %lld bytes, more than the %zu bytes accepted", label,
                              (long long)info.st_size, max_size);
    goto done;
  }
  size_t size = (size_t)info.st_size;
  if (size == 0 && (flags & TKRT_FS_READ_NONEMPTY)) {
    status = TKRT_STATUS_MAKE(TKRT_STATUS_INVALID_ARGUMENT, "%s is empty", label);
    goto done;
  }
  data = malloc(size + 1);
  if (!data) {
    status = TKRT_STATUS_MAKE(TKRT_STATUS_RESOURCE_EXHAUSTED, "out of host memory reading %s (%zu "
                              "bytes)", label, size);
    goto done;
  }
  /* Exactly the size fstat gave, then one byte more to see the end: a file that shrinks or grows
   * while it is read is an error, never a truncated or partial read. The extra byte lands where
   * the NUL goes. A file of 0 bytes when opened is empty and not read (the pseudo-files of /proc
   * and /sys report 0 and would otherwise be read unbounded). */
  size_t done_bytes = 0;
  while (size > 0 && done_bytes <= size) {
    ssize_t n = read(fd, (char*)data + done_bytes, size + 1 - done_bytes);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) {
      int error = errno;
      status = TKRT_STATUS_MAKE(tkrt_fs_errno_code(error), "cannot read %s: %s", label,
                                strerror(error));
      goto done;
    }
    if (n == 0) break;
    done_bytes += (size_t)n;
  }
  if (done_bytes != size) {
    status = TKRT_STATUS_MAKE(TKRT_STATUS_DATA_LOSS, "%s %s while being read (%zu bytes when "
                              "opened)", label, done_bytes < size ? "shrank" : "grew", size);
    goto done;
  }
  ((char*)data)[size] = '\0';
  *out_data = data;
  *out_size = size;
  data = NULL;

done:
  free(data);
  close(fd);
  return status;
}

tkrt_status_t tkrt_fs_read_file(const char* path, size_t max_size, unsigned flags,
                                void** out_data, size_t* out_size) {
  return tkrt_fs_read_file_at(AT_FDCWD, path, path, max_size, flags, out_data, out_size);
}

/* ---------------------------------------------------------------- trust */

tkrt_status_t tkrt_fs_check_trusted(const struct stat* info, const char* path, bool shared_ok) {
  uid_t self = geteuid();
  bool foreign_owner = info->st_uid != self && info->st_uid != 0;
  bool others_write = (info->st_mode & (S_IWGRP | S_IWOTH)) != 0;
  if (!foreign_owner && !others_write) return NULL;
  if (shared_ok) return NULL;
  return TKRT_STATUS_MAKE(TKRT_STATUS_PERMISSION_DENIED,
                          "%s is not trusted: %s (owner uid %ld, mode %04o); to trust stores and "
                          "caches shared with other users, set TKRT_TRUST_SHARED_STORES=1 "
                          "(tools) or the trust_shared_cache / trust_shared_store option "
                          "(docs/security.md)",
                          path,
                          foreign_owner ? "another user owns it" : "other users can write it",
                          (long)info->st_uid, (unsigned)(info->st_mode & 07777));
}

tkrt_status_t tkrt_fs_open_trusted_dir(const char* dir, bool shared_ok, int* out_fd) {
  int fd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (fd < 0) {
    int error = errno;
    return TKRT_STATUS_MAKE(tkrt_fs_errno_code(error), "cannot open the folder %s: %s", dir,
                            strerror(error));
  }
  struct stat info;
  tkrt_status_t status = NULL;
  if (fstat(fd, &info) != 0) {
    int error = errno;
    status = TKRT_STATUS_MAKE(tkrt_fs_errno_code(error), "cannot stat %s: %s", dir,
                              strerror(error));
  } else {
    status = tkrt_fs_check_trusted(&info, dir, shared_ok);
  }
  if (status) {
    close(fd);
    return status;
  }
  *out_fd = fd;
  return NULL;
}

/* ---------------------------------------------------------------- writing files */

tkrt_status_t tkrt_fs_write_file_atomic(const char* dir, const char* name,
                                        const tkrt_fs_piece_t* pieces, size_t piece_count,
                                        mode_t mode) {
  char path[4096], temp[4096];
  int n = snprintf(path, sizeof(path), "%s/%s", dir, name);
  int m = snprintf(temp, sizeof(temp), "%s/.%s.XXXXXX", dir, name);
  if (n < 0 || m < 0 || (size_t)n >= sizeof(path) || (size_t)m >= sizeof(temp)) {
    return TKRT_STATUS_MAKE(TKRT_STATUS_INVALID_ARGUMENT, "path too long: %.200s/%.200s", dir,
                            name);
  }
  int fd = mkstemp(temp);
  if (fd < 0) {
    int error = errno;
    return TKRT_STATUS_MAKE(tkrt_fs_errno_code(error),
                            "cannot create a temporary file in %s (mkstemp: %s)", dir,
                            strerror(error));
  }
  const char* step = "write";
  int error = 0;
  for (size_t p = 0; p < piece_count && !error; ++p) {
    const char* data = pieces[p].data;
    for (size_t written = 0; written < pieces[p].size;) {
      ssize_t w = write(fd, data + written, pieces[p].size - written);
      if (w < 0 && errno == EINTR) continue;
      if (w <= 0) {
        error = w < 0 ? errno : EIO;
        break;
      }
      written += (size_t)w;
    }
  }
  /* fsync before rename: otherwise a crash can leave the new name pointing at empty blocks. */
  if (!error && fchmod(fd, mode) != 0) step = "chmod", error = errno;
  if (!error && fsync(fd) != 0) step = "fsync", error = errno;
  if (close(fd) != 0 && !error) step = "close", error = errno;
  if (!error && rename(temp, path) != 0) step = "rename", error = errno;
  if (error) {
    unlink(temp);
    return TKRT_STATUS_MAKE(tkrt_fs_errno_code(error), "cannot write %s (%s: %s)", path, step,
                            strerror(error));
  }
  return NULL;
}

tkrt_status_t tkrt_fs_write_file_atomic_at(int dir_fd, const char* dir_label, const char* name,
                                           const tkrt_fs_piece_t* pieces, size_t piece_count,
                                           mode_t mode) {
  static const char kLetters[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789";
  static atomic_uint_fast64_t sequence;
  char temp[512];
  size_t name_length = strlen(name);
  if (!*name || strchr(name, '/') || name_length + 9 >= sizeof(temp)) {
    return TKRT_STATUS_MAKE(TKRT_STATUS_INVALID_ARGUMENT, "bad file name in %.200s: %.200s",
                            dir_label, name);
  }
  /* mkstemp's pattern (".<name>.XXXXXX", the same letters) relative to the folder's descriptor:
   * the file is made in the folder that was checked, whatever its path names now. */
  int fd = -1;
  int error = EEXIST;
  for (int attempt = 0; attempt < 100 && fd < 0 && error == EEXIST; ++attempt) {
    struct timespec now;
    clock_gettime(CLOCK_REALTIME, &now);
    uint64_t x = ((uint64_t)now.tv_nsec << 20) ^ (uint64_t)now.tv_sec ^
                 ((uint64_t)getpid() << 40) ^
                 (atomic_fetch_add(&sequence, 1) * 0x9E3779B97F4A7C15ull);
    x ^= x >> 33;
    x *= 0xff51afd7ed558ccdull;
    x ^= x >> 33;
    char suffix[7];
    for (int i = 0; i < 6; ++i, x /= 62) suffix[i] = kLetters[x % 62];
    suffix[6] = '\0';
    snprintf(temp, sizeof(temp), ".%s.%s", name, suffix);
    fd = openat(dir_fd, temp, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC | O_NOFOLLOW, 0600);
    error = fd < 0 ? errno : 0;
  }
  if (fd < 0) {
    return TKRT_STATUS_MAKE(tkrt_fs_errno_code(error),
                            "cannot create a temporary file in %s (mkstemp: %s)", dir_label,
                            strerror(error));
  }
  const char* step = "write";
  for (size_t p = 0; p < piece_count && !error; ++p) {
    const char* data = pieces[p].data;
    for (size_t written = 0; written < pieces[p].size;) {
      ssize_t w = write(fd, data + written, pieces[p].size - written);
      if (w < 0 && errno == EINTR) continue;
      if (w <= 0) {
        error = w < 0 ? errno : EIO;
        break;
      }
      written += (size_t)w;
    }
  }
  if (!error && fchmod(fd, mode) != 0) step = "chmod", error = errno;
  if (!error && fsync(fd) != 0) step = "fsync", error = errno;
  if (close(fd) != 0 && !error) step = "close", error = errno;
  if (!error && renameat(dir_fd, temp, dir_fd, name) != 0) step = "rename", error = errno;
  if (error) {
    unlinkat(dir_fd, temp, 0);
    return TKRT_STATUS_MAKE(tkrt_fs_errno_code(error), "cannot write %s/%s (%s: %s)", dir_label,
                            name, step, strerror(error));
  }
  return NULL;
}
