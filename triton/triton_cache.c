/* SPDX-License-Identifier: Apache-2.0 */
/* tkrt triton: whether an entry of Triton's cache may be read for a kernel nobody named by path
 * (tkrt_triton_cache_entry_check): the one copy of the rule, which tkrt.triton asks when it finds
 * a CompiledKernel's files in Triton's cache. Read with the library's file reader and trust
 * check (base/fs.c). */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "base/fs.h"
#include "base/json.h"
#include "tkrt/environment.h"
#include "triton/triton_internal.h"

/* The cache folder holding the entry: no other user may own it, nor write it unless it is sticky
 * (others cannot then rename this user's entries away and put theirs in their place). */
static tkrt_status_t tkrt_cache_parent_check(const char* folder) {
  char parent[4096];
  if (snprintf(parent, sizeof(parent), "%s", folder) >= (int)sizeof(parent)) {
    return TKRT_STATUS_MAKE(TKRT_STATUS_INVALID_ARGUMENT, "the cache entry's path is too long");
  }
  size_t length = strlen(parent);
  while (length > 1 && parent[length - 1] == '/') parent[--length] = '\0'; /* "cache/HASH/" */
  char* slash = strrchr(parent, '/');
  if (!slash) snprintf(parent, sizeof(parent), ".");
  else if (slash == parent) parent[1] = '\0';
  else *slash = '\0';
  struct stat info;
  if (stat(parent, &info) != 0) {
    int error = errno;
    return TKRT_STATUS_MAKE(tkrt_fs_errno_code(error), "cannot read its cache folder %s: %s",
                            parent, strerror(error));
  }
  if (info.st_uid != geteuid() && info.st_uid != 0) {
    return TKRT_STATUS_MAKE(TKRT_STATUS_PERMISSION_DENIED,
                            "another user owns its cache folder %s (uid %ld)", parent,
                            (long)info.st_uid);
  }
  if ((info.st_mode & (S_IWGRP | S_IWOTH)) && !(info.st_mode & S_ISVTX)) {
    return TKRT_STATUS_MAKE(TKRT_STATUS_PERMISSION_DENIED,
                            "other users can write its cache folder %s (mode %04o, not sticky) "
                            "and so replace the entry",
                            parent, (unsigned)(info.st_mode & 07777));
  }
  return NULL;
}

/* Every `<name>.*` file of the entry (what the loader reads, a host image included): no link,
 * and trusted unless shared_ok. */
static tkrt_status_t tkrt_cache_files_check(const char* folder, const char* name,
                                            bool shared_ok) {
  DIR* dir = opendir(folder);
  if (!dir) {
    int error = errno;
    return TKRT_STATUS_MAKE(tkrt_fs_errno_code(error), "cannot list %s: %s", folder,
                            strerror(error));
  }
  size_t length = strlen(name);
  tkrt_status_t status = NULL;
  for (struct dirent* e; !status && (e = readdir(dir)) != NULL;) {
    if (strncmp(e->d_name, name, length) != 0 || e->d_name[length] != '.') continue;
    struct stat info;
    if (fstatat(dirfd(dir), e->d_name, &info, AT_SYMLINK_NOFOLLOW) != 0) {
      int error = errno;
      status = TKRT_STATUS_MAKE(tkrt_fs_errno_code(error), "cannot read %s/%s: %s", folder,
                                e->d_name, strerror(error));
    } else if (S_ISLNK(info.st_mode)) {
      status = TKRT_STATUS_MAKE(TKRT_STATUS_PERMISSION_DENIED, "%s/%s is a symbolic link",
                                folder, e->d_name);
    } else {
      char path[4096];
      snprintf(path, sizeof(path), "%s/%s", folder, e->d_name);
      status = tkrt_fs_check_trusted(&info, path, shared_ok);
    }
  }
  closedir(dir);
  return status;
}

/* The entry's <name>.json names the kernel (and the hash, when given). */
static tkrt_status_t tkrt_cache_json_check(const char* folder, const char* name,
                                           const char* hash) {
  char path[4096];
  if (snprintf(path, sizeof(path), "%s/%s.json", folder, name) >= (int)sizeof(path)) {
    return TKRT_STATUS_MAKE(TKRT_STATUS_INVALID_ARGUMENT, "the cache entry's path is too long");
  }
  void* text = NULL;
  size_t size = 0;
  TKRT_RETURN_IF_ERROR(tkrt_fs_read_file(path, TKRT_TRITON_JSON_LIMIT, TKRT_FS_READ_NOFOLLOW, &text,
                                         &size));
  tkrt_json_value_t* root = NULL;
  tkrt_status_t status = tkrt_json_parse(text, size, path, &root);
  free(text);
  if (status) return status;
  const tkrt_json_value_t* got_name = tkrt_json_get(root, "name");
  const tkrt_json_value_t* got_hash = tkrt_json_get(root, "hash");
  bool named = got_name && got_name->type == TKRT_JSON_STRING && strcmp(got_name->string, name) == 0;
  bool hashed = !hash || (got_hash && got_hash->type == TKRT_JSON_STRING &&
                          strcmp(got_hash->string, hash) == 0);
  if (!named || !hashed) {
    status = TKRT_STATUS_MAKE(TKRT_STATUS_PERMISSION_DENIED,
                              "%s names another kernel or hash than '%s'%s%s%s", path, name,
                              hash ? " (hash " : "", hash ? hash : "", hash ? ")" : "");
  }
  tkrt_json_free(root);
  return status;
}

tkrt_status_t tkrt_triton_cache_entry_check(const char* folder, const char* name,
                                            const char* hash, int trust_shared) {
  if (!folder || !*folder || !name || !*name || strchr(name, '/')) {
    return TKRT_STATUS_MAKE(TKRT_STATUS_INVALID_ARGUMENT,
                            "tkrt_triton_cache_entry_check: a folder and a kernel name (no '/') "
                            "are required");
  }
  bool shared_ok = trust_shared > 0;
  if (trust_shared < 0) { /* TKRT_TRUST_SHARED_STORES, read as for the library's own caches */
    tkrt_device_options_t options;
    tkrt_device_options_init(&options);
    TKRT_RETURN_IF_ERROR(tkrt_options_from_environment(&options, NULL));
    shared_ok = options.trust_shared_cache;
  }
  struct stat info;
  if (lstat(folder, &info) != 0) {
    int error = errno;
    return TKRT_STATUS_MAKE(tkrt_fs_errno_code(error), "cannot read %s: %s", folder,
                            strerror(error));
  }
  if (!S_ISDIR(info.st_mode)) {
    return TKRT_STATUS_MAKE(TKRT_STATUS_PERMISSION_DENIED,
                            "%s is not a folder (a symbolic link or another file)", folder);
  }
  if (!shared_ok) {
    TKRT_RETURN_IF_ERROR(tkrt_fs_check_trusted(&info, folder, false));
    TKRT_RETURN_IF_ERROR(tkrt_cache_parent_check(folder));
  }
  TKRT_RETURN_IF_ERROR(tkrt_cache_files_check(folder, name, shared_ok));
  return tkrt_cache_json_check(folder, name, hash);
}
