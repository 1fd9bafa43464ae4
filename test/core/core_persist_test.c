/* SPDX-License-Identifier: Apache-2.0 */
/* Tuning decisions persist across processes: a second process reads the store instead of
 * benchmarking, corrupt entries are reported and rewritten, and two processes starting together
 * tune once and agree. The test runs copies of itself as the processes, on the same backend. */
#include <stdint.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <unistd.h>

#include "test/core/core_test_util.h"

#define N 4096
static const char* g_self;
static const char* g_image_path;
static char g_backend_option[sizeof(CORE_BACKEND_OPTION) + TKRT_BACKEND_NAME_MAX];

/* Child: tunes the in-place call with the store in `dir`; exit code 10 + tkrt_tune_source_t, or
 * 1 when the result is wrong or a launch failed. Prints the launches it made per config. */
static int child_main(const char* dir) {
  tkrt_device_t* device = core_open_device();
  if (!device) return 1;
  core_inplace_spec_t spec = {.n = N, .micros = {2000, 100, 1000}};
  tkrt_call_t* call = core_inplace_call(&spec);
  tkrt_autotuner_t* tuner = core_tuner(dir, 1.0, 2);
  tkrt_status_t status = call && tuner ? NULL
                                       : TKRT_STATUS_MAKE(TKRT_STATUS_INTERNAL, "test setup failed");
  float x[N], y[N], out[N];
  for (int i = 0; i < N; ++i) {
    x[i] = (float)i;
    y[i] = 0.5f;
  }
  tkrt_deviceptr_t dx = core_upload(device, x, sizeof(x)), dy = core_upload(device, y, sizeof(y));
  tkrt_deviceptr_t counter = core_upload(device, NULL, 16);
  tkrt_buffer_t buffers[] = {{dx, N * 4}, {dy, N * 4}, {counter, 16}, {dx, N * 4}};
  if (!status) status = core_launch(call, device, NULL, buffers, 3, 1, tuner);
  uint32_t counts[4] = {0};
  if (!status) status = tkrt_memcpy_dtoh_async(device, counts, counter, 16, NULL);
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
    tkrt_status_free(tkrt_autotuner_get_report(tuner, call, tkrt_device_info(device)->arch, &report));
    fprintf(stderr, "child %d: source %s, chosen %zu, launches %u %u %u, wrong %zu\n", (int)getpid(),
            tkrt_tune_source_name(report.source), report.chosen, counts[0], counts[1], counts[2],
            wrong);
    int launches = (int)(counts[0] + counts[1] + counts[2]);
    /* Read from the store: exactly the one real launch. */
    int consistent = report.source != TKRT_TUNE_SOURCE_STORE || launches == 1;
    code = wrong || !consistent ? 1 : 10 + (int)report.source;
  }
  tkrt_status_free(tkrt_memory_free(device, dx));
  tkrt_status_free(tkrt_memory_free(device, dy));
  tkrt_status_free(tkrt_memory_free(device, counter));
  tkrt_autotuner_destroy(tuner);
  tkrt_call_release(call);
  tkrt_device_release(device);
  return code;
}

static pid_t spawn_child(const char* dir) {
  pid_t pid = fork();
  if (pid == 0) {
    execl(g_self, g_self, g_image_path, g_backend_option, "--child", dir, (char*)NULL);
    _exit(127);
  }
  return pid;
}

static int wait_child(pid_t pid) {
  int status = 0;
  if (waitpid(pid, &status, 0) != pid || !WIFEXITED(status)) return -1;
  return WEXITSTATUS(status);
}

static int run_child(const char* dir) { return wait_child(spawn_child(dir)); }

static int count_decisions(const char* dir, char* out_path, size_t capacity) {
  char command[4200];
  snprintf(command, sizeof(command), "ls %s/*.decision 2>/dev/null", dir);
  FILE* pipe = popen(command, "r");
  int count = 0;
  char line[4096];
  while (pipe && fgets(line, sizeof(line), pipe)) {
    line[strcspn(line, "\n")] = '\0';
    snprintf(out_path, capacity, "%s", line);
    ++count;
  }
  if (pipe) pclose(pipe);
  return count;
}

static void test_persist_second_process_does_not_retune(void) {
  char dir[] = "/tmp/tkrt-persist-XXXXXX";
  ASSERT_TRUE(mkdtemp(dir) != NULL);
  char store[256];
  snprintf(store, sizeof(store), "%s/tune", dir);
  EXPECT_EQ_U64(run_child(store), 10 + TKRT_TUNE_SOURCE_TUNED);
  char entry[4096] = "";
  EXPECT_EQ_U64(count_decisions(store, entry, sizeof(entry)), 1);
  EXPECT_EQ_U64(run_child(store), 10 + TKRT_TUNE_SOURCE_STORE);
  EXPECT_EQ_U64(run_child(store), 10 + TKRT_TUNE_SOURCE_STORE);

  /* A corrupt entry is reported, not trusted: the next process tunes again and rewrites it. */
  FILE* file = fopen(entry, "w");
  ASSERT_TRUE(file != NULL);
  fputs("tkrt-decision 1\ngarbage\n", file);
  fclose(file);
  EXPECT_EQ_U64(run_child(store), 10 + TKRT_TUNE_SOURCE_TUNED);
  EXPECT_EQ_U64(run_child(store), 10 + TKRT_TUNE_SOURCE_STORE);
  /* An entry pointing past the configs is corrupt too. */
  size_t size = 0;
  char* text = tkrt_test_read_file(entry, &size);
  ASSERT_TRUE(text != NULL);
  char* chosen = strstr(text, "chosen ");
  if (chosen) chosen[7] = '7';
  file = fopen(entry, "w");
  fwrite(text, 1, size, file);
  fclose(file);
  free(text);
  EXPECT_EQ_U64(run_child(store), 10 + TKRT_TUNE_SOURCE_TUNED);
  char command[512];
  snprintf(command, sizeof(command), "rm -rf %s", dir);
  EXPECT_EQ_U64(system(command), 0);
}

static void test_persist_concurrent_processes_agree(void) {
  char dir[] = "/tmp/tkrt-persist-XXXXXX";
  ASSERT_TRUE(mkdtemp(dir) != NULL);
  char store[256];
  snprintf(store, sizeof(store), "%s/tune", dir);
  enum { PROCESSES = 4 };
  pid_t pids[PROCESSES];
  for (int i = 0; i < PROCESSES; ++i) pids[i] = spawn_child(store);
  int tuned = 0, stored = 0;
  for (int i = 0; i < PROCESSES; ++i) {
    int code = wait_child(pids[i]);
    tuned += code == 10 + TKRT_TUNE_SOURCE_TUNED;
    stored += code == 10 + TKRT_TUNE_SOURCE_STORE;
  }
  /* The entry's file lock lets one process tune; the others read its decision. */
  EXPECT_EQ_U64(tuned, 1);
  EXPECT_EQ_U64(stored, PROCESSES - 1);
  char command[512];
  snprintf(command, sizeof(command), "rm -rf %s", dir);
  EXPECT_EQ_U64(system(command), 0);
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
  if (argc >= 4 && strcmp(argv[2], "--child") == 0) {
    int code = child_main(argv[3]);
    free(g_image);
    return code;
  }
  /* The processes are children that open their own devices: this one only checks, once, that
   * the backend has a device here (else the whole test skips) and lets it go before forking. */
  tkrt_device_t* device = core_open_main_device(&exit_code);
  if (!device) {
    free(g_image);
    return exit_code;
  }
  tkrt_device_release(device);
  static const tkrt_test_case_t cases[] = {
      TKRT_TEST_CASE(test_persist_second_process_does_not_retune),
      TKRT_TEST_CASE(test_persist_concurrent_processes_agree),
  };
  int result = tkrt_test_main(argc - 1, argv + 1, cases, sizeof(cases) / sizeof(cases[0]));
  free(g_image);
  return result;
}
