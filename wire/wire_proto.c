/* SPDX-License-Identifier: Apache-2.0 */
/* tkrt wire: protobuf wire primitives (see wire_proto.h). Every read is checked against the end of
 * the enclosing message; nothing here trusts a length or a varint from the input. */
#include "wire/wire_proto.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---------------------------------------------------------------- reader */

void tkrt_wire_reader_init(tkrt_wire_reader_t* reader, const uint8_t* data, size_t size,
                           const char* where, const tkrt_wire_schema_t* schema) {
  reader->base = data;
  reader->p = data;
  reader->end = data + size;
  reader->where = where;
  reader->schema = schema;
}

void tkrt_wire_reader_sub(tkrt_wire_reader_t* sub, const tkrt_wire_reader_t* parent,
                          const tkrt_wire_field_t* field, const tkrt_wire_schema_t* schema) {
  sub->base = parent->base;
  sub->p = field->data;
  sub->end = field->data + field->size;
  sub->where = parent->where;
  sub->schema = schema;
}

bool tkrt_wire_reader_done(const tkrt_wire_reader_t* reader) { return reader->p >= reader->end; }

size_t tkrt_wire_reader_offset(const tkrt_wire_reader_t* reader) {
  return (size_t)(reader->p - reader->base);
}

const char* tkrt_wire_field_name(const tkrt_wire_schema_t* schema, uint32_t number) {
  if (schema) {
    for (size_t i = 0; i < schema->field_count; ++i) {
      if (schema->fields[i].number == number) return schema->fields[i].name;
    }
  }
  return NULL;
}

/* Formats "field N (Message.name): " into buf. */
static void tkrt_wire_field_prefix(const tkrt_wire_schema_t* schema, uint32_t number, char* buf,
                                   size_t capacity) {
  const char* name = tkrt_wire_field_name(schema, number);
  if (name) {
    snprintf(buf, capacity, "field %u (%s.%s): ", number, schema->message, name);
  } else if (schema) {
    snprintf(buf, capacity, "field %u (unknown in %s): ", number, schema->message);
  } else {
    snprintf(buf, capacity, "field %u: ", number);
  }
}

static tkrt_status_t tkrt_wire_field_verror(const tkrt_wire_reader_t* reader,
                                            const tkrt_wire_field_t* field,
                                            tkrt_status_code_t code, const char* format,
                                            va_list args) {
  char prefix[160];
  char text[512];
  tkrt_wire_field_prefix(reader->schema, field->number, prefix, sizeof(prefix));
  vsnprintf(text, sizeof(text), format, args);
  return TKRT_STATUS_MAKE(code, "%s%s", prefix, text);
}

tkrt_status_t tkrt_wire_field_error(const tkrt_wire_reader_t* reader,
                                    const tkrt_wire_field_t* field, const char* format, ...) {
  va_list args;
  va_start(args, format);
  tkrt_status_t status =
      tkrt_wire_field_verror(reader, field, TKRT_STATUS_INVALID_ARGUMENT, format, args);
  va_end(args);
  return status;
}

tkrt_status_t tkrt_wire_field_error_code(const tkrt_wire_reader_t* reader,
                                         const tkrt_wire_field_t* field, tkrt_status_code_t code,
                                         const char* format, ...) {
  va_list args;
  va_start(args, format);
  tkrt_status_t status = tkrt_wire_field_verror(reader, field, code, format, args);
  va_end(args);
  return status;
}

/* Decodes a varint at *p (< end). Returns 0 on success, 1 when truncated, 2 when longer than 10
 * bytes. Like libprotobuf, bits beyond 64 in the tenth byte are dropped. */
static int tkrt_wire_decode_varint(const uint8_t** p, const uint8_t* end, uint64_t* out) {
  uint64_t value = 0;
  const uint8_t* q = *p;
  for (int i = 0; i < 10; ++i) {
    if (q >= end) return 1;
    uint8_t byte = *q++;
    value |= (uint64_t)(byte & 0x7f) << (7 * i);
    if (!(byte & 0x80)) {
      *p = q;
      *out = value;
      return 0;
    }
  }
  return 2;
}

static tkrt_status_t tkrt_wire_varint_error(const tkrt_wire_reader_t* reader, const char* what,
                                            int kind, size_t offset) {
  return TKRT_STATUS_MAKE(TKRT_STATUS_INVALID_ARGUMENT, "%s%s at offset %zu %s",
                          kind == 1 ? "truncated varint" : "varint longer than 10 bytes", what,
                          offset, reader->where);
}

tkrt_status_t tkrt_wire_next_field(tkrt_wire_reader_t* reader, tkrt_wire_field_t* out_field) {
  tkrt_wire_field_t field;
  memset(&field, 0, sizeof(field));
  field.offset = tkrt_wire_reader_offset(reader);

  uint64_t tag = 0;
  const uint8_t* p = reader->p;
  int rc = tkrt_wire_decode_varint(&p, reader->end, &tag);
  if (rc) return tkrt_wire_varint_error(reader, " (field tag)", rc, field.offset);
  if (tag > UINT32_MAX) {
    return TKRT_STATUS_MAKE(TKRT_STATUS_INVALID_ARGUMENT,
                            "field tag %llu at offset %zu %s is out of range",
                            (unsigned long long)tag, field.offset, reader->where);
  }
  field.number = (uint32_t)(tag >> 3);
  field.wire_type = (uint32_t)(tag & 7);
  if (field.number == 0) {
    return TKRT_STATUS_MAKE(TKRT_STATUS_INVALID_ARGUMENT,
                            "invalid field number 0 at offset %zu %s", field.offset,
                            reader->where);
  }
  field.value_offset = (size_t)(p - reader->base);

  switch (field.wire_type) {
    case TKRT_WIRE_VARINT:
      rc = tkrt_wire_decode_varint(&p, reader->end, &field.value);
      if (rc) {
        return tkrt_wire_field_error(reader, &field, "%s at offset %zu %s",
                                     rc == 1 ? "truncated varint" : "varint longer than 10 bytes",
                                     field.value_offset, reader->where);
      }
      break;
    case TKRT_WIRE_I64:
    case TKRT_WIRE_I32: {
      size_t width = field.wire_type == TKRT_WIRE_I64 ? 8 : 4;
      size_t left = (size_t)(reader->end - p);
      if (left < width) {
        return tkrt_wire_field_error(reader, &field,
                                     "fixed%zu value needs %zu bytes but %zu are left at offset "
                                     "%zu %s",
                                     width * 8, width, left, field.value_offset, reader->where);
      }
      uint64_t bits = 0;
      for (size_t i = 0; i < width; ++i) bits |= (uint64_t)p[i] << (8 * i);
      field.value = bits;
      p += width;
      break;
    }
    case TKRT_WIRE_LEN: {
      uint64_t length = 0;
      rc = tkrt_wire_decode_varint(&p, reader->end, &length);
      if (rc) {
        return tkrt_wire_field_error(reader, &field, "%s (length) at offset %zu %s",
                                     rc == 1 ? "truncated varint" : "varint longer than 10 bytes",
                                     field.value_offset, reader->where);
      }
      size_t left = (size_t)(reader->end - p);
      if (length > left) {
        return tkrt_wire_field_error(reader, &field,
                                     "length %llu exceeds the %zu bytes left at offset %zu %s",
                                     (unsigned long long)length, left,
                                     (size_t)(p - reader->base), reader->where);
      }
      field.value_offset = (size_t)(p - reader->base);
      field.data = p;
      field.size = (size_t)length;
      p += length;
      break;
    }
    case TKRT_WIRE_SGROUP:
      return tkrt_wire_field_error(reader, &field,
                                   "wire type 3 (group) at offset %zu %s is not supported",
                                   field.offset, reader->where);
    case TKRT_WIRE_EGROUP:
      return tkrt_wire_field_error(reader, &field,
                                   "wire type 4 (end group) at offset %zu %s without a group",
                                   field.offset, reader->where);
    default:
      return tkrt_wire_field_error(reader, &field, "invalid wire type %u at offset %zu %s",
                                   field.wire_type, field.offset, reader->where);
  }
  field.end_offset = (size_t)(p - reader->base);
  reader->p = p;
  *out_field = field;
  return NULL;
}

tkrt_status_t tkrt_wire_read_packed_varint(tkrt_wire_reader_t* reader, const char* field_desc,
                                           uint64_t* out_value) {
  size_t offset = tkrt_wire_reader_offset(reader);
  const uint8_t* p = reader->p;
  int rc = tkrt_wire_decode_varint(&p, reader->end, out_value);
  if (rc) {
    return TKRT_STATUS_MAKE(TKRT_STATUS_INVALID_ARGUMENT, "%s: %s in packed data at offset %zu %s",
                            field_desc,
                            rc == 1 ? "truncated varint" : "varint longer than 10 bytes", offset,
                            reader->where);
  }
  reader->p = p;
  return NULL;
}

size_t tkrt_wire_utf8_check(const uint8_t* s, size_t size) {
  size_t i = 0;
  while (i < size) {
    uint8_t c = s[i];
    if (c < 0x80) {
      ++i;
      continue;
    }
    size_t need;
    uint32_t cp;
    uint32_t min;
    if ((c & 0xe0) == 0xc0) {
      need = 1, cp = c & 0x1f, min = 0x80;
    } else if ((c & 0xf0) == 0xe0) {
      need = 2, cp = c & 0x0f, min = 0x800;
    } else if ((c & 0xf8) == 0xf0) {
      need = 3, cp = c & 0x07, min = 0x10000;
    } else {
      return i;
    }
    if (size - i - 1 < need) return i;
    for (size_t k = 1; k <= need; ++k) {
      uint8_t cc = s[i + k];
      if ((cc & 0xc0) != 0x80) return i;
      cp = (cp << 6) | (cc & 0x3f);
    }
    if (cp < min || cp > 0x10ffff || (cp >= 0xd800 && cp <= 0xdfff)) return i;
    i += need + 1;
  }
  return size;
}

tkrt_status_t tkrt_wire_check_string(const tkrt_wire_reader_t* reader,
                                     const tkrt_wire_field_t* field, bool c_string) {
  size_t bad = tkrt_wire_utf8_check(field->data, field->size);
  if (bad != field->size) {
    return tkrt_wire_field_error(reader, field, "invalid UTF-8 in a string at offset %zu %s",
                                 field->value_offset + bad, reader->where);
  }
  if (c_string) {
    const uint8_t* nul = memchr(field->data, 0, field->size);
    if (nul) {
      return tkrt_wire_field_error(reader, field, "NUL byte in a string at offset %zu %s",
                                   field->value_offset + (size_t)(nul - field->data),
                                   reader->where);
    }
  }
  return NULL;
}

/* ---------------------------------------------------------------- writer */

void tkrt_wire_writer_init(tkrt_wire_writer_t* writer) { memset(writer, 0, sizeof(*writer)); }

void tkrt_wire_writer_free(tkrt_wire_writer_t* writer) {
  free(writer->data);
  memset(writer, 0, sizeof(*writer));
}

static bool tkrt_wire_reserve(tkrt_wire_writer_t* writer, size_t extra) {
  if (writer->failed) return false;
  if (extra > SIZE_MAX / 2 - writer->size) {
    writer->failed = true;
    return false;
  }
  size_t need = writer->size + extra;
  if (need <= writer->capacity) return true;
  size_t capacity = writer->capacity ? writer->capacity : 256;
  while (capacity < need) capacity *= 2;
  uint8_t* data = realloc(writer->data, capacity);
  if (!data) {
    writer->failed = true;
    return false;
  }
  writer->data = data;
  writer->capacity = capacity;
  return true;
}

void tkrt_wire_put_raw(tkrt_wire_writer_t* writer, const void* data, size_t size) {
  if (!size || !tkrt_wire_reserve(writer, size)) return;
  memcpy(writer->data + writer->size, data, size);
  writer->size += size;
}

static size_t tkrt_wire_varint_encode(uint64_t value, uint8_t out[10]) {
  size_t n = 0;
  while (value >= 0x80) {
    out[n++] = (uint8_t)(value | 0x80);
    value >>= 7;
  }
  out[n++] = (uint8_t)value;
  return n;
}

void tkrt_wire_put_varint(tkrt_wire_writer_t* writer, uint64_t value) {
  uint8_t bytes[10];
  tkrt_wire_put_raw(writer, bytes, tkrt_wire_varint_encode(value, bytes));
}

void tkrt_wire_put_tag(tkrt_wire_writer_t* writer, uint32_t number, uint32_t wire_type) {
  tkrt_wire_put_varint(writer, ((uint64_t)number << 3) | wire_type);
}

void tkrt_wire_put_varint_field(tkrt_wire_writer_t* writer, uint32_t number, uint64_t value) {
  tkrt_wire_put_tag(writer, number, TKRT_WIRE_VARINT);
  tkrt_wire_put_varint(writer, value);
}

void tkrt_wire_put_fixed32_field(tkrt_wire_writer_t* writer, uint32_t number, uint32_t bits) {
  uint8_t bytes[4];
  for (int i = 0; i < 4; ++i) bytes[i] = (uint8_t)(bits >> (8 * i));
  tkrt_wire_put_tag(writer, number, TKRT_WIRE_I32);
  tkrt_wire_put_raw(writer, bytes, sizeof(bytes));
}

void tkrt_wire_put_fixed64_field(tkrt_wire_writer_t* writer, uint32_t number, uint64_t bits) {
  uint8_t bytes[8];
  for (int i = 0; i < 8; ++i) bytes[i] = (uint8_t)(bits >> (8 * i));
  tkrt_wire_put_tag(writer, number, TKRT_WIRE_I64);
  tkrt_wire_put_raw(writer, bytes, sizeof(bytes));
}

void tkrt_wire_put_bytes_field(tkrt_wire_writer_t* writer, uint32_t number, const void* data,
                               size_t size) {
  tkrt_wire_put_tag(writer, number, TKRT_WIRE_LEN);
  tkrt_wire_put_varint(writer, size);
  tkrt_wire_put_raw(writer, data, size);
}

size_t tkrt_wire_begin_message(tkrt_wire_writer_t* writer, uint32_t number) {
  tkrt_wire_put_tag(writer, number, TKRT_WIRE_LEN);
  return writer->size;
}

void tkrt_wire_end_message(tkrt_wire_writer_t* writer, size_t start) {
  if (writer->failed) return;
  size_t length = writer->size - start;
  uint8_t prefix[10];
  size_t n = tkrt_wire_varint_encode(length, prefix);
  if (!tkrt_wire_reserve(writer, n)) return;
  memmove(writer->data + start + n, writer->data + start, length);
  memcpy(writer->data + start, prefix, n);
  writer->size += n;
}
