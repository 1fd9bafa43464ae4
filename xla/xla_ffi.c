/* SPDX-License-Identifier: Apache-2.0 */
/* tkrt xla: the typed-FFI target (api_version 4), a drop-in for jaxlib's triton_kernel_call_ffi.
 * instantiate decodes once per call site, initialize loads modules outside any capture, execute
 * only enqueues (legal under stream capture, hence COMMAND_BUFFER_COMPATIBLE). */
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "xla/xla_internal.h"

#define TKRT_XLA_STACK_BUFFERS 32
#define TKRT_XLA_COUNT(name) atomic_fetch_add_explicit(&tkrt_xla_counters.name, 1, memory_order_relaxed)

/* ---------------------------------------------------------------- errors */

static tkrt_ffi_error_t* tkrt_xla_error(const tkrt_ffi_api_t* api, tkrt_ffi_error_code_t code,
                                        const char* format, ...) __attribute__((format(printf, 3, 4)));

static tkrt_ffi_error_t* tkrt_xla_error(const tkrt_ffi_api_t* api, tkrt_ffi_error_code_t code,
                                        const char* format, ...) {
  char message[1024];
  va_list ap;
  va_start(ap, format);
  vsnprintf(message, sizeof(message), format, ap);
  va_end(ap);
  TKRT_XLA_COUNT(errors);
  tkrt_ffi_error_create_args_t args = {
      .struct_size = TKRT_FFI_STRUCT_SIZE(tkrt_ffi_error_create_args_t, errc),
      .extension_start = NULL,
      .message = message, /* XLA copies it */
      .errc = code,
  };
  return api->error_create(&args);
}

/* Turns a tkrt status into an XLA error (the codes are the same absl numbers) and frees it. */
static tkrt_ffi_error_t* tkrt_xla_from_status(const tkrt_ffi_api_t* api, tkrt_status_t status,
                                              const char* what, const char* label) {
  char text[2048];
  tkrt_status_format(status, text, sizeof(text));
  tkrt_ffi_error_code_t code = (tkrt_ffi_error_code_t)tkrt_status_code(status);
  tkrt_status_free(status);
  return tkrt_xla_error(api, code, "tkrt_triton_kernel_call %s%s%s%s: %s", what,
                        label ? " '" : "", label ? label : "", label ? "'" : "", text);
}

/* Errors that XLA's own API calls hand us are ours to destroy. */
static void tkrt_xla_error_drop(const tkrt_ffi_api_t* api, tkrt_ffi_error_t* error) {
  if (!error) return;
  tkrt_ffi_error_destroy_args_t args = {
      .struct_size = TKRT_FFI_STRUCT_SIZE(tkrt_ffi_error_destroy_args_t, error),
      .extension_start = NULL,
      .error = error,
  };
  api->error_destroy(&args);
}

/* ---------------------------------------------------------------- the state type */

/* XLA owns call-site states and must know how to delete them, so the type is registered with the
 * XLA instance (api table) that calls us, once per instance. The state points at an entry of the
 * adapter's runtime, which lives for the process, so deleting it is a no-op. */
typedef struct tkrt_xla_type_slot {
  _Atomic(const tkrt_ffi_api_t*) api;
  int64_t id; /* written before api is published */
} tkrt_xla_type_slot_t;

#define TKRT_XLA_TYPE_SLOTS 8
static tkrt_xla_type_slot_t tkrt_xla_type_slots[TKRT_XLA_TYPE_SLOTS];
static pthread_mutex_t tkrt_xla_type_lock = PTHREAD_MUTEX_INITIALIZER;

static void tkrt_xla_state_delete(void* state) { (void)state; }

static const tkrt_ffi_type_info_t tkrt_xla_type_info = {
    .struct_size = TKRT_FFI_STRUCT_SIZE(tkrt_ffi_type_info_t, deleter),
    .extension_start = NULL,
    .deleter = tkrt_xla_state_delete,
};

static int64_t tkrt_xla_type_find(const tkrt_ffi_api_t* api) {
  for (int i = 0; i < TKRT_XLA_TYPE_SLOTS; ++i) {
    const tkrt_ffi_api_t* have =
        atomic_load_explicit(&tkrt_xla_type_slots[i].api, memory_order_acquire);
    if (!have) break;
    if (have == api) return tkrt_xla_type_slots[i].id;
  }
  return 0;
}

static tkrt_ffi_error_t* tkrt_xla_type_id(const tkrt_ffi_api_t* api, int64_t* out_id) {
  int64_t id = tkrt_xla_type_find(api);
  if (id) {
    *out_id = id;
    return NULL;
  }
  tkrt_ffi_error_t* error = NULL;
  pthread_mutex_lock(&tkrt_xla_type_lock);
  id = tkrt_xla_type_find(api);
  int slot = 0;
  while (!id && slot < TKRT_XLA_TYPE_SLOTS &&
         atomic_load_explicit(&tkrt_xla_type_slots[slot].api, memory_order_relaxed)) {
    ++slot;
  }
  if (!id && slot == TKRT_XLA_TYPE_SLOTS) {
    error = tkrt_xla_error(api, TKRT_FFI_ERROR_RESOURCE_EXHAUSTED,
                           "tkrt_triton_kernel_call: more than %d XLA instances in one process",
                           TKRT_XLA_TYPE_SLOTS);
  }
  /* Names are unique per XLA instance; a second copy of this library in the process (another
   * path) must not collide with the first, so the retry names this copy by address. */
  for (int attempt = 0; !id && !error && attempt < 2; ++attempt) {
    char name[96];
    if (attempt == 0) {
      snprintf(name, sizeof(name), "tkrt_xla.call_site");
    } else {
      snprintf(name, sizeof(name), "tkrt_xla.call_site@%p", (const void*)&tkrt_xla_type_info);
    }
    tkrt_ffi_type_id_t type_id = {0};
    tkrt_ffi_type_register_args_t args = {
        .struct_size = TKRT_FFI_TYPE_REGISTER_ARGS_SIZE,
        .extension_start = NULL,
        .name = {name, strlen(name)},
        .type_id = &type_id,
        .type_info = &tkrt_xla_type_info,
    };
    tkrt_ffi_error_t* failed = api->type_register(&args);
    if (!failed && type_id.type_id) {
      id = type_id.type_id;
      tkrt_xla_type_slots[slot].id = id;
      atomic_store_explicit(&tkrt_xla_type_slots[slot].api, api, memory_order_release);
    } else if (attempt == 1) {
      error = failed ? failed
                     : tkrt_xla_error(api, TKRT_FFI_ERROR_INTERNAL,
                                      "tkrt_triton_kernel_call: XLA assigned no type id");
    } else {
      tkrt_xla_error_drop(api, failed);
    }
  }
  pthread_mutex_unlock(&tkrt_xla_type_lock);
  if (error) return error;
  *out_id = id;
  return NULL;
}

/* ---------------------------------------------------------------- the call frame */

/* Checks that XLA passes at least the layout we read (newer XLA may append fields). */
static tkrt_ffi_error_t* tkrt_xla_check_frame(const tkrt_ffi_call_frame_t* frame) {
  const tkrt_ffi_api_t* api = frame->api;
  size_t need_api = TKRT_FFI_STRUCT_SIZE(tkrt_ffi_api_t, device_ordinal_get);
  if (api->struct_size < need_api) {
    return tkrt_xla_error(api, TKRT_FFI_ERROR_FAILED_PRECONDITION,
                          "tkrt_triton_kernel_call: the XLA FFI API table is %zu bytes, older than "
                          "the %zu bytes (FFI API %d.%d) tkrt needs",
                          api->struct_size, need_api, TKRT_FFI_API_MAJOR, TKRT_FFI_API_MINOR);
  }
  size_t need_frame = TKRT_FFI_STRUCT_SIZE(tkrt_ffi_call_frame_t, attrs);
  if (frame->struct_size < need_frame) {
    return tkrt_xla_error(api, TKRT_FFI_ERROR_INVALID_ARGUMENT,
                          "tkrt_triton_kernel_call: call frame of %zu bytes, expected at least %zu; "
                          "check installed software versions",
                          frame->struct_size, need_frame);
  }
  return NULL;
}

static bool tkrt_xla_is_metadata_query(const tkrt_ffi_call_frame_t* frame) {
  return frame->extension_start && frame->extension_start->type == TKRT_FFI_EXTENSION_METADATA;
}

/* XLA asks each handler (with the metadata extension) for the FFI version it was written for
 * and its traits before it accepts the registration. */
static tkrt_ffi_error_t* tkrt_xla_answer_metadata(tkrt_ffi_call_frame_t* frame,
                                                  bool reports_state) {
  const tkrt_ffi_api_t* api = frame->api;
  tkrt_ffi_metadata_t* md = tkrt_ffi_metadata_of(frame->extension_start);
  if (!md) {
    return tkrt_xla_error(api, TKRT_FFI_ERROR_INVALID_ARGUMENT,
                          "tkrt_triton_kernel_call: metadata query with a too small struct");
  }
  int64_t id = 0;
  if (reports_state &&
      md->struct_size >= TKRT_FFI_STRUCT_SIZE(tkrt_ffi_metadata_t, state_type_id)) {
    /* The instantiate handler creates a state: its type must be known to XLA by now. */
    tkrt_ffi_error_t* error = tkrt_xla_type_id(api, &id);
    if (error) return error;
  }
  tkrt_ffi_metadata_answer(md, id);
  return NULL;
}

/* The `opaque` string attribute; others (name, cost_estimate_json, ...) are ignored. */
static tkrt_ffi_error_t* tkrt_xla_find_opaque(const tkrt_ffi_call_frame_t* frame,
                                              const tkrt_ffi_byte_span_t** out_blob) {
  const tkrt_ffi_attrs_t* attrs = &frame->attrs;
  for (int64_t i = 0; i < attrs->size; ++i) {
    const tkrt_ffi_byte_span_t* name = attrs->names[i];
    if (name->len != 6 || memcmp(name->ptr, "opaque", 6) != 0) continue;
    if (attrs->types[i] != TKRT_FFI_ATTR_STRING) {
      return tkrt_xla_error(frame->api, TKRT_FFI_ERROR_INVALID_ARGUMENT,
                            "tkrt_triton_kernel_call: attribute 'opaque' must be a string (the "
                            "zlib-compressed TritonAnyKernelCall), not attribute type %d",
                            (int)attrs->types[i]);
    }
    *out_blob = (const tkrt_ffi_byte_span_t*)attrs->attrs[i];
    return NULL;
  }
  return tkrt_xla_error(frame->api, TKRT_FFI_ERROR_INVALID_ARGUMENT,
                        "tkrt_triton_kernel_call: attribute 'opaque' is missing (%lld attributes "
                        "given); it carries the zlib-compressed TritonAnyKernelCall",
                        (long long)attrs->size);
}

static tkrt_ffi_error_t* tkrt_xla_entry_from_attrs(tkrt_ffi_call_frame_t* frame,
                                                   const tkrt_xla_entry_t** out_entry) {
  const tkrt_ffi_byte_span_t* blob = NULL;
  tkrt_ffi_error_t* error = tkrt_xla_find_opaque(frame, &blob);
  if (error) return error;
  tkrt_status_t status = tkrt_xla_entry_get(blob->ptr, blob->len, out_entry);
  return status ? tkrt_xla_from_status(frame->api, status, "decoding", NULL) : NULL;
}

/* The call site's entry: the instantiate state, or (if XLA ran no instantiate stage) a lookup
 * of the attribute bytes in the runtime's blob cache. */
static tkrt_ffi_error_t* tkrt_xla_entry_of(tkrt_ffi_call_frame_t* frame,
                                           const tkrt_xla_entry_t** out_entry) {
  const tkrt_ffi_api_t* api = frame->api;
  int64_t id = tkrt_xla_type_find(api);
  if (id) {
    tkrt_ffi_type_id_t type_id = {id};
    tkrt_ffi_state_get_args_t args = {
        .struct_size = TKRT_FFI_STRUCT_SIZE(tkrt_ffi_state_get_args_t, state),
        .extension_start = NULL,
        .ctx = frame->ctx,
        .stage = TKRT_FFI_STAGE_INSTANTIATE,
        .type_id = &type_id,
        .state = NULL,
    };
    tkrt_ffi_error_t* error = api->state_get(&args);
    if (!error && args.state) {
      *out_entry = (const tkrt_xla_entry_t*)args.state;
      return NULL;
    }
    tkrt_xla_error_drop(api, error);
  }
  return tkrt_xla_entry_from_attrs(frame, out_entry);
}

/* The execution's device ordinal, as XLA gives it. */
static tkrt_ffi_error_t* tkrt_xla_ordinal_of(tkrt_ffi_call_frame_t* frame, int* out_ordinal) {
  tkrt_ffi_device_ordinal_get_args_t query = {
      .struct_size = TKRT_FFI_STRUCT_SIZE(tkrt_ffi_device_ordinal_get_args_t, device_ordinal),
      .extension_start = NULL,
      .ctx = frame->ctx,
      .device_ordinal = -1,
  };
  tkrt_ffi_error_t* error = frame->api->device_ordinal_get(&query);
  if (error) return error;
  *out_ordinal = query.device_ordinal;
  return NULL;
}

/* tkrt's device for the ordinal, and the execution's stream. */
static tkrt_ffi_error_t* tkrt_xla_device_of(tkrt_ffi_call_frame_t* frame, int ordinal,
                                            tkrt_device_t** out_device, tkrt_stream_t* out_stream,
                                            const char* label) {
  const tkrt_ffi_api_t* api = frame->api;
  tkrt_ffi_stream_get_args_t stream = {
      .struct_size = TKRT_FFI_STRUCT_SIZE(tkrt_ffi_stream_get_args_t, stream),
      .extension_start = NULL,
      .ctx = frame->ctx,
      .stream = NULL,
  };
  tkrt_ffi_error_t* error = api->stream_get(&stream);
  if (error) return error;
  tkrt_status_t status = tkrt_xla_device_get(ordinal, out_device);
  if (status) return tkrt_xla_from_status(api, status, "on", label);
  *out_stream = (tkrt_stream_t)stream.stream;
  return NULL;
}

/* Bytes of a buffer: element count times element width (sub-byte types packed). */
static uint64_t tkrt_xla_buffer_bytes(const tkrt_ffi_buffer_t* buffer) {
  unsigned bits;
  switch (buffer->dtype) {
    case TKRT_FFI_DTYPE_TOKEN: return 0;
    case TKRT_FFI_DTYPE_S1: case TKRT_FFI_DTYPE_U1: bits = 1; break;
    case TKRT_FFI_DTYPE_S2: case TKRT_FFI_DTYPE_U2: bits = 2; break;
    case TKRT_FFI_DTYPE_S4: case TKRT_FFI_DTYPE_U4: case TKRT_FFI_DTYPE_F4E2M1FN: bits = 4; break;
    case TKRT_FFI_DTYPE_PRED: case TKRT_FFI_DTYPE_S8: case TKRT_FFI_DTYPE_U8:
    case TKRT_FFI_DTYPE_F8E5M2: case TKRT_FFI_DTYPE_F8E4M3FN: case TKRT_FFI_DTYPE_F8E4M3B11FNUZ:
    case TKRT_FFI_DTYPE_F8E5M2FNUZ: case TKRT_FFI_DTYPE_F8E4M3FNUZ: case TKRT_FFI_DTYPE_F8E4M3:
    case TKRT_FFI_DTYPE_F8E3M4: case TKRT_FFI_DTYPE_F8E8M0FNU: bits = 8; break;
    case TKRT_FFI_DTYPE_S16: case TKRT_FFI_DTYPE_U16: case TKRT_FFI_DTYPE_F16:
    case TKRT_FFI_DTYPE_BF16: bits = 16; break;
    case TKRT_FFI_DTYPE_S32: case TKRT_FFI_DTYPE_U32: case TKRT_FFI_DTYPE_F32: bits = 32; break;
    case TKRT_FFI_DTYPE_S64: case TKRT_FFI_DTYPE_U64: case TKRT_FFI_DTYPE_F64:
    case TKRT_FFI_DTYPE_C64: bits = 64; break;
    case TKRT_FFI_DTYPE_C128: bits = 128; break;
    default: return TKRT_BUFFER_SIZE_UNKNOWN; /* a type tkrt does not know: a bare pointer */
  }
  uint64_t count = 1;
  for (int64_t d = 0; d < buffer->rank; ++d) count *= (uint64_t)buffer->dims[d];
  return (count * bits + 7) / 8;
}

/* ---------------------------------------------------------------- stages */

tkrt_ffi_error_t* tkrt_xla_ffi_instantiate(tkrt_ffi_call_frame_t* frame) {
  tkrt_ffi_error_t* error = tkrt_xla_check_frame(frame);
  if (error) return error;
  if (tkrt_xla_is_metadata_query(frame)) return tkrt_xla_answer_metadata(frame, true);
  const tkrt_ffi_api_t* api = frame->api;
  int64_t id = 0;
  if ((error = tkrt_xla_type_id(api, &id))) return error;
  const tkrt_xla_entry_t* entry = NULL;
  if ((error = tkrt_xla_entry_from_attrs(frame, &entry))) return error;
  tkrt_ffi_type_id_t type_id = {id};
  tkrt_ffi_state_set_args_t args = {
      .struct_size = TKRT_FFI_STRUCT_SIZE(tkrt_ffi_state_set_args_t, state),
      .extension_start = NULL,
      .ctx = frame->ctx,
      .stage = TKRT_FFI_STAGE_INSTANTIATE,
      .type_id = &type_id,
      .state = (void*)entry, /* XLA's state is mutable in type only: the entry is not */
  };
  if ((error = api->state_set(&args))) return error;
  TKRT_XLA_COUNT(instantiated);
  return NULL;
}

tkrt_ffi_error_t* tkrt_xla_ffi_initialize(tkrt_ffi_call_frame_t* frame) {
  tkrt_ffi_error_t* error = tkrt_xla_check_frame(frame);
  if (error) return error;
  if (tkrt_xla_is_metadata_query(frame)) return tkrt_xla_answer_metadata(frame, false);
  TKRT_PROFILE_TICK(t0);
  const tkrt_xla_entry_t* entry = NULL;
  if ((error = tkrt_xla_entry_of(frame, &entry))) return error;
  /* XLA runs this stage before every execution of every call site, not once: once the call is
   * prepared on the device, the runtime's device table and the core's published state (an
   * acquire load and a compare) answer it, with no driver query. */
  int ordinal;
  if ((error = tkrt_xla_ordinal_of(frame, &ordinal))) return error;
  tkrt_runtime_t* rt = NULL;
  tkrt_status_t status = tkrt_xla_runtime(&rt);
  if (status) return tkrt_xla_from_status(frame->api, status, "preparing", entry->label);
  tkrt_device_t* device =
      tkrt_xla_is_settled() ? tkrt_runtime_device_find(rt, tkrt_xla_backends(), ordinal) : NULL;
  if (device && (tkrt_runtime_call_state(rt, entry->call, device, NULL) & TKRT_CALL_STATE_PREPARED)) {
    TKRT_XLA_COUNT(initialized);
    TKRT_PROFILE_TICK(t1);
    TKRT_XLA_PROF_CALL(init_calls);
    TKRT_XLA_PROF(init_total, t0, t1);
    return NULL;
  }
  tkrt_stream_t stream = NULL;
  if ((error = tkrt_xla_device_of(frame, ordinal, &device, &stream, entry->label))) return error;
  /* Loading modules and allocating scratch would break a capture; initialize runs outside one,
   * but if it ever does not, the runtime leaves the work to the first uncaptured execute (which
   * then says clearly why a captured execute cannot run). */
  int prepared = 0;
  status = tkrt_runtime_prepare(rt, entry->call, device, stream, &prepared);
  if (status) return tkrt_xla_from_status(frame->api, status, "preparing", entry->label);
  if (prepared) TKRT_XLA_COUNT(prepared);
  TKRT_XLA_COUNT(initialized);
  TKRT_PROFILE_TICK(t1);
  TKRT_XLA_PROF_CALL(init_calls);
  TKRT_XLA_PROF(init_total, t0, t1);
  return NULL;
}

tkrt_ffi_error_t* tkrt_xla_ffi_execute(tkrt_ffi_call_frame_t* frame) {
  TKRT_PROFILE_TICK(t0);
  tkrt_ffi_error_t* error = tkrt_xla_check_frame(frame);
  if (error) return error;
  if (tkrt_xla_is_metadata_query(frame)) return tkrt_xla_answer_metadata(frame, false);
  const tkrt_ffi_api_t* api = frame->api;
  const tkrt_xla_entry_t* entry = NULL;
  if ((error = tkrt_xla_entry_of(frame, &entry))) return error;
  TKRT_PROFILE_TICK(t1);
  int ordinal;
  tkrt_device_t* device = NULL;
  tkrt_stream_t stream = NULL;
  if ((error = tkrt_xla_ordinal_of(frame, &ordinal)) ||
      (error = tkrt_xla_device_of(frame, ordinal, &device, &stream, entry->label))) {
    return error;
  }
  TKRT_PROFILE_TICK(t2);

  size_t inputs = (size_t)frame->args.size, outputs = (size_t)frame->rets.size;
  size_t count = inputs + outputs;
  tkrt_buffer_t stack[TKRT_XLA_STACK_BUFFERS];
  /* A host allocation only, and only for calls with many buffers: legal under capture. */
  tkrt_buffer_t* buffers = count <= TKRT_XLA_STACK_BUFFERS ? stack : malloc(count * sizeof(*buffers));
  if (!buffers) {
    return tkrt_xla_error(api, TKRT_FFI_ERROR_RESOURCE_EXHAUSTED, "out of host memory");
  }
  for (size_t i = 0; i < count; ++i) {
    bool is_arg = i < inputs;
    int type = is_arg ? (int)frame->args.types[i] : (int)frame->rets.types[i - inputs];
    if (type != TKRT_FFI_ARG_BUFFER) {
      if (buffers != stack) free(buffers);
      return tkrt_xla_error(api, TKRT_FFI_ERROR_INVALID_ARGUMENT,
                            "tkrt_triton_kernel_call '%s': %s %zu is not a buffer (type %d)",
                            entry->label, is_arg ? "operand" : "result",
                            is_arg ? i : i - inputs, type);
    }
    const tkrt_ffi_buffer_t* b =
        is_arg ? frame->args.args[i] : frame->rets.rets[i - inputs];
    buffers[i].ptr = (tkrt_deviceptr_t)(uintptr_t)b->data;
    buffers[i].size = tkrt_xla_buffer_bytes(b);
  }
  TKRT_PROFILE_TICK(t3);
  /* Counted for tkrt.stats() when asked for (a driver query per execute, 0.1 to 0.25 µs on an
   * H200): whether XLA is capturing this execute into a command buffer. */
  bool captured = false;
  tkrt_status_t status = tkrt_xla_settings()->count_captures
                             ? tkrt_stream_is_capturing(device, stream, &captured)
                             : NULL;
  TKRT_PROFILE_TICK(t4);
  if (!status) {
    status = tkrt_xla_launch(entry, device, stream, buffers, inputs, outputs, false);
  }
  TKRT_PROFILE_TICK(t5);
  if (buffers != stack) free(buffers);
  if (status) return tkrt_xla_from_status(api, status, "launching", entry->label);
  TKRT_XLA_COUNT(executed);
  if (captured) TKRT_XLA_COUNT(executed_captured);
  TKRT_PROFILE_TICK(t6);
  TKRT_XLA_PROF_CALL(ffi_calls);
  TKRT_XLA_PROF(ffi_entry, t0, t1);
  TKRT_XLA_PROF(ffi_device, t1, t2);
  TKRT_XLA_PROF(ffi_buffers, t2, t3);
  TKRT_XLA_PROF(ffi_capture, t3, t4);
  TKRT_XLA_PROF(ffi_launch, t4, t5);
  TKRT_XLA_PROF(ffi_total, t0, t6);
  return NULL;
}
