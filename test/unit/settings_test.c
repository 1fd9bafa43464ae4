/* SPDX-License-Identifier: Apache-2.0 */
/* The settings table (tkrt/settings.h): every setting is well formed and found by its name and
 * variable; every on/off setting reads the same words the same way, in any case, and refuses
 * others naming the setting and the value; words, numbers and name lists by the table's rules;
 * tkrt_setting_apply maps onto the option structs and restores defaults; the environment reader
 * follows the table (TKRT_TUNE_POLICY in any case, a bad value changes nothing). */
#include <math.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "test/harness.h"
#include "tkrt/tkrt.h"

static void test_table_is_well_formed(void) {
  EXPECT_TRUE(tkrt_setting_count() >= 16);
  EXPECT_TRUE(tkrt_setting_at(tkrt_setting_count()) == NULL);
  for (size_t i = 0; i < tkrt_setting_count(); ++i) {
    const tkrt_setting_t* s = tkrt_setting_at(i);
    EXPECT_TRUE(s->name && *s->name && s->doc && *s->doc && s->expected && s->default_text);
    EXPECT_TRUE(s->scopes != 0);
    EXPECT_TRUE((s->type == TKRT_SETTING_WORD) == (s->words != NULL));
    if (s->env) {
      EXPECT_TRUE(tkrt_setting_find(s->env, 0) == s); /* variables are unique */
      EXPECT_TRUE(tkrt_setting_find(s->name, s->scopes) != NULL);
    }
    for (size_t j = 0; j < i; ++j) {
      const tkrt_setting_t* o = tkrt_setting_at(j);
      /* A name repeats only across scopes (backend: TKRT_BACKEND and TKRT_XLA_BACKEND). */
      EXPECT_TRUE(strcmp(o->name, s->name) != 0 || !(o->scopes & s->scopes));
      EXPECT_TRUE(!s->cli_flag || !o->cli_flag || strcmp(o->cli_flag, s->cli_flag) != 0);
    }
    EXPECT_OK(tkrt_setting_check(s->name, NULL)); /* unset is fine */
    EXPECT_OK(tkrt_setting_check(s->name, ""));
  }
  EXPECT_TRUE(tkrt_setting_find("backend", TKRT_SETTING_SCOPE_XLA) ==
              tkrt_setting_find("TKRT_XLA_BACKEND", 0));
  EXPECT_TRUE(tkrt_setting_find("backend", TKRT_SETTING_SCOPE_CLI) ==
              tkrt_setting_find("TKRT_BACKEND", 0));
  EXPECT_STATUS(tkrt_setting_check("no_such_setting", "1"), TKRT_STATUS_NOT_FOUND,
                "no_such_setting");
}

static void test_switches_read_the_same_words(void) {
  static const char* const on[] = {"1", "on", "ON", "yes", "Yes", "true", "TRUE"};
  static const char* const off[] = {"0", "off", "Off", "no", "NO", "false", "False"};
  static const char* const bad[] = {"maybe", "2", "onn", " on", "none"};
  size_t switches = 0;
  for (size_t i = 0; i < tkrt_setting_count(); ++i) {
    const tkrt_setting_t* s = tkrt_setting_at(i);
    if (s->type != TKRT_SETTING_SWITCH) continue;
    ++switches;
    tkrt_setting_value_t v;
    for (size_t w = 0; w < sizeof(on) / sizeof(on[0]); ++w) {
      EXPECT_OK(tkrt_setting_read(s->name, s->scopes, on[w], &v));
      EXPECT_TRUE(v.set && v.on);
      EXPECT_OK(tkrt_setting_read(s->name, s->scopes, off[w], &v));
      EXPECT_TRUE(v.set && !v.on);
    }
    for (size_t w = 0; w < sizeof(bad) / sizeof(bad[0]); ++w) {
      char needle[128];
      snprintf(needle, sizeof(needle), "%s is '%s'; expected on or off", s->env, bad[w]);
      EXPECT_STATUS(tkrt_setting_check(s->env, bad[w]), TKRT_STATUS_INVALID_ARGUMENT, needle);
    }
  }
  EXPECT_TRUE(switches >= 2); /* TKRT_TRUST_SHARED_STORES, TKRT_XLA_COUNT_CAPTURES */
}

static void test_values_by_type(void) {
  tkrt_setting_value_t v;
  EXPECT_OK(tkrt_setting_read("tune_policy", 0, "NEVER", &v));
  EXPECT_TRUE(v.word == 1);
  EXPECT_STATUS(tkrt_setting_check("TKRT_TUNE_POLICY", "sometimes"), TKRT_STATUS_INVALID_ARGUMENT,
                "TKRT_TUNE_POLICY is 'sometimes'; expected auto or never");
  EXPECT_OK(tkrt_setting_check("capture_policy", "First_Config"));
  EXPECT_OK(tkrt_setting_read("TKRT_HOST_THREADS", 0, "256", &v));
  EXPECT_TRUE(v.integer == 256);
  EXPECT_STATUS(tkrt_setting_check("TKRT_HOST_THREADS", "257"), TKRT_STATUS_INVALID_ARGUMENT,
                "TKRT_HOST_THREADS is '257'");
  EXPECT_STATUS(tkrt_setting_check("host_threads", "4x"), TKRT_STATUS_INVALID_ARGUMENT,
                "host_threads is '4x'");
  /* One rule for an integer, whichever side a blank is on or what sign it has (issue 31, E16). */
  static const char* const not_integers[] = {" 4", "4 ", "+4", "\t4", "0x4", "4.0", "-", ""};
  for (size_t i = 0; i + 1 < sizeof(not_integers) / sizeof(not_integers[0]); ++i) {
    EXPECT_STATUS(tkrt_setting_check("TKRT_HOST_THREADS", not_integers[i]),
                  TKRT_STATUS_INVALID_ARGUMENT, "expected a thread count from 1 to 256");
  }
  static const char* const not_numbers[] = {" 1", "1 ", "+1", "0x1p3", "1e", ".", "-"};
  for (size_t i = 0; i < sizeof(not_numbers) / sizeof(not_numbers[0]); ++i) {
    EXPECT_STATUS(tkrt_setting_check("tune_prune_margin", not_numbers[i]),
                  TKRT_STATUS_INVALID_ARGUMENT, "expected a number");
  }
  EXPECT_OK(tkrt_setting_read("tune_prune_margin", 0, ".5", &v));
  EXPECT_OK(tkrt_setting_read("target_ms", 0, "2e3", &v));
  EXPECT_TRUE(v.number == 2000.0);
  EXPECT_OK(tkrt_setting_read("tune_prune_margin", 0, "-1.5", &v));
  EXPECT_TRUE(v.number == -1.5);
  EXPECT_STATUS(tkrt_setting_check("tune_prune_margin", "inf"), TKRT_STATUS_INVALID_ARGUMENT, NULL);
  EXPECT_STATUS(tkrt_setting_check("tune_prune_margin", "nan"), TKRT_STATUS_INVALID_ARGUMENT, NULL);
  EXPECT_OK(tkrt_setting_read("TKRT_LOG", 0, "Info", &v));
  EXPECT_TRUE(v.level == TKRT_LOG_INFO);
  EXPECT_STATUS(tkrt_setting_check("TKRT_LOG", "loud"), TKRT_STATUS_INVALID_ARGUMENT,
                "TKRT_LOG is 'loud'");
  EXPECT_OK(tkrt_setting_check("TKRT_BACKEND", "host"));
  EXPECT_OK(tkrt_setting_check("TKRT_BACKEND", "cuda, host"));
  static const char* const lists[] = {",", "host,", ",host", "cuda,,host", " , "};
  for (size_t i = 0; i < sizeof(lists) / sizeof(lists[0]); ++i) {
    EXPECT_STATUS(tkrt_setting_check("TKRT_BACKEND", lists[i]), TKRT_STATUS_INVALID_ARGUMENT,
                  "none empty");
  }
}

static void test_apply_maps_and_restores(void) {
  tkrt_device_options_t device;
  tkrt_autotuner_options_t tuner, defaults;
  tkrt_device_options_init(&device);
  tkrt_autotuner_options_init(&tuner);
  tkrt_autotuner_options_init(&defaults);
  EXPECT_OK(tkrt_setting_apply("tune_policy", "Never", 0, &device, &tuner));
  EXPECT_TRUE(tuner.policy == TKRT_TUNE_POLICY_NEVER);
  EXPECT_OK(tkrt_setting_apply("TKRT_TUNE_PRUNE_MARGIN", "0.5", 0, &device, &tuner));
  EXPECT_TRUE(tuner.prune_margin == 0.5);
  EXPECT_OK(tkrt_setting_apply("capture_policy", "error", 0, NULL, &tuner));
  EXPECT_TRUE(tuner.capture_policy == TKRT_CAPTURE_POLICY_ERROR);
  EXPECT_OK(tkrt_setting_apply("trust_shared_stores", "yes", 0, &device, &tuner));
  EXPECT_TRUE(device.trust_shared_cache && tuner.trust_shared_store);
  EXPECT_OK(tkrt_setting_apply("host_threads", "3", 0, &device, NULL));
  EXPECT_TRUE(device.host_threads == 3);
  EXPECT_OK(tkrt_setting_apply("target_ms", "2.5", TKRT_SETTING_SCOPE_CLI, NULL, &tuner));
  EXPECT_TRUE(tuner.target_ms == 2.5);
  /* A refused value changes nothing. */
  EXPECT_STATUS(tkrt_setting_apply("tune_policy", "sometimes", 0, &device, &tuner),
                TKRT_STATUS_INVALID_ARGUMENT, "tune_policy is 'sometimes'");
  EXPECT_TRUE(tuner.policy == TKRT_TUNE_POLICY_NEVER);
  /* Unset restores the default. */
  EXPECT_OK(tkrt_setting_apply("tune_policy", NULL, 0, &device, &tuner));
  EXPECT_OK(tkrt_setting_apply("tune_prune_margin", "", 0, &device, &tuner));
  EXPECT_OK(tkrt_setting_apply("target_ms", NULL, 0, &device, &tuner));
  EXPECT_TRUE(tuner.policy == defaults.policy && tuner.prune_margin == defaults.prune_margin &&
              tuner.target_ms == defaults.target_ms);
  /* A setting of another scope is not found in this one. */
  EXPECT_STATUS(tkrt_setting_apply("host_threads", "3", TKRT_SETTING_SCOPE_XLA, &device, NULL),
                TKRT_STATUS_NOT_FOUND, "host_threads");
}

static void test_environment_follows_the_table(void) {
  tkrt_autotuner_options_t tuner;
  tkrt_autotuner_options_init(&tuner);
  setenv("TKRT_TUNE_POLICY", "NEVER", 1);
  EXPECT_OK(tkrt_options_from_environment(NULL, &tuner));
  EXPECT_TRUE(tuner.policy == TKRT_TUNE_POLICY_NEVER);
  setenv("TKRT_XLA_COUNT_CAPTURES", "sometimes", 1); /* not the library's: not read */
  tkrt_autotuner_options_init(&tuner);
  setenv("TKRT_TUNE_PRUNE_MARGIN", "0.1x", 1);
  EXPECT_STATUS(tkrt_options_from_environment(NULL, &tuner), TKRT_STATUS_INVALID_ARGUMENT,
                "TKRT_TUNE_PRUNE_MARGIN is '0.1x'");
  EXPECT_TRUE(tuner.policy == TKRT_TUNE_POLICY_AUTO); /* nothing written */
  EXPECT_TRUE(tkrt_setting_environment("TKRT_XLA_COUNT_CAPTURES") != NULL &&
              strcmp(tkrt_setting_environment("count_captures"), "sometimes") == 0);
  unsetenv("TKRT_TUNE_POLICY");
  unsetenv("TKRT_TUNE_PRUNE_MARGIN");
  unsetenv("TKRT_XLA_COUNT_CAPTURES");
  EXPECT_TRUE(tkrt_setting_environment("TKRT_XLA_COUNT_CAPTURES") == NULL);
  EXPECT_TRUE(tkrt_setting_environment("NOT_A_SETTING") == NULL);
  /* A cache root too long for its cubin/ folder is refused naming the variable, never turned
   * into no cache; nothing is written. One byte shorter fits. */
  tkrt_device_options_t device;
  tkrt_device_options_init(&device);
  static char root[4096];
  memset(root, 'a', sizeof(root) - 1);
  root[0] = '/';
  root[4095 - 6 + 1] = '\0'; /* "<root>/cubin" is 4096 bytes: one too many */
  setenv("TKRT_CACHE_DIR", root, 1);
  setenv("TKRT_TUNE_POLICY", "NEVER", 1);
  tkrt_autotuner_options_init(&tuner);
  EXPECT_STATUS(tkrt_options_from_environment(&device, &tuner), TKRT_STATUS_INVALID_ARGUMENT,
                "TKRT_CACHE_DIR is too long");
  EXPECT_TRUE(device.cache_dir == NULL && tuner.policy == TKRT_TUNE_POLICY_AUTO);
  root[4095 - 6] = '\0';
  setenv("TKRT_CACHE_DIR", root, 1);
  EXPECT_OK(tkrt_options_from_environment(&device, &tuner));
  EXPECT_TRUE(device.cache_dir != NULL && strlen(device.cache_dir) == 4095);
  unsetenv("TKRT_CACHE_DIR");
  unsetenv("TKRT_TUNE_POLICY");
}

static bool count_visit(const char* path, const char* kernel, void* user) {
  (void)path, (void)kernel;
  ++*(int*)user;
  return true;
}

/* Triton's cache: TRITON_CACHE_DIR, else $TRITON_HOME/.triton/cache, else ~/.triton/cache, as
 * Triton finds it (read in core/environment.c). */
static void test_triton_cache_follows_triton(void) {
  int visits = 0;
  unsetenv("TRITON_CACHE_DIR");
  setenv("TRITON_HOME", "/nonexistent-tkrt-home", 1);
  EXPECT_STATUS(tkrt_triton_cache_scan(NULL, NULL, count_visit, &visits), TKRT_STATUS_NOT_FOUND,
                "/nonexistent-tkrt-home/.triton/cache");
  setenv("TRITON_CACHE_DIR", "/nonexistent-tkrt-cache", 1);
  EXPECT_STATUS(tkrt_triton_cache_scan(NULL, NULL, count_visit, &visits), TKRT_STATUS_NOT_FOUND,
                "/nonexistent-tkrt-cache");
  unsetenv("TRITON_CACHE_DIR");
  unsetenv("TRITON_HOME");
  EXPECT_TRUE(visits == 0);
}

TKRT_TEST_MAIN(TKRT_TEST_CASE(test_triton_cache_follows_triton),
               TKRT_TEST_CASE(test_table_is_well_formed),
               TKRT_TEST_CASE(test_switches_read_the_same_words),
               TKRT_TEST_CASE(test_values_by_type),
               TKRT_TEST_CASE(test_apply_maps_and_restores),
               TKRT_TEST_CASE(test_environment_follows_the_table))
