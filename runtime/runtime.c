/* SPDX-License-Identifier: Apache-2.0 */
/* tkrt runtime: the object, its settings (configure until frozen), its devices by (backend,
 * ordinal) in an atomic table, its tuner, and the process's default instance. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "runtime/runtime_internal.h"

static atomic_uint_fast64_t tkrt_runtime_next_id = 1;

void tkrt_runtime_options_init(tkrt_runtime_options_t* options) {
  memset(options, 0, sizeof(*options));
  options->struct_size = sizeof(*options);
  tkrt_device_options_init(&options->device);
  tkrt_autotuner_options_init(&options->tuner);
}

static void tkrt_runtime_copy(char* dst, size_t capacity, const char** field) {
  if (*field == dst) return;
  snprintf(dst, capacity, "%s", *field ? *field : "");
  *field = *field ? dst : NULL;
}

/* The runtime owns every string its settings point at. Called with `lock` held or before the
 * runtime is shared. */
static void tkrt_runtime_own_strings(tkrt_runtime_t* rt) {
  tkrt_runtime_copy(rt->backend, sizeof(rt->backend), &rt->device.backend);
  tkrt_runtime_copy(rt->cache_dir, sizeof(rt->cache_dir), &rt->device.cache_dir);
  tkrt_runtime_copy(rt->hip_library, sizeof(rt->hip_library), &rt->device.hip_library);
  tkrt_runtime_copy(rt->store_dir, sizeof(rt->store_dir), &rt->tuner.store_dir);
  tkrt_runtime_copy(rt->pins, sizeof(rt->pins), &rt->tuner.pins);
}

static tkrt_status_t tkrt_runtime_check_string(const char* what, const char* value, size_t capacity) {
  if (value && strlen(value) >= capacity) {
    return TKRT_STATUS_MAKE(TKRT_STATUS_INVALID_ARGUMENT, "%s is %zu bytes long; at most %zu",
                            what, strlen(value), capacity - 1);
  }
  return NULL;
}

/* Every string must fit the runtime's own copy (tkrt_runtime_own_strings would cut it short: a
 * truncated pin list pins another config). `environment` names the variables rather than the
 * settings, for values read from the environment. */
static tkrt_status_t tkrt_runtime_check_strings_named(tkrt_runtime_t* rt,
                                                      const tkrt_device_options_t* d,
                                                      const tkrt_autotuner_options_t* t,
                                                      bool environment) {
  TKRT_RETURN_IF_ERROR(tkrt_runtime_check_string(environment ? "TKRT_BACKEND" : "backend",
                                                 d->backend, sizeof(rt->backend)));
  TKRT_RETURN_IF_ERROR(tkrt_runtime_check_string(environment ? "TKRT_CACHE_DIR" : "cache_dir",
                                                 d->cache_dir, sizeof(rt->cache_dir)));
  TKRT_RETURN_IF_ERROR(tkrt_runtime_check_string(environment ? "TKRT_HIP_LIBRARY" : "hip_library",
                                                 d->hip_library, sizeof(rt->hip_library)));
  TKRT_RETURN_IF_ERROR(tkrt_runtime_check_string(environment ? "TKRT_TUNE_DIR" : "tune_dir",
                                                 t->store_dir, sizeof(rt->store_dir)));
  return tkrt_runtime_check_string(environment ? "TKRT_TUNE_PIN" : "tune_pin", t->pins,
                                   sizeof(rt->pins));
}

static tkrt_status_t tkrt_runtime_check_strings(tkrt_runtime_t* rt, const tkrt_device_options_t* d,
                                                const tkrt_autotuner_options_t* t) {
  return tkrt_runtime_check_strings_named(rt, d, t, false);
}

static void tkrt_runtime_destroy(tkrt_runtime_t* rt) {
  if (!rt) return;
  tkrt_runtime_entries_free(rt);
  tkrt_autotuner_destroy(atomic_load(&rt->tuner_object));
  for (int k = 0; k < TKRT_RUNTIME_DEVICE_KEYS; ++k) {
    for (int o = 0; o < TKRT_RUNTIME_MAX_ORDINALS; ++o) {
      tkrt_device_t* device = atomic_load(&rt->devices[k][o]);
      if (device) tkrt_device_release(device); /* one reference per slot */
    }
  }
  pthread_mutex_destroy(&rt->lock);
  free(rt);
}

tkrt_status_t tkrt_runtime_create(const tkrt_runtime_options_t* options,
                                  tkrt_runtime_t** out_runtime) {
  if (!out_runtime) {
    return TKRT_STATUS_MAKE(TKRT_STATUS_INVALID_ARGUMENT, "tkrt_runtime_create: no out_runtime");
  }
  tkrt_runtime_options_t local;
  tkrt_runtime_options_init(&local);
  if (options) {
    if (options->struct_size < offsetof(tkrt_runtime_options_t, device) ||
        options->struct_size > sizeof(local)) {
      return TKRT_STATUS_MAKE(TKRT_STATUS_INVALID_ARGUMENT,
                              "tkrt_runtime_create: options of %zu bytes (this tkrt knows %zu)",
                              options->struct_size, sizeof(local));
    }
    memcpy(&local, options, options->struct_size);
  }
  tkrt_runtime_t* rt = calloc(1, sizeof(*rt));
  if (!rt) return TKRT_STATUS_MAKE(TKRT_STATUS_RESOURCE_EXHAUSTED, "out of host memory");
  atomic_init(&rt->ref_count, 1);
  rt->id = atomic_fetch_add(&tkrt_runtime_next_id, 1);
  pthread_mutex_init(&rt->lock, NULL);
  tkrt_status_t status = NULL;
  if (local.read_environment) {
    tkrt_device_options_init(&rt->device);
    tkrt_autotuner_options_init(&rt->tuner);
    status = tkrt_options_from_environment(&rt->device, &rt->tuner);
    if (!status) status = tkrt_runtime_check_strings_named(rt, &rt->device, &rt->tuner, true);
    if (status) status = tkrt_status_annotate(status, "tkrt_runtime_create");
  } else {
    rt->device = local.device;
    rt->tuner = local.tuner;
    status = tkrt_runtime_check_strings(rt, &rt->device, &rt->tuner);
  }
  if (status) {
    tkrt_runtime_destroy(rt);
    return status;
  }
  rt->device.struct_size = sizeof(rt->device);
  rt->tuner.struct_size = sizeof(rt->tuner);
  tkrt_runtime_own_strings(rt);
  *out_runtime = rt;
  return NULL;
}

void tkrt_runtime_retain(tkrt_runtime_t* runtime) {
  if (runtime) atomic_fetch_add_explicit(&runtime->ref_count, 1, memory_order_relaxed);
}

void tkrt_runtime_release(tkrt_runtime_t* runtime) {
  if (runtime && atomic_fetch_sub_explicit(&runtime->ref_count, 1, memory_order_acq_rel) == 1) {
    tkrt_runtime_destroy(runtime);
  }
}

/* ---------------------------------------------------------------- the default instance */

static tkrt_runtime_t* tkrt_runtime_default_instance;
static pthread_once_t tkrt_runtime_default_once = PTHREAD_ONCE_INIT;

static void tkrt_runtime_default_create(void) {
  tkrt_runtime_options_t options;
  tkrt_runtime_options_init(&options);
  /* The settings table's default (what XLA's targets and tkrt.triton's tuners always had). */
  options.tuner.capture_policy = TKRT_CAPTURE_POLICY_FIRST_CONFIG;
  tkrt_runtime_t* rt = NULL;
  tkrt_status_t status = tkrt_runtime_create(&options, &rt);
  if (status) { /* out of memory */
    tkrt_status_free(status);
    return;
  }
  /* A bad variable is kept and answered from every device lookup, as libtkrt_xla does: the
   * process default cannot fail to exist. */
  status = tkrt_options_from_environment(&rt->device, &rt->tuner);
  if (!status) status = tkrt_runtime_check_strings_named(rt, &rt->device, &rt->tuner, true);
  if (status) {
    snprintf(rt->environment_error, sizeof(rt->environment_error), "%s",
             tkrt_status_message(status));
    tkrt_status_free(status);
  }
  tkrt_runtime_own_strings(rt);
  tkrt_runtime_default_instance = rt;
}

tkrt_runtime_t* tkrt_runtime_default(void) {
  pthread_once(&tkrt_runtime_default_once, tkrt_runtime_default_create);
  return tkrt_runtime_default_instance;
}

/* ---------------------------------------------------------------- settings */

/* Settings come from the settings table (tkrt/settings.h, core/settings.c): the rows of scope
 * runtime, parsed and mapped onto the option structs by tkrt_setting_apply, so each setting is
 * defined once for the environment, the runtime, libtkrt_xla, the CLI and Python. */
#define TKRT_RUNTIME_SCOPE TKRT_SETTING_SCOPE_RUNTIME

/* "backend, cache_dir, ...": the names tkrt_runtime_configure takes, for its messages. */
static void tkrt_runtime_setting_names(char* out, size_t capacity) {
  size_t used = 0;
  out[0] = '\0';
  for (size_t i = 0; i < tkrt_setting_count() && used < capacity; ++i) {
    const tkrt_setting_t* s = tkrt_setting_at(i);
    if (!(s->scopes & TKRT_RUNTIME_SCOPE)) continue;
    int n = snprintf(out + used, capacity - used, "%s%s", used ? ", " : "", s->name);
    used += n > 0 ? (size_t)n : 0;
  }
}

tkrt_status_t tkrt_runtime_configure(tkrt_runtime_t* rt, const char* name, const char* value) {
  if (!rt || !name) {
    return TKRT_STATUS_MAKE(TKRT_STATUS_INVALID_ARGUMENT, "tkrt_runtime_configure: %s is NULL",
                            rt ? "the setting's name" : "the runtime");
  }
  const char* v = value && *value ? value : NULL;
  const tkrt_setting_t* setting = tkrt_setting_find(name, TKRT_RUNTIME_SCOPE);
  if (!setting || strcmp(setting->name, name) != 0) {
    char names[512];
    tkrt_runtime_setting_names(names, sizeof(names));
    return TKRT_STATUS_MAKE(TKRT_STATUS_INVALID_ARGUMENT,
                            "tkrt_runtime_configure: no setting is named '%s' (settings: %s)", name,
                            names);
  }
  /* Checked before anything is taken: a refused value changes nothing. */
  tkrt_status_t status = tkrt_setting_check(name, v);
  if (status) {
    tkrt_status_free(status);
    return TKRT_STATUS_MAKE(TKRT_STATUS_INVALID_ARGUMENT,
                            "tkrt_runtime_configure: %s=%s is not a value it takes (expected %s)",
                            name, v, setting->expected);
  }
  if (setting->type == TKRT_SETTING_LOG_LEVEL) {
    /* Process-wide and never frozen, as tkrt_log_set_level is. */
    return tkrt_setting_apply(name, v, TKRT_RUNTIME_SCOPE, NULL, NULL);
  }
  pthread_mutex_lock(&rt->lock);
  if (atomic_load_explicit(&rt->frozen, memory_order_relaxed)) {
    status = TKRT_STATUS_MAKE(TKRT_STATUS_FAILED_PRECONDITION,
                              "tkrt_runtime_configure(%s): the runtime's settings are in use (a "
                              "device was opened or the tuner created); configure before that",
                              name);
  } else {
    /* Applied to copies, taken only when the strings fit. */
    tkrt_device_options_t device = rt->device;
    tkrt_autotuner_options_t tuner = rt->tuner;
    status = tkrt_setting_apply(name, v, TKRT_RUNTIME_SCOPE, &device, &tuner);
    if (!status && !v && strcmp(setting->name, "capture_policy") == 0) {
      /* Unset is the tuner's own default here (the table's first_config is libtkrt_xla's). */
      tkrt_autotuner_options_t defaults;
      tkrt_autotuner_options_init(&defaults);
      tuner.capture_policy = defaults.capture_policy;
    }
    if (!status) status = tkrt_runtime_check_strings(rt, &device, &tuner);
    if (!status) {
      rt->device = device;
      rt->tuner = tuner;
      tkrt_runtime_own_strings(rt);
    }
  }
  pthread_mutex_unlock(&rt->lock);
  return status;
}

tkrt_status_t tkrt_runtime_set_options(tkrt_runtime_t* rt, const tkrt_device_options_t* device,
                                       const tkrt_autotuner_options_t* tuner) {
  if (!rt || !device || !tuner) {
    return TKRT_STATUS_MAKE(TKRT_STATUS_INVALID_ARGUMENT, "tkrt_runtime_set_options: NULL argument");
  }
  if (device->struct_size != sizeof(*device) || tuner->struct_size != sizeof(*tuner)) {
    return TKRT_STATUS_MAKE(TKRT_STATUS_INVALID_ARGUMENT,
                            "tkrt_runtime_set_options: options of another tkrt version (%zu and "
                            "%zu bytes; this one has %zu and %zu)",
                            device->struct_size, tuner->struct_size, sizeof(*device),
                            sizeof(*tuner));
  }
  TKRT_RETURN_IF_ERROR(tkrt_runtime_check_strings(rt, device, tuner));
  tkrt_status_t status = NULL;
  pthread_mutex_lock(&rt->lock);
  if (atomic_load_explicit(&rt->frozen, memory_order_relaxed)) {
    status = TKRT_STATUS_MAKE(TKRT_STATUS_FAILED_PRECONDITION,
                              "tkrt_runtime_set_options: the runtime's settings are in use");
  } else {
    rt->device = *device;
    rt->tuner = *tuner;
    tkrt_runtime_own_strings(rt);
  }
  pthread_mutex_unlock(&rt->lock);
  return status;
}

/* Freezes the settings (first device, first tuner): from now on they are read without a lock. */
static void tkrt_runtime_freeze(tkrt_runtime_t* rt) {
  if (atomic_load_explicit(&rt->frozen, memory_order_acquire)) return;
  pthread_mutex_lock(&rt->lock);
  atomic_store_explicit(&rt->frozen, true, memory_order_release);
  pthread_mutex_unlock(&rt->lock);
}

/* ---------------------------------------------------------------- devices */

/* The key of a backend name: 0 for NULL, else its slot, or -1 when it has none yet. */
static int tkrt_runtime_key_find(const tkrt_runtime_t* rt, const char* backend) {
  if (!backend) return 0;
  int count = atomic_load_explicit(&((tkrt_runtime_t*)rt)->key_count, memory_order_acquire);
  for (int k = 1; k <= count; ++k) {
    if (strcmp(rt->key_names[k], backend) == 0) return k;
  }
  return -1;
}

static tkrt_status_t tkrt_runtime_key_get(tkrt_runtime_t* rt, const char* backend, int* out_key) {
  int key = tkrt_runtime_key_find(rt, backend);
  if (key >= 0) {
    *out_key = key;
    return NULL;
  }
  if (strlen(backend) >= TKRT_BACKEND_NAME_MAX) {
    return TKRT_STATUS_MAKE(TKRT_STATUS_INVALID_ARGUMENT, "backend name '%.40s...' is too long",
                            backend);
  }
  tkrt_status_t status = NULL;
  pthread_mutex_lock(&rt->lock);
  key = tkrt_runtime_key_find(rt, backend);
  if (key < 0) {
    int count = atomic_load_explicit(&rt->key_count, memory_order_relaxed);
    if (count + 1 >= TKRT_RUNTIME_DEVICE_KEYS) {
      status = TKRT_STATUS_MAKE(TKRT_STATUS_RESOURCE_EXHAUSTED,
                                "a runtime holds devices of at most %d backends",
                                TKRT_RUNTIME_DEVICE_KEYS - 1);
    } else {
      key = count + 1;
      snprintf(rt->key_names[key], sizeof(rt->key_names[key]), "%s", backend);
      atomic_store_explicit(&rt->key_count, key, memory_order_release);
    }
  }
  pthread_mutex_unlock(&rt->lock);
  if (!status) *out_key = key;
  return status;
}

tkrt_device_t* tkrt_runtime_device_find(const tkrt_runtime_t* runtime, const char* backend,
                                        int ordinal) {
  if (!runtime || ordinal < 0 || ordinal >= TKRT_RUNTIME_MAX_ORDINALS) return NULL;
  int key = tkrt_runtime_key_find(runtime, backend);
  if (key < 0) return NULL;
  return atomic_load_explicit(&((tkrt_runtime_t*)runtime)->devices[key][ordinal],
                              memory_order_acquire);
}

/* Puts `device` (one reference, the caller's) in the slot, or gives back the one there first. */
static tkrt_device_t* tkrt_runtime_publish(tkrt_runtime_t* rt, int key, int ordinal,
                                           tkrt_device_t* device) {
  tkrt_device_t* expected = NULL;
  if (atomic_compare_exchange_strong_explicit(&rt->devices[key][ordinal], &expected, device,
                                              memory_order_acq_rel, memory_order_acquire)) {
    return device;
  }
  tkrt_device_release(device);
  return expected;
}

tkrt_status_t tkrt_runtime_device(tkrt_runtime_t* rt, const char* backend, int ordinal,
                                  tkrt_device_t** out_device) {
  if (!rt || !out_device) {
    return TKRT_STATUS_MAKE(TKRT_STATUS_INVALID_ARGUMENT, "tkrt_runtime_device: NULL argument");
  }
  if (ordinal < 0 || ordinal >= TKRT_RUNTIME_MAX_ORDINALS) {
    return TKRT_STATUS_MAKE(TKRT_STATUS_OUT_OF_RANGE,
                            "device ordinal %d is outside the %d devices a tkrt runtime holds",
                            ordinal, TKRT_RUNTIME_MAX_ORDINALS);
  }
  tkrt_device_t* device = tkrt_runtime_device_find(rt, backend, ordinal);
  if (device) {
    *out_device = device;
    return NULL;
  }
  if (rt->environment_error[0]) {
    /* Refused rather than run with settings the user did not ask for. */
    return TKRT_STATUS_MAKE(TKRT_STATUS_INVALID_ARGUMENT, "tkrt's settings from the environment: %s",
                            rt->environment_error);
  }
  tkrt_runtime_freeze(rt);
  /* Opened outside any lock; a thread that loses the race releases its handle. A name nothing
   * could open takes no key. */
  tkrt_device_options_t options = rt->device;
  options.ordinal = ordinal;
  if (backend) options.backend = backend;
  tkrt_device_t* opened = NULL;
  tkrt_status_t status = tkrt_device_open(&options, &opened);
  if (status) {
    /* A named backend is said; a lookup through the settings' list is the caller's to annotate
     * (its flag or its own context), as the library's message already names the backend list. */
    return backend ? tkrt_status_annotate(status, "opening %s device %d", backend, ordinal) : status;
  }
  /* The device is its backend's, whatever list or name found it: one handle per device. */
  char real[TKRT_BACKEND_NAME_MAX]; /* copied: `opened` may lose the race and be released */
  snprintf(real, sizeof(real), "%s", tkrt_device_info(opened)->backend);
  int real_key = 0;
  status = tkrt_runtime_key_get(rt, real, &real_key);
  if (status) {
    tkrt_device_release(opened);
    return status;
  }
  tkrt_device_retain(opened); /* one reference for the slot, one for a second key if any */
  tkrt_device_t* winner = tkrt_runtime_publish(rt, real_key, ordinal, opened);
  if (winner == opened) {
    atomic_fetch_add_explicit(&rt->devices_opened, 1, memory_order_relaxed);
  } else {
    /* publish dropped one of our references; the slot's device serves every key */
    tkrt_device_retain(winner);
    tkrt_device_release(opened);
  }
  if (backend && strcmp(backend, real) == 0) {
    tkrt_device_release(winner); /* no second key */
    *out_device = winner;
    return NULL;
  }
  int key = 0;
  if (backend && (status = tkrt_runtime_key_get(rt, backend, &key))) {
    tkrt_device_release(winner);
    return status;
  }
  device = tkrt_runtime_publish(rt, key, ordinal, winner);
  *out_device = device;
  return NULL;
}

/* The last stream a thread asked about, per runtime id: streams never change device. */
static _Thread_local uint64_t tkrt_runtime_last_id;
static _Thread_local tkrt_stream_t tkrt_runtime_last_stream;
static _Thread_local const char* tkrt_runtime_last_backend;
static _Thread_local tkrt_device_t* tkrt_runtime_last_device;

tkrt_status_t tkrt_runtime_device_for_stream(tkrt_runtime_t* rt, const char* backend,
                                             tkrt_stream_t stream, tkrt_device_t** out_device) {
  if (!rt || !out_device) {
    return TKRT_STATUS_MAKE(TKRT_STATUS_INVALID_ARGUMENT,
                            "tkrt_runtime_device_for_stream: NULL argument");
  }
  if (stream && stream == tkrt_runtime_last_stream && rt->id == tkrt_runtime_last_id &&
      backend == tkrt_runtime_last_backend) {
    *out_device = tkrt_runtime_last_device;
    return NULL;
  }
  tkrt_runtime_freeze(rt);
  int ordinal = 0;
  TKRT_RETURN_IF_ERROR(
      tkrt_native_stream_ordinal(backend ? backend : rt->device.backend, stream, &ordinal));
  tkrt_device_t* device = NULL;
  TKRT_RETURN_IF_ERROR(tkrt_runtime_device(rt, backend, ordinal, &device));
  tkrt_runtime_last_id = rt->id;
  tkrt_runtime_last_backend = backend;
  tkrt_runtime_last_stream = stream;
  tkrt_runtime_last_device = device;
  *out_device = device;
  return NULL;
}

/* ---------------------------------------------------------------- the tuner */

tkrt_status_t tkrt_runtime_tuner(tkrt_runtime_t* rt, tkrt_autotuner_t** out_tuner) {
  tkrt_autotuner_t* tuner = atomic_load_explicit(&rt->tuner_object, memory_order_acquire);
  if (tuner) {
    *out_tuner = tuner;
    return NULL;
  }
  tkrt_runtime_freeze(rt);
  tkrt_status_t status = NULL;
  pthread_mutex_lock(&rt->lock);
  tuner = atomic_load_explicit(&rt->tuner_object, memory_order_acquire);
  if (!tuner) {
    status = tkrt_autotuner_create(&rt->tuner, &tuner);
    if (!status) atomic_store_explicit(&rt->tuner_object, tuner, memory_order_release);
  }
  pthread_mutex_unlock(&rt->lock);
  if (status) return status; /* the tuner's messages name the setting (TKRT_TUNE_PIN, the store) */
  *out_tuner = tuner;
  return NULL;
}

/* ---------------------------------------------------------------- counters */

void tkrt_runtime_get_stats(const tkrt_runtime_t* runtime, tkrt_runtime_stats_t* stats) {
  if (!stats || stats->struct_size < sizeof(size_t)) return;
  tkrt_runtime_stats_t s;
  memset(&s, 0, sizeof(s));
  s.struct_size = stats->struct_size < sizeof(s) ? stats->struct_size : sizeof(s);
  if (runtime) {
    tkrt_runtime_t* rt = (tkrt_runtime_t*)runtime;
    s.devices_opened = atomic_load(&rt->devices_opened);
    s.blobs_decoded = atomic_load(&rt->blobs_decoded);
    s.cache_entries = atomic_load(&rt->cache_entries);
    s.blob_hashes = atomic_load(&rt->blob_hashes);
  }
  memcpy(stats, &s, s.struct_size);
}
