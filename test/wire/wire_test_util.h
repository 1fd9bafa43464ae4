/* SPDX-License-Identifier: Apache-2.0 */
/* Helpers shared by the wire codec tests: the vectors, field-by-field comparison of calls, and
 * building protobuf messages by hand with the codec's own writer. */
#ifndef TKRT_TEST_WIRE_UTIL_H_
#define TKRT_TEST_WIRE_UTIL_H_

#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "wire/wire_internal.h"
#include "wire/wire_proto.h"
#include "test/harness.h"
#include "tkrt/call.h"
#include "tkrt/wire.h"

static const char* g_vectors_dir; /* argv[1] */

static const char* const kVectorNames[] = {
    "add_f32",          "alias_inplace", "autotuned_alias", "cluster_num_ctas2",
    "matmul_autotuned", "scalars",       "tma_param",       "zeroed_accumulate",
};
#define WT_VECTOR_COUNT (sizeof(kVectorNames) / sizeof(kVectorNames[0]))

static inline bool wt_have_vectors(void) {
  struct stat st;
  return g_vectors_dir && stat(g_vectors_dir, &st) == 0 && S_ISDIR(st.st_mode);
}

/* Reads <vectors>/<name>/<file>; NULL when missing. */
static inline void* wt_read_vector(const char* name, const char* file, size_t* out_size) {
  char path[4096];
  snprintf(path, sizeof(path), "%s/%s/%s", g_vectors_dir, name, file);
  return tkrt_test_read_file(path, out_size);
}

static inline tkrt_status_t wt_decode(const void* data, size_t size, tkrt_call_t** out) {
  tkrt_wire_decode_options_t options;
  tkrt_wire_decode_options_init(&options);
  options.read_hsaco_files = false;
  return tkrt_wire_decode(data, size, &options, out);
}

static inline tkrt_status_t wt_encode_raw(const tkrt_call_t* call, bool tkrt_images, void** out,
                                   size_t* out_size) {
  tkrt_wire_encode_options_t options;
  tkrt_wire_encode_options_init(&options);
  options.compress = false;
  options.include_tkrt_images = tkrt_images;
  return tkrt_wire_encode(call, &options, out, out_size);
}

/* ---------------------------------------------------------------- comparison */

static inline bool wt_str_eq(const char* a, const char* b) {
  if (!a || !b) return a == b;
  return strcmp(a, b) == 0;
}

static inline bool wt_bytes_eq(const void* a, size_t an, const void* b, size_t bn) {
  return an == bn && (an == 0 || memcmp(a, b, an) == 0);
}

/* The codec's side record of a decoded kernel (wire/wire_internal.h); NULL when built in C. */
static inline const tkrt_wire_side_record_t* wt_side(const tkrt_kernel_t* kernel) {
  return tkrt_wire_side_record(kernel);
}

/* The path kept for image `index` of a decoded kernel, or NULL. */
static inline const char* wt_source_path(const tkrt_kernel_t* kernel, size_t index) {
  return tkrt_wire_side_source_path(tkrt_wire_side_record(kernel), index);
}

/* What the side records say: optional fields present and the raw cluster dims. */
static inline bool wt_sides_equal(const tkrt_kernel_t* a, const tkrt_kernel_t* b) {
  const tkrt_wire_side_record_t* x = wt_side(a);
  const tkrt_wire_side_record_t* y = wt_side(b);
  if (!x || !y) return x == y;
  return x->present == y->present &&
         memcmp(x->cluster_dims, y->cluster_dims, sizeof(x->cluster_dims)) == 0 &&
         x->image_count == y->image_count;
}

/* Writes the first difference into why; true when equal. Compares every field, names and
 * metadata included, not just what the digest covers. */
static inline bool wt_calls_equal(const tkrt_call_t* ca, const tkrt_call_t* cb, char* why,
                           size_t capacity) {
#define WT_DIFF(...)                         \
  do {                                       \
    snprintf(why, capacity, __VA_ARGS__);    \
    return false;                            \
  } while (0)
  const tkrt_call_desc_t* a = tkrt_call_get_desc(ca);
  const tkrt_call_desc_t* b = tkrt_call_get_desc(cb);
  if (!wt_str_eq(a->name, b->name)) WT_DIFF("name");
  if (!wt_bytes_eq(a->metadata, a->metadata_size, b->metadata, b->metadata_size)) {
    WT_DIFF("metadata");
  }
  if (a->autotuned != b->autotuned) WT_DIFF("autotuned");
  if (!wt_str_eq(a->autotune_name, b->autotune_name)) WT_DIFF("autotune_name");
  if (a->config_count != b->config_count) WT_DIFF("config_count");
  if (a->alias_count != b->alias_count) WT_DIFF("alias_count");
  for (size_t i = 0; i < a->alias_count; ++i) {
    if (memcmp(&a->aliases[i], &b->aliases[i], sizeof(tkrt_alias_t)) != 0) WT_DIFF("alias %zu", i);
  }
  for (size_t c = 0; c < a->config_count; ++c) {
    const tkrt_config_desc_t* x = &a->configs[c];
    const tkrt_config_desc_t* y = &b->configs[c];
    if (memcmp(x->grid, y->grid, sizeof(x->grid)) != 0) WT_DIFF("config %zu grid", c);
    if (!wt_str_eq(x->description, y->description)) WT_DIFF("config %zu description", c);
    if (x->param_count != y->param_count) WT_DIFF("config %zu param_count", c);
    for (size_t i = 0; i < x->param_count; ++i) {
      const tkrt_param_t* p = &x->params[i];
      const tkrt_param_t* q = &y->params[i];
      if (p->kind != q->kind) WT_DIFF("config %zu param %zu kind", c, i);
      size_t n = p->kind == TKRT_PARAM_ARRAY ? sizeof(p->value.array)
                 : p->kind == TKRT_PARAM_TMA ? sizeof(p->value.tma)
                 : p->kind == TKRT_PARAM_BOOL ? sizeof(bool)
                 : (p->kind == TKRT_PARAM_I32 || p->kind == TKRT_PARAM_U32 ||
                    p->kind == TKRT_PARAM_F32)
                     ? 4
                     : 8;
      if (memcmp(&p->value, &q->value, n) != 0) WT_DIFF("config %zu param %zu value", c, i);
    }
    const tkrt_kernel_desc_t* k = tkrt_kernel_get_desc(x->kernel);
    const tkrt_kernel_desc_t* l = tkrt_kernel_get_desc(y->kernel);
    if (!wt_str_eq(k->name, l->name)) WT_DIFF("config %zu kernel name", c);
    if (!wt_str_eq(k->ttir, l->ttir)) WT_DIFF("config %zu ttir", c);
    if (k->num_warps != l->num_warps || k->num_ctas != l->num_ctas ||
        memcmp(k->cluster_dims, l->cluster_dims, sizeof(k->cluster_dims)) != 0 ||
        k->shared_mem_bytes != l->shared_mem_bytes ||
        k->compute_capability != l->compute_capability ||
        k->global_scratch_size != l->global_scratch_size ||
        k->global_scratch_align != l->global_scratch_align ||
        k->launch_flags != l->launch_flags || !wt_sides_equal(x->kernel, y->kernel)) {
      WT_DIFF("config %zu kernel scalars", c);
    }
    if (k->image_count != l->image_count) WT_DIFF("config %zu image_count", c);
    for (size_t i = 0; i < k->image_count; ++i) {
      const tkrt_kernel_image_t* m = &k->images[i];
      const tkrt_kernel_image_t* n = &l->images[i];
      if (!wt_str_eq(m->backend, n->backend) || !wt_str_eq(m->arch, n->arch) ||
          m->kind != n->kind || !wt_bytes_eq(m->data, m->size, n->data, n->size) ||
          !wt_str_eq(m->entry_name, n->entry_name) ||
          m->shared_mem_bytes != n->shared_mem_bytes || m->origin != n->origin ||
          !wt_str_eq(wt_source_path(x->kernel, i), wt_source_path(y->kernel, i))) {
        WT_DIFF("config %zu image %zu", c, i);
      }
    }
  }
  return true;
#undef WT_DIFF
}

static inline bool wt_same_digest(const tkrt_call_t* a, const tkrt_call_t* b) {
  return memcmp(tkrt_call_digest(a), tkrt_call_digest(b), TKRT_DIGEST_SIZE) == 0;
}

/* First differing offset, or SIZE_MAX when equal. */
static inline size_t wt_first_diff(const uint8_t* a, size_t an, const uint8_t* b, size_t bn) {
  size_t n = an < bn ? an : bn;
  for (size_t i = 0; i < n; ++i) {
    if (a[i] != b[i]) return i;
  }
  return an == bn ? (size_t)-1 : n;
}

/* ---------------------------------------------------------------- building messages */

/* A message under construction: a writer, plus helpers that read like the schema. */
typedef tkrt_wire_writer_t wt_msg_t;

static inline void wt_msg_init(wt_msg_t* m) { tkrt_wire_writer_init(m); }
static inline void wt_msg_free(wt_msg_t* m) { tkrt_wire_writer_free(m); }
static inline void wt_varint(wt_msg_t* m, uint32_t field, uint64_t value) {
  tkrt_wire_put_varint_field(m, field, value);
}
static inline void wt_bytes(wt_msg_t* m, uint32_t field, const void* data, size_t size) {
  tkrt_wire_put_bytes_field(m, field, data, size);
}
static inline void wt_str(wt_msg_t* m, uint32_t field, const char* text) {
  tkrt_wire_put_bytes_field(m, field, text, strlen(text));
}
/* Appends a nested message already built in `sub`. */
static inline void wt_sub(wt_msg_t* m, uint32_t field, const wt_msg_t* sub) {
  tkrt_wire_put_bytes_field(m, field, sub->data, sub->size);
}

/* A minimal valid TritonKernel: name "k", 4 warps, PTX text, cc 90. */
static inline void wt_min_kernel(wt_msg_t* k) {
  wt_str(k, 1, "k");
  wt_varint(k, 2, 4);
  wt_str(k, 4, ".version 8.7\n.target sm_90a\n");
  wt_varint(k, 6, 90);
}

/* A TritonAnyKernelCall{kernel_call{kernel, grid (1,1,1), extra...}} into out. `extra` (may be
 * NULL) is appended raw inside the TritonKernelCall (parameters and such). */
static inline void wt_min_call(wt_msg_t* out, const wt_msg_t* extra) {
  wt_msg_t k, call;
  wt_msg_init(&k);
  wt_msg_init(&call);
  wt_min_kernel(&k);
  wt_sub(&call, 1, &k);
  wt_varint(&call, 2, 1);
  wt_varint(&call, 3, 1);
  wt_varint(&call, 4, 1);
  if (extra) tkrt_wire_put_raw(&call, extra->data, extra->size);
  wt_sub(out, 1, &call);
  wt_msg_free(&k);
  wt_msg_free(&call);
}

#endif /* TKRT_TEST_WIRE_UTIL_H_ */
