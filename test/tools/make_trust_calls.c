/* SPDX-License-Identifier: Apache-2.0 */
/* Writes the serialized calls of the trust tests (test/tools/trust_cli_test.sh), each carrying the
 * marker host image (kernels/marker_kernel.c) in a different place:
 *   tkrt_field      tkrt's own image field
 *   module_image    jaxlib's TritonKernel.module_image
 *   missing_kernel  tkrt's field, for a kernel name the image does not have
 *   unselected      an autotuned call whose config 1 (never selected with --pin 0) has it
 *   escape_name     names and descriptions holding terminal escape sequences (for dump)
 *   utf8_name       a name holding UTF-8 text ("café €"; the wire format refuses strings that are
 *                   not UTF-8) and metadata bytes that are not UTF-8 (for dump --json)
 *   hsaco_path      a ROCm-style call naming an HSACO file by path, bytes not carried
 *   many_configs    an autotuned call of 1014 configs (all the copy kernel; descriptions
 *                   "config <i>"), for tune's table beyond 256 configs (issue 23, D14)
 * Each folder holds call.pb.z, in0.bin (16 bytes) and out0.bin (the same bytes: a copy kernel).
 *   make_trust_calls <out dir> <marker image> */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "tkrt/tkrt.h"
#include "tkrt/wire.h"

#define BYTES 16

static void* read_all(const char* path, size_t* size) {
  FILE* f = fopen(path, "rb");
  if (!f) return NULL;
  fseek(f, 0, SEEK_END);
  long n = ftell(f);
  fseek(f, 0, SEEK_SET);
  void* data = n > 0 ? malloc((size_t)n) : NULL;
  if (data && fread(data, 1, (size_t)n, f) != (size_t)n) {
    free(data);
    data = NULL;
  }
  fclose(f);
  *size = data ? (size_t)n : 0;
  return data;
}

static int write_all(const char* dir, const char* name, const void* data, size_t size) {
  char path[4096];
  snprintf(path, sizeof(path), "%s/%s", dir, name);
  FILE* f = fopen(path, "wb");
  if (!f) return 0;
  int ok = fwrite(data, 1, size, f) == size;
  return (fclose(f) == 0) && ok;
}

static tkrt_status_t make_kernel(const char* name, const void* image, size_t size,
                                 tkrt_image_origin_t origin, tkrt_kernel_t** out) {
  tkrt_kernel_image_t images[1] = {{.backend = "host", .kind = TKRT_IMAGE_HOST, .data = image,
                                    .size = size, .origin = origin}};
  tkrt_kernel_desc_t desc;
  tkrt_kernel_desc_init(&desc);
  desc.name = name;
  desc.num_warps = 1;
  desc.images = images;
  desc.image_count = 1;
  return tkrt_kernel_create(&desc, out);
}

static tkrt_status_t write_case_as(const char* root, const char* name, const char* call_name,
                                   bool tkrt_images, tkrt_kernel_t* k0, tkrt_kernel_t* k1) {
  char dir[4096];
  snprintf(dir, sizeof(dir), "%s/%s", root, name);
  if (mkdir(dir, 0755) != 0 && errno != EEXIST) {
    return TKRT_STATUS_MAKE(TKRT_STATUS_INTERNAL, "mkdir %s failed", dir);
  }
  tkrt_param_t params[2] = {{.kind = TKRT_PARAM_ARRAY}, {.kind = TKRT_PARAM_ARRAY}};
  tkrt_config_desc_t configs[2] = {
      {.kernel = k0, .grid = {BYTES, 1, 1}, .params = params, .param_count = 2,
       .description = call_name == name ? "first" : "\x1b[2J\x1b]0;title\x07"},
      {.kernel = k1, .grid = {BYTES, 1, 1}, .params = params, .param_count = 2,
       .description = "second"}};
  tkrt_call_desc_t desc;
  tkrt_call_desc_init(&desc);
  desc.name = call_name;
  if (strcmp(name, "utf8_name") == 0) {
    static const char metadata[] = "ok \xc3\xa9 \xff\xc3( \xed\xa0\x80 \xf0\x9f\x98\x80";
    desc.metadata = metadata;
    desc.metadata_size = sizeof(metadata) - 1;
  }
  desc.configs = configs;
  desc.config_count = k1 ? 2 : 1;
  desc.autotuned = k1 != NULL;
  tkrt_call_t* call = NULL;
  TKRT_RETURN_IF_ERROR(tkrt_call_create(&desc, &call));
  void* blob = NULL;
  size_t blob_size = 0;
  tkrt_wire_encode_options_t options;
  tkrt_wire_encode_options_init(&options);
  options.include_tkrt_images = tkrt_images;
  tkrt_status_t status = tkrt_wire_encode(call, &options, &blob, &blob_size);
  tkrt_call_release(call);
  if (status) return status;
  unsigned char data[BYTES];
  for (int i = 0; i < BYTES; ++i) data[i] = (unsigned char)(i * 13 + 1);
  int ok = write_all(dir, "call.pb.z", blob, blob_size) && write_all(dir, "in0.bin", data, BYTES) &&
           write_all(dir, "out0.bin", data, BYTES);
  tkrt_wire_free(blob);
  return ok ? NULL : TKRT_STATUS_MAKE(TKRT_STATUS_INTERNAL, "writing %s failed", dir);
}

static tkrt_status_t write_case(const char* root, const char* name, tkrt_kernel_t* k0,
                                tkrt_kernel_t* k1) {
  return write_case_as(root, name, name, true, k0, k1);
}

/* An autotuned call of `count` configs of one kernel, each described as "config <i>". */
static tkrt_status_t write_many_case(const char* root, const char* name, tkrt_kernel_t* k,
                                     size_t count) {
  char dir[4096];
  snprintf(dir, sizeof(dir), "%s/%s", root, name);
  if (mkdir(dir, 0755) != 0 && errno != EEXIST) {
    return TKRT_STATUS_MAKE(TKRT_STATUS_INTERNAL, "mkdir %s failed", dir);
  }
  tkrt_param_t params[2] = {{.kind = TKRT_PARAM_ARRAY}, {.kind = TKRT_PARAM_ARRAY}};
  tkrt_config_desc_t* configs = calloc(count, sizeof(*configs));
  char(*descriptions)[32] = calloc(count, sizeof(*descriptions));
  if (!configs || !descriptions) {
    free(configs);
    free(descriptions);
    return TKRT_STATUS_MAKE(TKRT_STATUS_RESOURCE_EXHAUSTED, "out of memory");
  }
  for (size_t i = 0; i < count; ++i) {
    snprintf(descriptions[i], sizeof(descriptions[i]), "config %zu", i);
    configs[i] = (tkrt_config_desc_t){.kernel = k, .grid = {BYTES, 1, 1}, .params = params,
                                      .param_count = 2, .description = descriptions[i]};
  }
  tkrt_call_desc_t desc;
  tkrt_call_desc_init(&desc);
  desc.name = name;
  desc.configs = configs;
  desc.config_count = count;
  desc.autotuned = true;
  tkrt_call_t* call = NULL;
  tkrt_status_t status = tkrt_call_create(&desc, &call);
  free(configs);
  free(descriptions);
  TKRT_RETURN_IF_ERROR(status);
  void* blob = NULL;
  size_t blob_size = 0;
  tkrt_wire_encode_options_t options;
  tkrt_wire_encode_options_init(&options);
  options.include_tkrt_images = true;
  status = tkrt_wire_encode(call, &options, &blob, &blob_size);
  tkrt_call_release(call);
  if (status) return status;
  unsigned char data[BYTES];
  for (int i = 0; i < BYTES; ++i) data[i] = (unsigned char)(i * 13 + 1);
  int ok = write_all(dir, "call.pb.z", blob, blob_size) && write_all(dir, "in0.bin", data, BYTES) &&
           write_all(dir, "out0.bin", data, BYTES);
  tkrt_wire_free(blob);
  return ok ? NULL : TKRT_STATUS_MAKE(TKRT_STATUS_INTERNAL, "writing %s failed", dir);
}

/* Appends a protobuf varint. */
static size_t put_varint(unsigned char* out, uint64_t value) {
  size_t n = 0;
  do {
    out[n] = (unsigned char)(value & 0x7f);
    value >>= 7;
    if (value) out[n] |= 0x80;
    ++n;
  } while (value);
  return n;
}

/* Appends field `number` (length-delimited) holding `size` bytes. */
static size_t put_bytes(unsigned char* out, uint32_t number, const void* data, size_t size) {
  size_t n = put_varint(out, (uint64_t)number << 3 | 2);
  n += put_varint(out + n, size);
  memcpy(out + n, data, size);
  return n + size;
}

/* A jaxlib-style ROCm call whose TritonKernel.ptx (field 4) names an HSACO file: kernel
 * add_kernel, 4 warps, grid BYTES x 1 x 1, two array parameters. */
static tkrt_status_t write_hsaco_path_case(const char* root, const char* path) {
  unsigned char kernel[512], call[1024], any[1100];
  size_t k = put_bytes(kernel, 1, "add_kernel", 10);
  k += put_varint(kernel + k, 2 << 3 | 0);
  k += put_varint(kernel + k, 4);
  k += put_bytes(kernel + k, 4, path, strlen(path));
  static const unsigned char array_param[2] = {0x0a, 0x00}; /* Parameter{array: {}} */
  size_t c = put_bytes(call, 1, kernel, k);
  c += put_varint(call + c, 2 << 3 | 0);
  c += put_varint(call + c, BYTES);
  c += put_varint(call + c, 3 << 3 | 0);
  c += put_varint(call + c, 1);
  c += put_varint(call + c, 4 << 3 | 0);
  c += put_varint(call + c, 1);
  for (int i = 0; i < 2; ++i) c += put_bytes(call + c, 5, array_param, sizeof(array_param));
  size_t a = put_bytes(any, 1, call, c);
  a += put_bytes(any + a, 4, "hsaco_path", 10);
  char dir[4096];
  snprintf(dir, sizeof(dir), "%s/hsaco_path", root);
  if (mkdir(dir, 0755) != 0 && errno != EEXIST) {
    return TKRT_STATUS_MAKE(TKRT_STATUS_INTERNAL, "mkdir %s failed", dir);
  }
  unsigned char data[BYTES];
  for (int i = 0; i < BYTES; ++i) data[i] = (unsigned char)(i * 13 + 1);
  int ok = write_all(dir, "call.pb", any, a) && write_all(dir, "in0.bin", data, BYTES) &&
           write_all(dir, "out0.bin", data, BYTES);
  return ok ? NULL : TKRT_STATUS_MAKE(TKRT_STATUS_INTERNAL, "writing %s failed", dir);
}

int main(int argc, char** argv) {
  if (argc != 3) {
    fprintf(stderr, "usage: make_trust_calls <out dir> <marker image>\n");
    return 2;
  }
  size_t size = 0;
  void* image = read_all(argv[2], &size);
  if (!image || (mkdir(argv[1], 0755) != 0 && errno != EEXIST)) {
    fprintf(stderr, "make_trust_calls: cannot read %s or create %s\n", argv[2], argv[1]);
    return 1;
  }
  tkrt_kernel_t *field = NULL, *module = NULL, *missing = NULL;
  tkrt_status_t status = make_kernel("marker_copy", image, size, TKRT_IMAGE_ORIGIN_API, &field);
  if (!status) {
    status = make_kernel("marker_copy", image, size, TKRT_IMAGE_ORIGIN_MODULE_IMAGE, &module);
  }
  if (!status) status = make_kernel("no_such_kernel", image, size, TKRT_IMAGE_ORIGIN_API, &missing);
  if (!status) status = write_case(argv[1], "tkrt_field", field, NULL);
  if (!status) status = write_case(argv[1], "module_image", module, NULL);
  if (!status) status = write_case(argv[1], "missing_kernel", missing, NULL);
  if (!status) status = write_case(argv[1], "unselected", field, module);
  if (!status) {
    status = write_case_as(argv[1], "escape_name", "evil\x1b]0;pwned\x07\x1b[31m", true, field,
                           NULL);
  }
  if (!status) {
    status = write_case_as(argv[1], "utf8_name", "caf\xc3\xa9 \xe2\x82\xac \x01", true, field, NULL);
  }
  /* Only the path travels (no tkrt image field), as in jaxlib's ROCm blobs: a raw
   * TritonAnyKernelCall written here (the public API builds kernels from bytes, not paths). */
  if (!status) status = write_hsaco_path_case(argv[1], "no-such-folder/../../kernel.hsaco");
  if (!status) status = write_many_case(argv[1], "many_configs", field, 1014);
  tkrt_kernel_release(field);
  tkrt_kernel_release(module);
  tkrt_kernel_release(missing);
  free(image);
  if (status) {
    char* text = tkrt_status_to_string(status);
    fprintf(stderr, "make_trust_calls: %s\n", text ? text : "error");
    free(text);
    tkrt_status_free(status);
    return 1;
  }
  return 0;
}
