/* tkrt core: tuning decisions on disk. One text file per (call, arch, driver, tkrt version),
 * replaced atomically; corrupt or foreign entries are reported and rewritten, never trusted. */
#include "core/decision_store.h"

#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include "core/sha256.h"
#include "hal/fs.h"
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

tkrt_status_t tkrt_decision_lock(const char* dir, const char* key, int* out_fd) {
  *out_fd = -1;
  TKRT_RETURN_IF_ERROR(tkrt_fs_mkdirs(dir));
  char path[4200];
  snprintf(path, sizeof(path), "%s/%s.lock", dir, key);
  int fd = open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0644);
  if (fd < 0) {
    int error = errno;
    return TKRT_STATUS_MAKE(tkrt_fs_errno_code(error), "cannot open %s: %s", path,
                            strerror(error));
  }
  while (flock(fd, LOCK_EX) != 0) {
    if (errno == EINTR) continue;
    int error = errno;
    close(fd);
    return TKRT_STATUS_MAKE(tkrt_fs_errno_code(error), "cannot lock %s: %s", path,
                            strerror(error));
  }
  *out_fd = fd;
  return NULL;
}

void tkrt_decision_unlock(int fd) {
  if (fd < 0) return;
  flock(fd, LOCK_UN);
  close(fd);
}

tkrt_status_t tkrt_decision_read(const char* dir, const char* key, const uint8_t digest[32],
                                 const char* arch, int driver_version, tkrt_decision_t* decision,
                                 int* out_found, char* out_problem, size_t problem_capacity) {
  *out_found = 0;
  out_problem[0] = '\0';
  char path[4200];
  snprintf(path, sizeof(path), "%s/%s.decision", dir, key);
  FILE* file = fopen(path, "r");
  if (!file) return NULL; /* absent: nothing decided yet */
  char digest_hex[65], want_hex[65], line[256], file_arch[96] = "", version[32] = "";
  tkrt_hex_encode(digest, 32, want_hex);
  int driver = 0;
  size_t configs = 0, chosen = 0;
  unsigned iterations = 0;
  const char* problem = NULL;
  float* times = NULL;
  if (!fgets(line, sizeof(line), file) || strncmp(line, TKRT_DECISION_MAGIC "\n", 16) != 0) {
    problem = "missing header";
  } else if (fscanf(file, "tkrt %31s\ndigest %64s\narch %95s\ndriver %d\nconfigs %zu\nchosen %zu\n"
                    "iterations %u\ntimes",
                    version, digest_hex, file_arch, &driver, &configs, &chosen, &iterations) != 7) {
    problem = "malformed fields";
  } else if (strcmp(version, TKRT_VERSION_STRING) != 0 || strcmp(digest_hex, want_hex) != 0 ||
             strcmp(file_arch, arch) != 0 || driver != driver_version) {
    problem = "written for another call, arch, driver or tkrt version";
  } else if (configs != decision->config_count || chosen >= configs) {
    problem = "config count or choice out of range";
  } else if (!(times = malloc(configs * sizeof(float)))) {
    fclose(file);
    return TKRT_STATUS_MAKE(TKRT_STATUS_RESOURCE_EXHAUSTED, "out of host memory");
  } else {
    for (size_t i = 0; i < configs && !problem; ++i) {
      if (fscanf(file, " %f", &times[i]) != 1) problem = "truncated timings";
    }
    for (int ch; !problem && (ch = fgetc(file)) != EOF;) {
      if (!isspace(ch)) problem = "trailing garbage";
    }
  }
  fclose(file);
  if (problem) {
    free(times);
    snprintf(out_problem, problem_capacity, "%s: %s", path, problem);
    return NULL;
  }
  /* Written to the caller only once the whole entry parsed. */
  memcpy(decision->times_ms, times, configs * sizeof(float));
  free(times);
  decision->chosen = chosen;
  decision->iterations = iterations;
  *out_found = 1;
  return NULL;
}

tkrt_status_t tkrt_decision_write(const char* dir, const char* key, const uint8_t digest[32],
                                  const char* arch, int driver_version,
                                  const tkrt_decision_t* decision) {
  TKRT_RETURN_IF_ERROR(tkrt_fs_mkdirs(dir));
  char path[4200], temp[4300], digest_hex[65];
  snprintf(path, sizeof(path), "%s/%s.decision", dir, key);
  snprintf(temp, sizeof(temp), "%s/.%s.%ld.tmp", dir, key, (long)getpid());
  tkrt_hex_encode(digest, 32, digest_hex);
  int fd = open(temp, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  if (fd < 0) {
    int error = errno;
    return TKRT_STATUS_MAKE(tkrt_fs_errno_code(error), "cannot create %s: %s", temp,
                            strerror(error));
  }
  FILE* file = fdopen(fd, "w");
  if (!file) {
    close(fd);
    unlink(temp);
    return TKRT_STATUS_MAKE(TKRT_STATUS_RESOURCE_EXHAUSTED, "fdopen failed");
  }
  fprintf(file,
          TKRT_DECISION_MAGIC "\ntkrt %s\ndigest %s\narch %s\ndriver %d\nconfigs %zu\nchosen %zu\n"
          "iterations %u\ntimes",
          TKRT_VERSION_STRING, digest_hex, arch, driver_version, decision->config_count,
          decision->chosen, decision->iterations);
  for (size_t i = 0; i < decision->config_count; ++i) fprintf(file, " %.9g", decision->times_ms[i]);
  fprintf(file, "\n");
  int failed = fflush(file) != 0 || fsync(fd) != 0;
  failed |= fclose(file) != 0;
  if (failed || rename(temp, path) != 0) {
    int error = errno;
    unlink(temp);
    return TKRT_STATUS_MAKE(tkrt_fs_errno_code(error), "cannot write %s: %s", path,
                            strerror(error));
  }
  return NULL;
}
