/* SPDX-License-Identifier: Apache-2.0 */
/* The tuner's decision exchange over the shared-folder adapter, with real processes (copies of
 * this test) tuning the same call whose three configs take the same time: with the exchange on,
 * every rank runs the same config (leader and merge policies); a rank killed after claiming
 * leadership (or after joining a merge) lets the others finish within the timeout on the same
 * fallback; forged exchange entries (malformed, a link, another user's) are refused; a failing
 * store falls back; require_complete refuses to tune and names the missing key. */
#include <dirent.h>
#include <fcntl.h>
#include <signal.h>
#include <stdint.h>
#include <stdlib.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "test/core/core_test_util.h"

#define N 4096
static const char* g_self;
static const char* g_image_path;
static char g_backend_option[sizeof(CORE_BACKEND_OPTION) + TKRT_BACKEND_NAME_MAX];

/* ---------------------------------------------------------------- the child (one rank) */

typedef struct child_exchange {
  tkrt_exchange_t inner;
  const char* die_on; /* a key suffix: the process kills itself right after add() on it */
  int fail;           /* every callback fails (a broken store) */
} child_exchange_t;

static int ends_with(const char* text, const char* suffix) {
  size_t a = strlen(text), b = strlen(suffix);
  return a >= b && strcmp(text + a - b, suffix) == 0;
}

static tkrt_exchange_result_t child_set(void* user, const char* key, const void* value,
                                        size_t size) {
  child_exchange_t* x = user;
  if (x->fail) return TKRT_EXCHANGE_ERROR;
  return x->inner.set(x->inner.user, key, value, size);
}

static tkrt_exchange_result_t child_get(void* user, const char* key, uint32_t timeout_ms,
                                        void* value, size_t capacity, size_t* out_size) {
  child_exchange_t* x = user;
  if (x->fail) return TKRT_EXCHANGE_ERROR;
  return x->inner.get(x->inner.user, key, timeout_ms, value, capacity, out_size);
}

static tkrt_exchange_result_t child_add(void* user, const char* key, int64_t delta,
                                        int64_t* out_value) {
  child_exchange_t* x = user;
  if (x->fail) return TKRT_EXCHANGE_ERROR;
  tkrt_exchange_result_t result = x->inner.add(x->inner.user, key, delta, out_value);
  /* Killed mid-exchange: the claim (or the slot) is taken, nothing is published. */
  if (result == TKRT_EXCHANGE_OK && x->die_on && ends_with(key, x->die_on) &&
      (strcmp(x->die_on, ".join") == 0 || *out_value == 1)) {
    raise(SIGKILL);
  }
  return result;
}

/* Child: tunes the in-place call (three equally fast configs) through the folder exchange `dir`
 * ("off": none). Exit code 10 + 3 * source + chosen; 1 when the result is wrong, a launch failed
 * or the report and the stats disagree. */
static int child_main(const char* dir, const char* policy, unsigned ranks, unsigned timeout_ms,
                      const char* mode) {
  tkrt_device_t* device = core_open_device();
  if (!device) return 1;
  /* "slow-first": config 0 is far slower, so that tuning never picks it (only a fallback does). */
  core_inplace_spec_t spec = {.n = N, .micros = {300, 300, 300}};
  if (strcmp(mode, "slow-first") == 0) spec.micros[0] = 20000;
  tkrt_call_t* call = core_inplace_call(&spec);
  child_exchange_t wrapper = {.die_on = NULL};
  tkrt_exchange_t exchange;
  tkrt_exchange_init(&exchange);
  tkrt_status_t status = NULL;
  bool with_exchange = strcmp(dir, "off") != 0;
  if (with_exchange) {
    status = tkrt_exchange_folder_create(dir, false, &wrapper.inner);
    wrapper.die_on = strcmp(mode, "die-leader") == 0 ? ".claim"
                     : strcmp(mode, "die-merge") == 0 ? ".join"
                                                       : NULL;
    wrapper.fail = strcmp(mode, "failing") == 0;
    exchange.user = &wrapper;
    exchange.set = child_set;
    exchange.get = child_get;
    exchange.add = child_add;
  }
  tkrt_autotuner_options_t options;
  tkrt_autotuner_options_init(&options);
  options.store_dir = "off";
  options.target_ms = 1.0;
  options.max_iterations = 2;
  options.exchange = with_exchange ? &exchange : NULL;
  options.exchange_policy =
      strcmp(policy, "merge") == 0 ? TKRT_EXCHANGE_POLICY_MERGE : TKRT_EXCHANGE_POLICY_LEADER;
  options.exchange_ranks = ranks;
  options.exchange_timeout_ms = timeout_ms;
  tkrt_autotuner_t* tuner = NULL;
  if (!status) status = tkrt_autotuner_create(&options, &tuner);
  if (!status && !call) status = TKRT_STATUS_MAKE(TKRT_STATUS_INTERNAL, "test setup failed");
  float x[N], y[N], out[N];
  for (int i = 0; i < N; ++i) {
    x[i] = (float)i;
    y[i] = 0.5f;
  }
  tkrt_deviceptr_t dx = core_upload(device, x, sizeof(x)), dy = core_upload(device, y, sizeof(y));
  tkrt_deviceptr_t counter = core_upload(device, NULL, 16);
  tkrt_buffer_t buffers[] = {{dx, N * 4}, {dy, N * 4}, {counter, 16}, {dx, N * 4}};
  if (!status) status = core_launch(call, device, NULL, buffers, 3, 1, tuner);
  if (!status) status = tkrt_memcpy_dtoh_async(device, out, dx, sizeof(out), NULL);
  if (!status) status = tkrt_stream_synchronize(device, NULL);
  int code = 1;
  if (status) {
    char* text = tkrt_status_to_string(status);
    fprintf(stderr, "child: %s\n", text);
    free(text);
    tkrt_status_free(status);
  } else {
    size_t wrong = 0;
    for (int i = 0; i < N; ++i) wrong += out[i] != x[i] + y[i];
    tkrt_tune_report_t report;
    tkrt_tune_report_init(&report);
    tkrt_autotuner_stats_t stats;
    tkrt_autotuner_stats_init(&stats);
    tkrt_status_free(tkrt_autotuner_get_report(tuner, call, tkrt_device_info(device)->arch, &report));
    tkrt_status_free(tkrt_autotuner_get_stats(tuner, &stats));
    fprintf(stderr, "child %d: source %s, chosen %zu, role '%s', ranks %u%s%s\n", (int)getpid(),
            tkrt_tune_source_name(report.source), report.chosen, report.exchange_role,
            report.exchange_ranks, report.fallback_reason[0] ? ", " : "", report.fallback_reason);
    /* The report and the stats tell the same story. */
    int consistent = 1;
    switch (report.source) {
      case TKRT_TUNE_SOURCE_TUNED:
        consistent = !with_exchange || (stats.exchange_leader == 1 &&
                                        strcmp(report.exchange_role, "leader") == 0);
        break;
      case TKRT_TUNE_SOURCE_EXCHANGE:
        consistent = strcmp(report.exchange_role, "merge") == 0
                         ? stats.exchange_merged == 1 && report.exchange_ranks == ranks
                         : stats.exchange_follower == 1;
        break;
      case TKRT_TUNE_SOURCE_EXCHANGE_FALLBACK:
        consistent = stats.exchange_fallbacks == 1 && report.fallback_reason[0] &&
                     strlen(report.exchange_key) == 64;
        break;
      default: consistent = 0;
    }
    if (strcmp(mode, "refused") == 0) consistent = consistent && stats.exchange_refused == 1;
    if (strncmp(mode, "failing", 7) == 0) consistent = consistent && stats.exchange_errors >= 1;
    if (strcmp(mode, "more-ranks") == 0) {
      consistent = consistent && strstr(report.fallback_reason,
                                        "more ranks than exchange_ranks joined") != NULL;
    }
    code = wrong || !consistent ? 1 : 10 + 3 * (int)report.source + (int)report.chosen;
  }
  tkrt_status_free(tkrt_memory_free(device, dx));
  tkrt_status_free(tkrt_memory_free(device, dy));
  tkrt_status_free(tkrt_memory_free(device, counter));
  tkrt_autotuner_destroy(tuner);
  if (with_exchange) tkrt_exchange_folder_destroy(&wrapper.inner);
  tkrt_call_release(call);
  tkrt_device_release(device);
  return code;
}

/* ---------------------------------------------------------------- the parent */

static pid_t spawn_child(const char* dir, const char* policy, unsigned ranks, unsigned timeout_ms,
                         const char* mode) {
  char ranks_text[16], timeout_text[16];
  snprintf(ranks_text, sizeof(ranks_text), "%u", ranks);
  snprintf(timeout_text, sizeof(timeout_text), "%u", timeout_ms);
  pid_t pid = fork();
  if (pid == 0) {
    execl(g_self, g_self, g_image_path, g_backend_option, "--child", dir, policy, ranks_text,
          timeout_text, mode, (char*)NULL);
    _exit(127);
  }
  return pid;
}

/* The exit code, or -SIGNAL when the child was killed. */
static int wait_child(pid_t pid) {
  int status = 0;
  if (waitpid(pid, &status, 0) != pid) return -1000;
  if (WIFSIGNALED(status)) return -WTERMSIG(status);
  return WIFEXITED(status) ? WEXITSTATUS(status) : -1000;
}

static int code_source(int code) { return (code - 10) / 3; }
static int code_chosen(int code) { return (code - 10) % 3; }

static double now_seconds(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return (double)t.tv_sec + (double)t.tv_nsec / 1e9;
}

enum { RANKS = 4 };

/* Runs RANKS children at once; fills codes. */
static void run_ranks(const char* dir, const char* policy, unsigned timeout_ms, const char* mode,
                      const char* first_mode, int* codes) {
  pid_t pids[RANKS];
  for (int i = 0; i < RANKS; ++i) {
    pids[i] = spawn_child(dir, policy, RANKS, timeout_ms, i == 0 && first_mode ? first_mode : mode);
  }
  for (int i = 0; i < RANKS; ++i) codes[i] = wait_child(pids[i]);
}

static void make_dir(char* dir) {
  snprintf(dir, 64, "/tmp/tkrt-exchange-XXXXXX");
  if (!mkdtemp(dir)) dir[0] = '\0';
}

static void remove_dir(const char* dir) {
  char command[512];
  snprintf(command, sizeof(command), "rm -rf %s", dir);
  EXPECT_EQ_U64(system(command), 0);
}

static void test_exchange_off_each_rank_tunes(void) {
  /* The baseline: without the exchange each process benchmarks on its own (on equally fast
   * configs the choices may differ; nothing is asserted about them). */
  int codes[RANKS];
  run_ranks("off", "leader", 0, "normal", NULL, codes);
  for (int i = 0; i < RANKS; ++i) {
    ASSERT_TRUE(codes[i] >= 10);
    EXPECT_EQ_U64(code_source(codes[i]), TKRT_TUNE_SOURCE_TUNED);
    fprintf(stderr, "  exchange off: rank %d chose config %d\n", i, code_chosen(codes[i]));
  }
}

static void test_exchange_leader_ranks_agree(void) {
  char dir[64];
  make_dir(dir);
  ASSERT_TRUE(dir[0]);
  int codes[RANKS];
  run_ranks(dir, "leader", 60000, "normal", NULL, codes);
  int tuned = 0, followed = 0;
  for (int i = 0; i < RANKS; ++i) {
    ASSERT_TRUE(codes[i] >= 10);
    tuned += code_source(codes[i]) == TKRT_TUNE_SOURCE_TUNED;
    followed += code_source(codes[i]) == TKRT_TUNE_SOURCE_EXCHANGE;
    EXPECT_EQ_U64(code_chosen(codes[i]), code_chosen(codes[0]));
  }
  EXPECT_EQ_U64(tuned, 1);
  EXPECT_EQ_U64(followed, RANKS - 1);
  remove_dir(dir);
}

static void test_exchange_merge_ranks_agree(void) {
  char dir[64];
  make_dir(dir);
  ASSERT_TRUE(dir[0]);
  int codes[RANKS];
  run_ranks(dir, "merge", 60000, "normal", NULL, codes);
  for (int i = 0; i < RANKS; ++i) {
    ASSERT_TRUE(codes[i] >= 10);
    EXPECT_EQ_U64(code_source(codes[i]), TKRT_TUNE_SOURCE_EXCHANGE);
    EXPECT_EQ_U64(code_chosen(codes[i]), code_chosen(codes[0]));
  }
  remove_dir(dir);
}

/* A merge folder reused by a second job (the join counter is past exchange_ranks): no rank merges
 * the first job's timings as its own; every rank falls back to config 0 and says why. */
static void test_exchange_merge_reused_folder_falls_back(void) {
  char dir[64];
  make_dir(dir);
  ASSERT_TRUE(dir[0]);
  int codes[RANKS];
  run_ranks(dir, "merge", 60000, "normal", NULL, codes);
  for (int i = 0; i < RANKS; ++i) {
    ASSERT_TRUE(codes[i] >= 10);
    EXPECT_EQ_U64(code_source(codes[i]), TKRT_TUNE_SOURCE_EXCHANGE);
  }
  run_ranks(dir, "merge", 60000, "more-ranks", NULL, codes);
  for (int i = 0; i < RANKS; ++i) {
    ASSERT_TRUE(codes[i] >= 10);
    EXPECT_EQ_U64(code_source(codes[i]), TKRT_TUNE_SOURCE_EXCHANGE_FALLBACK);
    EXPECT_EQ_U64(code_chosen(codes[i]), 0);
  }
  remove_dir(dir);
}

/* One rank kills itself right after add() made it the leader (or gave it a merge slot): the
 * others wait out the timeout and all run the first config, within the timeout plus the time to
 * start and tune. */
static void check_dead_rank(const char* policy, const char* die_mode, int dead_is_first) {
  char dir[64];
  make_dir(dir);
  ASSERT_TRUE(dir[0]);
  enum { TIMEOUT_MS = 1500 };
  double start = now_seconds();
  int codes[RANKS];
  if (dead_is_first) {
    /* The leader claims before the others start. */
    int dead = wait_child(spawn_child(dir, policy, RANKS, TIMEOUT_MS, die_mode));
    EXPECT_EQ_U64(dead, (uint64_t)(int64_t)-SIGKILL);
    start = now_seconds();
    pid_t pids[RANKS - 1];
    for (int i = 0; i < RANKS - 1; ++i) pids[i] = spawn_child(dir, policy, RANKS, TIMEOUT_MS, "normal");
    for (int i = 0; i < RANKS - 1; ++i) codes[i] = wait_child(pids[i]);
    codes[RANKS - 1] = dead;
  } else {
    run_ranks(dir, policy, TIMEOUT_MS, "normal", die_mode, codes);
  }
  double elapsed = now_seconds() - start;
  int killed = 0;
  for (int i = 0; i < RANKS; ++i) {
    if (codes[i] == -SIGKILL) {
      ++killed;
      continue;
    }
    ASSERT_TRUE(codes[i] >= 10);
    EXPECT_EQ_U64(code_source(codes[i]), TKRT_TUNE_SOURCE_EXCHANGE_FALLBACK);
    EXPECT_EQ_U64(code_chosen(codes[i]), 0);
  }
  EXPECT_EQ_U64(killed, 1);
  /* Bounded: the timeout, plus generous room for process start-up under sanitizers. */
  EXPECT_TRUE(elapsed < TIMEOUT_MS / 1000.0 + 60);
  remove_dir(dir);
}

static void test_exchange_leader_killed_after_claim(void) {
  check_dead_rank("leader", "die-leader", 1);
}

static void test_exchange_merge_rank_killed_after_join(void) {
  check_dead_rank("merge", "die-merge", 0);
}

/* Ranks whose own decision ends after the timeout (here every rank: a 1 ms timeout and a config
 * that takes 20 ms) take the fallback too and publish it (leader) or no timings (merge), so that
 * no rank launches a tuned config while the others fell back: all run config 0, which tuning
 * would never pick. */
static void check_late_decision(const char* policy) {
  char dir[64];
  make_dir(dir);
  ASSERT_TRUE(dir[0]);
  int codes[RANKS];
  run_ranks(dir, policy, 1, "slow-first", NULL, codes);
  for (int i = 0; i < RANKS; ++i) {
    ASSERT_TRUE(codes[i] >= 10);
    EXPECT_TRUE(code_source(codes[i]) == TKRT_TUNE_SOURCE_EXCHANGE_FALLBACK ||
                code_source(codes[i]) == TKRT_TUNE_SOURCE_EXCHANGE);
    EXPECT_EQ_U64(code_chosen(codes[i]), 0);
  }
  remove_dir(dir);
}

static void test_exchange_late_leader_publishes_the_fallback(void) { check_late_decision("leader"); }

static void test_exchange_late_merge_rank_publishes_no_timings(void) {
  check_late_decision("merge");
}

static void test_exchange_failing_store_falls_back(void) {
  char dir[64];
  make_dir(dir);
  ASSERT_TRUE(dir[0]);
  int codes[RANKS];
  run_ranks(dir, "leader", 1000, "failing", NULL, codes);
  remove_dir(dir);
  for (int i = 0; i < RANKS; ++i) {
    ASSERT_TRUE(codes[i] >= 10);
    EXPECT_EQ_U64(code_source(codes[i]), TKRT_TUNE_SOURCE_EXCHANGE_FALLBACK);
    EXPECT_EQ_U64(code_chosen(codes[i]), 0);
  }
}

/* Finds "v.tkrt.<key>.decision" in dir; copies the key. */
static int find_decision(const char* dir, char* key) {
  DIR* folder = opendir(dir);
  if (!folder) return 0;
  struct dirent* entry;
  int found = 0;
  while ((entry = readdir(folder)) != NULL) {
    const char* name = entry->d_name;
    if (strncmp(name, "v.tkrt.", 7) == 0 && strlen(name) == 7 + 64 + 9 &&
        strcmp(name + 71, ".decision") == 0) {
      memcpy(key, name + 7, 64);
      key[64] = '\0';
      found = 1;
    }
  }
  closedir(folder);
  return found;
}

static void write_text(const char* path, const char* text) {
  unlink(path);
  FILE* file = fopen(path, "w");
  if (!file) return;
  fputs(text, file);
  fclose(file);
  chmod(path, 0644);
}

static int run_follower(const char* dir, const char* mode) {
  return wait_child(spawn_child(dir, "leader", RANKS, 1000, mode));
}

static void test_exchange_forged_entries_are_refused(void) {
  char dir[64];
  make_dir(dir);
  ASSERT_TRUE(dir[0]);
  /* A leader publishes; every later process is a follower of that claim. */
  int first = run_follower(dir, "normal");
  ASSERT_TRUE(first >= 10);
  EXPECT_EQ_U64(code_source(first), TKRT_TUNE_SOURCE_TUNED);
  char key[65], path[256], other[256], text[512];
  ASSERT_TRUE(find_decision(dir, key));
  snprintf(path, sizeof(path), "%s/v.tkrt.%s.decision", dir, key);
  snprintf(other, sizeof(other), "%s/elsewhere", dir);

  /* A valid value choosing config 2 is followed. */
  snprintf(text, sizeof(text), "tkrt-exchange 1\nkey %s\nconfigs 3\nchosen 2\n", key);
  write_text(path, text);
  int code = run_follower(dir, "normal");
  EXPECT_EQ_U64(code_source(code), TKRT_TUNE_SOURCE_EXCHANGE);
  EXPECT_EQ_U64(code_chosen(code), 2);

  /* Malformed values: out of range, another key, another format, garbage. */
  const char* forged[] = {"tkrt-exchange 1\nkey %s\nconfigs 3\nchosen 3\n",
                          "tkrt-exchange 1\nkey 0%.63s\nconfigs 3\nchosen 2\n",
                          "tkrt-exchange 2\nkey %s\nconfigs 3\nchosen 2\n",
                          "tkrt-exchange 1\nkey %s\nconfigs 3\nchosen 2\nmore\n",
                          "tkrt-exchange 1\nkey %s\nconfigs 3\ntimes 1 1 1\n"};
  for (size_t i = 0; i < sizeof(forged) / sizeof(forged[0]); ++i) {
    snprintf(text, sizeof(text), forged[i], key);
    write_text(path, text);
    code = run_follower(dir, "refused");
    EXPECT_EQ_U64(code_source(code), TKRT_TUNE_SOURCE_EXCHANGE_FALLBACK);
    EXPECT_EQ_U64(code_chosen(code), 0);
  }

  /* A link to a valid value: not followed. */
  snprintf(text, sizeof(text), "tkrt-exchange 1\nkey %s\nconfigs 3\nchosen 2\n", key);
  write_text(other, text);
  unlink(path);
  ASSERT_TRUE(symlink(other, path) == 0);
  code = run_follower(dir, "failing-read");
  EXPECT_EQ_U64(code_source(code), TKRT_TUNE_SOURCE_EXCHANGE_FALLBACK);
  EXPECT_EQ_U64(code_chosen(code), 0);

  /* A valid value that another user owns (as root) or anyone can write: not trusted. */
  write_text(path, text);
  if (geteuid() == 0) {
    ASSERT_TRUE(chown(path, 65534, 65534) == 0);
  } else {
    ASSERT_TRUE(chmod(path, 0666) == 0);
  }
  code = run_follower(dir, "failing-read");
  EXPECT_EQ_U64(code_source(code), TKRT_TUNE_SOURCE_EXCHANGE_FALLBACK);
  EXPECT_EQ_U64(code_chosen(code), 0);
  remove_dir(dir);
}

/* require_complete: no decision is a FAILED_PRECONDITION naming the store key, and nothing runs;
 * a stored decision is used. */
static void test_require_complete(void) {
  tkrt_device_t* device = core_open_device();
  ASSERT_TRUE(device != NULL);
  char dir[64];
  make_dir(dir);
  core_inplace_spec_t spec = {.n = N, .micros = {0, 0, 0}};
  tkrt_call_t* call = core_inplace_call(&spec);
  float x[N] = {0}, y[N] = {0};
  tkrt_deviceptr_t dx = core_upload(device, x, sizeof(x)), dy = core_upload(device, y, sizeof(y));
  tkrt_deviceptr_t counter = core_upload(device, NULL, 16);
  tkrt_buffer_t buffers[] = {{dx, N * 4}, {dy, N * 4}, {counter, 16}, {dx, N * 4}};
  tkrt_autotuner_options_t options;
  tkrt_autotuner_options_init(&options);
  options.store_dir = dir;
  options.target_ms = 1.0;
  options.max_iterations = 2;
  options.require_complete = true;
  tkrt_autotuner_t* strict = NULL;
  EXPECT_OK(tkrt_autotuner_create(&options, &strict));
  EXPECT_STATUS(core_launch(call, device, NULL, buffers, 3, 1, strict),
                TKRT_STATUS_FAILED_PRECONDITION, ".decision is missing from");
  uint32_t counts[4] = {1, 1, 1, 1};
  core_download(device, counts, counter, 16);
  EXPECT_EQ_U64(counts[0] + counts[1] + counts[2], 0);
  tkrt_autotuner_destroy(strict);
  /* Tuned once into the store, then the strict tuner reads it. */
  tkrt_autotuner_t* tuner = core_tuner(dir, 1.0, 2);
  EXPECT_OK(core_launch(call, device, NULL, buffers, 3, 1, tuner));
  tkrt_autotuner_destroy(tuner);
  EXPECT_OK(tkrt_autotuner_create(&options, &strict));
  tkrt_launch_decision_t decision;
  EXPECT_OK(core_launch_decided(call, device, NULL, buffers, 3, 1, strict, &decision));
  EXPECT_EQ_U64(decision.source, TKRT_TUNE_SOURCE_STORE);
  EXPECT_OK(tkrt_stream_synchronize(device, NULL)); /* the launch ends before its call goes */
  tkrt_autotuner_destroy(strict);
  tkrt_status_free(tkrt_memory_free(device, dx));
  tkrt_status_free(tkrt_memory_free(device, dy));
  tkrt_status_free(tkrt_memory_free(device, counter));
  tkrt_call_release(call);
  tkrt_device_release(device);
  remove_dir(dir);
}

/* The in-place call with its first `count` configs (core_inplace_call's, the same digests). */
static tkrt_call_t* inplace_prefix_call(size_t count) {
  static const char* names[3] = {"inplace_add_128", "inplace_add_512", "inplace_add_2048"};
  static const uint32_t blocks[3] = {128, 512, 2048};
  tkrt_param_t params[3][5];
  tkrt_config_desc_t configs[3];
  for (size_t c = 0; c < count; ++c) {
    params[c][0] = core_array(16, 0);
    params[c][1] = core_array(16, 0);
    params[c][2] = core_i32(N);
    params[c][3] = core_u32(0);
    params[c][4] = core_array(0, 0);
    configs[c] = (tkrt_config_desc_t){.kernel = core_kernel(names[c], 4, 1, 0),
                                      .grid = {(N + blocks[c] - 1) / blocks[c], 1, 1},
                                      .params = params[c], .param_count = 5};
  }
  tkrt_call_desc_t desc;
  tkrt_call_desc_init(&desc);
  desc.name = "inplace";
  desc.autotuned = true;
  desc.configs = configs;
  desc.config_count = count;
  tkrt_call_t* call = NULL;
  EXPECT_OK(tkrt_call_create(&desc, &call));
  for (size_t c = 0; c < count; ++c) tkrt_kernel_release(configs[c].kernel);
  return call;
}

/* The tuning database: a call that gains a config times only the new one; with every config
 * timed, a call is decided without launching anything (also under require_complete). */
static void test_tuning_database_times_only_new_configs(void) {
  tkrt_device_t* device = core_open_device();
  ASSERT_TRUE(device != NULL);
  char dir[64];
  make_dir(dir);
  float x[N] = {0}, y[N] = {0};
  tkrt_deviceptr_t dx = core_upload(device, x, sizeof(x)), dy = core_upload(device, y, sizeof(y));
  tkrt_deviceptr_t counter = core_upload(device, NULL, 16);
  tkrt_buffer_t buffers[] = {{dx, N * 4}, {dy, N * 4}, {counter, 16}, {dx, N * 4}};
  uint32_t counts[4], zero[4] = {0};

  tkrt_call_t* two = inplace_prefix_call(2);
  tkrt_autotuner_t* tuner = core_tuner(dir, 1.0, 2);
  tkrt_launch_decision_t decision;
  EXPECT_OK(core_launch_decided(two, device, NULL, buffers, 3, 1, tuner, &decision));
  EXPECT_EQ_U64(decision.source, TKRT_TUNE_SOURCE_TUNED);
  core_download(device, counts, counter, 16);
  EXPECT_TRUE(counts[0] >= 2 && counts[1] >= 2);
  tkrt_autotuner_destroy(tuner);

  tkrt_status_free(tkrt_memcpy_htod_async(device, counter, zero, 16, NULL));
  tkrt_status_free(tkrt_stream_synchronize(device, NULL));
  tkrt_call_t* three = inplace_prefix_call(3);
  tuner = core_tuner(dir, 1.0, 2);
  EXPECT_OK(core_launch_decided(three, device, NULL, buffers, 3, 1, tuner, &decision));
  EXPECT_EQ_U64(decision.source, TKRT_TUNE_SOURCE_TUNED);
  core_download(device, counts, counter, 16);
  /* Config 2 was timed (a warm-up and timed launches); 0 and 1 ran at most once, as the choice. */
  EXPECT_TRUE(counts[2] >= 2);
  EXPECT_TRUE(counts[0] + counts[1] <= 1);
  tkrt_tune_report_t report;
  tkrt_tune_report_init(&report);
  float times[3];
  report.times_ms = times;
  report.times_capacity = 3;
  EXPECT_OK(tkrt_autotuner_get_report(tuner, three, tkrt_device_info(device)->arch, &report));
  EXPECT_TRUE(times[0] >= 0 && times[1] >= 0 && times[2] >= 0);
  tkrt_autotuner_destroy(tuner);

  /* Without the decision entries, the times alone decide: nothing is benchmarked, even under
   * require_complete. */
  char command[256];
  snprintf(command, sizeof(command), "rm -f %s/*.decision", dir);
  EXPECT_EQ_U64(system(command), 0);
  tkrt_status_free(tkrt_memcpy_htod_async(device, counter, zero, 16, NULL));
  tkrt_status_free(tkrt_stream_synchronize(device, NULL));
  tkrt_autotuner_options_t options;
  tkrt_autotuner_options_init(&options);
  options.store_dir = dir;
  options.require_complete = true;
  EXPECT_OK(tkrt_autotuner_create(&options, &tuner));
  EXPECT_OK(core_launch_decided(three, device, NULL, buffers, 3, 1, tuner, &decision));
  EXPECT_EQ_U64(decision.source, TKRT_TUNE_SOURCE_STORE);
  EXPECT_EQ_U64(decision.config, report.chosen);
  core_download(device, counts, counter, 16);
  EXPECT_EQ_U64(counts[0] + counts[1] + counts[2], 1);
  tkrt_autotuner_destroy(tuner);

  tkrt_call_release(two);
  tkrt_call_release(three);
  tkrt_status_free(tkrt_memory_free(device, dx));
  tkrt_status_free(tkrt_memory_free(device, dy));
  tkrt_status_free(tkrt_memory_free(device, counter));
  tkrt_device_release(device);
  remove_dir(dir);
}

/* TKRT_TUNE_REQUIRE_COMPLETE sets the option for the tools; a word that is not on/off is refused. */
static void test_require_complete_from_environment(void) {
  tkrt_autotuner_options_t options;
  tkrt_autotuner_options_init(&options);
  EXPECT_TRUE(!options.require_complete);
  setenv("TKRT_TUNE_REQUIRE_COMPLETE", "on", 1);
  EXPECT_OK(tkrt_options_from_environment(NULL, &options));
  EXPECT_TRUE(options.require_complete);
  setenv("TKRT_TUNE_REQUIRE_COMPLETE", "maybe", 1);
  EXPECT_STATUS(tkrt_options_from_environment(NULL, &options), TKRT_STATUS_INVALID_ARGUMENT,
                "TKRT_TUNE_REQUIRE_COMPLETE");
  setenv("TKRT_TUNE_REQUIRE_COMPLETE", "0", 1);
  EXPECT_OK(tkrt_options_from_environment(NULL, &options));
  EXPECT_TRUE(!options.require_complete);
  unsetenv("TKRT_TUNE_REQUIRE_COMPLETE");
}

/* Options that cannot work are refused at creation. */
static void test_exchange_options_are_checked(void) {
  tkrt_exchange_t exchange;
  tkrt_exchange_init(&exchange);
  tkrt_autotuner_options_t options;
  tkrt_autotuner_options_init(&options);
  options.exchange = &exchange;
  tkrt_autotuner_t* tuner = NULL;
  EXPECT_STATUS(tkrt_autotuner_create(&options, &tuner), TKRT_STATUS_INVALID_ARGUMENT,
                "set, get and add");
  char dir[64];
  make_dir(dir);
  EXPECT_OK(tkrt_exchange_folder_create(dir, false, &exchange));
  options.exchange_policy = TKRT_EXCHANGE_POLICY_MERGE;
  options.exchange_ranks = 0;
  EXPECT_STATUS(tkrt_autotuner_create(&options, &tuner), TKRT_STATUS_INVALID_ARGUMENT,
                "exchange_ranks");
  /* Keys outside the alphabet never reach the folder. */
  int64_t value = 0;
  EXPECT_EQ_U64(exchange.add(exchange.user, "../escape", 1, &value), TKRT_EXCHANGE_ERROR);
  EXPECT_EQ_U64(exchange.set(exchange.user, ".hidden", "x", 1), TKRT_EXCHANGE_ERROR);
  EXPECT_EQ_U64(exchange.add(exchange.user, "counter", 2, &value), TKRT_EXCHANGE_OK);
  EXPECT_EQ_U64(exchange.add(exchange.user, "counter", 3, &value), TKRT_EXCHANGE_OK);
  EXPECT_EQ_U64(value, 5);
  char buffer[8];
  size_t size = 0;
  EXPECT_EQ_U64(exchange.get(exchange.user, "missing", 0, buffer, sizeof(buffer), &size),
                TKRT_EXCHANGE_NOT_FOUND);
  EXPECT_EQ_U64(exchange.get(exchange.user, "missing", 30, buffer, sizeof(buffer), &size),
                TKRT_EXCHANGE_DEADLINE_EXCEEDED);
  tkrt_exchange_folder_destroy(&exchange);
  remove_dir(dir);
}

/* A folder refused as untrusted leaves behind none of the folders made on the way to it (here
 * "<dir>/a/b/../..", which names <dir> again, made writable by anyone: a and a/b are made, then
 * <dir> is refused); <dir> itself, which was there before, stays. */
static void test_exchange_refused_folder_leaves_nothing(void) {
  char dir[64], path[128], first[96];
  make_dir(dir);
  ASSERT_TRUE(dir[0]);
  ASSERT_TRUE(chmod(dir, 0777) == 0);
  snprintf(first, sizeof(first), "%s/a", dir);
  snprintf(path, sizeof(path), "%s/a/b/../..", dir);
  tkrt_exchange_t exchange;
  tkrt_exchange_init(&exchange);
  EXPECT_STATUS(tkrt_exchange_folder_create(path, false, &exchange),
                TKRT_STATUS_PERMISSION_DENIED, "other users can write it");
  struct stat info;
  EXPECT_TRUE(lstat(first, &info) != 0);
  EXPECT_TRUE(lstat(dir, &info) == 0 && S_ISDIR(info.st_mode));
  /* Trusted shared, the same folder is made and accepted. */
  EXPECT_OK(tkrt_exchange_folder_create(path, true, &exchange));
  EXPECT_TRUE(lstat(first, &info) == 0 && S_ISDIR(info.st_mode));
  tkrt_exchange_folder_destroy(&exchange);
  remove_dir(dir);
}

/* A process that holds a counter's lock and is stopped (here: sleeps) never stalls add: add gives
 * up with an error after the folder's lock cap (10 s) and the tuner falls back. */
static void test_exchange_add_never_waits_forever_on_a_held_lock(void) {
  char dir[64];
  make_dir(dir);
  tkrt_exchange_t exchange;
  tkrt_exchange_init(&exchange);
  EXPECT_OK(tkrt_exchange_folder_create(dir, false, &exchange));
  int64_t value = 0;
  EXPECT_EQ_U64(exchange.add(exchange.user, "held", 1, &value), TKRT_EXCHANGE_OK);
  char lock_path[128];
  snprintf(lock_path, sizeof(lock_path), "%s/l.held", dir);
  int ready[2];
  EXPECT_EQ_U64(pipe(ready), 0);
  pid_t holder = fork();
  if (holder == 0) {
    close(ready[0]);
    int fd = open(lock_path, O_RDWR | O_CLOEXEC);
    if (fd < 0 || flock(fd, LOCK_EX) != 0) _exit(2);
    if (write(ready[1], "x", 1) != 1) _exit(3);
    sleep(60); /* stopped while holding the lock */
    _exit(0);
  }
  close(ready[1]);
  char byte = 0;
  EXPECT_EQ_U64(read(ready[0], &byte, 1), 1);
  close(ready[0]);
  /* The timed add (what the tuner calls) waits only what it is given (issue 31, E7). */
  double start = now_seconds();
  ASSERT_TRUE(exchange.add_within != NULL && exchange.set_within != NULL);
  EXPECT_EQ_U64(exchange.add_within(exchange.user, "held", 1, 300, &value),
                TKRT_EXCHANGE_DEADLINE_EXCEEDED);
  double waited = now_seconds() - start;
  EXPECT_TRUE(waited >= 0.29 && waited < 3.0);
  start = now_seconds();
  EXPECT_EQ_U64(exchange.add(exchange.user, "held", 1, &value), TKRT_EXCHANGE_ERROR);
  waited = now_seconds() - start;
  EXPECT_TRUE(waited >= 9.0 && waited < 30.0);
  kill(holder, SIGKILL);
  EXPECT_EQ_U64(wait_child(holder), (uint64_t)(int64_t)-SIGKILL);
  /* The holder gone, the counter works again and kept its value. */
  EXPECT_EQ_U64(exchange.add(exchange.user, "held", 1, &value), TKRT_EXCHANGE_OK);
  EXPECT_EQ_U64(value, 2);
  tkrt_exchange_folder_destroy(&exchange);
  remove_dir(dir);
}

int main(int argc, char** argv) {
  int exit_code = core_test_init(&argc, argv);
  if (exit_code) return exit_code;
  g_self = "/proc/self/exe";
  g_image_path = argv[1];
  snprintf(g_backend_option, sizeof(g_backend_option), CORE_BACKEND_OPTION "%s", g_backend);
  char self[4096];
  ssize_t length = readlink("/proc/self/exe", self, sizeof(self) - 1);
  if (length > 0) {
    self[length] = '\0';
    g_self = self;
  }
  if (argc >= 8 && strcmp(argv[2], "--child") == 0) {
    int code = child_main(argv[3], argv[4], (unsigned)atoi(argv[5]), (unsigned)atoi(argv[6]),
                          argv[7]);
    free(g_image);
    return code;
  }
  tkrt_device_t* device = core_open_main_device(&exit_code);
  if (!device) {
    free(g_image);
    return exit_code;
  }
  tkrt_device_release(device);
  static const tkrt_test_case_t cases[] = {
      TKRT_TEST_CASE(test_exchange_off_each_rank_tunes),
      TKRT_TEST_CASE(test_exchange_leader_ranks_agree),
      TKRT_TEST_CASE(test_exchange_merge_ranks_agree),
      TKRT_TEST_CASE(test_exchange_merge_reused_folder_falls_back),
      TKRT_TEST_CASE(test_exchange_leader_killed_after_claim),
      TKRT_TEST_CASE(test_exchange_merge_rank_killed_after_join),
      TKRT_TEST_CASE(test_exchange_late_leader_publishes_the_fallback),
      TKRT_TEST_CASE(test_exchange_late_merge_rank_publishes_no_timings),
      TKRT_TEST_CASE(test_exchange_failing_store_falls_back),
      TKRT_TEST_CASE(test_exchange_forged_entries_are_refused),
      TKRT_TEST_CASE(test_require_complete),
      TKRT_TEST_CASE(test_require_complete_from_environment),
      TKRT_TEST_CASE(test_tuning_database_times_only_new_configs),
      TKRT_TEST_CASE(test_exchange_options_are_checked),
      TKRT_TEST_CASE(test_exchange_add_never_waits_forever_on_a_held_lock),
      TKRT_TEST_CASE(test_exchange_refused_folder_leaves_nothing),
  };
  int result = tkrt_test_main(argc - 1, argv + 1, cases, sizeof(cases) / sizeof(cases[0]));
  free(g_image);
  return result;
}
