/* tkrt core: recognising the image bytes a jaxlib blob carries (module_image, HSACO files), and
 * reading ROCm's HSACO files once. Only headers are looked at: the backends validate the rest. */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "core/wire_internal.h"

enum {
  TKRT_EM_X86_64 = 62,
  TKRT_EM_AARCH64 = 183,
  TKRT_EM_CUDA = 190,
  TKRT_EM_AMDGPU = 224,
};

static uint32_t tkrt_wire_rd16(const uint8_t* p, bool big) {
  return big ? ((uint32_t)p[0] << 8) | p[1] : ((uint32_t)p[1] << 8) | p[0];
}

static uint32_t tkrt_wire_rd32(const uint8_t* p, bool big) {
  return big ? ((uint32_t)p[0] << 24) | ((uint32_t)p[1] << 16) | ((uint32_t)p[2] << 8) | p[3]
             : ((uint32_t)p[3] << 24) | ((uint32_t)p[2] << 16) | ((uint32_t)p[1] << 8) | p[0];
}

/* EF_AMDGPU_MACH values (LLVM's ELF.h) of the processors Triton targets. */
static const char* tkrt_wire_amdgpu_mach_name(uint32_t mach) {
  switch (mach) {
    case 0x2c: return "gfx900";
    case 0x2f: return "gfx906";
    case 0x30: return "gfx908";
    case 0x33: return "gfx1010";
    case 0x36: return "gfx1030";
    case 0x3f: return "gfx90a";
    case 0x40: return "gfx940";
    case 0x41: return "gfx1100";
    case 0x43: return "gfx1150";
    case 0x46: return "gfx1101";
    case 0x47: return "gfx1102";
    case 0x48: return "gfx1200";
    case 0x4b: return "gfx941";
    case 0x4c: return "gfx942";
    case 0x4e: return "gfx1201";
    case 0x4f: return "gfx950";
  }
  return NULL;
}

static bool tkrt_wire_has_prefix(const uint8_t* data, size_t size, const char* prefix) {
  size_t n = strlen(prefix);
  return size >= n && memcmp(data, prefix, n) == 0;
}

void tkrt_wire_image_detect(const uint8_t* data, size_t size, tkrt_wire_image_facts_t* facts) {
  memset(facts, 0, sizeof(*facts));
  facts->kind = TKRT_IMAGE_AUTO;
  if (size >= 52 && memcmp(data, "\x7f" "ELF", 4) == 0) {
    bool is64 = data[4] == 2;
    bool big = data[5] == 2;
    if (is64 && size < 64) return;
    uint32_t machine = tkrt_wire_rd16(data + 18, big);
    uint32_t flags = tkrt_wire_rd32(data + (is64 ? 48 : 36), big);
    switch (machine) {
      case TKRT_EM_CUDA:
        facts->kind = TKRT_IMAGE_CUBIN;
        facts->backend = "cuda";
        break;
      case TKRT_EM_AMDGPU: {
        facts->kind = TKRT_IMAGE_HSACO;
        facts->backend = "hip";
        const char* name = tkrt_wire_amdgpu_mach_name(flags & 0xff);
        if (name) snprintf(facts->arch, sizeof(facts->arch), "%s", name);
        break;
      }
      case TKRT_EM_X86_64:
        facts->kind = TKRT_IMAGE_HOST;
        facts->backend = "host";
        snprintf(facts->arch, sizeof(facts->arch), "x86_64");
        break;
      case TKRT_EM_AARCH64:
        facts->kind = TKRT_IMAGE_HOST;
        facts->backend = "host";
        snprintf(facts->arch, sizeof(facts->arch), "aarch64");
        break;
    }
    return;
  }
  /* Fatbin container (0xBA55ED50) or its wrapper (0x466243B1), little-endian. */
  if (size >= 4) {
    uint32_t magic = tkrt_wire_rd32(data, false);
    if (magic == 0xBA55ED50u || magic == 0x466243B1u) {
      facts->kind = TKRT_IMAGE_FATBIN;
      facts->backend = "cuda";
      return;
    }
  }
  if (tkrt_wire_has_prefix(data, size, "//") || tkrt_wire_has_prefix(data, size, ".version")) {
    facts->kind = TKRT_IMAGE_PTX;
    facts->backend = "cuda";
  }
}

bool tkrt_wire_ptx_field_is_text(const uint8_t* data, size_t size) {
  return memchr(data, '\n', size) != NULL || memchr(data, '\r', size) != NULL ||
         tkrt_wire_has_prefix(data, size, ".version");
}

void tkrt_wire_cuda_arch(uint32_t compute_capability, char arch[TKRT_WIRE_ARCH_MAX]) {
  if (compute_capability == 0) {
    arch[0] = '\0';
  } else {
    snprintf(arch, TKRT_WIRE_ARCH_MAX, "sm_%u%s", compute_capability,
             compute_capability >= 90 ? "a" : "");
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
    tkrt_status_code_t code = err == ENOENT || err == ENOTDIR ? TKRT_STATUS_NOT_FOUND
                              : err == EACCES || err == EPERM ? TKRT_STATUS_PERMISSION_DENIED
                                                              : TKRT_STATUS_UNKNOWN;
    status = TKRT_STATUS_MAKE(code, "cannot open '%s': %s", full, strerror(err));
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
