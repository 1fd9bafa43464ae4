/* SPDX-License-Identifier: Apache-2.0 */
/* The library's one file reader (base/fs.c: tkrt_fs_read_file), which the formats (the wire
 * codec's HSACO files, the Triton loader's JSON, TTIR and images), the stores and the CLI use:
 * regular files only, refused without blocking; links refused on request; the size cap applied
 * before anything is allocated; one policy for empty files (TKRT_FS_READ_NONEMPTY) and for files
 * that change size while they are read (DATA_LOSS, never a truncated read).
 *
 * The test links with -Wl,--wrap=read: the reader's read() calls come here first, and a case can
 * make the file really shrink or grow between the reader's fstat and its reads.
 *
 * usage: fs_test [case...] */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <unistd.h>

#include "base/fs.h"
#include "test/harness.h"

ssize_t __real_read(int fd, void* buffer, size_t count);
ssize_t __wrap_read(int fd, void* buffer, size_t count);

/* What the next read() does to the file first: nothing, truncate it to `size`, or append. */
static enum { CHANGE_NONE, CHANGE_SHRINK, CHANGE_GROW } g_change;
static const char* g_change_path;
static off_t g_change_size;
static int g_reads; /* read() calls the reader made */

ssize_t __wrap_read(int fd, void* buffer, size_t count) {
  ++g_reads;
  if (g_change == CHANGE_SHRINK) {
    if (truncate(g_change_path, g_change_size) != 0) perror("truncate");
  } else if (g_change == CHANGE_GROW) {
    int out = open(g_change_path, O_WRONLY | O_APPEND);
    if (out < 0 || write(out, "more", 4) != 4) perror("append");
    if (out >= 0) close(out);
  }
  g_change = CHANGE_NONE;
  return __real_read(fd, buffer, count);
}

static char g_tmp[] = "/tmp/tkrt_fs_test.XXXXXX";

static const char* tmp_path(const char* name) {
  static char path[256];
  snprintf(path, sizeof(path), "%s/%s", g_tmp, name);
  return path;
}

static int write_file(const char* path, const void* data, size_t size) {
  int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0600);
  if (fd < 0) return 0;
  int ok = write(fd, data, size) == (ssize_t)size;
  return close(fd) == 0 && ok;
}

/* Reads with the outputs preset to sentinels, and checks that an error leaves them alone. */
static tkrt_status_t read_checked(const char* path, size_t cap, unsigned flags, void** out_data,
                                  size_t* out_size) {
  static char sentinel;
  *out_data = &sentinel;
  *out_size = 12345;
  tkrt_status_t status = tkrt_fs_read_file(path, cap, flags, out_data, out_size);
  if (status) {
    EXPECT_TRUE(*out_data == &sentinel);
    EXPECT_EQ_U64(*out_size, 12345);
    *out_data = NULL;
  }
  return status;
}

static void reads_the_bytes(void) {
  const char* path = tmp_path("text");
  ASSERT_TRUE(write_file(path, "abc\0def", 7));
  void* data = NULL;
  size_t size = 0;
  ASSERT_OK(read_checked(path, 7, 0, &data, &size));
  EXPECT_EQ_U64(size, 7);
  EXPECT_TRUE(memcmp(data, "abc\0def", 8) == 0); /* and the NUL after the contents */
  free(data);
  /* One byte over the cap is refused from the size, before any read. */
  g_reads = 0;
  EXPECT_STATUS(read_checked(path, 6, 0, &data, &size), TKRT_STATUS_OUT_OF_RANGE,
                "text has 7 bytes, more than the 6 bytes accepted");
  EXPECT_EQ_U64(g_reads, 0);
  EXPECT_STATUS(read_checked(tmp_path("missing"), 6, 0, &data, &size), TKRT_STATUS_NOT_FOUND,
                "cannot open /tmp/tkrt_fs_test.");
  unlink(tmp_path("text"));
}

static void huge_file_refused_before_reading(void) {
  const char* path = tmp_path("huge");
  int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0600);
  ASSERT_TRUE(fd >= 0);
  int sized = ftruncate(fd, (off_t)1 << 40) == 0; /* 1 TiB, sparse */
  close(fd);
  if (!sized) TKRT_TEST_SKIP("this file system cannot hold a 1 TiB sparse file");
  void* data = NULL;
  size_t size = 0;
  g_reads = 0;
  EXPECT_STATUS(read_checked(path, (size_t)1 << 20, 0, &data, &size), TKRT_STATUS_OUT_OF_RANGE,
                "huge has 1099511627776 bytes, more than the 1048576 bytes accepted");
  EXPECT_EQ_U64(g_reads, 0);
  unlink(path);
}

static void not_regular_files_refused_without_blocking(void) {
  void* data = NULL;
  size_t size = 0;
  const char* fifo = tmp_path("fifo");
  ASSERT_TRUE(mkfifo(fifo, 0600) == 0);
  /* No writer: a blocking open would hang here. */
  EXPECT_STATUS(read_checked(fifo, 100, 0, &data, &size), TKRT_STATUS_INVALID_ARGUMENT,
                "fifo is not a regular file: it is a FIFO");
  unlink(fifo);
  EXPECT_STATUS(read_checked(g_tmp, 100, 0, &data, &size), TKRT_STATUS_INVALID_ARGUMENT,
                "is not a regular file: it is a folder");
  EXPECT_STATUS(read_checked("/dev/null", 100, 0, &data, &size), TKRT_STATUS_INVALID_ARGUMENT,
                "/dev/null is not a regular file: it is a character device");
}

static void links_refused_on_request(void) {
  char target[256];
  snprintf(target, sizeof(target), "%s", tmp_path("target"));
  ASSERT_TRUE(write_file(target, "xyz", 3));
  char link[256];
  snprintf(link, sizeof(link), "%s", tmp_path("link"));
  ASSERT_TRUE(symlink(target, link) == 0);
  void* data = NULL;
  size_t size = 0;
  ASSERT_OK(read_checked(link, 3, 0, &data, &size));
  EXPECT_EQ_U64(size, 3);
  free(data);
  EXPECT_STATUS(read_checked(link, 3, TKRT_FS_READ_NOFOLLOW, &data, &size),
                TKRT_STATUS_FAILED_PRECONDITION, "link is a symbolic link, which is not followed");
  unlink(link);
  unlink(target);
}

static void empty_files(void) {
  const char* path = tmp_path("empty");
  ASSERT_TRUE(write_file(path, "", 0));
  void* data = NULL;
  size_t size = 1;
  ASSERT_OK(read_checked(path, 10, 0, &data, &size));
  EXPECT_EQ_U64(size, 0);
  EXPECT_TRUE(data != NULL && ((char*)data)[0] == '\0');
  free(data);
  EXPECT_STATUS(read_checked(path, 10, TKRT_FS_READ_NONEMPTY, &data, &size),
                TKRT_STATUS_INVALID_ARGUMENT, "empty is empty");
  /* A pseudo-file of /proc reports 0 bytes: empty, and not read (it has no end to wait for). */
  g_reads = 0;
  size = 1;
  ASSERT_OK(read_checked("/proc/self/status", 10, 0, &data, &size));
  EXPECT_EQ_U64(size, 0);
  EXPECT_EQ_U64(g_reads, 0);
  free(data);
  unlink(path);
}

static void size_changes_are_errors(void) {
  const char* path = tmp_path("changing");
  char bytes[4096];
  memset(bytes, 'a', sizeof(bytes));
  void* data = NULL;
  size_t size = 0;
  /* Shrinks between the reader's fstat and its first read: no truncated contents. */
  ASSERT_TRUE(write_file(path, bytes, sizeof(bytes)));
  g_change = CHANGE_SHRINK;
  g_change_path = path;
  g_change_size = 100;
  EXPECT_STATUS(read_checked(path, sizeof(bytes), 0, &data, &size), TKRT_STATUS_DATA_LOSS,
                "changing shrank while being read (4096 bytes when opened)");
  /* Shrinks to nothing. */
  ASSERT_TRUE(write_file(path, bytes, sizeof(bytes)));
  g_change = CHANGE_SHRINK;
  g_change_size = 0;
  EXPECT_STATUS(read_checked(path, sizeof(bytes), 0, &data, &size), TKRT_STATUS_DATA_LOSS,
                "shrank while being read");
  /* Grows: the first 4096 bytes alone would look like a whole file. */
  ASSERT_TRUE(write_file(path, bytes, sizeof(bytes)));
  g_change = CHANGE_GROW;
  EXPECT_STATUS(read_checked(path, 1 << 20, 0, &data, &size), TKRT_STATUS_DATA_LOSS,
                "changing grew while being read (4096 bytes when opened)");
  /* Unchanged, the same file reads whole. */
  ASSERT_TRUE(write_file(path, bytes, sizeof(bytes)));
  ASSERT_OK(read_checked(path, sizeof(bytes), TKRT_FS_READ_NONEMPTY, &data, &size));
  EXPECT_EQ_U64(size, sizeof(bytes));
  EXPECT_TRUE(memcmp(data, bytes, sizeof(bytes)) == 0);
  free(data);
  g_change = CHANGE_NONE;
  unlink(path);
}

int main(int argc, char** argv) {
  if (!mkdtemp(g_tmp)) {
    perror("mkdtemp");
    return 1;
  }
  static const tkrt_test_case_t cases[] = {
      TKRT_TEST_CASE(reads_the_bytes),
      TKRT_TEST_CASE(huge_file_refused_before_reading),
      TKRT_TEST_CASE(not_regular_files_refused_without_blocking),
      TKRT_TEST_CASE(links_refused_on_request),
      TKRT_TEST_CASE(empty_files),
      TKRT_TEST_CASE(size_changes_are_errors),
  };
  int rc = tkrt_test_main(argc, argv, cases, sizeof(cases) / sizeof(cases[0]));
  rmdir(g_tmp);
  return rc;
}
