/* SPDX-License-Identifier: Apache-2.0 */
/* tkrt triton: the signature a host image declares for a kernel (the `signature` string of its
 * exported tkrt_host_kernel__<name> descriptor, tkrt/host_kernel.h), read from the ELF bytes
 * without loading them, and its comparison with the parameter list of the TTIR beside it. The
 * host kernel takes its parameters by that signature: a TTIR that disagrees would make tkrt pass
 * a scalar where the kernel reads a pointer. Bounded reading of untrusted bytes. */
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "triton/triton_internal.h"
#include "tkrt/host_kernel.h"

#define TKRT_HOSTSIG_MAX 4096 /* longest signature string read */

typedef struct tkrt_hostsig_elf {
  const unsigned char* bytes;
  size_t size;
  uint64_t phoff, shoff;
  uint32_t phentsize, phnum, shentsize, shnum;
  uint32_t relative_type, abs64_type; /* the machine's R_*_RELATIVE and R_*_64 */
  /* Symbols and relocations left to look at: tables may overlap (a hostile image could list the
   * same large table in every section header), so the work is bounded by the file's size. */
  uint64_t budget;
} tkrt_hostsig_elf_t;

typedef struct tkrt_hostsig_section {
  uint32_t type, link;
  uint64_t offset, size, entsize;
} tkrt_hostsig_section_t;

static bool tkrt_hostsig_fits(const tkrt_hostsig_elf_t* e, uint64_t offset, uint64_t length) {
  return offset <= e->size && length <= e->size - offset;
}

static uint64_t tkrt_hostsig_le(const unsigned char* p, int bytes) {
  uint64_t value = 0;
  for (int i = bytes - 1; i >= 0; --i) value = value << 8 | p[i];
  return value;
}

/* The caller checked the range with tkrt_hostsig_fits. */
static uint64_t tkrt_hostsig_u(const tkrt_hostsig_elf_t* e, uint64_t at, int bytes) {
  return tkrt_hostsig_le(e->bytes + at, bytes);
}

static bool tkrt_hostsig_section(const tkrt_hostsig_elf_t* e, uint32_t index,
                                 tkrt_hostsig_section_t* out) {
  uint64_t at = e->shoff + (uint64_t)index * e->shentsize;
  if (index >= e->shnum || !tkrt_hostsig_fits(e, at, 64)) return false;
  out->type = (uint32_t)tkrt_hostsig_u(e, at + 4, 4);
  out->offset = tkrt_hostsig_u(e, at + 24, 8);
  out->size = tkrt_hostsig_u(e, at + 32, 8);
  out->link = (uint32_t)tkrt_hostsig_u(e, at + 40, 4);
  out->entsize = tkrt_hostsig_u(e, at + 56, 8);
  /* A SHT_NOBITS section has no bytes in the file: never read as data, whatever its size says. */
  return out->type != 8 /* SHT_NOBITS */ && tkrt_hostsig_fits(e, out->offset, out->size);
}

/* The file offset of `length` bytes at virtual address `vaddr`, all inside one loaded segment's
 * file bytes; with `length` 0, *out_available gets how many bytes follow there. */
static bool tkrt_hostsig_vaddr(const tkrt_hostsig_elf_t* e, uint64_t vaddr, uint64_t length,
                               uint64_t* out_offset, uint64_t* out_available) {
  for (uint32_t i = 0; i < e->phnum; ++i) {
    uint64_t at = e->phoff + (uint64_t)i * e->phentsize;
    if (!tkrt_hostsig_fits(e, at, 56) || tkrt_hostsig_u(e, at, 4) != 1 /* PT_LOAD */) continue;
    uint64_t offset = tkrt_hostsig_u(e, at + 8, 8), start = tkrt_hostsig_u(e, at + 16, 8);
    uint64_t filesz = tkrt_hostsig_u(e, at + 32, 8);
    if (vaddr < start || vaddr - start >= filesz || length > filesz - (vaddr - start)) continue;
    uint64_t file_offset = offset + (vaddr - start);
    if (!tkrt_hostsig_fits(e, file_offset, length)) return false;
    uint64_t available = filesz - (vaddr - start);
    if (available > e->size - file_offset) available = e->size - file_offset;
    *out_offset = file_offset;
    if (out_available) *out_available = available;
    return true;
  }
  return false;
}

/* Finds the defined symbol `name` in a symbol table section (.dynsym or .symtab). */
static bool tkrt_hostsig_find_symbol(tkrt_hostsig_elf_t* e,
                                     const tkrt_hostsig_section_t* table, const char* name,
                                     uint64_t* out_value, uint64_t* out_size) {
  tkrt_hostsig_section_t strings;
  if (table->entsize < 24 || !tkrt_hostsig_section(e, table->link, &strings) ||
      strings.type != 3 /* SHT_STRTAB */) {
    return false;
  }
  size_t name_length = strlen(name);
  uint64_t count = table->size / table->entsize;
  for (uint64_t i = 1; i < count; ++i) {
    if (e->budget == 0) return false;
    --e->budget;
    uint64_t at = table->offset + i * table->entsize;
    uint64_t name_offset = tkrt_hostsig_u(e, at, 4);
    if (tkrt_hostsig_u(e, at + 6, 2) == 0 /* SHN_UNDEF */) continue;
    if (name_offset >= strings.size || strings.size - name_offset < name_length + 1) continue;
    const unsigned char* text = e->bytes + strings.offset + name_offset;
    if (memcmp(text, name, name_length) != 0 || text[name_length] != '\0') continue;
    *out_value = tkrt_hostsig_u(e, at + 8, 8);
    *out_size = tkrt_hostsig_u(e, at + 16, 8);
    return true;
  }
  return false;
}

/* The value the dynamic loader stores at `vaddr` (a pointer field of the descriptor): from its
 * RELA relocation (RELATIVE: the addend; 64: the symbol's value plus the addend), else (RELR, or
 * relocations applied at link time) the bytes in the file. */
static bool tkrt_hostsig_pointer(tkrt_hostsig_elf_t* e, uint64_t vaddr, uint64_t* out) {
  for (uint32_t i = 1; i < e->shnum; ++i) {
    tkrt_hostsig_section_t rela;
    if (!tkrt_hostsig_section(e, i, &rela) || rela.type != 4 /* SHT_RELA */) continue;
    if (rela.entsize < 24) return false;
    uint64_t count = rela.size / rela.entsize;
    for (uint64_t r = 0; r < count; ++r) {
      if (e->budget == 0) return false;
      --e->budget;
      uint64_t at = rela.offset + r * rela.entsize;
      if (tkrt_hostsig_u(e, at, 8) != vaddr) continue;
      uint64_t info = tkrt_hostsig_u(e, at + 8, 8), addend = tkrt_hostsig_u(e, at + 16, 8);
      uint32_t type = (uint32_t)info, symbol = (uint32_t)(info >> 32);
      if (type == e->relative_type) {
        *out = addend;
        return true;
      }
      tkrt_hostsig_section_t symbols;
      /* The linked section must be a symbol table inside the file (a link to any other
       * section, say a SHT_NOBITS one with a huge size, would read past the bytes). */
      if (type != e->abs64_type || !tkrt_hostsig_section(e, rela.link, &symbols) ||
          (symbols.type != 11 /* SHT_DYNSYM */ && symbols.type != 2 /* SHT_SYMTAB */) ||
          symbols.entsize < 24 || symbol >= symbols.size / symbols.entsize) {
        return false;
      }
      uint64_t sym = symbols.offset + (uint64_t)symbol * symbols.entsize;
      if (tkrt_hostsig_u(e, sym + 6, 2) == 0) return false; /* defined elsewhere */
      *out = tkrt_hostsig_u(e, sym + 8, 8) + addend;
      return true;
    }
  }
  uint64_t offset = 0;
  if (!tkrt_hostsig_vaddr(e, vaddr, 8, &offset, NULL)) return false;
  *out = tkrt_hostsig_u(e, offset, 8);
  return *out != 0;
}

tkrt_status_t tkrt_triton_host_signature(const void* data, size_t size, const char* kernel,
                                         const char* what, char** out_signature) {
  *out_signature = NULL;
  tkrt_hostsig_elf_t e = {.bytes = data, .size = size, .budget = size / 8 + 65536};
  if (size < 64 || memcmp(data, "\x7f" "ELF", 4) != 0 || e.bytes[4] != 2 || e.bytes[5] != 1) {
    return NULL; /* not a 64-bit little-endian ELF: the loader refuses it anyway */
  }
  switch (tkrt_hostsig_u(&e, 18, 2)) {
    case 62: e.relative_type = 8, e.abs64_type = 1; break;        /* x86-64 */
    case 183: e.relative_type = 1027, e.abs64_type = 257; break;  /* aarch64 */
    default: return NULL; /* a machine the host backend does not run */
  }
  e.phoff = tkrt_hostsig_u(&e, 32, 8);
  e.shoff = tkrt_hostsig_u(&e, 40, 8);
  e.phentsize = (uint32_t)tkrt_hostsig_u(&e, 54, 2);
  e.phnum = (uint32_t)tkrt_hostsig_u(&e, 56, 2);
  e.shentsize = (uint32_t)tkrt_hostsig_u(&e, 58, 2);
  e.shnum = (uint32_t)tkrt_hostsig_u(&e, 60, 2);
  const char* why = NULL;
  if (e.phentsize < 56 || e.shentsize < 64 ||
      !tkrt_hostsig_fits(&e, e.phoff, (uint64_t)e.phnum * e.phentsize) ||
      !tkrt_hostsig_fits(&e, e.shoff, (uint64_t)e.shnum * e.shentsize)) {
    why = "its program or section headers are truncated";
  }
  char symbol[512];
  int length = snprintf(symbol, sizeof(symbol), "%s%s", TKRT_HOST_KERNEL_SYMBOL_PREFIX, kernel);
  if (!why && (length < 0 || (size_t)length >= sizeof(symbol))) why = "the kernel name is too long";
  uint64_t value = 0, symbol_size = 0;
  bool found = false;
  for (uint32_t pass = 0; !why && pass < 2 && !found; ++pass) {
    for (uint32_t i = 1; i < e.shnum && !found; ++i) {
      tkrt_hostsig_section_t table;
      if (!tkrt_hostsig_section(&e, i, &table)) continue;
      if (table.type != (pass == 0 ? 11u /* SHT_DYNSYM */ : 2u /* SHT_SYMTAB */)) continue;
      found = tkrt_hostsig_find_symbol(&e, &table, symbol, &value, &symbol_size);
    }
  }
  if (!why && !found) {
    why = e.budget == 0 ? "its symbol tables hold more entries than its size allows"
                        : "it exports no such descriptor";
  }
  /* The descriptor: abi_version (u32), static_shared_bytes (u32), name, signature, fn. */
  uint64_t offset = 0, available = 0, target = 0;
  if (!why && (symbol_size < 32 || !tkrt_hostsig_vaddr(&e, value, 32, &offset, NULL))) {
    why = "its descriptor lies outside the file's loaded bytes";
  }
  if (!why && tkrt_hostsig_u(&e, offset, 4) != TKRT_HOST_KERNEL_ABI_VERSION) {
    return NULL; /* another ABI: the host backend refuses it by name when it loads */
  }
  if (!why && !tkrt_hostsig_pointer(&e, value + 16, &target)) {
    why = e.budget == 0 ? "its relocation tables hold more entries than its size allows"
                        : "its descriptor's signature pointer has no relocation tkrt can read";
  }
  if (!why && (!tkrt_hostsig_vaddr(&e, target, 0, &offset, &available) ||
               !memchr(e.bytes + offset, '\0',
                       available < TKRT_HOSTSIG_MAX ? available : TKRT_HOSTSIG_MAX))) {
    why = "its signature string lies outside the file's loaded bytes or is not terminated";
  }
  if (why) {
    return TKRT_STATUS_MAKE(TKRT_STATUS_INVALID_ARGUMENT,
                            "%s: cannot read the signature it declares for kernel '%s' "
                            "(symbol %s): %s",
                            what, kernel, symbol, why);
  }
  const char* text = (const char*)e.bytes + offset;
  char* copy = malloc(strlen(text) + 1);
  if (!copy) return TKRT_STATUS_MAKE(TKRT_STATUS_RESOURCE_EXHAUSTED, "out of host memory");
  memcpy(copy, text, strlen(text) + 1);
  *out_signature = copy;
  return NULL;
}

/* A host signature's types as the host backend splits them (at commas, blanks trimmed, empty
 * ones skipped), unsigned integers spelled as the signed ones of their size (TTIR has no unsigned
 * types: Triton's u32 is an i32 there). Returns the count, at most `capacity`. */
#define TKRT_HOSTSIG_TYPE_MAX 64
static size_t tkrt_hostsig_split(const char* signature, char (*types)[TKRT_HOSTSIG_TYPE_MAX],
                                 size_t capacity, size_t* out_total) {
  size_t count = 0, total = 0;
  const char* cursor = signature;
  for (;;) {
    while (*cursor == ' ' || *cursor == ',') ++cursor;
    if (!*cursor) break;
    const char* end = cursor;
    while (*end && *end != ',') ++end;
    const char* last = end;
    while (last > cursor && last[-1] == ' ') --last;
    if (count < capacity) {
      const char* text = cursor;
      size_t length = (size_t)(last - cursor), used = 0;
      char* out = types[count++];
      if (text[0] == '*') out[used++] = *text++, --length;
      if (length >= 2 && text[0] == 'u' && text[1] >= '0' && text[1] <= '9') {
        out[used++] = 'i';
        ++text, --length;
      }
      snprintf(out + used, TKRT_HOSTSIG_TYPE_MAX - used, "%.*s", (int)length, text);
    }
    ++total;
    cursor = end;
  }
  *out_total = total;
  return count;
}

/* The host-side types of TTIR parameter `p`: its own type, or for a tensor descriptor the
 * decomposed form Triton's launcher passes where descriptors were not lowered to TMA (the base
 * pointer, shape as rank i64, strides as rank i64, the i1 padding flag, then the TTIR's hidden
 * shape as rank i32 and strides as rank i64). Returns the count written (at most `capacity`). */
static size_t tkrt_hostsig_expand(const tkrt_triton_param_t* p,
                                  char (*types)[TKRT_HOSTSIG_TYPE_MAX], size_t capacity) {
  size_t scratch = 0;
  if (p->kind != TKRT_PARAM_TMA) return tkrt_hostsig_split(p->type, types, capacity, &scratch);
  const char* element = p->type + strlen("tensordesc<");
  size_t element_length = strcspn(element, "[");
  size_t count = 0;
  uint32_t r = p->desc_rank;
  if (count < capacity) {
    snprintf(types[count++], TKRT_HOSTSIG_TYPE_MAX, "*%.*s", (int)element_length, element);
  }
  for (uint32_t k = 0; k < 4 * r + 1 && count < capacity; ++k) {
    const char* t = k < 2 * r ? "i64" : k == 2 * r ? "i1" : k < 3 * r + 1 ? "i32" : "i64";
    snprintf(types[count++], TKRT_HOSTSIG_TYPE_MAX, "%s", t);
  }
  return count;
}

tkrt_status_t tkrt_triton_check_host_signature(const tkrt_triton_param_t* params, size_t count,
                                               const char* ttir_path, const char* kernel,
                                               const char* signature, const char* image_path) {
  enum { kMax = TKRT_TRITON_MAX_PARAMS + 1 };
  enum { kExpand = 4 * TKRT_TMA_MAX_RANK + 2 };
  char(*host)[TKRT_HOSTSIG_TYPE_MAX] = malloc(kMax * sizeof(*host));
  char(*ttir)[TKRT_HOSTSIG_TYPE_MAX] = malloc(kExpand * sizeof(*ttir));
  if (!host || !ttir) {
    free(host);
    free(ttir);
    return TKRT_STATUS_MAKE(TKRT_STATUS_RESOURCE_EXHAUSTED, "out of host memory");
  }
  size_t declared = 0;
  size_t kept = tkrt_hostsig_split(signature, host, kMax, &declared);
  tkrt_status_t status = NULL;
  /* h walks the host signature; each TTIR parameter takes one entry (a descriptor its
   * decomposed form's 4 * rank + 2). */
  static const char kDecomposed[] =
      " (a tensor descriptor, which a host image takes decomposed: the base pointer, shape as "
      "rank i64, strides as rank i64, the i1 padding flag, shape as rank i32, strides as rank "
      "i64)";
  size_t h = 0;
  for (size_t i = 0; i < count && !status; ++i) {
    size_t n = tkrt_hostsig_expand(&params[i], ttir, kExpand);
    bool desc = params[i].kind == TKRT_PARAM_TMA;
    for (size_t k = 0; k < n && !status; ++k, ++h) {
      if (h >= kept) {
        status = TKRT_STATUS_MAKE(
            TKRT_STATUS_INVALID_ARGUMENT,
            "%s and %s disagree on kernel '%s': the TTIR has %zu parameters, the host image's "
            "signature \"%.200s\" %zu; the first that differs is parameter %zu ('%s' of the "
            "TTIR, missing from the host image)%s",
            ttir_path, image_path, kernel, count, signature, declared, i, params[i].name,
            desc ? kDecomposed : "");
      } else if (strcmp(host[h], ttir[k]) != 0) {
        status = TKRT_STATUS_MAKE(
            TKRT_STATUS_INVALID_ARGUMENT,
            "%s and %s disagree on kernel '%s': parameter %zu ('%s') is %s in the TTIR but %s "
            "in the host image's signature \"%.200s\"%s%s%s",
            ttir_path, image_path, kernel, i, params[i].name, desc ? ttir[k] : params[i].type,
            host[h], signature, desc ? " at its entry for " : "", desc ? params[i].type : "",
            desc ? kDecomposed : "");
      }
    }
  }
  if (!status && h < declared) {
    status = TKRT_STATUS_MAKE(
        TKRT_STATUS_INVALID_ARGUMENT,
        "%s and %s disagree on kernel '%s': the TTIR has %zu parameters, the host image's "
        "signature \"%.200s\" %zu; the first that differs is parameter %zu (%s of the host "
        "image, missing from the TTIR)",
        ttir_path, image_path, kernel, count, signature, declared, h, h < kept ? host[h] : "?");
  }
  free(host);
  free(ttir);
  return status;
}
