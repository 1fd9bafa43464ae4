/* SPDX-License-Identifier: Apache-2.0 */
/* Status objects: codes, messages, annotation, formatting and ownership. */
#include "test/harness.h"
#include "tkrt/status.h"

static void test_null_is_ok(void) {
  EXPECT_TRUE(tkrt_status_code(NULL) == TKRT_STATUS_OK);
  EXPECT_STREQ(tkrt_status_message(NULL), "");
  EXPECT_TRUE(tkrt_status_annotate(NULL, "context %d", 1) == NULL);
  char text[8];
  EXPECT_EQ_U64(tkrt_status_format(NULL, text, sizeof(text)), 2);
  EXPECT_STREQ(text, "OK");
  tkrt_status_free(NULL);
}

static void test_make_and_read(void) {
  tkrt_status_t s = TKRT_STATUS_MAKE(TKRT_STATUS_NOT_FOUND, "kernel '%s' missing (%d)", "k", 7);
  ASSERT_TRUE(s != NULL);
  EXPECT_TRUE(tkrt_status_code(s) == TKRT_STATUS_NOT_FOUND);
  EXPECT_STREQ(tkrt_status_message(s), "kernel 'k' missing (7)");
  EXPECT_STREQ(tkrt_status_file(s), "status_test.c");
  EXPECT_TRUE(tkrt_status_line(s) > 0);
  tkrt_status_free(s);
}

static void test_annotate_prefixes_context(void) {
  tkrt_status_t s = TKRT_STATUS_MAKE(TKRT_STATUS_INVALID_ARGUMENT, "bad grid");
  EXPECT_TRUE(tkrt_status_annotate(s, "launching '%s'", "add") == s);
  EXPECT_TRUE(tkrt_status_annotate(s, "call %d", 3) == s);
  EXPECT_STREQ(tkrt_status_message(s), "call 3: launching 'add': bad grid");
  EXPECT_TRUE(tkrt_status_code(s) == TKRT_STATUS_INVALID_ARGUMENT);
  tkrt_status_free(s);
}

static void test_format_and_truncation(void) {
  tkrt_status_t s = TKRT_STATUS_MAKE(TKRT_STATUS_UNAVAILABLE, "no device");
  char full[256];
  size_t needed = tkrt_status_format(s, full, sizeof(full));
  EXPECT_TRUE(strncmp(full, "UNAVAILABLE: no device (status_test.c:", 38) == 0);
  EXPECT_EQ_U64(needed, strlen(full));
  char small[8];
  EXPECT_EQ_U64(tkrt_status_format(s, small, sizeof(small)), needed);
  EXPECT_STREQ(small, "UNAVAIL");
  char* heap = tkrt_status_to_string(s);
  EXPECT_STREQ(heap, full);
  free(heap);
  EXPECT_TRUE(tkrt_status_consume_code(s) == TKRT_STATUS_UNAVAILABLE);
}

static void test_code_names(void) {
  EXPECT_STREQ(tkrt_status_code_name(TKRT_STATUS_OK), "OK");
  EXPECT_STREQ(tkrt_status_code_name(TKRT_STATUS_FAILED_PRECONDITION), "FAILED_PRECONDITION");
  EXPECT_STREQ(tkrt_status_code_name(TKRT_STATUS_UNAUTHENTICATED), "UNAUTHENTICATED");
  EXPECT_STREQ(tkrt_status_code_name((tkrt_status_code_t)99), "UNKNOWN_CODE");
  /* absl numbering, so the XLA FFI error code is the same number */
  EXPECT_EQ_U64(TKRT_STATUS_INVALID_ARGUMENT, 3);
  EXPECT_EQ_U64(TKRT_STATUS_RESOURCE_EXHAUSTED, 8);
  EXPECT_EQ_U64(TKRT_STATUS_UNAVAILABLE, 14);
}

static void test_make_with_ok_code_is_internal(void) {
  tkrt_status_t s = TKRT_STATUS_MAKE(TKRT_STATUS_OK, "misuse");
  EXPECT_TRUE(tkrt_status_code(s) == TKRT_STATUS_INTERNAL);
  tkrt_status_free(s);
}

TKRT_TEST_MAIN(TKRT_TEST_CASE(test_null_is_ok), TKRT_TEST_CASE(test_make_and_read),
               TKRT_TEST_CASE(test_annotate_prefixes_context),
               TKRT_TEST_CASE(test_format_and_truncation), TKRT_TEST_CASE(test_code_names),
               TKRT_TEST_CASE(test_make_with_ok_code_is_internal))
