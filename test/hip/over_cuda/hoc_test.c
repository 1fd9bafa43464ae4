/* SPDX-License-Identifier: Apache-2.0 */
/* hip-over-cuda tests that need no GPU (CI): packing a cubin into real HSACO files and reading it
 * back, the backend's arch check and image inspection on the packed files, the wave64 and
 * any-block launch rules, every backend entry point exported by each build, and each build
 * answering "no device" cleanly when libcuda is absent (TKRT_HOC_LIBCUDA names a missing file).
 * Usage: hoc_test [case...]; paths come from CMake. */
#define _POSIX_C_SOURCE 200809L /* setenv */

#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "backends/hip/hip_internal.h"
#include "test/harness.h"
#include "test/hip/over_cuda/hoc_elf.h"
#include "tkrt/tkrt.h"

#if !defined(HOC_TRITON_DIR) || !defined(HOC_TEST_DIR) || !defined(HOC_RUNTIME_5) || \
    !defined(HOC_RUNTIME_6) || !defined(HOC_RUNTIME_7)
#error "CMake passes HOC_TRITON_DIR, HOC_TEST_DIR and HOC_RUNTIME_5/6/7"
#endif

#define CHECK(cond, ...)                       \
  do {                                         \
    if (!(cond)) TKRT_TEST_FAIL_(__VA_ARGS__); \
  } while (0)

/* Packs Triton's HSACO of `kernel` for `arch` with its sm_90 cubin; NULL on failure (counted). */
static uint8_t* pack_triton(const char* kernel, const char* arch, size_t* out_size,
                            size_t* out_cubin_size, uint8_t** out_cubin) {
  char hsaco_path[1024], cubin_path[1024];
  snprintf(hsaco_path, sizeof(hsaco_path), "%s/%s/hip_%s/%s_kernel.hsaco", HOC_TRITON_DIR, kernel,
           arch, kernel);
  snprintf(cubin_path, sizeof(cubin_path), "%s/%s/cuda_sm90/%s_kernel.cubin", HOC_TRITON_DIR,
           kernel, kernel);
  size_t hsaco_size = 0, cubin_size = 0;
  uint8_t* hsaco = tkrt_test_read_file(hsaco_path, &hsaco_size);
  uint8_t* cubin = tkrt_test_read_file(cubin_path, &cubin_size);
  uint8_t* packed = NULL;
  char error[256] = "";
  CHECK(hsaco && cubin, "cannot read %s or %s", hsaco_path, cubin_path);
  if (hsaco && cubin) {
    packed = hoc_pack(hsaco, hsaco_size, cubin, cubin_size, NULL, out_size, error,
                      sizeof(error));
    CHECK(packed != NULL, "packing %s: %s", hsaco_path, error);
  }
  free(hsaco);
  if (packed) {
    *out_cubin_size = cubin_size;
    *out_cubin = cubin;
  } else {
    free(cubin);
  }
  return packed;
}

static void test_pack_round_trip(void) {
  static const char* const kernels[2] = {"add", "matmul"};
  static const char* const arches[2] = {"gfx942", "gfx90a"};
  for (int k = 0; k < 2; ++k) {
    for (int a = 0; a < 2; ++a) {
      size_t size = 0, cubin_size = 0;
      uint8_t* cubin = NULL;
      uint8_t* packed = pack_triton(kernels[k], arches[a], &size, &cubin_size, &cubin);
      if (!packed) continue;
      /* The size the runtime derives from the headers alone is the file's. */
      CHECK(hoc_elf_size(packed, size) == size, "%s %s: size %zu vs %zu", kernels[k], arches[a],
            hoc_elf_size(packed, size), size);
      CHECK(hoc_elf_size(packed, SIZE_MAX) == size, "unbounded size differs");
      const uint8_t* data = NULL;
      size_t data_size = 0;
      CHECK(hoc_elf_section(packed, size, HOC_SECTION_CUBIN, &data, &data_size) &&
                data_size == cubin_size && memcmp(data, cubin, cubin_size) == 0,
            "%s %s: the cubin does not read back", kernels[k], arches[a]);
      CHECK(hoc_elf_section(packed, size, HOC_SECTION_LAUNCH, &data, &data_size) &&
                data_size == 0, "empty launch rules expected");
      char descriptor[64];
      snprintf(descriptor, sizeof(descriptor), "%s_kernel.kd", kernels[k]);
      CHECK(hoc_elf_has_symbol(packed, size, descriptor), "%s missing", descriptor);
      CHECK(!hoc_elf_has_symbol(packed, size, "no_such_kernel.kd"), "phantom symbol");
      uint16_t machine = 0;
      uint32_t flags = 0;
      CHECK(hoc_elf_header(packed, size, &machine, &flags) && machine == HOC_EM_AMDGPU &&
                hoc_amdgpu_processor(flags) && strcmp(hoc_amdgpu_processor(flags), arches[a]) == 0,
            "%s: machine %u flags 0x%x", arches[a], machine, (unsigned)flags);
      /* tkrt still sees the real code object, with its target. */
      tkrt_image_info_t info;
      EXPECT_OK(tkrt_image_inspect(packed, size, &info));
      CHECK(info.kind == TKRT_IMAGE_HSACO && strcmp(info.arch, arches[a]) == 0, "inspect: %s %s",
            tkrt_image_kind_name(info.kind), info.arch);
      /* Packing twice is refused; so is a cubin in place of a code object. */
      char error[256] = "";
      size_t again_size = 0;
      uint8_t* again =
          hoc_pack(packed, size, cubin, cubin_size, NULL, &again_size, error, sizeof(error));
      CHECK(!again && strstr(error, "already has"), "second pack: '%s'", error);
      free(again);
      uint8_t* wrong =
          hoc_pack(cubin, cubin_size, cubin, cubin_size, NULL, &again_size, error, sizeof(error));
      CHECK(!wrong && strstr(error, "not an AMDGPU"), "cubin as HSACO: '%s'", error);
      free(wrong);
      free(packed);
      free(cubin);
    }
  }
}

static void test_arch_checks_on_packed_hsaco(void) {
  size_t size = 0, cubin_size = 0;
  uint8_t* cubin = NULL;
  uint8_t* packed = pack_triton("add", "gfx942", &size, &cubin_size, &cubin);
  ASSERT_TRUE(packed != NULL);
  tkrt_image_info_t info;
  EXPECT_OK(tkrt_image_inspect(packed, size, &info));
  EXPECT_OK(tkrt_hip_check_code_object(&info, "gfx942:sramecc+:xnack-", 0));
  EXPECT_STATUS(tkrt_hip_check_code_object(&info, "gfx90a:sramecc+:xnack-", 0),
                TKRT_STATUS_INVALID_ARGUMENT, "HSACO targets gfx942 but device 0 is gfx90a");
  free(packed);
  free(cubin);
  /* The committed HIP builds of the conformance and core kernels: real gfx90a code objects. */
  static const char* const committed[2] = {"cts/kernels/cts_hip_gfx90a.hsaco",
                                           "core/kernels/core_kernels_gfx90a.hsaco"};
  for (int i = 0; i < 2; ++i) {
    char path[1024];
    snprintf(path, sizeof(path), "%s/%s", HOC_TEST_DIR, committed[i]);
    void* bytes = tkrt_test_read_file(path, &size);
    CHECK(bytes != NULL, "cannot read %s", path);
    if (!bytes) continue;
    EXPECT_OK(tkrt_image_inspect(bytes, size, &info));
    CHECK(info.kind == TKRT_IMAGE_HSACO && strcmp(info.arch, "gfx90a") == 0, "%s: %s %s", path,
          tkrt_image_kind_name(info.kind), info.arch);
    EXPECT_OK(tkrt_hip_check_code_object(&info, "gfx90a:sramecc+:xnack-", 0));
    EXPECT_STATUS(tkrt_hip_check_code_object(&info, "gfx942:sramecc+:xnack-", 0),
                  TKRT_STATUS_INVALID_ARGUMENT, "targets gfx90a");
    CHECK(hoc_elf_size(bytes, size) == size, "%s: size from headers differs", path);
    free(bytes);
  }
}

static void test_launch_rules(void) {
  unsigned int cuda_bx = 0;
  CHECK(hoc_wave64_block(256, 1, 1, &cuda_bx) && cuda_bx == 128, "4 warps -> %u", cuda_bx);
  CHECK(hoc_wave64_block(64, 1, 1, &cuda_bx) && cuda_bx == 32, "1 warp -> %u", cuda_bx);
  CHECK(!hoc_wave64_block(128 + 32, 1, 1, &cuda_bx), "160 threads are not whole wavefronts");
  CHECK(!hoc_wave64_block(1, 1, 1, &cuda_bx), "one thread");
  CHECK(!hoc_wave64_block(64, 2, 1, &cuda_bx), "2-D block");
  CHECK(!hoc_wave64_block(0, 1, 1, &cuda_bx), "empty block");
  static const char rules_text[] =
      "any-block cts_write_pid\nany-block cts_add_f32\ncuda-shared matmul_kernel 24576\n";
  size_t size = 0, cubin_size = 0;
  uint8_t* cubin = NULL;
  uint8_t* plain = pack_triton("add", "gfx942", &size, &cubin_size, &cubin);
  ASSERT_TRUE(plain != NULL);
  size_t hsaco_size = 0;
  char path[1024];
  snprintf(path, sizeof(path), "%s/add/hip_gfx942/add_kernel.hsaco", HOC_TRITON_DIR);
  uint8_t* hsaco = tkrt_test_read_file(path, &hsaco_size);
  char error[256] = "";
  uint8_t* packed = hsaco ? hoc_pack(hsaco, hsaco_size, cubin, cubin_size, rules_text, &size,
                                     error, sizeof(error))
                          : NULL;
  CHECK(packed != NULL, "pack with rules: %s", error);
  const uint8_t* rules = NULL;
  size_t rules_size = 0;
  if (packed && hoc_elf_section(packed, size, HOC_SECTION_LAUNCH, &rules, &rules_size)) {
    CHECK(hoc_launch_any_block(rules, rules_size, "cts_write_pid"), "rule 1");
    CHECK(hoc_launch_any_block(rules, rules_size, "cts_add_f32"), "rule 2");
    CHECK(!hoc_launch_any_block(rules, rules_size, "cts_add"), "prefix of a name");
    CHECK(!hoc_launch_any_block(rules, rules_size, "add_kernel"), "unlisted kernel");
    CHECK(!hoc_launch_any_block(rules, rules_size, "matmul_kernel"), "another rule's kernel");
    unsigned int bytes = 0;
    CHECK(hoc_launch_cuda_shared(rules, rules_size, "matmul_kernel", &bytes) && bytes == 24576,
          "cuda-shared %u", bytes);
    CHECK(!hoc_launch_cuda_shared(rules, rules_size, "cts_add_f32", &bytes), "no cuda-shared");
    EXPECT_OK(tkrt_image_inspect(packed, size, &(tkrt_image_info_t){0}));
  } else {
    TKRT_TEST_FAIL_("no launch rules section");
  }
  int major = 0, minor = 0;
  CHECK(hoc_arch_version("gfx942:sramecc+:xnack-", &major, &minor) && major == 9 && minor == 4,
        "gfx942 -> %d.%d", major, minor);
  CHECK(hoc_arch_version("gfx90a", &major, &minor) && major == 9 && minor == 0, "gfx90a -> %d.%d",
        major, minor);
  CHECK(hoc_arch_version("gfx1100", &major, &minor) && major == 11 && minor == 0,
        "gfx1100 -> %d.%d", major, minor);
  CHECK(!hoc_arch_version("sm_90", &major, &minor), "sm_90 is no gcnArchName");
  free(packed);
  free(hsaco);
  free(plain);
  free(cubin);
}

/* Every entry point the backend resolves (hip_symbols.h), in each build: ROCm 5 lacks only the
 * ROCm 6 ones (the R0600 properties and cooperative launches), as the real ROCm 5 does. */
static void test_exports(void) {
  static const char* const paths[3] = {HOC_RUNTIME_5, HOC_RUNTIME_6, HOC_RUNTIME_7};
  for (int v = 0; v < 3; ++v) {
    void* handle = dlopen(paths[v], RTLD_NOW | RTLD_LOCAL);
    CHECK(handle != NULL, "dlopen %s: %s", paths[v], dlerror());
    if (!handle) continue;
    int rocm = 5 + v;
    CHECK(dlsym(handle, "hipGetErrorName") != NULL, "%s lacks hipGetErrorName", paths[v]);
#define EXPECT_REQUIRED(name) \
  CHECK(dlsym(handle, #name) != NULL, "%s lacks required %s", paths[v], #name);
#define EXPECT_OPTIONAL(name)                                                                \
  {                                                                                          \
    bool rocm6_only = strcmp(#name, "hipGetDevicePropertiesR0600") == 0 ||                   \
                      strcmp(#name, "hipModuleLaunchCooperativeKernel") == 0;                \
    bool expected = rocm >= 6 || !rocm6_only;                                                \
    CHECK((dlsym(handle, #name) != NULL) == expected, "%s: %s %s", paths[v], #name,          \
          expected ? "missing" : "exported by a ROCm 5 build");                              \
  }
    TKRT_HIP_SYMBOLS(EXPECT_REQUIRED, EXPECT_OPTIONAL)
#undef EXPECT_REQUIRED
#undef EXPECT_OPTIONAL
    int (*version)(int*) = (int (*)(int*))dlsym(handle, "hipRuntimeGetVersion");
    int value = 0;
    CHECK(version && version(&value) == 0 && value / 10000000 == rocm, "%s: version %d", paths[v],
          value);
    /* never dlclose: the backend never does either, and the library keeps per-process state */
  }
}

/* Run with TKRT_HIP_LIBRARY naming one build and TKRT_HOC_LIBCUDA a missing file. */
static void test_no_cuda_driver(void) {
  const char* library = getenv("TKRT_HIP_LIBRARY");
  ASSERT_TRUE(library && getenv("TKRT_HOC_LIBCUDA"));
  void* handle = dlopen(library, RTLD_NOW | RTLD_LOCAL);
  ASSERT_TRUE(handle != NULL);
  hipError_t (*init)(unsigned) = (hipError_t (*)(unsigned))dlsym(handle, "hipInit");
  hipError_t (*count)(int*) = (hipError_t (*)(int*))dlsym(handle, "hipGetDeviceCount");
  hipError_t (*load)(hipModule_t*, const void*) =
      (hipError_t (*)(hipModule_t*, const void*))dlsym(handle, "hipModuleLoadData");
  hipError_t (*alloc)(void**, size_t) = (hipError_t (*)(void**, size_t))dlsym(handle, "hipMalloc");
  const char* (*name)(hipError_t) = (const char* (*)(hipError_t))dlsym(handle, "hipGetErrorName");
  ASSERT_TRUE(init && count && load && alloc && name);
  CHECK(init(0) == hipErrorNoDevice, "hipInit");
  int devices = 7;
  CHECK(count(&devices) == hipErrorNoDevice && devices == 0, "hipGetDeviceCount: %d", devices);
  hipModule_t module = NULL;
  CHECK(load(&module, "not an image") == hipErrorNoDevice && module == NULL, "hipModuleLoadData");
  void* ptr = NULL;
  CHECK(alloc(&ptr, 64) == hipErrorNoDevice && ptr == NULL, "hipMalloc");
  CHECK(strcmp(name(hipErrorNoDevice), "hipErrorNoDevice") == 0, "name %s",
        name(hipErrorNoDevice));
  /* Through tkrt: the backend reports the runtime as present but without a device. */
  tkrt_device_options_t options;
  tkrt_device_options_init(&options);
  options.backend = "hip";
  tkrt_device_t* device = NULL;
  EXPECT_STATUS(tkrt_device_open(&options, &device), TKRT_STATUS_UNAVAILABLE,
                "hipGetDeviceCount: hipErrorNoDevice (100)");
  CHECK(device == NULL, "a device was opened");
}

TKRT_TEST_MAIN(TKRT_TEST_CASE(test_pack_round_trip), TKRT_TEST_CASE(test_arch_checks_on_packed_hsaco),
               TKRT_TEST_CASE(test_launch_rules), TKRT_TEST_CASE(test_exports),
               TKRT_TEST_CASE(test_no_cuda_driver))
