/* SPDX-License-Identifier: Apache-2.0 */
/* tkrt core: the tuning database, per-config times kept beside the decision store's entries. A
 * config's time is keyed by the config alone (its kernel, grid and parameters), the device's arch,
 * driver and SM count, so that adding a config to a call times only the new one. One line of text
 * per record, the same in a store entry ("<key>.timing": a header line, then the record) and in an
 * exported database file ("tkrt-tune-db 1", then records): what `tkrt tune-db` shows, exports,
 * imports and merges. */
#ifndef TKRT_CORE_TUNE_TUNE_DB_H_
#define TKRT_CORE_TUNE_TUNE_DB_H_

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "tkrt/status.h"

#define TKRT_TIMING_MAGIC "tkrt-timing 1"
#define TKRT_TUNEDB_MAGIC "tkrt-tune-db 1"
/* A database file larger than this is refused (a record is ~130 bytes). */
#define TKRT_TUNEDB_MAX_BYTES ((size_t)64 << 20)

typedef struct tkrt_timing {
  uint8_t config[32]; /* tkrt_config_digest */
  char arch[64];
  int driver_version;
  uint32_t sm_count;
  float ms;            /* mean launch time, finite and >= 0 */
  uint32_t iterations; /* launches the mean is over (>= 1) */
} tkrt_timing_t;

/* "timing <config hex> <arch> <driver> <sms> <ms> <iterations>" (no newline). Returns false with
 * *problem when the line is not exactly that: hex of 64 lower-case digits, an arch of 1 to 63
 * printable characters other than blanks, decimal numbers, a finite non-negative time. */
bool tkrt_timing_parse_line(const char* line, size_t length, tkrt_timing_t* out, char* problem,
                            size_t problem_capacity);
/* The line with its newline; 0 when it does not fit. */
size_t tkrt_timing_format_line(const tkrt_timing_t* timing, char* out, size_t capacity);

/* The store entry name's key: SHA-256 hex over the format, config, arch, driver and SM count. */
void tkrt_timing_key(const tkrt_timing_t* timing, char out_key[65]);

/* Reads "<key>.timing" in dir (trusted, no links, a regular file); *out_found 0 when absent or
 * invalid (then *problem says why) or when it is for another config, arch, driver or SM count. */
tkrt_status_t tkrt_timing_read(const char* dir, bool shared_ok, tkrt_timing_t* want,
                               int* out_found, char* problem, size_t problem_capacity);
/* Writes the entry atomically (mkstemp, fsync, rename): into the checked folder dir_fd when it is
 * >= 0 (dir names it in errors), else into dir (made when missing). */
tkrt_status_t tkrt_timing_write_at(int dir_fd, const char* dir, const tkrt_timing_t* timing);
#define tkrt_timing_write(dir, timing) tkrt_timing_write_at(-1, (dir), (timing))

/* Parses a database file's text (`size` bytes): the header line, then one record per line (blank
 * lines and lines starting with '#' are skipped). Any other line is INVALID_ARGUMENT naming
 * `where` and the line number, and nothing is returned. *out is malloc'd (count records). */
tkrt_status_t tkrt_tunedb_parse(const char* text, size_t size, const char* where,
                                tkrt_timing_t** out, size_t* out_count);

#endif /* TKRT_CORE_TUNE_TUNE_DB_H_ */
