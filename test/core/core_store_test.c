/* SPDX-License-Identifier: Apache-2.0 */
/* The tuning decision store's clean-up of interrupted writes (issue 23, D11): a process killed
 * between mkstemp and rename leaves ".<key>.decision.XXXXXX" behind. The next write into the
 * folder removes this user's such files older than TKRT_DECISION_STALE_TEMP_SECONDS (planted here
 * with old modification times) and nothing else: a fresh one (a write in progress), names that
 * only look alike, links (and what they point at), folders, FIFOs and, when the test runs as root,
 * another user's file all stay. The entry itself is written and read back.
 *
 * usage: core_store_test [case...] */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "base/fs.h"
#include "core/tune/decision_store.h"
#include "test/harness.h"

static char g_dir[] = "/tmp/tkrt_store_test_XXXXXX";

static void path_of(char* out, size_t size, const char* name) {
  snprintf(out, size, "%s/%s", g_dir, name);
}

/* Sets a name's modification time `age` seconds into the past, without following a link. */
static int age_by(const char* name, time_t age) {
  char path[512];
  path_of(path, sizeof(path), name);
  struct timespec times[2] = {{.tv_sec = time(NULL) - age}, {.tv_sec = time(NULL) - age}};
  return utimensat(AT_FDCWD, path, times, AT_SYMLINK_NOFOLLOW);
}

static int plant_file(const char* name, time_t age) {
  char path[512];
  path_of(path, sizeof(path), name);
  int fd = open(path, O_WRONLY | O_CREAT | O_EXCL, 0600);
  if (fd < 0) return -1;
  int ok = write(fd, "partial", 7) == 7;
  close(fd);
  return ok ? age_by(name, age) : -1;
}

static int exists(const char* name) {
  char path[512];
  struct stat st;
  path_of(path, sizeof(path), name);
  return lstat(path, &st) == 0;
}

static void stale_temps_removed(void) {
  ASSERT_TRUE(mkdtemp(g_dir) != NULL);
  uint8_t digest[32] = {1, 2, 3};
  char key[65], other_key[65];
  tkrt_decision_key(digest, "x86_64", 0, key);
  digest[0] = 9;
  tkrt_decision_key(digest, "x86_64", 0, other_key);
  const time_t old = TKRT_DECISION_STALE_TEMP_SECONDS + 60, fresh = 5;

  /* Removed: this user's temporary files of any entry, older than the bound. */
  char stale[4][128];
  snprintf(stale[0], sizeof(stale[0]), ".%s.decision.AbC123", key);
  snprintf(stale[1], sizeof(stale[1]), ".%s.decision.zzzzzz", other_key);
  snprintf(stale[2], sizeof(stale[2]), ".%s.decision.000000", key);
  ASSERT_TRUE(plant_file(stale[0], old) == 0);
  ASSERT_TRUE(plant_file(stale[1], 24 * 3600) == 0);
  ASSERT_TRUE(plant_file(stale[2], old) == 0);
  /* The tuning database's per-config times are written the same way. */
  snprintf(stale[3], sizeof(stale[3]), ".%s.timing.AbC123", key);
  ASSERT_TRUE(plant_file(stale[3], old) == 0);

  /* Kept: a fresh temporary file (a write in progress elsewhere), just inside the bound too. */
  char kept[20][160];
  size_t n = 0;
  snprintf(kept[n], sizeof(kept[n]), ".%s.decision.Fresh1", key);
  ASSERT_TRUE(plant_file(kept[n++], fresh) == 0);
  snprintf(kept[n], sizeof(kept[n]), ".%s.decision.Fresh2", key);
  ASSERT_TRUE(plant_file(kept[n++], TKRT_DECISION_STALE_TEMP_SECONDS - 60) == 0);
  /* Kept: names outside the exact pattern, however old. */
  static const char* const foreign[] = {"notes.txt", ".decision.AbC123", "AbC123"};
  for (size_t i = 0; i < sizeof(foreign) / sizeof(foreign[0]); ++i) {
    snprintf(kept[n], sizeof(kept[n]), "%s", foreign[i]);
    ASSERT_TRUE(plant_file(kept[n++], old) == 0);
  }
  snprintf(kept[n], sizeof(kept[n]), ".%s.decision.Ab_123", key);      /* not mkstemp's letters */
  ASSERT_TRUE(plant_file(kept[n++], old) == 0);
  snprintf(kept[n], sizeof(kept[n]), ".%s.decision.AbC1234", key);     /* seven */
  ASSERT_TRUE(plant_file(kept[n++], old) == 0);
  snprintf(kept[n], sizeof(kept[n]), ".%s.decision.AbC12", key);       /* five */
  ASSERT_TRUE(plant_file(kept[n++], old) == 0);
  snprintf(kept[n], sizeof(kept[n]), "%s.decision.AbC123", key);       /* no dot first */
  ASSERT_TRUE(plant_file(kept[n++], old) == 0);
  snprintf(kept[n], sizeof(kept[n]), ".%.63s.decision.AbC123", key);   /* a short key */
  ASSERT_TRUE(plant_file(kept[n++], old) == 0);
  snprintf(kept[n], sizeof(kept[n]), ".%s.lock.AbC123", key);          /* another suffix */
  ASSERT_TRUE(plant_file(kept[n++], old) == 0);
  snprintf(kept[n], sizeof(kept[n]), ".%s.timing.AbC12", key);         /* five */
  ASSERT_TRUE(plant_file(kept[n++], old) == 0);
  char upper[65];
  for (int i = 0; i < 65; ++i) upper[i] = (char)(key[i] >= 'a' ? key[i] - 32 : key[i]);
  snprintf(kept[n], sizeof(kept[n]), ".%s.decision.AbC123", upper);    /* not tkrt's hex */
  ASSERT_TRUE(plant_file(kept[n++], old) == 0);
  /* Kept: a link under the pattern (and the file it points at), a folder, a FIFO. */
  char target[512], path[512];
  path_of(target, sizeof(target), "target");
  ASSERT_TRUE(plant_file("target", old) == 0);
  snprintf(kept[n], sizeof(kept[n]), ".%s.decision.LnK123", key);
  path_of(path, sizeof(path), kept[n]);
  ASSERT_TRUE(symlink(target, path) == 0 && age_by(kept[n++], old) == 0);
  snprintf(kept[n], sizeof(kept[n]), ".%s.decision.DiR123", key);
  path_of(path, sizeof(path), kept[n]);
  ASSERT_TRUE(mkdir(path, 0700) == 0 && age_by(kept[n++], old) == 0);
  snprintf(kept[n], sizeof(kept[n]), ".%s.decision.FiF123", key);
  path_of(path, sizeof(path), kept[n]);
  ASSERT_TRUE(mkfifo(path, 0600) == 0 && age_by(kept[n++], old) == 0);
  /* Kept: another user's file (only root can make one here). */
  int foreign_owner = 0;
  if (geteuid() == 0) {
    snprintf(kept[n], sizeof(kept[n]), ".%s.decision.Other1", key);
    path_of(path, sizeof(path), kept[n]);
    ASSERT_TRUE(plant_file(kept[n], old) == 0 && lchown(path, 65534, 65534) == 0);
    ++n;
    foreign_owner = 1;
  }

  float times[2] = {1.5f, 0.5f};
  tkrt_decision_t decision = {.chosen = 1, .config_count = 2, .iterations = 7, .times_ms = times};
  digest[0] = 1;
  EXPECT_OK(tkrt_decision_write(g_dir, false, key, digest, "x86_64", 0, &decision));

  for (int i = 0; i < 4; ++i) {
    if (exists(stale[i])) TKRT_TEST_FAIL_("%s was not removed", stale[i]);
  }
  for (size_t i = 0; i < n; ++i) {
    if (!exists(kept[i])) TKRT_TEST_FAIL_("%s was removed", kept[i]);
  }
  EXPECT_TRUE(exists("target"));
  if (!foreign_owner) fprintf(stderr, "  (not root: no file of another user planted)\n");

  /* The entry: written, read back. */
  float read_times[2] = {0, 0};
  tkrt_decision_t back = {.config_count = 2, .times_ms = read_times};
  int found = 0;
  char problem[256];
  EXPECT_OK(tkrt_decision_read(g_dir, false, key, digest, "x86_64", 0, &back, &found, problem,
                               sizeof(problem)));
  EXPECT_TRUE(found && back.chosen == 1 && back.iterations == 7 && read_times[1] == 0.5f);

  /* Clean up the folder. */
  char command[600];
  snprintf(command, sizeof(command), "rm -rf '%s'", g_dir);
  EXPECT_TRUE(system(command) == 0);
}

/* tkrt_fs_write_file_atomic_at writes into the folder that was opened (and checked), even when
 * its path names another folder by the time of the write (a parent swapped in between), and
 * leaves no temporary file behind. */
static void write_at_follows_the_checked_folder(void) {
  char root[] = "/tmp/tkrt_store_at_XXXXXX";
  ASSERT_TRUE(mkdtemp(root) != NULL);
  char checked[64], moved[64], swapped[128];
  snprintf(checked, sizeof(checked), "%s/store", root);
  snprintf(moved, sizeof(moved), "%s/moved", root);
  ASSERT_TRUE(mkdir(checked, 0700) == 0);
  int dir_fd = -1;
  tkrt_status_t status = tkrt_fs_open_trusted_dir(checked, false, &dir_fd);
  EXPECT_TRUE(status == NULL);
  tkrt_status_free(status);
  ASSERT_TRUE(dir_fd >= 0);
  /* The path is swapped: the checked folder moves away, a new one takes its name. */
  ASSERT_TRUE(rename(checked, moved) == 0);
  ASSERT_TRUE(mkdir(checked, 0700) == 0);
  tkrt_fs_piece_t piece = {"value\n", 6};
  status = tkrt_fs_write_file_atomic_at(dir_fd, checked, "entry", &piece, 1, 0644);
  EXPECT_TRUE(status == NULL);
  tkrt_status_free(status);
  close(dir_fd);
  struct stat info;
  snprintf(swapped, sizeof(swapped), "%s/entry", checked);
  EXPECT_TRUE(lstat(swapped, &info) != 0);
  snprintf(swapped, sizeof(swapped), "%s/entry", moved);
  ASSERT_TRUE(lstat(swapped, &info) == 0);
  EXPECT_TRUE(S_ISREG(info.st_mode) && info.st_size == 6 && (info.st_mode & 0777) == 0644);
  /* Only the entry: the temporary file was renamed, not left. */
  char command[700];
  snprintf(command, sizeof(command), "test \"$(ls -A '%s')\" = entry", moved);
  EXPECT_TRUE(system(command) == 0);
  /* A name with a '/' is refused. */
  ASSERT_TRUE(tkrt_fs_open_trusted_dir(moved, false, &dir_fd) == NULL);
  status = tkrt_fs_write_file_atomic_at(dir_fd, moved, "a/b", &piece, 1, 0644);
  EXPECT_TRUE(status != NULL && tkrt_status_code(status) == TKRT_STATUS_INVALID_ARGUMENT);
  tkrt_status_free(status);
  close(dir_fd);
  snprintf(command, sizeof(command), "rm -rf '%s'", root);
  EXPECT_TRUE(system(command) == 0);
}

int main(int argc, char** argv) {
  static const tkrt_test_case_t cases[] = {TKRT_TEST_CASE(stale_temps_removed),
                                           TKRT_TEST_CASE(write_at_follows_the_checked_folder)};
  return tkrt_test_main(argc, argv, cases, sizeof(cases) / sizeof(cases[0]));
}
