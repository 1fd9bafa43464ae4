/* SPDX-License-Identifier: Apache-2.0 */
/* tkrt core: recognising the image bytes a jaxlib blob carries (module_image, HSACO files), and
 * reading ROCm's HSACO files once. Only headers are looked at: the backends validate the rest. */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "base/fs.h"
#include "base/image_detect.h"
#include "core/wire_internal.h"
#include "hal/hal.h"
#include "registry/registry.h"
#include "tkrt/image.h"

static bool tkrt_wire_has_prefix(const uint8_t* data, size_t size, const char* prefix) {
  size_t n = strlen(prefix);
  return size >= n && memcmp(data, prefix, n) == 0;
}

/* The kind comes from the HAL's detector, the arch from the image inspector; an image whose
 * headers do not inspect cleanly keeps its kind and no arch (its backend refuses it at load). */
void tkrt_wire_image_detect(const uint8_t* data, size_t size, tkrt_wire_image_facts_t* facts) {
  memset(facts, 0, sizeof(*facts));
  facts->kind = tkrt_image_detect(data, size);
  if (facts->kind == TKRT_IMAGE_AUTO) return;
  tkrt_kernel_image_t probe = {.kind = facts->kind};
  facts->backend = tkrt_kernel_image_backend(&probe);
  if (facts->kind == TKRT_IMAGE_FATBIN) return; /* several archs: the driver picks */
  tkrt_image_info_t* info = malloc(sizeof(*info));
  if (!info) return;
  info->struct_size = sizeof(*info);
  tkrt_status_t status = tkrt_image_inspect(data, size, info);
  if (!status && info->kind == facts->kind) {
    snprintf(facts->arch, sizeof(facts->arch), "%.*s", (int)sizeof(facts->arch) - 1, info->arch);
  }
  tkrt_status_free(status);
  free(info);
}

bool tkrt_wire_ptx_field_is_text(const uint8_t* data, size_t size) {
  return memchr(data, '\n', size) != NULL || memchr(data, '\r', size) != NULL ||
         tkrt_wire_has_prefix(data, size, ".version");
}

void tkrt_wire_cuda_arch(uint32_t compute_capability, char arch[TKRT_WIRE_ARCH_MAX]) {
  /* The backend that runs PTX names the arch jaxlib compiled it for (sm_90a for 90). */
  const tkrt_hal_backend_t* backend = tkrt_hal_registry_backend_for_kind(TKRT_IMAGE_PTX);
  arch[0] = '\0';
  if (backend && backend->arch_for_capability) {
    backend->arch_for_capability(compute_capability, arch, TKRT_WIRE_ARCH_MAX);
  }
}

tkrt_status_t tkrt_wire_read_file(const char* base_dir, const char* path, size_t limit,
                                  uint8_t** out_data, size_t* out_size) {
  tkrt_status_t status = NULL;
  char* joined = NULL;
  uint8_t* data = NULL;
  int fd = -1;
  const char* full = path;
  if (path[0] != '/' && base_dir && base_dir[0]) {
    size_t length = strlen(base_dir) + 1 + strlen(path) + 1;
    joined = malloc(length);
    if (!joined) return TKRT_STATUS_MAKE(TKRT_STATUS_RESOURCE_EXHAUSTED, "out of host memory");
    snprintf(joined, length, "%s/%s", base_dir, path);
    full = joined;
  }
  /* O_NONBLOCK: opening a FIFO must not hang the decoder; it is rejected below as not regular
   * (reads from regular files ignore the flag). */
  fd = open(full, O_RDONLY | O_CLOEXEC | O_NOCTTY | O_NONBLOCK);
  if (fd < 0) {
    int err = errno;
    status = TKRT_STATUS_MAKE(tkrt_fs_errno_code(err), "cannot open '%s': %s", full, strerror(err));
    goto cleanup;
  }
  struct stat st;
  if (fstat(fd, &st) != 0) {
    status = TKRT_STATUS_MAKE(TKRT_STATUS_UNKNOWN, "cannot stat '%s': %s", full, strerror(errno));
    goto cleanup;
  }
  if (!S_ISREG(st.st_mode)) {
    status = TKRT_STATUS_MAKE(TKRT_STATUS_INVALID_ARGUMENT, "'%s' is not a regular file", full);
    goto cleanup;
  }
  if (st.st_size <= 0 || (uint64_t)st.st_size > limit) {
    status = TKRT_STATUS_MAKE(TKRT_STATUS_INVALID_ARGUMENT,
                              "'%s' has %lld bytes; expected 1 to %zu", full,
                              (long long)st.st_size, limit);
    goto cleanup;
  }
  size_t size = (size_t)st.st_size;
  data = malloc(size);
  if (!data) {
    status = TKRT_STATUS_MAKE(TKRT_STATUS_RESOURCE_EXHAUSTED, "out of host memory");
    goto cleanup;
  }
  size_t done = 0;
  while (done < size) {
    ssize_t n = read(fd, data + done, size - done);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) {
      status = TKRT_STATUS_MAKE(TKRT_STATUS_UNKNOWN, "cannot read '%s': %s", full,
                                n < 0 ? strerror(errno) : "file shrank while reading");
      goto cleanup;
    }
    done += (size_t)n;
  }
  *out_data = data;
  *out_size = size;
  data = NULL;

cleanup:
  if (fd >= 0) close(fd);
  free(data);
  free(joined);
  return status;
}
