/* SPDX-License-Identifier: Apache-2.0 */
/* tkrt xla: the legacy status-returning custom call (api_version 2), a drop-in for jaxlib's
 * triton_kernel_call. XLA passes bare pointers (no sizes, no buffer count), so the decoded call
 * says how many buffers to read, and alias records say which inputs are updated in place and how
 * large they are. */
#include <dlfcn.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "xla/xla_internal.h"

#define TKRT_XLA_STACK_BUFFERS 32
#define TKRT_XLA_COUNT(name) atomic_fetch_add_explicit(&tkrt_xla_counters.name, 1, memory_order_relaxed)

typedef void (*tkrt_xla_set_failure_fn)(void* status, const char* message, size_t length);

static tkrt_xla_set_failure_fn tkrt_xla_set_failure;
static pthread_once_t tkrt_xla_set_failure_once = PTHREAD_ONCE_INIT;

/* XLA's C entry point when some loaded library exports it (jaxlib's old xla_extension did);
 * jaxlib 0.11's CUDA plugin links it in without exporting it, and then our C++ twin, built from
 * XLA's own definition of the status object, writes the message. */
static void tkrt_xla_set_failure_resolve(void) {
  void* fn = dlsym(RTLD_DEFAULT, "XlaCustomCallStatusSetFailure");
  if (fn) {
    *(void**)&tkrt_xla_set_failure = fn;
  } else {
    tkrt_xla_set_failure = tkrt_xla_status_set_failure_fallback;
    atomic_store(&tkrt_xla_counters.legacy_status_fallback, 1);
  }
}

static void tkrt_xla_legacy_fail(void* xla_status, tkrt_status_t status, const char* label) {
  char text[2048];
  int n = snprintf(text, sizeof(text), "tkrt_triton_kernel_call_legacy%s%s%s: ",
                   label ? " '" : "", label ? label : "", label ? "'" : "");
  if (n < 0) n = 0;
  if ((size_t)n >= sizeof(text)) n = (int)sizeof(text) - 1;
  tkrt_status_format(status, text + n, sizeof(text) - (size_t)n);
  tkrt_status_free(status);
  TKRT_XLA_COUNT(errors);
  pthread_once(&tkrt_xla_set_failure_once, tkrt_xla_set_failure_resolve);
  if (xla_status) {
    tkrt_xla_set_failure(xla_status, text, strlen(text));
  } else {
    /* api_version 1 callers have no way to hear about errors: the log's error level says it. */
    tkrt_log_message(TKRT_LOG_ERROR, "xla", "%s", text);
  }
}

void tkrt_xla_legacy_call(void* stream, void** buffers, const char* opaque, size_t opaque_len,
                          void* xla_status) {
  TKRT_PROFILE_TICK(t0);
  const tkrt_xla_entry_t* entry = NULL;
  tkrt_status_t status = tkrt_xla_entry_get(opaque, opaque_len, &entry);
  if (status) {
    tkrt_xla_legacy_fail(xla_status, status, NULL);
    return;
  }
  TKRT_PROFILE_TICK(t1);
  tkrt_device_t* device = NULL;
  status = tkrt_xla_stream_device(stream, &device);
  if (status) {
    tkrt_xla_legacy_fail(xla_status, status, entry->label);
    return;
  }
  TKRT_PROFILE_TICK(t2);
  /* XLA's buffers: every operand, then every result, as bare pointers. The kernel's array
   * parameters take the first ones in order (they may reach into the results: kernels take output
   * pointers too). Alias records are (input buffer, output buffer, bytes) with buffer indices, as
   * jaxlib's autotuner reads them (TransformerEngine writes num_inputs + output index), so the
   * view also covers every buffer a record names (the runtime's by-index convention; it builds
   * the list of inputs to save only while the call is undecided on the device). */
  size_t count = entry->indexed_buffers;
  tkrt_buffer_t stack[TKRT_XLA_STACK_BUFFERS];
  tkrt_buffer_t* view = count <= TKRT_XLA_STACK_BUFFERS ? stack : malloc(count * sizeof(*view));
  if (!view) {
    tkrt_xla_legacy_fail(xla_status,
                         TKRT_STATUS_MAKE(TKRT_STATUS_RESOURCE_EXHAUSTED, "out of host memory"),
                         entry->label);
    return;
  }
  for (size_t i = 0; i < count; ++i) {
    view[i].ptr = (tkrt_deviceptr_t)(uintptr_t)buffers[i];
    view[i].size = TKRT_BUFFER_SIZE_UNKNOWN;
  }
  TKRT_PROFILE_TICK(t3);
  /* Legacy calls are not counted by capture state (XLA captures them only for allowlisted
   * targets), which spares a driver query per launch. */
  status = tkrt_xla_launch(entry, device, (tkrt_stream_t)stream, view, count, 0, true);
  TKRT_PROFILE_TICK(t4);
  if (view != stack) free(view);
  if (status) {
    tkrt_xla_legacy_fail(xla_status, status, entry->label);
    return;
  }
  TKRT_XLA_COUNT(legacy_executed);
  TKRT_PROFILE_TICK(t5);
  TKRT_XLA_PROF_CALL(legacy_calls);
  TKRT_XLA_PROF(legacy_entry, t0, t1);
  TKRT_XLA_PROF(legacy_device, t1, t2);
  TKRT_XLA_PROF(legacy_view, t2, t3);
  TKRT_XLA_PROF(legacy_launch, t3, t4);
  TKRT_XLA_PROF(legacy_total, t0, t5);
}
