/* SPDX-License-Identifier: Apache-2.0 */
/* tkrt status objects: creation, annotation, formatting. An allocation failure while building a
 * status yields a shared, immortal RESOURCE_EXHAUSTED status, so errors are never lost. */
#include "tkrt/status.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct tkrt_status_s {
  tkrt_status_code_t code;
  int line;
  const char* file;
  int immortal;
  char* message;
};

static struct tkrt_status_s tkrt_status_out_of_memory = {
    TKRT_STATUS_RESOURCE_EXHAUSTED, __LINE__, __FILE__, 1,
    (char*)"out of host memory while reporting an error"};

/* What a launch that may not wait answers where it would (TKRT_CALL_LAUNCH_NO_WAIT). */
static struct tkrt_status_s tkrt_status_would_wait_ = {
    TKRT_STATUS_UNAVAILABLE, __LINE__, __FILE__, 1,
    (char*)"the launch would wait (to prepare or decide the call, or to grow its scratch) and "
           "was asked not to: nothing was enqueued; launch again without the no-wait flag"};

tkrt_status_t tkrt_status_would_wait(void) { return &tkrt_status_would_wait_; }

bool tkrt_status_is_would_wait(tkrt_status_t status) { return status == &tkrt_status_would_wait_; }

static const char* tkrt_file_basename(const char* file) {
  if (!file) return "";
  const char* slash = strrchr(file, '/');
  return slash ? slash + 1 : file;
}

static char* tkrt_vformat(const char* format, va_list args) {
  va_list copy;
  va_copy(copy, args);
  int needed = vsnprintf(NULL, 0, format, copy);
  va_end(copy);
  if (needed < 0) needed = 0;
  char* text = malloc((size_t)needed + 1);
  if (!text) return NULL;
  vsnprintf(text, (size_t)needed + 1, format, args);
  return text;
}

tkrt_status_t tkrt_status_make(tkrt_status_code_t code, const char* file, int line,
                               const char* format, ...) {
  if (code == TKRT_STATUS_OK) code = TKRT_STATUS_INTERNAL; /* OK is NULL; never build one */
  struct tkrt_status_s* status = calloc(1, sizeof(*status));
  if (!status) return &tkrt_status_out_of_memory;
  va_list args;
  va_start(args, format);
  status->message = tkrt_vformat(format ? format : "", args);
  va_end(args);
  if (!status->message) {
    free(status);
    return &tkrt_status_out_of_memory;
  }
  status->code = code;
  status->file = tkrt_file_basename(file);
  status->line = line;
  return status;
}

tkrt_status_t tkrt_status_annotate(tkrt_status_t status, const char* format, ...) {
  if (!status || status->immortal) return status;
  va_list args;
  va_start(args, format);
  char* context = tkrt_vformat(format ? format : "", args);
  va_end(args);
  if (!context) return status; /* keep the original error rather than lose it */
  size_t context_len = strlen(context), message_len = strlen(status->message);
  char* joined = malloc(context_len + 2 + message_len + 1);
  if (joined) {
    memcpy(joined, context, context_len);
    memcpy(joined + context_len, ": ", 2);
    memcpy(joined + context_len + 2, status->message, message_len + 1);
    free(status->message);
    status->message = joined;
  }
  free(context);
  return status;
}

tkrt_status_code_t tkrt_status_code(tkrt_status_t status) {
  return status ? status->code : TKRT_STATUS_OK;
}

const char* tkrt_status_message(tkrt_status_t status) { return status ? status->message : ""; }
const char* tkrt_status_file(tkrt_status_t status) { return status ? status->file : ""; }
int tkrt_status_line(tkrt_status_t status) { return status ? status->line : 0; }

const char* tkrt_status_code_name(tkrt_status_code_t code) {
  switch (code) {
    case TKRT_STATUS_OK: return "OK";
    case TKRT_STATUS_CANCELLED: return "CANCELLED";
    case TKRT_STATUS_UNKNOWN: return "UNKNOWN";
    case TKRT_STATUS_INVALID_ARGUMENT: return "INVALID_ARGUMENT";
    case TKRT_STATUS_DEADLINE_EXCEEDED: return "DEADLINE_EXCEEDED";
    case TKRT_STATUS_NOT_FOUND: return "NOT_FOUND";
    case TKRT_STATUS_ALREADY_EXISTS: return "ALREADY_EXISTS";
    case TKRT_STATUS_PERMISSION_DENIED: return "PERMISSION_DENIED";
    case TKRT_STATUS_RESOURCE_EXHAUSTED: return "RESOURCE_EXHAUSTED";
    case TKRT_STATUS_FAILED_PRECONDITION: return "FAILED_PRECONDITION";
    case TKRT_STATUS_ABORTED: return "ABORTED";
    case TKRT_STATUS_OUT_OF_RANGE: return "OUT_OF_RANGE";
    case TKRT_STATUS_UNIMPLEMENTED: return "UNIMPLEMENTED";
    case TKRT_STATUS_INTERNAL: return "INTERNAL";
    case TKRT_STATUS_UNAVAILABLE: return "UNAVAILABLE";
    case TKRT_STATUS_DATA_LOSS: return "DATA_LOSS";
    case TKRT_STATUS_UNAUTHENTICATED: return "UNAUTHENTICATED";
  }
  return "UNKNOWN_CODE";
}

size_t tkrt_status_format(tkrt_status_t status, char* buffer, size_t capacity) {
  int needed;
  if (!status) {
    needed = snprintf(buffer, capacity, "OK");
  } else {
    needed = snprintf(buffer, capacity, "%s: %s (%s:%d)", tkrt_status_code_name(status->code),
                      status->message, status->file, status->line);
  }
  return needed < 0 ? 0 : (size_t)needed;
}

char* tkrt_status_to_string(tkrt_status_t status) {
  size_t needed = tkrt_status_format(status, NULL, 0);
  char* text = malloc(needed + 1);
  if (text) tkrt_status_format(status, text, needed + 1);
  return text;
}

void tkrt_status_free(tkrt_status_t status) {
  if (!status || status->immortal) return;
  free(status->message);
  free(status);
}

tkrt_status_code_t tkrt_status_consume_code(tkrt_status_t status) {
  tkrt_status_code_t code = tkrt_status_code(status);
  tkrt_status_free(status);
  return code;
}
