/* SPDX-License-Identifier: Apache-2.0 */
/* tkrt wire: protobuf wire primitives for the jaxlib codec: a bounds-checked field reader whose
 * errors name the field and the byte offset, and a growable writer. Schema-free. */
#ifndef TKRT_WIRE_PROTO_H_
#define TKRT_WIRE_PROTO_H_

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "tkrt/status.h"

enum {
  TKRT_WIRE_VARINT = 0,
  TKRT_WIRE_I64 = 1,
  TKRT_WIRE_LEN = 2,
  TKRT_WIRE_SGROUP = 3,
  TKRT_WIRE_EGROUP = 4,
  TKRT_WIRE_I32 = 5,
};

/* Largest field number protobuf allows (2^29 - 1). */
#define TKRT_WIRE_MAX_FIELD_NUMBER 536870911u

/* Field names of one message type, for error messages ("field 5 (TritonKernelCall.parameters)"). */
typedef struct tkrt_wire_field_name {
  uint32_t number;
  const char* name;
} tkrt_wire_field_name_t;

typedef struct tkrt_wire_schema {
  const char* message; /* "TritonKernelCall" */
  const tkrt_wire_field_name_t* fields;
  size_t field_count;
} tkrt_wire_schema_t;

/* Reads the fields of one message: [p, end) inside a whole message that starts at base, so that
 * offsets in errors are relative to the whole (decompressed) message. */
typedef struct tkrt_wire_reader {
  const uint8_t* base;
  const uint8_t* p;
  const uint8_t* end;
  const char* where; /* "in the decompressed message" or "in the message" */
  const tkrt_wire_schema_t* schema; /* may be NULL: fields are then unnamed */
} tkrt_wire_reader_t;

typedef struct tkrt_wire_field {
  uint32_t number;
  uint32_t wire_type;
  size_t offset;       /* of the tag */
  size_t value_offset; /* of the value; for LEN, of the payload (after the length) */
  size_t end_offset;   /* one past the value */
  uint64_t value;      /* VARINT, I64, I32 (the raw bits, little-endian decoded) */
  const uint8_t* data; /* LEN: the payload */
  size_t size;         /* LEN: the payload size */
} tkrt_wire_field_t;

/* A reader over a whole message. */
void tkrt_wire_reader_init(tkrt_wire_reader_t* reader, const uint8_t* data, size_t size,
                           const char* where, const tkrt_wire_schema_t* schema);
/* A reader over the payload of a LEN field read by `parent`. */
void tkrt_wire_reader_sub(tkrt_wire_reader_t* sub, const tkrt_wire_reader_t* parent,
                          const tkrt_wire_field_t* field, const tkrt_wire_schema_t* schema);
bool tkrt_wire_reader_done(const tkrt_wire_reader_t* reader);
size_t tkrt_wire_reader_offset(const tkrt_wire_reader_t* reader);

/* Reads the next field (tag and value) and advances past it, so that a caller skips a field
 * simply by ignoring it. Groups, invalid wire types, field number 0, truncated or overlong
 * varints and lengths past the end of the message are INVALID_ARGUMENT with the offset. */
tkrt_status_t tkrt_wire_next_field(tkrt_wire_reader_t* reader, tkrt_wire_field_t* out_field);

/* Reads one varint of a packed repeated field (reader over the packed payload). */
tkrt_status_t tkrt_wire_read_packed_varint(tkrt_wire_reader_t* reader, const char* field_desc,
                                           uint64_t* out_value);

/* "TritonKernelCall.parameters" for a schema'd reader, else "?"; for messages. */
const char* tkrt_wire_field_name(const tkrt_wire_schema_t* schema, uint32_t number);

/* An INVALID_ARGUMENT "field N (Message.name) at offset X <where>: <what>". */
tkrt_status_t tkrt_wire_field_error(const tkrt_wire_reader_t* reader,
                                    const tkrt_wire_field_t* field, const char* format, ...)
    TKRT_PRINTF_LIKE(3, 4);
/* The same with another status code (RESOURCE_EXHAUSTED for the decoder's budgets). */
tkrt_status_t tkrt_wire_field_error_code(const tkrt_wire_reader_t* reader,
                                         const tkrt_wire_field_t* field, tkrt_status_code_t code,
                                         const char* format, ...) TKRT_PRINTF_LIKE(4, 5);

/* Validates UTF-8 as protobuf does for proto3 strings: no overlong forms, no surrogates, nothing
 * above U+10FFFF. Returns the offset of the first bad byte, or size when valid. The decoder's
 * string checks and the encoder use it, so what one writes the other reads. */
size_t tkrt_wire_utf8_check(const uint8_t* s, size_t size);

/* Checks that a string field is valid UTF-8 (as libprotobuf does for proto3 strings) and, when
 * c_string, holds no NUL byte (tkrt keeps such strings NUL-terminated). */
tkrt_status_t tkrt_wire_check_string(const tkrt_wire_reader_t* reader,
                                     const tkrt_wire_field_t* field, bool c_string);

/* ---------------------------------------------------------------- writer
 * Errors are sticky: the writer records the first failure (out of memory, size overflow) and
 * ignores later writes, so that encoders check once at the end. */
typedef struct tkrt_wire_writer {
  uint8_t* data;
  size_t size;
  size_t capacity;
  bool failed;
} tkrt_wire_writer_t;

void tkrt_wire_writer_init(tkrt_wire_writer_t* writer);
void tkrt_wire_writer_free(tkrt_wire_writer_t* writer);
void tkrt_wire_put_raw(tkrt_wire_writer_t* writer, const void* data, size_t size);
void tkrt_wire_put_varint(tkrt_wire_writer_t* writer, uint64_t value);
void tkrt_wire_put_tag(tkrt_wire_writer_t* writer, uint32_t number, uint32_t wire_type);
void tkrt_wire_put_varint_field(tkrt_wire_writer_t* writer, uint32_t number, uint64_t value);
void tkrt_wire_put_fixed32_field(tkrt_wire_writer_t* writer, uint32_t number, uint32_t bits);
void tkrt_wire_put_fixed64_field(tkrt_wire_writer_t* writer, uint32_t number, uint64_t bits);
void tkrt_wire_put_bytes_field(tkrt_wire_writer_t* writer, uint32_t number, const void* data,
                               size_t size);
/* Nested messages: begin writes the tag and returns the position of the payload; end inserts the
 * payload length before it (a memmove; the nesting of the jaxlib schema is shallow). */
size_t tkrt_wire_begin_message(tkrt_wire_writer_t* writer, uint32_t number);
void tkrt_wire_end_message(tkrt_wire_writer_t* writer, size_t start);

#endif /* TKRT_WIRE_PROTO_H_ */
