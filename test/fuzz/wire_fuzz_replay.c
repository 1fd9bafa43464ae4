/* SPDX-License-Identifier: Apache-2.0 */
/* Runs inputs through a fuzz target without libFuzzer, so that every build replays the seed
 * corpus and the regression inputs (test/fuzz/regressions/: every fuzzer finding, kept).
 * Usage: <target>_replay [--ext=SUFFIX] PATH... (files, or directories whose files are all read,
 * in their subdirectories too; --ext=.json keeps to files named so in the directories after it,
 * --ext= drops the filter). */
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

static int has_suffix(const char* name, const char* suffix) {
  size_t n = strlen(name), k = strlen(suffix);
  return n >= k && strcmp(name + n - k, suffix) == 0;
}

/* Replays the regular files of `folder` (those ending in `suffix`) and of its subfolders, in name
 * order; returns -1 when the folder cannot be read. */
static int replay_folder(const char* folder, const char* suffix, size_t* count, int* failures,
                         int depth) {
  struct stat st;
  DIR* dir = opendir(folder);
  if (!dir) return -1;
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
    snprintf(path, sizeof(path), "%s/%s", folder, names[k]);
    if (stat(path, &st) == 0 && S_ISREG(st.st_mode) && has_suffix(names[k], suffix)) {
      *failures += replay_file(path);
      ++*count;
    } else if (stat(path, &st) == 0 && S_ISDIR(st.st_mode) && depth < 8) {
      if (replay_folder(path, suffix, count, failures, depth + 1) != 0) ++*failures;
    }
    free(names[k]);
  }
  free(names);
  return 0;
}

int main(int argc, char** argv) {
  size_t count = 0;
  int failures = 0;
  const char* suffix = "";
  for (int i = 1; i < argc; ++i) {
    if (strncmp(argv[i], "--ext=", 6) == 0) {
      suffix = argv[i] + 6;
      continue;
    }
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
    if (replay_folder(argv[i], suffix, &count, &failures, 0) != 0) return 1;
  }
  printf("replayed %zu inputs, %d unreadable\n", count, failures);
  return failures ? 1 : 0;
}
