/* SPDX-License-Identifier: Apache-2.0 */
/* tkrt's small C test harness: named cases, status-aware assertions, a summary line, and the
 * CTest conventions (exit 1 on failure, 77 when everything was skipped). Header-only. */
#ifndef TKRT_TEST_HARNESS_H_
#define TKRT_TEST_HARNESS_H_

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tkrt/status.h"

typedef struct tkrt_test_case {
  const char* name;
  void (*fn)(void);
} tkrt_test_case_t;

static int tkrt_test_failed_;  /* failures in the current case */
static int tkrt_test_skipped_; /* the current case skipped itself */

#define TKRT_TEST_FAIL_(...)                                      \
  do {                                                            \
    fprintf(stderr, "  %s:%d: ", __FILE__, __LINE__);             \
    fprintf(stderr, __VA_ARGS__);                                 \
    fputc('\n', stderr);                                          \
    ++tkrt_test_failed_;                                          \
  } while (0)

static inline void tkrt_test_print_status_(const char* file, int line, const char* expr,
                                           tkrt_status_t status) {
  char* text = tkrt_status_to_string(status);
  fprintf(stderr, "  %s:%d: %s failed: %s\n", file, line, expr, text ? text : "(no memory)");
  free(text);
}

/* Evaluates a status; on error prints it, frees it, counts a failure. */
#define EXPECT_OK(expr)                                                   \
  do {                                                                    \
    tkrt_status_t tkrt_s_ = (expr);                                       \
    if (tkrt_s_) {                                                        \
      tkrt_test_print_status_(__FILE__, __LINE__, #expr, tkrt_s_);        \
      tkrt_status_free(tkrt_s_);                                          \
      ++tkrt_test_failed_;                                                \
    }                                                                     \
  } while (0)

/* Like EXPECT_OK but leaves the test function on failure. */
#define ASSERT_OK(expr)                                                   \
  do {                                                                    \
    tkrt_status_t tkrt_s_ = (expr);                                       \
    if (tkrt_s_) {                                                        \
      tkrt_test_print_status_(__FILE__, __LINE__, #expr, tkrt_s_);        \
      tkrt_status_free(tkrt_s_);                                          \
      ++tkrt_test_failed_;                                                \
      return;                                                             \
    }                                                                     \
  } while (0)

/* Expects an error with this code whose message contains `needle` (may be NULL). */
#define EXPECT_STATUS(expr, code, needle)                                                    \
  do {                                                                                       \
    tkrt_status_t tkrt_s_ = (expr);                                                          \
    const char* tkrt_n_ = (needle);                                                          \
    if (!tkrt_s_) {                                                                          \
      TKRT_TEST_FAIL_("%s succeeded; expected %s", #expr, tkrt_status_code_name(code));      \
    } else if (tkrt_status_code(tkrt_s_) != (code) ||                                        \
               (tkrt_n_ && !strstr(tkrt_status_message(tkrt_s_), tkrt_n_))) {               \
      char* tkrt_t_ = tkrt_status_to_string(tkrt_s_);                                        \
      TKRT_TEST_FAIL_("%s gave %s; expected %s containing '%s'", #expr, tkrt_t_,             \
                      tkrt_status_code_name(code), tkrt_n_ ? tkrt_n_ : "");                  \
      free(tkrt_t_);                                                                         \
    }                                                                                        \
    tkrt_status_free(tkrt_s_);                                                               \
  } while (0)

#define EXPECT_TRUE(cond) \
  do {                    \
    if (!(cond)) TKRT_TEST_FAIL_("expected %s", #cond); \
  } while (0)

#define ASSERT_TRUE(cond)                     \
  do {                                        \
    if (!(cond)) {                            \
      TKRT_TEST_FAIL_("expected %s", #cond);  \
      return;                                 \
    }                                         \
  } while (0)

#define EXPECT_EQ_U64(a, b)                                                          \
  do {                                                                               \
    uint64_t tkrt_a_ = (uint64_t)(a), tkrt_b_ = (uint64_t)(b);                       \
    if (tkrt_a_ != tkrt_b_) {                                                        \
      TKRT_TEST_FAIL_("%s == %" PRIu64 ", expected %s == %" PRIu64, #a, tkrt_a_, #b, \
                      tkrt_b_);                                                      \
    }                                                                                \
  } while (0)

#define EXPECT_STREQ(a, b)                                                               \
  do {                                                                                   \
    const char *tkrt_a_ = (a), *tkrt_b_ = (b);                                           \
    if (!tkrt_a_ || !tkrt_b_ || strcmp(tkrt_a_, tkrt_b_) != 0) {                         \
      TKRT_TEST_FAIL_("%s is '%s', expected '%s'", #a, tkrt_a_ ? tkrt_a_ : "(null)",     \
                      tkrt_b_ ? tkrt_b_ : "(null)");                                     \
    }                                                                                    \
  } while (0)

/* Marks the current case skipped (with a reason) and leaves it. */
#define TKRT_TEST_SKIP(...)                  \
  do {                                       \
    fprintf(stderr, "  skipped: ");          \
    fprintf(stderr, __VA_ARGS__);            \
    fputc('\n', stderr);                     \
    tkrt_test_skipped_ = 1;                  \
    return;                                  \
  } while (0)

/* Runs the cases (all, or those named on the command line) and prints the summary line. */
static inline int tkrt_test_main(int argc, char** argv, const tkrt_test_case_t* cases,
                                 size_t count) {
  int passed = 0, failed = 0, skipped = 0;
  for (size_t i = 0; i < count; ++i) {
    int selected = argc <= 1;
    for (int a = 1; a < argc; ++a) selected |= strcmp(argv[a], cases[i].name) == 0;
    if (!selected) continue;
    tkrt_test_failed_ = 0;
    tkrt_test_skipped_ = 0;
    fprintf(stderr, "[ RUN  ] %s\n", cases[i].name);
    cases[i].fn();
    if (tkrt_test_failed_) {
      ++failed;
      fprintf(stderr, "[ FAIL ] %s\n", cases[i].name);
    } else if (tkrt_test_skipped_) {
      ++skipped;
      fprintf(stderr, "[ SKIP ] %s\n", cases[i].name);
    } else {
      ++passed;
      fprintf(stderr, "[  OK  ] %s\n", cases[i].name);
    }
  }
  printf("%d passed, %d failed, %d skipped\n", passed, failed, skipped);
  if (failed) return 1;
  if (passed == 0 && skipped > 0) return 77;
  return 0;
}

#define TKRT_TEST_CASE(fn) {#fn, fn}
#define TKRT_TEST_MAIN(...)                                                   \
  int main(int argc, char** argv) {                                          \
    static const tkrt_test_case_t cases[] = {__VA_ARGS__};                    \
    return tkrt_test_main(argc, argv, cases, sizeof(cases) / sizeof(cases[0])); \
  }

/* Reads a whole file; NULL (and *out_size untouched) when it cannot. free() the result. */
static inline void* tkrt_test_read_file(const char* path, size_t* out_size) {
  FILE* file = fopen(path, "rb");
  if (!file) return NULL;
  fseek(file, 0, SEEK_END);
  long size = ftell(file);
  fseek(file, 0, SEEK_SET);
  void* data = size > 0 ? malloc((size_t)size) : NULL;
  if (data && fread(data, 1, (size_t)size, file) != (size_t)size) {
    free(data);
    data = NULL;
  }
  fclose(file);
  if (data) *out_size = (size_t)size;
  return data;
}

#endif /* TKRT_TEST_HARNESS_H_ */
