/* SPDX-License-Identifier: Apache-2.0 */
/* Test helper for the jaxlib version matrix (test/wire/test_jaxlib_versions.py): decodes a call
 * that some jaxlib serialized (its bytes as they are), gives every config's kernel a host image
 * too (the C port of the kernel), and writes the call with tkrt's encoder, so that `tkrt run` can
 * replay jaxlib's call on a CPU. Everything else of the decoded call is kept as decoded.
 *   jaxlib_attach_host IN_CALL OUT_CALL HOST_IMAGE */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tkrt/tkrt.h"

static void* read_all(const char* path, size_t* size) {
  FILE* f = fopen(path, "rb");
  if (!f) return NULL;
  void* data = NULL;
  if (fseek(f, 0, SEEK_END) == 0) {
    long n = ftell(f);
    if (n > 0 && fseek(f, 0, SEEK_SET) == 0 && (data = malloc((size_t)n)) != NULL &&
        fread(data, 1, (size_t)n, f) != (size_t)n) {
      free(data);
      data = NULL;
    }
    *size = n > 0 ? (size_t)n : 0;
  }
  fclose(f);
  return data;
}

static int fail(tkrt_status_t status, const char* what) {
  fprintf(stderr, "jaxlib_attach_host: %s: %s\n", what, tkrt_status_message(status));
  tkrt_status_free(status);
  return 1;
}

int main(int argc, char** argv) {
  if (argc != 4) {
    fprintf(stderr, "usage: jaxlib_attach_host IN_CALL OUT_CALL HOST_IMAGE\n");
    return 2;
  }
  size_t blob_size = 0, host_size = 0;
  void* blob = read_all(argv[1], &blob_size);
  void* host = read_all(argv[3], &host_size);
  if (!blob || !host) {
    fprintf(stderr, "jaxlib_attach_host: cannot read %s\n", blob ? argv[3] : argv[1]);
    return 1;
  }
  tkrt_call_t* call = NULL;
  tkrt_status_t status = tkrt_wire_decode(blob, blob_size, NULL, &call);
  if (status) return fail(status, argv[1]);
  const tkrt_call_desc_t* decoded = tkrt_call_get_desc(call);
  tkrt_config_desc_t* configs = calloc(decoded->config_count, sizeof(*configs));
  if (!configs) return 1;
  int rc = 0;
  size_t made = 0;
  for (size_t i = 0; i < decoded->config_count && !rc; ++i) {
    configs[i] = decoded->configs[i];
    const tkrt_kernel_desc_t* kd = tkrt_kernel_get_desc(decoded->configs[i].kernel);
    tkrt_kernel_image_t* images = calloc(kd->image_count + 1, sizeof(*images));
    if (!images) return 1;
    memcpy(images, kd->images, kd->image_count * sizeof(*images));
    images[kd->image_count] = (tkrt_kernel_image_t){.backend = "host", .kind = TKRT_IMAGE_HOST,
                                                    .data = host, .size = host_size};
    tkrt_kernel_desc_t with_host = *kd;
    with_host.images = images;
    with_host.image_count = kd->image_count + 1;
    status = tkrt_kernel_create(&with_host, &configs[i].kernel);
    free(images);
    if (status) {
      rc = fail(status, "tkrt_kernel_create");
    } else {
      ++made;
    }
  }
  tkrt_call_t* out = NULL;
  if (!rc) {
    tkrt_call_desc_t desc = *decoded;
    desc.configs = configs;
    status = tkrt_call_create(&desc, &out);
    if (status) rc = fail(status, "tkrt_call_create");
  }
  for (size_t i = 0; i < made; ++i) tkrt_kernel_release(configs[i].kernel);
  free(configs);
  if (!rc) {
    void* bytes = NULL;
    size_t size = 0;
    status = tkrt_wire_encode(out, NULL, &bytes, &size);
    if (status) {
      rc = fail(status, "tkrt_wire_encode");
    } else {
      FILE* f = fopen(argv[2], "wb");
      if (!f || fwrite(bytes, 1, size, f) != size) {
        fprintf(stderr, "jaxlib_attach_host: cannot write %s\n", argv[2]);
        rc = 1;
      }
      if (f && fclose(f) != 0) rc = 1;
      tkrt_wire_free(bytes);
    }
  }
  tkrt_call_release(out);
  tkrt_call_release(call);
  free(blob);
  free(host);
  return rc;
}
