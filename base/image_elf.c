/* SPDX-License-Identifier: Apache-2.0 */
/* tkrt base: the ELF reader of the image inspector (cubin, HSACO, host images): sections, the
 * kernel symbols, and each kind's target (sm_90a, gfx90a:xnack-, x86_64). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/image_internal.h"
#include "tkrt/host_kernel.h"


enum {
  TKRT_EM_386 = 3,
  TKRT_EM_PPC64 = 21,
  TKRT_EM_S390 = 22,
  TKRT_EM_ARM = 40,
  TKRT_EM_X86_64 = 62,
  TKRT_EM_AARCH64 = 183,
  TKRT_EM_CUDA = 190,
  TKRT_EM_AMDGPU = 224,
  TKRT_EM_RISCV = 243,
  TKRT_SHT_SYMTAB = 2,
  TKRT_SHT_STRTAB = 3,
  TKRT_SHT_NOBITS = 8,
  TKRT_SHT_DYNSYM = 11,
  TKRT_SHN_XINDEX = 0xffff,
  TKRT_STT_OBJECT = 1,
  TKRT_STT_FUNC = 2,
  TKRT_STT_AMDGPU_HSA_KERNEL = 10, /* code object v2 kernels */
  TKRT_STB_GLOBAL = 1,
  TKRT_STB_WEAK = 2,
  TKRT_STO_CUDA_ENTRY = 0x10, /* st_other bit nvcc/ptxas set on kernel entry points */
  TKRT_ELFOSABI_AMDGPU_HSA = 64,
  TKRT_ELFOSABI_CUDA_V2 = 0x41, /* CUDA 13 cubins (EI_ABIVERSION 8); older ones use 0x33 */
};

/* The most sections we accept: far above any real image, low enough that a hostile count cannot
 * make the walk slow (each section header is also bounds-checked against the image size). */
#define TKRT_ELF_MAX_SECTIONS (1u << 20)

typedef struct tkrt_elf {
  const uint8_t* data;
  size_t size;
  bool is64, big_endian;
  uint16_t machine;
  uint32_t flags;
  uint8_t osabi, abi_version;
  uint64_t shoff;
  uint32_t shentsize, shnum, shstrndx;
} tkrt_elf_t;

typedef struct tkrt_elf_section {
  uint32_t name, type, link;
  uint64_t offset, size, entsize;
  uint64_t header_offset; /* where this section's header is, for messages */
} tkrt_elf_section_t;

/* Callers check bounds first; these only assemble bytes in the file's byte order. */
static uint16_t tkrt_elf_u16(const tkrt_elf_t* elf, uint64_t at) {
  const uint8_t* p = elf->data + at;
  return elf->big_endian ? (uint16_t)(p[0] << 8 | p[1]) : (uint16_t)(p[1] << 8 | p[0]);
}

static uint32_t tkrt_elf_u32(const tkrt_elf_t* elf, uint64_t at) {
  const uint8_t* p = elf->data + at;
  if (elf->big_endian) {
    return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | p[3];
  }
  return (uint32_t)p[3] << 24 | (uint32_t)p[2] << 16 | (uint32_t)p[1] << 8 | p[0];
}

static uint64_t tkrt_elf_u64(const tkrt_elf_t* elf, uint64_t at) {
  uint64_t hi = tkrt_elf_u32(elf, at + (elf->big_endian ? 0 : 4));
  uint64_t lo = tkrt_elf_u32(elf, at + (elf->big_endian ? 4 : 0));
  return hi << 32 | lo;
}

/* An address-sized field: 4 bytes in ELF32, 8 in ELF64. */
static uint64_t tkrt_elf_word(const tkrt_elf_t* elf, uint64_t at) {
  return elf->is64 ? tkrt_elf_u64(elf, at) : tkrt_elf_u32(elf, at);
}

static tkrt_status_t tkrt_elf_section_at(const tkrt_elf_t* elf, uint32_t index,
                                         tkrt_elf_section_t* out) {
  uint64_t at = elf->shoff + (uint64_t)index * elf->shentsize; /* table bounds checked at open */
  tkrt_elf_section_t s;
  s.header_offset = at;
  s.name = tkrt_elf_u32(elf, at + 0);
  s.type = tkrt_elf_u32(elf, at + 4);
  if (elf->is64) {
    s.offset = tkrt_elf_u64(elf, at + 24);
    s.size = tkrt_elf_u64(elf, at + 32);
    s.link = tkrt_elf_u32(elf, at + 40);
    s.entsize = tkrt_elf_u64(elf, at + 56);
  } else {
    s.offset = tkrt_elf_u32(elf, at + 16);
    s.size = tkrt_elf_u32(elf, at + 20);
    s.link = tkrt_elf_u32(elf, at + 24);
    s.entsize = tkrt_elf_u32(elf, at + 36);
  }
  if (s.type != TKRT_SHT_NOBITS && !tkrt_image_range_ok(elf->size, s.offset, s.size)) {
    return TKRT_IMAGE_INVALID(
        "ELF section %u (offset %llu, %llu bytes) extends past the end of the %zu-byte image "
        "(its header is at offset %llu)",
        index, (tkrt_ull)s.offset, (tkrt_ull)s.size, elf->size, (tkrt_ull)at);
  }
  *out = s;
  return NULL;
}

static tkrt_status_t tkrt_elf_open(const void* data, size_t size, tkrt_elf_t* out) {
  const uint8_t* d = data;
  if (size < 16) {
    return TKRT_IMAGE_INVALID("truncated ELF identification: %zu bytes, need 16 (at offset 0)",
                              size);
  }
  tkrt_elf_t elf;
  memset(&elf, 0, sizeof(elf));
  elf.data = d;
  elf.size = size;
  if (d[4] != 1 && d[4] != 2) {
    return TKRT_IMAGE_INVALID("invalid ELF class %u at offset 4 (expected 1 or 2)", d[4]);
  }
  if (d[5] != 1 && d[5] != 2) {
    return TKRT_IMAGE_INVALID("invalid ELF data encoding %u at offset 5 (expected 1 or 2)", d[5]);
  }
  elf.is64 = d[4] == 2;
  elf.big_endian = d[5] == 2;
  elf.osabi = d[7];
  elf.abi_version = d[8];
  size_t header_size = elf.is64 ? 64 : 52;
  if (size < header_size) {
    return TKRT_IMAGE_INVALID("truncated ELF header: %zu bytes, an ELF%d header needs %zu "
                              "(at offset 0)",
                              size, elf.is64 ? 64 : 32, header_size);
  }
  elf.machine = tkrt_elf_u16(&elf, 18);
  uint64_t shoff_at = elf.is64 ? 40 : 32;
  uint64_t flags_at = elf.is64 ? 48 : 36;
  uint64_t tail_at = elf.is64 ? 58 : 46; /* e_shentsize, e_shnum, e_shstrndx */
  elf.shoff = tkrt_elf_word(&elf, shoff_at);
  elf.flags = tkrt_elf_u32(&elf, flags_at);
  elf.shentsize = tkrt_elf_u16(&elf, tail_at);
  elf.shnum = tkrt_elf_u16(&elf, tail_at + 2);
  elf.shstrndx = tkrt_elf_u16(&elf, tail_at + 4);
  if (elf.shoff == 0) { /* no section headers: nothing to list, still a valid ELF */
    elf.shnum = 0;
    *out = elf;
    return NULL;
  }
  uint32_t min_entsize = elf.is64 ? 64 : 40;
  if (elf.shentsize < min_entsize) {
    return TKRT_IMAGE_INVALID("ELF section header size %u at offset %llu is below the %u bytes "
                              "of an ELF%d section header",
                              elf.shentsize, (tkrt_ull)tail_at, min_entsize, elf.is64 ? 64 : 32);
  }
  if (!tkrt_image_range_ok(size, elf.shoff, elf.shentsize)) {
    return TKRT_IMAGE_INVALID("ELF section header table offset %llu (at offset %llu) is past the "
                              "end of the %zu-byte image",
                              (tkrt_ull)elf.shoff, (tkrt_ull)shoff_at, size);
  }
  if (elf.shnum == 0 || elf.shstrndx == TKRT_SHN_XINDEX) {
    /* Extended numbering: section 0 holds the real count (sh_size) and index (sh_link). */
    elf.shnum = 1;
    tkrt_elf_section_t first;
    TKRT_RETURN_IF_ERROR(tkrt_elf_section_at(&elf, 0, &first));
    uint64_t count = tkrt_elf_u16(&elf, tail_at + 2) ? tkrt_elf_u16(&elf, tail_at + 2) : first.size;
    if (count == 0 || count > TKRT_ELF_MAX_SECTIONS) {
      return TKRT_IMAGE_INVALID("implausible ELF section count %llu (from the section header "
                                "at offset %llu)",
                                (tkrt_ull)count, (tkrt_ull)elf.shoff);
    }
    elf.shnum = (uint32_t)count;
    if (elf.shstrndx == TKRT_SHN_XINDEX) elf.shstrndx = first.link;
  }
  if ((uint64_t)elf.shnum > (size - elf.shoff) / elf.shentsize) {
    return TKRT_IMAGE_INVALID("ELF section header table (offset %llu, %u entries of %u bytes) "
                              "extends past the end of the %zu-byte image (at offset %llu)",
                              (tkrt_ull)elf.shoff, elf.shnum, elf.shentsize, size,
                              (tkrt_ull)shoff_at);
  }
  *out = elf;
  return NULL;
}

/* Finds the section holding a name in the section-name string table: 1 when found. */
static tkrt_status_t tkrt_elf_find_section(const tkrt_elf_t* elf, const char* wanted,
                                           tkrt_elf_section_t* out, int* out_found) {
  *out_found = 0;
  if (elf->shnum == 0 || elf->shstrndx == 0 || elf->shstrndx >= elf->shnum) return NULL;
  tkrt_elf_section_t names;
  TKRT_RETURN_IF_ERROR(tkrt_elf_section_at(elf, elf->shstrndx, &names));
  if (names.type == TKRT_SHT_NOBITS) return NULL;
  size_t wanted_length = strlen(wanted);
  for (uint32_t i = 1; i < elf->shnum; ++i) {
    tkrt_elf_section_t s = {0};
    TKRT_RETURN_IF_ERROR(tkrt_elf_section_at(elf, i, &s));
    if (s.name >= names.size || names.size - s.name < wanted_length + 1) continue;
    if (memcmp(elf->data + names.offset + s.name, wanted, wanted_length + 1) == 0) {
      *out = s;
      *out_found = 1;
      return NULL;
    }
  }
  return NULL;
}

/* Visits kernel names from the symbol table (.symtab when present, else .dynsym: images that
 * keep both list every exported symbol twice). */
static tkrt_status_t tkrt_elf_walk_kernels(const tkrt_elf_t* elf, tkrt_image_kind_t kind,
                                           tkrt_image_sink_t* sink) {
  uint32_t table_index = 0;
  for (uint32_t pass = 0; pass < 2 && table_index == 0; ++pass) {
    uint32_t wanted = pass == 0 ? TKRT_SHT_SYMTAB : TKRT_SHT_DYNSYM;
    for (uint32_t i = 1; i < elf->shnum; ++i) {
      tkrt_elf_section_t s = {0};
      TKRT_RETURN_IF_ERROR(tkrt_elf_section_at(elf, i, &s));
      if (s.type == wanted) {
        table_index = i;
        break;
      }
    }
  }
  if (table_index == 0) return NULL;
  tkrt_elf_section_t table, strings;
  TKRT_RETURN_IF_ERROR(tkrt_elf_section_at(elf, table_index, &table));
  uint64_t symbol_size = elf->is64 ? 24 : 16;
  if (table.entsize < symbol_size) {
    return TKRT_IMAGE_INVALID("ELF symbol table (section %u) has entries of %llu bytes, below "
                              "the %llu of an ELF symbol (section header at offset %llu)",
                              table_index, (tkrt_ull)table.entsize, (tkrt_ull)symbol_size,
                              (tkrt_ull)table.header_offset);
  }
  if (table.link == 0 || table.link >= elf->shnum) {
    return TKRT_IMAGE_INVALID("ELF symbol table (section %u) links to string table %u of %u "
                              "sections (section header at offset %llu)",
                              table_index, table.link, elf->shnum, (tkrt_ull)table.header_offset);
  }
  TKRT_RETURN_IF_ERROR(tkrt_elf_section_at(elf, table.link, &strings));
  if (strings.type != TKRT_SHT_STRTAB) {
    return TKRT_IMAGE_INVALID("ELF symbol table (section %u) links to section %u of type %u, "
                              "not a string table (section header at offset %llu)",
                              table_index, table.link, strings.type,
                              (tkrt_ull)strings.header_offset);
  }
  const char* names = (const char*)elf->data + strings.offset;
  uint64_t count = table.size / table.entsize;
  const size_t prefix_length = strlen(TKRT_HOST_KERNEL_SYMBOL_PREFIX);
  for (uint64_t i = 1; i < count && !sink->stopped; ++i) { /* symbol 0 is the null symbol */
    uint64_t at = table.offset + i * table.entsize;
    uint32_t name_offset = tkrt_elf_u32(elf, at);
    uint8_t info = elf->data[at + (elf->is64 ? 4 : 12)];
    uint8_t other = elf->data[at + (elf->is64 ? 5 : 13)];
    uint16_t section = tkrt_elf_u16(elf, at + (elf->is64 ? 6 : 14));
    unsigned type = info & 0xfu, bind = info >> 4;
    bool defined = section != 0;
    bool exported = bind == TKRT_STB_GLOBAL || bind == TKRT_STB_WEAK;
    bool wanted = false;
    switch (kind) {
      case TKRT_IMAGE_CUBIN:
        wanted = defined && type == TKRT_STT_FUNC && (other & TKRT_STO_CUDA_ENTRY);
        break;
      case TKRT_IMAGE_HSACO:
        wanted = defined && exported &&
                 (type == TKRT_STT_FUNC || type == TKRT_STT_AMDGPU_HSA_KERNEL);
        break;
      case TKRT_IMAGE_HOST:
        wanted = defined && exported && type == TKRT_STT_OBJECT;
        break;
      default:
        break;
    }
    if (!wanted) continue;
    if (name_offset >= strings.size) {
      return TKRT_IMAGE_INVALID("ELF symbol %llu (at offset %llu) names offset %u, outside its "
                                "%llu-byte string table",
                                (tkrt_ull)i, (tkrt_ull)at, name_offset, (tkrt_ull)strings.size);
    }
    const char* name = names + name_offset;
    const char* end = memchr(name, '\0', strings.size - name_offset);
    if (!end) {
      return TKRT_IMAGE_INVALID("ELF symbol %llu (at offset %llu): its name at offset %llu runs "
                                "past the end of its string table",
                                (tkrt_ull)i, (tkrt_ull)at,
                                (tkrt_ull)(strings.offset + name_offset));
    }
    size_t length = (size_t)(end - name);
    if (kind == TKRT_IMAGE_HOST) {
      if (!tkrt_image_has_prefix(name, length, TKRT_HOST_KERNEL_SYMBOL_PREFIX)) continue;
      name += prefix_length;
      length -= prefix_length;
    }
    tkrt_image_emit(sink, name, length);
  }
  return NULL;
}

/* ---------------------------------------------------------------- targets of ELF images */

typedef struct tkrt_amdgpu_mach {
  uint8_t mach;
  const char* name;
} tkrt_amdgpu_mach_t;

/* EF_AMDGPU_MACH values (e_flags & 0xff) from LLVM's AMDGPUUsage ("AMDGPU ELF Header" table) and
 * llvm/BinaryFormat/ELF.h. gfx940 (0x40) and gfx941 (0x4b) were later retired by LLVM but code
 * objects for them exist. */
static const tkrt_amdgpu_mach_t tkrt_amdgpu_machs[] = {
    {0x020, "gfx600"},  {0x021, "gfx601"},  {0x022, "gfx700"},  {0x023, "gfx701"},
    {0x024, "gfx702"},  {0x025, "gfx703"},  {0x026, "gfx704"},  {0x028, "gfx801"},
    {0x029, "gfx802"},  {0x02a, "gfx803"},  {0x02b, "gfx810"},  {0x02c, "gfx900"},
    {0x02d, "gfx902"},  {0x02e, "gfx904"},  {0x02f, "gfx906"},  {0x030, "gfx908"},
    {0x031, "gfx909"},  {0x032, "gfx90c"},  {0x033, "gfx1010"}, {0x034, "gfx1011"},
    {0x035, "gfx1012"}, {0x036, "gfx1030"}, {0x037, "gfx1031"}, {0x038, "gfx1032"},
    {0x039, "gfx1033"}, {0x03a, "gfx602"},  {0x03b, "gfx705"},  {0x03c, "gfx805"},
    {0x03d, "gfx1035"}, {0x03e, "gfx1034"}, {0x03f, "gfx90a"},  {0x040, "gfx940"},
    {0x041, "gfx1100"}, {0x042, "gfx1013"}, {0x043, "gfx1150"}, {0x044, "gfx1103"},
    {0x045, "gfx1036"}, {0x046, "gfx1101"}, {0x047, "gfx1102"}, {0x048, "gfx1200"},
    {0x04a, "gfx1151"}, {0x04b, "gfx941"},  {0x04c, "gfx942"},  {0x04e, "gfx1201"},
    {0x04f, "gfx950"},  {0x051, "gfx9-generic"}, {0x052, "gfx10-1-generic"},
    {0x053, "gfx10-3-generic"}, {0x054, "gfx11-generic"}, {0x055, "gfx1152"},
    {0x058, "gfx1153"}, {0x059, "gfx12-generic"}, {0x05f, "gfx9-4-generic"},
};

static const char* tkrt_amdgpu_mach_name(uint32_t mach) {
  for (size_t i = 0; i < sizeof(tkrt_amdgpu_machs) / sizeof(tkrt_amdgpu_machs[0]); ++i) {
    if (tkrt_amdgpu_machs[i].mach == mach) return tkrt_amdgpu_machs[i].name;
  }
  return NULL;
}

static void tkrt_image_append_feature(char* target, size_t capacity, const char* name,
                                      tkrt_image_feature_t feature) {
  if (feature != TKRT_IMAGE_FEATURE_ON && feature != TKRT_IMAGE_FEATURE_OFF) return;
  size_t used = strlen(target);
  snprintf(target + used, capacity - used, ":%s%c", name,
           feature == TKRT_IMAGE_FEATURE_ON ? '+' : '-');
}

static void tkrt_image_hsaco_target(const tkrt_elf_t* elf, tkrt_image_info_t* info) {
  uint32_t mach = elf->flags & 0xffu;
  const char* name = tkrt_amdgpu_mach_name(mach);
  if (elf->osabi == TKRT_ELFOSABI_AMDGPU_HSA) {
    info->code_object_version = (uint32_t)elf->abi_version + 2; /* ELFABIVERSION_AMDGPU_HSA_V2 = 0 */
  }
  info->xnack = TKRT_IMAGE_FEATURE_UNSUPPORTED;
  info->sramecc = TKRT_IMAGE_FEATURE_UNSUPPORTED;
  if (info->code_object_version >= 4) {
    /* EF_AMDGPU_FEATURE_XNACK_V4 (0x300) and _SRAMECC_V4 (0xc00): unsupported, any, off, on. */
    info->xnack = (tkrt_image_feature_t)((elf->flags >> 8) & 3u);
    info->sramecc = (tkrt_image_feature_t)((elf->flags >> 10) & 3u);
  } else if (info->code_object_version == 3) {
    /* V3 has single "enabled" bits: XNACK 0x100, SRAMECC 0x200; clear means not requested. */
    if (elf->flags & 0x100u) info->xnack = TKRT_IMAGE_FEATURE_ON;
    if (elf->flags & 0x200u) info->sramecc = TKRT_IMAGE_FEATURE_ON;
  } else if (info->code_object_version == 2) {
    if (elf->flags & 0x01u) info->xnack = TKRT_IMAGE_FEATURE_ON; /* EF_AMDGPU_FEATURE_XNACK_V2 */
  }
  if (!name) return; /* an unknown processor: arch stays "", elf_flags tell the number */
  snprintf(info->arch, sizeof(info->arch), "%s", name);
  snprintf(info->target, sizeof(info->target), "%s", name);
  /* ROCm target IDs list features in alphabetical order. */
  tkrt_image_append_feature(info->target, sizeof(info->target), "sramecc", info->sramecc);
  tkrt_image_append_feature(info->target, sizeof(info->target), "xnack", info->xnack);
}

/* ptxas records its command line ("... -arch sm_90a ...") in the .note.nv.tkinfo note. CUDA 13
 * cubins (EI_ABIVERSION 8) do not encode the arch-specific 'a'/'f' variants in e_flags (verified:
 * nvcc 13.0 gives sm_90 and sm_90a cubins identical e_flags), so this note is the only cheap
 * source for the suffix. Returns the suffix letter, or 0. */
static tkrt_status_t tkrt_image_cubin_suffix(const tkrt_elf_t* elf, uint32_t sm, char* out) {
  *out = 0;
  tkrt_elf_section_t note;
  int found = 0;
  TKRT_RETURN_IF_ERROR(tkrt_elf_find_section(elf, ".note.nv.tkinfo", &note, &found));
  if (!found || note.type == TKRT_SHT_NOBITS) return NULL;
  static const char key[] = "-arch sm_";
  const uint8_t* p = elf->data + note.offset;
  size_t n = (size_t)note.size;
  for (size_t i = 0; i + sizeof(key) - 1 < n; ++i) {
    if (memcmp(p + i, key, sizeof(key) - 1) != 0) continue;
    size_t j = i + sizeof(key) - 1;
    uint32_t value = 0;
    size_t digits = 0;
    while (j < n && p[j] >= '0' && p[j] <= '9' && digits < 6) {
      value = value * 10 + (uint32_t)(p[j] - '0');
      ++j;
      ++digits;
    }
    if (digits && value == sm && j < n && (p[j] == 'a' || p[j] == 'f')) {
      bool ends = j + 1 == n || p[j + 1] == ' ' || p[j + 1] == '\0';
      if (ends) *out = (char)p[j];
    }
    return NULL;
  }
  return NULL;
}

static tkrt_status_t tkrt_image_cubin_target(const tkrt_elf_t* elf, tkrt_image_info_t* info) {
  /* Two e_flags layouts, checked on cubins from nvcc 13.0 and against LLVM's EF_CUDA_* values:
   * - up to CUDA 12 (EI_OSABI 0x33, EI_ABIVERSION 7): bits 0-7 the SM (EF_CUDA_SM, 0x5a = 90),
   *   0x800 EF_CUDA_ACCELERATORS for sm_90a, bits 16-23 the virtual (PTX) SM;
   * - CUDA 13 (EI_OSABI 0x41, EI_ABIVERSION 8): bits 8-15 the SM (sm_80: 0x06005004, sm_90 and
   *   sm_90a: 0x06005a04, sm_100: 0x06006402, sm_120: 0x06007802). */
  bool v2 = elf->osabi == TKRT_ELFOSABI_CUDA_V2 || elf->abi_version >= 8;
  uint32_t sm = v2 ? (elf->flags >> 8) & 0xffu : elf->flags & 0xffu;
  char suffix = 0;
  if (!v2 && (elf->flags & 0x800u)) suffix = 'a';
  if (sm == 0) {
    return TKRT_IMAGE_INVALID("cubin e_flags 0x%08x (at offset %d) name no SM architecture",
                              elf->flags, elf->is64 ? 48 : 36);
  }
  if (!suffix) TKRT_RETURN_IF_ERROR(tkrt_image_cubin_suffix(elf, sm, &suffix));
  info->sm = sm;
  if (suffix) {
    snprintf(info->arch, sizeof(info->arch), "sm_%u%c", sm, suffix);
  } else {
    snprintf(info->arch, sizeof(info->arch), "sm_%u", sm);
  }
  snprintf(info->target, sizeof(info->target), "%s", info->arch);
  return NULL;
}

static void tkrt_image_host_target(const tkrt_elf_t* elf, tkrt_image_info_t* info) {
  const char* name = NULL;
  switch (elf->machine) {
    case TKRT_EM_X86_64: name = "x86_64"; break;
    case TKRT_EM_AARCH64: name = "aarch64"; break;
    case TKRT_EM_386: name = "i386"; break;
    case TKRT_EM_ARM: name = "arm"; break;
    case TKRT_EM_PPC64: name = elf->big_endian ? "ppc64" : "ppc64le"; break;
    case TKRT_EM_S390: name = "s390x"; break;
    case TKRT_EM_RISCV: name = elf->is64 ? "riscv64" : "riscv32"; break;
    default: break;
  }
  if (name) {
    snprintf(info->arch, sizeof(info->arch), "%s", name);
  } else {
    snprintf(info->arch, sizeof(info->arch), "elf-machine-%u", (unsigned)elf->machine);
  }
  snprintf(info->target, sizeof(info->target), "%s", info->arch);
}

tkrt_status_t tkrt_image_elf_walk(const void* data, size_t size, tkrt_image_kind_t kind,
                                  tkrt_image_info_t* info, tkrt_image_sink_t* sink) {
  tkrt_elf_t elf;
  TKRT_RETURN_IF_ERROR(tkrt_elf_open(data, size, &elf));
  if (info) {
    info->elf_machine = elf.machine;
    info->elf_flags = elf.flags;
    info->elf_osabi = elf.osabi;
    info->elf_abi_version = elf.abi_version;
    if (kind == TKRT_IMAGE_CUBIN) {
      TKRT_RETURN_IF_ERROR(tkrt_image_cubin_target(&elf, info));
    } else if (kind == TKRT_IMAGE_HSACO) {
      tkrt_image_hsaco_target(&elf, info);
    } else {
      tkrt_image_host_target(&elf, info);
    }
  }
  return tkrt_elf_walk_kernels(&elf, kind, sink);
}
