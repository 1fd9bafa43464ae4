/* SPDX-License-Identifier: Apache-2.0 */
/* tkrt registry: the public API that chooses among the backends (the backend list, opening a
 * device, finding a native stream's device). It sits above backends/ (like IREE's drivers/init.c):
 * the HAL below it never names a backend. */
#include <ctype.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/log.h"
#include "base/versioned.h"
#include "hal/hal.h"
#include "registry/registry.h"

#define TKRT_CHECK_ARG(cond, ...) \
  do {                            \
    if (!(cond)) return TKRT_STATUS_MAKE(TKRT_STATUS_INVALID_ARGUMENT, __VA_ARGS__); \
  } while (0)

/* ---------------------------------------------------------------- backends */

static void tkrt_copy_text(char* dst, size_t capacity, const char* src) {
  snprintf(dst, capacity, "%s", src ? src : "");
}

void tkrt_device_options_init(tkrt_device_options_t* options) {
  memset(options, 0, sizeof(*options));
  options->struct_size = sizeof(*options);
}

/* Hands each {key, value} parameter to the backend its key names ("host.threads"). */
static tkrt_status_t tkrt_apply_device_params(tkrt_device_options_t* options, const char* what) {
  if (options->param_count && !options->params) {
    return TKRT_STATUS_MAKE(TKRT_STATUS_INVALID_ARGUMENT, "%s: %zu parameters but params is NULL",
                            what, options->param_count);
  }
  for (size_t i = 0; i < options->param_count; ++i) {
    const tkrt_device_param_t* param = &options->params[i];
    if (!param->key || !param->value) {
      return TKRT_STATUS_MAKE(TKRT_STATUS_INVALID_ARGUMENT, "%s: parameter %zu has a NULL %s",
                              what, i, param->key ? "value" : "key");
    }
    const char* dot = strchr(param->key, '.');
    char name[TKRT_BACKEND_NAME_MAX];
    size_t length = dot ? (size_t)(dot - param->key) : 0;
    const tkrt_hal_backend_t* backend = NULL;
    if (dot && length < sizeof(name)) {
      snprintf(name, sizeof(name), "%.*s", (int)length, param->key);
      backend = tkrt_hal_registry_find(name);
    }
    if (!backend) {
      char names[128];
      tkrt_hal_registry_names(names, sizeof(names));
      return TKRT_STATUS_MAKE(TKRT_STATUS_INVALID_ARGUMENT,
                              "%s: backend parameter '%s' names no backend; keys are "
                              "'<backend>.<name>' with a backend of: %s",
                              what, param->key, names);
    }
    if (!backend->parse_param) {
      return TKRT_STATUS_MAKE(TKRT_STATUS_INVALID_ARGUMENT,
                              "%s: backend parameter '%s': the %s backend takes no parameters",
                              what, param->key, backend->name);
    }
    TKRT_RETURN_IF_ERROR(
        tkrt_status_annotate(backend->parse_param(dot + 1, param->value, options), "%s", what));
  }
  return NULL;
}

/* The caller's options over the defaults (NULL: the defaults), backend parameters applied. */
static tkrt_status_t tkrt_read_device_options(const tkrt_device_options_t* options,
                                              tkrt_device_options_t* out, const char* what) {
  tkrt_device_options_init(out);
  if (!options) return NULL;
  TKRT_RETURN_IF_ERROR(tkrt_versioned_read(out, sizeof(*out), options, what));
  return tkrt_apply_device_params(out, what);
}

/* The group of every backend that runs on streams others made; never the host. */
#define TKRT_GROUP_FOREIGN_STREAMS "gpu"

static bool tkrt_backend_listed(const tkrt_hal_backend_t* const* listed, size_t count,
                                const tkrt_hal_backend_t* backend) {
  for (size_t i = 0; i < count; ++i) {
    if (listed[i] == backend) return true;
  }
  return false;
}

#define TKRT_MAX_LISTED_BACKENDS 8

/* Parses a backend list ("hip,host"; NULL or "": every backend in default order) into registry
 * entries. Every name is checked first, so a typo is reported even when an earlier backend would
 * open. */
static tkrt_status_t tkrt_parse_backend_list(const char* spec, const char* origin,
                                             const tkrt_hal_backend_t** out,
                                             size_t* out_count) {
  size_t known_count;
  const tkrt_hal_backend_t* const* known = tkrt_hal_registry_backends(&known_count);
  if (!spec || !*spec) {
    size_t n = known_count < TKRT_MAX_LISTED_BACKENDS ? known_count : TKRT_MAX_LISTED_BACKENDS;
    for (size_t i = 0; i < n; ++i) out[i] = known[i];
    *out_count = n;
    return NULL;
  }
  size_t count = 0;
  for (const char* cursor = spec; *cursor;) {
    while (*cursor == ',' || isspace((unsigned char)*cursor)) ++cursor;
    if (!*cursor) break;
    const char* end = cursor;
    while (*end && *end != ',') ++end;
    const char* last = end;
    while (last > cursor && isspace((unsigned char)last[-1])) --last;
    size_t length = (size_t)(last - cursor);
    char name[TKRT_BACKEND_NAME_MAX];
    snprintf(name, sizeof(name), "%.*s", (int)length, cursor);
    if (length < sizeof(name) && strcmp(name, TKRT_GROUP_FOREIGN_STREAMS) == 0) {
      /* The group: its members in default order, each once. */
      for (size_t i = 0; i < known_count; ++i) {
        if (!known[i]->foreign_streams || tkrt_backend_listed(out, count, known[i])) continue;
        if (count == TKRT_MAX_LISTED_BACKENDS) {
          return TKRT_STATUS_MAKE(TKRT_STATUS_INVALID_ARGUMENT, "too many backends listed in %s",
                                  origin);
        }
        out[count++] = known[i];
      }
      cursor = *end ? end + 1 : end;
      continue;
    }
    const tkrt_hal_backend_t* backend =
        length < sizeof(name) ? tkrt_hal_registry_find(name) : NULL;
    if (!backend) {
      char names[128];
      tkrt_hal_registry_names(names, sizeof(names));
      return TKRT_STATUS_MAKE(TKRT_STATUS_INVALID_ARGUMENT,
                              "unknown backend '%.*s' in %s ('%s'); known backends: %s",
                              (int)length, cursor, origin, spec, names);
    }
    if (count == TKRT_MAX_LISTED_BACKENDS) {
      return TKRT_STATUS_MAKE(TKRT_STATUS_INVALID_ARGUMENT, "too many backends listed in %s",
                              origin);
    }
    out[count++] = backend;
    cursor = *end ? end + 1 : end;
  }
  *out_count = count;
  return NULL;
}

/* What every entry point says of a backend the build left out. */
static tkrt_status_t tkrt_backend_not_compiled(const tkrt_hal_backend_t* backend) {
  char option[32];
  size_t n = 0;
  for (const char* c = backend->name; *c && n + 1 < sizeof(option); ++c) {
    option[n++] = (char)toupper((unsigned char)*c);
  }
  option[n] = '\0';
  return TKRT_STATUS_MAKE(TKRT_STATUS_UNAVAILABLE,
                          "not compiled into this build (its CMake option TKRT_BACKEND_%s was OFF)",
                          option);
}

static void tkrt_backend_info_fill(const tkrt_hal_backend_t* backend,
                                   const tkrt_device_options_t* options,
                                   tkrt_backend_info_t* info) {
  memset(info, 0, sizeof(*info));
  info->struct_size = sizeof(*info);
  tkrt_copy_text(info->name, sizeof(info->name), backend->name);
  int device_count = 0;
  tkrt_status_t status = backend->compiled ? backend->probe(options, &device_count)
                                           : tkrt_backend_not_compiled(backend);
  if (status) {
    tkrt_copy_text(info->reason, sizeof(info->reason), tkrt_status_message(status));
    tkrt_status_free(status);
  } else {
    info->available = true;
    info->device_count = device_count;
    snprintf(info->reason, sizeof(info->reason), "%d device%s", device_count,
             device_count == 1 ? "" : "s");
  }
}

tkrt_status_t tkrt_backend_list_with_options(const tkrt_device_options_t* caller_options,
                                             tkrt_backend_info_t* infos, size_t capacity,
                                             size_t* out_count) {
  TKRT_CHECK_ARG(out_count, "tkrt_backend_list: out_count is NULL");
  TKRT_CHECK_ARG(infos || capacity == 0, "tkrt_backend_list: infos is NULL");
  tkrt_device_options_t options;
  TKRT_RETURN_IF_ERROR(tkrt_read_device_options(caller_options, &options, "tkrt_backend_list"));
  const tkrt_hal_backend_t* listed[TKRT_MAX_LISTED_BACKENDS];
  size_t listed_count = 0;
  TKRT_RETURN_IF_ERROR(
      tkrt_parse_backend_list(options.backend, "the backend option", listed, &listed_count));
  /* The listed backends first, in their order, then the others in default order. */
  size_t known_count;
  const tkrt_hal_backend_t* const* known = tkrt_hal_registry_backends(&known_count);
  const tkrt_hal_backend_t* order[TKRT_MAX_LISTED_BACKENDS * 2];
  size_t count = 0;
  for (size_t i = 0; i < listed_count; ++i) {
    bool seen = false;
    for (size_t j = 0; j < count; ++j) seen = seen || order[j] == listed[i];
    if (!seen) order[count++] = listed[i];
  }
  for (size_t i = 0; i < known_count && count < sizeof(order) / sizeof(order[0]); ++i) {
    bool seen = false;
    for (size_t j = 0; j < count; ++j) seen = seen || order[j] == known[i];
    if (!seen) order[count++] = known[i];
  }
  for (size_t i = 0; i < count && i < capacity; ++i) {
    tkrt_backend_info_fill(order[i], &options, &infos[i]);
  }
  *out_count = count;
  return NULL;
}

tkrt_status_t tkrt_backend_list(tkrt_backend_info_t* infos, size_t capacity, size_t* out_count) {
  return tkrt_backend_list_with_options(NULL, infos, capacity, out_count);
}

tkrt_status_t tkrt_native_stream_ordinal(const char* backends, tkrt_stream_t stream,
                                         int* out_ordinal) {
  TKRT_CHECK_ARG(out_ordinal, "tkrt_native_stream_ordinal: out_ordinal is NULL");
  const tkrt_hal_backend_t* listed[TKRT_MAX_LISTED_BACKENDS];
  size_t count = 0;
  TKRT_RETURN_IF_ERROR(tkrt_parse_backend_list(
      backends && *backends ? backends : TKRT_GROUP_FOREIGN_STREAMS, "the backend list", listed,
      &count));
  char tried[1024];
  tried[0] = '\0';
  for (size_t i = 0; i < count; ++i) {
    tkrt_status_t status =
        !listed[i]->compiled ? tkrt_backend_not_compiled(listed[i])
        : listed[i]->native_stream_ordinal
            ? listed[i]->native_stream_ordinal((void*)stream, out_ordinal)
            : TKRT_STATUS_MAKE(TKRT_STATUS_NOT_FOUND, "it has no native streams");
    if (!status) return NULL;
    size_t used = strlen(tried);
    snprintf(tried + used, sizeof(tried) - used, "%s%s: %s", used ? "; " : "", listed[i]->name,
             tkrt_status_message(status));
    tkrt_status_free(status);
  }
  return TKRT_STATUS_MAKE(TKRT_STATUS_NOT_FOUND, "no backend recognises stream %p (%s)",
                          (void*)stream, tried);
}

tkrt_status_t tkrt_backend_resolve(const char* names, char* out, size_t capacity) {
  TKRT_CHECK_ARG(out && capacity, "tkrt_backend_resolve: no room for the answer");
  const tkrt_hal_backend_t* listed[TKRT_MAX_LISTED_BACKENDS];
  size_t count = 0;
  TKRT_RETURN_IF_ERROR(tkrt_parse_backend_list(names, "the backend names", listed, &count));
  char text[TKRT_MAX_LISTED_BACKENDS * TKRT_BACKEND_NAME_MAX] = "";
  for (size_t i = 0; i < count; ++i) {
    size_t used = strlen(text);
    snprintf(text + used, sizeof(text) - used, "%s%s", i ? "," : "", listed[i]->name);
  }
  TKRT_CHECK_ARG(strlen(text) < capacity, "tkrt_backend_resolve: '%s' needs %zu bytes, not %zu",
                 text, strlen(text) + 1, capacity);
  memcpy(out, text, strlen(text) + 1);
  return NULL;
}

tkrt_status_t tkrt_backend_describe(const char* name, tkrt_backend_description_t* out) {
  TKRT_CHECK_ARG(name && out, "tkrt_backend_describe: NULL argument");
  const tkrt_hal_backend_t* backend = tkrt_hal_registry_find(name);
  if (!backend) {
    char names[128];
    tkrt_hal_registry_names(names, sizeof(names));
    return TKRT_STATUS_MAKE(TKRT_STATUS_NOT_FOUND, "no backend is named '%s'; known backends: %s",
                            name, names);
  }
  tkrt_backend_description_t d;
  memset(&d, 0, sizeof(d));
  d.struct_size = sizeof(d);
  tkrt_copy_text(d.name, sizeof(d.name), backend->name);
  tkrt_copy_text(d.triton_target, sizeof(d.triton_target), backend->formats.triton_target);
  d.foreign_streams = backend->foreign_streams;
  for (size_t i = 0; i < backend->formats.image_format_count; ++i) {
    d.image_kinds |= 1u << backend->formats.image_formats[i].kind;
    if (backend->formats.image_formats[i].native_code) {
      d.native_code_kinds |= 1u << backend->formats.image_formats[i].kind;
    }
  }
  for (size_t i = 0;
       i < backend->formats.dlpack_device_type_count && i < TKRT_BACKEND_DLPACK_TYPES_MAX; ++i) {
    d.dlpack_device_types[d.dlpack_device_type_count++] = backend->formats.dlpack_device_types[i];
  }
  size_t room = tkrt_versioned_capacity(out, sizeof(d));
  TKRT_CHECK_ARG(room >= sizeof(size_t), "tkrt_backend_describe: out->struct_size is %zu",
                 room);
  d.struct_size = room;
  memcpy(out, &d, room);
  return NULL;
}

tkrt_status_t tkrt_backend_names(char* out, size_t capacity) {
  TKRT_CHECK_ARG(out && capacity, "tkrt_backend_names: no room for the answer");
  size_t count;
  const tkrt_hal_backend_t* const* known = tkrt_hal_registry_backends(&count);
  char text[TKRT_MAX_LISTED_BACKENDS * 4 * TKRT_BACKEND_NAME_MAX] = "";
  /* The names, then the aliases, then the group: the order the backend-list parser tries them. */
  for (size_t i = 0; i < count; ++i) {
    size_t used = strlen(text);
    snprintf(text + used, sizeof(text) - used, "%s%s", used ? "," : "", known[i]->name);
  }
  for (size_t i = 0; i < count; ++i) {
    for (const char* const* alias = known[i]->aliases; alias && *alias; ++alias) {
      size_t used = strlen(text);
      snprintf(text + used, sizeof(text) - used, "%s%s", used ? "," : "", *alias);
    }
  }
  size_t used = strlen(text);
  snprintf(text + used, sizeof(text) - used, "%s%s", used ? "," : "", TKRT_GROUP_FOREIGN_STREAMS);
  TKRT_CHECK_ARG(strlen(text) < capacity, "tkrt_backend_names: '%s' needs %zu bytes, not %zu",
                 text, strlen(text) + 1, capacity);
  memcpy(out, text, strlen(text) + 1);
  return NULL;
}

tkrt_status_t tkrt_image_kind_triton_files(tkrt_image_kind_t kind, const char** out_asm_key,
                                           const char** out_extension) {
  TKRT_CHECK_ARG(out_asm_key && out_extension, "tkrt_image_kind_triton_files: NULL argument");
  const tkrt_hal_backend_t* backend = NULL;
  const tkrt_hal_image_format_t* format = tkrt_hal_registry_format(kind, &backend);
  if (!format) {
    return TKRT_STATUS_MAKE(TKRT_STATUS_NOT_FOUND, "no backend loads image kind %d (%s)",
                            (int)kind, tkrt_image_kind_name(kind));
  }
  *out_asm_key = format->triton_asm_key;
  *out_extension = format->triton_extension;
  return NULL;
}

/* ---------------------------------------------------------------- devices */

/* Appends "; name: reason" to the list of attempts, truncating quietly when it is full. */
static void tkrt_append_attempt(char* tried, size_t capacity, const char* name,
                                const char* reason) {
  size_t used = strlen(tried);
  if (used + 1 >= capacity) return;
  snprintf(tried + used, capacity - used, "%s%s: %s", used ? "; " : "", name, reason);
}

tkrt_status_t tkrt_device_open(const tkrt_device_options_t* caller_options,
                               tkrt_device_t** out_device) {
  TKRT_CHECK_ARG(out_device, "tkrt_device_open: out_device is NULL");
  tkrt_device_options_t options;
  TKRT_RETURN_IF_ERROR(tkrt_read_device_options(caller_options, &options, "tkrt_device_open"));
  TKRT_CHECK_ARG(options.ordinal >= 0, "tkrt_device_open: negative device ordinal %d",
                 options.ordinal);
  const char* origin =
      options.backend && *options.backend ? "the backend option" : "the default order";
  const tkrt_hal_backend_t* listed[TKRT_MAX_LISTED_BACKENDS];
  size_t count = 0;
  TKRT_RETURN_IF_ERROR(tkrt_parse_backend_list(options.backend, origin, listed, &count));
  if (count == 0) {
    return TKRT_STATUS_MAKE(TKRT_STATUS_UNAVAILABLE, "no backend is listed in %s", origin);
  }
  if (options.log) tkrt_log_raise_level(TKRT_LOG_DEBUG); /* the option's old meaning: all of it */
  char tried[2048];
  tried[0] = '\0';
  tkrt_status_t only_status = NULL;
  for (size_t i = 0; i < count; ++i) {
    tkrt_device_t* device = NULL;
    tkrt_status_t status = listed[i]->compiled ? listed[i]->device_create(&options, &device)
                                               : tkrt_backend_not_compiled(listed[i]);
    if (!status) {
      device->allow_native_code_from_calls = options.allow_native_code_from_calls;
      *out_device = device;
      return NULL;
    }
    tkrt_append_attempt(tried, sizeof(tried), listed[i]->name, tkrt_status_message(status));
    if (count == 1) {
      only_status = status;
    } else {
      tkrt_status_free(status);
    }
  }
  if (only_status) {
    /* One backend was asked for: keep its own code (UNAVAILABLE, OUT_OF_RANGE, ...). */
    return tkrt_status_annotate(only_status, "opening %s device %d", listed[0]->name,
                                options.ordinal);
  }
  return TKRT_STATUS_MAKE(TKRT_STATUS_UNAVAILABLE,
                          "no backend could open device %d (order from %s): %s", options.ordinal,
                          origin, tried);
}

