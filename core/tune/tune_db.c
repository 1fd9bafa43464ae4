/* SPDX-License-Identifier: Apache-2.0 */
/* tkrt core: the tuning database's records (per-config times), in store entries and in exported
 * database files. Both come from other processes or other machines: every record is checked in
 * full before it is used. */
#include "core/tune/tune_db.h"

#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "base/fs.h"
#include "core/tune/decision_store.h"
#include "base/sha256.h"
#include "core/call_internal.h"

/* The next blank-separated word of at most capacity-1 bytes; NULL when there is none. */
static const char* tkrt_db_word(const char* at, const char* end, char* out, size_t capacity) {
  if (at >= end || *at != ' ') return NULL;
  ++at;
  size_t length = 0;
  while (at + length < end && at[length] != ' ') ++length;
  if (length == 0 || length >= capacity) return NULL;
  memcpy(out, at, length);
  out[length] = '\0';
  return at + length;
}

static bool tkrt_db_unsigned(const char* word, unsigned long long max, unsigned long long* out) {
  size_t digits = strlen(word);
  if (digits == 0 || digits > 19 || (digits > 1 && word[0] == '0')) return false;
  for (size_t i = 0; i < digits; ++i) {
    if (!isdigit((unsigned char)word[i])) return false;
  }
  errno = 0;
  unsigned long long value = strtoull(word, NULL, 10);
  if (errno || value > max) return false;
  *out = value;
  return true;
}

bool tkrt_timing_parse_line(const char* line, size_t length, tkrt_timing_t* out, char* problem,
                            size_t problem_capacity) {
  const char* end = line + length;
  const char* why = NULL;
  char hex[66], arch[64], driver[16], sms[16], ms[48], iterations[16];
  tkrt_timing_t t;
  memset(&t, 0, sizeof(t));
  const char* at = line;
  unsigned long long number = 0;
  if (length < 6 || memcmp(line, "timing", 6) != 0) {
    why = "not a timing record";
  } else if (memchr(line, '\0', length) || memchr(line, '\n', length)) {
    why = "a NUL byte or a line break inside the record";
  } else {
    at += 6;
    if (!(at = tkrt_db_word(at, end, hex, sizeof(hex))) ||
        !(at = tkrt_db_word(at, end, arch, sizeof(arch))) ||
        !(at = tkrt_db_word(at, end, driver, sizeof(driver))) ||
        !(at = tkrt_db_word(at, end, sms, sizeof(sms))) ||
        !(at = tkrt_db_word(at, end, ms, sizeof(ms))) ||
        !(at = tkrt_db_word(at, end, iterations, sizeof(iterations))) || at != end) {
      why = "not 'timing <config> <arch> <driver> <sms> <ms> <iterations>'";
    }
  }
  if (!why) {
    if (strlen(hex) != 64) why = "the config digest is not 64 hex digits";
    for (size_t i = 0; !why && i < 64; ++i) {
      char c = hex[i];
      if (!((c >= '0' && c <= '9') || (c >= 'a' && c <= 'f'))) {
        why = "the config digest is not 64 lower-case hex digits";
      } else {
        int v = c <= '9' ? c - '0' : c - 'a' + 10;
        t.config[i / 2] = (uint8_t)(t.config[i / 2] | (i % 2 ? v : v << 4));
      }
    }
  }
  for (const char* c = arch; !why && *c; ++c) {
    if (!isgraph((unsigned char)*c)) why = "the arch has a character that is not printable";
  }
  if (!why) {
    snprintf(t.arch, sizeof(t.arch), "%s", arch);
    /* A driver version may be negative only as -1 ("unknown"). */
    if (strcmp(driver, "-1") == 0) {
      t.driver_version = -1;
    } else if (tkrt_db_unsigned(driver, 0x7fffffff, &number)) {
      t.driver_version = (int)number;
    } else {
      why = "the driver version is not a number";
    }
  }
  if (!why) {
    if (tkrt_db_unsigned(sms, UINT32_MAX, &number)) {
      t.sm_count = (uint32_t)number;
    } else {
      why = "the SM count is not a number";
    }
  }
  if (!why) {
    if (tkrt_db_unsigned(iterations, UINT32_MAX, &number) && number >= 1) {
      t.iterations = (uint32_t)number;
    } else {
      why = "the iteration count is not a number from 1";
    }
  }
  if (!why) {
    /* Digits, '.', an exponent: nothing strtof reads beyond that (no inf, nan or hex). */
    size_t i = 0;
    while (isdigit((unsigned char)ms[i]) || ms[i] == '.') ++i;
    if ((ms[i] == 'e' || ms[i] == 'E') && i > 0) {
      ++i;
      if (ms[i] == '+' || ms[i] == '-') ++i;
      while (isdigit((unsigned char)ms[i])) ++i;
    }
    char* stop = NULL;
    float value = isdigit((unsigned char)ms[0]) && ms[i] == '\0' ? strtof(ms, &stop) : -1;
    if (!stop || *stop || !isfinite(value) || value < 0) {
      why = "the time is not a finite non-negative number";
    } else {
      t.ms = value;
    }
  }
  if (why) {
    snprintf(problem, problem_capacity, "%s", why);
    return false;
  }
  *out = t;
  return true;
}

size_t tkrt_timing_format_line(const tkrt_timing_t* timing, char* out, size_t capacity) {
  char hex[65];
  tkrt_hex_encode(timing->config, 32, hex);
  int n = snprintf(out, capacity, "timing %s %s %d %u %.9g %u\n", hex, timing->arch,
                   timing->driver_version, timing->sm_count, (double)timing->ms,
                   timing->iterations);
  return n > 0 && (size_t)n < capacity ? (size_t)n : 0;
}

void tkrt_timing_key(const tkrt_timing_t* timing, char out_key[65]) {
  tkrt_sha256_t ctx;
  tkrt_sha256_init(&ctx);
  char text[160];
  int n = snprintf(text, sizeof(text), "%s|%zu:%s|%d|%u|", TKRT_TIMING_MAGIC, strlen(timing->arch),
                   timing->arch, timing->driver_version, timing->sm_count);
  tkrt_sha256_update(&ctx, text, n > 0 ? (size_t)n : 0);
  tkrt_sha256_update(&ctx, timing->config, 32);
  uint8_t hash[32];
  tkrt_sha256_final(&ctx, hash);
  tkrt_hex_encode(hash, 32, out_key);
}

tkrt_status_t tkrt_timing_read(const char* dir, bool shared_ok, tkrt_timing_t* want,
                               int* out_found, char* problem, size_t problem_capacity) {
  *out_found = 0;
  problem[0] = '\0';
  char key[65], name[80], path[4200];
  tkrt_timing_key(want, key);
  snprintf(name, sizeof(name), "%s.timing", key);
  snprintf(path, sizeof(path), "%s/%s", dir, name);
  int dir_fd = -1;
  tkrt_status_t status = tkrt_fs_open_trusted_dir(dir, shared_ok, &dir_fd);
  void* data = NULL;
  size_t size = 0;
  if (!status) {
    status = tkrt_fs_read_file_at(dir_fd, name, path, 4096,
                                  TKRT_FS_READ_NOFOLLOW | TKRT_FS_READ_TRUSTED |
                                      (shared_ok ? TKRT_FS_READ_SHARED_OK : 0u),
                                  &data, &size);
    close(dir_fd);
  }
  if (status) {
    tkrt_status_code_t code = tkrt_status_code(status);
    if (code != TKRT_STATUS_NOT_FOUND) {
      snprintf(problem, problem_capacity, "%s", tkrt_status_message(status));
    }
    tkrt_status_free(status);
    return code == TKRT_STATUS_RESOURCE_EXHAUSTED
               ? TKRT_STATUS_MAKE(TKRT_STATUS_RESOURCE_EXHAUSTED, "out of host memory")
               : NULL;
  }
  const char* text = data;
  size_t header = sizeof(TKRT_TIMING_MAGIC);
  tkrt_timing_t got;
  char why[128];
  if (size < header + 1 || memcmp(text, TKRT_TIMING_MAGIC "\n", header) != 0 ||
      text[size - 1] != '\n') {
    snprintf(problem, problem_capacity, "%s: not a timing entry", path);
  } else if (!tkrt_timing_parse_line(text + header, size - header - 1, &got, why, sizeof(why))) {
    snprintf(problem, problem_capacity, "%s: %s", path, why);
  } else if (memcmp(got.config, want->config, 32) != 0 || strcmp(got.arch, want->arch) != 0 ||
             got.driver_version != want->driver_version || got.sm_count != want->sm_count) {
    snprintf(problem, problem_capacity, "%s: written for another config or device", path);
  } else {
    want->ms = got.ms;
    want->iterations = got.iterations;
    *out_found = 1;
  }
  free(data);
  return NULL;
}

tkrt_status_t tkrt_timing_write_at(int dir_fd, const char* dir, const tkrt_timing_t* timing) {
  char key[65], name[80], line[256];
  tkrt_timing_key(timing, key);
  snprintf(name, sizeof(name), "%s.timing", key);
  size_t length = tkrt_timing_format_line(timing, line, sizeof(line));
  if (!length) return TKRT_STATUS_MAKE(TKRT_STATUS_INTERNAL, "timing record for %s overflowed", name);
  tkrt_fs_piece_t pieces[2] = {{TKRT_TIMING_MAGIC "\n", sizeof(TKRT_TIMING_MAGIC)},
                               {line, length}};
  if (dir_fd >= 0) return tkrt_fs_write_file_atomic_at(dir_fd, dir, name, pieces, 2, 0644);
  TKRT_RETURN_IF_ERROR(tkrt_fs_mkdirs(dir));
  return tkrt_fs_write_file_atomic(dir, name, pieces, 2, 0644);
}

tkrt_status_t tkrt_tunedb_parse(const char* text, size_t size, const char* where,
                                tkrt_timing_t** out, size_t* out_count) {
  *out = NULL;
  *out_count = 0;
  size_t header = sizeof(TKRT_TUNEDB_MAGIC) - 1;
  if (size > TKRT_TUNEDB_MAX_BYTES) {
    return TKRT_STATUS_MAKE(TKRT_STATUS_OUT_OF_RANGE, "%s is larger than %zu bytes", where,
                            TKRT_TUNEDB_MAX_BYTES);
  }
  if (size < header + 1 || memcmp(text, TKRT_TUNEDB_MAGIC "\n", header + 1) != 0) {
    return TKRT_STATUS_MAKE(TKRT_STATUS_INVALID_ARGUMENT,
                            "%s is not a tuning database (its first line is not '%s')", where,
                            TKRT_TUNEDB_MAGIC);
  }
  size_t capacity = 0, count = 0;
  tkrt_timing_t* records = NULL;
  const char* at = text + header + 1;
  const char* end = text + size;
  size_t line_number = 1;
  while (at < end) {
    ++line_number;
    const char* newline = memchr(at, '\n', (size_t)(end - at));
    const char* stop = newline ? newline : end;
    size_t length = (size_t)(stop - at);
    if (length > 0 && at[0] != '#') {
      if (count == capacity) {
        size_t grown = capacity ? capacity * 2 : 64;
        tkrt_timing_t* more = realloc(records, grown * sizeof(*records));
        if (!more) {
          free(records);
          return TKRT_STATUS_MAKE(TKRT_STATUS_RESOURCE_EXHAUSTED, "out of host memory");
        }
        records = more;
        capacity = grown;
      }
      char why[128];
      if (!tkrt_timing_parse_line(at, length, &records[count], why, sizeof(why))) {
        free(records);
        return TKRT_STATUS_MAKE(TKRT_STATUS_INVALID_ARGUMENT, "%s, line %zu: %s", where,
                                line_number, why);
      }
      ++count;
    }
    at = newline ? newline + 1 : end;
  }
  *out = records;
  *out_count = count;
  return NULL;
}

/* ---------------------------------------------------------------- export, import, merge */

static int tkrt_timing_compare(const void* a, const void* b) {
  const tkrt_timing_t* x = a;
  const tkrt_timing_t* y = b;
  int c = memcmp(x->config, y->config, 32);
  if (c) return c;
  if ((c = strcmp(x->arch, y->arch))) return c;
  if (x->driver_version != y->driver_version) return x->driver_version < y->driver_version ? -1 : 1;
  if (x->sm_count != y->sm_count) return x->sm_count < y->sm_count ? -1 : 1;
  return 0;
}

/* The database text of `count` sorted records. */
static tkrt_status_t tkrt_tunedb_text(const tkrt_timing_t* records, size_t count, char** out_text,
                                      size_t* out_size) {
  size_t capacity = sizeof(TKRT_TUNEDB_MAGIC) + 1 + count * 256;
  char* text = malloc(capacity);
  if (!text) return TKRT_STATUS_MAKE(TKRT_STATUS_RESOURCE_EXHAUSTED, "out of host memory");
  size_t used = (size_t)snprintf(text, capacity, "%s\n", TKRT_TUNEDB_MAGIC);
  for (size_t i = 0; i < count; ++i) {
    size_t length = tkrt_timing_format_line(&records[i], text + used, capacity - used);
    if (!length) {
      free(text);
      return TKRT_STATUS_MAKE(TKRT_STATUS_INTERNAL, "tuning database text overflowed");
    }
    used += length;
  }
  *out_text = text;
  *out_size = used;
  return NULL;
}

void tkrt_tunedb_free(char* text) { free(text); }

static int tkrt_float_order(const void* a, const void* b) {
  float x = *(const float*)a, y = *(const float*)b;
  return x < y ? -1 : x > y;
}

/* The one rule for several records of one config and device (merge, import, show): sorted, one
 * record per key whose time is the median of theirs (the mean of the middle two for an even
 * count) and whose iteration count is the smallest. Rewrites records[0..*count). */
static tkrt_status_t tkrt_tunedb_collapse(tkrt_timing_t* records, size_t* count) {
  size_t total = *count, merged = 0;
  if (!total) return NULL;
  float* column = malloc(total * sizeof(float));
  if (!column) return TKRT_STATUS_MAKE(TKRT_STATUS_RESOURCE_EXHAUSTED, "out of host memory");
  qsort(records, total, sizeof(*records), tkrt_timing_compare);
  for (size_t start = 0; start < total;) {
    size_t end = start + 1;
    while (end < total && tkrt_timing_compare(&records[start], &records[end]) == 0) ++end;
    size_t n = end - start;
    uint32_t iterations = records[start].iterations;
    for (size_t i = 0; i < n; ++i) {
      column[i] = records[start + i].ms;
      if (records[start + i].iterations < iterations) iterations = records[start + i].iterations;
    }
    qsort(column, n, sizeof(float), tkrt_float_order);
    tkrt_timing_t out = records[start];
    out.ms = n % 2 ? column[n / 2] : (float)(((double)column[n / 2 - 1] + column[n / 2]) / 2);
    out.iterations = iterations;
    records[merged++] = out;
    start = end;
  }
  free(column);
  *count = merged;
  return NULL;
}

tkrt_status_t tkrt_tunedb_export(const char* store_dir, bool trust_shared, char** out_text,
                                 size_t* out_size, size_t* out_skipped) {
  if (!store_dir || !out_text || !out_size) {
    return TKRT_STATUS_MAKE(TKRT_STATUS_INVALID_ARGUMENT, "tkrt_tunedb_export: NULL argument");
  }
  *out_text = NULL;
  *out_size = 0;
  if (out_skipped) *out_skipped = 0;
  int dir_fd = -1;
  TKRT_RETURN_IF_ERROR(tkrt_fs_open_trusted_dir(store_dir, trust_shared, &dir_fd));
  int list_fd = dup(dir_fd);
  DIR* folder = list_fd >= 0 ? fdopendir(list_fd) : NULL;
  if (!folder) {
    if (list_fd >= 0) close(list_fd);
    close(dir_fd);
    return TKRT_STATUS_MAKE(TKRT_STATUS_INTERNAL, "cannot list %s", store_dir);
  }
  tkrt_timing_t* records = NULL;
  size_t count = 0, capacity = 0, skipped = 0;
  tkrt_status_t status = NULL;
  struct dirent* entry;
  while (!status && (entry = readdir(folder)) != NULL) {
    const char* name = entry->d_name;
    if (strlen(name) != 64 + 7 || strcmp(name + 64, ".timing") != 0 || name[0] == '.') continue;
    char path[4400];
    snprintf(path, sizeof(path), "%s/%s", store_dir, name);
    void* data = NULL;
    size_t size = 0;
    tkrt_status_t read = tkrt_fs_read_file_at(
        dir_fd, name, path, 4096,
        TKRT_FS_READ_NOFOLLOW | TKRT_FS_READ_TRUSTED | (trust_shared ? TKRT_FS_READ_SHARED_OK : 0u),
        &data, &size);
    if (read) {
      tkrt_status_free(read);
      ++skipped;
      continue;
    }
    const char* text = data;
    size_t header = sizeof(TKRT_TIMING_MAGIC);
    tkrt_timing_t record;
    char why[128], key[65];
    bool ok = size >= header + 1 && memcmp(text, TKRT_TIMING_MAGIC "\n", header) == 0 &&
              text[size - 1] == '\n' &&
              tkrt_timing_parse_line(text + header, size - header - 1, &record, why, sizeof(why));
    free(data);
    if (ok) {
      tkrt_timing_key(&record, key);
      ok = memcmp(key, name, 64) == 0; /* a record copied under another name is not its own */
    }
    if (!ok) {
      ++skipped;
      continue;
    }
    if (count == capacity) {
      size_t grown = capacity ? capacity * 2 : 64;
      tkrt_timing_t* more = realloc(records, grown * sizeof(*records));
      if (!more) {
        status = TKRT_STATUS_MAKE(TKRT_STATUS_RESOURCE_EXHAUSTED, "out of host memory");
        break;
      }
      records = more;
      capacity = grown;
    }
    records[count++] = record;
  }
  closedir(folder);
  close(dir_fd);
  if (!status) {
    if (count) qsort(records, count, sizeof(*records), tkrt_timing_compare);
    status = tkrt_tunedb_text(records, count, out_text, out_size);
  }
  free(records);
  if (!status && out_skipped) *out_skipped = skipped;
  return status;
}

tkrt_status_t tkrt_tunedb_import(const char* store_dir, bool trust_shared, const char* text,
                                 size_t size, const char* where, size_t* out_count) {
  if (!store_dir || !text) {
    return TKRT_STATUS_MAKE(TKRT_STATUS_INVALID_ARGUMENT, "tkrt_tunedb_import: NULL argument");
  }
  if (out_count) *out_count = 0;
  tkrt_timing_t* records = NULL;
  size_t count = 0;
  TKRT_RETURN_IF_ERROR(tkrt_tunedb_parse(text, size, where ? where : "the database", &records,
                                         &count));
  /* Records of one config and device, the file's duplicates: one, by merge's rule (the median). */
  tkrt_status_t status = tkrt_tunedb_collapse(records, &count);
  int dir_fd = -1;
  if (!status && count) {
    status = tkrt_fs_mkdirs(store_dir);
    if (!status) status = tkrt_fs_open_trusted_dir(store_dir, trust_shared, &dir_fd);
    /* Temporary files that an import or a tuner killed mid-write left behind, as the decision
     * store removes them. */
    if (!status) tkrt_decision_remove_stale_temps(dir_fd);
  }
  /* Written through the folder that was checked, not its path again; each record is a file of
   * its own, replaced atomically, so a failure leaves the records before it whole and no other. */
  size_t written = 0;
  for (size_t i = 0; !status && i < count; ++i) {
    if (!(status = tkrt_timing_write_at(dir_fd, store_dir, &records[i]))) ++written;
  }
  if (status && count) {
    status = tkrt_status_annotate(status,
                                  "importing %s into %s: %zu of %zu records written (each a whole "
                                  "file), the others not",
                                  where ? where : "the database", store_dir, written, count);
  }
  if (dir_fd >= 0) close(dir_fd);
  free(records);
  if (out_count) *out_count = written;
  return status;
}

tkrt_status_t tkrt_tunedb_merge(const char* const* texts, const size_t* sizes,
                                const char* const* names, size_t count, char** out_text,
                                size_t* out_size) {
  if ((count && (!texts || !sizes)) || !out_text || !out_size) {
    return TKRT_STATUS_MAKE(TKRT_STATUS_INVALID_ARGUMENT, "tkrt_tunedb_merge: NULL argument");
  }
  *out_text = NULL;
  *out_size = 0;
  tkrt_timing_t* all = NULL;
  size_t total = 0;
  tkrt_status_t status = NULL;
  for (size_t i = 0; i < count && !status; ++i) {
    tkrt_timing_t* records = NULL;
    size_t n = 0;
    char where[64];
    snprintf(where, sizeof(where), "input %zu", i + 1);
    status = tkrt_tunedb_parse(texts[i], sizes[i], names && names[i] ? names[i] : where, &records,
                               &n);
    if (status) break;
    tkrt_timing_t* more = n ? realloc(all, (total + n) * sizeof(*all)) : all;
    if (n && !more) {
      free(records);
      status = TKRT_STATUS_MAKE(TKRT_STATUS_RESOURCE_EXHAUSTED, "out of host memory");
      break;
    }
    all = more;
    if (n) memcpy(all + total, records, n * sizeof(*all));
    total += n;
    free(records);
  }
  size_t merged = total;
  if (!status) status = tkrt_tunedb_collapse(all, &merged);
  if (!status) status = tkrt_tunedb_text(all, merged, out_text, out_size);
  free(all);
  return status;
}
