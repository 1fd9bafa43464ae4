/* SPDX-License-Identifier: Apache-2.0 */
/* tkrt command-line tool: `tkrt tune-db`, the tuning database (per-config times in the decision
 * store folder): show, export, import and merge database files (docs/autotuning.md). */
#include <stdlib.h>
#include <string.h>

#include "tools/tkrt_cli.h"

static const char kTuneDbUsage[] =
    "usage: tkrt tune-db show [DIR | FILE]\n"
    "       tkrt tune-db export [DIR] [-o FILE]\n"
    "       tkrt tune-db import FILE [DIR]\n"
    "       tkrt tune-db merge -o FILE INPUT...\n"
    "\n"
    "The tuning database: the time of each config of each autotuned call, per device (arch,\n"
    "driver, SM count), kept by the tuner in its store folder (TKRT_TUNE_DIR, by default\n"
    "~/.cache/tkrt/tune) beside the decisions. A call whose configs all have a time is decided\n"
    "without benchmarking (also under TKRT_TUNE_REQUIRE_COMPLETE=1); a call that gains a config\n"
    "times only that one. A database file is the line 'tkrt-tune-db 1', then one record a line:\n"
    "'timing <config digest> <arch> <driver> <sm count> <ms> <iterations>'.\n"
    "A store folder (and its entries) must be this user's or root's and writable by no one\n"
    "else, unless TKRT_TRUST_SHARED_STORES=1, as for the tuner.\n"
    "\n"
    "  show [DIR|FILE]      print the records of a store folder (default: the tuner's) or of a\n"
    "                       database file, and how many store entries were refused\n"
    "  export [DIR]         write the store folder's records as a database file (stdout, or\n"
    "                       -o FILE); entries that are malformed, links or not trusted are left out\n"
    "  import FILE [DIR]    check the whole file, then write its records into the store folder\n"
    "                       (replacing the times stored for the same config and device)\n"
    "  merge -o FILE IN...  one database from several (e.g. one per rank or host): per config and\n"
    "                       device, the median time across the inputs that have it (the mean of\n"
    "                       the middle two for an even count) and the smallest iteration count\n"
    "\n"
    "  -o, --output FILE    where export and merge write (a new file replaced atomically)\n"
    "  -h, --help           this text\n";
const char* const tkrt_cli_tunedb_usage = kTuneDbUsage;

#define COMMAND "tune-db"

/* The store settings as `tkrt tune` uses them: whether stores shared with other users are trusted
 * (TKRT_TRUST_SHARED_STORES) and, when `out` is not NULL, the store folder (TKRT_TUNE_DIR or the
 * default). */
static tkrt_status_t store_settings(char* out, size_t capacity, bool* out_trust_shared) {
  tkrt_autotuner_options_t options;
  tkrt_autotuner_options_init(&options);
  TKRT_RETURN_IF_ERROR(tkrt_options_from_environment(NULL, &options));
  *out_trust_shared = options.trust_shared_store;
  if (!out) return NULL;
  if (!options.store_dir || !*options.store_dir || strcmp(options.store_dir, "off") == 0) {
    return TKRT_STATUS_MAKE(TKRT_STATUS_FAILED_PRECONDITION,
                            "the decision store is off (TKRT_TUNE_DIR); name a folder");
  }
  snprintf(out, capacity, "%s", options.store_dir);
  return NULL;
}

static tkrt_status_t read_text(const char* path, char** out, size_t* out_size) {
  void* data = NULL;
  TKRT_RETURN_IF_ERROR(tkrt_cli_read_file(path, (size_t)64 << 20, &data, out_size));
  *out = data;
  return NULL;
}

/* Writes `text` to `path` (atomically) or to stdout when path is NULL. */
static tkrt_status_t write_text(const char* path, const char* text, size_t size) {
  if (!path) {
    if (fwrite(text, 1, size, stdout) != size || fflush(stdout) != 0) {
      return TKRT_STATUS_MAKE(TKRT_STATUS_UNAVAILABLE, "cannot write to stdout");
    }
    return NULL;
  }
  char dir[4096];
  const char* slash = strrchr(path, '/');
  const char* name = slash ? slash + 1 : path;
  if (!*name) {
    return TKRT_STATUS_MAKE(TKRT_STATUS_INVALID_ARGUMENT, "output '%s' names a folder", path);
  }
  if (slash) {
    snprintf(dir, sizeof(dir), "%.*s", (int)(slash - path) ? (int)(slash - path) : 1, path);
  } else {
    snprintf(dir, sizeof(dir), ".");
  }
  return tkrt_cli_write_file(dir, name, text, size);
}

static int show(const char* target) {
  char store[4096];
  tkrt_status_t status = NULL;
  char* text = NULL;
  size_t size = 0, skipped = 0;
  bool trust_shared = false;
  if ((status = store_settings(target ? NULL : store, sizeof(store), &trust_shared))) {
    return tkrt_cli_fail(COMMAND, status);
  }
  if (!target) target = store;
  if (tkrt_cli_is_directory(target)) {
    status = tkrt_tunedb_export(target, trust_shared, &text, &size, &skipped);
  } else {
    char* file = NULL;
    size_t file_size = 0;
    status = read_text(target, &file, &file_size);
    if (!status) {
      /* Merging one input checks and normalises it (sorted, one record per key). */
      const char* texts[1] = {file};
      const char* names[1] = {target};
      status = tkrt_tunedb_merge(texts, &file_size, names, 1, &text, &size);
    }
    free(file);
  }
  if (status) return tkrt_cli_fail(COMMAND, status);
  size_t records = 0;
  for (size_t i = 0; i < size; ++i) records += text[i] == '\n';
  records = records ? records - 1 : 0;
  printf("%s: %zu record%s", target, records, records == 1 ? "" : "s");
  if (skipped) printf(", %zu entr%s refused", skipped, skipped == 1 ? "y" : "ies");
  printf("\n%-16s %-12s %8s %5s %12s %10s\n", "config", "arch", "driver", "sms", "ms", "iterations");
  /* Records from tkrt_tunedb_* are well formed: split on blanks. */
  char* save = NULL;
  char* line = strtok_r(text, "\n", &save);
  for (line = strtok_r(NULL, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
    char config[65], arch[64], driver[16], sms[16], ms[48], iterations[16];
    if (sscanf(line, "timing %64s %63s %15s %15s %47s %15s", config, arch, driver, sms, ms,
               iterations) != 6) {
      continue;
    }
    printf("%.16s %-12s %8s %5s %12s %10s\n", config, tkrt_cli_escaped(arch), driver, sms, ms,
           iterations);
  }
  tkrt_tunedb_free(text);
  return TKRT_CLI_OK;
}

int tkrt_cli_tunedb(int argc, char** argv) {
  const char* output = NULL;
  const char* operands[64];
  size_t count = 0;
  bool options_done = false;
  for (int i = 1; i < argc; ++i) {
    const char* arg = argv[i];
    if (!options_done && (strcmp(arg, "-h") == 0 || strcmp(arg, "--help") == 0)) {
      fputs(kTuneDbUsage, stdout);
      return TKRT_CLI_OK;
    }
    if (!options_done && (strcmp(arg, "-o") == 0 || strcmp(arg, "--output") == 0)) {
      if (i + 1 >= argc) return tkrt_cli_usage_error(COMMAND, "%s needs a file", arg);
      output = argv[++i];
      continue;
    }
    if (!options_done && strncmp(arg, "--output=", 9) == 0) {
      output = arg + 9;
      continue;
    }
    if (!options_done && strcmp(arg, "--") == 0) {
      options_done = true;
      continue;
    }
    if (!options_done && arg[0] == '-' && arg[1]) {
      return tkrt_cli_usage_error(COMMAND, "unknown option '%s'", tkrt_cli_escaped(arg));
    }
    if (count == sizeof(operands) / sizeof(operands[0])) {
      return tkrt_cli_usage_error(COMMAND, "too many operands (at most 64)");
    }
    operands[count++] = arg;
  }
  if (count == 0) {
    return tkrt_cli_usage_error(COMMAND, "needs a subcommand: show, export, import or merge");
  }
  if (output && !*output) return tkrt_cli_usage_error(COMMAND, "-o needs a file");
  const char* sub = operands[0];
  tkrt_status_t status = NULL;
  if (strcmp(sub, "show") == 0) {
    if (count > 2 || output) return tkrt_cli_usage_error(COMMAND, "show takes [DIR | FILE] only");
    return show(count == 2 ? operands[1] : NULL);
  }
  if (strcmp(sub, "export") == 0) {
    if (count > 2) return tkrt_cli_usage_error(COMMAND, "export takes [DIR] [-o FILE]");
    char store[4096];
    const char* dir = count == 2 ? operands[1] : NULL;
    bool trust_shared = false;
    if ((status = store_settings(dir ? NULL : store, sizeof(store), &trust_shared))) {
      return tkrt_cli_fail(COMMAND, status);
    }
    if (!dir) dir = store;
    char* text = NULL;
    size_t size = 0, skipped = 0;
    if (!(status = tkrt_tunedb_export(dir, trust_shared, &text, &size, &skipped))) {
      status = write_text(output, text, size);
    }
    tkrt_tunedb_free(text);
    if (status) return tkrt_cli_fail(COMMAND, status);
    if (skipped) {
      fprintf(stderr, "tkrt tune-db: %zu entr%s of %s refused (malformed, links or not trusted)\n",
              skipped, skipped == 1 ? "y" : "ies", dir);
    }
    return TKRT_CLI_OK;
  }
  if (strcmp(sub, "import") == 0) {
    if (count < 2 || count > 3 || output) {
      return tkrt_cli_usage_error(COMMAND, "import takes FILE [DIR]");
    }
    char store[4096];
    const char* dir = count == 3 ? operands[2] : NULL;
    bool trust_shared = false;
    if ((status = store_settings(dir ? NULL : store, sizeof(store), &trust_shared))) {
      return tkrt_cli_fail(COMMAND, status);
    }
    if (!dir) dir = store;
    char* text = NULL;
    size_t size = 0, written = 0;
    if (!(status = read_text(operands[1], &text, &size))) {
      status = tkrt_tunedb_import(dir, trust_shared, text, size, operands[1], &written);
    }
    free(text);
    if (status) return tkrt_cli_fail(COMMAND, status);
    printf("imported %zu record%s into %s\n", written, written == 1 ? "" : "s", dir);
    return TKRT_CLI_OK;
  }
  if (strcmp(sub, "merge") == 0) {
    if (count < 2 || !output) return tkrt_cli_usage_error(COMMAND, "merge takes -o FILE INPUT...");
    size_t inputs = count - 1;
    char* texts[63] = {NULL};
    size_t sizes[63] = {0};
    for (size_t i = 0; i < inputs && !status; ++i) {
      status = read_text(operands[1 + i], &texts[i], &sizes[i]);
    }
    char* merged = NULL;
    size_t size = 0;
    if (!status) {
      status = tkrt_tunedb_merge((const char* const*)texts, sizes, operands + 1, inputs, &merged,
                                 &size);
    }
    if (!status) status = write_text(output, merged, size);
    tkrt_tunedb_free(merged);
    for (size_t i = 0; i < inputs; ++i) free(texts[i]);
    if (status) return tkrt_cli_fail(COMMAND, status);
    return TKRT_CLI_OK;
  }
  return tkrt_cli_usage_error(COMMAND, "unknown subcommand '%s' (show, export, import, merge)",
                              tkrt_cli_escaped(sub));
}
