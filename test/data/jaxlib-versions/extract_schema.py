# SPDX-License-Identifier: Apache-2.0
"""jaxlib's call proto (jaxlib/gpu/triton.proto) as a jaxlib CUDA plugin embeds it: protobuf's C++
runtime keeps each file's serialized FileDescriptorProto in the binary; this finds it by its file
name, reads its top-level fields to where they end, and describes its messages (field numbers,
types, oneofs, reserved numbers). Needs the protobuf package.

  extract_schema.py PLUGIN/_triton.so
"""
import re
import sys

from google.protobuf import descriptor_pb2


def _varint(data, i):
  value = shift = 0
  while True:
    byte = data[i]
    i += 1
    value |= (byte & 0x7F) << shift
    shift += 7
    if not byte & 0x80:
      return value, i


def extract(path):
  """The FileDescriptorProto of jaxlib/gpu/triton.proto embedded in the shared object `path`."""
  with open(path, "rb") as f:
    data = f.read()
  m = re.search(rb"\n.jaxlib/gpu/triton\.proto", data)
  if not m:
    raise SystemExit(f"extract_schema: no jaxlib/gpu/triton.proto descriptor in {path}")
  i = start = m.start()
  while i < len(data):  # FileDescriptorProto's fields are 1..14: stop at the first that is not
    tag, j = _varint(data, i)
    field, wire = tag >> 3, tag & 7
    if field < 1 or field > 14:
      break
    if wire == 2:
      length, j = _varint(data, j)
      j += length
    elif wire == 0:
      _, j = _varint(data, j)
    else:
      break
    i = j
  fd = descriptor_pb2.FileDescriptorProto()
  fd.ParseFromString(data[start:i])
  return fd


_TYPES = {v: k[5:].lower() for k, v in descriptor_pb2.FieldDescriptorProto.Type.items()}


def describe(fd):
  lines = [f"package {fd.package}"]

  def message(m, indent):
    lines.append(f"{indent}message {m.name}")
    for f in m.field:
      kind = f.type_name.rsplit(".", 1)[-1] if f.type_name else _TYPES[f.type]
      repeated = "repeated " if f.label == descriptor_pb2.FieldDescriptorProto.LABEL_REPEATED else ""
      extra = " (optional)" if f.proto3_optional else (
          f" (oneof {m.oneof_decl[f.oneof_index].name})" if f.HasField("oneof_index") else "")
      lines.append(f"{indent}  {f.number:3d} {f.name}: {repeated}{kind}{extra}")
    for r in m.reserved_range:
      lines.append(f"{indent}  reserved {r.start}" + (f"..{r.end - 1}" if r.end - 1 > r.start else ""))
    for nested in m.nested_type:
      message(nested, indent + "  ")

  for m in fd.message_type:
    message(m, "")
  return "\n".join(lines)


if __name__ == "__main__":
  print(describe(extract(sys.argv[1])))
