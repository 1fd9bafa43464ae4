/* SPDX-License-Identifier: Apache-2.0 */
/* tkrt core: the decision exchange over a shared folder, for processes on one host (or a shared
 * file system with working flock). Key K is the file "v.K", written to a new O_EXCL temporary file
 * and renamed into place, so a reader sees a whole value or none; counters are updated under an
 * flock on "l.K" (released by the kernel when a holder dies). The folder and every file read are
 * checked like the decision store's (base/fs.h: trusted, no links followed, regular files only). */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "base/fs.h"
#include "base/log.h"
#include "core/tune/exchange.h"

typedef struct tkrt_exchange_folder {
  char* dir;
  bool trust_shared;
} tkrt_exchange_folder_t;

static void tkrt_folder_warn(tkrt_status_t status) {
  TKRT_LOG_AT(TKRT_LOG_WARN, "tune", "decision exchange folder: %s", tkrt_status_message(status));
  tkrt_status_free(status);
}

static bool tkrt_folder_name(const char* prefix, const char* key, char* out, size_t capacity) {
  if (!key || !tkrt_exchange_key_valid(key)) return false;
  int n = snprintf(out, capacity, "%s.%s", prefix, key);
  return n > 0 && (size_t)n < capacity;
}

static tkrt_exchange_result_t tkrt_folder_set(void* user, const char* key, const void* value,
                                              size_t size) {
  tkrt_exchange_folder_t* folder = user;
  char name[TKRT_EXCHANGE_MAX_KEY + 8];
  if (!tkrt_folder_name("v", key, name, sizeof(name))) return TKRT_EXCHANGE_ERROR;
  int dir_fd = -1;
  tkrt_status_t status = tkrt_fs_open_trusted_dir(folder->dir, folder->trust_shared, &dir_fd);
  if (!status) {
    /* Written through the folder that was checked, not its path again. */
    tkrt_fs_piece_t piece = {value, size};
    status = tkrt_fs_write_file_atomic_at(dir_fd, folder->dir, name, &piece, 1, 0644);
    close(dir_fd);
  }
  if (status) {
    tkrt_folder_warn(status);
    return TKRT_EXCHANGE_ERROR;
  }
  return TKRT_EXCHANGE_OK;
}

/* One attempt in the checked folder dir_fd (or, when dir_fd < 0, the folder opened and checked
 * now): OK, NOT_FOUND or ERROR (warned). */
static tkrt_exchange_result_t tkrt_folder_read(tkrt_exchange_folder_t* folder, int dir_fd,
                                               const char* name, void** out_data,
                                               size_t* out_size) {
  int own_fd = -1;
  tkrt_status_t status =
      dir_fd >= 0 ? NULL : tkrt_fs_open_trusted_dir(folder->dir, folder->trust_shared, &own_fd);
  if (!status) {
    char label[4300];
    snprintf(label, sizeof(label), "%s/%s", folder->dir, name);
    status = tkrt_fs_read_file_at(dir_fd >= 0 ? dir_fd : own_fd, name, label,
                                  TKRT_EXCHANGE_MAX_VALUE,
                                  TKRT_FS_READ_NOFOLLOW | TKRT_FS_READ_TRUSTED |
                                      (folder->trust_shared ? TKRT_FS_READ_SHARED_OK : 0u),
                                  out_data, out_size);
    if (own_fd >= 0) close(own_fd);
  }
  if (!status) return TKRT_EXCHANGE_OK;
  tkrt_status_code_t code = tkrt_status_code(status);
  if (code == TKRT_STATUS_NOT_FOUND) {
    tkrt_status_free(status);
    return TKRT_EXCHANGE_NOT_FOUND;
  }
  tkrt_folder_warn(status); /* a link, a FIFO, too large, another user's: refused */
  return TKRT_EXCHANGE_ERROR;
}

/* The longest add waits for a counter's lock (the folder does not know the exchange's timeout). */
#define TKRT_FOLDER_LOCK_CAP_MS 10000u

static uint64_t tkrt_now_ms(void) {
  struct timespec now;
  clock_gettime(CLOCK_MONOTONIC, &now);
  return (uint64_t)now.tv_sec * 1000u + (uint64_t)now.tv_nsec / 1000000u;
}

static tkrt_exchange_result_t tkrt_folder_get(void* user, const char* key, uint32_t timeout_ms,
                                              void* value, size_t capacity, size_t* out_size) {
  tkrt_exchange_folder_t* folder = user;
  char name[TKRT_EXCHANGE_MAX_KEY + 8];
  if (!tkrt_folder_name("v", key, name, sizeof(name))) return TKRT_EXCHANGE_ERROR;
  uint64_t deadline = tkrt_now_ms() + timeout_ms;
  long pause_us = 500;
  for (;;) {
    void* data = NULL;
    size_t size = 0;
    tkrt_exchange_result_t result = tkrt_folder_read(folder, -1, name, &data, &size);
    if (result == TKRT_EXCHANGE_OK) {
      memcpy(value, data, size < capacity ? size : capacity);
      *out_size = size;
      free(data);
      return TKRT_EXCHANGE_OK;
    }
    if (result != TKRT_EXCHANGE_NOT_FOUND) return result;
    uint64_t now = tkrt_now_ms();
    if (now >= deadline) {
      return timeout_ms == 0 ? TKRT_EXCHANGE_NOT_FOUND : TKRT_EXCHANGE_DEADLINE_EXCEEDED;
    }
    /* Polls: 0.5 ms, doubling up to 20 ms, never past the deadline. */
    uint64_t left_us = (deadline - now) * 1000u;
    long sleep_us = (uint64_t)pause_us < left_us ? pause_us : (long)left_us;
    struct timespec pause = {sleep_us / 1000000L, (sleep_us % 1000000L) * 1000L};
    nanosleep(&pause, NULL);
    if (pause_us < 20000) pause_us *= 2;
  }
}

/* A counter's text: an optional '-' and 1 to 19 decimal digits, then a newline; nothing else (no
 * spaces, no '+': what tkrt writes). */
static bool tkrt_folder_counter(const char* text, size_t size, int64_t* out_value) {
  if (size < 2 || size > 21 || text[size - 1] != '\n') return false;
  size_t at = text[0] == '-' ? 1 : 0, digits = size - 1 - at;
  if (digits < 1 || digits > 19) return false;
  for (size_t i = at; i < size - 1; ++i) {
    if (text[i] < '0' || text[i] > '9') return false;
  }
  errno = 0;
  char* end = NULL;
  long long parsed = strtoll(text, &end, 10);
  if (errno || end != text + size - 1) return false;
  *out_value = parsed;
  return true;
}

static tkrt_exchange_result_t tkrt_folder_add_within(void* user, const char* key, int64_t delta,
                                                     uint32_t timeout_ms, int64_t* out_value) {
  tkrt_exchange_folder_t* folder = user;
  char name[TKRT_EXCHANGE_MAX_KEY + 8], lock_name[TKRT_EXCHANGE_MAX_KEY + 8];
  if (!tkrt_folder_name("v", key, name, sizeof(name)) ||
      !tkrt_folder_name("l", key, lock_name, sizeof(lock_name))) {
    return TKRT_EXCHANGE_ERROR;
  }
  int dir_fd = -1;
  tkrt_status_t status = tkrt_fs_open_trusted_dir(folder->dir, folder->trust_shared, &dir_fd);
  if (status) {
    tkrt_folder_warn(status);
    return TKRT_EXCHANGE_ERROR;
  }
  int fd = openat(dir_fd, lock_name, O_RDWR | O_CREAT | O_CLOEXEC | O_NOFOLLOW | O_NONBLOCK |
                                         O_NOCTTY, 0644);
  int error = errno;
  char path[4300];
  snprintf(path, sizeof(path), "%s/%s", folder->dir, lock_name);
  if (fd < 0) {
    close(dir_fd);
    tkrt_folder_warn(TKRT_STATUS_MAKE(tkrt_fs_errno_code(error), "cannot open %s: %s", path,
                                      error == ELOOP ? "a symbolic link" : strerror(error)));
    return TKRT_EXCHANGE_ERROR;
  }
  struct stat info;
  if (fstat(fd, &info) != 0) {
    status = TKRT_STATUS_MAKE(TKRT_STATUS_INTERNAL, "cannot stat %s", path);
  } else if (!S_ISREG(info.st_mode)) {
    status = TKRT_STATUS_MAKE(TKRT_STATUS_FAILED_PRECONDITION, "%s is %s, not a regular file",
                              path, tkrt_fs_type_name(info.st_mode));
  } else {
    status = tkrt_fs_check_trusted(&info, path, folder->trust_shared);
  }
  /* Never blocks: a holder that was stopped (not killed) would stall every other rank. The lock is
   * polled with the get's backoff for at most the time the tuner gave (at most
   * TKRT_FOLDER_LOCK_CAP_MS), then add fails (DEADLINE_EXCEEDED) and the tuner falls back
   * deterministically. */
  uint32_t cap = timeout_ms < TKRT_FOLDER_LOCK_CAP_MS ? timeout_ms : TKRT_FOLDER_LOCK_CAP_MS;
  uint64_t lock_deadline = tkrt_now_ms() + cap;
  long lock_pause_us = 500;
  while (!status && flock(fd, LOCK_EX | LOCK_NB) != 0) {
    int lock_error = errno;
    if (lock_error == EINTR) continue;
    uint64_t now = tkrt_now_ms();
    if (lock_error != EWOULDBLOCK || now >= lock_deadline) {
      status = lock_error == EWOULDBLOCK
                   ? TKRT_STATUS_MAKE(TKRT_STATUS_DEADLINE_EXCEEDED,
                                      "cannot lock %s: held by another process for %u ms", path,
                                      (unsigned)cap)
                   : TKRT_STATUS_MAKE(TKRT_STATUS_UNAVAILABLE, "cannot lock %s: %s", path,
                                      strerror(lock_error));
      break;
    }
    uint64_t left_us = (lock_deadline - now) * 1000u;
    long sleep_us = (uint64_t)lock_pause_us < left_us ? lock_pause_us : (long)left_us;
    struct timespec pause = {sleep_us / 1000000L, (sleep_us % 1000000L) * 1000L};
    nanosleep(&pause, NULL);
    if (lock_pause_us < 20000) lock_pause_us *= 2;
  }
  if (status) {
    bool timed_out = tkrt_status_code(status) == TKRT_STATUS_DEADLINE_EXCEEDED;
    close(fd);
    close(dir_fd);
    tkrt_folder_warn(status);
    return timed_out ? TKRT_EXCHANGE_DEADLINE_EXCEEDED : TKRT_EXCHANGE_ERROR;
  }
  /* The counter is read and written in the folder that was checked (dir_fd), where the lock is. */
  int64_t current = 0;
  void* data = NULL;
  size_t size = 0;
  tkrt_exchange_result_t result = tkrt_folder_read(folder, dir_fd, name, &data, &size);
  if (result == TKRT_EXCHANGE_OK) {
    if (!tkrt_folder_counter(data, size, &current)) {
      tkrt_folder_warn(TKRT_STATUS_MAKE(TKRT_STATUS_DATA_LOSS,
                                        "%s/%s is not a counter (an optional '-', decimal digits "
                                        "and a newline)",
                                        folder->dir, name));
      result = TKRT_EXCHANGE_ERROR;
    }
    free(data);
  } else if (result == TKRT_EXCHANGE_NOT_FOUND) {
    result = TKRT_EXCHANGE_OK;
  }
  if (result == TKRT_EXCHANGE_OK) {
    if ((delta > 0 && current > INT64_MAX - delta) || (delta < 0 && current < INT64_MIN - delta)) {
      tkrt_folder_warn(TKRT_STATUS_MAKE(TKRT_STATUS_OUT_OF_RANGE, "%s/%s would overflow",
                                        folder->dir, name));
      result = TKRT_EXCHANGE_ERROR;
    } else {
      char text[32];
      int n = snprintf(text, sizeof(text), "%" PRId64 "\n", current + delta);
      tkrt_fs_piece_t piece = {text, (size_t)n};
      status = tkrt_fs_write_file_atomic_at(dir_fd, folder->dir, name, &piece, 1, 0644);
      if (status) {
        tkrt_folder_warn(status);
        result = TKRT_EXCHANGE_ERROR;
      } else {
        *out_value = current + delta;
      }
    }
  }
  flock(fd, LOCK_UN);
  close(fd);
  close(dir_fd);
  return result;
}

/* The plain add: the lock's own cap, and ERROR when it passes (what add answers for a store that
 * cannot do it; add_within's DEADLINE_EXCEEDED says the time asked for ran out). */
static tkrt_exchange_result_t tkrt_folder_add(void* user, const char* key, int64_t delta,
                                              int64_t* out_value) {
  tkrt_exchange_result_t result =
      tkrt_folder_add_within(user, key, delta, TKRT_FOLDER_LOCK_CAP_MS, out_value);
  return result == TKRT_EXCHANGE_DEADLINE_EXCEEDED ? TKRT_EXCHANGE_ERROR : result;
}

/* A set never waits for another process (a new file renamed into place). */
static tkrt_exchange_result_t tkrt_folder_set_within(void* user, const char* key,
                                                     const void* value, size_t size,
                                                     uint32_t timeout_ms) {
  (void)timeout_ms;
  return tkrt_folder_set(user, key, value, size);
}

tkrt_status_t tkrt_exchange_folder_create(const char* dir, bool trust_shared,
                                          tkrt_exchange_t* out_exchange) {
  if (!dir || !*dir || !out_exchange) {
    return TKRT_STATUS_MAKE(TKRT_STATUS_INVALID_ARGUMENT,
                            "tkrt_exchange_folder_create: no folder or no output");
  }
  /* Makes the missing folders of the path, noting which this call made (mkdir succeeded), so
   * that they are removed again when the folder is refused: a refused folder leaves nothing. */
  size_t length = strlen(dir);
  char path[4096];
  static const size_t kMaxMade = 512;
  size_t made[512], made_count = 0;
  if (length >= sizeof(path)) {
    return TKRT_STATUS_MAKE(TKRT_STATUS_INVALID_ARGUMENT, "bad folder name '%.200s'", dir);
  }
  memcpy(path, dir, length + 1);
  tkrt_status_t status = NULL;
  for (size_t i = 1; i <= length && !status; ++i) {
    if (path[i] != '/' && path[i] != '\0') continue;
    if (path[i - 1] == '/') continue; /* "a//b" */
    char saved = path[i];
    path[i] = '\0';
    if (mkdir(path, 0755) == 0) {
      if (made_count < kMaxMade) made[made_count++] = i;
    } else if (errno != EEXIST) {
      int error = errno;
      status = TKRT_STATUS_MAKE(tkrt_fs_errno_code(error), "cannot create %s: %s", path,
                                strerror(error));
    }
    path[i] = saved;
  }
  int dir_fd = -1;
  if (!status) status = tkrt_fs_open_trusted_dir(dir, trust_shared, &dir_fd);
  if (status) {
    while (made_count > 0) { /* deepest first; each is empty unless someone else wrote there */
      size_t i = made[--made_count];
      char saved = path[i];
      path[i] = '\0';
      rmdir(path);
      path[i] = saved;
    }
    return status;
  }
  close(dir_fd);
  tkrt_exchange_folder_t* folder = calloc(1, sizeof(*folder));
  char* copy = folder ? strdup(dir) : NULL;
  if (!copy) {
    free(folder);
    return TKRT_STATUS_MAKE(TKRT_STATUS_RESOURCE_EXHAUSTED, "out of host memory");
  }
  folder->dir = copy;
  folder->trust_shared = trust_shared;
  tkrt_exchange_init(out_exchange);
  out_exchange->user = folder;
  out_exchange->set = tkrt_folder_set;
  out_exchange->get = tkrt_folder_get;
  out_exchange->add = tkrt_folder_add;
  out_exchange->set_within = tkrt_folder_set_within;
  out_exchange->add_within = tkrt_folder_add_within;
  return NULL;
}

void tkrt_exchange_folder_destroy(tkrt_exchange_t* exchange) {
  if (!exchange || exchange->set != tkrt_folder_set) return;
  tkrt_exchange_folder_t* folder = exchange->user;
  free(folder->dir);
  free(folder);
  exchange->user = NULL;
}
