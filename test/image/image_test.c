/* SPDX-License-Identifier: Apache-2.0 */
/* Tests for tkrt_image_inspect: real cubins, PTX, a fatbin, the jaxlib HSACO code objects and this
 * executable (a host ELF), then truncated and corrupted copies of each (run under ASan+UBSan). */
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "test/harness.h"
#include "tkrt/host_kernel.h"
#include "tkrt/image.h"

#ifndef TKRT_TEST_IMAGE_DATA_DIR
#error "CMake passes TKRT_TEST_IMAGE_DATA_DIR (test/image/data)"
#endif
#ifndef TKRT_TEST_VECTORS_DIR
#error "CMake passes TKRT_TEST_VECTORS_DIR (test/data/jaxlib-0.11.2)"
#endif

/* Makes this executable a host image with one kernel, so /proc/self/exe can be inspected. */
TKRT_HOST_KERNEL(image_test_kernel, "i32") {
  (void)params;
  (void)program;
}

/* Counts a failure in the current case and goes on, printing the formatted reason. */
#define CHECK(cond, ...)                       \
  do {                                         \
    if (!(cond)) TKRT_TEST_FAIL_(__VA_ARGS__); \
  } while (0)

static unsigned char* read_file(const char* dir, const char* name, size_t* out_size) {
  char path[1024];
  snprintf(path, sizeof(path), "%s%s%s", dir, dir[0] ? "/" : "", name);
  FILE* f = fopen(path, "rb");
  if (!f) return NULL;
  size_t capacity = 1 << 16, size = 0;
  unsigned char* data = malloc(capacity);
  for (;;) {
    if (size == capacity) {
      capacity *= 2;
      data = realloc(data, capacity);
    }
    size_t n = fread(data + size, 1, capacity - size, f);
    if (n == 0) break;
    size += n;
  }
  fclose(f);
  *out_size = size;
  return data;
}

static unsigned char* must_read(const char* dir, const char* name, size_t* out_size) {
  unsigned char* data = read_file(dir, name, out_size);
  if (!data) {
    fprintf(stderr, "cannot read %s/%s\n", dir, name);
    exit(1);
  }
  return data;
}

/* Inspects and checks success; returns the info (static storage, overwritten by the next call). */
static const tkrt_image_info_t* inspect_ok(const char* what, const void* data, size_t size) {
  static tkrt_image_info_t info;
  memset(&info, 0xab, sizeof(info));
  tkrt_status_t status = tkrt_image_inspect(data, size, &info);
  CHECK(status == NULL, "%s: %s", what, tkrt_status_message(status));
  tkrt_status_free(status);
  return &info;
}

/* Expects INVALID_ARGUMENT whose message contains `needle` (when not NULL), and an untouched out. */
static void inspect_fails(const char* what, const void* data, size_t size, const char* needle) {
  tkrt_image_info_t info;
  memset(&info, 0x5a, sizeof(info));
  tkrt_status_t status = tkrt_image_inspect(data, size, &info);
  CHECK(status != NULL, "%s: inspect succeeded", what);
  if (!status) return;
  CHECK(tkrt_status_code(status) == TKRT_STATUS_INVALID_ARGUMENT, "%s: code %s: %s", what,
        tkrt_status_code_name(tkrt_status_code(status)), tkrt_status_message(status));
  if (needle) {
    CHECK(strstr(tkrt_status_message(status), needle) != NULL, "%s: '%s' not in '%s'", what,
          needle, tkrt_status_message(status));
  }
  unsigned char* bytes = (unsigned char*)&info;
  int untouched = 1;
  for (size_t i = 0; i < sizeof(info); ++i) untouched &= bytes[i] == 0x5a;
  CHECK(untouched, "%s: out_info was written on failure", what);
  tkrt_status_free(status);
}

static int has_kernel(const tkrt_image_info_t* info, const char* name) {
  size_t stored = info->kernel_count < TKRT_IMAGE_KERNELS_MAX ? info->kernel_count
                                                               : TKRT_IMAGE_KERNELS_MAX;
  for (size_t i = 0; i < stored; ++i) {
    if (strcmp(info->kernels[i], name) == 0) return 1;
  }
  return 0;
}

static void put_le32(unsigned char* p, uint32_t v) {
  p[0] = (unsigned char)v;
  p[1] = (unsigned char)(v >> 8);
  p[2] = (unsigned char)(v >> 16);
  p[3] = (unsigned char)(v >> 24);
}

static uint64_t get_le64(const unsigned char* p) {
  uint64_t v = 0;
  for (int i = 7; i >= 0; --i) v = v << 8 | p[i];
  return v;
}

static void put_le64(unsigned char* p, uint64_t v) {
  for (int i = 0; i < 8; ++i) p[i] = (unsigned char)(v >> (8 * i));
}

/* ---------------------------------------------------------------- committed images */

static bool count_visitor(const char* name, size_t length, void* user) {
  (void)name;
  (void)length;
  ++*(int*)user;
  return *(int*)user < 1; /* stop after the first */
}

static void test_ptx(void) {
  const char* dir = TKRT_TEST_IMAGE_DATA_DIR;
  size_t size;
  unsigned char* ptx = must_read(dir, "add_f32.ptx", &size);
  const tkrt_image_info_t* info = inspect_ok("add_f32.ptx", ptx, size);
  CHECK(info->kind == TKRT_IMAGE_PTX, "kind %d", info->kind);
  CHECK(strcmp(info->arch, "sm_90a") == 0, "arch '%s'", info->arch);
  CHECK(strcmp(info->target, "sm_90a") == 0, "target '%s'", info->target);
  CHECK(info->sm == 90, "sm %u", info->sm);
  CHECK(info->ptx_version_major == 8 && info->ptx_version_minor == 7, "version %u.%u",
        info->ptx_version_major, info->ptx_version_minor);
  CHECK(info->kernel_count == 1 && has_kernel(info, "add_kernel"), "kernels %zu '%s'",
        info->kernel_count, info->kernels[0]);
  CHECK(info->struct_size == sizeof(tkrt_image_info_t), "struct_size %zu", info->struct_size);

  /* A NUL-terminated copy (what a C string with its terminator looks like) works the same. */
  unsigned char* with_nul = malloc(size + 1);
  memcpy(with_nul, ptx, size);
  with_nul[size] = '\0';
  info = inspect_ok("add_f32.ptx + NUL", with_nul, size + 1);
  CHECK(strcmp(info->arch, "sm_90a") == 0, "arch '%s'", info->arch);
  free(with_nul);

  int visited = 0;
  tkrt_status_t status = tkrt_image_for_each_kernel(ptx, size, count_visitor, &visited);
  CHECK(!status && visited == 1, "for_each: %s, %d", tkrt_status_message(status), visited);
  tkrt_status_free(status);

  /* Directives inside comments do not count; a missing .target is an error. */
  static const char commented[] = "// .target sm_50\n.version 8.0\n/* .entry fake( */\n"
                                  ".target sm_80\n.visible .entry real_kernel(\n)\n{ ret; }\n";
  info = inspect_ok("commented PTX", commented, sizeof(commented) - 1);
  CHECK(strcmp(info->arch, "sm_80") == 0, "arch '%s'", info->arch);
  CHECK(info->kernel_count == 1 && has_kernel(info, "real_kernel"), "kernels %zu",
        info->kernel_count);
  static const char no_target[] = ".version 8.0\n.entry k()\n{ ret; }\n";
  inspect_fails("PTX without .target", no_target, sizeof(no_target) - 1, ".target");
  static const char open_comment[] = ".version 8.0\n.target sm_80\n/* never closed";
  inspect_fails("PTX with an open comment", open_comment, sizeof(open_comment) - 1, "offset 27");
  static const char bad_version[] = ".version eight\n.target sm_80\n";
  inspect_fails("PTX with a bad .version", bad_version, sizeof(bad_version) - 1, "offset 9");
  static const char entry_at_end[] = ".version 8.0\n.target sm_80\n.entry";
  inspect_fails("PTX .entry without a name", entry_at_end, sizeof(entry_at_end) - 1, ".entry");
  free(ptx);
}

static void test_cubin(void) {
  const char* dir = TKRT_TEST_IMAGE_DATA_DIR;
  size_t size80, size90;
  unsigned char* sm80 = must_read(dir, "kernels_sm80.cubin", &size80);
  unsigned char* sm90a = must_read(dir, "kernels_sm90a.cubin", &size90);
  const tkrt_image_info_t* info = inspect_ok("sm_80 cubin", sm80, size80);
  CHECK(info->kind == TKRT_IMAGE_CUBIN, "kind %d", info->kind);
  CHECK(strcmp(info->arch, "sm_80") == 0, "arch '%s'", info->arch);
  CHECK(info->sm == 80 && info->elf_machine == 190, "sm %u machine %u", info->sm,
        info->elf_machine);
  CHECK(info->kernel_count == 2 && has_kernel(info, "scale") && has_kernel(info, "add_one"),
        "kernels %zu", info->kernel_count);

  info = inspect_ok("sm_90a cubin", sm90a, size90);
  CHECK(strcmp(info->arch, "sm_90a") == 0, "arch '%s'", info->arch);
  CHECK(info->sm == 90, "sm %u", info->sm);
  CHECK(info->elf_osabi == 0x41 && info->elf_abi_version == 8, "osabi %u abi %u",
        info->elf_osabi, info->elf_abi_version);

  /* The pre-CUDA-13 layout: EI_OSABI 0x33, EI_ABIVERSION 7, SM in bits 0-7, 0x800 for 'a'. */
  unsigned char* old = malloc(size90);
  memcpy(old, sm90a, size90);
  old[7] = 0x33;
  old[8] = 7;
  put_le32(old + 48, 0x5a | 0x400 | 0x800 | (0x5au << 16));
  info = inspect_ok("old-layout sm_90a cubin", old, size90);
  CHECK(strcmp(info->arch, "sm_90a") == 0, "arch '%s'", info->arch);
  free(old);
  old = malloc(size80);
  memcpy(old, sm80, size80);
  old[7] = 0x33;
  old[8] = 7;
  put_le32(old + 48, 0x50 | 0x400 | (0x50u << 16));
  info = inspect_ok("old-layout sm_80 cubin", old, size80);
  CHECK(strcmp(info->arch, "sm_80") == 0, "arch '%s'", info->arch);
  put_le32(old + 48, 0x400);
  inspect_fails("cubin without an SM", old, size80, "offset 48");
  free(old);

  /* Structural damage, each named with an offset. */
  unsigned char* bad = malloc(size80);
  memcpy(bad, sm80, size80);
  put_le64(bad + 40, (uint64_t)size80 + 100); /* e_shoff past the end */
  inspect_fails("e_shoff past the end", bad, size80, "offset 40");
  memcpy(bad, sm80, size80);
  bad[58] = 16; /* e_shentsize below 64 */
  bad[59] = 0;
  inspect_fails("small e_shentsize", bad, size80, "offset 58");
  memcpy(bad, sm80, size80);
  bad[4] = 9;
  inspect_fails("bad ELF class", bad, size80, "offset 4");
  memcpy(bad, sm80, size80);
  bad[5] = 0;
  inspect_fails("bad ELF data encoding", bad, size80, "offset 5");
  inspect_fails("ELF header cut short", sm80, 40, "offset 0");
  /* A section whose data runs past the end: grow section 1's size. */
  memcpy(bad, sm80, size80);
  uint64_t shoff = get_le64(bad + 40);
  put_le64(bad + shoff + 64 + 32, (uint64_t)size80 * 4);
  inspect_fails("section past the end", bad, size80, "offset");
  free(bad);
  free(sm80);
  free(sm90a);
}

static void test_fatbin(void) {
  const char* dir = TKRT_TEST_IMAGE_DATA_DIR;
  size_t size;
  unsigned char* fatbin = must_read(dir, "kernels.fatbin", &size);
  const tkrt_image_info_t* info = inspect_ok("fatbin", fatbin, size);
  CHECK(info->kind == TKRT_IMAGE_FATBIN, "kind %d", info->kind);
  CHECK(strcmp(info->target, "fatbin") == 0 && info->arch[0] == '\0', "target '%s' arch '%s'",
        info->target, info->arch);
  CHECK(info->fatbin_entry_count == 3, "entries %zu", info->fatbin_entry_count);
  if (info->fatbin_entry_count == 3) {
    CHECK(strcmp(info->fatbin_entries[0], "sm_80") == 0, "entry 0 '%s'", info->fatbin_entries[0]);
    CHECK(strcmp(info->fatbin_entries[1], "sm_90a") == 0, "entry 1 '%s'",
          info->fatbin_entries[1]);
    CHECK(strcmp(info->fatbin_entries[2], "compute_90") == 0, "entry 2 '%s'",
          info->fatbin_entries[2]);
  }
  inspect_fails("fatbin cut in its header", fatbin, 12, "offset 0");
  inspect_fails("fatbin cut in an entry", fatbin, 100, "offset 8");
  unsigned char* bad = malloc(size);
  memcpy(bad, fatbin, size);
  put_le32(bad + 16 + 4, 8); /* first entry's header size below 48 */
  inspect_fails("fatbin entry header too small", bad, size, "offset 16");
  free(bad);
  free(fatbin);
}

static void test_host(void) {
  size_t size;
  unsigned char* self = read_file("", "/proc/self/exe", &size);
  if (!self) {
    fprintf(stderr, "note: /proc/self/exe unreadable, host ELF case skipped\n");
    return;
  }
  const tkrt_image_info_t* info = inspect_ok("this executable", self, size);
  CHECK(info->kind == TKRT_IMAGE_HOST, "kind %d", info->kind);
#if defined(__x86_64__)
  CHECK(strcmp(info->arch, "x86_64") == 0, "arch '%s'", info->arch);
#elif defined(__aarch64__)
  CHECK(strcmp(info->arch, "aarch64") == 0, "arch '%s'", info->arch);
#endif
  CHECK(has_kernel(info, "image_test_kernel"), "%zu kernels, image_test_kernel missing",
        info->kernel_count);
  /* A caller built against an older, smaller struct: nothing past its struct_size is written. */
  size_t older = offsetof(tkrt_image_info_t, arch) + 4;
  unsigned char* small = malloc(sizeof(tkrt_image_info_t));
  memset(small, 0xA5, sizeof(tkrt_image_info_t));
  memcpy(small, &older, sizeof(older));
  tkrt_status_t status = tkrt_image_inspect(self, size, (tkrt_image_info_t*)small);
  CHECK(status == NULL, "inspect with a small struct failed");
  tkrt_status_free(status);
  size_t touched = 0;
  for (size_t i = older; i < sizeof(tkrt_image_info_t); ++i) touched += small[i] != 0xA5;
  CHECK(touched == 0, "%zu bytes written past struct_size", touched);
#if defined(__x86_64__)
  CHECK(memcmp(small + offsetof(tkrt_image_info_t, arch), "x86_", 4) == 0,
        "the part of arch inside struct_size was not written");
#endif
  free(small);
  free(self);
}

static void test_misc(void) {
  inspect_fails("empty", "", 0, "empty");
  inspect_fails("NULL", NULL, 10, "empty");
  inspect_fails("garbage", "hello world, no image", 21, "unrecognised");
  tkrt_status_t status = tkrt_image_inspect("x", 1, NULL);
  CHECK(tkrt_status_code(status) == TKRT_STATUS_INVALID_ARGUMENT, "NULL out_info");
  tkrt_status_free(status);
  CHECK(strcmp(tkrt_image_feature_name(TKRT_IMAGE_FEATURE_ON), "on") == 0, "feature name");
}

/* ---------------------------------------------------------------- HSACO */

static void test_hsaco(void) {
  const char* vectors = TKRT_TEST_VECTORS_DIR;
  size_t size90a, size942;
  char dir[1024];
  snprintf(dir, sizeof(dir), "%s/hsaco", vectors);
  unsigned char* gfx90a = read_file(dir, "gfx90a/kernel.hsaco", &size90a);
  unsigned char* gfx942 = read_file(dir, "gfx942/kernel.hsaco", &size942);
  if (!gfx90a || !gfx942) {
    free(gfx90a);
    free(gfx942);
    TKRT_TEST_SKIP("the jaxlib HSACO vectors are not at %s", dir);
  }
  const tkrt_image_info_t* info = inspect_ok("gfx90a", gfx90a, size90a);
  CHECK(info->kind == TKRT_IMAGE_HSACO, "kind %d", info->kind);
  CHECK(strcmp(info->arch, "gfx90a") == 0, "arch '%s'", info->arch);
  /* Built for xnack and sramecc "any": the target ID has no feature suffix. */
  CHECK(strcmp(info->target, "gfx90a") == 0, "target '%s'", info->target);
  CHECK(info->code_object_version == 5, "code object v%u", info->code_object_version);
  CHECK(info->xnack == TKRT_IMAGE_FEATURE_ANY && info->sramecc == TKRT_IMAGE_FEATURE_ANY,
        "xnack %d sramecc %d", info->xnack, info->sramecc);
  CHECK(info->kernel_count == 1 && has_kernel(info, "add_kernel"), "kernels %zu '%s'",
        info->kernel_count, info->kernels[0]);

  info = inspect_ok("gfx942", gfx942, size942);
  CHECK(strcmp(info->arch, "gfx942") == 0, "arch '%s'", info->arch);
  CHECK(info->kernel_count == 1 && has_kernel(info, "add_kernel"), "kernels %zu",
        info->kernel_count);

  /* Features set explicitly show up in the target ID, alphabetically. */
  unsigned char* patched = malloc(size90a);
  memcpy(patched, gfx90a, size90a);
  put_le32(patched + 48, 0x3f | 0x200 /* xnack off */ | 0xc00 /* sramecc on */);
  info = inspect_ok("gfx90a sramecc+ xnack-", patched, size90a);
  CHECK(strcmp(info->target, "gfx90a:sramecc+:xnack-") == 0, "target '%s'", info->target);
  CHECK(strcmp(info->arch, "gfx90a") == 0, "arch '%s'", info->arch);
  /* Every mach the brief lists maps to its name. */
  static const struct { uint32_t mach; const char* name; } machs[] = {
      {0x2c, "gfx900"}, {0x2f, "gfx906"}, {0x30, "gfx908"},  {0x3f, "gfx90a"},
      {0x40, "gfx940"}, {0x4b, "gfx941"}, {0x4c, "gfx942"},  {0x4f, "gfx950"},
      {0x36, "gfx1030"}, {0x41, "gfx1100"}, {0x46, "gfx1101"}, {0x48, "gfx1200"},
      {0x4e, "gfx1201"},
  };
  for (size_t i = 0; i < sizeof(machs) / sizeof(machs[0]); ++i) {
    put_le32(patched + 48, machs[i].mach | 0x500);
    info = inspect_ok(machs[i].name, patched, size90a);
    CHECK(strcmp(info->arch, machs[i].name) == 0, "mach 0x%x: arch '%s', want %s",
          machs[i].mach, info->arch, machs[i].name);
  }
  put_le32(patched + 48, 0xfe | 0x500); /* unknown processor: inspectable, arch empty */
  info = inspect_ok("unknown mach", patched, size90a);
  CHECK(info->arch[0] == '\0' && info->elf_flags == 0x5fe, "arch '%s' flags 0x%x", info->arch,
        info->elf_flags);
  free(patched);
  free(gfx90a);
  free(gfx942);
}

/* ---------------------------------------------------------------- truncation and corruption */

typedef struct image_case {
  const char* name;
  unsigned char* data;
  size_t size;
} image_case_t;

static uint64_t rng_state = 0x9e3779b97f4a7c15ull;

static uint64_t rng_next(void) {
  rng_state ^= rng_state << 13;
  rng_state ^= rng_state >> 7;
  rng_state ^= rng_state << 17;
  return rng_state;
}

/* Only the outcome class matters here: success or a clean INVALID_ARGUMENT, never a crash,
 * never another code. ASan and UBSan catch any out-of-bounds read. */
static void inspect_any(const char* what, const unsigned char* data, size_t size, size_t detail) {
  tkrt_image_info_t* info = malloc(sizeof(*info));
  info->struct_size = sizeof(*info);
  tkrt_status_t status = tkrt_image_inspect(data, size, info);
  if (status) {
    CHECK(tkrt_status_code(status) == TKRT_STATUS_INVALID_ARGUMENT, "%s (%zu): %s: %s", what,
          detail, tkrt_status_code_name(tkrt_status_code(status)), tkrt_status_message(status));
    CHECK(tkrt_status_message(status)[0] != '\0', "%s (%zu): empty message", what, detail);
    tkrt_status_free(status);
  }
  free(info);
}

static void test_fuzz(void) {
  const char* data_dir = TKRT_TEST_IMAGE_DATA_DIR;
  const char* vectors = TKRT_TEST_VECTORS_DIR;
  image_case_t cases[8];
  size_t count = 0;
  static const char* const committed[] = {"add_f32.ptx", "kernels_sm80.cubin",
                                          "kernels_sm90a.cubin", "kernels.fatbin"};
  for (size_t i = 0; i < 4; ++i) {
    cases[count].name = committed[i];
    cases[count].data = must_read(data_dir, committed[i], &cases[count].size);
    ++count;
  }
  char dir[1024];
  snprintf(dir, sizeof(dir), "%s/hsaco", vectors);
  static const char* const hsacos[] = {"gfx90a/kernel.hsaco", "gfx942/kernel.hsaco"};
  for (size_t i = 0; i < 2; ++i) {
    unsigned char* data = read_file(dir, hsacos[i], &cases[count].size);
    if (!data) continue;
    cases[count].name = hsacos[i];
    cases[count].data = data;
    ++count;
  }
  for (size_t c = 0; c < count; ++c) {
    const image_case_t* k = &cases[c];
    /* Every truncation, each in an exactly-sized heap copy so ASan sees reads past the end. */
    for (size_t length = 0; length < k->size; ++length) {
      unsigned char* copy = malloc(length ? length : 1);
      memcpy(copy, k->data, length);
      inspect_any(k->name, copy, length, length);
      free(copy);
    }
    /* Corruptions: 1 to 4 random bytes changed, biased towards the headers and tables. */
    unsigned char* copy = malloc(k->size);
    for (int round = 0; round < 4000; ++round) {
      memcpy(copy, k->data, k->size);
      int edits = 1 + (int)(rng_next() % 4);
      for (int e = 0; e < edits; ++e) {
        size_t at = (rng_next() % 2) ? rng_next() % (k->size < 128 ? k->size : 128)
                                     : rng_next() % k->size;
        uint64_t r = rng_next();
        copy[at] = (r % 3 == 0) ? 0xff : (r % 3 == 1) ? 0x00 : (unsigned char)(r >> 8);
      }
      inspect_any(k->name, copy, k->size, (size_t)round);
    }
    /* Every single byte of the first 4 KiB set to 0xff in turn (covers all header fields). */
    for (size_t at = 0; at < k->size && at < 4096; ++at) {
      memcpy(copy, k->data, k->size);
      copy[at] = 0xff;
      inspect_any(k->name, copy, k->size, at);
    }
    free(copy);
  }
  for (size_t c = 0; c < count; ++c) free(cases[c].data);
}

TKRT_TEST_MAIN(TKRT_TEST_CASE(test_ptx), TKRT_TEST_CASE(test_cubin), TKRT_TEST_CASE(test_fatbin),
               TKRT_TEST_CASE(test_host), TKRT_TEST_CASE(test_misc), TKRT_TEST_CASE(test_hsaco),
               TKRT_TEST_CASE(test_fuzz))
