/* SPDX-License-Identifier: Apache-2.0 */
/* The log (tkrt/log.h): levels filter before the sink, the sink receives level, component and
 * message, the default sink's line on stderr, level words, TKRT_LOG through
 * tkrt_options_from_environment (bad values refused naming the variable), the device option's old
 * meaning, and sink swaps while other threads log (run under TSan in CI: tsan preset). */
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <unistd.h>

#include "test/harness.h"
#include "test/stderr_capture.h"
#include "tkrt/tkrt.h"

/* ---------------------------------------------------------------- a recording sink */

typedef struct record {
  int count;
  tkrt_log_level_t level;
  char component[32];
  char message[4096];
} record_t;

static void record_sink(void* user, tkrt_log_level_t level, const char* component,
                        const char* message) {
  record_t* r = user;
  ++r->count;
  r->level = level;
  snprintf(r->component, sizeof(r->component), "%s", component);
  snprintf(r->message, sizeof(r->message), "%s", message);
}

/* ---------------------------------------------------------------- cases */

static void test_default_level_is_warn(void) {
  /* The first case: nothing has set the level yet (CTest runs the program without TKRT_LOG). */
  if (getenv("TKRT_LOG")) TKRT_TEST_SKIP("TKRT_LOG is set in this environment");
  EXPECT_EQ_U64(tkrt_log_get_level(), TKRT_LOG_WARN);
}

static void test_levels_filter_before_the_sink(void) {
  record_t r = {0};
  ASSERT_OK(tkrt_log_set_sink(record_sink, &r));
  ASSERT_OK(tkrt_log_set_level(TKRT_LOG_INFO));
  tkrt_log_message(TKRT_LOG_DEBUG, "cuda", "below the level %d", 1);
  EXPECT_EQ_U64(r.count, 0);
  tkrt_log_message(TKRT_LOG_INFO, "cuda", "at the level %d", 2);
  EXPECT_EQ_U64(r.count, 1);
  EXPECT_EQ_U64(r.level, TKRT_LOG_INFO);
  EXPECT_STREQ(r.component, "cuda");
  EXPECT_STREQ(r.message, "at the level 2");
  tkrt_log_message(TKRT_LOG_ERROR, "tune", "above the level: %s", "x");
  EXPECT_EQ_U64(r.count, 2);
  EXPECT_EQ_U64(r.level, TKRT_LOG_ERROR);
  EXPECT_STREQ(r.component, "tune");
  EXPECT_STREQ(r.message, "above the level: x");

  ASSERT_OK(tkrt_log_set_level(TKRT_LOG_OFF));
  tkrt_log_message(TKRT_LOG_ERROR, "tune", "off drops errors too");
  EXPECT_EQ_U64(r.count, 2);
  ASSERT_OK(tkrt_log_set_level(TKRT_LOG_DEBUG));
  tkrt_log_message(TKRT_LOG_DEBUG, "hip", "debug passes debug");
  EXPECT_EQ_U64(r.count, 3);
  /* Not message levels: dropped whatever the threshold. */
  tkrt_log_message(TKRT_LOG_OFF, "hip", "off is no message level");
  tkrt_log_message((tkrt_log_level_t)7, "hip", "nor is 7");
  tkrt_log_message(TKRT_LOG_ERROR, NULL, "no component");
  EXPECT_EQ_U64(r.count, 3);
  ASSERT_OK(tkrt_log_set_sink(NULL, NULL));
  ASSERT_OK(tkrt_log_set_level(TKRT_LOG_WARN));
}

static void test_long_message_is_cut(void) {
  record_t r = {0};
  ASSERT_OK(tkrt_log_set_sink(record_sink, &r));
  char big[5000];
  memset(big, 'a', sizeof(big) - 1);
  big[sizeof(big) - 1] = '\0';
  tkrt_log_message(TKRT_LOG_WARN, "tune", "%s", big);
  EXPECT_EQ_U64(r.count, 1);
  EXPECT_EQ_U64(strlen(r.message), 2047);
  EXPECT_STREQ(r.message + 2044, "...");
  ASSERT_OK(tkrt_log_set_sink(NULL, NULL));
}

static void test_default_sink_writes_one_line(void) {
  ASSERT_OK(tkrt_log_set_sink(NULL, NULL));
  ASSERT_OK(tkrt_log_set_level(TKRT_LOG_INFO));
  ASSERT_TRUE(capture_stderr_begin());
  tkrt_log_message(TKRT_LOG_WARN, "cuda", "PTX cache not used: %s", "why");
  tkrt_log_message(TKRT_LOG_INFO, "host", "device %d", 0);
  tkrt_log_message(TKRT_LOG_DEBUG, "host", "filtered");
  tkrt_log_message(TKRT_LOG_ERROR, "xla", "failed");
  char* text = capture_stderr_end();
  ASSERT_TRUE(text != NULL);
  EXPECT_STREQ(text,
               "tkrt: cuda: warning: PTX cache not used: why\n"
               "tkrt: host: info: device 0\n"
               "tkrt: xla: error: failed\n");
  free(text);
  ASSERT_OK(tkrt_log_set_level(TKRT_LOG_WARN));
}

static void test_level_words(void) {
  static const struct {
    const char* text;
    tkrt_log_level_t level;
  } words[] = {
      {"off", TKRT_LOG_OFF},     {"OFF", TKRT_LOG_OFF},     {"error", TKRT_LOG_ERROR},
      {"Error", TKRT_LOG_ERROR}, {"warn", TKRT_LOG_WARN},   {"WARNING", TKRT_LOG_WARN},
      {"info", TKRT_LOG_INFO},   {"DEBUG", TKRT_LOG_DEBUG}, {"debug", TKRT_LOG_DEBUG},
      {"0", TKRT_LOG_OFF},       {"false", TKRT_LOG_OFF},   {"No", TKRT_LOG_OFF},
      {"none", TKRT_LOG_OFF},    {"1", TKRT_LOG_DEBUG},     {"on", TKRT_LOG_DEBUG},
      {"TRUE", TKRT_LOG_DEBUG},  {"yes", TKRT_LOG_DEBUG},
  };
  for (size_t i = 0; i < sizeof(words) / sizeof(words[0]); ++i) {
    tkrt_log_level_t level = (tkrt_log_level_t)99;
    EXPECT_OK(tkrt_log_level_from_string(words[i].text, &level));
    if (level != words[i].level) {
      TKRT_TEST_FAIL_("'%s' read as %d, expected %d", words[i].text, (int)level,
                      (int)words[i].level);
    }
  }
  tkrt_log_level_t level = TKRT_LOG_INFO;
  EXPECT_STATUS(tkrt_log_level_from_string("foo", &level), TKRT_STATUS_INVALID_ARGUMENT, "'foo'");
  EXPECT_STATUS(tkrt_log_level_from_string("", &level), TKRT_STATUS_INVALID_ARGUMENT, "''");
  EXPECT_STATUS(tkrt_log_level_from_string("2", &level), TKRT_STATUS_INVALID_ARGUMENT,
                "off, error, warn, info, debug");
  EXPECT_STATUS(tkrt_log_level_from_string("debug ", &level), TKRT_STATUS_INVALID_ARGUMENT, NULL);
  EXPECT_STATUS(tkrt_log_level_from_string(NULL, &level), TKRT_STATUS_INVALID_ARGUMENT, NULL);
  EXPECT_STATUS(tkrt_log_level_from_string("off", NULL), TKRT_STATUS_INVALID_ARGUMENT, NULL);
  EXPECT_EQ_U64(level, TKRT_LOG_INFO); /* untouched by failures */
  EXPECT_STREQ(tkrt_log_level_name(TKRT_LOG_WARN), "warn");
  EXPECT_STREQ(tkrt_log_level_name(TKRT_LOG_DEBUG), "debug");
  EXPECT_STREQ(tkrt_log_level_name((tkrt_log_level_t)9), "unknown");
}

static void test_set_level_refuses_non_levels(void) {
  ASSERT_OK(tkrt_log_set_level(TKRT_LOG_ERROR));
  EXPECT_STATUS(tkrt_log_set_level((tkrt_log_level_t)5), TKRT_STATUS_INVALID_ARGUMENT, "5");
  EXPECT_STATUS(tkrt_log_set_level((tkrt_log_level_t)-1), TKRT_STATUS_INVALID_ARGUMENT, "-1");
  EXPECT_EQ_U64(tkrt_log_get_level(), TKRT_LOG_ERROR);
  ASSERT_OK(tkrt_log_set_level(TKRT_LOG_WARN));
}

/* TKRT_LOG through tkrt_options_from_environment, as the CLI, libtkrt_xla and Python read it. */
static void test_environment_sets_the_level(void) {
  static const struct {
    const char* value;
    tkrt_log_level_t level;
  } cases[] = {
      {"off", TKRT_LOG_OFF},   {"DEBUG", TKRT_LOG_DEBUG}, {"Warn", TKRT_LOG_WARN},
      {"error", TKRT_LOG_ERROR}, {"info", TKRT_LOG_INFO}, {"0", TKRT_LOG_OFF},
      {"1", TKRT_LOG_DEBUG},   {"false", TKRT_LOG_OFF},   {"on", TKRT_LOG_DEBUG},
  };
  for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); ++i) {
    ASSERT_OK(tkrt_log_set_level(cases[i].level == TKRT_LOG_WARN ? TKRT_LOG_ERROR : TKRT_LOG_WARN));
    setenv("TKRT_LOG", cases[i].value, 1);
    tkrt_device_options_t options;
    tkrt_device_options_init(&options);
    EXPECT_OK(tkrt_options_from_environment(&options, NULL));
    if (tkrt_log_get_level() != cases[i].level) {
      TKRT_TEST_FAIL_("TKRT_LOG=%s gave level %d, expected %d", cases[i].value,
                      (int)tkrt_log_get_level(), (int)cases[i].level);
    }
    EXPECT_TRUE(!options.log); /* the level is the setting; the old option is left alone */
  }
  /* Also with no options to fill: the level is the process's. */
  setenv("TKRT_LOG", "info", 1);
  EXPECT_OK(tkrt_options_from_environment(NULL, NULL));
  EXPECT_EQ_U64(tkrt_log_get_level(), TKRT_LOG_INFO);
  /* Unset or empty: the level stays. */
  unsetenv("TKRT_LOG");
  EXPECT_OK(tkrt_options_from_environment(NULL, NULL));
  EXPECT_EQ_U64(tkrt_log_get_level(), TKRT_LOG_INFO);
  setenv("TKRT_LOG", "", 1);
  EXPECT_OK(tkrt_options_from_environment(NULL, NULL));
  EXPECT_EQ_U64(tkrt_log_get_level(), TKRT_LOG_INFO);
  unsetenv("TKRT_LOG");
  ASSERT_OK(tkrt_log_set_level(TKRT_LOG_WARN));
}

static void test_environment_refuses_bad_values(void) {
  static const char* const bad[] = {"foo", "loud", "2", "debug2", "warn,info", " info"};
  for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); ++i) {
    ASSERT_OK(tkrt_log_set_level(TKRT_LOG_ERROR));
    setenv("TKRT_LOG", bad[i], 1);
    setenv("TKRT_BACKEND", "host", 1);
    tkrt_device_options_t options;
    tkrt_device_options_init(&options);
    char expected[64];
    snprintf(expected, sizeof(expected), "TKRT_LOG is '%s'", bad[i]);
    EXPECT_STATUS(tkrt_options_from_environment(&options, NULL), TKRT_STATUS_INVALID_ARGUMENT,
                  expected);
    /* Nothing is written: not the options, not the level. */
    EXPECT_TRUE(options.backend == NULL);
    EXPECT_EQ_U64(tkrt_log_get_level(), TKRT_LOG_ERROR);
  }
  unsetenv("TKRT_LOG");
  unsetenv("TKRT_BACKEND");
  ASSERT_OK(tkrt_log_set_level(TKRT_LOG_WARN));
}

/* ---------------------------------------------------------------- inside a sink */

typedef struct reentrant {
  int calls;
  tkrt_status_code_t swap_code;
} reentrant_t;

static void reentrant_sink(void* user, tkrt_log_level_t level, const char* component,
                           const char* message) {
  (void)level;
  (void)component;
  (void)message;
  reentrant_t* r = user;
  ++r->calls;
  r->swap_code = tkrt_status_consume_code(tkrt_log_set_sink(NULL, NULL));
  /* Logged from inside the sink: to stderr, not back into this sink. */
  tkrt_log_message(TKRT_LOG_WARN, "test", "from inside the sink");
}

static void test_inside_a_sink(void) {
  reentrant_t r = {0};
  ASSERT_OK(tkrt_log_set_sink(reentrant_sink, &r));
  ASSERT_TRUE(capture_stderr_begin());
  tkrt_log_message(TKRT_LOG_WARN, "test", "outer");
  char* text = capture_stderr_end();
  EXPECT_EQ_U64(r.calls, 1);
  EXPECT_EQ_U64(r.swap_code, TKRT_STATUS_FAILED_PRECONDITION);
  EXPECT_STREQ(text, "tkrt: test: warning: from inside the sink\n");
  free(text);
  ASSERT_OK(tkrt_log_set_sink(NULL, NULL));
}

/* ---------------------------------------------------------------- the device option */

static void test_device_option_log_means_debug(void) {
  record_t r = {0};
  ASSERT_OK(tkrt_log_set_sink(record_sink, &r));
  ASSERT_OK(tkrt_log_set_level(TKRT_LOG_WARN));
  tkrt_device_options_t options;
  tkrt_device_options_init(&options);
  options.backend = "host";
  options.log = true;
  tkrt_device_t* device = NULL;
  tkrt_status_t status = tkrt_device_open(&options, &device);
  if (status && tkrt_status_code(status) == TKRT_STATUS_UNAVAILABLE) {
    tkrt_status_free(status);
    ASSERT_OK(tkrt_log_set_sink(NULL, NULL));
    TKRT_TEST_SKIP("no host backend in this build");
  }
  ASSERT_OK(status);
  EXPECT_EQ_U64(tkrt_log_get_level(), TKRT_LOG_DEBUG);
  /* The host backend says what it opened, at info. */
  EXPECT_EQ_U64(r.count, 1);
  EXPECT_EQ_U64(r.level, TKRT_LOG_INFO);
  EXPECT_STREQ(r.component, "host");
  EXPECT_TRUE(strncmp(r.message, "device 0: host ", 15) == 0);
  tkrt_device_release(device);
  /* false leaves the level alone, and a higher level is never lowered. */
  options.log = false;
  ASSERT_OK(tkrt_log_set_level(TKRT_LOG_ERROR));
  ASSERT_OK(tkrt_device_open(&options, &device));
  EXPECT_EQ_U64(tkrt_log_get_level(), TKRT_LOG_ERROR);
  EXPECT_EQ_U64(r.count, 1);
  tkrt_device_release(device);
  ASSERT_OK(tkrt_log_set_sink(NULL, NULL));
  ASSERT_OK(tkrt_log_set_level(TKRT_LOG_WARN));
}

/* ---------------------------------------------------------------- swaps under threads */

enum { SWAP_THREADS = 4, SWAPS = 3000, SINKS = 3 };

typedef struct swap_sink {
  int kind;              /* which function this `user` belongs with */
  atomic_int retired;    /* set once a swap away from it returned */
  atomic_long calls;
  atomic_long late;      /* calls running after the swap away from it returned */
  atomic_long mismatched; /* called through the other function */
} swap_sink_t;

/* A sink that takes a while, and notices when the swap away from it returned while it ran. */
static void swap_sink_work(swap_sink_t* s) {
  for (int i = 0; i < 3; ++i) sched_yield();
  if (atomic_load(&s->retired)) atomic_fetch_add(&s->late, 1);
}

static void swap_sink_a(void* user, tkrt_log_level_t level, const char* component,
                        const char* message) {
  (void)level;
  (void)component;
  (void)message;
  swap_sink_t* s = user;
  if (atomic_load(&s->retired)) atomic_fetch_add(&s->late, 1);
  if (s->kind != 0) atomic_fetch_add(&s->mismatched, 1);
  atomic_fetch_add(&s->calls, 1);
  swap_sink_work(s);
}

static void swap_sink_b(void* user, tkrt_log_level_t level, const char* component,
                        const char* message) {
  (void)level;
  (void)component;
  (void)message;
  swap_sink_t* s = user;
  if (atomic_load(&s->retired)) atomic_fetch_add(&s->late, 1);
  if (s->kind != 1) atomic_fetch_add(&s->mismatched, 1);
  atomic_fetch_add(&s->calls, 1);
  swap_sink_work(s);
}

static atomic_int g_swap_stop;
static atomic_long g_swap_sent;

static void* swap_logger(void* arg) {
  (void)arg;
  long sent = 0;
  while (!atomic_load(&g_swap_stop)) {
    tkrt_log_message(TKRT_LOG_WARN, "test", "message %ld", sent);
    ++sent;
  }
  atomic_fetch_add(&g_swap_sent, sent);
  return NULL;
}

static void test_sink_swap_under_threads(void) {
  ASSERT_OK(tkrt_log_set_level(TKRT_LOG_WARN));
  /* Each round's sink is fresh: a retired one must never be called again. */
  swap_sink_t* sinks = calloc(SWAPS, sizeof(*sinks));
  ASSERT_TRUE(sinks != NULL);
  for (int i = 0; i < SWAPS; ++i) sinks[i].kind = i % 2;
  ASSERT_OK(tkrt_log_set_sink(swap_sink_a, &sinks[0]));
  atomic_store(&g_swap_stop, 0);
  atomic_store(&g_swap_sent, 0);
  pthread_t threads[SWAP_THREADS];
  for (int t = 0; t < SWAP_THREADS; ++t) pthread_create(&threads[t], NULL, swap_logger, NULL);
  while (atomic_load(&sinks[0].calls) < 100) sched_yield(); /* messages are flowing */
  for (int i = 1; i < SWAPS; ++i) {
    EXPECT_OK(tkrt_log_set_sink(i % 2 ? swap_sink_b : swap_sink_a, &sinks[i]));
    atomic_store(&sinks[i - 1].retired, 1);
  }
  atomic_store(&g_swap_stop, 1);
  for (int t = 0; t < SWAP_THREADS; ++t) pthread_join(threads[t], NULL);
  ASSERT_OK(tkrt_log_set_sink(NULL, NULL));
  atomic_store(&sinks[SWAPS - 1].retired, 1);
  long delivered = 0, late = 0, mismatched = 0;
  for (int i = 0; i < SWAPS; ++i) {
    delivered += atomic_load(&sinks[i].calls);
    late += atomic_load(&sinks[i].late);
    mismatched += atomic_load(&sinks[i].mismatched);
  }
  /* Every message reached exactly one sink, never a retired one, always with its own user. */
  EXPECT_EQ_U64(delivered, atomic_load(&g_swap_sent));
  EXPECT_EQ_U64(late, 0);
  EXPECT_EQ_U64(mismatched, 0);
  EXPECT_TRUE(delivered > 0);
  fprintf(stderr, "  %ld messages over %d sink swaps\n", delivered, SWAPS);
  free(sinks);
}

/* ---------------------------------------------------------------- queued delivery */

/* The embedder's "GIL" of these cases: a mutex, and whether this thread holds it (the `direct`
 * predicate, as Python passes PyGILState_Check). */
static pthread_mutex_t g_gil = PTHREAD_MUTEX_INITIALIZER;
static _Thread_local int g_holds_gil;

static int holds_gil(void) { return g_holds_gil; }

typedef struct ordered {
  pthread_mutex_t lock;
  int count;
  int holder_calls; /* calls made on a thread that held the "GIL" */
  char last[64];
  long numbers[256];
} ordered_t;

/* A sink that, like Python's, needs the "GIL": it takes it unless this thread holds it. */
static void gil_sink(void* user, tkrt_log_level_t level, const char* component,
                     const char* message) {
  (void)level;
  (void)component;
  ordered_t* o = user;
  int mine = g_holds_gil;
  if (!mine) pthread_mutex_lock(&g_gil);
  pthread_mutex_lock(&o->lock);
  if (o->count < 256) o->numbers[o->count] = strtol(message + strcspn(message, "0123456789"), NULL, 10);
  ++o->count;
  o->holder_calls += mine;
  snprintf(o->last, sizeof(o->last), "%s", message);
  pthread_mutex_unlock(&o->lock);
  if (!mine) pthread_mutex_unlock(&g_gil);
}

static void* log_numbers(void* arg) {
  long first = (long)(intptr_t)arg;
  for (long i = first; i < first + 10; ++i) tkrt_log_message(TKRT_LOG_WARN, "test", "number %ld", i);
  return NULL;
}

static void test_queued_sink_direct_and_queued(void) {
  ordered_t o = {.lock = PTHREAD_MUTEX_INITIALIZER};
  ASSERT_OK(tkrt_log_set_level(TKRT_LOG_WARN));
  ASSERT_OK(tkrt_log_set_queued_sink(gil_sink, &o, holds_gil, 64));
  /* On a thread that holds the "GIL": delivered at once, on that thread. */
  pthread_mutex_lock(&g_gil);
  g_holds_gil = 1;
  tkrt_log_message(TKRT_LOG_WARN, "test", "number %d", 1000);
  EXPECT_EQ_U64(o.count, 1);
  EXPECT_EQ_U64(o.holder_calls, 1);
  /* The shape that deadlocked (issue 31, E2): the holder waits for a thread that logs. The
   * thread's messages are queued, so the join returns. */
  pthread_t t;
  ASSERT_TRUE(pthread_create(&t, NULL, log_numbers, (void*)(intptr_t)0) == 0);
  pthread_join(t, NULL);
  EXPECT_EQ_U64(o.count, 1);
  EXPECT_EQ_U64(tkrt_log_queued(), 10);
  g_holds_gil = 0;
  pthread_mutex_unlock(&g_gil);
  /* Drained on another thread (the embedder's), in order. */
  EXPECT_EQ_U64(tkrt_log_drain(0), 10);
  EXPECT_EQ_U64(o.count, 11);
  for (int i = 0; i < 10; ++i) EXPECT_EQ_U64(o.numbers[1 + i], i);
  EXPECT_EQ_U64(tkrt_log_drain(0), 0);
  /* Queued messages left at a swap go to their sink before the swap returns. */
  ASSERT_TRUE(pthread_create(&t, NULL, log_numbers, (void*)(intptr_t)20) == 0);
  pthread_join(t, NULL);
  EXPECT_EQ_U64(tkrt_log_queued(), 10);
  ASSERT_OK(tkrt_log_set_sink(NULL, NULL));
  EXPECT_EQ_U64(tkrt_log_queued(), 0);
  EXPECT_EQ_U64(o.count, 21);
  EXPECT_STREQ(o.last, "number 29");
  /* A drain with a timeout and nothing queued returns after it. */
  EXPECT_EQ_U64(tkrt_log_drain(20), 0);
}

static void test_queued_sink_full_queue(void) {
  ordered_t o = {.lock = PTHREAD_MUTEX_INITIALIZER};
  ASSERT_OK(tkrt_log_set_level(TKRT_LOG_WARN));
  ASSERT_OK(tkrt_log_set_queued_sink(gil_sink, &o, NULL, 4));
  for (int i = 0; i < 10; ++i) tkrt_log_message(TKRT_LOG_WARN, "test", "number %d", i);
  EXPECT_EQ_U64(o.count, 0); /* NULL direct: everything is queued */
  EXPECT_EQ_U64(tkrt_log_drain(0), 5);
  /* The count of dropped messages first, then the four that fit. */
  EXPECT_EQ_U64(o.numbers[0], 6);
  for (int i = 0; i < 4; ++i) EXPECT_EQ_U64(o.numbers[1 + i], i);
  EXPECT_STREQ(o.last, "number 3");
  EXPECT_STATUS(tkrt_log_set_queued_sink(NULL, NULL, NULL, 4), TKRT_STATUS_INVALID_ARGUMENT,
                "no sink");
  EXPECT_STATUS(tkrt_log_set_queued_sink(gil_sink, &o, NULL, 0), TKRT_STATUS_INVALID_ARGUMENT,
                "capacity");
  EXPECT_STATUS(tkrt_log_set_queued_sink(gil_sink, &o, NULL, TKRT_LOG_QUEUE_MAX + 1),
                TKRT_STATUS_INVALID_ARGUMENT, "capacity");
  ASSERT_OK(tkrt_log_set_sink(NULL, NULL));
}

static atomic_int g_drain_stop;

static void* drainer(void* arg) {
  (void)arg;
  while (!atomic_load(&g_drain_stop)) tkrt_log_drain(5);
  return NULL;
}

static void test_queued_sink_swaps_under_threads(void) {
  /* As test_sink_swap_under_threads, with queued routes between the plain swaps and two
   * drainers: every message reaches exactly one sink, never one whose swap away returned. */
  ASSERT_OK(tkrt_log_set_level(TKRT_LOG_WARN));
  enum { QSWAPS = 60 };
  swap_sink_t* sinks = calloc(QSWAPS, sizeof(*sinks));
  ASSERT_TRUE(sinks != NULL);
  for (int i = 0; i < QSWAPS; ++i) sinks[i].kind = i % 2;
  ASSERT_OK(tkrt_log_set_queued_sink(swap_sink_a, &sinks[0], NULL, 16));
  atomic_store(&g_swap_stop, 0);
  atomic_store(&g_swap_sent, 0);
  atomic_store(&g_drain_stop, 0);
  pthread_t threads[SWAP_THREADS], drains[2];
  for (int t = 0; t < SWAP_THREADS; ++t) pthread_create(&threads[t], NULL, swap_logger, NULL);
  for (int t = 0; t < 2; ++t) pthread_create(&drains[t], NULL, drainer, NULL);
  while (atomic_load(&sinks[0].calls) < 100) sched_yield();
  for (int i = 1; i < QSWAPS; ++i) {
    tkrt_log_fn fn = i % 2 ? swap_sink_b : swap_sink_a;
    if (i % 3 == 0) EXPECT_OK(tkrt_log_set_sink(fn, &sinks[i]));
    else EXPECT_OK(tkrt_log_set_queued_sink(fn, &sinks[i], NULL, i % 5 ? 16 : 8));
    atomic_store(&sinks[i - 1].retired, 1);
  }
  atomic_store(&g_swap_stop, 1);
  for (int t = 0; t < SWAP_THREADS; ++t) pthread_join(threads[t], NULL);
  atomic_store(&g_drain_stop, 1);
  for (int t = 0; t < 2; ++t) pthread_join(drains[t], NULL);
  ASSERT_OK(tkrt_log_set_sink(NULL, NULL));
  atomic_store(&sinks[QSWAPS - 1].retired, 1);
  long delivered = 0, late = 0, mismatched = 0;
  for (int i = 0; i < QSWAPS; ++i) {
    delivered += atomic_load(&sinks[i].calls);
    late += atomic_load(&sinks[i].late);
    mismatched += atomic_load(&sinks[i].mismatched);
  }
  /* Full rings drop (and the drop reports are messages of their own): delivered counts both. */
  EXPECT_TRUE(delivered > 0);
  EXPECT_EQ_U64(late, 0);
  EXPECT_EQ_U64(mismatched, 0);
  EXPECT_EQ_U64(tkrt_log_queued(), 0);
  fprintf(stderr, "  %ld of %ld messages over %d queued and plain swaps\n", delivered,
          atomic_load(&g_swap_sent), QSWAPS);
  free(sinks);
}

TKRT_TEST_MAIN(TKRT_TEST_CASE(test_default_level_is_warn),
               TKRT_TEST_CASE(test_levels_filter_before_the_sink),
               TKRT_TEST_CASE(test_long_message_is_cut),
               TKRT_TEST_CASE(test_default_sink_writes_one_line),
               TKRT_TEST_CASE(test_level_words),
               TKRT_TEST_CASE(test_set_level_refuses_non_levels),
               TKRT_TEST_CASE(test_environment_sets_the_level),
               TKRT_TEST_CASE(test_environment_refuses_bad_values),
               TKRT_TEST_CASE(test_inside_a_sink),
               TKRT_TEST_CASE(test_device_option_log_means_debug),
               TKRT_TEST_CASE(test_sink_swap_under_threads),
               TKRT_TEST_CASE(test_queued_sink_direct_and_queued),
               TKRT_TEST_CASE(test_queued_sink_full_queue),
               TKRT_TEST_CASE(test_queued_sink_swaps_under_threads))
