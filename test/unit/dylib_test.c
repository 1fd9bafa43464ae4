/* SPDX-License-Identifier: Apache-2.0 */
/* The open-once record of a vendor library (base/dylib.h: tkrt_dylib_once), which the cuda and hip
 * backends load their library through: the load runs once however many threads ask at the same
 * time, one of them is told it ran it, and every caller gets the outcome as a status of its own
 * (the first failure's code and message, kept), or success.
 *
 * usage: dylib_test [case...] */
#include <pthread.h>
#include <stdatomic.h>
#include <string.h>
#include <time.h>

#include "base/dylib.h"
#include "test/harness.h"

#define THREADS 8

static atomic_int g_loads;

static tkrt_status_t load_fails(void* context) {
  atomic_fetch_add(&g_loads, 1);
  struct timespec pause = {0, 20 * 1000 * 1000}; /* the others arrive while this one loads */
  nanosleep(&pause, NULL);
  return TKRT_STATUS_MAKE(TKRT_STATUS_UNAVAILABLE, "libvendor.so.%d not found", *(int*)context);
}

static tkrt_status_t load_works(void* context) {
  (void)context;
  atomic_fetch_add(&g_loads, 1);
  return NULL;
}

typedef struct {
  tkrt_dylib_once_t* once;
  tkrt_status_t (*load)(void*);
  int version;
  bool ran;
  tkrt_status_t status;
} caller_t;

static void* call(void* arg) {
  caller_t* c = arg;
  c->status = tkrt_dylib_once(c->once, c->load, &c->version, &c->ran);
  return NULL;
}

static int run_threads(tkrt_dylib_once_t* once, tkrt_status_t (*load)(void*), caller_t* callers) {
  pthread_t threads[THREADS];
  for (int i = 0; i < THREADS; ++i) {
    callers[i] = (caller_t){once, load, i + 1, false, NULL};
    if (pthread_create(&threads[i], NULL, call, &callers[i]) != 0) return 0;
  }
  for (int i = 0; i < THREADS; ++i) pthread_join(threads[i], NULL);
  return 1;
}

static void failure_is_kept(void) {
  static tkrt_dylib_once_t once = TKRT_DYLIB_ONCE_INIT;
  caller_t callers[THREADS];
  atomic_store(&g_loads, 0);
  ASSERT_TRUE(run_threads(&once, load_fails, callers));
  EXPECT_EQ_U64(atomic_load(&g_loads), 1);
  int ran = 0, loader = -1;
  for (int i = 0; i < THREADS; ++i) {
    if (callers[i].ran) {
      ++ran;
      loader = i;
    }
  }
  EXPECT_EQ_U64(ran, 1);
  ASSERT_TRUE(loader >= 0);
  /* Every caller: the loader's outcome, as a status of its own (freed one by one below). */
  char expected[64];
  snprintf(expected, sizeof(expected), "libvendor.so.%d not found", loader + 1);
  for (int i = 0; i < THREADS; ++i) {
    ASSERT_TRUE(callers[i].status != NULL);
    EXPECT_TRUE(i == 0 || callers[i].status != callers[0].status);
    EXPECT_STATUS(callers[i].status, TKRT_STATUS_UNAVAILABLE, expected);
  }
  EXPECT_TRUE(!tkrt_dylib_once_loaded(&once));
  EXPECT_STREQ(tkrt_dylib_once_message(&once), expected);
  /* Later calls do not load again, even with another load function. */
  bool again = true;
  EXPECT_STATUS(tkrt_dylib_once(&once, load_works, NULL, &again), TKRT_STATUS_UNAVAILABLE,
                expected);
  EXPECT_TRUE(!again);
  EXPECT_EQ_U64(atomic_load(&g_loads), 1);
}

static void success_is_kept(void) {
  static tkrt_dylib_once_t once = TKRT_DYLIB_ONCE_INIT;
  caller_t callers[THREADS];
  atomic_store(&g_loads, 0);
  EXPECT_TRUE(!tkrt_dylib_once_loaded(&once));
  ASSERT_TRUE(run_threads(&once, load_works, callers));
  EXPECT_EQ_U64(atomic_load(&g_loads), 1);
  int ran = 0;
  for (int i = 0; i < THREADS; ++i) {
    ran += callers[i].ran;
    EXPECT_TRUE(callers[i].status == NULL);
  }
  EXPECT_EQ_U64(ran, 1);
  EXPECT_TRUE(tkrt_dylib_once_loaded(&once));
  EXPECT_STREQ(tkrt_dylib_once_message(&once), "");
  EXPECT_OK(tkrt_dylib_once(&once, load_fails, NULL, NULL));
  EXPECT_EQ_U64(atomic_load(&g_loads), 1);
}

TKRT_TEST_MAIN(TKRT_TEST_CASE(failure_is_kept), TKRT_TEST_CASE(success_is_kept))
