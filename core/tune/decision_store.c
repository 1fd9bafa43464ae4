/* SPDX-License-Identifier: Apache-2.0 */
/* tkrt core: tuning decisions on disk. One text file per (call, arch, driver, tkrt version),
 * replaced atomically; corrupt or foreign entries are reported and rewritten, never trusted. */
#include "core/tune/decision_store.h"

#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "base/sha256.h"
#include "base/fs.h"
#include "tkrt/api.h"

#define TKRT_DECISION_MAGIC "tkrt-decision 1"

void tkrt_decision_key(const uint8_t digest[32], const char* arch, int driver_version,
                       char out_key[65]) {
  tkrt_sha256_t ctx;
  tkrt_sha256_init(&ctx);
  tkrt_sha256_update(&ctx, digest, 32);
  char suffix[160];
  int n = snprintf(suffix, sizeof(suffix), "|%s|%d|%s", arch, driver_version, TKRT_VERSION_STRING);
  tkrt_sha256_update(&ctx, suffix, n > 0 ? (size_t)n : 0);
  uint8_t hash[32];
  tkrt_sha256_final(&ctx, hash);
  tkrt_hex_encode(hash, 32, out_key);
}

tkrt_status_t tkrt_decision_lock(const char* dir, bool shared_ok, const char* key, int* out_fd) {
  *out_fd = -1;
  struct stat existing;
  if (stat(dir, &existing) != 0) TKRT_RETURN_IF_ERROR(tkrt_fs_mkdirs(dir));
  int dir_fd = -1;
  TKRT_RETURN_IF_ERROR(tkrt_fs_open_trusted_dir(dir, shared_ok, &dir_fd));
  char name[80], path[4200];
  snprintf(name, sizeof(name), "%s.lock", key);
  snprintf(path, sizeof(path), "%s/%s", dir, name);
  /* O_NOFOLLOW: a planted link must not make us create or lock its target; O_NONBLOCK: a FIFO
   * planted under the name must not hang the open. */
  const int base_flags = O_CLOEXEC | O_NOFOLLOW | O_NONBLOCK | O_NOCTTY;
  int lock_mode = LOCK_EX;
  int fd = openat(dir_fd, name, O_RDWR | O_CREAT | base_flags, 0644);
  if (fd < 0 && (errno == EACCES || errno == EROFS || errno == EPERM)) {
    /* A store we may only read: readers share a lock; on the folder when there is no lock file. */
    lock_mode = LOCK_SH;
    fd = openat(dir_fd, name, O_RDONLY | base_flags);
    if (fd < 0 && errno == ENOENT) fd = dup(dir_fd);
  }
  int error = errno;
  close(dir_fd);
  if (fd < 0) {
    if (error == ELOOP) {
      return TKRT_STATUS_MAKE(TKRT_STATUS_FAILED_PRECONDITION,
                              "%s is a symbolic link; the store does not follow links", path);
    }
    return TKRT_STATUS_MAKE(tkrt_fs_errno_code(error), "cannot open %s: %s", path,
                            strerror(error));
  }
  struct stat info;
  tkrt_status_t status = NULL;
  if (fstat(fd, &info) != 0) {
    error = errno;
    status = TKRT_STATUS_MAKE(tkrt_fs_errno_code(error), "cannot stat %s: %s", path,
                              strerror(error));
  } else if (!S_ISREG(info.st_mode) && !(lock_mode == LOCK_SH && S_ISDIR(info.st_mode))) {
    status = TKRT_STATUS_MAKE(TKRT_STATUS_FAILED_PRECONDITION, "%s is %s, not a regular file",
                              path, tkrt_fs_type_name(info.st_mode));
  } else if (S_ISREG(info.st_mode)) {
    status = tkrt_fs_check_trusted(&info, path, shared_ok);
  }
  while (!status && flock(fd, lock_mode) != 0) {
    if (errno == EINTR) continue;
    error = errno;
    status = TKRT_STATUS_MAKE(tkrt_fs_errno_code(error), "cannot lock %s: %s", path,
                              strerror(error));
  }
  if (status) {
    close(fd);
    return status;
  }
  *out_fd = fd;
  return NULL;
}

void tkrt_decision_unlock(int fd) {
  if (fd < 0) return;
  flock(fd, LOCK_UN);
  close(fd);
}

/* Expects `label` and one blank at `at`; returns the position after them or NULL. */
static const char* tkrt_decision_field(const char* at, const char* label) {
  size_t length = strlen(label);
  if (strncmp(at, label, length) != 0 || at[length] != ' ') return NULL;
  return at + length + 1;
}

/* Copies one whitespace-free word of at most capacity-1 characters that ends the line. */
static const char* tkrt_decision_word(const char* at, char* out, size_t capacity) {
  size_t length = strcspn(at, " \t\r\n");
  if (length == 0 || length >= capacity || at[length] != '\n') return NULL;
  memcpy(out, at, length);
  out[length] = '\0';
  return at + length + 1;
}

static const char* tkrt_decision_number(const char* at, unsigned long long max,
                                        unsigned long long* out) {
  if (!isdigit((unsigned char)*at)) return NULL;
  errno = 0;
  char* end = NULL;
  unsigned long long value = strtoull(at, &end, 10);
  if (errno || value > max || *end != '\n') return NULL;
  *out = value;
  return end + 1;
}

tkrt_status_t tkrt_decision_parse(const char* text, size_t size, const char* where,
                                  const uint8_t digest[32], const char* arch, int driver_version,
                                  tkrt_decision_t* decision, int* out_found, char* out_problem,
                                  size_t problem_capacity) {
  *out_found = 0;
  out_problem[0] = '\0';
  char digest_hex[65], want_hex[65], file_arch[96] = "", version[32] = "", driver_text[16];
  tkrt_hex_encode(digest, 32, want_hex);
  unsigned long long configs = 0, chosen = 0, iterations = 0;
  const char* problem = NULL;
  const char* at = text;
  float* times = NULL;
  if (memchr(text, '\0', size)) {
    problem = "a NUL byte in the text";
  } else if (strncmp(at, TKRT_DECISION_MAGIC "\n", sizeof(TKRT_DECISION_MAGIC)) != 0) {
    problem = "missing header";
  } else {
    at += sizeof(TKRT_DECISION_MAGIC);
    if (!(at = tkrt_decision_field(at, "tkrt")) ||
        !(at = tkrt_decision_word(at, version, sizeof(version))) ||
        !(at = tkrt_decision_field(at, "digest")) ||
        !(at = tkrt_decision_word(at, digest_hex, sizeof(digest_hex))) ||
        !(at = tkrt_decision_field(at, "arch")) ||
        !(at = tkrt_decision_word(at, file_arch, sizeof(file_arch))) ||
        !(at = tkrt_decision_field(at, "driver")) ||
        !(at = tkrt_decision_word(at, driver_text, sizeof(driver_text))) ||
        !(at = tkrt_decision_field(at, "configs")) ||
        !(at = tkrt_decision_number(at, SIZE_MAX / sizeof(float), &configs)) ||
        !(at = tkrt_decision_field(at, "chosen")) ||
        !(at = tkrt_decision_number(at, SIZE_MAX, &chosen)) ||
        !(at = tkrt_decision_field(at, "iterations")) ||
        !(at = tkrt_decision_number(at, UINT32_MAX, &iterations)) ||
        strncmp(at, "times", 5) != 0) {
      problem = "malformed fields";
    }
  }
  if (!problem) {
    char driver_want[16];
    snprintf(driver_want, sizeof(driver_want), "%d", driver_version);
    if (strcmp(version, TKRT_VERSION_STRING) != 0 || strcmp(digest_hex, want_hex) != 0 ||
        strcmp(file_arch, arch) != 0 || strcmp(driver_text, driver_want) != 0) {
      problem = "written for another call, arch, driver or tkrt version";
    } else if (configs != decision->config_count || chosen >= configs) {
      problem = "config count or choice out of range";
    }
  }
  if (!problem) {
    at += 5;
    if (!(times = malloc(configs ? configs * sizeof(float) : 1))) {
      return TKRT_STATUS_MAKE(TKRT_STATUS_RESOURCE_EXHAUSTED, "out of host memory");
    }
    for (size_t i = 0; i < configs && !problem; ++i) {
      if (*at != ' ') {
        problem = "truncated timings";
        break;
      }
      char* end = NULL;
      times[i] = strtof(at + 1, &end);
      if (end == at + 1 || isspace((unsigned char)at[1])) problem = "truncated timings";
      at = end;
    }
    while (!problem && *at) {
      if (!isspace((unsigned char)*at++)) problem = "trailing garbage";
    }
  }
  if (problem) {
    free(times);
    snprintf(out_problem, problem_capacity, "%s: %s", where, problem);
    return NULL;
  }
  /* Written to the caller only once the whole entry parsed. */
  memcpy(decision->times_ms, times, configs * sizeof(float));
  free(times);
  decision->chosen = (size_t)chosen;
  decision->iterations = (uint32_t)iterations;
  *out_found = 1;
  return NULL;
}

tkrt_status_t tkrt_decision_read(const char* dir, bool shared_ok, const char* key,
                                 const uint8_t digest[32],
                                 const char* arch, int driver_version, tkrt_decision_t* decision,
                                 int* out_found, char* out_problem, size_t problem_capacity) {
  *out_found = 0;
  out_problem[0] = '\0';
  char name[80], path[4200];
  snprintf(name, sizeof(name), "%s.decision", key);
  snprintf(path, sizeof(path), "%s/%s", dir, name);
  int dir_fd = -1;
  tkrt_status_t status = tkrt_fs_open_trusted_dir(dir, shared_ok, &dir_fd);
  void* text = NULL;
  size_t size = 0;
  if (!status) {
    status = tkrt_fs_read_file_at(dir_fd, name, path, TKRT_DECISION_MAX_BYTES,
                                  TKRT_FS_READ_NOFOLLOW | TKRT_FS_READ_TRUSTED |
                                      (shared_ok ? TKRT_FS_READ_SHARED_OK : 0u),
                                  &text, &size);
    close(dir_fd);
  }
  if (status) {
    tkrt_status_code_t code = tkrt_status_code(status);
    if (code != TKRT_STATUS_NOT_FOUND) {
      /* Not an entry we can use (a link, a FIFO, too large, not trusted): say so, retune, and
       * let the write replace it (rename replaces the name, never what a link points to). */
      snprintf(out_problem, problem_capacity, "%s", tkrt_status_message(status));
    }
    tkrt_status_free(status);
    return code == TKRT_STATUS_RESOURCE_EXHAUSTED
               ? TKRT_STATUS_MAKE(TKRT_STATUS_RESOURCE_EXHAUSTED, "out of host memory")
               : NULL;
  }
  status = tkrt_decision_parse(text, size, path, digest, arch, driver_version, decision, out_found,
                               out_problem, problem_capacity);
  free(text);
  return status;
}

/* ".<64 hex digits>.decision.XXXXXX" (or ".timing.", the tuning database's per-config times):
 * the temporary name tkrt_fs_write_file_atomic gives an entry while it is written (mkstemp's six
 * letters and digits). */
static bool tkrt_decision_is_temp_name(const char* name) {
  size_t length = strlen(name);
  const char* kMiddle = length > 65 + 8 && strncmp(name + 65, ".timing.", 8) == 0 ? ".timing."
                                                                                  : ".decision.";
  const size_t middle = strlen(kMiddle);
  if (length != 1 + 64 + middle + 6 || name[0] != '.') return false;
  for (size_t i = 1; i <= 64; ++i) {
    if (!((name[i] >= '0' && name[i] <= '9') || (name[i] >= 'a' && name[i] <= 'f'))) return false;
  }
  if (memcmp(name + 65, kMiddle, middle) != 0) return false;
  for (size_t i = 65 + middle; name[i]; ++i) {
    char c = name[i];
    if (!((c >= '0' && c <= '9') || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z'))) return false;
  }
  return true;
}

void tkrt_decision_remove_stale_temps(int dir_fd) {
  int fd = openat(dir_fd, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (fd < 0) return;
  DIR* folder = fdopendir(fd);
  if (!folder) {
    close(fd);
    return;
  }
  time_t now = time(NULL);
  uid_t me = geteuid();
  struct dirent* entry;
  while ((entry = readdir(folder)) != NULL) {
    if (!tkrt_decision_is_temp_name(entry->d_name)) continue;
    struct stat info;
    /* The name itself: a link is a link (never followed), a folder or FIFO is left alone. */
    if (fstatat(fd, entry->d_name, &info, AT_SYMLINK_NOFOLLOW) != 0) continue;
    if (!S_ISREG(info.st_mode) || info.st_uid != me) continue;
    if (!(info.st_mtime < now - TKRT_DECISION_STALE_TEMP_SECONDS)) continue;
    (void)unlinkat(fd, entry->d_name, 0);
  }
  closedir(folder);
}

tkrt_status_t tkrt_decision_write(const char* dir, bool shared_ok, const char* key,
                                  const uint8_t digest[32],
                                  const char* arch, int driver_version,
                                  const tkrt_decision_t* decision) {
  TKRT_RETURN_IF_ERROR(tkrt_fs_mkdirs(dir));
  int dir_fd = -1;
  TKRT_RETURN_IF_ERROR(tkrt_fs_open_trusted_dir(dir, shared_ok, &dir_fd));
  tkrt_decision_remove_stale_temps(dir_fd);
  close(dir_fd);
  char digest_hex[65], name[80];
  tkrt_hex_encode(digest, 32, digest_hex);
  snprintf(name, sizeof(name), "%s.decision", key);
  size_t capacity = 512 + strlen(arch) + 24 * decision->config_count;
  char* text = malloc(capacity);
  if (!text) return TKRT_STATUS_MAKE(TKRT_STATUS_RESOURCE_EXHAUSTED, "out of host memory");
  int n = snprintf(text, capacity,
                   TKRT_DECISION_MAGIC "\ntkrt %s\ndigest %s\narch %s\ndriver %d\nconfigs %zu\n"
                   "chosen %zu\niterations %u\ntimes",
                   TKRT_VERSION_STRING, digest_hex, arch, driver_version, decision->config_count,
                   decision->chosen, decision->iterations);
  size_t used = n > 0 ? (size_t)n : 0;
  for (size_t i = 0; i < decision->config_count && used < capacity; ++i) {
    n = snprintf(text + used, capacity - used, " %.9g", decision->times_ms[i]);
    if (n > 0) used += (size_t)n;
  }
  if (used + 2 > capacity) {
    free(text);
    return TKRT_STATUS_MAKE(TKRT_STATUS_INTERNAL, "decision text for %s overflowed", name);
  }
  text[used++] = '\n';
  tkrt_fs_piece_t piece = {text, used};
  tkrt_status_t status = tkrt_fs_write_file_atomic(dir, name, &piece, 1, 0644);
  free(text);
  return status;
}
