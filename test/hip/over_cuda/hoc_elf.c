/* SPDX-License-Identifier: Apache-2.0 */
/* hip-over-cuda: ELF64 reading and the pack step (AMDGPU code object + cubin + launch rules),
 * shared by the runtime, the pack tool and the CPU tests. Headers are copied out, never cast in
 * place: the caller's bytes need not be aligned. */
#include "test/hip/over_cuda/hoc_elf.h"

#include <elf.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static bool hoc_read_ehdr(const void* image, size_t size, Elf64_Ehdr* out) {
  if (!image || size < sizeof(Elf64_Ehdr)) return false;
  memcpy(out, image, sizeof(*out));
  return memcmp(out->e_ident, ELFMAG, SELFMAG) == 0 && out->e_ident[EI_CLASS] == ELFCLASS64 &&
         out->e_ident[EI_DATA] == ELFDATA2LSB &&
         (out->e_shnum == 0 || out->e_shentsize == sizeof(Elf64_Shdr)) &&
         (out->e_phnum == 0 || out->e_phentsize == sizeof(Elf64_Phdr));
}

/* Whether [offset, offset + length) lies within `size`, without overflow. */
static bool hoc_within(uint64_t offset, uint64_t length, size_t size) {
  return offset <= size && length <= size - offset;
}

static bool hoc_read_shdr(const uint8_t* image, size_t size, const Elf64_Ehdr* ehdr, size_t index,
                          Elf64_Shdr* out) {
  uint64_t at = ehdr->e_shoff + (uint64_t)index * sizeof(Elf64_Shdr);
  if (index >= ehdr->e_shnum || !hoc_within(at, sizeof(Elf64_Shdr), size)) return false;
  memcpy(out, image + at, sizeof(*out));
  return true;
}

size_t hoc_elf_size(const void* image, size_t limit) {
  const uint8_t* bytes = image;
  Elf64_Ehdr ehdr;
  if (!hoc_read_ehdr(image, limit, &ehdr)) return 0;
  uint64_t end = sizeof(ehdr);
  uint64_t sh_end = ehdr.e_shoff + (uint64_t)ehdr.e_shnum * sizeof(Elf64_Shdr);
  uint64_t ph_end = ehdr.e_phoff + (uint64_t)ehdr.e_phnum * sizeof(Elf64_Phdr);
  if (!hoc_within(0, sh_end, limit) || !hoc_within(0, ph_end, limit)) return 0;
  if (sh_end > end) end = sh_end;
  if (ph_end > end) end = ph_end;
  for (size_t i = 0; i < ehdr.e_shnum; ++i) {
    Elf64_Shdr shdr;
    if (!hoc_read_shdr(bytes, limit, &ehdr, i, &shdr)) return 0;
    if (shdr.sh_type == SHT_NOBITS) continue;
    if (!hoc_within(shdr.sh_offset, shdr.sh_size, limit)) return 0;
    if (shdr.sh_offset + shdr.sh_size > end) end = shdr.sh_offset + shdr.sh_size;
  }
  for (size_t i = 0; i < ehdr.e_phnum; ++i) {
    Elf64_Phdr phdr;
    memcpy(&phdr, bytes + ehdr.e_phoff + i * sizeof(phdr), sizeof(phdr));
    if (!hoc_within(phdr.p_offset, phdr.p_filesz, limit)) return 0;
    if (phdr.p_offset + phdr.p_filesz > end) end = phdr.p_offset + phdr.p_filesz;
  }
  return (size_t)end;
}

bool hoc_elf_header(const void* image, size_t size, uint16_t* out_machine, uint32_t* out_flags) {
  Elf64_Ehdr ehdr;
  if (!hoc_read_ehdr(image, size, &ehdr)) return false;
  *out_machine = ehdr.e_machine;
  *out_flags = ehdr.e_flags;
  return true;
}

/* The section-name string table; false when missing or out of bounds. */
static bool hoc_shstrtab(const uint8_t* image, size_t size, const Elf64_Ehdr* ehdr,
                         Elf64_Shdr* out) {
  return ehdr->e_shstrndx != SHN_UNDEF && hoc_read_shdr(image, size, ehdr, ehdr->e_shstrndx, out) &&
         hoc_within(out->sh_offset, out->sh_size, size);
}

/* The NUL-terminated string at `offset` of a string table, or NULL. */
static const char* hoc_string(const uint8_t* image, const Elf64_Shdr* table, uint64_t offset) {
  if (offset >= table->sh_size) return NULL;
  const char* start = (const char*)image + table->sh_offset + offset;
  return memchr(start, '\0', table->sh_size - offset) ? start : NULL;
}

bool hoc_elf_section(const void* image, size_t size, const char* name, const uint8_t** out_data,
                     size_t* out_size) {
  const uint8_t* bytes = image;
  Elf64_Ehdr ehdr;
  Elf64_Shdr names;
  if (!hoc_read_ehdr(image, size, &ehdr) || !hoc_shstrtab(bytes, size, &ehdr, &names)) {
    return false;
  }
  for (size_t i = 0; i < ehdr.e_shnum; ++i) {
    Elf64_Shdr shdr;
    if (!hoc_read_shdr(bytes, size, &ehdr, i, &shdr)) return false;
    const char* section_name = hoc_string(bytes, &names, shdr.sh_name);
    if (!section_name || strcmp(section_name, name) != 0) continue;
    if (shdr.sh_type == SHT_NOBITS || !hoc_within(shdr.sh_offset, shdr.sh_size, size)) {
      return false;
    }
    *out_data = bytes + shdr.sh_offset;
    *out_size = (size_t)shdr.sh_size;
    return true;
  }
  return false;
}

bool hoc_elf_has_symbol(const void* image, size_t size, const char* name) {
  const uint8_t* bytes = image;
  Elf64_Ehdr ehdr;
  if (!hoc_read_ehdr(image, size, &ehdr)) return false;
  for (size_t i = 0; i < ehdr.e_shnum; ++i) {
    Elf64_Shdr symtab, strtab;
    if (!hoc_read_shdr(bytes, size, &ehdr, i, &symtab)) return false;
    if (symtab.sh_type != SHT_SYMTAB && symtab.sh_type != SHT_DYNSYM) continue;
    if (!hoc_within(symtab.sh_offset, symtab.sh_size, size) ||
        !hoc_read_shdr(bytes, size, &ehdr, symtab.sh_link, &strtab) ||
        !hoc_within(strtab.sh_offset, strtab.sh_size, size)) {
      continue;
    }
    for (uint64_t at = 0; at + sizeof(Elf64_Sym) <= symtab.sh_size; at += sizeof(Elf64_Sym)) {
      Elf64_Sym sym;
      memcpy(&sym, bytes + symtab.sh_offset + at, sizeof(sym));
      if (sym.st_shndx == SHN_UNDEF) continue;
      const char* symbol = hoc_string(bytes, &strtab, sym.st_name);
      if (symbol && strcmp(symbol, name) == 0) return true;
    }
  }
  return false;
}

const char* hoc_amdgpu_processor(uint32_t e_flags) {
  /* EF_AMDGPU_MACH_AMDGCN_* values of the LLVM AMDGPU ELF ABI for the processors Triton targets. */
  switch (e_flags & 0xffu) {
    case 0x2f: return "gfx906";
    case 0x30: return "gfx908";
    case 0x3f: return "gfx90a";
    case 0x40: return "gfx940";
    case 0x4b: return "gfx941";
    case 0x4c: return "gfx942";
    case 0x36: return "gfx1030";
    case 0x41: return "gfx1100";
    default: return NULL;
  }
}

bool hoc_arch_version(const char* processor, int* out_major, int* out_minor) {
  size_t length = strcspn(processor, ":");
  if (length < 6 || strncmp(processor, "gfx", 3) != 0) return false;
  int major = 0;
  for (size_t i = 3; i < length - 2; ++i) {
    if (processor[i] < '0' || processor[i] > '9') return false;
    major = major * 10 + (processor[i] - '0');
  }
  char minor = processor[length - 2];
  *out_major = major;
  *out_minor = minor >= '0' && minor <= '9' ? minor - '0' : 0;
  return true;
}

static size_t hoc_align(size_t value, size_t alignment) {
  return (value + alignment - 1) / alignment * alignment;
}

uint8_t* hoc_pack(const uint8_t* hsaco, size_t hsaco_size, const uint8_t* cubin, size_t cubin_size,
                  const char* rules_text, size_t* out_size, char* error, size_t error_capacity) {
  Elf64_Ehdr ehdr;
  Elf64_Shdr names;
  const uint8_t* existing = NULL;
  size_t existing_size = 0;
  if (!hoc_read_ehdr(hsaco, hsaco_size, &ehdr) || ehdr.e_machine != HOC_EM_AMDGPU ||
      hoc_elf_size(hsaco, hsaco_size) != hsaco_size ||
      !hoc_shstrtab(hsaco, hsaco_size, &ehdr, &names)) {
    snprintf(error, error_capacity, "not an AMDGPU ELF64 code object (or trailing bytes after it)");
    return NULL;
  }
  if (hoc_elf_section(hsaco, hsaco_size, HOC_SECTION_CUBIN, &existing, &existing_size)) {
    snprintf(error, error_capacity, "the code object already has a %s section", HOC_SECTION_CUBIN);
    return NULL;
  }
  if (!cubin || cubin_size == 0) {
    snprintf(error, error_capacity, "the cubin is empty");
    return NULL;
  }
  size_t rules_size = rules_text ? strlen(rules_text) : 0;
  static const char added_names[] = HOC_SECTION_CUBIN "\0" HOC_SECTION_LAUNCH;
  /* New layout: the original bytes, the cubin, the rules, a new section-name table (the old one
   * plus the two names), then the section headers (the old ones, the two new). */
  size_t cubin_at = hoc_align(hsaco_size, 16);
  size_t rules_at = cubin_at + cubin_size;
  size_t names_at = rules_at + rules_size;
  size_t names_size = (size_t)names.sh_size + sizeof(added_names);
  size_t headers_at = hoc_align(names_at + names_size, 8);
  size_t shnum = (size_t)ehdr.e_shnum + 2;
  size_t total = headers_at + shnum * sizeof(Elf64_Shdr);
  uint8_t* out = calloc(1, total);
  if (!out) {
    snprintf(error, error_capacity, "out of memory");
    return NULL;
  }
  memcpy(out, hsaco, hsaco_size);
  memcpy(out + cubin_at, cubin, cubin_size);
  if (rules_size) memcpy(out + rules_at, rules_text, rules_size);
  memcpy(out + names_at, hsaco + names.sh_offset, names.sh_size);
  memcpy(out + names_at + names.sh_size, added_names, sizeof(added_names));
  for (size_t i = 0; i < ehdr.e_shnum; ++i) {
    Elf64_Shdr shdr;
    hoc_read_shdr(hsaco, hsaco_size, &ehdr, i, &shdr);
    if (i == ehdr.e_shstrndx) {
      shdr.sh_offset = names_at;
      shdr.sh_size = names_size;
    }
    memcpy(out + headers_at + i * sizeof(shdr), &shdr, sizeof(shdr));
  }
  Elf64_Shdr added[2];
  memset(added, 0, sizeof(added));
  added[0].sh_name = (Elf64_Word)names.sh_size;
  added[0].sh_type = SHT_PROGBITS;
  added[0].sh_offset = cubin_at;
  added[0].sh_size = cubin_size;
  added[0].sh_addralign = 16;
  added[1].sh_name = (Elf64_Word)(names.sh_size + sizeof(HOC_SECTION_CUBIN));
  added[1].sh_type = SHT_PROGBITS;
  added[1].sh_offset = rules_at;
  added[1].sh_size = rules_size;
  added[1].sh_addralign = 1;
  memcpy(out + headers_at + (size_t)ehdr.e_shnum * sizeof(Elf64_Shdr), added, sizeof(added));
  ehdr.e_shoff = headers_at;
  ehdr.e_shnum = (Elf64_Half)shnum;
  memcpy(out, &ehdr, sizeof(ehdr));
  *out_size = total;
  return out;
}

/* The rest of the line of `rules` that starts with "<verb> <kernel>" followed by a space or the
 * line's end, as [*out_rest, line end); false when no line does. */
static bool hoc_find_rule(const uint8_t* rules, size_t rules_size, const char* verb,
                          const char* kernel, const char** out_rest, size_t* out_rest_size) {
  size_t verb_length = strlen(verb), kernel_length = strlen(kernel);
  for (size_t at = 0; at < rules_size;) {
    const uint8_t* newline = memchr(rules + at, '\n', rules_size - at);
    size_t end = newline ? (size_t)(newline - rules) : rules_size;
    const char* line = (const char*)rules + at;
    size_t length = end - at;
    size_t head = verb_length + 1 + kernel_length;
    if (length >= head && memcmp(line, verb, verb_length) == 0 && line[verb_length] == ' ' &&
        memcmp(line + verb_length + 1, kernel, kernel_length) == 0 &&
        (length == head || line[head] == ' ')) {
      *out_rest = line + head;
      *out_rest_size = length - head;
      return true;
    }
    at = end + 1;
  }
  return false;
}

bool hoc_launch_any_block(const uint8_t* rules, size_t rules_size, const char* kernel) {
  const char* rest;
  size_t rest_size;
  return hoc_find_rule(rules, rules_size, "any-block", kernel, &rest, &rest_size) &&
         rest_size == 0;
}

bool hoc_launch_cuda_shared(const uint8_t* rules, size_t rules_size, const char* kernel,
                            unsigned int* out_bytes) {
  const char* rest;
  size_t rest_size;
  if (!hoc_find_rule(rules, rules_size, "cuda-shared", kernel, &rest, &rest_size) ||
      rest_size < 2 || rest_size > 12) {
    return false;
  }
  unsigned long value = 0;
  for (size_t i = 1; i < rest_size; ++i) {
    if (rest[i] < '0' || rest[i] > '9') return false;
    value = value * 10 + (unsigned long)(rest[i] - '0');
  }
  if (value > 0xffffffffUL) return false;
  *out_bytes = (unsigned int)value;
  return true;
}

bool hoc_wave64_block(unsigned int bx, unsigned int by, unsigned int bz, unsigned int* out_cuda_bx) {
  if (bx == 0 || bx % 64 != 0 || by != 1 || bz != 1) return false;
  *out_cuda_bx = bx / 2;
  return true;
}
