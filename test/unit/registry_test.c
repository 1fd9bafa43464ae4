/* SPDX-License-Identifier: Apache-2.0 */
/* Backend registry and selection: listing, explicit names, TKRT_BACKEND, the default order. */
#include <stdlib.h>

#include "test/harness.h"
#include "tkrt/tkrt.h"

static const tkrt_backend_info_t* find_info(const tkrt_backend_info_t* infos, size_t count,
                                            const char* name) {
  for (size_t i = 0; i < count; ++i) {
    if (strcmp(infos[i].name, name) == 0) return &infos[i];
  }
  return NULL;
}

static void test_list_backends(void) {
  tkrt_backend_info_t infos[8];
  size_t count = 0;
  ASSERT_OK(tkrt_backend_list(infos, 8, &count));
  /* The skeleton backend, in builds that have it, comes last; the rest is as always. */
  if (count > 1 && strcmp(infos[count - 1].name, "null") == 0) count--;
  EXPECT_TRUE(count >= 1 && count <= 3);
  const tkrt_backend_info_t* host = find_info(infos, count, "host");
  ASSERT_TRUE(host != NULL);
  EXPECT_TRUE(host->available);
  EXPECT_EQ_U64(host->device_count, 1);
  EXPECT_STREQ(host->reason, "1 device");
  /* Default order: cuda, hip, host. */
  EXPECT_STREQ(infos[count - 1].name, "host");
  if (count == 3) {
    EXPECT_STREQ(infos[0].name, "cuda");
    EXPECT_STREQ(infos[1].name, "hip");
  }
  for (size_t i = 0; i < count; ++i) {
    /* An unavailable backend always says why. */
    EXPECT_TRUE(infos[i].available || strlen(infos[i].reason) > 10);
    fprintf(stderr, "  %s: %s (%s)\n", infos[i].name,
            infos[i].available ? "available" : "unavailable", infos[i].reason);
  }
  size_t total = 0;
  EXPECT_OK(tkrt_backend_list(NULL, 0, &total));
  EXPECT_TRUE(total == count || (total == count + 1 && find_info(infos, total, "null")));
  EXPECT_STATUS(tkrt_backend_list(infos, 8, NULL), TKRT_STATUS_INVALID_ARGUMENT, NULL);
}

static tkrt_status_t open_backend(const char* backend, int ordinal, tkrt_device_t** out) {
  tkrt_device_options_t options;
  tkrt_device_options_init(&options);
  options.backend = backend;
  options.ordinal = ordinal;
  return tkrt_device_open(&options, out);
}

static void test_open_host_by_name(void) {
  tkrt_device_t* device = NULL;
  ASSERT_OK(open_backend("host", 0, &device));
  EXPECT_STREQ(tkrt_device_backend_name(device), "host");
  EXPECT_STREQ(tkrt_device_info(device)->backend, "host");
  tkrt_device_retain(device);
  tkrt_device_release(device);
  tkrt_device_release(device);
}

static void test_unknown_backend_names(void) {
  tkrt_device_t* device = NULL;
  EXPECT_STATUS(open_backend("metal", 0, &device), TKRT_STATUS_INVALID_ARGUMENT, "'metal'");
  /* A typo is reported even though an earlier backend in the list would open. */
  EXPECT_STATUS(open_backend("host,cdua", 0, &device), TKRT_STATUS_INVALID_ARGUMENT, "'cdua'");
  EXPECT_TRUE(device == NULL);
}

static void test_ordinal_out_of_range(void) {
  tkrt_device_t* device = NULL;
  EXPECT_STATUS(open_backend("host", 1, &device), TKRT_STATUS_OUT_OF_RANGE, "ordinal 1");
  EXPECT_STATUS(open_backend("host", -1, &device), TKRT_STATUS_INVALID_ARGUMENT, "negative");
  EXPECT_TRUE(device == NULL);
}

/* The GPU backends answer UNAVAILABLE with a reason on a machine without their device; where a
 * device exists they open it. Either way the answer agrees with tkrt_backend_list. */
static void test_gpu_backends_agree_with_listing(void) {
  tkrt_backend_info_t infos[8];
  size_t count = 0;
  ASSERT_OK(tkrt_backend_list(infos, 8, &count));
  const char* names[] = {"cuda", "hip"};
  for (int i = 0; i < 2; ++i) {
    const tkrt_backend_info_t* info = find_info(infos, count, names[i]);
    tkrt_device_t* device = NULL;
    tkrt_status_t status = open_backend(names[i], 0, &device);
    if (!info) {
      EXPECT_TRUE(tkrt_status_code(status) == TKRT_STATUS_UNAVAILABLE);
      EXPECT_TRUE(strstr(tkrt_status_message(status), "not compiled into this build") != NULL);
    } else if (!info->available) {
      EXPECT_TRUE(tkrt_status_code(status) == TKRT_STATUS_UNAVAILABLE);
      EXPECT_TRUE(status && strstr(tkrt_status_message(status), names[i]) != NULL);
    } else {
      EXPECT_TRUE(status == NULL && device != NULL);
    }
    tkrt_status_free(status);
    tkrt_device_release(device);
  }
}

static void test_environment_through_options(void) {
  tkrt_backend_info_t infos[8];
  size_t count = 0;
  ASSERT_OK(tkrt_backend_list(infos, 8, &count));
  tkrt_device_t* device = NULL;
  tkrt_device_options_t options;

  /* The library reads no environment: TKRT_BACKEND reaches it through the options. */
  setenv("TKRT_BACKEND", "metal", 1);
  ASSERT_OK(open_backend(NULL, 0, &device));
  tkrt_device_release(device);
  device = NULL;
  tkrt_device_options_init(&options);
  ASSERT_OK(tkrt_options_from_environment(&options, NULL));
  EXPECT_STREQ(options.backend, "metal");
  EXPECT_STATUS(tkrt_device_open(&options, &device), TKRT_STATUS_INVALID_ARGUMENT,
                "unknown backend 'metal'");

  setenv("TKRT_BACKEND", "host", 1);
  tkrt_device_options_init(&options);
  ASSERT_OK(tkrt_options_from_environment(&options, NULL));
  ASSERT_OK(tkrt_device_open(&options, &device));
  EXPECT_STREQ(tkrt_device_backend_name(device), "host");
  tkrt_device_release(device);
  device = NULL;

  /* A comma list is tried in order; GPU backends without a device fall through to host. */
  const tkrt_backend_info_t* cuda = find_info(infos, count, "cuda");
  const tkrt_backend_info_t* hip = find_info(infos, count, "hip");
  setenv("TKRT_BACKEND", " cuda , hip,host ", 1);
  tkrt_device_options_init(&options);
  ASSERT_OK(tkrt_options_from_environment(&options, NULL));
  ASSERT_OK(tkrt_device_open(&options, &device));
  const char* expected = cuda && cuda->available ? "cuda" : hip && hip->available ? "hip" : "host";
  EXPECT_STREQ(tkrt_device_backend_name(device), expected);
  tkrt_device_release(device);
  device = NULL;

  /* Nothing in the list can open: UNAVAILABLE, listing every attempt. */
  if (!(cuda && cuda->available) && !(hip && hip->available)) {
    tkrt_status_t status = open_backend("cuda,hip", 0, &device);
    EXPECT_TRUE(tkrt_status_code(status) == TKRT_STATUS_UNAVAILABLE);
    EXPECT_TRUE(status && strstr(tkrt_status_message(status), "cuda: ") != NULL);
    EXPECT_TRUE(status && strstr(tkrt_status_message(status), "hip: ") != NULL);
    EXPECT_TRUE(status && strstr(tkrt_status_message(status), "backend option") != NULL);
    tkrt_status_free(status);
  }
  unsetenv("TKRT_BACKEND");
  /* The default order opens the best available backend. */
  ASSERT_OK(open_backend(NULL, 0, &device));
  EXPECT_STREQ(tkrt_device_backend_name(device), expected);
  tkrt_device_release(device);
}

/* Aliases and the group "gpu" resolve the same everywhere a list of backends is read. */
static void test_aliases_and_the_gpu_group(void) {
  char out[64];
  ASSERT_OK(tkrt_backend_resolve("cpu", out, sizeof(out)));
  EXPECT_STREQ(out, "host");
  ASSERT_OK(tkrt_backend_resolve("rocm", out, sizeof(out)));
  EXPECT_STREQ(out, "hip");
  /* "gpu": every backend that runs on others' streams, in default order; never the host. */
  ASSERT_OK(tkrt_backend_resolve("gpu", out, sizeof(out)));
  EXPECT_STREQ(out, "cuda,hip");
  ASSERT_OK(tkrt_backend_resolve(" host , gpu ", out, sizeof(out)));
  EXPECT_STREQ(out, "host,cuda,hip");
  EXPECT_STATUS(tkrt_backend_resolve("gpus", out, sizeof(out)), TKRT_STATUS_INVALID_ARGUMENT,
                "unknown backend 'gpus'");
  EXPECT_STATUS(tkrt_backend_resolve("gpu", out, 4), TKRT_STATUS_INVALID_ARGUMENT, "needs 9 bytes");
  tkrt_device_t* device = NULL;
  ASSERT_OK(open_backend("cpu", 0, &device));
  EXPECT_STREQ(tkrt_device_backend_name(device), "host");
  tkrt_device_release(device);
  /* The group never opens the host, even where no GPU is present. */
  tkrt_status_t status = open_backend("gpu", 0, &device);
  if (!status) {
    EXPECT_TRUE(strcmp(tkrt_device_backend_name(device), "host") != 0);
    tkrt_device_release(device);
  } else {
    EXPECT_TRUE(strstr(tkrt_status_message(status), "host") == NULL);
    tkrt_status_free(status);
  }
}

static void test_describe(void) {
  tkrt_backend_description_t d = {.struct_size = sizeof(d)};
  ASSERT_OK(tkrt_backend_describe("cpu", &d));
  EXPECT_STREQ(d.name, "host");
  EXPECT_STREQ(d.triton_target, "host");
  EXPECT_TRUE(!d.foreign_streams);
  EXPECT_EQ_U64(d.image_kinds, 1u << TKRT_IMAGE_HOST);
  EXPECT_EQ_U64(d.native_code_kinds, 1u << TKRT_IMAGE_HOST);
  EXPECT_EQ_U64(d.dlpack_device_type_count, 3);
  EXPECT_EQ_U64(d.dlpack_device_types[0], 1); /* kDLCPU */
  ASSERT_OK(tkrt_backend_describe("cuda", &d));
  EXPECT_TRUE(d.foreign_streams);
  EXPECT_EQ_U64(d.image_kinds,
                (1u << TKRT_IMAGE_PTX) | (1u << TKRT_IMAGE_CUBIN) | (1u << TKRT_IMAGE_FATBIN));
  EXPECT_EQ_U64(d.native_code_kinds, 0);
  ASSERT_OK(tkrt_backend_describe("rocm", &d));
  EXPECT_STREQ(d.name, "hip");
  EXPECT_EQ_U64(d.image_kinds, 1u << TKRT_IMAGE_HSACO);
  EXPECT_STATUS(tkrt_backend_describe("gpu", &d), TKRT_STATUS_NOT_FOUND, "no backend is named 'gpu'");
  /* An older caller's smaller struct gets what fits. */
  struct { size_t struct_size; char name[TKRT_BACKEND_NAME_MAX]; } small = {sizeof(small), ""};
  ASSERT_OK(tkrt_backend_describe("host", (tkrt_backend_description_t*)(void*)&small));
  EXPECT_STREQ(small.name, "host");
  EXPECT_EQ_U64(small.struct_size, sizeof(small));
}

/* Every name a backend list takes, each resolving; what Python's device names come from. */
static void test_backend_names(void) {
  char names[128];
  ASSERT_OK(tkrt_backend_names(names, sizeof(names)));
  /* The skeleton backend follows the host where a CI build compiles it (TKRT_BACKEND_NULL). */
  tkrt_backend_description_t null_backend = {.struct_size = sizeof(null_backend)};
  tkrt_status_t has_null = tkrt_backend_describe("null", &null_backend);
  EXPECT_STREQ(names, has_null ? "cuda,hip,host,rocm,cpu,gpu" : "cuda,hip,host,null,rocm,cpu,gpu");
  char needs[64];
  snprintf(needs, sizeof(needs), "needs %zu bytes, not 8", strlen(names) + 1);
  tkrt_status_free(has_null);
  for (char* name = names; name;) {
    char* comma = strchr(name, ',');
    if (comma) *comma = '\0';
    char out[64];
    ASSERT_OK(tkrt_backend_resolve(name, out, sizeof(out)));
    name = comma ? comma + 1 : NULL;
  }
  EXPECT_STATUS(tkrt_backend_names(names, 8), TKRT_STATUS_INVALID_ARGUMENT, needs);
  EXPECT_STATUS(tkrt_backend_names(NULL, 0), TKRT_STATUS_INVALID_ARGUMENT, "no room");
}

/* Triton's asm keys and files per image kind come from the backend that loads the kind. */
static void test_image_kind_triton_files(void) {
  const char* key = "x";
  const char* extension = "x";
  ASSERT_OK(tkrt_image_kind_triton_files(TKRT_IMAGE_CUBIN, &key, &extension));
  EXPECT_STREQ(key, "cubin");
  EXPECT_STREQ(extension, ".cubin");
  ASSERT_OK(tkrt_image_kind_triton_files(TKRT_IMAGE_HSACO, &key, &extension));
  EXPECT_STREQ(key, "hsaco");
  ASSERT_OK(tkrt_image_kind_triton_files(TKRT_IMAGE_HOST, &key, &extension));
  EXPECT_TRUE(key == NULL); /* Triton's asm never holds a tkrt host image */
  EXPECT_STREQ(extension, ".so");
  ASSERT_OK(tkrt_image_kind_triton_files(TKRT_IMAGE_FATBIN, &key, &extension));
  EXPECT_TRUE(key == NULL && extension == NULL);
  EXPECT_STATUS(tkrt_image_kind_triton_files(TKRT_IMAGE_AUTO, &key, &extension),
                TKRT_STATUS_NOT_FOUND, "no backend loads image kind 0");
  EXPECT_STATUS(tkrt_image_kind_triton_files((tkrt_image_kind_t)31, &key, &extension),
                TKRT_STATUS_NOT_FOUND, "image kind 31");
  EXPECT_STATUS(tkrt_image_kind_triton_files(TKRT_IMAGE_PTX, NULL, &extension),
                TKRT_STATUS_INVALID_ARGUMENT, "NULL argument");
}

static void test_image_kind_names(void) {
  tkrt_image_kind_t kind = TKRT_IMAGE_AUTO;
  const tkrt_image_kind_t kinds[] = {TKRT_IMAGE_PTX, TKRT_IMAGE_CUBIN, TKRT_IMAGE_FATBIN,
                                     TKRT_IMAGE_HSACO, TKRT_IMAGE_HOST};
  for (size_t i = 0; i < sizeof(kinds) / sizeof(kinds[0]); ++i) {
    ASSERT_OK(tkrt_image_kind_from_name(tkrt_image_kind_name(kinds[i]), &kind));
    EXPECT_EQ_U64(kind, kinds[i]);
  }
  EXPECT_STATUS(tkrt_image_kind_from_name("elf", &kind), TKRT_STATUS_INVALID_ARGUMENT,
                "unknown image kind 'elf' (known: ptx, cubin, fatbin, hsaco, host)");
  EXPECT_STATUS(tkrt_image_kind_from_name("auto", &kind), TKRT_STATUS_INVALID_ARGUMENT, NULL);
}

/* {key, value} parameters reach their backend, which parses them; the old fields mean the same. */
static void test_backend_parameters(void) {
  tkrt_device_options_t options;
  tkrt_device_options_init(&options);
  options.backend = "host";
  tkrt_device_param_t params[] = {{"host.threads", "3"}};
  options.params = params;
  options.param_count = 1;
  tkrt_device_t* device = NULL;
  ASSERT_OK(tkrt_device_open(&options, &device));
  EXPECT_EQ_U64(tkrt_device_info(device)->sm_count, 3);
  tkrt_device_release(device);
  /* The parameter overrides the old field. */
  options.host_threads = 5;
  ASSERT_OK(tkrt_device_open(&options, &device));
  EXPECT_EQ_U64(tkrt_device_info(device)->sm_count, 3);
  tkrt_device_release(device);
  options.host_threads = 0;
  params[0].value = "three";
  EXPECT_STATUS(tkrt_device_open(&options, &device), TKRT_STATUS_INVALID_ARGUMENT,
                "backend parameter host.threads is 'three'");
  params[0].key = "host.thread";
  params[0].value = "3";
  EXPECT_STATUS(tkrt_device_open(&options, &device), TKRT_STATUS_INVALID_ARGUMENT,
                "unknown backend parameter host.thread; the host backend takes threads");
  params[0].key = "vulkan.threads";
  EXPECT_STATUS(tkrt_device_open(&options, &device), TKRT_STATUS_INVALID_ARGUMENT,
                "backend parameter 'vulkan.threads' names no backend");
  params[0].key = "threads";
  EXPECT_STATUS(tkrt_device_open(&options, &device), TKRT_STATUS_INVALID_ARGUMENT,
                "names no backend");
  /* Checked for a backend that is not opened too (and by the listing). */
  params[0].key = "cuda.cache";
  EXPECT_STATUS(tkrt_device_open(&options, &device), TKRT_STATUS_INVALID_ARGUMENT,
                "unknown backend parameter cuda.cache");
  size_t count = 0;
  EXPECT_STATUS(tkrt_backend_list_with_options(&options, NULL, 0, &count),
                TKRT_STATUS_INVALID_ARGUMENT, "cuda.cache");
  options.params = NULL;
  EXPECT_STATUS(tkrt_device_open(&options, &device), TKRT_STATUS_INVALID_ARGUMENT,
                "1 parameters but params is NULL");
}

/* The skeleton backend (TKRT_BACKEND_NULL=ON builds): listed, refused at probe, saying why. */
static void test_null_backend_is_refused(void) {
  tkrt_backend_description_t d = {.struct_size = sizeof(d)};
  tkrt_status_t status = tkrt_backend_describe("null", &d);
  if (status) {
    tkrt_status_free(status);
    TKRT_TEST_SKIP("this build has no null backend (TKRT_BACKEND_NULL=OFF)");
  }
  EXPECT_EQ_U64(d.image_kinds, 0);
  EXPECT_TRUE(!d.foreign_streams);
  tkrt_device_t* device = NULL;
  EXPECT_STATUS(open_backend("null", 0, &device), TKRT_STATUS_UNAVAILABLE,
                "the null backend is a skeleton (backends/null/README.md)");
  tkrt_backend_info_t infos[8];
  size_t count = 0;
  ASSERT_OK(tkrt_backend_list(infos, 8, &count));
  const tkrt_backend_info_t* info = find_info(infos, count, "null");
  ASSERT_TRUE(info != NULL);
  EXPECT_TRUE(!info->available);
  EXPECT_TRUE(strstr(info->reason, "skeleton") != NULL);
  /* Never in the "gpu" group, and the default order still opens the host. */
  char out[64];
  ASSERT_OK(tkrt_backend_resolve("gpu", out, sizeof(out)));
  EXPECT_STREQ(out, "cuda,hip");
}

TKRT_TEST_MAIN(TKRT_TEST_CASE(test_null_backend_is_refused),
               TKRT_TEST_CASE(test_aliases_and_the_gpu_group), TKRT_TEST_CASE(test_describe),
               TKRT_TEST_CASE(test_backend_names), TKRT_TEST_CASE(test_image_kind_triton_files),
               TKRT_TEST_CASE(test_image_kind_names), TKRT_TEST_CASE(test_backend_parameters),
               TKRT_TEST_CASE(test_list_backends), TKRT_TEST_CASE(test_open_host_by_name),
               TKRT_TEST_CASE(test_unknown_backend_names), TKRT_TEST_CASE(test_ordinal_out_of_range),
               TKRT_TEST_CASE(test_gpu_backends_agree_with_listing),
               TKRT_TEST_CASE(test_environment_through_options))
