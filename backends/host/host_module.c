/* SPDX-License-Identifier: Apache-2.0 */
/* tkrt host backend: module images are native shared objects, loaded from memory through an
 * anonymous memfd so no file is ever written; kernels are found by their exported descriptor. */
#include <dlfcn.h>
#include <stdatomic.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "backends/host/host_internal.h"
#include "base/log.h"

#if defined(__x86_64__)
#define TKRT_HOST_ELF_MACHINE 62 /* EM_X86_64 */
#define TKRT_HOST_MACHINE_NAME "x86-64"
#elif defined(__aarch64__)
#define TKRT_HOST_ELF_MACHINE 183 /* EM_AARCH64 */
#define TKRT_HOST_MACHINE_NAME "aarch64"
#else
#error "the host backend supports x86-64 and aarch64 hosts"
#endif

typedef struct tkrt_host_module {
  void* handle; /* no file descriptor is held: the memfd is closed once dlopen has mapped it */
} tkrt_host_module_t;

/* Each load names its memfd by a path no other load of this process used. dlopen answers a path
 * it already loaded with that object, and a closed memfd's number (so /proc/self/fd/<n>) is
 * reused by the next image. The count is spelled between /proc/self/fd/ and the number in
 * components the kernel skips, one per binary digit, most significant first: "./" for 1, "/" for
 * 0 ("/proc/self/fd/././/7": count 6, fd 7). Distinct counts give distinct paths, at most 128
 * bytes longer. */
static atomic_uint_fast64_t tkrt_host_load_count;

static void tkrt_host_image_path(char* out, size_t capacity, uint64_t count, int fd) {
  size_t used = (size_t)snprintf(out, capacity, "/proc/self/fd/");
  int top = 63;
  while (top >= 0 && !(count >> top & 1u)) --top;
  for (int bit = top; bit >= 0 && used + 3 < capacity; --bit) {
    if (count >> bit & 1u) out[used++] = '.';
    out[used++] = '/';
  }
  snprintf(out + used, capacity - used, "%d", fd);
}

static bool tkrt_host_out_of_descriptors(int error, const char* why) {
  return error == EMFILE || error == ENFILE ||
         (why && (strstr(why, strerror(EMFILE)) || strstr(why, strerror(ENFILE))));
}

/* The loader could not map the image because the process's memory mappings (vm.max_map_count) or
 * its address space are used up. glibc's message says ENOMEM's text, or only "failed to map
 * segment" (with errno cleared), which a noexec memfd gives too: then a mapping of the image's size
 * is tried here, and failing with ENOMEM it tells. */
static bool tkrt_host_out_of_memory(int error, const char* why, size_t image_size) {
  if (error == ENOMEM || (why && strstr(why, strerror(ENOMEM)))) return true;
  if (!why || !strstr(why, "failed to map segment")) return false;
  size_t bytes = image_size + ((size_t)64 << 10);
  void* probe = mmap(NULL, bytes, PROT_READ, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (probe == MAP_FAILED) return errno == ENOMEM;
  munmap(probe, bytes);
  return false;
}

/* A number from the first line of a /proc file (-1 when it cannot be read). */
static long tkrt_host_proc_number(const char* path) {
  FILE* f = fopen(path, "re");
  long value = -1;
  if (f) {
    if (fscanf(f, "%ld", &value) != 1) value = -1;
    fclose(f);
  }
  return value;
}

/* The process's memory mappings now (lines of /proc/self/maps; -1 when unknown). */
static long tkrt_host_mappings(void) {
  FILE* f = fopen("/proc/self/maps", "re");
  if (!f) return -1;
  long lines = 0;
  for (int c; (c = getc(f)) != EOF;) lines += c == '\n';
  fclose(f);
  return lines;
}

static const char* tkrt_host_machine_name(unsigned machine) {
  switch (machine) {
    case 3: return "i386";
    case 40: return "ARM";
    case 62: return "x86-64";
    case 183: return "aarch64";
    case 190: return "NVIDIA CUDA";
    case 224: return "AMD GPU";
    case 243: return "RISC-V";
  }
  return "unknown";
}

static uint64_t tkrt_host_read_u64(const unsigned char* p) {
  uint64_t value = 0;
  for (int i = 7; i >= 0; --i) value = value << 8 | p[i];
  return value;
}

/* Rejects what dlopen would reject with a less helpful message (or, worse, accept). */
static tkrt_status_t tkrt_host_check_elf(const unsigned char* bytes, size_t size) {
  if (size < 64 || memcmp(bytes, "\x7f" "ELF", 4) != 0) {
    return TKRT_STATUS_MAKE(TKRT_STATUS_INVALID_ARGUMENT,
                            "host image is not an ELF shared object (%zu bytes)", size);
  }
  if (bytes[4] != 2 || bytes[5] != 1) {
    return TKRT_STATUS_MAKE(TKRT_STATUS_INVALID_ARGUMENT,
                            "host image is not a 64-bit little-endian ELF (class %u, data %u)",
                            bytes[4], bytes[5]);
  }
  unsigned type = bytes[16] | (unsigned)bytes[17] << 8;
  unsigned machine = bytes[18] | (unsigned)bytes[19] << 8;
  if (machine != TKRT_HOST_ELF_MACHINE) {
    return TKRT_STATUS_MAKE(TKRT_STATUS_INVALID_ARGUMENT,
                            "host image is built for machine %u (%s), not this host (%s)", machine,
                            tkrt_host_machine_name(machine), TKRT_HOST_MACHINE_NAME);
  }
  if (type != 3 /* ET_DYN */) {
    return TKRT_STATUS_MAKE(TKRT_STATUS_INVALID_ARGUMENT,
                            "host image has ELF type %u; a shared object (ET_DYN) is needed",
                            type);
  }
  /* The loader maps segments straight from the file: a truncated image would load and then
   * fault on first touch, so every segment and the section table must lie inside the bytes. */
  uint64_t phoff = tkrt_host_read_u64(bytes + 32), shoff = tkrt_host_read_u64(bytes + 40);
  unsigned phentsize = bytes[54] | (unsigned)bytes[55] << 8, phnum = bytes[56] | (unsigned)bytes[57] << 8;
  unsigned shentsize = bytes[58] | (unsigned)bytes[59] << 8, shnum = bytes[60] | (unsigned)bytes[61] << 8;
  if (phentsize < 56 || phnum == 0 || phoff > size || (uint64_t)phentsize * phnum > size - phoff) {
    return TKRT_STATUS_MAKE(TKRT_STATUS_INVALID_ARGUMENT,
                            "host image is truncated or corrupt: program headers (%u x %u bytes at "
                            "offset %llu) do not fit in %zu bytes",
                            phnum, phentsize, (unsigned long long)phoff, size);
  }
  if (shnum && (shoff > size || (uint64_t)shentsize * shnum > size - shoff)) {
    return TKRT_STATUS_MAKE(TKRT_STATUS_INVALID_ARGUMENT,
                            "host image is truncated or corrupt: section headers (%u x %u bytes at "
                            "offset %llu) do not fit in %zu bytes",
                            shnum, shentsize, (unsigned long long)shoff, size);
  }
  for (unsigned i = 0; i < phnum; ++i) {
    const unsigned char* ph = bytes + phoff + (uint64_t)i * phentsize;
    uint32_t p_type = (uint32_t)ph[0] | (uint32_t)ph[1] << 8 | (uint32_t)ph[2] << 16 |
                      (uint32_t)ph[3] << 24;
    uint64_t offset = tkrt_host_read_u64(ph + 8), filesz = tkrt_host_read_u64(ph + 32);
    if (p_type == 1 /* PT_LOAD */ && (offset > size || filesz > size - offset)) {
      return TKRT_STATUS_MAKE(TKRT_STATUS_INVALID_ARGUMENT,
                              "host image is truncated or corrupt: segment %u (%llu bytes at "
                              "offset %llu) lies outside the %zu-byte image",
                              i, (unsigned long long)filesz, (unsigned long long)offset, size);
    }
  }
  return NULL;
}

tkrt_status_t tkrt_host_module_load(tkrt_device_t* device, const tkrt_image_t* image,
                                    void** out_module) {
  tkrt_host_device_t* host = tkrt_host_device_cast(device);
  if (image->kind != TKRT_IMAGE_HOST) {
    return TKRT_STATUS_MAKE(TKRT_STATUS_INVALID_ARGUMENT,
                            "the host backend loads host images (native shared objects), not %s",
                            tkrt_image_kind_name(image->kind));
  }
  if (atomic_load(&host->capturing_streams) > 0) {
    return TKRT_STATUS_MAKE(TKRT_STATUS_FAILED_PRECONDITION,
                            "cannot load a module while a stream of the device is capturing");
  }
  TKRT_RETURN_IF_ERROR(tkrt_host_check_elf(image->data, image->size));

  tkrt_host_module_t* module = calloc(1, sizeof(*module));
  if (!module) return TKRT_STATUS_MAKE(TKRT_STATUS_RESOURCE_EXHAUSTED, "out of host memory");
  tkrt_status_t status = NULL;
  int fd = memfd_create("tkrt-host-image", MFD_CLOEXEC);
  if (fd < 0) {
    int error = errno;
    status = TKRT_STATUS_MAKE(error == EMFILE || error == ENFILE || error == ENOMEM
                                  ? TKRT_STATUS_RESOURCE_EXHAUSTED
                                  : TKRT_STATUS_UNAVAILABLE,
                              "cannot load the host image: memfd_create failed: %s (loading needs "
                              "two free file descriptors for a moment; loaded modules hold none)",
                              strerror(error));
    goto fail;
  }
  const unsigned char* bytes = image->data;
  for (size_t written = 0; written < image->size;) {
    ssize_t n = write(fd, bytes + written, image->size - written);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) {
      status = TKRT_STATUS_MAKE(TKRT_STATUS_RESOURCE_EXHAUSTED,
                                "writing the host image to its memfd failed: %s",
                                n < 0 ? strerror(errno) : "short write");
      goto fail;
    }
    written += (size_t)n;
  }
  char path[64 + 2 * 64];
  tkrt_host_image_path(path, sizeof(path), atomic_fetch_add(&tkrt_host_load_count, 1), fd);
  errno = 0;
  module->handle = dlopen(path, RTLD_NOW | RTLD_LOCAL);
  if (!module->handle) {
    int error = errno;
    const char* why = dlerror();
    if (tkrt_host_out_of_descriptors(error, why)) {
      status = TKRT_STATUS_MAKE(TKRT_STATUS_RESOURCE_EXHAUSTED,
                                "cannot load the host image: the process is out of file "
                                "descriptors (loading needs two free ones for a moment; loaded "
                                "modules hold none): %s",
                                why ? why : strerror(error));
    } else if (tkrt_host_out_of_memory(error, why, image->size)) {
      char detail[128] = "";
      long used = tkrt_host_mappings(), limit = tkrt_host_proc_number("/proc/sys/vm/max_map_count");
      if (used >= 0 && limit > 0) {
        snprintf(detail, sizeof(detail), " (it holds %ld memory mappings of vm.max_map_count %ld)",
                 used, limit);
      }
      status = TKRT_STATUS_MAKE(TKRT_STATUS_RESOURCE_EXHAUSTED,
                                "cannot load the host image: the process is out of memory "
                                "mappings or memory%s; each loaded host module maps a few: "
                                "unload modules (close prepared launches, release calls) or raise "
                                "vm.max_map_count: %s",
                                detail, why ? why : strerror(error));
    } else {
      status = TKRT_STATUS_MAKE(TKRT_STATUS_INVALID_ARGUMENT,
                                "the loader rejected the host image: %s",
                                why ? why : "unknown error");
    }
    goto fail;
  }
  /* The mapping keeps the memfd's pages alive; the descriptor is not needed any more. Nothing is
   * in any file system: the memfd is anonymous. */
  close(fd);
  TKRT_LOG_AT(TKRT_LOG_DEBUG, "host", "loaded a %zu-byte host image from memory", image->size);
  *out_module = module;
  return NULL;

fail:
  if (fd >= 0) close(fd);
  free(module);
  return status;
}

void tkrt_host_module_unload(tkrt_device_t* device, void* raw) {
  tkrt_host_module_t* module = raw;
  if (!module) return;
  /* Kernels still queued on a stream would lose their code: wait for the device first. */
  tkrt_host_device_drain(tkrt_host_device_cast(device));
  dlclose(module->handle);
  free(module);
}

tkrt_status_t tkrt_host_parse_signature(const char* kernel, const char* signature,
                                        tkrt_host_function_t* function) {
  static const struct {
    const char* name;
    uint32_t size;
  } types[] = {{"i1", 1},   {"i8", 1},   {"u8", 1},   {"i16", 2},  {"u16", 2},
               {"fp16", 2}, {"bf16", 2}, {"i32", 4},  {"u32", 4},  {"fp32", 4},
               {"i64", 8},  {"u64", 8},  {"fp64", 8}};
  uint32_t count = 0, offset = 0;
  const char* cursor = signature;
  while (*cursor) {
    while (*cursor == ' ' || *cursor == ',') ++cursor;
    if (!*cursor) break;
    const char* end = cursor;
    while (*end && *end != ',') ++end;
    const char* last = end;
    while (last > cursor && last[-1] == ' ') --last;
    size_t length = (size_t)(last - cursor);
    uint32_t size = 0;
    if (*cursor == '*') {
      size = (uint32_t)sizeof(void*);
    } else {
      for (size_t t = 0; t < sizeof(types) / sizeof(types[0]); ++t) {
        if (strlen(types[t].name) == length && memcmp(types[t].name, cursor, length) == 0) {
          size = types[t].size;
        }
      }
    }
    if (size == 0) {
      return TKRT_STATUS_MAKE(TKRT_STATUS_INVALID_ARGUMENT,
                              "host kernel '%s': signature '%s' has an unknown type '%.*s' at "
                              "parameter %u",
                              kernel, signature, (int)length, cursor, count);
    }
    if (count == TKRT_HOST_MAX_PARAMS) {
      return TKRT_STATUS_MAKE(TKRT_STATUS_INVALID_ARGUMENT,
                              "host kernel '%s' declares more than %u parameters", kernel,
                              TKRT_HOST_MAX_PARAMS);
    }
    offset = (offset + size - 1) / size * size; /* natural alignment */
    function->param_size[count] = size;
    function->param_offset[count] = offset;
    offset += size;
    ++count;
    cursor = end;
  }
  function->param_count = count;
  function->param_bytes = offset;
  return NULL;
}

tkrt_status_t tkrt_host_function_create(tkrt_device_t* device, void* raw, const char* name,
                                        tkrt_hal_function_info_t* out_info) {
  (void)device;
  tkrt_host_module_t* module = raw;
  char symbol[512];
  int length = snprintf(symbol, sizeof(symbol), "%s%s", TKRT_HOST_KERNEL_SYMBOL_PREFIX, name);
  if (length < 0 || (size_t)length >= sizeof(symbol)) {
    return TKRT_STATUS_MAKE(TKRT_STATUS_INVALID_ARGUMENT, "kernel name '%.64s...' is too long",
                            name);
  }
  dlerror();
  const tkrt_host_kernel_desc_t* desc = dlsym(module->handle, symbol);
  if (!desc) {
    return TKRT_STATUS_MAKE(TKRT_STATUS_NOT_FOUND,
                            "kernel '%s' not found in the host image (no exported symbol %s; "
                            "declare kernels with TKRT_HOST_KERNEL)",
                            name, symbol);
  }
  if (desc->abi_version != TKRT_HOST_KERNEL_ABI_VERSION || !desc->fn || !desc->signature) {
    return TKRT_STATUS_MAKE(TKRT_STATUS_INVALID_ARGUMENT,
                            "host kernel '%s' has ABI version %u (this tkrt expects %u) or no body",
                            name, desc->abi_version, TKRT_HOST_KERNEL_ABI_VERSION);
  }
  if (desc->static_shared_bytes > TKRT_HOST_SHARED_DEFAULT) {
    return TKRT_STATUS_MAKE(TKRT_STATUS_INVALID_ARGUMENT,
                            "host kernel '%s' declares %u bytes of static shared memory, over "
                            "the %u byte limit",
                            name, desc->static_shared_bytes, TKRT_HOST_SHARED_DEFAULT);
  }
  tkrt_host_function_t* function = calloc(1, sizeof(*function));
  if (!function) return TKRT_STATUS_MAKE(TKRT_STATUS_RESOURCE_EXHAUSTED, "out of host memory");
  tkrt_status_t status = tkrt_host_parse_signature(name, desc->signature, function);
  if (status) {
    free(function);
    return status;
  }
  function->desc = desc;
  out_info->handle = function;
  out_info->static_shared_bytes = desc->static_shared_bytes;
  out_info->dynamic_shared_limit = TKRT_HOST_SHARED_DEFAULT - desc->static_shared_bytes;
  return NULL;
}

void tkrt_host_function_destroy(tkrt_device_t* device, void* function) {
  (void)device;
  free(function);
}

tkrt_status_t tkrt_host_function_attrs(tkrt_device_t* device, void* function,
                                       tkrt_function_attrs_t* out_attrs) {
  (void)device;
  (void)function;
  out_attrs->max_threads_per_block = TKRT_HOST_MAX_THREADS_PER_BLOCK;
  out_attrs->num_regs = 0;
  return NULL;
}

