/* SPDX-License-Identifier: Apache-2.0 */
/* Tests of the Triton loader: the bounded JSON reader, TTIR signatures, every target of the shared
 * Triton 3.6 outputs, bad / missing / inconsistent files with their exact errors, Triton's cache
 * layout, grid expressions, and calls (single and autotuned) run on the host backend.
 *
 * Usage: triton_test <triton-3.6 vectors dir> <host add BLOCK=256> <BLOCK=512> <BLOCK=1024> [case...]
 */
#include <ftw.h>
#include <pthread.h>
#include <math.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "base/json.h"
#include "triton/triton_internal.h"
#include "triton/triton_bound_internal.h"
#include "test/harness.h"
#include "tkrt/host_kernel.h"
#include "tkrt/tkrt.h"
#include "tkrt/triton_bound.h"

static const char* g_vectors;
static const char* g_host[3]; /* add_kernel host images for BLOCK 256, 512, 1024 */
static char g_tmp[512];

/* ---------------------------------------------------------------- helpers */

static int remove_entry(const char* path, const struct stat* st, int flag, struct FTW* ftw) {
  (void)st, (void)flag, (void)ftw;
  return remove(path);
}

static void write_text(const char* dir, const char* name, const char* text) {
  char path[2200];
  snprintf(path, sizeof(path), "%s/%s", dir, name);
  FILE* f = fopen(path, "wb");
  if (!f) return;
  fputs(text, f);
  fclose(f);
}

static void copy_file(const char* from, const char* dir, const char* name) {
  size_t size = 0;
  void* data = tkrt_test_read_file(from, &size);
  if (!data) {
    fprintf(stderr, "cannot read %s\n", from);
    return;
  }
  char path[2200];
  snprintf(path, sizeof(path), "%s/%s", dir, name);
  FILE* f = fopen(path, "wb");
  if (f) {
    fwrite(data, 1, size, f);
    fclose(f);
  }
  free(data);
}

/* A fresh directory under the test's temporary root. */
static const char* make_dir(const char* name, char* out, size_t capacity) {
  snprintf(out, capacity, "%s/%s", g_tmp, name);
  mkdir(out, 0755);
  return out;
}

static void vector_path(char* out, size_t capacity, const char* rel) {
  snprintf(out, capacity, "%s/%s", g_vectors, rel);
}

/* Loads one path with consent to host images: the test builds them itself. */
static tkrt_status_t load1(const char* path, tkrt_triton_kernel_t** out) {
  tkrt_triton_load_options_t options;
  tkrt_triton_load_options_init(&options);
  options.allow_native_code = true;
  return tkrt_triton_kernel_load(&path, 1, &options, out);
}

/* A copy of the shared add/cuda_sm90 output with a host image beside it. */
static const char* make_add_dir(const char* name, const char* host_image, const char* json_edit,
                                char* out, size_t capacity) {
  char from[1024];
  make_dir(name, out, capacity);
  static const char* const files[] = {"add_kernel.cubin", "add_kernel.ptx", "add_kernel.ttir",
                                      "add_kernel.json"};
  for (size_t i = 0; i < 4; ++i) {
    snprintf(from, sizeof(from), "%s/add/cuda_sm90/%s", g_vectors, files[i]);
    copy_file(from, out, files[i]);
  }
  if (json_edit) write_text(out, "add_kernel.json", json_edit);
  if (host_image) copy_file(host_image, out, "add_kernel.so");
  return out;
}

static const char kHostJson[] =
    "{\"name\": \"add_kernel\", \"target\": {\"backend\": \"host\", \"arch\": \"any\", "
    "\"warp_size\": 1}, \"num_warps\": %d, \"num_ctas\": 1, \"num_stages\": 1, \"shared\": 0}";

/* A host-only output of add_kernel in `dir` (made if missing): the metadata with `num_warps`, the
 * shared TTIR and `host_image` as add_kernel.so. */
static void make_host_output(const char* dir, const char* host_image, int num_warps) {
  char json[512], ttir[1024];
  mkdir(dir, 0755);
  snprintf(json, sizeof(json), kHostJson, num_warps);
  write_text(dir, "add_kernel.json", json);
  vector_path(ttir, sizeof(ttir), "add/cuda_sm90/add_kernel.ttir");
  copy_file(ttir, dir, "add_kernel.ttir");
  copy_file(host_image, dir, "add_kernel.so");
}

/* The BLOCK sizes of the three host-only add_kernel variants (num_warps 2, 4, 8). */
static const int kVariantBlocks[3] = {256, 512, 1024};

/* Three host-only variants of add_kernel, loaded as one autotuned Triton call's variants (grid
 * cdiv(n, BLOCK)); their folders are <prefix><BLOCK>. */
typedef struct host_variants {
  tkrt_triton_kernel_t* kernels[3];
  tkrt_triton_variant_t variants[3];
  char constants[3][32];
} host_variants_t;

static tkrt_status_t host_variants_make(const char* prefix, host_variants_t* hv) {
  memset(hv, 0, sizeof(*hv));
  for (int v = 0; v < 3; ++v) {
    char dir[1024], name[64];
    snprintf(name, sizeof(name), "%s%d", prefix, kVariantBlocks[v]);
    make_host_output(make_dir(name, dir, sizeof(dir)), g_host[v], 2 << v);
    tkrt_status_t status = load1(dir, &hv->kernels[v]);
    if (status) {
      for (int i = 0; i < v; ++i) tkrt_triton_kernel_release(hv->kernels[i]);
      return status;
    }
    EXPECT_STREQ(tkrt_triton_kernel_target(hv->kernels[v], 0)->backend, "host");
    snprintf(hv->constants[v], sizeof(hv->constants[v]), "BLOCK=%d", kVariantBlocks[v]);
    hv->variants[v] = (tkrt_triton_variant_t){hv->kernels[v], "cdiv(n, BLOCK)", {0, 0, 0},
                                              hv->constants[v], NULL};
  }
  return NULL;
}

static void host_variants_release(host_variants_t* hv) {
  for (int v = 0; v < 3; ++v) tkrt_triton_kernel_release(hv->kernels[v]);
}

/* An autotuner that keeps no store and times about 1 ms per config. */
static tkrt_status_t quick_tuner(tkrt_autotuner_t** out) {
  tkrt_autotuner_options_t options;
  tkrt_autotuner_options_init(&options);
  options.store_dir = "off";
  options.target_ms = 1;
  return tkrt_autotuner_create(&options, out);
}

/* ---------------------------------------------------------------- JSON */

static tkrt_status_t parse(const char* text) {
  tkrt_json_value_t* v = NULL;
  tkrt_status_t status = tkrt_json_parse(text, strlen(text), "t.json", &v);
  tkrt_json_free(v);
  return status;
}

static void json_values(void) {
  const char* text =
      "{\"a\": [1, -2, 3.5e2, true, false, null], \"s\": \"x\\u00e9\\ud83d\\ude00\\n\", "
      "\"big\": 123456789012345678901, \"o\": {}}";
  tkrt_json_value_t* v = NULL;
  ASSERT_OK(tkrt_json_parse(text, strlen(text), "t.json", &v));
  const tkrt_json_value_t* a = tkrt_json_get(v, "a");
  ASSERT_TRUE(a && a->type == TKRT_JSON_ARRAY && a->count == 6);
  EXPECT_TRUE(a->items[0].is_integer && a->items[0].integer == 1);
  EXPECT_TRUE(a->items[1].is_integer && a->items[1].integer == -2);
  EXPECT_TRUE(!a->items[2].is_integer && a->items[2].number == 350.0);
  EXPECT_TRUE(a->items[3].type == TKRT_JSON_BOOL && a->items[3].boolean);
  EXPECT_TRUE(a->items[5].type == TKRT_JSON_NULL);
  EXPECT_STREQ(tkrt_json_get(v, "s")->string, "x\xc3\xa9\xf0\x9f\x98\x80\n");
  EXPECT_TRUE(!tkrt_json_get(v, "big")->is_integer); /* past int64: only a double */
  EXPECT_TRUE(tkrt_json_get(v, "o")->type == TKRT_JSON_OBJECT);
  EXPECT_TRUE(tkrt_json_get(v, "missing") == NULL);
  tkrt_json_free(v);
}

static void json_errors(void) {
  EXPECT_STATUS(parse("{\"a\": 1,}"), TKRT_STATUS_INVALID_ARGUMENT, "t.json:1:9: expected a string key");
  EXPECT_STATUS(parse("{\"a\": 1, \"a\": 2}"), TKRT_STATUS_INVALID_ARGUMENT, "duplicate key \"a\"");
  EXPECT_STATUS(parse("{} x"), TKRT_STATUS_INVALID_ARGUMENT, "unexpected text after the JSON value");
  EXPECT_STATUS(parse("{\"a\":\n  NaN}"), TKRT_STATUS_INVALID_ARGUMENT, "t.json:2:3: unexpected character");
  EXPECT_STATUS(parse("\"a\tb\""), TKRT_STATUS_INVALID_ARGUMENT, "control character");
  EXPECT_STATUS(parse("\"\\x\""), TKRT_STATUS_INVALID_ARGUMENT, "bad escape");
  EXPECT_STATUS(parse("\"\\ud800\""), TKRT_STATUS_INVALID_ARGUMENT, "unpaired UTF-16 surrogate");
  EXPECT_STATUS(parse("\"\\u0000\""), TKRT_STATUS_INVALID_ARGUMENT, "\\u0000");
  EXPECT_STATUS(parse("01"), TKRT_STATUS_INVALID_ARGUMENT, "unexpected text");
  EXPECT_STATUS(parse("1e999"), TKRT_STATUS_INVALID_ARGUMENT, "number out of range");
  EXPECT_STATUS(parse("[1, 2"), TKRT_STATUS_INVALID_ARGUMENT, "expected ',' or ']'");
  EXPECT_STATUS(parse("\"abc"), TKRT_STATUS_INVALID_ARGUMENT, "unterminated string");
  EXPECT_STATUS(parse(""), TKRT_STATUS_INVALID_ARGUMENT, "unexpected end of input");
  /* A nesting bomb stops at the depth limit instead of exhausting the stack. */
  size_t n = 100000;
  char* bomb = malloc(n + 1);
  ASSERT_TRUE(bomb);
  memset(bomb, '[', n);
  bomb[n] = '\0';
  EXPECT_STATUS(parse(bomb), TKRT_STATUS_INVALID_ARGUMENT, "nested deeper than 64 levels");
  free(bomb);
}

/* ---------------------------------------------------------------- TTIR signatures */

static tkrt_status_t sig(const char* text, const char* name, tkrt_triton_param_t** params,
                         size_t* count) {
  return tkrt_triton_parse_signature(text, strlen(text), name, "k.ttir", params, count);
}

static void ttir_signatures(void) {
  tkrt_triton_param_t* p = NULL;
  size_t count = 0;
  /* Attributes with divisibility, an address space, a private helper before the kernel. */
  const char* text =
      "module {\n  tt.func private @helper(%a: i32) {}\n"
      "  tt.func public @k(%x: !tt.ptr<f16, 1> {tt.divisibility = 16 : i32, tt.pointer_range = "
      "32 : i32} loc(\"x\"(#loc)), %n: i32 {tt.divisibility = 16 : i32} loc(\"n\"(#loc)), %f: f32, "
      "%b: i1, %h: bf16, %q: i64, %w: !tt.ptr<f8E4M3FN>) attributes {noinline = false} {\n";
  ASSERT_OK(sig(text, "k", &p, &count));
  ASSERT_TRUE(count == 7);
  EXPECT_STREQ(p[0].name, "x");
  EXPECT_STREQ(p[0].type, "*fp16");
  EXPECT_TRUE(p[0].is_pointer && p[0].kind == TKRT_PARAM_ARRAY && p[0].element_bytes == 2);
  EXPECT_EQ_U64(p[0].divisibility, 16);
  EXPECT_STREQ(p[1].type, "i32");
  EXPECT_EQ_U64(p[1].divisibility, 16);
  EXPECT_TRUE(p[2].kind == TKRT_PARAM_F32 && p[3].kind == TKRT_PARAM_BOOL);
  EXPECT_TRUE(p[4].kind == TKRT_PARAM_U32 && strcmp(p[4].type, "bf16") == 0);
  EXPECT_TRUE(p[5].kind == TKRT_PARAM_I64);
  EXPECT_STREQ(p[6].type, "*fp8e4nv");
  tkrt_triton_params_free(p, count);

  EXPECT_STATUS(sig(text, "other", &p, &count), TKRT_STATUS_NOT_FOUND,
                "k.ttir has no 'tt.func public @other(' line");
  /* Tensor descriptors: one parameter; the rank i32 shape and i64 stride parameters that follow
   * it with its loc are checked and hidden. */
  ASSERT_OK(sig("tt.func public @k(%d: !tt.tensordesc<tensor<64x128xf16>> loc(\"d\"(#loc)), "
                "%d_0: i32 loc(\"d\"(#loc)), %d_1: i32 loc(\"d\"(#loc)), %d_2: i64 loc(\"d\"(#loc)), "
                "%d_3: i64 loc(\"d\"(#loc)), %n: i32 {tt.divisibility = 16 : i32} loc(\"n\"(#loc))) {",
                "k", &p, &count));
  ASSERT_TRUE(count == 2);
  EXPECT_STREQ(p[0].name, "d");
  EXPECT_STREQ(p[0].type, "tensordesc<fp16[64, 128]>");
  EXPECT_TRUE(p[0].kind == TKRT_PARAM_TMA && !p[0].is_pointer && p[0].element_bytes == 2);
  EXPECT_TRUE(p[0].desc_rank == 2 && p[0].desc_block[0] == 64 && p[0].desc_block[1] == 128);
  EXPECT_STREQ(p[1].name, "n");
  EXPECT_TRUE(p[1].desc_rank == 0 && p[1].divisibility == 16);
  tkrt_triton_params_free(p, count);
  EXPECT_STATUS(sig("tt.func public @k(%d: !tt.tensordesc<tensor<64xf16>>) {", "k", &p, &count),
                TKRT_STATUS_INVALID_ARGUMENT,
                "k.ttir:1: signature of 'k', parameter 0: tensor descriptor 'd' "
                "(tensordesc<fp16[64]>) must be followed by 1 i32 shape and 1 i64 stride "
                "parameters of the same loc, as Triton writes them; parameter 1 is missing");
  EXPECT_STATUS(sig("tt.func public @k(%d: !tt.tensordesc<tensor<64xf16>> loc(\"d\"), %d_0: i64 "
                    "loc(\"d\"), %d_1: i64 loc(\"d\")) {",
                    "k", &p, &count),
                TKRT_STATUS_INVALID_ARGUMENT, "parameter 1 is d_0: i64");
  EXPECT_STATUS(sig("tt.func public @k(%d: !tt.tensordesc<tensor<64xf16>> loc(\"d\"), %d_0: i32 "
                    "loc(\"e\"), %d_1: i64 loc(\"d\")) {",
                    "k", &p, &count),
                TKRT_STATUS_INVALID_ARGUMENT, "parameter 1 is d_0: i32 of another loc");
  EXPECT_STATUS(sig("tt.func public @k(%d: !tt.tensordesc<tensor<1x2x3x4x5x6xf16>>) {", "k", &p,
                    &count),
                TKRT_STATUS_INVALID_ARGUMENT, "has the tensor descriptor type");
  EXPECT_STATUS(sig("tt.func public @k(%d: !tt.tensordesc<tensor<64xq7>>) {", "k", &p, &count),
                TKRT_STATUS_INVALID_ARGUMENT, "has the tensor descriptor type");
  EXPECT_STATUS(sig("tt.func public @k(%d: !tt.tensordesc<tensor<0x64xf16>>) {", "k", &p, &count),
                TKRT_STATUS_INVALID_ARGUMENT, "has the tensor descriptor type");
  EXPECT_STATUS(sig("tt.func public @k(%a: i32, %v: vector<4xf32>) {", "k", &p, &count),
                TKRT_STATUS_INVALID_ARGUMENT,
                "k.ttir:1: signature of 'k', parameter 1: 'v' has type 'vector<4xf32>'");
  EXPECT_STATUS(sig("tt.func public @k(%a: i32, %a: i32) {", "k", &p, &count),
                TKRT_STATUS_INVALID_ARGUMENT, "parameters 0 and 1 are both named 'a'");
  EXPECT_STATUS(sig("tt.func public @k(%a: i32 loc(\"a\"(#loc)", "k", &p, &count),
                TKRT_STATUS_INVALID_ARGUMENT, "the loc(...) is not closed");
  EXPECT_STATUS(sig("tt.func public @k(%a: i32", "k", &p, &count), TKRT_STATUS_INVALID_ARGUMENT,
                "expected ',' or ')' after the parameter");
  ASSERT_OK(sig("tt.func public @k() {", "k", &p, &count));
  EXPECT_EQ_U64(count, 0);
  tkrt_triton_params_free(p, count);
}

/* ---------------------------------------------------------------- the shared Triton outputs */

static void shared_every_target(void) {
  static const struct {
    const char* dir;
    const char* backend;
    const char* arch;
    size_t images;
    uint32_t shared;
    size_t params;
  } targets[] = {
      {"add/cuda_sm90", "cuda", "sm_90a", 2, 0, 4},
      {"add/hip_gfx942", "hip", "gfx942", 1, 0, 4},
      {"add/hip_gfx90a", "hip", "gfx90a", 1, 0, 4},
      {"matmul/cuda_sm90", "cuda", "sm_90a", 2, 24576, 6},
      {"matmul/hip_gfx942", "hip", "gfx942", 1, 16384, 6},
      {"matmul/hip_gfx90a", "hip", "gfx90a", 1, 16384, 6},
  };
  for (size_t i = 0; i < sizeof(targets) / sizeof(targets[0]); ++i) {
    char path[1024];
    vector_path(path, sizeof(path), targets[i].dir);
    tkrt_triton_kernel_t* k = NULL;
    EXPECT_OK(load1(path, &k));
    if (!k) continue;
    EXPECT_EQ_U64(tkrt_triton_kernel_target_count(k), 1);
    const tkrt_triton_target_t* t = tkrt_triton_kernel_target(k, 0);
    EXPECT_STREQ(t->backend, targets[i].backend);
    EXPECT_STREQ(t->arch, targets[i].arch);
    EXPECT_STREQ(t->triton_version, "3.6.0");
    EXPECT_EQ_U64(t->shared_mem_bytes, targets[i].shared);
    EXPECT_EQ_U64(t->warp_size, strcmp(targets[i].backend, "cuda") == 0 ? 32 : 64);
    EXPECT_EQ_U64(tkrt_triton_kernel_param_count(k), targets[i].params);
    const tkrt_kernel_desc_t* d = tkrt_kernel_get_desc(tkrt_triton_kernel_get(k));
    EXPECT_EQ_U64(d->image_count, targets[i].images);
    EXPECT_EQ_U64(d->num_warps, 4);
    EXPECT_EQ_U64(d->num_ctas, 1);
    EXPECT_EQ_U64(d->global_scratch_size, 0);
    EXPECT_EQ_U64(d->launch_flags, 0);
    for (size_t j = 0; j < d->image_count; ++j) {
      EXPECT_EQ_U64(d->images[j].shared_mem_bytes, targets[i].shared);
    }
    if (d->image_count == 2) {
      EXPECT_TRUE(d->images[0].kind == TKRT_IMAGE_CUBIN && d->images[1].kind == TKRT_IMAGE_PTX);
    }
    const tkrt_triton_param_t* p0 = tkrt_triton_kernel_param(k, 0);
    const tkrt_triton_param_t* p3 = tkrt_triton_kernel_param(k, 3);
    EXPECT_STREQ(p0->type, targets[i].params == 4 ? "*fp32" : "*fp16");
    EXPECT_STREQ(p3->name, targets[i].params == 4 ? "n" : "M");
    EXPECT_TRUE(p3->kind == TKRT_PARAM_I32 && p3->divisibility == 0);
    tkrt_triton_kernel_release(k);
  }
}

static void shared_multi_target(void) {
  /* The kernel's folder holds one subfolder per target: one kernel with every image. */
  char path[1024];
  vector_path(path, sizeof(path), "matmul");
  tkrt_triton_kernel_t* k = NULL;
  ASSERT_OK(load1(path, &k));
  EXPECT_EQ_U64(tkrt_triton_kernel_target_count(k), 3);
  EXPECT_STREQ(tkrt_triton_kernel_name(k), "matmul_kernel");
  const tkrt_kernel_desc_t* d = tkrt_kernel_get_desc(tkrt_triton_kernel_get(k));
  EXPECT_EQ_U64(d->image_count, 4);
  EXPECT_EQ_U64(d->compute_capability, 90);
  EXPECT_EQ_U64(d->images[0].shared_mem_bytes, 24576); /* cuda_sm90 sorts first */
  EXPECT_EQ_U64(d->images[2].shared_mem_bytes, 16384);
  EXPECT_TRUE(d->images[2].kind == TKRT_IMAGE_HSACO);
  EXPECT_EQ_U64(tkrt_triton_kernel_find_param(k, "K"), 5);
  EXPECT_TRUE(tkrt_triton_kernel_find_param(k, "BM") == -1); /* a constexpr: folded away */
  tkrt_triton_kernel_release(k);

  /* The same, named one by one; and only the PTX. */
  char a[1024], b[1024];
  vector_path(a, sizeof(a), "add/cuda_sm90/add_kernel.json");
  vector_path(b, sizeof(b), "add/hip_gfx942");
  const char* paths[] = {a, b};
  tkrt_triton_load_options_t options;
  tkrt_triton_load_options_init(&options);
  options.image_kinds = 1u << TKRT_IMAGE_PTX;
  ASSERT_OK(tkrt_triton_kernel_load(paths, 1, &options, &k));
  d = tkrt_kernel_get_desc(tkrt_triton_kernel_get(k));
  EXPECT_TRUE(d->image_count == 1 && d->images[0].kind == TKRT_IMAGE_PTX);
  tkrt_triton_kernel_release(k);
  ASSERT_OK(tkrt_triton_kernel_load(paths, 2, NULL, &k));
  EXPECT_EQ_U64(tkrt_kernel_get_desc(tkrt_triton_kernel_get(k))->image_count, 3);
  tkrt_triton_kernel_release(k);
  /* A kind filter leaves out the targets that cannot have that kind. */
  options.image_kinds = 1u << TKRT_IMAGE_HSACO;
  ASSERT_OK(tkrt_triton_kernel_load(paths, 2, &options, &k));
  EXPECT_EQ_U64(tkrt_triton_kernel_target_count(k), 1);
  EXPECT_STREQ(tkrt_triton_kernel_target(k, 0)->arch, "gfx942");
  tkrt_triton_kernel_release(k);
  EXPECT_STATUS(tkrt_triton_kernel_load(paths, 1, &options, &k), TKRT_STATUS_NOT_FOUND,
                "none of the 1 targets");
  /* Two targets that are not the same kernel. */
  vector_path(b, sizeof(b), "matmul/hip_gfx942");
  EXPECT_STATUS(tkrt_triton_kernel_load(paths, 2, NULL, &k), TKRT_STATUS_INVALID_ARGUMENT,
                "inconsistent targets: field 'name' is 'add_kernel' in");
  /* Twice the same target: those are variants. */
  paths[1] = a;
  EXPECT_STATUS(tkrt_triton_kernel_load(paths, 2, NULL, &k), TKRT_STATUS_INVALID_ARGUMENT,
                "are both for cuda 90: two builds for one target are variants");
}

/* ---------------------------------------------------------------- bad and missing files */

static void bad_files(void) {
  char dir[1024], path[1100], json[2048], src[1024];
  tkrt_triton_kernel_t* k = NULL;
  vector_path(src, sizeof(src), "add/cuda_sm90/add_kernel.json");
  size_t size = 0;
  char* original = tkrt_test_read_file(src, &size);
  ASSERT_TRUE(original);
  original = realloc(original, size + 1);
  original[size] = '\0';

  snprintf(path, sizeof(path), "%s/no/such/dir", g_tmp);
  EXPECT_STATUS(load1(path, &k), TKRT_STATUS_NOT_FOUND, "/no/such/dir: No such file");
  vector_path(path, sizeof(path), "add/cuda_sm90/add_kernel.ttir");
  EXPECT_STATUS(load1(path, &k), TKRT_STATUS_INVALID_ARGUMENT, "add_kernel.ttir is not Triton's metadata");
  make_dir("empty", dir, sizeof(dir));
  EXPECT_STATUS(load1(dir, &k), TKRT_STATUS_NOT_FOUND, "holds no Triton kernel metadata");

  /* A FIFO named like metadata is refused without blocking. */
  make_dir("fifo", dir, sizeof(dir));
  snprintf(path, sizeof(path), "%s/add_kernel.json", dir);
  ASSERT_TRUE(mkfifo(path, 0600) == 0);
  EXPECT_STATUS(load1(path, &k), TKRT_STATUS_INVALID_ARGUMENT, "add_kernel.json is not a regular file");

  /* Field errors name the file and the field. */
  static const struct {
    const char* from;
    const char* to;
    tkrt_status_code_t code;
    const char* message;
  } edits[] = {
      {"\"num_warps\": 4", "\"num_warps\": \"4\"", TKRT_STATUS_INVALID_ARGUMENT,
       "add_kernel.json: field 'num_warps' is a string; it must be an integer in 1..1024"},
      {"\"num_warps\": 4", "\"num_warps\": 0", TKRT_STATUS_INVALID_ARGUMENT,
       "field 'num_warps' is 0; it must be an integer in 1..1024"},
      {"\"num_warps\": 4,", "", TKRT_STATUS_INVALID_ARGUMENT, "field 'num_warps' is missing"},
      {"\"backend\": \"cuda\", \"arch\": 90", "\"backend\": \"xpu\", \"arch\": 90",
       TKRT_STATUS_UNIMPLEMENTED, "field 'target.backend' is \"xpu\""},
      {"\"arch\": 90", "\"arch\": \"sm90\"", TKRT_STATUS_INVALID_ARGUMENT,
       "field 'target.arch' is a string; it must be the compute capability"},
      {"\"arch\": 90", "\"arch\": 80", TKRT_STATUS_INVALID_ARGUMENT,
       "add_kernel.cubin is for sm_90a but "},
      {"\"arch\": 90, \"warp_size\": 32}", "\"arch\": 90}", TKRT_STATUS_INVALID_ARGUMENT,
       "field 'target.warp_size' is missing"},
      {"\"profile_scratch_align\": 1", "\"profile_scratch_align\": 12", TKRT_STATUS_INVALID_ARGUMENT,
       "field 'profile_scratch_align' is 12, not a power of two"},
      {"\"global_scratch_align\": 1", "\"global_scratch_align\": 3", TKRT_STATUS_INVALID_ARGUMENT,
       "field 'global_scratch_align' is 3, not a power of two"},
      {"\"tensordesc_meta\": []", "\"tensordesc_meta\": [{}]", TKRT_STATUS_INVALID_ARGUMENT,
       "add_kernel.json: field 'tensordesc_meta[0].swizzle' is missing"},
      {"\"tensordesc_meta\": []", "\"tensordesc_meta\": {}", TKRT_STATUS_INVALID_ARGUMENT,
       "field 'tensordesc_meta' is an object; it must be a list of objects"},
      {"\"tensordesc_meta\": []",
       "\"tensordesc_meta\": [{\"swizzle\": 3, \"elem_size\": 2, \"elem_type\": 6, "
       "\"block_size\": [64], \"fp4_padded\": false}]",
       TKRT_STATUS_INVALID_ARGUMENT,
       "field 'tensordesc_meta' has 1 entries but "},
      {"\"launch_pdl\": false", "\"launch_pdl\": 0", TKRT_STATUS_INVALID_ARGUMENT,
       "field 'launch_pdl' is a number; it must be true or false"},
      {"\"name\": \"add_kernel\"", "\"name\": \"sub_kernel\"", TKRT_STATUS_NOT_FOUND,
       "add_kernel.cubin has no kernel 'sub_kernel' (the name in"},
      {"\"num_ctas\": 1", "\"num_ctas\": 2, \"cluster_dims\": [4, 1, 1]",
       TKRT_STATUS_INVALID_ARGUMENT, "has num_ctas 2 but cluster_dims [4, 1, 1]"},
      {"{\"hash\"", "[{\"hash\"", TKRT_STATUS_INVALID_ARGUMENT, "add_kernel.json:1:"},
  };
  for (size_t i = 0; i < sizeof(edits) / sizeof(edits[0]); ++i) {
    const char* at = strstr(original, edits[i].from);
    if (!at) {
      TKRT_TEST_FAIL_("edit %zu: '%s' not in the shared JSON", i, edits[i].from);
      continue;
    }
    snprintf(json, sizeof(json), "%.*s%s%s", (int)(at - original), original, edits[i].to,
             at + strlen(edits[i].from));
    char name[32];
    snprintf(name, sizeof(name), "edit%zu", i);
    make_add_dir(name, NULL, json, dir, sizeof(dir));
    EXPECT_STATUS(load1(dir, &k), edits[i].code, edits[i].message);
  }

  /* Missing companions. */
  make_add_dir("no_ttir", NULL, NULL, dir, sizeof(dir));
  snprintf(path, sizeof(path), "%s/add_kernel.ttir", dir);
  remove(path);
  EXPECT_STATUS(load1(dir, &k), TKRT_STATUS_NOT_FOUND,
                "the parameter list is missing: expected");
  make_add_dir("no_image", NULL, NULL, dir, sizeof(dir));
  snprintf(path, sizeof(path), "%s/add_kernel.cubin", dir);
  remove(path);
  snprintf(path, sizeof(path), "%s/add_kernel.ptx", dir);
  remove(path);
  EXPECT_STATUS(load1(dir, &k), TKRT_STATUS_NOT_FOUND, "no image (of the kinds asked for)");
  /* An image that is not what its name says. */
  make_add_dir("swapped", NULL, NULL, dir, sizeof(dir));
  vector_path(src, sizeof(src), "add/hip_gfx942/add_kernel.hsaco");
  copy_file(src, dir, "add_kernel.cubin");
  EXPECT_STATUS(load1(dir, &k), TKRT_STATUS_INVALID_ARGUMENT, "add_kernel.cubin is a hsaco image, not cubin");
  /* A TTIR whose function is another kernel. */
  make_add_dir("other_ttir", NULL, NULL, dir, sizeof(dir));
  write_text(dir, "add_kernel.ttir", "tt.func public @mul_kernel(%a: i32) {");
  EXPECT_STATUS(load1(dir, &k), TKRT_STATUS_NOT_FOUND, "has no 'tt.func public @add_kernel(' line");
  /* Two kernels in one folder. */
  make_add_dir("two", NULL, NULL, dir, sizeof(dir));
  write_text(dir, "b_kernel.json", "{}");
  EXPECT_STATUS(load1(dir, &k), TKRT_STATUS_INVALID_ARGUMENT,
                "holds 2 kernels' metadata (add_kernel.json, b_kernel.json)");
  /* A metadata file past the size limit. */
  make_add_dir("huge", NULL, NULL, dir, sizeof(dir));
  snprintf(path, sizeof(path), "%s/add_kernel.json", dir);
  ASSERT_TRUE(truncate(path, (off_t)TKRT_TRITON_JSON_LIMIT + 1) == 0);
  EXPECT_STATUS(load1(dir, &k), TKRT_STATUS_OUT_OF_RANGE, "more than the 1048576 bytes");
  /* Inconsistent targets: another num_warps. */
  char a[1024], b[1024];
  const char* at = strstr(original, "\"num_warps\": 4");
  snprintf(json, sizeof(json), "%.*s\"num_warps\": 8%s", (int)(at - original), original,
           at + strlen("\"num_warps\": 4"));
  make_add_dir("warps8", NULL, json, a, sizeof(a));
  vector_path(b, sizeof(b), "add/hip_gfx942");
  const char* paths[] = {b, a};
  EXPECT_STATUS(tkrt_triton_kernel_load(paths, 2, NULL, &k), TKRT_STATUS_INVALID_ARGUMENT,
                "inconsistent targets: field 'num_warps' is 4 in");
  free(original);
}

/* ---------------------------------------------------------------- Triton's cache */

typedef struct found {
  int count;
  char names[8][64];
} found_t;

static bool visit(const char* json_path, const char* name, void* user) {
  found_t* f = user;
  if (f->count < 8) snprintf(f->names[f->count], sizeof(f->names[0]), "%s", name);
  f->count++;
  return strstr(json_path, ".json") != NULL;
}

static void triton_cache(void) {
  char cache[1024], dir[1100], from[1024];
  make_dir("cache", cache, sizeof(cache));
  static const char* const hashes[] = {"QWERTY", "ASDFGH"};
  static const char* const kernels[] = {"add", "matmul"};
  for (int i = 0; i < 2; ++i) {
    snprintf(dir, sizeof(dir), "%s/%s", cache, hashes[i]);
    mkdir(dir, 0755);
    static const char* const ext[] = {".json", ".ttir", ".cubin", ".ptx"};
    for (int e = 0; e < 4; ++e) {
      char name[64];
      snprintf(name, sizeof(name), "%s_kernel%s", kernels[i], ext[e]);
      snprintf(from, sizeof(from), "%s/%s/cuda_sm90/%s", g_vectors, kernels[i], name);
      copy_file(from, dir, name);
    }
    char grp[64];
    snprintf(grp, sizeof(grp), "__grp__%s_kernel.json", kernels[i]);
    write_text(dir, grp, "{\"child_paths\": {}}");
  }
  found_t f = {0};
  ASSERT_OK(tkrt_triton_cache_scan(cache, NULL, visit, &f));
  EXPECT_EQ_U64(f.count, 2);
  EXPECT_STREQ(f.names[0], "matmul_kernel"); /* ASDFGH sorts first */
  EXPECT_STREQ(f.names[1], "add_kernel");
  memset(&f, 0, sizeof(f));
  ASSERT_OK(tkrt_triton_cache_scan(cache, "add_kernel", visit, &f));
  EXPECT_EQ_U64(f.count, 1);
  /* A cache entry loads as it is (the __grp__ index is not a kernel). */
  snprintf(dir, sizeof(dir), "%s/QWERTY", cache);
  tkrt_triton_kernel_t* k = NULL;
  ASSERT_OK(load1(dir, &k));
  EXPECT_STREQ(tkrt_triton_kernel_name(k), "add_kernel");
  tkrt_triton_kernel_release(k);
  snprintf(dir, sizeof(dir), "%s/none", cache);
  EXPECT_STATUS(tkrt_triton_cache_scan(dir, NULL, visit, &f), TKRT_STATUS_NOT_FOUND,
                "Triton cache directory");
  setenv("TRITON_CACHE_DIR", cache, 1);
  memset(&f, 0, sizeof(f));
  EXPECT_OK(tkrt_triton_cache_scan(NULL, "matmul_kernel", visit, &f));
  EXPECT_EQ_U64(f.count, 1);
  unsetenv("TRITON_CACHE_DIR");
}

/* ---------------------------------------------------------------- grids and scalars */

static void grid_expressions(void) {
  uint32_t g[3];
  ASSERT_OK(tkrt_triton_grid_eval("cdiv(n, BLOCK)", "n=5000, BLOCK=1024", g));
  EXPECT_TRUE(g[0] == 5 && g[1] == 1 && g[2] == 1);
  ASSERT_OK(tkrt_triton_grid_eval("cdiv(M,BM), N // BN, 2*(1+2)-min(3, 4)%2", "M=130,BM=64,N=256,BN=128", g));
  EXPECT_TRUE(g[0] == 3 && g[1] == 2 && g[2] == 5);
  ASSERT_OK(tkrt_triton_grid_eval("max(-7 / 2, 0) + -7 / 2 + 10, 7 % -3 + 5", NULL, g));
  EXPECT_TRUE(g[0] == 6 && g[1] == 3); /* floor division and modulo, as Python */
  ASSERT_OK(tkrt_triton_grid_eval("0", NULL, g));
  EXPECT_TRUE(g[0] == 0);
  EXPECT_STATUS(tkrt_triton_grid_eval("cdiv(n, BLOCKS)", "n=1,BLOCK=2", g),
                TKRT_STATUS_INVALID_ARGUMENT, "unknown name 'BLOCKS' (known: n, BLOCK)");
  EXPECT_STATUS(tkrt_triton_grid_eval("n / 0", "n=1", g), TKRT_STATUS_INVALID_ARGUMENT, "division by zero");
  EXPECT_STATUS(tkrt_triton_grid_eval("1 - 2", NULL, g), TKRT_STATUS_OUT_OF_RANGE, "dimension x is -1");
  EXPECT_STATUS(tkrt_triton_grid_eval("1, 1, 1, 1", NULL, g), TKRT_STATUS_INVALID_ARGUMENT, "more than three");
  EXPECT_STATUS(tkrt_triton_grid_eval("9223372036854775807 + 1", NULL, g),
                TKRT_STATUS_INVALID_ARGUMENT, "integer overflow");
  EXPECT_STATUS(tkrt_triton_grid_eval("sqrt(4)", NULL, g), TKRT_STATUS_INVALID_ARGUMENT, "unknown function 'sqrt'");
  EXPECT_STATUS(tkrt_triton_grid_eval("(1", NULL, g), TKRT_STATUS_INVALID_ARGUMENT, "expected ')'");
  EXPECT_STATUS(tkrt_triton_grid_eval("1", "A=x", g), TKRT_STATUS_INVALID_ARGUMENT, "the value of 'A' is not an integer");
  EXPECT_STATUS(tkrt_triton_grid_eval("1", "A=1,A=2", g), TKRT_STATUS_INVALID_ARGUMENT, "'A' is bound twice");
  char deep[200];
  memset(deep, '(', 100);
  snprintf(deep + 100, 100, "1");
  EXPECT_STATUS(tkrt_triton_grid_eval(deep, NULL, g), TKRT_STATUS_INVALID_ARGUMENT, "nested too deeply");

  tkrt_triton_scalar_t s;
  size_t length = 0;
  ASSERT_OK(tkrt_triton_scalar_parse("n=0x10", &s, &length));
  EXPECT_TRUE(!s.is_float && s.i == 16 && length == 1);
  ASSERT_OK(tkrt_triton_scalar_parse("alpha=-1.5e1", &s, &length));
  EXPECT_TRUE(s.is_float && s.f == -15.0 && length == 5);
  EXPECT_STATUS(tkrt_triton_scalar_parse("n=12abc", &s, &length), TKRT_STATUS_INVALID_ARGUMENT,
                "not an integer or a float");
  EXPECT_STATUS(tkrt_triton_scalar_parse("=1", &s, &length), TKRT_STATUS_INVALID_ARGUMENT, "is not NAME=VALUE");
}

/* ---------------------------------------------------------------- calls on the host backend */

static tkrt_device_t* open_host(void) {
  tkrt_device_options_t options;
  tkrt_device_options_init(&options);
  options.backend = "host";
  tkrt_device_t* device = NULL;
  tkrt_status_t status = tkrt_device_open(&options, &device);
  if (status) {
    tkrt_status_free(status);
    return NULL;
  }
  return device;
}

/* Runs the add call on n elements and checks out == x + y bit for bit; returns the mismatches. */
static long run_add(tkrt_device_t* device, tkrt_call_t* call, int n, tkrt_autotuner_t* tuner,
                    int in_place) {
  size_t bytes = (size_t)n * sizeof(float);
  float* x = malloc(bytes);
  float* y = malloc(bytes);
  float* out = malloc(bytes);
  tkrt_deviceptr_t dx = 0, dy = 0, dout = 0;
  long wrong = -1;
  for (int i = 0; i < n; ++i) {
    x[i] = (float)i * 0.25f;
    y[i] = 3.0f / (float)(i + 1);
  }
  EXPECT_OK(tkrt_memory_alloc(device, bytes, &dx));
  EXPECT_OK(tkrt_memory_alloc(device, bytes, &dy));
  EXPECT_OK(tkrt_memory_alloc(device, bytes, &dout));
  if (dx && dy && dout) {
    EXPECT_OK(tkrt_memcpy_htod_async(device, dx, x, bytes, NULL));
    EXPECT_OK(tkrt_memcpy_htod_async(device, dy, y, bytes, NULL));
    EXPECT_OK(tkrt_memset_async(device, dout, 0xFF, bytes, NULL));
    tkrt_buffer_t buffers[3] = {{dx, bytes}, {dy, bytes}, {in_place ? dx : dout, bytes}};
    tkrt_status_t status = tkrt_triton_call_launch(call, device, NULL, buffers, 3, tuner);
    if (status) {
      tkrt_test_print_status_(__FILE__, __LINE__, "tkrt_triton_call_launch", status);
      tkrt_status_free(status);
      ++tkrt_test_failed_;
    } else {
      EXPECT_OK(tkrt_memcpy_dtoh_async(device, out, in_place ? dx : dout, bytes, NULL));
      EXPECT_OK(tkrt_stream_synchronize(device, NULL));
      wrong = 0;
      for (int i = 0; i < n; ++i) {
        float want = x[i] + y[i];
        wrong += memcmp(&out[i], &want, sizeof(float)) != 0;
      }
    }
  }
  tkrt_status_free(tkrt_memory_free(device, dx));
  tkrt_status_free(tkrt_memory_free(device, dy));
  tkrt_status_free(tkrt_memory_free(device, dout));
  free(x);
  free(y);
  free(out);
  return wrong;
}

static void host_call_single(void) {
  tkrt_device_t* device = open_host();
  if (!device) TKRT_TEST_SKIP("no host backend");
  char dir[1024];
  make_add_dir("with_host", g_host[2], NULL, dir, sizeof(dir));
  tkrt_triton_kernel_t* k = NULL;
  tkrt_call_t* call = NULL;
  ASSERT_OK(load1(dir, &k));
  const tkrt_kernel_desc_t* d = tkrt_kernel_get_desc(tkrt_triton_kernel_get(k));
  EXPECT_EQ_U64(d->image_count, 3); /* cubin, PTX and the host image beside them */
  EXPECT_TRUE(d->images[2].kind == TKRT_IMAGE_HOST);
  EXPECT_EQ_U64(tkrt_triton_kernel_target(k, 0)->image_kinds,
                (1u << TKRT_IMAGE_CUBIN) | (1u << TKRT_IMAGE_PTX) | (1u << TKRT_IMAGE_HOST));

  tkrt_triton_scalar_t n = {"n", false, 5000, 0};
  tkrt_triton_variant_t variant = {k, "cdiv(n, BLOCK)", {0, 0, 0}, "BLOCK=1024", NULL};
  tkrt_triton_call_desc_t desc;
  tkrt_triton_call_desc_init(&desc);
  desc.variants = &variant;
  desc.variant_count = 1;
  desc.scalars = &n;
  desc.scalar_count = 1;
  ASSERT_OK(tkrt_triton_call_create(&desc, &call));
  const tkrt_call_desc_t* cd = tkrt_call_get_desc(call);
  EXPECT_TRUE(cd->configs[0].grid[0] == 5 && !cd->autotuned);
  EXPECT_STREQ(cd->name, "add_kernel");
  EXPECT_EQ_U64(run_add(device, call, 5000, NULL, 0), 0);
  /* Buffers must match the pointer parameters. */
  tkrt_buffer_t one = {0, 0};
  EXPECT_STATUS(tkrt_triton_call_launch(call, device, NULL, &one, 1, NULL),
                TKRT_STATUS_INVALID_ARGUMENT, "has 3 pointer parameters but 1 buffers were given");
  tkrt_call_release(call);
  call = NULL;

  /* Argument errors. */
  tkrt_triton_scalar_t bad[2] = {{"x_ptr", false, 1, 0}, {"n", false, 1, 0}};
  desc.scalars = bad;
  desc.scalar_count = 2;
  EXPECT_STATUS(tkrt_triton_call_create(&desc, &call), TKRT_STATUS_INVALID_ARGUMENT,
                "'x_ptr' is a pointer parameter (*fp32) of 'add_kernel'");
  bad[0].name = "m";
  EXPECT_STATUS(tkrt_triton_call_create(&desc, &call), TKRT_STATUS_INVALID_ARGUMENT,
                "kernel 'add_kernel' has no parameter 'm' (its parameters: x_ptr: *fp32, y_ptr: "
                "*fp32, out_ptr: *fp32, n: i32)");
  desc.scalar_count = 0;
  EXPECT_STATUS(tkrt_triton_call_create(&desc, &call), TKRT_STATUS_INVALID_ARGUMENT,
                "no value for scalar parameter 3 'n' (i32)");
  tkrt_triton_scalar_t big = {"n", false, INT64_C(1) << 33, 0};
  desc.scalars = &big;
  desc.scalar_count = 1;
  EXPECT_STATUS(tkrt_triton_call_create(&desc, &call), TKRT_STATUS_OUT_OF_RANGE,
                "scalar 'n' is i32; 8589934592 is out of range");
  /* A value above INT64_MAX, as its bits (is_uint64): read as unsigned for the range rule. */
  tkrt_triton_scalar_t huge = {"n", false, -1, 0, true};
  desc.scalars = &huge;
  EXPECT_STATUS(tkrt_triton_call_create(&desc, &call), TKRT_STATUS_OUT_OF_RANGE,
                "scalar 'n' is i32; 18446744073709551615 is out of range (-2147483648..2147483647)");
  tkrt_triton_scalar_t fl = {"n", true, 0, 1.5};
  desc.scalars = &fl;
  EXPECT_STATUS(tkrt_triton_call_create(&desc, &call), TKRT_STATUS_INVALID_ARGUMENT,
                "scalar 'n' is i32, an integer parameter, but was given 1.5");
  desc.scalars = &n;
  variant.grid = "cdiv(n, BLOK)";
  EXPECT_STATUS(tkrt_triton_call_create(&desc, &call), TKRT_STATUS_INVALID_ARGUMENT,
                "variant 0 of 'add_kernel': grid expression \"cdiv(n, BLOK)\", at offset 8: "
                "unknown name 'BLOK' (known: n, num_warps, num_stages, BLOCK)");
  const char* inout = "n";
  variant.grid = "cdiv(n, BLOCK)";
  desc.inout = &inout;
  desc.inout_count = 1;
  EXPECT_STATUS(tkrt_triton_call_create(&desc, &call), TKRT_STATUS_INVALID_ARGUMENT,
                "in-place parameter 'n' is not a pointer parameter");
  tkrt_triton_kernel_release(k);
  tkrt_device_release(device);
}

/* The constexprs a kernel was compiled with (tkrt_triton_load_options_t.constants, what a Triton
 * CompiledKernel's src.constants gives): the grid names them without a variant giving them, a
 * variant that gives one another value is refused, and what is not NAME=INTEGER is refused at
 * load. */
static void compiled_constants(void) {
  tkrt_device_t* device = open_host();
  if (!device) TKRT_TEST_SKIP("no host backend");
  char dir[1024];
  make_add_dir("compiled_constants", g_host[2], NULL, dir, sizeof(dir));
  const char* path = dir;
  tkrt_triton_load_options_t options;
  tkrt_triton_load_options_init(&options);
  options.allow_native_code = true;
  options.constants = " BLOCK = 1024, EVEN=true";
  tkrt_triton_kernel_t* k = NULL;
  ASSERT_OK(tkrt_triton_kernel_load(&path, 1, &options, &k));
  EXPECT_STREQ(tkrt_triton_kernel_constants(k), "BLOCK=1024,EVEN=1");

  tkrt_triton_scalar_t n = {"n", false, 5000, 0};
  tkrt_triton_variant_t variant = {k, "cdiv(n, BLOCK)", {0, 0, 0}, NULL, NULL};
  tkrt_triton_call_desc_t desc;
  tkrt_triton_call_desc_init(&desc);
  desc.variants = &variant;
  desc.variant_count = 1;
  desc.scalars = &n;
  desc.scalar_count = 1;
  tkrt_call_t* call = NULL;
  ASSERT_OK(tkrt_triton_call_create(&desc, &call)); /* BLOCK from the kernel */
  EXPECT_EQ_U64(tkrt_call_get_desc(call)->configs[0].grid[0], 5);
  EXPECT_EQ_U64(run_add(device, call, 5000, NULL, 0), 0);
  tkrt_call_release(call);
  call = NULL;
  variant.constants = "BLOCK=1024"; /* the same value: fine */
  ASSERT_OK(tkrt_triton_call_create(&desc, &call));
  tkrt_call_release(call);
  call = NULL;
  /* Another value would compute half the grid over code compiled for 1024: refused, naming both,
   * for a grid expression, for a bound launch and for a fixed grid alike. */
  variant.constants = "BLOCK=2048";
  EXPECT_STATUS(tkrt_triton_call_create(&desc, &call), TKRT_STATUS_INVALID_ARGUMENT,
                "variant 0 of 'add_kernel': constants \"BLOCK=2048\": kernel 'add_kernel' was "
                "compiled with BLOCK=1024, not 2048");
  EXPECT_TRUE(call == NULL);
  tkrt_triton_bound_t* bound = NULL;
  tkrt_triton_bound_options_t bound_options;
  tkrt_triton_bound_options_init(&bound_options);
  bound_options.device = device;
  EXPECT_STATUS(tkrt_triton_bound_create(&desc, &bound_options, &bound),
                TKRT_STATUS_INVALID_ARGUMENT, "was compiled with BLOCK=1024, not 2048");
  EXPECT_TRUE(bound == NULL);
  variant.grid = NULL;
  variant.grid_dims[0] = 5;
  variant.grid_dims[1] = variant.grid_dims[2] = 1;
  EXPECT_STATUS(tkrt_triton_call_create(&desc, &call), TKRT_STATUS_INVALID_ARGUMENT,
                "was compiled with BLOCK=1024, not 2048");
  tkrt_triton_kernel_release(k);
  k = NULL;

  /* Not NAME=INTEGER at load: refused, nothing loaded. */
  options.constants = "BLOCK=1024,DTYPE=fp16";
  EXPECT_STATUS(tkrt_triton_kernel_load(&path, 1, &options, &k), TKRT_STATUS_INVALID_ARGUMENT,
                "tkrt_triton_load_options_t.constants: constants \"BLOCK=1024,DTYPE=fp16\": the "
                "value of 'DTYPE' is not an integer");
  EXPECT_TRUE(k == NULL);
  options.constants = "BLOCK=1,BLOCK=2";
  EXPECT_STATUS(tkrt_triton_kernel_load(&path, 1, &options, &k), TKRT_STATUS_INVALID_ARGUMENT,
                "'BLOCK' is bound twice");
  /* None given: "" and no rule. */
  options.constants = NULL;
  ASSERT_OK(tkrt_triton_kernel_load(&path, 1, &options, &k));
  EXPECT_STREQ(tkrt_triton_kernel_constants(k), "");
  tkrt_triton_kernel_release(k);
  tkrt_device_release(device);
}

static void host_call_autotuned(void) {
  tkrt_device_t* device = open_host();
  if (!device) TKRT_TEST_SKIP("no host backend");
  /* Three variants of add_kernel (BLOCK 256, 512, 1024; num_warps 2, 4, 8), host-only outputs. */
  host_variants_t hv;
  ASSERT_OK(host_variants_make("variant", &hv));
  tkrt_triton_scalar_t n = {"n", false, 100003, 0};
  tkrt_triton_call_desc_t desc;
  tkrt_triton_call_desc_init(&desc);
  desc.variants = hv.variants;
  desc.variant_count = 3;
  desc.scalars = &n;
  desc.scalar_count = 1;
  tkrt_call_t* call = NULL;
  ASSERT_OK(tkrt_triton_call_create(&desc, &call));
  const tkrt_call_desc_t* cd = tkrt_call_get_desc(call);
  EXPECT_TRUE(cd->autotuned && cd->config_count == 3);
  EXPECT_EQ_U64(cd->configs[0].grid[0], 391);
  EXPECT_EQ_U64(cd->configs[2].grid[0], 98);
  EXPECT_STREQ(cd->configs[1].description, "BLOCK=512 num_warps=4 num_stages=1");

  tkrt_autotuner_t* tuner = NULL;
  ASSERT_OK(quick_tuner(&tuner));
  EXPECT_EQ_U64(run_add(device, call, 100003, tuner, 0), 0);
  float times[3];
  tkrt_tune_report_t report;
  tkrt_tune_report_init(&report);
  report.times_ms = times;
  report.times_capacity = 3;
  EXPECT_OK(tkrt_autotuner_get_report(tuner, call, tkrt_device_info(device)->arch, &report));
  EXPECT_TRUE(report.source == TKRT_TUNE_SOURCE_TUNED && report.config_count == 3);
  for (int i = 0; i < 3; ++i) EXPECT_TRUE(times[i] >= 0);
  tkrt_call_release(call);
  call = NULL;

  /* In place (x += y): x is saved before tuning and restored before every variant, so the result
   * is x + y exactly once. */
  const char* inout = "x_ptr";
  desc.inout = &inout;
  desc.inout_count = 1;
  ASSERT_OK(tkrt_triton_call_create(&desc, &call));
  EXPECT_EQ_U64(tkrt_call_get_desc(call)->alias_count, 1);
  tkrt_autotuner_t* tuner2 = NULL;
  ASSERT_OK(quick_tuner(&tuner2));
  EXPECT_EQ_U64(run_add(device, call, 100003, tuner2, 1), 0);
  tkrt_autotuner_destroy(tuner2);
  tkrt_call_release(call);
  tkrt_autotuner_destroy(tuner);

  /* Variants of different kernels do not make one call. */
  char matmul[1024];
  vector_path(matmul, sizeof(matmul), "matmul/cuda_sm90");
  tkrt_triton_kernel_t* mm = NULL;
  ASSERT_OK(load1(matmul, &mm));
  hv.variants[1].kernel = mm;
  EXPECT_STATUS(tkrt_triton_call_create(&desc, &call), TKRT_STATUS_INVALID_ARGUMENT,
                "variant 1 of 'matmul_kernel' declares 6 parameters; variant 0 declares 4");
  tkrt_triton_kernel_release(mm);
  host_variants_release(&hv);
  tkrt_device_release(device);
}

static void host_image_only_on_gpu_dir(void) {
  /* A GPU-only kernel on the host device: the error lists what there is. */
  tkrt_device_t* device = open_host();
  if (!device) TKRT_TEST_SKIP("no host backend");
  char dir[1024];
  vector_path(dir, sizeof(dir), "add");
  tkrt_triton_kernel_t* k = NULL;
  tkrt_call_t* call = NULL;
  ASSERT_OK(load1(dir, &k));
  tkrt_triton_scalar_t n = {"n", false, 4, 0};
  tkrt_triton_variant_t variant = {k, NULL, {1, 1, 1}, NULL, NULL};
  tkrt_triton_call_desc_t desc;
  tkrt_triton_call_desc_init(&desc);
  desc.variants = &variant;
  desc.variant_count = 1;
  desc.scalars = &n;
  desc.scalar_count = 1;
  ASSERT_OK(tkrt_triton_call_create(&desc, &call));
  EXPECT_STATUS(tkrt_call_prepare(call, device), TKRT_STATUS_INVALID_ARGUMENT,
                "kernel 'add_kernel': no image for this device (host");
  tkrt_call_release(call);
  tkrt_triton_kernel_release(k);
  tkrt_device_release(device);
}

static void native_code_consent(void) {
  /* A host image beside Triton's output is native code: without allow_native_code it is left out
   * (and named), never read into the kernel. */
  char dir[1024], so[1100];
  make_add_dir("consent", g_host[2], NULL, dir, sizeof(dir));
  snprintf(so, sizeof(so), "%s/add_kernel.so", dir);
  const char* path = dir;
  tkrt_triton_kernel_t* k = NULL;
  ASSERT_OK(tkrt_triton_kernel_load(&path, 1, NULL, &k));
  const tkrt_kernel_desc_t* d = tkrt_kernel_get_desc(tkrt_triton_kernel_get(k));
  EXPECT_EQ_U64(d->image_count, 2);
  for (size_t i = 0; i < d->image_count; ++i) EXPECT_TRUE(d->images[i].kind != TKRT_IMAGE_HOST);
  EXPECT_EQ_U64(tkrt_triton_kernel_target(k, 0)->image_kinds,
                (1u << TKRT_IMAGE_CUBIN) | (1u << TKRT_IMAGE_PTX));
  EXPECT_STREQ(tkrt_triton_kernel_target(k, 0)->native_code_left_out, so);
  tkrt_device_t* device = open_host();
  if (device) {
    tkrt_triton_scalar_t n = {"n", false, 4, 0};
    tkrt_triton_variant_t variant = {k, NULL, {1, 1, 1}, NULL, NULL};
    tkrt_triton_call_desc_t desc;
    tkrt_triton_call_desc_init(&desc);
    desc.variants = &variant;
    desc.variant_count = 1;
    desc.scalars = &n;
    desc.scalar_count = 1;
    tkrt_call_t* call = NULL;
    ASSERT_OK(tkrt_triton_call_create(&desc, &call));
    EXPECT_STATUS(tkrt_call_prepare(call, device), TKRT_STATUS_INVALID_ARGUMENT,
                  "no image for this device (host");
    tkrt_call_release(call);
    tkrt_device_release(device);
  }
  tkrt_triton_kernel_release(k);

  /* Asking for host images is not consent: with nothing else to take, the target is refused. */
  tkrt_triton_load_options_t options;
  tkrt_triton_load_options_init(&options);
  options.image_kinds = 1u << TKRT_IMAGE_HOST;
  k = NULL;
  EXPECT_STATUS(tkrt_triton_kernel_load(&path, 1, &options, &k), TKRT_STATUS_PERMISSION_DENIED,
                "its only image (of the kinds asked for) is ");
  EXPECT_TRUE(k == NULL);
  EXPECT_STATUS(tkrt_triton_kernel_load(&path, 1, &options, &k), TKRT_STATUS_PERMISSION_DENIED,
                "add_kernel.so, a host image: native code");
  EXPECT_STATUS(tkrt_triton_kernel_load(&path, 1, &options, &k), TKRT_STATUS_PERMISSION_DENIED,
                "tkrt_triton_load_options_t.allow_native_code");

  /* A host-only output (target.backend "host") is refused the same way. */
  char host_dir[1024];
  make_host_output(make_dir("consent_host_only", host_dir, sizeof(host_dir)), g_host[2], 8);
  path = host_dir;
  EXPECT_STATUS(tkrt_triton_kernel_load(&path, 1, NULL, &k), TKRT_STATUS_PERMISSION_DENIED,
                "/consent_host_only/add_kernel.so, a host image");
  EXPECT_TRUE(k == NULL);

  /* With consent both folders have their host image, and nothing is left out. */
  options.allow_native_code = true;
  ASSERT_OK(tkrt_triton_kernel_load(&path, 1, &options, &k));
  EXPECT_TRUE(tkrt_triton_kernel_target(k, 0)->native_code_left_out == NULL);
  EXPECT_TRUE(tkrt_kernel_get_desc(tkrt_triton_kernel_get(k))->images[0].kind == TKRT_IMAGE_HOST);
  tkrt_triton_kernel_release(k);
  path = dir;
  options.image_kinds = 0;
  ASSERT_OK(tkrt_triton_kernel_load(&path, 1, &options, &k));
  EXPECT_EQ_U64(tkrt_kernel_get_desc(tkrt_triton_kernel_get(k))->image_count, 3);
  EXPECT_TRUE(tkrt_triton_kernel_target(k, 0)->native_code_left_out == NULL);
  tkrt_triton_kernel_release(k);

  /* Consent covers the folder's own file: a host image that is a symbolic link (here to a real
   * host image elsewhere) is not followed, even with consent. */
  char linked[1024], link_path[1100];
  make_host_output(make_dir("consent_symlink", linked, sizeof(linked)), g_host[2], 8);
  snprintf(link_path, sizeof(link_path), "%s/add_kernel.so", linked);
  ASSERT_TRUE(unlink(link_path) == 0 && symlink(g_host[2], link_path) == 0);
  path = linked;
  k = NULL;
  EXPECT_STATUS(tkrt_triton_kernel_load(&path, 1, &options, &k), TKRT_STATUS_FAILED_PRECONDITION,
                "add_kernel.so is a symbolic link, which is not followed here");
  EXPECT_TRUE(k == NULL);
}

/* ---------------------------------------------------------------- host image signatures (D13) */

static const char kTtirHead[] = "module {\n  tt.func public @add_kernel(";
static const char kTtirTail[] = ") attributes {noinline = false} {\n    tt.return\n  }\n}\n";

/* A host-only add_kernel output in `name` whose TTIR declares `params`, beside `image` (bytes). */
static const char* make_signature_dir(const char* name, const char* params, const void* image,
                                      size_t image_size, char* out, size_t capacity) {
  make_host_output(make_dir(name, out, capacity), g_host[2], 4);
  char ttir[1200];
  snprintf(ttir, sizeof(ttir), "%s%s%s", kTtirHead, params, kTtirTail);
  write_text(out, "add_kernel.ttir", ttir);
  if (image) {
    char path[1100];
    snprintf(path, sizeof(path), "%s/add_kernel.so", out);
    FILE* f = fopen(path, "wb");
    if (f) {
      fwrite(image, 1, image_size, f);
      fclose(f);
    }
  }
  return out;
}

/* Loads `dir` with consent and expects INVALID_ARGUMENT naming both files and `needle`. */
static void expect_signature_refused(const char* dir, const char* needle) {
  char ttir[1100], so[1100];
  snprintf(ttir, sizeof(ttir), "%s/add_kernel.ttir", dir);
  snprintf(so, sizeof(so), "%s/add_kernel.so", dir);
  tkrt_triton_kernel_t* k = NULL;
  EXPECT_STATUS(load1(dir, &k), TKRT_STATUS_INVALID_ARGUMENT, needle);
  EXPECT_STATUS(load1(dir, &k), TKRT_STATUS_INVALID_ARGUMENT, ttir);
  EXPECT_STATUS(load1(dir, &k), TKRT_STATUS_INVALID_ARGUMENT, so);
  EXPECT_TRUE(k == NULL);
}

/* The TTIR's parameter list must match the signature the host image beside it declares
 * ("*fp32,*fp32,*fp32,i32" for the add kernel the tests build): a reordered one made the host
 * kernel read n as a pointer (SIGSEGV), a shorter one ran with garbage. */
static void host_signature_checked(void) {
  static const char kX[] = "%x_ptr: !tt.ptr<f32> {tt.divisibility = 16 : i32}, ";
  static const char kY[] = "%y_ptr: !tt.ptr<f32> {tt.divisibility = 16 : i32}, ";
  char params[1024], dir[1024];
  tkrt_triton_kernel_t* k = NULL;

  /* The declared order loads (as the shared TTIR does in the other cases). */
  snprintf(params, sizeof(params), "%s%s%%out_ptr: !tt.ptr<f32>, %%n: i32", kX, kY);
  ASSERT_OK(load1(make_signature_dir("sig_same", params, NULL, 0, dir, sizeof(dir)), &k));
  EXPECT_EQ_U64(tkrt_triton_kernel_param_count(k), 4);
  tkrt_triton_kernel_release(k);

  /* Reordered: n where the kernel reads its output pointer. */
  snprintf(params, sizeof(params), "%s%s%%n: i32, %%out_ptr: !tt.ptr<f32>", kX, kY);
  expect_signature_refused(make_signature_dir("sig_reordered", params, NULL, 0, dir, sizeof(dir)),
                           "parameter 2 ('n') is i32 in the TTIR but *fp32 in the host image's "
                           "signature \"*fp32,*fp32,*fp32,i32\"");
  /* Shorter: the kernel would read a fourth value nobody passed. */
  snprintf(params, sizeof(params), "%s%s%%out_ptr: !tt.ptr<f32>", kX, kY);
  expect_signature_refused(make_signature_dir("sig_shorter", params, NULL, 0, dir, sizeof(dir)),
                           "the TTIR has 3 parameters, the host image's signature "
                           "\"*fp32,*fp32,*fp32,i32\" 4; the first that differs is parameter 3 "
                           "(i32 of the host image, missing from the TTIR)");
  /* Longer. */
  snprintf(params, sizeof(params), "%s%s%%out_ptr: !tt.ptr<f32>, %%n: i32, %%m: i32", kX, kY);
  expect_signature_refused(make_signature_dir("sig_longer", params, NULL, 0, dir, sizeof(dir)),
                           "the TTIR has 5 parameters, the host image's signature "
                           "\"*fp32,*fp32,*fp32,i32\" 4; the first that differs is parameter 4 "
                           "('m' of the TTIR, missing from the host image)");
  /* Same kinds, another element type: the kernel would read 4-byte floats from 2-byte ones. */
  snprintf(params, sizeof(params), "%%x_ptr: !tt.ptr<f16>, %s%%out_ptr: !tt.ptr<f32>, %%n: i32",
           kY);
  expect_signature_refused(make_signature_dir("sig_pointee", params, NULL, 0, dir, sizeof(dir)),
                           "parameter 0 ('x_ptr') is *fp16 in the TTIR but *fp32");
  /* A scalar of another size. */
  snprintf(params, sizeof(params), "%s%s%%out_ptr: !tt.ptr<f32>, %%n: i64", kX, kY);
  expect_signature_refused(make_signature_dir("sig_scalar", params, NULL, 0, dir, sizeof(dir)),
                           "parameter 3 ('n') is i64 in the TTIR but i32");

  /* The check reads the image's own declaration: the same image with its signature string
   * edited in place (same length) to "*fp32,*fp32,i32,*fp32" is refused against the shared TTIR,
   * and with "*fp32,*fp32,*fp32,u32" (unsigned, same size) accepted. */
  size_t size = 0;
  unsigned char* image = tkrt_test_read_file(g_host[2], &size);
  ASSERT_TRUE(image != NULL);
  static const char kDeclared[] = "*fp32,*fp32,*fp32,i32";
  unsigned char* at = NULL;
  for (size_t i = 0; i + sizeof(kDeclared) <= size && !at; ++i) {
    if (memcmp(image + i, kDeclared, sizeof(kDeclared)) == 0) at = image + i;
  }
  ASSERT_TRUE(at != NULL);
  snprintf(params, sizeof(params), "%s%s%%out_ptr: !tt.ptr<f32>, %%n: i32", kX, kY);
  memcpy(at, "*fp32,*fp32,i32,*fp32", sizeof(kDeclared));
  expect_signature_refused(make_signature_dir("sig_edited", params, image, size, dir, sizeof(dir)),
                           "parameter 2 ('out_ptr') is *fp32 in the TTIR but i32 in the host "
                           "image's signature \"*fp32,*fp32,i32,*fp32\"");
  memcpy(at, "*fp32,*fp32,*fp32,u32", sizeof(kDeclared));
  ASSERT_OK(load1(make_signature_dir("sig_unsigned", params, image, size, dir, sizeof(dir)), &k));
  tkrt_triton_kernel_release(k);
  free(image);

  /* Beside GPU images too: the CUDA output with the host image and a reordered TTIR is refused
   * with consent; without it the host image is left out, and the cubin and PTX load. */
  make_add_dir("sig_beside_cubin", g_host[2], NULL, dir, sizeof(dir));
  snprintf(params, sizeof(params), "%s%s%%n: i32, %%out_ptr: !tt.ptr<f32>", kX, kY);
  char ttir[1200];
  snprintf(ttir, sizeof(ttir), "%s%s%s", kTtirHead, params, kTtirTail);
  write_text(dir, "add_kernel.ttir", ttir);
  expect_signature_refused(dir, "parameter 2 ('n') is i32 in the TTIR but *fp32");
  const char* path = dir;
  ASSERT_OK(tkrt_triton_kernel_load(&path, 1, NULL, &k));
  EXPECT_EQ_U64(tkrt_kernel_get_desc(tkrt_triton_kernel_get(k))->image_count, 2);
  tkrt_triton_kernel_release(k);
}

/* A hand-made 592-byte host ELF whose descriptor's signature pointer has an R_X86_64_64
 * relocation. Linked to its .dynsym (section 1) it reads "i32"; linked to a SHT_NOBITS section
 * at a huge offset and size (or to its string table) the symbol read went past the bytes (ASan SEGV): now
 * refused with INVALID_ARGUMENT. */
static void put_le(unsigned char* p, uint64_t value, int bytes) {
  for (int i = 0; i < bytes; ++i) p[i] = (unsigned char)(value >> (8 * i));
}

static void put_section(unsigned char* elf, int index, uint32_t type, uint64_t offset,
                        uint64_t size, uint32_t link, uint64_t entsize) {
  unsigned char* sh = elf + 272 + 64 * index;
  put_le(sh + 4, type, 4);
  put_le(sh + 24, offset, 8);
  put_le(sh + 32, size, 8);
  put_le(sh + 40, link, 4);
  put_le(sh + 56, entsize, 8);
}

static tkrt_status_t crafted_signature(uint32_t rela_link, char** out) {
  static unsigned char elf[592];
  memset(elf, 0, sizeof(elf));
  memcpy(elf, "\x7f" "ELF\x02\x01\x01", 7);
  put_le(elf + 16, 3, 2);   /* ET_DYN */
  put_le(elf + 18, 62, 2);  /* x86-64 */
  put_le(elf + 32, 64, 8);  /* phoff */
  put_le(elf + 40, 272, 8); /* shoff */
  put_le(elf + 54, 56, 2);
  put_le(elf + 56, 1, 2);
  put_le(elf + 58, 64, 2);
  put_le(elf + 60, 5, 2);
  put_le(elf + 64, 1, 4);                /* PT_LOAD: the whole file at vaddr 0 */
  put_le(elf + 64 + 32, sizeof(elf), 8); /* filesz */
  put_le(elf + 128, TKRT_HOST_KERNEL_ABI_VERSION, 4); /* the descriptor */
  memcpy(elf + 161, TKRT_HOST_KERNEL_SYMBOL_PREFIX "k", sizeof(TKRT_HOST_KERNEL_SYMBOL_PREFIX));
  put_le(elf + 192 + 24, 1, 4);       /* symbol 1: name */
  put_le(elf + 192 + 24 + 6, 1, 2);   /* defined */
  put_le(elf + 192 + 24 + 8, 128, 8); /* value */
  put_le(elf + 192 + 24 + 16, 32, 8); /* size */
  put_le(elf + 240, 128 + 16, 8);     /* RELA: the signature pointer */
  put_le(elf + 248, (uint64_t)1 << 32 | 1 /* R_X86_64_64, symbol 1 */, 8);
  put_le(elf + 256, 264 - 128, 8);
  memcpy(elf + 264, "i32", 4);
  put_section(elf, 1, 11 /* SHT_DYNSYM */, 192, 48, 2, 24);
  put_section(elf, 2, 3 /* SHT_STRTAB */, 160, 32, 0, 0);
  put_section(elf, 3, 4 /* SHT_RELA */, 240, 24, rela_link, 24);
  put_section(elf, 4, 8 /* SHT_NOBITS */, (uint64_t)1 << 36, (uint64_t)1 << 40, 0, 24);
  return tkrt_triton_host_signature(elf, sizeof(elf), "k", "crafted.so", out);
}

static void host_signature_crafted_elf(void) {
  char* signature = NULL;
  ASSERT_OK(crafted_signature(1, &signature));
  ASSERT_TRUE(signature != NULL);
  EXPECT_STREQ(signature, "i32");
  free(signature);
  for (uint32_t link = 2; link <= 4; link += 2) { /* the string table, the NOBITS section */
    signature = NULL;
    tkrt_status_t status = crafted_signature(link, &signature);
    EXPECT_TRUE(status && strstr(tkrt_status_message(status), "crafted.so: cannot read the "
                                                              "signature") &&
                strstr(tkrt_status_message(status), "signature pointer has no relocation"));
    EXPECT_STATUS(status, TKRT_STATUS_INVALID_ARGUMENT, "symbol tkrt_host_kernel__k");
    EXPECT_TRUE(signature == NULL);
  }
}

/* ---------------------------------------------------------------- tensor descriptors, bound launches */

/* A copy of a shared Triton 3.6 output folder (<rel>/cuda_sm90/<stem>.*), its JSON replaced by
 * `json_edit` when given, a host image beside it when given. */
static const char* make_copy_dir(const char* name, const char* rel, const char* stem,
                                 const char* host_image, const char* json_edit, char* out,
                                 size_t capacity) {
  static const char* const exts[] = {".cubin", ".ptx", ".ttir", ".json"};
  make_dir(name, out, capacity);
  for (size_t i = 0; i < 4; ++i) {
    char from[1024], file[128];
    snprintf(file, sizeof(file), "%s%s", stem, exts[i]);
    snprintf(from, sizeof(from), "%s/%s/cuda_sm90/%s", g_vectors, rel, file);
    copy_file(from, out, file);
  }
  char file[128];
  snprintf(file, sizeof(file), "%s.json", stem);
  if (json_edit) write_text(out, file, json_edit);
  if (host_image) {
    snprintf(file, sizeof(file), "%s.so", stem);
    copy_file(host_image, out, file);
  }
  return out;
}

/* tkrt_triton_cache_entry_check: a cache entry of this user's is read; one others can write, a
 * link among its files, a JSON naming another kernel or hash, a file where the folder should be
 * are not (ownership by another user: test_python_hostile.py, which can chown as root). */
static void cache_entry_check(void) {
  char cache[1024], entry[1100], path[1200];
  make_dir("entry_cache", cache, sizeof(cache));
  chmod(cache, 0755);
  snprintf(entry, sizeof(entry), "%s/HASHFOLDER", cache);
  mkdir(entry, 0755);
  char from[1024];
  snprintf(from, sizeof(from), "%s/add/cuda_sm90/add_kernel.ttir", g_vectors);
  copy_file(from, entry, "add_kernel.ttir");
  write_text(entry, "add_kernel.json", "{\"name\": \"add_kernel\", \"hash\": \"abc\"}");
  snprintf(path, sizeof(path), "%s/add_kernel.json", entry);
  chmod(path, 0644);
  EXPECT_OK(tkrt_triton_cache_entry_check(entry, "add_kernel", "abc", 0));
  EXPECT_OK(tkrt_triton_cache_entry_check(entry, "add_kernel", NULL, 0));
  EXPECT_STATUS(tkrt_triton_cache_entry_check(entry, "add_kernel", "abd", 0),
                TKRT_STATUS_PERMISSION_DENIED, "names another kernel or hash than 'add_kernel' "
                "(hash abd)");
  EXPECT_STATUS(tkrt_triton_cache_entry_check(entry, "other", NULL, 0), TKRT_STATUS_NOT_FOUND,
                "other.json");
  EXPECT_STATUS(tkrt_triton_cache_entry_check(entry, "../x", NULL, 0),
                TKRT_STATUS_INVALID_ARGUMENT, "(no '/')");
  /* Others can write the JSON: refused, unless shared caches are trusted. */
  chmod(path, 0666);
  EXPECT_STATUS(tkrt_triton_cache_entry_check(entry, "add_kernel", "abc", 0),
                TKRT_STATUS_PERMISSION_DENIED, "add_kernel.json is not trusted: other users can "
                "write it");
  EXPECT_OK(tkrt_triton_cache_entry_check(entry, "add_kernel", "abc", 1));
  chmod(path, 0644);
  /* The cache folder: writable by others and not sticky, refused; sticky (as /tmp), read. */
  chmod(cache, 0777);
  EXPECT_STATUS(tkrt_triton_cache_entry_check(entry, "add_kernel", "abc", 0),
                TKRT_STATUS_PERMISSION_DENIED, "other users can write its cache folder");
  char slashed[1200]; /* the same folder named with a trailing '/': the same cache folder above */
  snprintf(slashed, sizeof(slashed), "%s/", entry);
  EXPECT_STATUS(tkrt_triton_cache_entry_check(slashed, "add_kernel", "abc", 0),
                TKRT_STATUS_PERMISSION_DENIED, "other users can write its cache folder");
  chmod(cache, 01777);
  EXPECT_OK(tkrt_triton_cache_entry_check(entry, "add_kernel", "abc", 0));
  chmod(cache, 0755);
  /* A link among the kernel's files, even when shared caches are trusted. */
  char link[1200];
  snprintf(link, sizeof(link), "%s/add_kernel.ptx", entry);
  EXPECT_TRUE(symlink("/etc/passwd", link) == 0);
  EXPECT_STATUS(tkrt_triton_cache_entry_check(entry, "add_kernel", "abc", 1),
                TKRT_STATUS_PERMISSION_DENIED, "/add_kernel.ptx is a symbolic link");
  unlink(link);
  /* The entry itself a link to a folder, or a file. */
  snprintf(link, sizeof(link), "%s/LINKED", cache);
  EXPECT_TRUE(symlink(entry, link) == 0);
  EXPECT_STATUS(tkrt_triton_cache_entry_check(link, "add_kernel", "abc", 1),
                TKRT_STATUS_PERMISSION_DENIED, "is not a folder (a symbolic link or another file)");
  EXPECT_STATUS(tkrt_triton_cache_entry_check(path, "add_kernel", "abc", 1),
                TKRT_STATUS_PERMISSION_DENIED, "is not a folder");
}

static void tensordesc_loader(void) {
  char dir[1024];
  vector_path(dir, sizeof(dir), "matmul_tma");
  tkrt_triton_kernel_t* k = NULL;
  ASSERT_OK(load1(dir, &k));
  /* The TTIR's 18 parameters are 6: three descriptors (their shapes and strides hidden), M, N, K. */
  ASSERT_TRUE(tkrt_triton_kernel_param_count(k) == 6);
  static const char* const names[] = {"a_desc", "b_desc", "c_desc", "M", "N", "K"};
  static const char* const types[] = {"tensordesc<fp16[64, 64]>", "tensordesc<fp16[64, 128]>",
                                      "tensordesc<fp16[64, 128]>", "i32", "i32", "i32"};
  for (size_t i = 0; i < 6; ++i) {
    const tkrt_triton_param_t* p = tkrt_triton_kernel_param(k, i);
    EXPECT_STREQ(p->name, names[i]);
    EXPECT_STREQ(p->type, types[i]);
    EXPECT_TRUE(p->kind == (i < 3 ? TKRT_PARAM_TMA : TKRT_PARAM_I32));
    EXPECT_EQ_U64(p->desc_rank, i < 3 ? 2 : 0);
    EXPECT_EQ_U64(p->element_bytes, i < 3 ? 2 : 4);
    EXPECT_EQ_U64(p->divisibility, i < 3 ? 0 : 16);
  }
  EXPECT_EQ_U64(tkrt_triton_kernel_param(k, 1)->desc_block[0], 64);
  EXPECT_EQ_U64(tkrt_triton_kernel_param(k, 1)->desc_block[1], 128);
  EXPECT_TRUE(tkrt_triton_kernel_find_param(k, "a_desc_0") < 0);
  /* The meta: one entry per descriptor; b's TMA box (64x64) is smaller than its block. */
  ASSERT_TRUE(k->desc_meta_count == 3);
  for (size_t i = 0; i < 3; ++i) {
    EXPECT_TRUE(k->desc_meta[i].swizzle == 3 && k->desc_meta[i].elem_size == 2 &&
                k->desc_meta[i].elem_type == 6 && !k->desc_meta[i].fp4_padded);
    EXPECT_TRUE(k->desc_meta[i].rank == 2 && k->desc_meta[i].block_size[0] == 64 &&
                k->desc_meta[i].block_size[1] == 64);
  }
  EXPECT_EQ_U64(tkrt_triton_desc_host_type(8), 10);
  EXPECT_EQ_U64(tkrt_triton_desc_host_type(9), 8);
  EXPECT_EQ_U64(tkrt_triton_desc_host_type(10), 9);
  EXPECT_EQ_U64(tkrt_triton_desc_host_type(6), 6);
  const tkrt_kernel_desc_t* kd = tkrt_kernel_get_desc(tkrt_triton_kernel_get(k));
  EXPECT_TRUE(kd->profile_scratch_size == 0 && kd->profile_scratch_align == 1);

  /* The call: each descriptor is a TMA parameter (the meta's type, swizzle and box, a placeholder
   * tensor) and its 2 + 2 hidden scalars. */
  tkrt_triton_scalar_t mnk[3] = {{"M", false, 256, 0}, {"N", false, 256, 0}, {"K", false, 256, 0}};
  tkrt_triton_variant_t variant = {k, "cdiv(M, 64) * cdiv(N, 128)", {0, 0, 0}, NULL, NULL};
  tkrt_triton_call_desc_t desc;
  tkrt_triton_call_desc_init(&desc);
  desc.variants = &variant;
  desc.variant_count = 1;
  desc.scalars = mnk;
  desc.scalar_count = 3;
  tkrt_call_t* call = NULL;
  ASSERT_OK(tkrt_triton_call_create(&desc, &call));
  const tkrt_config_desc_t* config = &tkrt_call_get_desc(call)->configs[0];
  ASSERT_TRUE(config->param_count == 18);
  EXPECT_EQ_U64(config->grid[0], 8);
  for (size_t d = 0; d < 3; ++d) {
    const tkrt_param_t* tma = &config->params[5 * d];
    ASSERT_TRUE(tma->kind == TKRT_PARAM_TMA);
    EXPECT_TRUE(tma->value.tma.elem_type == 6 && tma->value.tma.swizzle == 3 &&
                tma->value.tma.oob_fill == 0 && tma->value.tma.rank == 2);
    EXPECT_TRUE(tma->value.tma.block_shape[0] == 64 && tma->value.tma.block_shape[1] == 64);
    uint64_t inner = d == 0 ? 64 : 128;
    EXPECT_TRUE(tma->value.tma.shape[0] == 64 && tma->value.tma.shape[1] == inner);
    EXPECT_TRUE(tma->value.tma.strides[0] == inner && tma->value.tma.strides[1] == 1);
    EXPECT_TRUE(config->params[5 * d + 1].kind == TKRT_PARAM_I32 &&
                config->params[5 * d + 1].value.i32 == 64);
    EXPECT_TRUE(config->params[5 * d + 2].kind == TKRT_PARAM_I32 &&
                config->params[5 * d + 2].value.i32 == (int32_t)inner);
    EXPECT_TRUE(config->params[5 * d + 3].kind == TKRT_PARAM_I64 &&
                config->params[5 * d + 3].value.i64 == (int64_t)inner);
    EXPECT_TRUE(config->params[5 * d + 4].kind == TKRT_PARAM_I64 &&
                config->params[5 * d + 4].value.i64 == 1);
  }
  EXPECT_TRUE(config->params[15].kind == TKRT_PARAM_I32 && config->params[15].value.i32 == 256);
  /* Launch paths that take no shapes refuse descriptors; the host has no TMA. */
  tkrt_device_t* device = open_host();
  if (device) {
    tkrt_buffer_t buffers[3] = {{0, 0}, {0, 0}, {0, 0}};
    EXPECT_STATUS(tkrt_triton_call_launch(call, device, NULL, buffers, 3, NULL),
                  TKRT_STATUS_INVALID_ARGUMENT,
                  "parameter 0 is a tensor descriptor, whose tensor (base, shape, strides) comes "
                  "with each launch: launch it with tkrt_triton_bound_launch");
    tkrt_triton_bound_options_t options;
    tkrt_triton_bound_options_init(&options);
    options.device = device;
    tkrt_triton_bound_t* bound = NULL;
    EXPECT_STATUS(tkrt_triton_bound_create(&desc, &options, &bound), TKRT_STATUS_UNIMPLEMENTED,
                  "'matmul_tma_kernel': parameter 0 (a_desc: tensordesc<fp16[64, 64]>) is a tensor "
                  "descriptor, which needs TMA; the host backend's device has none");
    EXPECT_TRUE(bound == NULL);
    tkrt_device_release(device);
  }
  tkrt_call_release(call);
  call = NULL;
  desc.scalars = (tkrt_triton_scalar_t[]){{"a_desc", false, 1, 0}};
  desc.scalar_count = 1;
  EXPECT_STATUS(tkrt_triton_call_create(&desc, &call), TKRT_STATUS_INVALID_ARGUMENT,
                "'a_desc' is a tensor descriptor parameter (tensordesc<fp16[64, 64]>)");
  tkrt_triton_kernel_release(k);

  /* Meta errors name the file and the field; descriptors Triton did not lower to TMA (empty
   * meta) load and make a call that takes them decomposed. */
  char path[1100];
  snprintf(path, sizeof(path), "%s/cuda_sm90/matmul_tma_kernel.json", dir);
  size_t size = 0;
  char* bytes = tkrt_test_read_file(path, &size);
  ASSERT_TRUE(bytes);
  char* original = calloc(1, size + 1); /* the file is not NUL-terminated */
  ASSERT_TRUE(original);
  memcpy(original, bytes, size);
  free(bytes);
  static const char kMeta0[] = "{\"swizzle\": 3, \"elem_size\": 2, \"elem_type\": 6, \"block_size\": [64, 64], \"fp4_padded\": false}";
  static const struct {
    const char* to;
    tkrt_status_code_t code;
    const char* message;
  } edits[] = {
      {"{\"swizzle\": 4, \"elem_size\": 2, \"elem_type\": 6, \"block_size\": [64, 64], \"fp4_padded\": false}",
       TKRT_STATUS_INVALID_ARGUMENT, "field 'tensordesc_meta[0].swizzle' is 4; it must be an integer in 0..3"},
      {"{\"swizzle\": 3, \"elem_size\": 3, \"elem_type\": 6, \"block_size\": [64, 64], \"fp4_padded\": false}",
       TKRT_STATUS_INVALID_ARGUMENT, "field 'tensordesc_meta[0].elem_size' is 3; it must be 1, 2, 4 or 8"},
      {"{\"swizzle\": 3, \"elem_size\": 2, \"elem_type\": 13, \"block_size\": [64, 64], \"fp4_padded\": false}",
       TKRT_STATUS_INVALID_ARGUMENT, "field 'tensordesc_meta[0].elem_type' is 13, which is no CUtensorMapDataType"},
      {"{\"swizzle\": 3, \"elem_size\": 2, \"elem_type\": 6, \"block_size\": [64, 0], \"fp4_padded\": false}",
       TKRT_STATUS_INVALID_ARGUMENT, "field 'tensordesc_meta[0].block_size' must be a list of 1..5 integers in 1..256"},
      {"{\"swizzle\": 3, \"elem_size\": 2, \"elem_type\": 6, \"block_size\": [64, 64], \"fp4_padded\": 1}",
       TKRT_STATUS_INVALID_ARGUMENT, "field 'tensordesc_meta[0].fp4_padded' is a number; it must be true or false"},
      {"{\"swizzle\": 3, \"elem_size\": 2, \"elem_type\": 6, \"block_size\": [64], \"fp4_padded\": false}",
       TKRT_STATUS_INVALID_ARGUMENT, "field 'tensordesc_meta[0]' (rank 1, elem_size 2) does not fit parameter 'a_desc: tensordesc<fp16[64, 64]>'"},
      {"{\"swizzle\": 3, \"elem_size\": 4, \"elem_type\": 6, \"block_size\": [64, 64], \"fp4_padded\": false}",
       TKRT_STATUS_INVALID_ARGUMENT, "(rank 2, elem_size 4) does not fit parameter 'a_desc"},
      {"7", TKRT_STATUS_INVALID_ARGUMENT, "field 'tensordesc_meta[0]' is a number; it must be an object"},
  };
  const char* at = strstr(original, kMeta0);
  ASSERT_TRUE(at);
  char json[8192];
  for (size_t i = 0; i < sizeof(edits) / sizeof(edits[0]); ++i) {
    snprintf(json, sizeof(json), "%.*s%s%s", (int)(at - original), original, edits[i].to,
             at + strlen(kMeta0));
    char name[32];
    snprintf(name, sizeof(name), "meta%zu", i);
    make_copy_dir(name, "matmul_tma", "matmul_tma_kernel", NULL, json, dir, sizeof(dir));
    EXPECT_STATUS(load1(dir, &k), edits[i].code, edits[i].message);
  }
  /* Two entries for three descriptors. */
  snprintf(json, sizeof(json), "%.*s%s", (int)(at - original), original,
           at + strlen(kMeta0) + 2 /* ", " */);
  make_copy_dir("meta_short", "matmul_tma", "matmul_tma_kernel", NULL, json, dir, sizeof(dir));
  EXPECT_STATUS(load1(dir, &k), TKRT_STATUS_INVALID_ARGUMENT,
                "field 'tensordesc_meta' has 2 entries but ");
  /* Empty: loads, and the call takes the descriptors decomposed (Triton's launcher without TMA):
   * per descriptor the base, shape and strides as i64, the padding flag, the hidden i32 shape and
   * i64 strides (4 * 2 + 2 = 10 parameters), then M, N, K. A variant lowered to TMA beside one
   * that was not is refused. */
  const char* list = strstr(original, "\"tensordesc_meta\": [");
  const char* end = list ? strstr(list, "}]") : NULL;
  ASSERT_TRUE(list && end);
  snprintf(json, sizeof(json), "%.*s\"tensordesc_meta\": []%s", (int)(list - original), original,
           end + 2);
  make_copy_dir("meta_empty", "matmul_tma", "matmul_tma_kernel", NULL, json, dir, sizeof(dir));
  ASSERT_OK(load1(dir, &k));
  variant.kernel = k;
  desc.scalars = mnk;
  desc.scalar_count = 3;
  ASSERT_OK(tkrt_triton_call_create(&desc, &call));
  {
    const tkrt_config_desc_t* c = &tkrt_call_get_desc(call)->configs[0];
    EXPECT_EQ_U64(c->param_count, 33);
    if (c->param_count == 33) {
      EXPECT_TRUE(c->params[0].kind == TKRT_PARAM_ARRAY && c->params[10].kind == TKRT_PARAM_ARRAY);
      EXPECT_TRUE(c->params[5].kind == TKRT_PARAM_BOOL && c->params[6].kind == TKRT_PARAM_I32);
      /* b_desc's placeholders: its block 64 x 128, contiguous. */
      EXPECT_TRUE(c->params[11].value.i64 == 64 && c->params[12].value.i64 == 128);
      EXPECT_TRUE(c->params[13].value.i64 == 128 && c->params[14].value.i64 == 1);
      EXPECT_TRUE(c->params[27].kind == TKRT_PARAM_I32 && c->params[27].value.i32 == 128);
    }
  }
  tkrt_call_release(call);
  call = NULL;
  {
    tkrt_triton_kernel_t* lowered = NULL;
    vector_path(dir, sizeof(dir), "matmul_tma");
    ASSERT_OK(load1(dir, &lowered));
    tkrt_triton_variant_t mixed[2] = {variant, variant};
    mixed[1].kernel = lowered;
    desc.variants = mixed;
    desc.variant_count = 2;
    EXPECT_STATUS(tkrt_triton_call_create(&desc, &call), TKRT_STATUS_INVALID_ARGUMENT,
                  "variant 1 of 'matmul_tma_kernel': parameter 'a_desc' (tensordesc<fp16[64, "
                  "64]>) is a tensor descriptor that Triton lowered to TMA");
    desc.variants = &variant;
    desc.variant_count = 1;
    tkrt_triton_kernel_release(lowered);
  }
  tkrt_triton_kernel_release(k);
  /* Profile scratch: read into the kernel. */
  const char* ps = strstr(original, "\"profile_scratch_size\": 0, \"profile_scratch_align\": 1");
  ASSERT_TRUE(ps);
  snprintf(json, sizeof(json), "%.*s\"profile_scratch_size\": 4096, \"profile_scratch_align\": 128%s",
           (int)(ps - original), original,
           ps + strlen("\"profile_scratch_size\": 0, \"profile_scratch_align\": 1"));
  make_copy_dir("profile", "matmul_tma", "matmul_tma_kernel", NULL, json, dir, sizeof(dir));
  ASSERT_OK(load1(dir, &k));
  kd = tkrt_kernel_get_desc(tkrt_triton_kernel_get(k));
  EXPECT_TRUE(kd->profile_scratch_size == 4096 && kd->profile_scratch_align == 128);
  tkrt_triton_kernel_release(k);
  free(original);
}

/* Triton's JIT specialisations: add_jit's n has tt.divisibility 16; scale_jit's stride == 1 was
 * folded away (no parameter). */
static void jit_specialisations(void) {
  char dir[1024];
  tkrt_triton_kernel_t* k = NULL;
  vector_path(dir, sizeof(dir), "scale_jit");
  ASSERT_OK(load1(dir, &k));
  ASSERT_TRUE(tkrt_triton_kernel_param_count(k) == 3);
  EXPECT_STREQ(tkrt_triton_kernel_param(k, 0)->name, "x_ptr");
  EXPECT_STREQ(tkrt_triton_kernel_param(k, 1)->name, "out_ptr");
  EXPECT_STREQ(tkrt_triton_kernel_param(k, 2)->name, "n");
  EXPECT_TRUE(tkrt_triton_kernel_find_param(k, "stride") < 0);
  tkrt_triton_kernel_release(k);

  vector_path(dir, sizeof(dir), "add_jit");
  ASSERT_OK(load1(dir, &k));
  EXPECT_EQ_U64(tkrt_triton_kernel_param(k, 3)->divisibility, 16);
  tkrt_triton_kernel_release(k);
}

/* A runtime on the host backend whose tuner stores decisions in `store` ("off": none). */
static tkrt_runtime_t* host_runtime(const char* store) {
  tkrt_runtime_options_t options;
  tkrt_runtime_options_init(&options);
  tkrt_runtime_t* rt = NULL;
  tkrt_status_t status = tkrt_runtime_create(&options, &rt);
  if (status) {
    tkrt_test_print_status_(__FILE__, __LINE__, "tkrt_runtime_create", status);
    tkrt_status_free(status);
    ++tkrt_test_failed_;
    return NULL;
  }
  EXPECT_OK(tkrt_runtime_configure(rt, "backend", "host"));
  EXPECT_OK(tkrt_runtime_configure(rt, "tune_dir", store));
  EXPECT_OK(tkrt_runtime_configure(rt, "target_ms", "1"));
  return rt;
}

/* A runtime on the host backend (host_runtime) and its device 0. Returns the device; NULL when
 * there is none, with *out_rt released and set to NULL when the runtime could not be made (a
 * failure already counted) or left for the caller to release when the host backend has no device
 * (the caller skips). */
static tkrt_device_t* host_runtime_device(const char* store, tkrt_runtime_t** out_rt) {
  *out_rt = host_runtime(store);
  if (!*out_rt) return NULL;
  tkrt_device_t* device = NULL;
  tkrt_status_t status = tkrt_runtime_device(*out_rt, "host", 0, &device);
  if (status) {
    tkrt_status_free(status);
    return NULL;
  }
  return device;
}

/* A keyed bound call's description: the three host variants, tuning key n, on `device`. */
typedef struct keyed_setup {
  tkrt_triton_call_desc_t desc;
  tkrt_triton_bound_options_t options;
} keyed_setup_t;

static void keyed_setup_init(keyed_setup_t* k, host_variants_t* hv, tkrt_runtime_t* rt,
                             tkrt_device_t* device) {
  static const char* const key[] = {"n"};
  tkrt_triton_call_desc_init(&k->desc);
  k->desc.variants = hv->variants;
  k->desc.variant_count = 3;
  tkrt_triton_bound_options_init(&k->options);
  k->options.runtime = rt;
  k->options.device = device;
  k->options.tuning_key = key;
  k->options.tuning_key_count = 1;
}

/* Device buffers x, y (x[i] = i / 4, y[i] = 3 / (i + 1)) and out of `n` floats each. */
typedef struct bound_buffers {
  tkrt_device_t* device;
  int n;
  float* x;
  float* y;
  tkrt_deviceptr_t dx, dy, dout;
} bound_buffers_t;

static void bound_buffers_make(bound_buffers_t* a, tkrt_device_t* device, int n) {
  memset(a, 0, sizeof(*a));
  a->device = device;
  a->n = n;
  size_t bytes = (size_t)n * sizeof(float);
  a->x = malloc(bytes);
  a->y = malloc(bytes);
  for (int i = 0; i < n; ++i) {
    a->x[i] = (float)i * 0.25f;
    a->y[i] = 3.0f / (float)(i + 1);
  }
  EXPECT_OK(tkrt_memory_alloc(device, bytes, &a->dx));
  EXPECT_OK(tkrt_memory_alloc(device, bytes, &a->dy));
  EXPECT_OK(tkrt_memory_alloc(device, bytes, &a->dout));
  EXPECT_OK(tkrt_memcpy_htod_async(device, a->dx, a->x, bytes, NULL));
  EXPECT_OK(tkrt_memcpy_htod_async(device, a->dy, a->y, bytes, NULL));
}

static void bound_buffers_free(bound_buffers_t* a) {
  tkrt_status_free(tkrt_memory_free(a->device, a->dx));
  tkrt_status_free(tkrt_memory_free(a->device, a->dy));
  tkrt_status_free(tkrt_memory_free(a->device, a->dout));
  free(a->x);
  free(a->y);
}

static void bound_args(const bound_buffers_t* a, tkrt_triton_arg_t args[4], int64_t n) {
  memset(args, 0, 4 * sizeof(*args));
  uint64_t bytes = (uint64_t)a->n * sizeof(float);
  args[0] = (tkrt_triton_arg_t){.kind = TKRT_TRITON_ARG_POINTER, .ptr = a->dx, .size = bytes};
  args[1] = (tkrt_triton_arg_t){.kind = TKRT_TRITON_ARG_POINTER, .ptr = a->dy, .size = bytes};
  args[2] = (tkrt_triton_arg_t){.kind = TKRT_TRITON_ARG_POINTER, .ptr = a->dout, .size = bytes};
  args[3] = (tkrt_triton_arg_t){.kind = TKRT_TRITON_ARG_INT, .i = n};
}

/* Launches with scalar n over a fresh out (all 0xFF bytes) and checks every element: the first n
 * are x + y bit for bit, the rest untouched. Returns the mismatches, -1 when it did not run. */
static long bound_add(const tkrt_triton_bound_t* bound, bound_buffers_t* a, int64_t n,
                      tkrt_launch_decision_t* decision) {
  size_t bytes = (size_t)a->n * sizeof(float);
  EXPECT_OK(tkrt_memset_async(a->device, a->dout, 0xFF, bytes, NULL));
  tkrt_triton_arg_t args[4];
  bound_args(a, args, n);
  tkrt_status_t status = tkrt_triton_bound_launch(bound, NULL, args, 4, decision);
  if (status) {
    tkrt_test_print_status_(__FILE__, __LINE__, "tkrt_triton_bound_launch", status);
    tkrt_status_free(status);
    ++tkrt_test_failed_;
    return -1;
  }
  float* out = malloc(bytes);
  EXPECT_OK(tkrt_memcpy_dtoh_async(a->device, out, a->dout, bytes, NULL));
  EXPECT_OK(tkrt_stream_synchronize(a->device, NULL));
  long wrong = 0;
  uint32_t untouched = 0xFFFFFFFFu;
  for (int i = 0; i < a->n; ++i) {
    float want = a->x[i] + a->y[i];
    wrong += i < n ? memcmp(&out[i], &want, 4) != 0 : memcmp(&out[i], &untouched, 4) != 0;
  }
  free(out);
  return wrong;
}

/* A bound call of add_jit (BLOCK 256) with its host image, copied into a folder `copy`, on `rt`'s
 * `device`: the kernel (the caller releases it), its variant and the call's description and
 * options (pointing at the variant: keep the struct where it is). */
typedef struct add_jit_setup {
  tkrt_triton_kernel_t* kernel;
  tkrt_triton_variant_t variant;
  tkrt_triton_call_desc_t desc;
  tkrt_triton_bound_options_t options;
} add_jit_setup_t;

static bool add_jit_setup_init(add_jit_setup_t* s, const char* copy, tkrt_runtime_t* rt,
                               tkrt_device_t* device) {
  char dir[1024];
  make_copy_dir(copy, "add_jit", "add_kernel", g_host[0], NULL, dir, sizeof(dir));
  s->kernel = NULL;
  tkrt_status_t status = load1(dir, &s->kernel);
  if (status) {
    tkrt_test_print_status_(__FILE__, __LINE__, "load1(add_jit)", status);
    tkrt_status_free(status);
    ++tkrt_test_failed_;
    return false;
  }
  s->variant = (tkrt_triton_variant_t){s->kernel, "cdiv(n, BLOCK)", {0, 0, 0}, "BLOCK=256", NULL};
  tkrt_triton_call_desc_init(&s->desc);
  s->desc.variants = &s->variant;
  s->desc.variant_count = 1;
  tkrt_triton_bound_options_init(&s->options);
  s->options.runtime = rt;
  s->options.device = device;
  return true;
}

/* The host backend's device of a fresh runtime (store off) and add_jit_setup_init's bound call
 * of add_jit copied into `copy`: 1 ready, 0 no host backend (skip), -1 failed (reported). */
static int add_jit_host(const char* copy, tkrt_runtime_t** out_rt, tkrt_device_t** out_device,
                        add_jit_setup_t* setup) {
  tkrt_runtime_t* rt = NULL;
  tkrt_device_t* device = host_runtime_device("off", &rt);
  if (!rt) return -1;
  if (!device) {
    tkrt_runtime_release(rt);
    return 0;
  }
  if (!add_jit_setup_init(setup, copy, rt, device)) {
    tkrt_runtime_release(rt);
    return -1;
  }
  *out_rt = rt;
  *out_device = device;
  return 1;
}

/* Bound launches of add_jit (tt.divisibility 16 on n) with its host image, on the host backend:
 * n per launch with the grid following it, the divisibility, kind and range checks, a missing
 * scalar, and a default. */
static void bound_host(void) {
  tkrt_runtime_t* rt = NULL;
  tkrt_device_t* device = NULL;
  add_jit_setup_t setup;
  int ready = add_jit_host("add_jit_host", &rt, &device, &setup);
  if (ready == 0) TKRT_TEST_SKIP("no host backend");
  if (ready < 0) return;
  tkrt_triton_kernel_t* k = setup.kernel;
  tkrt_triton_call_desc_t desc = setup.desc;
  tkrt_triton_bound_options_t options = setup.options;
  tkrt_triton_bound_t* bound = NULL;
  ASSERT_OK(tkrt_triton_bound_create(&desc, &options, &bound));
  EXPECT_EQ_U64(tkrt_triton_bound_arg_count(bound), 4);
  EXPECT_TRUE(tkrt_triton_bound_call(bound) != NULL);

  bound_buffers_t a;
  bound_buffers_make(&a, device, 8192);
  /* The grid follows n: 4096 fills 16 programs of 256, 8192 all, 1024 only the first 1024. */
  tkrt_launch_decision_t decision;
  EXPECT_EQ_U64(bound_add(bound, &a, 4096, &decision), 0);
  EXPECT_TRUE(decision.source == TKRT_TUNE_SOURCE_SINGLE);
  EXPECT_EQ_U64(bound_add(bound, &a, 8192, NULL), 0);
  EXPECT_EQ_U64(bound_add(bound, &a, 1024, NULL), 0);
  EXPECT_EQ_U64(bound_add(bound, &a, 0, NULL), 0);

  /* Argument errors, nothing launched. */
  tkrt_triton_arg_t args[4];
  bound_args(&a, args, 100);
  EXPECT_STATUS(tkrt_triton_bound_launch(bound, NULL, args, 4, NULL), TKRT_STATUS_INVALID_ARGUMENT,
                "'add_kernel': argument 3 (n: i32) = 100 is not a multiple of 16: the kernel was "
                "compiled with tt.divisibility = 16 for n (Triton specialised it for multiples of "
                "16)");
  /* i32 takes the signed 32-bit range, Triton's rule for an i32 specialisation (issue 31, E15). */
  bound_args(&a, args, INT64_C(1) << 31);
  EXPECT_STATUS(tkrt_triton_bound_launch(bound, NULL, args, 4, NULL), TKRT_STATUS_OUT_OF_RANGE,
                "argument 3 (n: i32) = 2147483648 is out of range (-2147483648..2147483647) "
                "(Triton compiles an i32 parameter for Python integers in this range and "
                "specialises larger ones to i64; declare the scalar unsigned to pass "
                "0..4294967295)");
  bound_args(&a, args, INT64_C(4294967280));
  EXPECT_STATUS(tkrt_triton_bound_launch(bound, NULL, args, 4, NULL), TKRT_STATUS_OUT_OF_RANGE,
                "argument 3 (n: i32) = 4294967280 is out of range (-2147483648..2147483647)");
  /* An integer above INT64_MAX (a caller with wider integers: Python's), as its bits: the range
   * rule reads it as the unsigned value; its bits below 2^63 are not such an integer. */
  bound_args(&a, args, -1);
  args[3].kind = TKRT_TRITON_ARG_UINT;
  EXPECT_STATUS(tkrt_triton_bound_launch(bound, NULL, args, 4, NULL), TKRT_STATUS_OUT_OF_RANGE,
                "argument 3 (n: i32) = 18446744073709551615 is out of range "
                "(-2147483648..2147483647)");
  bound_args(&a, args, 16);
  args[3].kind = TKRT_TRITON_ARG_UINT;
  EXPECT_STATUS(tkrt_triton_bound_launch(bound, NULL, args, 4, NULL), TKRT_STATUS_INVALID_ARGUMENT,
                "argument 3 (n: i32) is given as an integer above INT64_MAX (TKRT_TRITON_ARG_UINT) "
                "but its bits are 16");
  /* Arrays' element types (DLPack code << 8 | bits), when given: the parameter's element. */
  bound_args(&a, args, 4096);
  args[1].dtype = 2u << 8 | 64; /* kDLFloat, 64 bits */
  EXPECT_STATUS(tkrt_triton_bound_launch(bound, NULL, args, 4, NULL), TKRT_STATUS_INVALID_ARGUMENT,
                "'add_kernel': argument 1 (y_ptr: *fp32): the array's elements are fp64; the kernel "
                "takes fp32");
  args[1].dtype = 1u << 8 | 32; /* kDLUInt: an i32 parameter would take it; fp32 does not */
  EXPECT_STATUS(tkrt_triton_bound_launch(bound, NULL, args, 4, NULL), TKRT_STATUS_INVALID_ARGUMENT,
                "the array's elements are i32; the kernel takes fp32");
  args[1].dtype = 0xff00u;
  EXPECT_STATUS(tkrt_triton_bound_launch(bound, NULL, args, 4, NULL), TKRT_STATUS_INVALID_ARGUMENT,
                "the array's elements are DLPack type code 255, 0 bits");
  args[1].dtype = 2u << 8 | 32;
  args[0].dtype = 2u << 8 | 32;
  EXPECT_OK(tkrt_triton_bound_launch(bound, NULL, args, 4, NULL));
  {
    /* Declared unsigned: 0..2^32-1 (checked here without launching such a grid). */
    static const char* const unsigned_n[] = {"n"};
    tkrt_triton_call_desc_t udesc = desc;
    udesc.unsigned_scalars = unsigned_n;
    udesc.unsigned_scalar_count = 1;
    tkrt_triton_bound_t* ubound = NULL;
    EXPECT_OK(tkrt_triton_bound_create(&udesc, &options, &ubound));
    bound_args(&a, args, INT64_C(1) << 32);
    EXPECT_STATUS(tkrt_triton_bound_launch(ubound, NULL, args, 4, NULL), TKRT_STATUS_OUT_OF_RANGE,
                  "argument 3 (n: i32) = 4294967296 is out of range (0..4294967295)");
    bound_args(&a, args, -16);
    EXPECT_STATUS(tkrt_triton_bound_launch(ubound, NULL, args, 4, NULL), TKRT_STATUS_OUT_OF_RANGE,
                  "(0..4294967295)");
    tkrt_triton_bound_destroy(ubound);
    static const char* const unsigned_x[] = {"x_ptr"};
    udesc.unsigned_scalars = unsigned_x;
    EXPECT_STATUS(tkrt_triton_bound_create(&udesc, &options, &ubound),
                  TKRT_STATUS_INVALID_ARGUMENT,
                  "unsigned scalar 'x_ptr' is *fp32; only integer scalar parameters (i8..i64) can "
                  "be read as unsigned");
  }
  bound_args(&a, args, 4096);
  args[3].kind = TKRT_TRITON_ARG_DEFAULT;
  EXPECT_STATUS(tkrt_triton_bound_launch(bound, NULL, args, 4, NULL), TKRT_STATUS_INVALID_ARGUMENT,
                "argument 3 (n: i32) has no value: pass it (the bound call has no default for it)");
  args[3].kind = TKRT_TRITON_ARG_FLOAT;
  args[3].f = 4096.0;
  EXPECT_STATUS(tkrt_triton_bound_launch(bound, NULL, args, 4, NULL), TKRT_STATUS_INVALID_ARGUMENT,
                "argument 3 (n: i32) is an integer parameter but was given the float 4096");
  args[3].kind = TKRT_TRITON_ARG_POINTER;
  EXPECT_STATUS(tkrt_triton_bound_launch(bound, NULL, args, 4, NULL), TKRT_STATUS_INVALID_ARGUMENT,
                "argument 3 (n: i32) is a scalar but was given a pointer");
  bound_args(&a, args, 4096);
  args[1].kind = TKRT_TRITON_ARG_INT;
  EXPECT_STATUS(tkrt_triton_bound_launch(bound, NULL, args, 4, NULL), TKRT_STATUS_INVALID_ARGUMENT,
                "argument 1 (y_ptr: *fp32) is a pointer but was given an integer");
  bound_args(&a, args, 4096);
  args[1].kind = TKRT_TRITON_ARG_DESCRIPTOR;
  EXPECT_STATUS(tkrt_triton_bound_launch(bound, NULL, args, 4, NULL), TKRT_STATUS_INVALID_ARGUMENT,
                "argument 1 (y_ptr: *fp32) is a pointer but was given a tensor descriptor");
  bound_args(&a, args, 4096);
  args[0].ptr += 4;
  EXPECT_STATUS(tkrt_triton_bound_launch(bound, NULL, args, 4, NULL), TKRT_STATUS_INVALID_ARGUMENT,
                "argument 0 (x_ptr: *fp32) = 0x");
  EXPECT_STATUS(tkrt_triton_bound_launch(bound, NULL, args, 3, NULL), TKRT_STATUS_INVALID_ARGUMENT,
                "'add_kernel' takes 4 arguments (its parameters); 3 were given");
  tkrt_triton_bound_destroy(bound);
  bound = NULL;

  /* A default for n: DEFAULT takes it, an INT replaces it (and the grid follows). */
  tkrt_triton_scalar_t n = {"n", false, 2048, 0};
  desc.scalars = &n;
  desc.scalar_count = 1;
  ASSERT_OK(tkrt_triton_bound_create(&desc, &options, &bound));
  EXPECT_EQ_U64(tkrt_call_get_desc(tkrt_triton_bound_call(bound))->configs[0].grid[0], 8);
  EXPECT_EQ_U64(bound_add(bound, &a, 4096, NULL), 0);
  EXPECT_OK(tkrt_memset_async(device, a.dout, 0xFF, (size_t)a.n * 4, NULL));
  bound_args(&a, args, 0);
  args[3].kind = TKRT_TRITON_ARG_DEFAULT;
  EXPECT_OK(tkrt_triton_bound_launch(bound, NULL, args, 4, NULL));
  float* out = malloc((size_t)a.n * 4);
  EXPECT_OK(tkrt_memcpy_dtoh_async(device, out, a.dout, (size_t)a.n * 4, NULL));
  EXPECT_OK(tkrt_stream_synchronize(device, NULL));
  long wrong = 0;
  for (int i = 0; i < a.n; ++i) {
    float want = a.x[i] + a.y[i];
    uint32_t untouched = 0xFFFFFFFFu;
    wrong += i < 2048 ? memcmp(&out[i], &want, 4) != 0 : memcmp(&out[i], &untouched, 4) != 0;
  }
  EXPECT_EQ_U64(wrong, 0);

  /* The caller's grid for this launch (tkrt_triton_bound_launch_with: Triton's grid callables):
   * 2 programs of 256 although n = 4096 makes the program say 16. Then a wrong count of grid
   * values is refused before anything is enqueued. */
  EXPECT_OK(tkrt_memset_async(device, a.dout, 0xFF, (size_t)a.n * 4, NULL));
  bound_args(&a, args, 4096);
  const uint32_t grids[3] = {2, 1, 1};
  tkrt_triton_bound_launch_options_t launch_options;
  tkrt_triton_bound_launch_options_init(&launch_options);
  launch_options.grids = grids;
  launch_options.grid_count = 3;
  EXPECT_OK(tkrt_triton_bound_launch_with(bound, NULL, args, 4, &launch_options, NULL));
  EXPECT_OK(tkrt_memcpy_dtoh_async(device, out, a.dout, (size_t)a.n * 4, NULL));
  EXPECT_OK(tkrt_stream_synchronize(device, NULL));
  wrong = 0;
  for (int i = 0; i < a.n; ++i) {
    float want = a.x[i] + a.y[i];
    uint32_t untouched = 0xFFFFFFFFu;
    wrong += i < 512 ? memcmp(&out[i], &want, 4) != 0 : memcmp(&out[i], &untouched, 4) != 0;
  }
  EXPECT_EQ_U64(wrong, 0);
  launch_options.grid_count = 6;
  EXPECT_STATUS(tkrt_triton_bound_launch_with(bound, NULL, args, 4, &launch_options, NULL),
                TKRT_STATUS_INVALID_ARGUMENT,
                "'add_kernel': 6 grid values given; its 1 variant take 3 (3 each)");
  launch_options.grids = NULL;
  EXPECT_STATUS(tkrt_triton_bound_launch_with(bound, NULL, args, 4, &launch_options, NULL),
                TKRT_STATUS_INVALID_ARGUMENT, "grid_count 6 without grids");
  /* No options: as tkrt_triton_bound_launch (the program's grid). */
  EXPECT_EQ_U64(bound_add(bound, &a, 4096, NULL), 0);
  free(out);
  tkrt_triton_bound_destroy(bound);
  bound = NULL;

  /* Creation errors: a default that breaks the specialisation, tuning keys, the grid. */
  n.i = 100;
  EXPECT_STATUS(tkrt_triton_bound_create(&desc, &options, &bound), TKRT_STATUS_INVALID_ARGUMENT,
                "scalar 'n' = 100 is not divisible by 16");
  desc.scalar_count = 0;
  setup.variant.grid = "cdiv(n, BLOK)";
  EXPECT_STATUS(tkrt_triton_bound_create(&desc, &options, &bound), TKRT_STATUS_INVALID_ARGUMENT,
                "variant 0 of 'add_kernel': grid expression \"cdiv(n, BLOK)\", at offset 8: "
                "unknown name 'BLOK' (known: n, num_warps, num_stages, BLOCK)");
  /* A grid whose divisor is a scalar: division by zero at launch names it. */
  setup.variant.grid = "n // (n - 4096)";
  ASSERT_OK(tkrt_triton_bound_create(&desc, &options, &bound));
  bound_args(&a, args, 4096);
  EXPECT_STATUS(tkrt_triton_bound_launch(bound, NULL, args, 4, NULL), TKRT_STATUS_INVALID_ARGUMENT,
                "grid expression \"n // (n - 4096)\", at offset 15: division by zero in '/' (the "
                "divisor '(n - 4096)' is 0)");
  tkrt_triton_bound_destroy(bound);
  bound = NULL;
  /* Defaults that do not evaluate a grid (4096 // n, n missing: a division by zero): the call's
   * own grid is 0 x 0 x 0 (launched directly it runs nothing, not one program). */
  setup.variant.grid = "4096 // n";
  ASSERT_OK(tkrt_triton_bound_create(&desc, &options, &bound));
  const uint32_t* own = tkrt_call_get_desc(tkrt_triton_bound_call(bound))->configs[0].grid;
  EXPECT_EQ_U64((uint64_t)own[0] + own[1] + own[2], 0);
  tkrt_triton_bound_destroy(bound);
  bound = NULL;
  options.device = NULL;
  EXPECT_STATUS(tkrt_triton_bound_create(&desc, &options, &bound), TKRT_STATUS_INVALID_ARGUMENT,
                "options.device is required");
  bound_buffers_free(&a);
  tkrt_triton_kernel_release(k);
  tkrt_runtime_release(rt);
}

/* The decisions in a store folder (one <digest>.decision file each). */
static size_t count_files(const char* dir) {
  size_t count = 0;
  char command[1200];
  snprintf(command, sizeof(command), "find '%s' -type f -name '*.decision' | wc -l", dir);
  FILE* p = popen(command, "r");
  if (!p) return 0;
  if (fscanf(p, "%zu", &count) != 1) count = 0;
  pclose(p);
  return count;
}

/* An autotuned bound call with tuning key n: one decision per value of n, each decided once,
 * stored, and read back by a new runtime with the same store. */
/* min_elements: a pointer argument's least extent, an expression of the scalars evaluated at
 * each launch; sizes below it or unknown are refused with nothing enqueued; bad entries at
 * creation. */
static void bound_min_elements(void) {
  tkrt_runtime_t* rt = NULL;
  tkrt_device_t* device = NULL;
  add_jit_setup_t setup;
  int ready = add_jit_host("add_jit_min", &rt, &device, &setup);
  if (ready == 0) TKRT_TEST_SKIP("no host backend");
  if (ready < 0) return;
  const char* mins[] = {"x_ptr=n", "y_ptr=n", "out_ptr=n"};
  setup.options.min_elements = mins;
  setup.options.min_element_count = 3;
  tkrt_triton_bound_t* bound = NULL;
  ASSERT_OK(tkrt_triton_bound_create(&setup.desc, &setup.options, &bound));
  bound_buffers_t a;
  bound_buffers_make(&a, device, 4096);
  EXPECT_EQ_U64(bound_add(bound, &a, 4096, NULL), 0); /* sizes 16384 bytes: n = 4096 fits */
  tkrt_triton_arg_t args[4];
  bound_args(&a, args, 4096);
  args[2].size = 16380;
  EXPECT_STATUS(tkrt_triton_bound_launch(bound, NULL, args, 4, NULL),
                TKRT_STATUS_INVALID_ARGUMENT,
                "'add_kernel': argument 2 (out_ptr: *fp32) spans 16380 bytes; the launch was "
                "prepared with min_elements out_ptr=n (4096 elements, 16384 bytes)");
  args[2].size = TKRT_BUFFER_SIZE_UNKNOWN;
  EXPECT_STATUS(tkrt_triton_bound_launch(bound, NULL, args, 4, NULL),
                TKRT_STATUS_INVALID_ARGUMENT, "argument 2 (out_ptr: *fp32) has no size");
  bound_args(&a, args, 1024); /* a smaller n: the same short size is enough */
  args[2].size = 4096;
  EXPECT_OK(tkrt_triton_bound_launch(bound, NULL, args, 4, NULL));
  tkrt_triton_bound_destroy(bound);
  /* Bad entries, refused at creation. */
  static const struct {
    const char* entry;
    const char* message;
  } bad[] = {
      {"n=4", "min_elements names 'n', which is not a pointer parameter"},
      {"z_ptr=4", "min_elements names 'z_ptr', which is no parameter"},
      {"x_ptr", "min_elements 'x_ptr' is not NAME=EXPR"},
      {"x_ptr=-4", "min_elements x_ptr=-4 is -4 elements"},
      {"x_ptr=n,n", "expected one expression"},
      {"x_ptr=m*2", "min_elements x_ptr=m*2"},
  };
  for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); ++i) {
    setup.options.min_elements = &bad[i].entry;
    setup.options.min_element_count = 1;
    bound = NULL;
    EXPECT_STATUS(tkrt_triton_bound_create(&setup.desc, &setup.options, &bound),
                  TKRT_STATUS_INVALID_ARGUMENT, bad[i].message);
    EXPECT_TRUE(bound == NULL);
  }
  const char* twice[] = {"x_ptr=1", "x_ptr=2"};
  setup.options.min_elements = twice;
  setup.options.min_element_count = 2;
  EXPECT_STATUS(tkrt_triton_bound_create(&setup.desc, &setup.options, &bound),
                TKRT_STATUS_INVALID_ARGUMENT, "min_elements names 'x_ptr' twice");
  bound_buffers_free(&a);
  tkrt_triton_kernel_release(setup.kernel);
  tkrt_runtime_release(rt);
}

/* A tuning key on an unsigned i64 scalar (two variants: a key is for autotuned calls): a value of
 * 2^63 and above (TKRT_TRITON_ARG_UINT, the bits above INT64_MAX) makes its own keyed call, tuned
 * and stored, and arrives in the kernel as those bits; the same value without `unsigned` is
 * refused as out of range, naming it. */
static void bound_uint64_key(void) {
  const char* image = getenv("TKRT_TEST_KEY_PROBE_HOST");
  if (!image || !*image) {
    fprintf(stderr, "TKRT_TEST_KEY_PROBE_HOST (the key_probe_host image) is not set\n");
    ++tkrt_test_failed_;
    return;
  }
  char store[1024];
  make_dir("uint64_key_store", store, sizeof(store));
  tkrt_runtime_t* rt = NULL;
  tkrt_device_t* device = host_runtime_device(store, &rt);
  if (!rt) return;
  if (!device) {
    tkrt_runtime_release(rt);
    TKRT_TEST_SKIP("no host backend");
  }
  char dir[1024];
  make_dir("key_probe", dir, sizeof(dir));
  write_text(dir, "key_probe_kernel.json",
             "{\"name\": \"key_probe_kernel\", \"target\": {\"backend\": \"host\", \"arch\": "
             "\"any\", \"warp_size\": 1}, \"num_warps\": 1, \"num_ctas\": 1, \"num_stages\": 1, "
             "\"shared\": 0}");
  write_text(dir, "key_probe_kernel.ttir",
             "module {\n  tt.func public @key_probe_kernel(%out_ptr: !tt.ptr<i64> "
             "{tt.divisibility = 16 : i32}, %k: i64) attributes {noinline = false} {\n"
             "    tt.return\n  }\n}\n");
  copy_file(image, dir, "key_probe_kernel.so");
  tkrt_triton_kernel_t* k = NULL;
  ASSERT_OK(load1(dir, &k));
  tkrt_triton_variant_t variants[2] = {{k, "1", {0, 0, 0}, NULL, "first"},
                                       {k, "1", {0, 0, 0}, NULL, "second"}};
  tkrt_triton_call_desc_t desc;
  tkrt_triton_call_desc_init(&desc);
  desc.variants = variants;
  desc.variant_count = 2;
  const char* unsigned_k[1] = {"k"};
  desc.unsigned_scalars = unsigned_k;
  desc.unsigned_scalar_count = 1;
  const char* key[1] = {"k"};
  tkrt_triton_bound_options_t options;
  tkrt_triton_bound_options_init(&options);
  options.runtime = rt;
  options.device = device;
  options.tuning_key = key;
  options.tuning_key_count = 1;
  tkrt_triton_bound_t* bound = NULL;
  ASSERT_OK(tkrt_triton_bound_create(&desc, &options, &bound));
  tkrt_deviceptr_t out = 0;
  ASSERT_OK(tkrt_memory_alloc(device, 64, &out));
  const uint64_t values[3] = {(UINT64_C(1) << 63) + 5, UINT64_MAX, 42};
  for (int i = 0; i < 3; ++i) {
    tkrt_triton_arg_t args[2];
    memset(args, 0, sizeof(args));
    args[0] = (tkrt_triton_arg_t){.kind = TKRT_TRITON_ARG_POINTER, .ptr = out, .size = 64};
    args[1].kind = values[i] > (uint64_t)INT64_MAX ? TKRT_TRITON_ARG_UINT : TKRT_TRITON_ARG_INT;
    memcpy(&args[1].i, &values[i], 8);
    EXPECT_OK(tkrt_triton_bound_launch(bound, NULL, args, 2, NULL));
    uint64_t got = 0;
    EXPECT_OK(tkrt_memcpy_dtoh_async(device, &got, out, 8, NULL));
    EXPECT_OK(tkrt_stream_synchronize(device, NULL));
    EXPECT_EQ_U64(got, values[i]);
  }
  EXPECT_EQ_U64(count_files(store), 3); /* a decision per key value */
  tkrt_triton_bound_destroy(bound);
  bound = NULL;
  /* Without `unsigned`, 2^63 + 5 is outside the signed 64-bit range the kernel takes. */
  desc.unsigned_scalar_count = 0;
  ASSERT_OK(tkrt_triton_bound_create(&desc, &options, &bound));
  tkrt_triton_arg_t args[2];
  memset(args, 0, sizeof(args));
  args[0] = (tkrt_triton_arg_t){.kind = TKRT_TRITON_ARG_POINTER, .ptr = out, .size = 64};
  args[1].kind = TKRT_TRITON_ARG_UINT;
  memcpy(&args[1].i, &values[0], 8);
  EXPECT_STATUS(tkrt_triton_bound_launch(bound, NULL, args, 2, NULL), TKRT_STATUS_OUT_OF_RANGE,
                "9223372036854775813 is out of range");
  tkrt_triton_bound_destroy(bound);
  tkrt_status_free(tkrt_memory_free(device, out));
  tkrt_triton_kernel_release(k);
  tkrt_runtime_release(rt);
}

static void bound_tuning_key(void) {
  char store[1024];
  make_dir("tune_store", store, sizeof(store));
  tkrt_runtime_t* rt = NULL;
  tkrt_device_t* device = host_runtime_device(store, &rt);
  if (!rt) return;
  if (!device) {
    tkrt_runtime_release(rt);
    TKRT_TEST_SKIP("no host backend");
  }
  host_variants_t hv;
  ASSERT_OK(host_variants_make("keyed", &hv));
  keyed_setup_t k;
  keyed_setup_init(&k, &hv, rt, device);
  tkrt_triton_bound_t* bound = NULL;
  ASSERT_OK(tkrt_triton_bound_create(&k.desc, &k.options, &bound));
  bound_buffers_t a;
  bound_buffers_make(&a, device, 20000);
  tkrt_launch_decision_t decision;
  memset(&decision, 0, sizeof(decision));
  EXPECT_EQ_U64(bound_add(bound, &a, 20000, &decision), 0);
  EXPECT_TRUE(decision.decided && decision.source == TKRT_TUNE_SOURCE_TUNED);
  EXPECT_EQ_U64(count_files(store), 1);
  memset(&decision, 0, sizeof(decision));
  EXPECT_EQ_U64(bound_add(bound, &a, 20000, &decision), 0);
  EXPECT_TRUE(!decision.decided && decision.source == TKRT_TUNE_SOURCE_TUNED);
  memset(&decision, 0, sizeof(decision));
  EXPECT_EQ_U64(bound_add(bound, &a, 7000, &decision), 0);
  EXPECT_TRUE(decision.decided && decision.source == TKRT_TUNE_SOURCE_TUNED);
  EXPECT_EQ_U64(count_files(store), 2);
  memset(&decision, 0, sizeof(decision));
  EXPECT_EQ_U64(bound_add(bound, &a, 20000, &decision), 0);
  EXPECT_TRUE(!decision.decided);
  EXPECT_EQ_U64(count_files(store), 2);
  /* The table is capped (4096 key values; 2 here): one more is refused naming the key and the
   * cap, before anything is made or launched; the values seen still launch. */
  tkrt_triton_bound_set_key_values_max(bound, 2);
  {
    tkrt_triton_arg_t capped[4];
    bound_args(&a, capped, 5000);
    EXPECT_STATUS(tkrt_triton_bound_launch(bound, NULL, capped, 4, NULL),
                  TKRT_STATUS_RESOURCE_EXHAUSTED,
                  "'add_kernel': tuning key value (n=5000) is new, and a bound call keeps at "
                  "most 2 distinct ones");
  }
  EXPECT_EQ_U64(count_files(store), 2);
  EXPECT_EQ_U64(bound_add(bound, &a, 7000, NULL), 0);
  tkrt_triton_bound_set_key_values_max(bound, 4096);
  /* Inside a capture, a key value seen before launches (recorded); an unseen one is refused. */
  if (tkrt_device_info(device)->features & TKRT_DEVICE_FEATURE_GRAPHS) {
    tkrt_stream_t stream = NULL;
    ASSERT_OK(tkrt_stream_create(device, &stream));
    ASSERT_OK(tkrt_stream_begin_capture(device, stream));
    tkrt_triton_arg_t args[4];
    bound_args(&a, args, 9000);
    EXPECT_STATUS(tkrt_triton_bound_launch(bound, stream, args, 4, NULL),
                  TKRT_STATUS_FAILED_PRECONDITION,
                  "'add_kernel': tuning key value (n=9000) not seen before, inside a stream "
                  "capture: its call must be made, loaded and tuned first; launch it once with "
                  "these values before capturing");
    bound_args(&a, args, 7000);
    EXPECT_OK(tkrt_triton_bound_launch(bound, stream, args, 4, NULL));
    tkrt_graph_t* graph = NULL;
    EXPECT_OK(tkrt_stream_end_capture(device, stream, &graph));
    /* Replayed: out[0..7000) = x + y. */
    EXPECT_OK(tkrt_memset_async(device, a.dout, 0, (size_t)a.n * 4, stream));
    if (graph) EXPECT_OK(tkrt_graph_launch(device, graph, stream));
    EXPECT_OK(tkrt_stream_synchronize(device, stream));
    float got[2];
    EXPECT_OK(tkrt_memcpy_dtoh_async(device, got, a.dout + 6999 * 4, 8, NULL));
    EXPECT_OK(tkrt_stream_synchronize(device, NULL));
    float want = a.x[6999] + a.y[6999];
    EXPECT_TRUE(memcmp(&got[0], &want, 4) == 0 && got[1] == 0.0f);
    if (graph) EXPECT_OK(tkrt_graph_destroy(device, graph));
    EXPECT_OK(tkrt_stream_destroy(device, stream));
    EXPECT_EQ_U64(count_files(store), 2);
  }
  tkrt_triton_bound_destroy(bound);
  bound = NULL;
  bound_buffers_free(&a);

  /* A new runtime on the same store reads both decisions back. */
  tkrt_runtime_t* rt2 = host_runtime(store);
  tkrt_device_t* device2 = NULL;
  ASSERT_OK(tkrt_runtime_device(rt2, "host", 0, &device2));
  keyed_setup_init(&k, &hv, rt2, device2);
  ASSERT_OK(tkrt_triton_bound_create(&k.desc, &k.options, &bound));
  bound_buffers_make(&a, device2, 20000);
  memset(&decision, 0, sizeof(decision));
  EXPECT_EQ_U64(bound_add(bound, &a, 7000, &decision), 0);
  EXPECT_TRUE(decision.decided && decision.source == TKRT_TUNE_SOURCE_STORE);
  memset(&decision, 0, sizeof(decision));
  EXPECT_EQ_U64(bound_add(bound, &a, 20000, &decision), 0);
  EXPECT_TRUE(decision.decided && decision.source == TKRT_TUNE_SOURCE_STORE);
  EXPECT_EQ_U64(count_files(store), 2);
  tkrt_triton_bound_destroy(bound);
  bound = NULL;
  bound_buffers_free(&a);

  /* Key names: integer scalars, once. */
  static const char* const bad_key[] = {"x_ptr"};
  k.options.tuning_key = bad_key;
  EXPECT_STATUS(tkrt_triton_bound_create(&k.desc, &k.options, &bound), TKRT_STATUS_INVALID_ARGUMENT,
                "'add_kernel': tuning key 'x_ptr' is *fp32; a tuning key names integer scalar "
                "parameters");
  static const char* const unknown_key[] = {"m"};
  k.options.tuning_key = unknown_key;
  EXPECT_STATUS(tkrt_triton_bound_create(&k.desc, &k.options, &bound), TKRT_STATUS_INVALID_ARGUMENT,
                "tuning key 'm' is no parameter of the kernel");
  static const char* const twice[] = {"n", "n"};
  k.options.tuning_key = twice;
  k.options.tuning_key_count = 2;
  EXPECT_STATUS(tkrt_triton_bound_create(&k.desc, &k.options, &bound), TKRT_STATUS_INVALID_ARGUMENT,
                "tuning key 'n' is named twice");
  host_variants_release(&hv);
  tkrt_runtime_release(rt2);
  tkrt_runtime_release(rt);
}


typedef struct bound_thread {
  const tkrt_triton_bound_t* bound;
  tkrt_device_t* device;
  int index;
  long wrong;
} bound_thread_t;

static void* bound_thread_main(void* user) {
  bound_thread_t* t = user;
  static const int64_t kN[4] = {4096, 8192, 12288, 4096};
  bound_buffers_t a;
  bound_buffers_make(&a, t->device, 12288);
  for (int i = 0; i < 8; ++i) {
    long wrong = bound_add(t->bound, &a, kN[(i + t->index) % 4], NULL);
    t->wrong += wrong < 0 ? 1 : wrong;
  }
  bound_buffers_free(&a);
  return NULL;
}

/* Four threads launch one keyed bound call with key values first seen concurrently: every result
 * right, one decision per value (the table's appends and lock-free reads under TSan in CI). */
static void bound_threads(void) {
  char store[1024];
  make_dir("thread_store", store, sizeof(store));
  tkrt_runtime_t* rt = NULL;
  tkrt_device_t* device = host_runtime_device(store, &rt);
  if (!rt) return;
  if (!device) {
    tkrt_runtime_release(rt);
    TKRT_TEST_SKIP("no host backend");
  }
  host_variants_t hv;
  ASSERT_OK(host_variants_make("threads", &hv));
  keyed_setup_t k;
  keyed_setup_init(&k, &hv, rt, device);
  tkrt_triton_bound_t* bound = NULL;
  ASSERT_OK(tkrt_triton_bound_create(&k.desc, &k.options, &bound));
  pthread_t threads[4];
  bound_thread_t state[4];
  for (int i = 0; i < 4; ++i) {
    state[i] = (bound_thread_t){bound, device, i, 0};
    ASSERT_TRUE(pthread_create(&threads[i], NULL, bound_thread_main, &state[i]) == 0);
  }
  for (int i = 0; i < 4; ++i) pthread_join(threads[i], NULL);
  for (int i = 0; i < 4; ++i) EXPECT_EQ_U64(state[i].wrong, 0);
  EXPECT_EQ_U64(count_files(store), 3);
  tkrt_triton_bound_destroy(bound);
  host_variants_release(&hv);
  tkrt_runtime_release(rt);
}


/* Whether all `n` floats at device address `at` are 0xFFFFFFFF (nothing wrote them). */
static bool untouched(tkrt_device_t* device, tkrt_deviceptr_t at, int n) {
  uint32_t* got = malloc((size_t)n * 4);
  EXPECT_OK(tkrt_memcpy_dtoh_async(device, got, at, (size_t)n * 4, NULL));
  EXPECT_OK(tkrt_stream_synchronize(device, NULL));
  bool all = true;
  for (int i = 0; i < n; ++i) all = all && got[i] == 0xFFFFFFFFu;
  free(got);
  return all;
}

/* tkrt_triton_bound_try_launch (issue 31): where a launch would wait — a tuning-key value not
 * seen before, an undecided autotuned call — it enqueues nothing and says so; a launch without
 * the flag then does the work, and the same try afterwards launches. */
static void bound_try_launch(void) {
  tkrt_runtime_t* rt = NULL;
  tkrt_device_t* device = host_runtime_device("off", &rt);
  if (!rt) return;
  if (!device) {
    tkrt_runtime_release(rt);
    TKRT_TEST_SKIP("no host backend");
  }
  host_variants_t hv;
  ASSERT_OK(host_variants_make("try", &hv));
  keyed_setup_t k;
  keyed_setup_init(&k, &hv, rt, device);
  for (int keyed = 1; keyed >= 0; --keyed) {
    k.options.tuning_key_count = (size_t)keyed;
    tkrt_triton_bound_t* bound = NULL;
    ASSERT_OK(tkrt_triton_bound_create(&k.desc, &k.options, &bound));
    bound_buffers_t a;
    bound_buffers_make(&a, device, 8192);
    EXPECT_OK(tkrt_memset_async(device, a.dout, 0xFF, 8192 * 4, NULL));
    tkrt_triton_arg_t args[4];
    bound_args(&a, args, 8192);
    tkrt_status_t status = tkrt_triton_bound_try_launch(bound, NULL, args, 4, NULL);
    EXPECT_TRUE(tkrt_status_is_would_wait(status));
    EXPECT_EQ_U64(tkrt_status_code(status), TKRT_STATUS_UNAVAILABLE);
    tkrt_status_free(status); /* nothing to free: the shared status */
    EXPECT_TRUE(untouched(device, a.dout, 8192));
    /* An argument the bound call refuses is refused by the try too (checked first). */
    tkrt_triton_arg_t bad[4];
    bound_args(&a, bad, 8192);
    bad[1].kind = TKRT_TRITON_ARG_INT;
    EXPECT_STATUS(tkrt_triton_bound_try_launch(bound, NULL, bad, 4, NULL),
                  TKRT_STATUS_INVALID_ARGUMENT, "argument 1 (y_ptr: *fp32) is a pointer but was given");
    EXPECT_EQ_U64(bound_add(bound, &a, 8192, NULL), 0); /* decides, loads, launches */
    EXPECT_OK(tkrt_memset_async(device, a.dout, 0xFF, 8192 * 4, NULL));
    EXPECT_OK(tkrt_triton_bound_try_launch(bound, NULL, args, 4, NULL));
    EXPECT_OK(tkrt_stream_synchronize(device, NULL));
    EXPECT_TRUE(!untouched(device, a.dout, 8192));
    if (keyed) { /* another key value: waits again */
      bound_args(&a, args, 4096);
      status = tkrt_triton_bound_try_launch(bound, NULL, args, 4, NULL);
      EXPECT_TRUE(tkrt_status_is_would_wait(status));
    }
    tkrt_triton_bound_destroy(bound);
    bound_buffers_free(&a);
  }
  host_variants_release(&hv);
  tkrt_runtime_release(rt);
}

typedef struct close_thread {
  const tkrt_triton_bound_t* bound;
  tkrt_device_t* device;
  bound_buffers_t* buffers;
  atomic_long launched;
  long closed_errors, other_errors;
} close_thread_t;

static void* close_thread_main(void* user) {
  close_thread_t* t = user;
  tkrt_triton_arg_t args[4];
  bound_args(t->buffers, args, t->buffers->n);
  for (;;) {
    tkrt_status_t status = tkrt_triton_bound_launch(t->bound, NULL, args, 4, NULL);
    if (!status) {
      atomic_fetch_add(&t->launched, 1);
    } else if (tkrt_status_code(status) == TKRT_STATUS_FAILED_PRECONDITION &&
               strstr(tkrt_status_message(status), "this bound launch was closed")) {
      ++t->closed_errors;
      tkrt_status_free(status);
      break; /* closed: every later launch says so too */
    } else {
      ++t->other_errors;
      tkrt_status_free(status);
      break;
    }
  }
  return NULL;
}

/* tkrt_triton_bound_close (issue 31, E6): after thousands of launches queued without a
 * synchronize, and while four threads launch: it waits for running launches and queued work,
 * then unloads; launches after it are refused naming the reason; the object stays valid until
 * destroyed (ASan in CI: nothing is used after it is freed). */
static void bound_close(void) {
  tkrt_runtime_t* rt = NULL;
  tkrt_device_t* device = NULL;
  add_jit_setup_t setup;
  int ready = add_jit_host("add_jit_close", &rt, &device, &setup);
  if (ready == 0) TKRT_TEST_SKIP("no host backend");
  if (ready < 0) return;
  tkrt_triton_kernel_t* kernel = setup.kernel;
  tkrt_triton_call_desc_t desc = setup.desc;
  tkrt_triton_bound_options_t options = setup.options;
  bound_buffers_t a;
  bound_buffers_make(&a, device, 4096);
  /* 1. 2000 launches queued, no synchronize, then close: the last one's output is complete. */
  tkrt_triton_bound_t* bound = NULL;
  ASSERT_OK(tkrt_triton_bound_create(&desc, &options, &bound));
  tkrt_triton_arg_t args[4];
  bound_args(&a, args, 4096);
  EXPECT_OK(tkrt_memset_async(device, a.dout, 0xFF, 4096 * 4, NULL));
  for (int i = 0; i < 2000; ++i) EXPECT_OK(tkrt_triton_bound_launch(bound, NULL, args, 4, NULL));
  EXPECT_OK(tkrt_triton_bound_close(bound));
  EXPECT_OK(tkrt_triton_bound_close(bound)); /* again: nothing more */
  EXPECT_TRUE(tkrt_triton_bound_call(bound) == NULL);
  float got = 0.0f;
  EXPECT_OK(tkrt_memcpy_dtoh_async(device, &got, a.dout + 4095 * 4, 4, NULL));
  EXPECT_OK(tkrt_stream_synchronize(device, NULL));
  EXPECT_TRUE(got == a.x[4095] + a.y[4095]);
  EXPECT_STATUS(tkrt_triton_bound_launch(bound, NULL, args, 4, NULL),
                TKRT_STATUS_FAILED_PRECONDITION,
                "'add_kernel': this bound launch was closed (tkrt_triton_bound_close)");
  EXPECT_STATUS(tkrt_triton_bound_try_launch(bound, NULL, args, 4, NULL),
                TKRT_STATUS_FAILED_PRECONDITION, "this bound launch was closed");
  tkrt_triton_bound_destroy(bound);
  /* 2. Closed while four threads launch. */
  ASSERT_OK(tkrt_triton_bound_create(&desc, &options, &bound));
  pthread_t threads[4];
  close_thread_t state[4];
  for (int i = 0; i < 4; ++i) {
    state[i] = (close_thread_t){bound, device, &a, 0, 0, 0};
    atomic_init(&state[i].launched, 0);
    ASSERT_TRUE(pthread_create(&threads[i], NULL, close_thread_main, &state[i]) == 0);
  }
  for (int spins = 0; spins < 100000 && atomic_load(&state[0].launched) < 50; ++spins) sched_yield();
  EXPECT_OK(tkrt_triton_bound_close(bound));
  for (int i = 0; i < 4; ++i) pthread_join(threads[i], NULL);
  long launched = 0, closed_errors = 0;
  for (int i = 0; i < 4; ++i) {
    launched += atomic_load(&state[i].launched);
    closed_errors += state[i].closed_errors;
    EXPECT_EQ_U64(state[i].other_errors, 0);
  }
  EXPECT_TRUE(launched >= 50);
  EXPECT_EQ_U64(closed_errors, 4);
  tkrt_triton_bound_destroy(bound);
  bound_buffers_free(&a);
  tkrt_triton_kernel_release(kernel);
  tkrt_runtime_release(rt);
}

/* fp16 bits of a float that fp16 holds exactly (the test's values), and back. */
static uint16_t exact_half(float f) {
  if (f == 0.0f) return 0;
  uint32_t bits;
  memcpy(&bits, &f, 4);
  uint32_t sign = (bits >> 16) & 0x8000u;
  int exponent = (int)((bits >> 23) & 0xFF) - 127 + 15;
  return (uint16_t)(sign | ((uint32_t)exponent << 10) | ((bits & 0x7FFFFFu) >> 13));
}

static float half_value(uint16_t h) {
  int exponent = (h >> 10) & 0x1F;
  int mantissa = h & 0x3FF;
  if (exponent == 0x1F) return mantissa ? NAN : (h & 0x8000 ? -INFINITY : INFINITY);
  float value = exponent == 0 ? ldexpf((float)mantissa, -24)
                              : ldexpf((float)(mantissa + 1024), exponent - 25);
  return h & 0x8000 ? -value : value;
}

static tkrt_triton_arg_t desc_arg(tkrt_deviceptr_t base, uint64_t bytes, int64_t rows,
                                  int64_t cols) {
  tkrt_triton_arg_t a;
  memset(&a, 0, sizeof(a));
  a.kind = TKRT_TRITON_ARG_DESCRIPTOR;
  a.rank = 2;
  a.ptr = base;
  a.size = bytes;
  a.shape[0] = rows;
  a.shape[1] = cols;
  a.strides[0] = cols;
  a.strides[1] = 1;
  return a;
}

/* C = A @ B by matmul_tma_kernel (three host descriptors) for M x K times K x N; returns the
 * elements that differ from the exact product (-1: did not run). With `nan_a`, A's descriptor pads
 * with NaN: where K is no multiple of the kernel's 64, its last k block reads past A's columns, so
 * every element of C must then be NaN (counted as wrong otherwise). */
static long run_matmul_tma_padded(const tkrt_triton_bound_t* bound, tkrt_device_t* device,
                                  tkrt_deviceptr_t da, tkrt_deviceptr_t db, tkrt_deviceptr_t dc,
                                  uint64_t capacity, int M, int N, int K, uint32_t nan_a) {
  uint16_t* a = malloc((size_t)M * K * 2);
  uint16_t* b = malloc((size_t)K * N * 2);
  uint16_t* c = malloc((size_t)M * N * 2);
  float* fa = malloc((size_t)M * K * sizeof(float));
  float* fb = malloc((size_t)K * N * sizeof(float));
  long wrong = -1;
  for (int i = 0; i < M * K; ++i) fa[i] = (float)((i * 7 + i / K) % 5 - 2) * 0.5f;
  for (int i = 0; i < K * N; ++i) fb[i] = (float)((i * 3 + i / N) % 5 - 2);
  for (int i = 0; i < M * K; ++i) a[i] = exact_half(fa[i]);
  for (int i = 0; i < K * N; ++i) b[i] = exact_half(fb[i]);
  EXPECT_OK(tkrt_memcpy_htod_async(device, da, a, (size_t)M * K * 2, NULL));
  EXPECT_OK(tkrt_memcpy_htod_async(device, db, b, (size_t)K * N * 2, NULL));
  EXPECT_OK(tkrt_memset_async(device, dc, 0, capacity, NULL));
  tkrt_triton_arg_t args[6];
  args[0] = desc_arg(da, capacity, M, K);
  args[0].padding_nan = nan_a;
  args[1] = desc_arg(db, capacity, K, N);
  args[2] = desc_arg(dc, capacity, M, N);
  for (int i = 3; i < 6; ++i) {
    memset(&args[i], 0, sizeof(args[i]));
    args[i].kind = TKRT_TRITON_ARG_INT;
  }
  args[3].i = M;
  args[4].i = N;
  args[5].i = K;
  tkrt_status_t status = tkrt_triton_bound_launch(bound, NULL, args, 6, NULL);
  if (status) {
    tkrt_test_print_status_(__FILE__, __LINE__, "tkrt_triton_bound_launch", status);
    tkrt_status_free(status);
    ++tkrt_test_failed_;
  } else {
    EXPECT_OK(tkrt_memcpy_dtoh_async(device, c, dc, (size_t)M * N * 2, NULL));
    EXPECT_OK(tkrt_stream_synchronize(device, NULL));
    wrong = 0;
    for (int i = 0; i < M; ++i) {
      for (int j = 0; j < N; ++j) {
        float want = 0.0f;
        for (int k = 0; k < K; ++k) want += fa[i * K + k] * fb[k * N + j];
        float got = half_value(c[i * N + j]);
        wrong += nan_a ? !isnan(got) : got != want;
      }
    }
  }
  free(a);
  free(b);
  free(c);
  free(fa);
  free(fb);
  return wrong;
}

static long run_matmul_tma(const tkrt_triton_bound_t* bound, tkrt_device_t* device,
                           tkrt_deviceptr_t da, tkrt_deviceptr_t db, tkrt_deviceptr_t dc,
                           uint64_t capacity, int M, int N, int K) {
  return run_matmul_tma_padded(bound, device, da, db, dc, capacity, M, N, K, 0);
}

/* On a CUDA device with TMA (the GPU machine's run of this test; skipped elsewhere): add_jit's
 * cubin with n per launch, and matmul_tma's cubin with three descriptors whose shapes change per
 * launch, against exact products; descriptor argument errors. */
static void bound_cuda_tma(void) {
  tkrt_runtime_t* rt = host_runtime("off");
  if (!rt) return;
  EXPECT_OK(tkrt_runtime_configure(rt, "backend", "cuda"));
  tkrt_device_t* device = NULL;
  tkrt_status_t status = tkrt_runtime_device(rt, "cuda", 0, &device);
  if (status || !(tkrt_device_info(device)->features & TKRT_DEVICE_FEATURE_TMA)) {
    tkrt_status_free(status);
    tkrt_runtime_release(rt);
    TKRT_TEST_SKIP("no CUDA device with TMA");
  }
  char dir[1024];
  tkrt_triton_bound_options_t options;
  tkrt_triton_bound_options_init(&options);
  options.runtime = rt;
  options.device = device;
  tkrt_triton_call_desc_t desc;
  tkrt_triton_call_desc_init(&desc);

  /* add_jit: n per launch, the grid following it. */
  tkrt_triton_kernel_t* add = NULL;
  vector_path(dir, sizeof(dir), "add_jit");
  ASSERT_OK(load1(dir, &add));
  tkrt_triton_variant_t add_variant = {add, "cdiv(n, 1024)", {0, 0, 0}, NULL, NULL};
  desc.variants = &add_variant;
  desc.variant_count = 1;
  tkrt_triton_bound_t* bound = NULL;
  ASSERT_OK(tkrt_triton_bound_create(&desc, &options, &bound));
  bound_buffers_t a;
  bound_buffers_make(&a, device, 8192);
  EXPECT_EQ_U64(bound_add(bound, &a, 4096, NULL), 0);
  EXPECT_EQ_U64(bound_add(bound, &a, 8192, NULL), 0);
  EXPECT_EQ_U64(bound_add(bound, &a, 1040, NULL), 0);
  tkrt_triton_arg_t args[6];
  bound_args(&a, args, 100);
  EXPECT_STATUS(tkrt_triton_bound_launch(bound, NULL, args, 4, NULL), TKRT_STATUS_INVALID_ARGUMENT,
                "argument 3 (n: i32) = 100 is not a multiple of 16");
  bound_buffers_free(&a);
  tkrt_triton_bound_destroy(bound);
  bound = NULL;
  tkrt_triton_kernel_release(add);

  /* matmul_tma: descriptors built per launch from base, shape and strides. */
  tkrt_triton_kernel_t* k = NULL;
  vector_path(dir, sizeof(dir), "matmul_tma");
  ASSERT_OK(load1(dir, &k));
  tkrt_triton_variant_t variant = {k, "cdiv(M, 64), cdiv(N, 128)", {0, 0, 0}, NULL, NULL};
  desc.variants = &variant;
  ASSERT_OK(tkrt_triton_bound_create(&desc, &options, &bound));
  uint64_t capacity = 512 * 512 * 2;
  tkrt_deviceptr_t da = 0, db = 0, dc = 0;
  EXPECT_OK(tkrt_memory_alloc(device, capacity, &da));
  EXPECT_OK(tkrt_memory_alloc(device, capacity, &db));
  EXPECT_OK(tkrt_memory_alloc(device, capacity, &dc));
  EXPECT_EQ_U64(run_matmul_tma(bound, device, da, db, dc, capacity, 256, 256, 256), 0);
  EXPECT_EQ_U64(run_matmul_tma(bound, device, da, db, dc, capacity, 128, 512, 192), 0);
  EXPECT_EQ_U64(run_matmul_tma(bound, device, da, db, dc, capacity, 256, 256, 256), 0);
  /* Padding per launch (the encode's fill, tkrt_tma_shape_t.fill): K = 208 leaves 48 columns of
   * the last k block outside A; zeros keep the product exact, NaN reaches every element of C, and
   * the next zero-padded launch of the same tensor is exact again (the encode cache keys on the
   * fill). */
  EXPECT_EQ_U64(run_matmul_tma_padded(bound, device, da, db, dc, capacity, 128, 256, 208, 0), 0);
  EXPECT_EQ_U64(run_matmul_tma_padded(bound, device, da, db, dc, capacity, 128, 256, 208, 1), 0);
  EXPECT_EQ_U64(run_matmul_tma_padded(bound, device, da, db, dc, capacity, 128, 256, 208, 0), 0);

  /* Descriptor errors, nothing launched. */
  args[0] = desc_arg(da, capacity, 256, 256);
  args[1] = desc_arg(db, capacity, 256, 256);
  args[2] = desc_arg(dc, capacity, 256, 256);
  for (int i = 3; i < 6; ++i) {
    memset(&args[i], 0, sizeof(args[i]));
    args[i].kind = TKRT_TRITON_ARG_INT;
    args[i].i = 256;
  }
  args[1].rank = 1;
  EXPECT_STATUS(tkrt_triton_bound_launch(bound, NULL, args, 6, NULL), TKRT_STATUS_INVALID_ARGUMENT,
                "argument 1 (b_desc: tensordesc<fp16[64, 128]>) has rank 1; the kernel takes rank 2");
  args[1] = desc_arg(db, capacity, 256, 256);
  args[1].block[0] = 64;
  args[1].block[1] = 64;
  EXPECT_STATUS(tkrt_triton_bound_launch(bound, NULL, args, 6, NULL), TKRT_STATUS_INVALID_ARGUMENT,
                "has block dimension 1 = 64; the kernel was compiled for 128");
  args[1].block[1] = 128;
  EXPECT_OK(tkrt_triton_bound_launch(bound, NULL, args, 6, NULL));
  args[1] = desc_arg(db, capacity, 256, 256);
  args[1].strides[1] = 2;
  EXPECT_STATUS(tkrt_triton_bound_launch(bound, NULL, args, 6, NULL), TKRT_STATUS_INVALID_ARGUMENT,
                "the innermost stride is 2; a tensor descriptor's must be 1");
  args[1] = desc_arg(db + 8, capacity - 8, 256, 256);
  EXPECT_STATUS(tkrt_triton_bound_launch(bound, NULL, args, 6, NULL), TKRT_STATUS_INVALID_ARGUMENT,
                "is not 16-byte aligned (TMA needs it)");
  args[1] = desc_arg(db, capacity, 256, 256);
  args[1].strides[0] = 260;
  EXPECT_STATUS(tkrt_triton_bound_launch(bound, NULL, args, 6, NULL), TKRT_STATUS_INVALID_ARGUMENT,
                "stride 0 is 260 elements, 520 bytes: TMA needs a multiple of 16 bytes");
  args[1] = desc_arg(db, 1000, 256, 256);
  EXPECT_STATUS(tkrt_triton_bound_launch(bound, NULL, args, 6, NULL), TKRT_STATUS_OUT_OF_RANGE,
                "its shape and strides span 131072 bytes but the buffer holds 1000");
  args[1] = desc_arg(db, capacity, 256, 256);
  args[1].padding_nan = 2;
  EXPECT_STATUS(tkrt_triton_bound_launch(bound, NULL, args, 6, NULL), TKRT_STATUS_INVALID_ARGUMENT,
                "padding_nan is 2; 0 (pad with zeros) or 1 (pad with NaN)");
  args[1] = desc_arg(db, capacity, 256, 256);
  args[1].kind = TKRT_TRITON_ARG_POINTER;
  EXPECT_STATUS(tkrt_triton_bound_launch(bound, NULL, args, 6, NULL), TKRT_STATUS_INVALID_ARGUMENT,
                "argument 1 (b_desc: tensordesc<fp16[64, 128]>) is a tensor descriptor but was "
                "given a pointer");
  EXPECT_OK(tkrt_stream_synchronize(device, NULL));
  tkrt_status_free(tkrt_memory_free(device, da));
  tkrt_status_free(tkrt_memory_free(device, db));
  tkrt_status_free(tkrt_memory_free(device, dc));
  tkrt_triton_bound_destroy(bound);
  tkrt_triton_kernel_release(k);
  tkrt_runtime_release(rt);
}

/* ---------------------------------------------------------------- decomposed tensor descriptors */

/* tile_copy_kernel (test/triton/desc_tile_host.c): a TTIR with a `!tt.tensordesc` parameter and
 * its hidden shape / stride parameters (as Triton 3.6 writes them, test/data/triton-3.6/
 * matmul_tma), compiled for a target without TMA: "tensordesc_meta": [], so Triton's launcher
 * passes the descriptor decomposed. */
static const char kTileTtir[] =
    "#loc = loc(\"tile.py\":1:0)\n"
    "module {\n"
    "  tt.func public @tile_copy_kernel(%in_desc: !tt.tensordesc<tensor<4x8xf32>> "
    "loc(\"in_desc\"(#loc)), %in_desc_0: i32 loc(\"in_desc\"(#loc)), %in_desc_1: i32 "
    "loc(\"in_desc\"(#loc)), %in_desc_2: i64 loc(\"in_desc\"(#loc)), %in_desc_3: i64 "
    "loc(\"in_desc\"(#loc)), %out_ptr: !tt.ptr<f32> {tt.divisibility = 16 : i32} "
    "loc(\"out_ptr\"(#loc)), %probe_ptr: !tt.ptr<i64> {tt.divisibility = 16 : i32} "
    "loc(\"probe_ptr\"(#loc))) attributes {noinline = false} {\n"
    "    tt.return loc(#loc)\n"
    "  } loc(#loc)\n"
    "} loc(#loc)\n";
static const char kTileJson[] =
    "{\"name\": \"tile_copy_kernel\", \"target\": {\"backend\": \"host\", \"arch\": \"any\", "
    "\"warp_size\": 1}, \"num_warps\": 1, \"num_ctas\": 1, \"num_stages\": 1, \"shared\": 0, "
    "\"triton_version\": \"3.6.0\", \"tensordesc_meta\": []}";

/* The decomposed-descriptor output in `dir` (made): TTIR, JSON and the host image named by
 * TKRT_TEST_DESC_HOST. NULL (a failure) when that is not set. */
static const char* make_tile_output(const char* dir) {
  const char* image = getenv("TKRT_TEST_DESC_HOST");
  if (!image || !*image) {
    fprintf(stderr, "TKRT_TEST_DESC_HOST (the desc_tile_host image) is not set\n");
    ++tkrt_test_failed_;
    return NULL;
  }
  mkdir(dir, 0755);
  write_text(dir, "tile_copy_kernel.ttir", kTileTtir);
  write_text(dir, "tile_copy_kernel.json", kTileJson);
  copy_file(image, dir, "tile_copy_kernel.so");
  return dir;
}

/* One decomposed-descriptor launch of a ROWS x COLS fp32 tensor with row stride STRIDE at element
 * OFFSET of the source buffer, over a 2 x 2 grid of 4 x 8 tiles (an 8 x 16 out): checks every out
 * element (the tensor's, or the padding outside it) and what the kernel was passed. */
enum { kTileRows = 6, kTileCols = 11, kTileStride = 13, kTileOffset = 1 };
enum { kTileSrc = kTileOffset + (kTileRows - 1) * kTileStride + kTileCols, kTileOut = 8 * 16 };

static tkrt_triton_arg_t tile_desc_arg(tkrt_deviceptr_t src, uint32_t padding_nan) {
  tkrt_triton_arg_t a;
  memset(&a, 0, sizeof(a));
  a.kind = TKRT_TRITON_ARG_DESCRIPTOR;
  a.rank = 2;
  a.ptr = src + kTileOffset * sizeof(float); /* 4-byte aligned only: no TMA rule here */
  a.size = (kTileSrc - kTileOffset) * sizeof(float);
  a.shape[0] = kTileRows, a.shape[1] = kTileCols;
  a.strides[0] = kTileStride, a.strides[1] = 1;
  a.block[0] = 4, a.block[1] = 8;
  a.padding_nan = padding_nan;
  return a;
}

static long tile_check(tkrt_device_t* device, tkrt_deviceptr_t src, tkrt_deviceptr_t out,
                       tkrt_deviceptr_t probe, const float* host_src, uint32_t padding_nan) {
  float result[kTileOut];
  int64_t seen[10];
  EXPECT_OK(tkrt_memcpy_dtoh_async(device, result, out, sizeof(result), NULL));
  EXPECT_OK(tkrt_memcpy_dtoh_async(device, seen, probe, sizeof(seen), NULL));
  EXPECT_OK(tkrt_stream_synchronize(device, NULL));
  long wrong = 0;
  for (int r = 0; r < 8; ++r) {
    for (int c = 0; c < 16; ++c) {
      float got = result[r * 16 + c];
      if (r < kTileRows && c < kTileCols) {
        wrong += got != host_src[kTileOffset + r * kTileStride + c];
      } else {
        wrong += padding_nan ? !isnan(got) : got != 0.0f;
      }
    }
  }
  const int64_t want[10] = {(int64_t)(src + kTileOffset * sizeof(float)), kTileRows, kTileCols,
                            kTileStride, 1, padding_nan, kTileRows, kTileCols, kTileStride, 1};
  for (int i = 0; i < 10; ++i) {
    if (seen[i] != want[i]) {
      fprintf(stderr, "probe[%d] = %lld, expected %lld\n", i, (long long)seen[i],
              (long long)want[i]);
      ++wrong;
    }
  }
  return wrong;
}

/* A kernel whose descriptors Triton did not lower to TMA (empty tensordesc_meta) takes them
 * decomposed: the call's parameters are the base (ARRAY), shape and strides as i64, the padding
 * flag, and the hidden i32 shape / i64 strides; a bound launch fills them from the descriptor
 * argument, on the host backend (no TMA), with the checks that apply (rank, block, innermost
 * stride, the tensor inside its buffer, padding) and none of TMA's alignment rules. */
static void bound_decomposed_host(void) {
  char dir[1024];
  if (!make_tile_output(make_dir("tile_desc", dir, sizeof(dir)))) return;
  tkrt_triton_kernel_t* k = NULL;
  ASSERT_OK(load1(dir, &k));
  ASSERT_TRUE(tkrt_triton_kernel_param_count(k) == 3);
  EXPECT_STREQ(tkrt_triton_kernel_param(k, 0)->type, "tensordesc<fp32[4, 8]>");
  EXPECT_TRUE(tkrt_triton_kernel_param(k, 0)->kind == TKRT_PARAM_TMA);

  /* The call: 12 parameters in Triton's launcher order, placeholders from the block. */
  tkrt_triton_variant_t variant = {k, NULL, {2, 2, 1}, NULL, NULL};
  tkrt_triton_call_desc_t desc;
  tkrt_triton_call_desc_init(&desc);
  desc.variants = &variant;
  desc.variant_count = 1;
  tkrt_call_t* call = NULL;
  ASSERT_OK(tkrt_triton_call_create(&desc, &call));
  const tkrt_config_desc_t* config = &tkrt_call_get_desc(call)->configs[0];
  static const tkrt_param_kind_t kinds[12] = {
      TKRT_PARAM_ARRAY, TKRT_PARAM_I64, TKRT_PARAM_I64, TKRT_PARAM_I64, TKRT_PARAM_I64,
      TKRT_PARAM_BOOL,  TKRT_PARAM_I32, TKRT_PARAM_I32, TKRT_PARAM_I64, TKRT_PARAM_I64,
      TKRT_PARAM_ARRAY, TKRT_PARAM_ARRAY};
  EXPECT_EQ_U64(config->param_count, 12);
  for (size_t i = 0; i < 12 && i < config->param_count; ++i) {
    EXPECT_TRUE(config->params[i].kind == kinds[i]);
  }
  if (config->param_count == 12) {
    EXPECT_TRUE(config->params[1].value.i64 == 4 && config->params[2].value.i64 == 8);
    EXPECT_TRUE(config->params[3].value.i64 == 8 && config->params[4].value.i64 == 1);
    EXPECT_TRUE(config->params[6].value.i32 == 4 && config->params[9].value.i64 == 1);
  }
  tkrt_call_release(call);

  tkrt_runtime_t* rt = NULL;
  tkrt_device_t* device = host_runtime_device("off", &rt);
  if (!device) {
    tkrt_runtime_release(rt);
    tkrt_triton_kernel_release(k);
    if (!rt) return;
    TKRT_TEST_SKIP("no host backend");
  }
  /* The call's own launch paths take no shapes: refused naming the descriptor, not run with the
   * placeholders (nothing is launched: the buffers are null). */
  ASSERT_OK(tkrt_triton_call_create(&desc, &call));
  tkrt_buffer_t buffers[3] = {{0, 0}, {0, 0}, {0, 0}};
  EXPECT_STATUS(tkrt_triton_call_launch(call, device, NULL, buffers, 3, NULL),
                TKRT_STATUS_INVALID_ARGUMENT,
                "call 'tile_copy_kernel': parameter 0 'in_desc' (tensordesc<fp32[4, 8]>) is a tensor "
                "descriptor (the decomposed form), whose tensor (base, shape, strides) comes with "
                "each launch: launch it with tkrt_triton_bound_launch");
  tkrt_call_release(call);
  call = NULL;
  tkrt_triton_bound_options_t options;
  tkrt_triton_bound_options_init(&options);
  options.runtime = rt;
  options.device = device;
  tkrt_triton_bound_t* bound = NULL;
  ASSERT_OK(tkrt_triton_bound_create(&desc, &options, &bound));
  EXPECT_EQ_U64(tkrt_triton_bound_arg_count(bound), 3);

  float host_src[kTileSrc];
  for (int i = 0; i < kTileSrc; ++i) host_src[i] = (float)i + 0.5f;
  tkrt_deviceptr_t src = 0, out = 0, probe = 0;
  ASSERT_OK(tkrt_memory_alloc(device, sizeof(host_src), &src));
  ASSERT_OK(tkrt_memory_alloc(device, kTileOut * sizeof(float), &out));
  ASSERT_OK(tkrt_memory_alloc(device, 10 * sizeof(int64_t), &probe));
  EXPECT_OK(tkrt_memcpy_htod_async(device, src, host_src, sizeof(host_src), NULL));
  tkrt_triton_arg_t args[3];
  memset(args, 0, sizeof(args));
  args[1] = (tkrt_triton_arg_t){.kind = TKRT_TRITON_ARG_POINTER, .ptr = out,
                                .size = kTileOut * sizeof(float)};
  args[2] = (tkrt_triton_arg_t){.kind = TKRT_TRITON_ARG_POINTER, .ptr = probe,
                                .size = 10 * sizeof(int64_t)};
  for (uint32_t nan_pad = 0; nan_pad < 2; ++nan_pad) {
    EXPECT_OK(tkrt_memset_async(device, out, 0x7F, kTileOut * sizeof(float), NULL));
    args[0] = tile_desc_arg(src, nan_pad);
    EXPECT_OK(tkrt_triton_bound_launch(bound, NULL, args, 3, NULL));
    EXPECT_EQ_U64(tile_check(device, src, out, probe, host_src, nan_pad), 0);
  }
  /* The block not given is not checked; the size unknown skips the span check. */
  args[0] = tile_desc_arg(src, 0);
  args[0].block[0] = args[0].block[1] = 0;
  args[0].size = TKRT_BUFFER_SIZE_UNKNOWN;
  EXPECT_OK(tkrt_triton_bound_launch(bound, NULL, args, 3, NULL));
  EXPECT_EQ_U64(tile_check(device, src, out, probe, host_src, 0), 0);

  /* Refused before anything runs: out keeps its bytes. */
  EXPECT_OK(tkrt_memset_async(device, out, 0x7F, kTileOut * sizeof(float), NULL));
  args[0] = tile_desc_arg(src, 0);
  args[0].rank = 1;
  EXPECT_STATUS(tkrt_triton_bound_launch(bound, NULL, args, 3, NULL), TKRT_STATUS_INVALID_ARGUMENT,
                "argument 0 (in_desc: tensordesc<fp32[4, 8]>) has rank 1; the kernel takes rank 2");
  args[0] = tile_desc_arg(src, 0);
  args[0].block[1] = 16;
  EXPECT_STATUS(tkrt_triton_bound_launch(bound, NULL, args, 3, NULL), TKRT_STATUS_INVALID_ARGUMENT,
                "has block dimension 1 = 16; the kernel was compiled for 8");
  args[0] = tile_desc_arg(src, 0);
  args[0].strides[1] = 2;
  EXPECT_STATUS(tkrt_triton_bound_launch(bound, NULL, args, 3, NULL), TKRT_STATUS_INVALID_ARGUMENT,
                "the innermost stride is 2; a tensor descriptor's must be 1");
  args[0] = tile_desc_arg(src, 0);
  args[0].size -= 4;
  EXPECT_STATUS(tkrt_triton_bound_launch(bound, NULL, args, 3, NULL), TKRT_STATUS_OUT_OF_RANGE,
                "its shape and strides span 304 bytes but the buffer holds 300");
  args[0] = tile_desc_arg(src, 2);
  EXPECT_STATUS(tkrt_triton_bound_launch(bound, NULL, args, 3, NULL), TKRT_STATUS_INVALID_ARGUMENT,
                "padding_nan is 2; 0 (pad with zeros) or 1 (pad with NaN)");
  args[0] = tile_desc_arg(src, 0);
  args[0].shape[0] = 0;
  EXPECT_STATUS(tkrt_triton_bound_launch(bound, NULL, args, 3, NULL), TKRT_STATUS_OUT_OF_RANGE,
                "shape dimension 0 is 0, not in 1..");
  args[0] = (tkrt_triton_arg_t){.kind = TKRT_TRITON_ARG_POINTER, .ptr = src, .size = 4};
  EXPECT_STATUS(tkrt_triton_bound_launch(bound, NULL, args, 3, NULL), TKRT_STATUS_INVALID_ARGUMENT,
                "is a tensor descriptor but was given a pointer");
  {
    unsigned char bytes[kTileOut * sizeof(float)];
    EXPECT_OK(tkrt_memcpy_dtoh_async(device, bytes, out, sizeof(bytes), NULL));
    EXPECT_OK(tkrt_stream_synchronize(device, NULL));
    size_t changed = 0;
    for (size_t i = 0; i < sizeof(bytes); ++i) changed += bytes[i] != 0x7F;
    EXPECT_EQ_U64(changed, 0);
  }
  tkrt_triton_bound_destroy(bound);
  tkrt_status_free(tkrt_memory_free(device, src));
  tkrt_status_free(tkrt_memory_free(device, out));
  tkrt_status_free(tkrt_memory_free(device, probe));
  tkrt_runtime_release(rt); /* the device is the runtime's */

  /* A host image whose signature is not the decomposed form is refused when loaded, naming the
   * descriptor's expected entries. */
  char bad[1024];
  make_dir("tile_desc_sig", bad, sizeof(bad));
  char ttir[2048];
  snprintf(ttir, sizeof(ttir), "%s", kTileTtir);
  char* at = strstr(ttir, "tensor<4x8xf32>");
  if (at) memcpy(at, "tensor<4x8xf16>", 15);
  write_text(bad, "tile_copy_kernel.ttir", ttir);
  write_text(bad, "tile_copy_kernel.json", kTileJson);
  copy_file(getenv("TKRT_TEST_DESC_HOST"), bad, "tile_copy_kernel.so");
  tkrt_triton_kernel_t* refused = NULL;
  EXPECT_STATUS(load1(bad, &refused), TKRT_STATUS_INVALID_ARGUMENT,
                "parameter 0 ('in_desc') is *fp16 in the TTIR but *fp32 in the host image's "
                "signature");
  EXPECT_STATUS(load1(bad, &refused), TKRT_STATUS_INVALID_ARGUMENT, "a host image takes decomposed");
  EXPECT_TRUE(refused == NULL);
  tkrt_triton_kernel_release(k);
}

static const tkrt_test_case_t kCases[] = {
    TKRT_TEST_CASE(json_values),         TKRT_TEST_CASE(json_errors),
    TKRT_TEST_CASE(ttir_signatures),     TKRT_TEST_CASE(shared_every_target),
    TKRT_TEST_CASE(shared_multi_target), TKRT_TEST_CASE(bad_files),
    TKRT_TEST_CASE(triton_cache),        TKRT_TEST_CASE(grid_expressions),
    TKRT_TEST_CASE(compiled_constants),  TKRT_TEST_CASE(bound_uint64_key),
    TKRT_TEST_CASE(host_call_single),    TKRT_TEST_CASE(host_call_autotuned),
    TKRT_TEST_CASE(host_image_only_on_gpu_dir), TKRT_TEST_CASE(cache_entry_check),
    TKRT_TEST_CASE(native_code_consent), TKRT_TEST_CASE(host_signature_checked),
    TKRT_TEST_CASE(host_signature_crafted_elf), TKRT_TEST_CASE(tensordesc_loader),
    TKRT_TEST_CASE(jit_specialisations), TKRT_TEST_CASE(bound_host),
    TKRT_TEST_CASE(bound_min_elements), TKRT_TEST_CASE(bound_tuning_key),    TKRT_TEST_CASE(bound_threads),
    TKRT_TEST_CASE(bound_try_launch),    TKRT_TEST_CASE(bound_close),
    TKRT_TEST_CASE(bound_cuda_tma),      TKRT_TEST_CASE(bound_decomposed_host),
};

/* `triton_test --fixture DIR <vectors> <host 256> <host 512> <host 1024>`: writes what the CLI
 * tests use: x.bin, y.bin, sum.bin (x + y, 5000 floats) and three host-only variants of add_kernel
 * (variant256/, variant512/, variant1024/). */
static int write_fixture(char** argv) {
  const char* dir = argv[2];
  g_vectors = argv[3];
  mkdir(dir, 0755);
  enum { N = 5000 };
  static float x[N], y[N], sum[N];
  for (int i = 0; i < N; ++i) {
    x[i] = (float)i * 0.25f;
    y[i] = 3.0f / (float)(i + 1);
    sum[i] = x[i] + y[i];
  }
  const struct {
    const char* name;
    const float* data;
  } files[] = {{"x.bin", x}, {"y.bin", y}, {"sum.bin", sum}};
  for (int f = 0; f < 3; ++f) {
    char path[2048];
    snprintf(path, sizeof(path), "%s/%s", dir, files[f].name);
    FILE* out = fopen(path, "wb");
    if (!out || fwrite(files[f].data, sizeof(float), N, out) != N) return 1;
    fclose(out);
  }
  for (int v = 0; v < 3; ++v) {
    char variant[2048];
    snprintf(variant, sizeof(variant), "%s/variant%d", dir, kVariantBlocks[v]);
    make_host_output(variant, argv[4 + v], 2 << v);
  }
  /* sum4992.bin: x + y for the first 4992 elements (a multiple of 16), zeros after. */
  {
    static float partial[N];
    for (int i = 0; i < N; ++i) partial[i] = i < 4992 ? sum[i] : 0.0f;
    char path[2048];
    snprintf(path, sizeof(path), "%s/sum4992.bin", dir);
    FILE* out = fopen(path, "wb");
    if (!out || fwrite(partial, sizeof(float), N, out) != N) return 1;
    fclose(out);
  }
  /* add_jit/: Triton's JIT build of add_kernel (n specialised to multiples of 16) with the
   * BLOCK=1024 host image beside it. */
  char jit[2048];
  snprintf(g_tmp, sizeof(g_tmp), "%s", dir);
  snprintf(jit, sizeof(jit), "%s/add_jit", dir);
  make_copy_dir("add_jit", "add_jit", "add_kernel", argv[6], NULL, jit, sizeof(jit));
  /* tile_desc/: the decomposed-descriptor kernel (TKRT_TEST_DESC_HOST), with tile_src.bin (the
   * 6 x 11 tensor, row stride 13, from the buffer's start) and the 8 x 16 out it makes with
   * zero padding (tile_zero.bin) and NaN padding (tile_nan.bin). */
  char tile[2048];
  snprintf(tile, sizeof(tile), "%s/tile_desc", dir);
  if (!make_tile_output(tile)) return 1;
  {
    float src[(kTileRows - 1) * kTileStride + kTileCols], zero[kTileOut], nan[kTileOut];
    for (size_t i = 0; i < sizeof(src) / sizeof(src[0]); ++i) src[i] = (float)i + 0.5f;
    for (int r = 0; r < 8; ++r) {
      for (int c = 0; c < 16; ++c) {
        int in = r < kTileRows && c < kTileCols;
        zero[r * 16 + c] = in ? src[r * kTileStride + c] : 0.0f;
        nan[r * 16 + c] = in ? src[r * kTileStride + c] : NAN;
      }
    }
    const struct {
      const char* name;
      const float* data;
      size_t count;
    } tiles[] = {{"tile_src.bin", src, sizeof(src) / sizeof(src[0])},
                 {"tile_zero.bin", zero, kTileOut},
                 {"tile_nan.bin", nan, kTileOut}};
    for (int f = 0; f < 3; ++f) {
      char path[2100];
      snprintf(path, sizeof(path), "%s/%s", dir, tiles[f].name);
      FILE* out = fopen(path, "wb");
      if (!out || fwrite(tiles[f].data, sizeof(float), tiles[f].count, out) != tiles[f].count) {
        return 1;
      }
      fclose(out);
    }
  }
  return 0;
}

int main(int argc, char** argv) {
  if (argc == 7 && strcmp(argv[1], "--fixture") == 0) return write_fixture(argv);
  if (argc < 5) {
    fprintf(stderr, "usage: %s <triton-3.6 vectors> <host 256> <host 512> <host 1024> [case...]\n",
            argv[0]);
    return 2;
  }
  g_vectors = argv[1];
  for (int i = 0; i < 3; ++i) g_host[i] = argv[2 + i];
  char probe[1024];
  snprintf(probe, sizeof(probe), "%s/add/cuda_sm90/add_kernel.json", g_vectors);
  if (access(probe, R_OK) != 0) {
    fprintf(stderr, "skipped: the Triton 3.6 vectors are not at %s\n", g_vectors);
    return 77;
  }
  const char* base = getenv("TMPDIR");
  snprintf(g_tmp, sizeof(g_tmp), "%s/tkrt_triton_XXXXXX", base && *base ? base : "/tmp");
  if (!mkdtemp(g_tmp)) {
    perror("mkdtemp");
    return 1;
  }
  argv[4] = argv[0];
  int rc = tkrt_test_main(argc - 4, argv + 4, kCases, sizeof(kCases) / sizeof(kCases[0]));
  nftw(g_tmp, remove_entry, 16, FTW_DEPTH | FTW_PHYS);
  return rc;
}
