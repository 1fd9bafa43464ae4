/* SPDX-License-Identifier: Apache-2.0 */
/* tkrt: opening vendor libraries at run time. Libraries are never closed: drivers do not survive
 * being unloaded, and their handles are process-wide anyway. */
#ifndef TKRT_BASE_DYLIB_H_
#define TKRT_BASE_DYLIB_H_

#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>

#include "tkrt/status.h"

/* Tries each name in order (dlopen with RTLD_NOW | RTLD_LOCAL). When `prefer_loaded` is set, a
 * copy already loaded in the process (RTLD_NOLOAD) is taken first. On failure: UNAVAILABLE, and the
 * message lists every name tried with the loader's reason. */
tkrt_status_t tkrt_dylib_open(const char* const* names, size_t count, int prefer_loaded,
                              void** out_handle, const char** out_opened_name);

/* NULL when absent. */
void* tkrt_dylib_symbol(void* handle, const char* name);

/* ---------------------------------------------------------------- open once, remember the outcome
 * A vendor library is opened, resolved and initialised once per process; every later caller gets
 * the same outcome, success or the first failure's code and message, as a fresh status of its
 * own. One static tkrt_dylib_once_t per library (the cuda and hip backends):
 *
 *   static tkrt_dylib_once_t load_once = TKRT_DYLIB_ONCE_INIT;
 *   static tkrt_status_t load(void* context) { ... return NULL or the reason ... }
 *   ...
 *   TKRT_RETURN_IF_ERROR(tkrt_dylib_once(&load_once, load, context, &first));
 */

/* A probe's reason (tkrt_device_probe_t.reason, TKRT_REASON_MAX) holds the message whole. */
#define TKRT_DYLIB_ONCE_MESSAGE_MAX 768

typedef struct tkrt_dylib_once {
  pthread_mutex_t lock;  /* serialises the one load; concurrent callers wait for it */
  atomic_bool done;      /* set (release) once code and message are final */
  tkrt_status_code_t code; /* TKRT_STATUS_OK when loaded */
  char message[TKRT_DYLIB_ONCE_MESSAGE_MAX]; /* the failure's message (truncated), else "" */
} tkrt_dylib_once_t;
#define TKRT_DYLIB_ONCE_INIT {PTHREAD_MUTEX_INITIALIZER, false, TKRT_STATUS_OK, ""}

/* Runs load(context) if no call for `once` has yet; its result (NULL: loaded; else the status,
 * freed here, whose code and message are kept) is the outcome for every call. Returns NULL when
 * loaded, else a new status with the kept code and message, made at file:line (the macro passes
 * the caller's). *out_ran (may be NULL) is true for the one call that ran load: it can say what
 * happened once, outside the lock (a log sink may block). `context` is seen by the first call
 * only. */
tkrt_status_t tkrt_dylib_once_at(tkrt_dylib_once_t* once, tkrt_status_t (*load)(void* context),
                                 void* context, bool* out_ran, const char* file, int line);
#define tkrt_dylib_once(once, load, context, out_ran) \
  tkrt_dylib_once_at((once), (load), (context), (out_ran), __FILE__, __LINE__)

/* Whether the load has run and succeeded; lock-free (acquire), for any thread. */
bool tkrt_dylib_once_loaded(tkrt_dylib_once_t* once);

/* The kept failure message ("" when loaded or not yet run); valid once the load has run. */
const char* tkrt_dylib_once_message(const tkrt_dylib_once_t* once);

#endif /* TKRT_BASE_DYLIB_H_ */
