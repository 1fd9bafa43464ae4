/* SPDX-License-Identifier: Apache-2.0 */
/* Runs inputs through the wire fuzz target without libFuzzer, so that every build replays the
 * seed corpus and the regression inputs (test/fuzz/regressions/: every fuzzer finding, kept).
 * Usage: wire_fuzz_replay PATH... (files, or directories whose files are all read). */
#include <dirent.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size);

static int replay_file(const char* path) {
  FILE* file = fopen(path, "rb");
  if (!file) {
    fprintf(stderr, "cannot open %s\n", path);
    return 1;
  }
  size_t capacity = 4096, size = 0;
  uint8_t* data = malloc(capacity);
  size_t n;
  while (data && (n = fread(data + size, 1, capacity - size, file)) > 0) {
    size += n;
    if (size == capacity) {
      uint8_t* bigger = realloc(data, capacity *= 2);
      if (!bigger) {
        free(data);
        data = NULL;
      }
      data = bigger;
    }
  }
  fclose(file);
  if (!data) return 1;
  /* An exact-size copy, so that ASan sees reads past the end. */
  uint8_t* exact = malloc(size ? size : 1);
  if (!exact) {
    free(data);
    return 1;
  }
  memcpy(exact, data, size);
  free(data);
  LLVMFuzzerTestOneInput(exact, size);
  free(exact);
  return 0;
}

static int compare_names(const void* a, const void* b) {
  return strcmp(*(char* const*)a, *(char* const*)b);
}

int main(int argc, char** argv) {
  size_t count = 0;
  int failures = 0;
  for (int i = 1; i < argc; ++i) {
    struct stat st;
    if (stat(argv[i], &st) != 0) {
      fprintf(stderr, "missing: %s\n", argv[i]);
      return 1;
    }
    if (!S_ISDIR(st.st_mode)) {
      failures += replay_file(argv[i]);
      ++count;
      continue;
    }
    DIR* dir = opendir(argv[i]);
    if (!dir) return 1;
    char** names = NULL;
    size_t n = 0;
    struct dirent* entry;
    while ((entry = readdir(dir)) != NULL) {
      if (entry->d_name[0] == '.') continue;
      char** grown = realloc(names, (n + 1) * sizeof(*names));
      if (!grown) return 1;
      names = grown;
      names[n++] = strdup(entry->d_name);
    }
    closedir(dir);
    if (n) qsort(names, n, sizeof(*names), compare_names);
    for (size_t k = 0; k < n; ++k) {
      char path[4096];
      snprintf(path, sizeof(path), "%s/%s", argv[i], names[k]);
      if (stat(path, &st) == 0 && S_ISREG(st.st_mode)) {
        failures += replay_file(path);
        ++count;
      }
      free(names[k]);
    }
    free(names);
  }
  printf("replayed %zu inputs, %d unreadable\n", count, failures);
  return failures ? 1 : 0;
}
