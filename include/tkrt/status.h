/* SPDX-License-Identifier: Apache-2.0 */
/* tkrt: error reporting. A status is NULL on success, otherwise a heap object with a code
 * (absl numbering, identical to XLA FFI's), a message, and the file and line that made it. */
#ifndef TKRT_STATUS_H_
#define TKRT_STATUS_H_

#include <stdbool.h>
#include <stddef.h>

#include "tkrt/api.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef enum tkrt_status_code {
  TKRT_STATUS_OK = 0,
  TKRT_STATUS_CANCELLED = 1,
  TKRT_STATUS_UNKNOWN = 2,
  TKRT_STATUS_INVALID_ARGUMENT = 3,
  TKRT_STATUS_DEADLINE_EXCEEDED = 4,
  TKRT_STATUS_NOT_FOUND = 5,
  TKRT_STATUS_ALREADY_EXISTS = 6,
  TKRT_STATUS_PERMISSION_DENIED = 7,
  TKRT_STATUS_RESOURCE_EXHAUSTED = 8,
  TKRT_STATUS_FAILED_PRECONDITION = 9,
  TKRT_STATUS_ABORTED = 10,
  TKRT_STATUS_OUT_OF_RANGE = 11,
  TKRT_STATUS_UNIMPLEMENTED = 12,
  TKRT_STATUS_INTERNAL = 13,
  TKRT_STATUS_UNAVAILABLE = 14,
  TKRT_STATUS_DATA_LOSS = 15,
  TKRT_STATUS_UNAUTHENTICATED = 16,
} tkrt_status_code_t;

/* Opaque; NULL means OK. The caller owns a non-NULL status and must free it (or return it). */
typedef struct tkrt_status_s* tkrt_status_t;

/* Creates a status. code must not be TKRT_STATUS_OK (that is NULL). Never returns NULL for an
 * error code: when memory is exhausted a shared RESOURCE_EXHAUSTED status is returned instead. */
TKRT_MUST_USE TKRT_API tkrt_status_t tkrt_status_make(tkrt_status_code_t code, const char* file, int line,
                                        const char* format, ...) TKRT_PRINTF_LIKE(4, 5);

/* Prefixes the message with context ("context: message"); returns the same status.
 * NULL stays NULL, so `return tkrt_status_annotate(f(), "loading %s", name);` is fine. */
TKRT_MUST_USE TKRT_API tkrt_status_t tkrt_status_annotate(tkrt_status_t status, const char* format, ...)
    TKRT_PRINTF_LIKE(2, 3);

TKRT_API tkrt_status_code_t tkrt_status_code(tkrt_status_t status);
/* Lent; valid until the status is freed. "" for NULL. */
TKRT_API const char* tkrt_status_message(tkrt_status_t status);
TKRT_API const char* tkrt_status_file(tkrt_status_t status);
TKRT_API int tkrt_status_line(tkrt_status_t status);
/* "INVALID_ARGUMENT", ... ; "OK" for 0, "UNKNOWN_CODE" for out-of-range values. */
TKRT_API const char* tkrt_status_code_name(tkrt_status_code_t code);

/* Writes "CODE_NAME: message (file:line)" like snprintf: returns the length the full text needs
 * (excluding the NUL), and writes at most capacity bytes including the NUL. */
TKRT_API size_t tkrt_status_format(tkrt_status_t status, char* buffer, size_t capacity);
/* Same text as tkrt_status_format, heap-allocated; free() it. NULL on allocation failure. */
TKRT_API char* tkrt_status_to_string(tkrt_status_t status);

TKRT_API void tkrt_status_free(tkrt_status_t status);
/* The shared status (code UNAVAILABLE; freeing it does nothing) that a launch asked not to wait
 * returns where it would have to (TKRT_CALL_LAUNCH_NO_WAIT, tkrt_triton_bound_try_launch), and
 * the test for it. */
TKRT_API tkrt_status_t tkrt_status_would_wait(void);
TKRT_API bool tkrt_status_is_would_wait(tkrt_status_t status);

/* Frees the status and returns its code: for callers that only branch on the code. */
TKRT_API tkrt_status_code_t tkrt_status_consume_code(tkrt_status_t status);

#define TKRT_STATUS_MAKE(code, ...) tkrt_status_make((code), __FILE__, __LINE__, __VA_ARGS__)

#define TKRT_RETURN_IF_ERROR(expr)          \
  do {                                      \
    tkrt_status_t tkrt_status_tmp_ = (expr); \
    if (tkrt_status_tmp_) return tkrt_status_tmp_; \
  } while (0)

#ifdef __cplusplus
}
#endif

#endif /* TKRT_STATUS_H_ */
