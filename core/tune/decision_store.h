/* SPDX-License-Identifier: Apache-2.0 */
/* tkrt core: the on-disk store of tuning decisions, shared by processes (and ranks) that see the
 * same directory. Entries are small text files written atomically; a lock file per entry makes
 * concurrent processes tune a call once and agree on the result. */
#ifndef TKRT_CORE_TUNE_DECISION_STORE_H_
#define TKRT_CORE_TUNE_DECISION_STORE_H_

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "tkrt/status.h"

typedef struct tkrt_decision {
  size_t chosen;
  size_t config_count;
  uint32_t iterations;
  float* times_ms; /* config_count entries, owned by the caller */
} tkrt_decision_t;

/* The entry name for (call digest, arch, driver version, tkrt version): 64 hex characters. */
void tkrt_decision_key(const uint8_t digest[32], const char* arch, int driver_version,
                       char out_key[65]);

/* Takes an exclusive lock on the entry (creating the directory as needed); *out_fd is -1 when
 * the store cannot be used, with a status saying why. The lock file is opened O_NOFOLLOW and must
 * be a trusted regular file in a trusted folder (base/fs.h: tkrt_fs_check_trusted). A store this
 * process cannot write is still read: then the lock is shared, on the lock file when it exists,
 * else on the folder, and writing the entry fails later with PERMISSION_DENIED. */
tkrt_status_t tkrt_decision_lock(const char* dir, bool shared_ok, const char* key, int* out_fd);
void tkrt_decision_unlock(int fd);

/* Reads an entry (O_NOFOLLOW, non-blocking, a trusted regular file of at most
 * TKRT_DECISION_MAX_BYTES). *out_found is 0 when it is absent, or present but corrupt, for another
 * call, not a regular file or not trusted (then *out_problem describes it, for a warning). */
tkrt_status_t tkrt_decision_read(const char* dir, bool shared_ok, const char* key,
                                 const uint8_t digest[32],
                                 const char* arch, int driver_version, tkrt_decision_t* decision,
                                 int* out_found, char* out_problem, size_t problem_capacity);
/* Parses an entry's text (`size` bytes, NUL-terminated at text[size]); the file-free half of
 * tkrt_decision_read, also the fuzz target's entry point. `where` prefixes the problem. */
tkrt_status_t tkrt_decision_parse(const char* text, size_t size, const char* where,
                                  const uint8_t digest[32], const char* arch, int driver_version,
                                  tkrt_decision_t* decision, int* out_found, char* out_problem,
                                  size_t problem_capacity);

/* Entries larger than this are corrupt (a real one is ~100 bytes plus ~16 per config). */
#define TKRT_DECISION_MAX_BYTES ((size_t)1 << 20)

/* Writes an entry atomically (a new mkstemp file, fsync, rename): never through a planted link.
 * First removes what interrupted writes (a process killed between mkstemp and rename) left in the
 * folder: tkrt_decision_remove_stale_temps. */
tkrt_status_t tkrt_decision_write(const char* dir, bool shared_ok, const char* key,
                                  const uint8_t digest[32],
                                  const char* arch, int driver_version,
                                  const tkrt_decision_t* decision);

/* An entry's temporary file ".<key>.decision.XXXXXX" older than this is what an interrupted write
 * left: a write takes milliseconds, so nothing still being written is that old. */
#define TKRT_DECISION_STALE_TEMP_SECONDS (10 * 60)

/* Removes, from the open store folder `dir_fd`, the entries' temporary files of this user (the
 * exact name pattern above; regular files owned by the effective user, last modified more than
 * TKRT_DECISION_STALE_TEMP_SECONDS ago). Links (never followed), folders, FIFOs, other users'
 * files, fresh ones and any other name are left alone. Best effort: errors are ignored. */
void tkrt_decision_remove_stale_temps(int dir_fd);

#endif /* TKRT_CORE_TUNE_DECISION_STORE_H_ */
