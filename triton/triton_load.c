/* SPDX-License-Identifier: Apache-2.0 */
/* tkrt triton: loading Triton's compile output (metadata JSON, images, TTIR signature) as a tkrt
 * kernel, merging the outputs of several targets, and listing Triton's cache. */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "base/json.h"
#include "core/settings_internal.h"
#include "triton/triton_internal.h"
#include "base/fs.h"
#include "base/versioned.h"
#include "registry/registry.h"
#include "tkrt/image.h"

#define TKRT_OOM() TKRT_STATUS_MAKE(TKRT_STATUS_RESOURCE_EXHAUSTED, "out of host memory")
#define TKRT_TRITON_PATH_MAX 4096
#define TKRT_TRITON_MAX_TARGETS 64

/* ---------------------------------------------------------------- files */

/* The library's one file reader (base/fs.h: regular files only, without blocking on a FIFO, the
 * limit checked before anything is allocated, a file that changes size while read refused), for
 * text: a NUL follows the contents. */
static tkrt_status_t tkrt_triton_read_file(const char* path, size_t limit, char** out_data,
                                           size_t* out_size) {
  void* data = NULL;
  TKRT_RETURN_IF_ERROR(tkrt_fs_read_file(path, limit, 0, &data, out_size));
  *out_data = data;
  return NULL;
}

static int tkrt_triton_is_file(const char* path) {
  struct stat st;
  return stat(path, &st) == 0 && !S_ISDIR(st.st_mode);
}

static int tkrt_triton_is_dir(const char* path) {
  struct stat st;
  return stat(path, &st) == 0 && S_ISDIR(st.st_mode);
}

static char* tkrt_triton_strdup(const char* text) {
  size_t length = strlen(text);
  char* copy = malloc(length + 1);
  if (copy) memcpy(copy, text, length + 1);
  return copy;
}

static int tkrt_triton_ends_with(const char* text, const char* suffix) {
  size_t a = strlen(text), b = strlen(suffix);
  return a >= b && strcmp(text + a - b, suffix) == 0;
}

/* Triton's group index (`__grp__<name>.json`) and anything not ending in .json are not kernels. */
static int tkrt_triton_is_kernel_json(const char* file_name) {
  return tkrt_triton_ends_with(file_name, ".json") && strncmp(file_name, "__grp__", 7) != 0 &&
         file_name[0] != '.';
}

static int tkrt_triton_compare_strings(const void* a, const void* b) {
  return strcmp(*(char* const*)a, *(char* const*)b);
}

typedef struct tkrt_triton_names {
  char** items;
  size_t count, capacity;
} tkrt_triton_names_t;

static void tkrt_triton_names_free(tkrt_triton_names_t* names) {
  for (size_t i = 0; i < names->count; ++i) free(names->items[i]);
  free(names->items);
  memset(names, 0, sizeof(*names));
}

static tkrt_status_t tkrt_triton_names_add(tkrt_triton_names_t* names, const char* text) {
  if (names->count == names->capacity) {
    size_t grown = names->capacity ? names->capacity * 2 : 8;
    char** items = realloc(names->items, grown * sizeof(*items));
    if (!items) return TKRT_OOM();
    names->items = items;
    names->capacity = grown;
  }
  names->items[names->count] = tkrt_triton_strdup(text);
  if (!names->items[names->count]) return TKRT_OOM();
  names->count++;
  return NULL;
}

/* The entries of `dir` accepted by `keep` (kernel JSON files, or subdirectories), sorted. */
static tkrt_status_t tkrt_triton_list_dir(const char* dir, int want_dirs,
                                          tkrt_triton_names_t* out) {
  DIR* handle = opendir(dir);
  if (!handle) {
    int error = errno;
    return TKRT_STATUS_MAKE(tkrt_fs_errno_code(error), "cannot list %s: %s", dir, strerror(error));
  }
  tkrt_status_t status = NULL;
  struct dirent* entry;
  char path[TKRT_TRITON_PATH_MAX];
  while (!status && (entry = readdir(handle)) != NULL) {
    if (entry->d_name[0] == '.') continue;
    int n = snprintf(path, sizeof(path), "%s/%s", dir, entry->d_name);
    if (n < 0 || (size_t)n >= sizeof(path)) continue;
    if (want_dirs ? tkrt_triton_is_dir(path)
                  : tkrt_triton_is_kernel_json(entry->d_name) && tkrt_triton_is_file(path)) {
      status = tkrt_triton_names_add(out, entry->d_name);
    }
  }
  closedir(handle);
  if (status) return status;
  if (out->count) qsort(out->items, out->count, sizeof(char*), tkrt_triton_compare_strings);
  return NULL;
}

/* ---------------------------------------------------------------- metadata fields */

/* Fields of nested objects are named with their path ("target.arch") in messages. */
static const char* tkrt_triton_field_key(const char* field) {
  const char* dot = strrchr(field, '.');
  return dot ? dot + 1 : field;
}

/* An unsigned integer field in [min, max]; absent (or null when `null_ok`) gives `fallback`, or
 * an error when `required`. */
static tkrt_status_t tkrt_triton_field_u32(const tkrt_json_value_t* object, const char* json_path,
                                           const char* field, int required, uint32_t fallback,
                                           uint32_t min, uint32_t max, uint32_t* out) {
  const tkrt_json_value_t* v = tkrt_json_get(object, tkrt_triton_field_key(field));
  if (!v || v->type == TKRT_JSON_NULL) {
    if (required) {
      return TKRT_STATUS_MAKE(TKRT_STATUS_INVALID_ARGUMENT, "%s: field '%s' is missing%s",
                              json_path, field, v ? " (null)" : "");
    }
    *out = fallback;
    return NULL;
  }
  if (v->type != TKRT_JSON_NUMBER || !v->is_integer || v->integer < (int64_t)min ||
      v->integer > (int64_t)max) {
    if (v->type == TKRT_JSON_NUMBER) {
      return TKRT_STATUS_MAKE(TKRT_STATUS_INVALID_ARGUMENT,
                              "%s: field '%s' is %g; it must be an integer in %u..%u", json_path,
                              field, v->number, min, max);
    }
    return TKRT_STATUS_MAKE(TKRT_STATUS_INVALID_ARGUMENT,
                            "%s: field '%s' is %s; it must be an integer in %u..%u", json_path,
                            field, tkrt_json_type_name(v->type), min, max);
  }
  *out = (uint32_t)v->integer;
  return NULL;
}

static tkrt_status_t tkrt_triton_field_bool(const tkrt_json_value_t* object, const char* json_path,
                                            const char* field, bool* out) {
  const tkrt_json_value_t* v = tkrt_json_get(object, tkrt_triton_field_key(field));
  if (!v || v->type == TKRT_JSON_NULL) {
    *out = false;
    return NULL;
  }
  if (v->type != TKRT_JSON_BOOL) {
    return TKRT_STATUS_MAKE(TKRT_STATUS_INVALID_ARGUMENT,
                            "%s: field '%s' is %s; it must be true or false", json_path, field,
                            tkrt_json_type_name(v->type));
  }
  *out = v->boolean;
  return NULL;
}

static tkrt_status_t tkrt_triton_field_string(const tkrt_json_value_t* object,
                                              const char* json_path, const char* field,
                                              int required, const char** out) {
  const tkrt_json_value_t* v = tkrt_json_get(object, tkrt_triton_field_key(field));
  if (!v || v->type == TKRT_JSON_NULL) {
    if (required) {
      return TKRT_STATUS_MAKE(TKRT_STATUS_INVALID_ARGUMENT, "%s: field '%s' is missing",
                              json_path, field);
    }
    *out = "";
    return NULL;
  }
  if (v->type != TKRT_JSON_STRING) {
    return TKRT_STATUS_MAKE(TKRT_STATUS_INVALID_ARGUMENT, "%s: field '%s' is %s; it must be a string",
                            json_path, field, tkrt_json_type_name(v->type));
  }
  *out = v->string;
  return NULL;
}

/* ---------------------------------------------------------------- one compile output */

/* Everything read from one metadata JSON and the files beside it. */
typedef struct tkrt_triton_output {
  char* json_path;
  char* name;
  char* backend;
  char* arch;
  char* triton_version;
  char release[8];          /* "3.2".."3.9"; "" for host targets */
  uint32_t hidden_pointers; /* tkrt_hidden_pointers_t of that release */
  char* hash;
  uint32_t warp_size, num_warps, num_ctas, num_stages, shared, tmem_size;
  uint32_t cluster_dims[3];
  uint32_t global_scratch_size, global_scratch_align;
  uint32_t profile_scratch_size, profile_scratch_align;
  uint32_t launch_flags;
  tkrt_triton_desc_meta_t* desc_meta;
  size_t desc_meta_count;
  tkrt_triton_param_t* params;
  size_t param_count;
  char* signature_path;
  tkrt_kernel_image_t images[3];
  char* image_paths[3];
  size_t image_count;
  uint32_t image_kinds;
  int skipped; /* no image kind asked for can exist for this target */
  int allow_native_code; /* tkrt_triton_load_options_t.allow_native_code */
  char* native_code_left_out; /* the `<stem>.so` not taken without that consent */
} tkrt_triton_output_t;

static void tkrt_triton_output_clear(tkrt_triton_output_t* o) {
  free(o->json_path);
  free(o->name);
  free(o->backend);
  free(o->arch);
  free(o->triton_version);
  free(o->hash);
  free(o->signature_path);
  free(o->native_code_left_out);
  tkrt_triton_params_free(o->params, o->param_count);
  free(o->desc_meta);
  for (size_t i = 0; i < o->image_count; ++i) {
    free((void*)o->images[i].data);
    free((void*)o->images[i].arch);
    free(o->image_paths[i]);
  }
  memset(o, 0, sizeof(*o));
}

typedef struct tkrt_triton_name_search {
  const char* name;
  int found;
  size_t count;
  char listed[512];
  size_t used;
} tkrt_triton_name_search_t;

static bool tkrt_triton_visit_name(const char* name, size_t length, void* user) {
  tkrt_triton_name_search_t* s = user;
  if (strlen(s->name) == length && memcmp(s->name, name, length) == 0) s->found = 1;
  if (s->used < sizeof(s->listed)) {
    int n = snprintf(s->listed + s->used, sizeof(s->listed) - s->used, "%s%.*s",
                     s->count ? ", " : "", (int)(length > 200 ? 200 : length), name);
    if (n > 0) s->used += (size_t)n;
  }
  s->count++;
  return true;
}

/* Reads `<stem><ext>` as an image of `kind` when it exists and `kinds` wants it, and checks it
 * against the metadata: the kind, the arch and the entry name. */
/* The most image kinds one target may offer (its backend's and the any-target ones). */
#define TKRT_TRITON_KINDS_MAX 16

static tkrt_status_t tkrt_triton_take_image(tkrt_triton_output_t* o, const char* stem,
                                            const tkrt_hal_backend_t* backend,
                                            const tkrt_hal_image_format_t* format,
                                            const tkrt_hal_backend_t* target, uint32_t kinds) {
  const char* ext = format->triton_extension;
  tkrt_image_kind_t kind = format->kind;
  if (!(kinds & (1u << kind))) return NULL;
  char path[TKRT_TRITON_PATH_MAX];
  int n = snprintf(path, sizeof(path), "%s%s", stem, ext);
  if (n < 0 || (size_t)n >= sizeof(path)) {
    return TKRT_STATUS_MAKE(TKRT_STATUS_INVALID_ARGUMENT, "path too long: %s%s", stem, ext);
  }
  if (access(path, F_OK) != 0) return NULL;
  if (format->native_code && !o->allow_native_code) {
    /* Native code runs with this process's rights once loaded: never taken from a folder
     * without the caller's consent. Only its path is kept, to say why it was left out. */
    o->native_code_left_out = tkrt_triton_strdup(path);
    return o->native_code_left_out ? NULL : TKRT_OOM();
  }
  char* data = NULL;
  size_t size = 0;
  if (format->native_code) {
    /* Consent covers the folder's own file: a symbolic link, which could lead anywhere (one
     * planted in a shared cache, say), is not followed to native code. */
    void* bytes = NULL;
    TKRT_RETURN_IF_ERROR(tkrt_fs_read_file(path, TKRT_TRITON_IMAGE_LIMIT, TKRT_FS_READ_NOFOLLOW,
                                           &bytes, &size));
    data = bytes;
  } else {
    TKRT_RETURN_IF_ERROR(tkrt_triton_read_file(path, TKRT_TRITON_IMAGE_LIMIT, &data, &size));
  }
  tkrt_image_info_t* info = malloc(sizeof(*info));
  if (!info) {
    free(data);
    return TKRT_OOM();
  }
  info->struct_size = sizeof(*info);
  tkrt_status_t status = tkrt_image_inspect(data, size, info);
  if (status) {
    status = tkrt_status_annotate(status, "%s", path);
    goto fail;
  }
  if (info->kind != kind) {
    status = TKRT_STATUS_MAKE(TKRT_STATUS_INVALID_ARGUMENT, "%s is a %s image, not %s", path,
                              tkrt_image_kind_name(info->kind), tkrt_image_kind_name(kind));
    goto fail;
  }
  /* The image must be for the target the JSON names (a host image beside GPU output is not):
   * the target's backend judges its own images' archs. */
  if (backend == target && target->formats.triton_image_matches &&
      !target->formats.triton_image_matches(info, o->arch)) {
    status = TKRT_STATUS_MAKE(TKRT_STATUS_INVALID_ARGUMENT,
                              "inconsistent: %s is for %s but %s says target.arch %s", path,
                              info->arch, o->json_path, o->arch);
    goto fail;
  }
  tkrt_triton_name_search_t search = {o->name, 0, 0, "", 0};
  status = tkrt_image_for_each_kernel(data, size, tkrt_triton_visit_name, &search);
  if (status) {
    status = tkrt_status_annotate(status, "%s", path);
    goto fail;
  }
  if (!search.found) {
    status = TKRT_STATUS_MAKE(TKRT_STATUS_NOT_FOUND,
                              "%s has no kernel '%s' (the name in %s); it has %zu: %s", path,
                              o->name, o->json_path, search.count,
                              search.count ? search.listed : "none");
    goto fail;
  }
  tkrt_kernel_image_t* image = &o->images[o->image_count];
  memset(image, 0, sizeof(*image));
  image->arch = info->arch[0] ? tkrt_triton_strdup(info->arch) : NULL;
  o->image_paths[o->image_count] = tkrt_triton_strdup(path);
  if ((info->arch[0] && !image->arch) || !o->image_paths[o->image_count]) {
    free((void*)image->arch);
    free(o->image_paths[o->image_count]);
    o->image_paths[o->image_count] = NULL;
    status = TKRT_OOM();
    goto fail;
  }
  /* An image any target may carry runs only on its own backend. */
  image->backend = format->any_triton_target ? backend->name : NULL;
  image->kind = kind;
  image->data = data;
  image->size = size;
  image->shared_mem_bytes = format->native_code ? 0 : o->shared;
  image->origin = TKRT_IMAGE_ORIGIN_API;
  o->image_count++;
  o->image_kinds |= 1u << kind;
  free(info);
  return NULL;
fail:
  free(info);
  free(data);
  return status;
}

uint32_t tkrt_triton_desc_host_type(uint32_t device_type) {
  switch (device_type) {
    case 8: return 10;
    case 9: return 8;
    case 10: return 9;
    default: return device_type;
  }
}

/* `tensordesc_meta`: null, absent or [] (no descriptor lowered to TMA), else one object per
 * descriptor parameter; every field is checked. */
static tkrt_status_t tkrt_triton_desc_meta_read(const tkrt_json_value_t* root,
                                                const char* json_path, tkrt_triton_output_t* o) {
  const tkrt_json_value_t* list = tkrt_json_get(root, "tensordesc_meta");
  if (!list || list->type == TKRT_JSON_NULL) return NULL;
  if (list->type != TKRT_JSON_ARRAY) {
    return TKRT_STATUS_MAKE(TKRT_STATUS_INVALID_ARGUMENT,
                            "%s: field 'tensordesc_meta' is %s; it must be a list of objects",
                            json_path, tkrt_json_type_name(list->type));
  }
  if (list->count == 0) return NULL;
  if (list->count > TKRT_TRITON_MAX_PARAMS) {
    return TKRT_STATUS_MAKE(TKRT_STATUS_INVALID_ARGUMENT,
                            "%s: field 'tensordesc_meta' has %zu entries (at most %d)", json_path,
                            list->count, TKRT_TRITON_MAX_PARAMS);
  }
  tkrt_triton_desc_meta_t* meta = calloc(list->count, sizeof(*meta));
  if (!meta) return TKRT_OOM();
  tkrt_status_t status = NULL;
  for (size_t i = 0; i < list->count && !status; ++i) {
    const tkrt_json_value_t* e = &list->items[i];
    tkrt_triton_desc_meta_t* m = &meta[i];
    char field[96];
    if (e->type != TKRT_JSON_OBJECT) {
      status = TKRT_STATUS_MAKE(TKRT_STATUS_INVALID_ARGUMENT,
                                "%s: field 'tensordesc_meta[%zu]' is %s; it must be an object",
                                json_path, i, tkrt_json_type_name(e->type));
      break;
    }
    /* Field names for errors: tensordesc_meta[i].swizzle (the key after the last '.'). */
    snprintf(field, sizeof(field), "tensordesc_meta[%zu].swizzle", i);
    if ((status = tkrt_triton_field_u32(e, json_path, field, 1, 0, 0, 3, &m->swizzle))) break;
    snprintf(field, sizeof(field), "tensordesc_meta[%zu].elem_size", i);
    if ((status = tkrt_triton_field_u32(e, json_path, field, 1, 0, 1, 8, &m->elem_size))) break;
    if (m->elem_size & (m->elem_size - 1)) {
      status = TKRT_STATUS_MAKE(TKRT_STATUS_INVALID_ARGUMENT,
                                "%s: field '%s' is %u; it must be 1, 2, 4 or 8", json_path, field,
                                m->elem_size);
      break;
    }
    snprintf(field, sizeof(field), "tensordesc_meta[%zu].elem_type", i);
    if ((status = tkrt_triton_field_u32(e, json_path, field, 1, 0, 0, 15, &m->elem_type))) break;
    if (tkrt_triton_desc_host_type(m->elem_type) > 12) {
      status = TKRT_STATUS_MAKE(TKRT_STATUS_INVALID_ARGUMENT,
                                "%s: field '%s' is %u, which is no CUtensorMapDataType tkrt "
                                "knows (0..12)",
                                json_path, field, m->elem_type);
      break;
    }
    snprintf(field, sizeof(field), "tensordesc_meta[%zu].fp4_padded", i);
    if ((status = tkrt_triton_field_bool(e, json_path, field, &m->fp4_padded))) break;
    /* Triton 3.9's im2col descriptors (convolutions) are encoded differently (pixel box corners,
     * element strides from the host object): not a descriptor tkrt encodes. */
    bool im2col = false;
    snprintf(field, sizeof(field), "tensordesc_meta[%zu].is_im2col", i);
    if ((status = tkrt_triton_field_bool(e, json_path, field, &im2col))) break;
    if (im2col) {
      status = TKRT_STATUS_MAKE(TKRT_STATUS_UNIMPLEMENTED,
                                "%s: field '%s' is true: an im2col tensor descriptor (Triton 3.9 and "
                                "newer), which tkrt does not encode (it encodes tiled ones)",
                                json_path, field);
      break;
    }
    snprintf(field, sizeof(field), "tensordesc_meta[%zu].block_size", i);
    const tkrt_json_value_t* block = tkrt_json_get(e, "block_size");
    int ok = block && block->type == TKRT_JSON_ARRAY && block->count >= 1 &&
             block->count <= TKRT_TMA_MAX_RANK;
    for (size_t d = 0; ok && d < block->count; ++d) {
      const tkrt_json_value_t* v = &block->items[d];
      ok = v->type == TKRT_JSON_NUMBER && v->is_integer && v->integer >= 1 && v->integer <= 256;
      if (ok) m->block_size[d] = (uint32_t)v->integer;
    }
    if (!ok) {
      status = TKRT_STATUS_MAKE(TKRT_STATUS_INVALID_ARGUMENT,
                                "%s: field '%s' must be a list of 1..%d integers in 1..256 (the "
                                "TMA box)",
                                json_path, field, TKRT_TMA_MAX_RANK);
      break;
    }
    m->rank = (uint32_t)block->count;
  }
  if (status) {
    free(meta);
    return status;
  }
  o->desc_meta = meta;
  o->desc_meta_count = list->count;
  return NULL;
}

/* The meta against the TTIR's descriptor parameters: one entry each, of the same rank and
 * element size. */
static tkrt_status_t tkrt_triton_desc_meta_check(const tkrt_triton_output_t* o) {
  if (o->desc_meta_count == 0) {
    /* No meta: descriptors are passed decomposed, in the form Triton 3.5 and 3.6 lower them to
     * (base, shape, strides, padding flag, then the TTIR's shape and strides). 3.4 has no padding
     * flag and 3.7 and newer add a round-to-tf32 flag: their decomposed form is another
     * parameter list, which tkrt does not build (their own outputs declare it in the TTIR as
     * plain parameters, which tkrt passes as given). */
    bool decomposed_3_5 = !*o->release || strcmp(o->release, "3.5") == 0 ||
                          strcmp(o->release, "3.6") == 0;
    for (size_t i = 0; i < o->param_count && !decomposed_3_5; ++i) {
      const tkrt_triton_param_t* p = &o->params[i];
      if (p->kind != TKRT_PARAM_TMA) continue;
      return TKRT_STATUS_MAKE(TKRT_STATUS_UNIMPLEMENTED,
                              "%s: parameter '%s: %s' of %s is a tensor descriptor and field "
                              "'tensordesc_meta' is empty (passed decomposed), but Triton %s "
                              "decomposes descriptors into another parameter list than the one "
                              "tkrt builds (Triton 3.5 and 3.6's)",
                              o->json_path, p->name, p->type, o->signature_path, o->release);
    }
    return NULL;
  }
  size_t descriptors = 0;
  for (size_t i = 0; i < o->param_count; ++i) {
    const tkrt_triton_param_t* p = &o->params[i];
    if (p->kind != TKRT_PARAM_TMA) continue;
    if (descriptors < o->desc_meta_count) {
      const tkrt_triton_desc_meta_t* m = &o->desc_meta[descriptors];
      if (m->rank != p->desc_rank || (m->elem_size != p->element_bytes && !m->fp4_padded)) {
        return TKRT_STATUS_MAKE(TKRT_STATUS_INVALID_ARGUMENT,
                                "%s: field 'tensordesc_meta[%zu]' (rank %u, elem_size %u) does not "
                                "fit parameter '%s: %s' of %s",
                                o->json_path, descriptors, m->rank, m->elem_size, p->name, p->type,
                                o->signature_path);
      }
    }
    ++descriptors;
  }
  if (descriptors != o->desc_meta_count) {
    return TKRT_STATUS_MAKE(TKRT_STATUS_INVALID_ARGUMENT,
                            "%s: field 'tensordesc_meta' has %zu entries but %s declares %zu "
                            "tensor descriptor parameters",
                            o->json_path, o->desc_meta_count, o->signature_path, descriptors);
  }
  return NULL;
}

/* Which Triton release wrote a CUDA or HIP output, and that release's launch contract: refused,
 * naming the field and the version, when it is a release tkrt does not read or a build it cannot
 * launch. Triton 3.3 and newer write triton_version; 3.2 writes none, but is the only release
 * that has sanitize_overflow and no global_scratch_size. */
/* MAJOR.MINOR at the start of `version` ("3.6.0", "3.6", "3.6.0+git..."); false otherwise. */
static bool tkrt_triton_release_parse(const char* version, unsigned long* major,
                                      unsigned long* minor) {
  char* end = NULL;
  if (version[0] < '0' || version[0] > '9') return false;
  *major = strtoul(version, &end, 10);
  if (*end != '.' || end[1] < '0' || end[1] > '9') return false;
  *minor = strtoul(end + 1, &end, 10);
  return *end == '.' || *end == '\0' || *end == '+';
}

static tkrt_status_t tkrt_triton_release_read(const tkrt_json_value_t* root,
                                              const char* json_path, const char* version,
                                              tkrt_triton_output_t* o) {
  unsigned long major = 0, minor = 0;
  if (*version) {
    if (!tkrt_triton_release_parse(version, &major, &minor)) {
      return TKRT_STATUS_MAKE(TKRT_STATUS_INVALID_ARGUMENT,
                              "%s: field 'triton_version' is \"%.40s\"; it must be Triton's "
                              "version, MAJOR.MINOR.PATCH",
                              json_path, version);
    }
  } else if (tkrt_json_get(root, "sanitize_overflow") &&
             !tkrt_json_get(root, "global_scratch_size")) {
    major = 3;
    minor = 2;
  } else {
    return TKRT_STATUS_MAKE(TKRT_STATUS_UNIMPLEMENTED,
                            "%s has no field 'triton_version' and is not Triton 3.2's metadata "
                            "(which has 'sanitize_overflow' and no 'global_scratch_size'): it is "
                            "from Triton 3.1 or older; tkrt reads the compile output of Triton "
                            "%s to %s",
                            json_path, TKRT_TRITON_OLDEST, TKRT_TRITON_NEWEST);
  }
  /* The range the header states (TKRT_TRITON_OLDEST / NEWEST), read with the same parser. */
  unsigned long oldest[2] = {0, 0}, newest[2] = {0, 0};
  tkrt_triton_release_parse(TKRT_TRITON_OLDEST, &oldest[0], &oldest[1]);
  tkrt_triton_release_parse(TKRT_TRITON_NEWEST, &newest[0], &newest[1]);
  if (major < oldest[0] || (major == oldest[0] && minor < oldest[1]) || major > newest[0] ||
      (major == newest[0] && minor > newest[1])) {
    return TKRT_STATUS_MAKE(TKRT_STATUS_UNIMPLEMENTED,
                            "%s: field 'triton_version' is \"%.40s\": Triton %lu.%lu, which tkrt "
                            "does not read (it reads the compile output of Triton %s to %s; a "
                            "newer release may change the launch contract)",
                            json_path, version, major, minor, TKRT_TRITON_OLDEST,
                            TKRT_TRITON_NEWEST);
  }
  snprintf(o->release, sizeof(o->release), "%lu.%lu", major, minor);
  o->hidden_pointers = minor < 3   ? TKRT_HIDDEN_POINTERS_NONE
                       : minor < 5 ? TKRT_HIDDEN_POINTERS_GLOBAL
                                   : TKRT_HIDDEN_POINTERS_GLOBAL_PROFILE;
  /* Instrumented builds (Triton 3.5 and newer: sanitizers, which add parameters and need
   * Triton's runtime state beside the kernel) are not a launch contract tkrt can honour. */
  const tkrt_json_value_t* mode = tkrt_json_get(root, "instrumentation_mode");
  if (mode && mode->type != TKRT_JSON_NULL &&
      (mode->type != TKRT_JSON_STRING || mode->length != 0)) {
    return TKRT_STATUS_MAKE(TKRT_STATUS_UNIMPLEMENTED,
                            "%s: field 'instrumentation_mode' is %s%.40s%s (Triton %s): an "
                            "instrumented kernel needs Triton's runtime beside it; tkrt launches "
                            "kernels compiled without instrumentation",
                            json_path, mode->type == TKRT_JSON_STRING ? "\"" : "",
                            mode->type == TKRT_JSON_STRING ? mode->string
                                                           : tkrt_json_type_name(mode->type),
                            mode->type == TKRT_JSON_STRING ? "\"" : "", o->release);
  }
  return NULL;
}

static tkrt_status_t tkrt_triton_output_read(const char* json_path, uint32_t kinds,
                                             bool allow_native_code, tkrt_triton_output_t* o) {
  memset(o, 0, sizeof(*o));
  o->allow_native_code = allow_native_code;
  char* text = NULL;
  size_t size = 0;
  tkrt_json_value_t* root = NULL;
  tkrt_status_t status = NULL;
  o->json_path = tkrt_triton_strdup(json_path);
  if (!o->json_path) return TKRT_OOM();
  if ((status = tkrt_triton_read_file(json_path, TKRT_TRITON_JSON_LIMIT, &text, &size)) ||
      (status = tkrt_json_parse(text, size, json_path, &root))) {
    goto done;
  }
  if (root->type != TKRT_JSON_OBJECT) {
    status = TKRT_STATUS_MAKE(TKRT_STATUS_INVALID_ARGUMENT,
                              "%s is %s, not Triton's kernel metadata (a JSON object)", json_path,
                              tkrt_json_type_name(root->type));
    goto done;
  }
  const char* name = NULL;
  const char* version = NULL;
  const char* hash = NULL;
  if ((status = tkrt_triton_field_string(root, json_path, "name", 1, &name))) goto done;
  if (!*name) {
    status = TKRT_STATUS_MAKE(TKRT_STATUS_INVALID_ARGUMENT, "%s: field 'name' is empty", json_path);
    goto done;
  }
  const tkrt_json_value_t* target = tkrt_json_get(root, "target");
  if (!target || target->type != TKRT_JSON_OBJECT) {
    status = TKRT_STATUS_MAKE(TKRT_STATUS_INVALID_ARGUMENT,
                              "%s: field 'target' is %s; it must be an object {backend, arch, "
                              "warp_size}",
                              json_path, target ? tkrt_json_type_name(target->type) : "missing");
    goto done;
  }
  const char* backend = NULL;
  if ((status = tkrt_triton_field_string(target, json_path, "target.backend", 1, &backend))) {
    goto done;
  }
  /* The backends say which targets they run and how their archs are written. */
  const tkrt_hal_backend_t* runs = tkrt_hal_registry_find_triton_target(backend);
  if (!runs) {
    char targets[128];
    tkrt_hal_registry_triton_targets(targets, sizeof(targets));
    status = TKRT_STATUS_MAKE(TKRT_STATUS_UNIMPLEMENTED,
                              "%s: field 'target.backend' is \"%.40s\"; tkrt runs %s kernels",
                              json_path, backend, targets);
    goto done;
  }
  char arch[64] = "";
  const tkrt_json_value_t* arch_value = tkrt_json_get(target, "arch");
  if (arch_value && arch_value->type == TKRT_JSON_NUMBER && arch_value->is_integer &&
      arch_value->integer > 0 && arch_value->integer < 10000 && runs->formats.triton_arch_is_integer) {
    snprintf(arch, sizeof(arch), "%d", (int)arch_value->integer); /* CUDA: 90 is sm_90 */
  } else if (arch_value && arch_value->type == TKRT_JSON_STRING && arch_value->length > 0 &&
             arch_value->length < sizeof(arch) && !runs->formats.triton_arch_is_integer) {
    snprintf(arch, sizeof(arch), "%s", arch_value->string);
  } else {
    status = TKRT_STATUS_MAKE(TKRT_STATUS_INVALID_ARGUMENT,
                              "%s: field 'target.arch' is %s; it must be %s", json_path,
                              arch_value ? tkrt_json_type_name(arch_value->type) : "missing",
                              runs->formats.triton_arch_expected);
    goto done;
  }
  if ((status = tkrt_triton_field_u32(target, json_path, "target.warp_size", 1, 0, 1, 1024,
                                      &o->warp_size))) {
    goto done;
  }
  if ((status = tkrt_triton_field_u32(root, json_path, "num_warps", 1, 0, 1, 1024, &o->num_warps)) ||
      (status = tkrt_triton_field_u32(root, json_path, "num_ctas", 0, 1, 1, 16, &o->num_ctas)) ||
      (status = tkrt_triton_field_u32(root, json_path, "num_stages", 0, 0, 0, 1024,
                                      &o->num_stages)) ||
      (status = tkrt_triton_field_u32(root, json_path, "shared", 1, 0, 0, UINT32_MAX, &o->shared)) ||
      (status = tkrt_triton_field_u32(root, json_path, "tmem_size", 0, 0, 0, UINT32_MAX,
                                      &o->tmem_size)) ||
      (status = tkrt_triton_field_u32(root, json_path, "global_scratch_size", 0, 0, 0, UINT32_MAX,
                                      &o->global_scratch_size)) ||
      (status = tkrt_triton_field_u32(root, json_path, "global_scratch_align", 0, 1, 1,
                                      1u << 20, &o->global_scratch_align)) ||
      (status = tkrt_triton_field_string(root, json_path, "triton_version", 0, &version)) ||
      (status = tkrt_triton_field_string(root, json_path, "hash", 0, &hash))) {
    goto done;
  }
  if (o->global_scratch_align & (o->global_scratch_align - 1)) {
    status = TKRT_STATUS_MAKE(TKRT_STATUS_INVALID_ARGUMENT,
                              "%s: field 'global_scratch_align' is %u, not a power of two",
                              json_path, o->global_scratch_align);
    goto done;
  }
  /* Triton's outputs carry their release; host targets are tkrt's own format. */
  if (runs->formats.triton_output_versioned &&
      (status = tkrt_triton_release_read(root, json_path, version ? version : "", o))) {
    goto done;
  }
  /* Profile scratch (kernels instrumented for proton): allocated per launch like global scratch. */
  if ((status = tkrt_triton_field_u32(root, json_path, "profile_scratch_size", 0, 0, 0, UINT32_MAX,
                                      &o->profile_scratch_size)) ||
      (status = tkrt_triton_field_u32(root, json_path, "profile_scratch_align", 0, 1, 1, 1u << 20,
                                      &o->profile_scratch_align))) {
    goto done;
  }
  if (o->profile_scratch_align & (o->profile_scratch_align - 1)) {
    status = TKRT_STATUS_MAKE(TKRT_STATUS_INVALID_ARGUMENT,
                              "%s: field 'profile_scratch_align' is %u, not a power of two",
                              json_path, o->profile_scratch_align);
    goto done;
  }
  if ((status = tkrt_triton_desc_meta_read(root, json_path, o))) goto done;
  bool cooperative = false, pdl = false;
  if ((status = tkrt_triton_field_bool(root, json_path, "launch_cooperative_grid", &cooperative)) ||
      (status = tkrt_triton_field_bool(root, json_path, "launch_pdl", &pdl))) {
    goto done;
  }
  o->launch_flags = (cooperative ? TKRT_LAUNCH_COOPERATIVE : 0u) | (pdl ? TKRT_LAUNCH_PDL : 0u);
  const tkrt_json_value_t* cluster = tkrt_json_get(root, "cluster_dims");
  if (cluster && cluster->type != TKRT_JSON_NULL) {
    int ok = cluster->type == TKRT_JSON_ARRAY && cluster->count == 3;
    for (size_t i = 0; ok && i < 3; ++i) {
      const tkrt_json_value_t* d = &cluster->items[i];
      ok = d->type == TKRT_JSON_NUMBER && d->is_integer && d->integer >= 1 && d->integer <= 16;
      if (ok) o->cluster_dims[i] = (uint32_t)d->integer;
    }
    if (!ok) {
      status = TKRT_STATUS_MAKE(TKRT_STATUS_INVALID_ARGUMENT,
                                "%s: field 'cluster_dims' must be null or three integers in 1..16",
                                json_path);
      goto done;
    }
    if (o->cluster_dims[0] * o->cluster_dims[1] * o->cluster_dims[2] == 1) {
      memset(o->cluster_dims, 0, sizeof(o->cluster_dims));
    }
  }
  if (o->num_ctas > 1 && o->cluster_dims[0] && o->cluster_dims[0] * o->cluster_dims[1] *
                                                       o->cluster_dims[2] != o->num_ctas) {
    status = TKRT_STATUS_MAKE(TKRT_STATUS_INVALID_ARGUMENT,
                              "inconsistent: %s has num_ctas %u but cluster_dims [%u, %u, %u]",
                              json_path, o->num_ctas, o->cluster_dims[0], o->cluster_dims[1],
                              o->cluster_dims[2]);
    goto done;
  }
  o->name = tkrt_triton_strdup(name);
  o->backend = tkrt_triton_strdup(backend);
  o->arch = tkrt_triton_strdup(arch);
  o->triton_version = tkrt_triton_strdup(version);
  o->hash = tkrt_triton_strdup(hash);
  if (!o->name || !o->backend || !o->arch || !o->triton_version || !o->hash) {
    status = TKRT_OOM();
    goto done;
  }

  /* A target none of whose image kinds is asked for is left out (e.g. HSACO folders when only
   * cubins are wanted); one whose wanted images are missing is an error below. */
  /* What may sit beside it: the target backend's kinds that Triton writes, in its order, then the
   * kinds any target may carry (a host image), each backend's once. */
  const tkrt_hal_backend_t* candidate_backends[TKRT_TRITON_KINDS_MAX];
  const tkrt_hal_image_format_t* candidates[TKRT_TRITON_KINDS_MAX];
  size_t candidate_count = 0;
  uint32_t possible = 0;
  size_t registered = 0;
  const tkrt_hal_backend_t* const* all = tkrt_hal_registry_backends(&registered);
  for (size_t pass = 0; pass < 2; ++pass) {
    for (size_t b = 0; b < registered; ++b) {
      if ((pass == 0) != (all[b] == runs)) continue;
      for (size_t f = 0; f < all[b]->formats.image_format_count; ++f) {
        const tkrt_hal_image_format_t* format = &all[b]->formats.image_formats[f];
        if (!format->triton_extension || (pass == 1 && !format->any_triton_target)) continue;
        if (candidate_count == TKRT_TRITON_KINDS_MAX) continue;
        candidate_backends[candidate_count] = all[b];
        candidates[candidate_count++] = format;
        possible |= 1u << format->kind;
      }
    }
  }
  if (!(kinds & possible)) {
    o->skipped = 1;
    goto done;
  }

  /* The files beside the JSON share its stem. */
  char stem[TKRT_TRITON_PATH_MAX];
  size_t stem_length = strlen(json_path) - 5; /* ".json" */
  if (stem_length + 16 >= sizeof(stem)) {
    status = TKRT_STATUS_MAKE(TKRT_STATUS_INVALID_ARGUMENT, "path too long: %s", json_path);
    goto done;
  }
  memcpy(stem, json_path, stem_length);
  stem[stem_length] = '\0';
  for (size_t i = 0; i < candidate_count; ++i) {
    if ((status = tkrt_triton_take_image(o, stem, candidate_backends[i], candidates[i], runs,
                                         kinds))) {
      goto done;
    }
  }
  if (o->image_count == 0 && o->native_code_left_out) {
    status = TKRT_STATUS_MAKE(TKRT_STATUS_PERMISSION_DENIED,
                              "%s: its only image (of the kinds asked for) is %s, a host image: "
                              "native code, which would run in this process with its rights. "
                              "tkrt loads it only with consent: "
                              "tkrt_triton_load_options_t.allow_native_code, the CLI's "
                              "--allow-native-code, allow_native_code=True in Python; give it "
                              "only for a folder you trust as your own code (docs/security.md)",
                              json_path, o->native_code_left_out);
    goto done;
  }
  if (o->image_count == 0) {
    /* The files the target's backend reads (the host's own if it is the host's). */
    char expected[2 * TKRT_TRITON_PATH_MAX + 64] = "";
    for (size_t i = 0, listed = 0; i < candidate_count; ++i) {
      if (candidate_backends[i] != runs) continue;
      size_t used = strlen(expected);
      snprintf(expected + used, sizeof(expected) - used, "%s%s%s", listed ? " or " : "", stem,
               candidates[i]->triton_extension);
      listed++;
    }
    status = TKRT_STATUS_MAKE(TKRT_STATUS_NOT_FOUND,
                              "%s: no image (of the kinds asked for) beside it: expected %s "
                              "(Triton writes the image next to the metadata)",
                              json_path, expected);
    goto done;
  }

  /* The signature: the TTIR, else the .source Triton keeps of the same module. */
  char sig_path[TKRT_TRITON_PATH_MAX + 16];
  snprintf(sig_path, sizeof(sig_path), "%s.ttir", stem);
  if (access(sig_path, F_OK) != 0) snprintf(sig_path, sizeof(sig_path), "%s.source", stem);
  if (access(sig_path, F_OK) != 0) {
    status = TKRT_STATUS_MAKE(TKRT_STATUS_NOT_FOUND,
                              "%s: the parameter list is missing: expected %s.ttir or %s.source "
                              "beside it (Triton writes both)",
                              json_path, stem, stem);
    goto done;
  }
  free(text);
  text = NULL;
  o->signature_path = tkrt_triton_strdup(sig_path);
  if (!o->signature_path) {
    status = TKRT_OOM();
    goto done;
  }
  if ((status = tkrt_triton_read_file(sig_path, TKRT_TRITON_TTIR_LIMIT, &text, &size)) ||
      (status = tkrt_triton_parse_signature(text, size, o->name, sig_path, &o->params,
                                            &o->param_count)) ||
      (status = tkrt_triton_desc_meta_check(o))) {
    goto done;
  }
  /* A host image declares its kernel's signature too: tkrt passes parameters by the TTIR's, so
   * the two must agree (a reordered TTIR would hand the kernel a scalar as a pointer). */
  for (size_t i = 0; i < o->image_count && !status; ++i) {
    const tkrt_hal_image_format_t* format = tkrt_hal_registry_format(o->images[i].kind, NULL);
    if (!format || !format->native_code) continue;
    char* declared = NULL;
    status = tkrt_triton_host_signature(o->images[i].data, o->images[i].size, o->name,
                                        o->image_paths[i], &declared);
    if (!status && declared) {
      status = tkrt_triton_check_host_signature(o->params, o->param_count, sig_path, o->name,
                                                declared, o->image_paths[i]);
    }
    free(declared);
  }

done:
  free(text);
  tkrt_json_free(root);
  if (status) tkrt_triton_output_clear(o);
  return status;
}

/* ---------------------------------------------------------------- finding the outputs */

/* Expands one user path into metadata JSON paths (appended to `out`). */
static tkrt_status_t tkrt_triton_expand_path(const char* path, tkrt_triton_names_t* out) {
  struct stat st;
  if (stat(path, &st) != 0) {
    int error = errno;
    return TKRT_STATUS_MAKE(tkrt_fs_errno_code(error), "cannot open %s: %s", path,
                            strerror(error));
  }
  if (!S_ISDIR(st.st_mode)) {
    if (!tkrt_triton_ends_with(path, ".json")) {
      return TKRT_STATUS_MAKE(TKRT_STATUS_INVALID_ARGUMENT,
                              "%s is not Triton's metadata: name the <kernel>.json that Triton "
                              "wrote, or its directory",
                              path);
    }
    return tkrt_triton_names_add(out, path);
  }
  tkrt_triton_names_t found = {0};
  char joined[TKRT_TRITON_PATH_MAX];
  tkrt_status_t status = tkrt_triton_list_dir(path, 0, &found);
  if (!status && found.count > 1) {
    char listed[512];
    size_t used = 0;
    for (size_t i = 0; i < found.count && used < sizeof(listed); ++i) {
      int n = snprintf(listed + used, sizeof(listed) - used, "%s%s", i ? ", " : "",
                       found.items[i]);
      if (n > 0) used += (size_t)n;
    }
    status = TKRT_STATUS_MAKE(TKRT_STATUS_INVALID_ARGUMENT,
                              "%s holds %zu kernels' metadata (%s); name the one to load", path,
                              found.count, listed);
  } else if (!status && found.count == 1) {
    snprintf(joined, sizeof(joined), "%s/%s", path, found.items[0]);
    status = tkrt_triton_names_add(out, joined);
  } else if (!status) {
    /* No JSON here: one target per subdirectory (e.g. cuda_sm90/, hip_gfx942/). */
    tkrt_triton_names_t dirs = {0};
    status = tkrt_triton_list_dir(path, 1, &dirs);
    size_t added = 0;
    for (size_t d = 0; !status && d < dirs.count; ++d) {
      tkrt_triton_names_t inner = {0};
      snprintf(joined, sizeof(joined), "%s/%s", path, dirs.items[d]);
      status = tkrt_triton_list_dir(joined, 0, &inner);
      if (!status && inner.count == 1) {
        char file[TKRT_TRITON_PATH_MAX];
        int n = snprintf(file, sizeof(file), "%s/%s", joined, inner.items[0]);
        if (n > 0 && (size_t)n < sizeof(file)) {
          status = tkrt_triton_names_add(out, file);
          ++added;
        }
      } else if (!status && inner.count > 1) {
        status = TKRT_STATUS_MAKE(TKRT_STATUS_INVALID_ARGUMENT,
                                  "%s holds %zu kernels' metadata; name the one to load", joined,
                                  inner.count);
      }
      tkrt_triton_names_free(&inner);
    }
    tkrt_triton_names_free(&dirs);
    if (!status && added == 0) {
      status = TKRT_STATUS_MAKE(TKRT_STATUS_NOT_FOUND,
                                "%s holds no Triton kernel metadata (<kernel>.json), nor do its "
                                "subdirectories",
                                path);
    }
  }
  tkrt_triton_names_free(&found);
  return status;
}

/* ---------------------------------------------------------------- merging */

static tkrt_status_t tkrt_triton_check_same(const tkrt_triton_output_t* a,
                                            const tkrt_triton_output_t* b) {
#define TKRT_TRITON_SAME_U32(field)                                                              \
  if (a->field != b->field) {                                                                    \
    return TKRT_STATUS_MAKE(TKRT_STATUS_INVALID_ARGUMENT,                                        \
                            "inconsistent targets: field '" #field "' is %u in %s but %u in %s", \
                            a->field, a->json_path, b->field, b->json_path);                     \
  }
  if (strcmp(a->name, b->name) != 0) {
    return TKRT_STATUS_MAKE(TKRT_STATUS_INVALID_ARGUMENT,
                            "inconsistent targets: field 'name' is '%s' in %s but '%s' in %s",
                            a->name, a->json_path, b->name, b->json_path);
  }
  TKRT_TRITON_SAME_U32(num_warps);
  TKRT_TRITON_SAME_U32(num_ctas);
  TKRT_TRITON_SAME_U32(cluster_dims[0]);
  TKRT_TRITON_SAME_U32(cluster_dims[1]);
  TKRT_TRITON_SAME_U32(cluster_dims[2]);
  TKRT_TRITON_SAME_U32(launch_flags);
#undef TKRT_TRITON_SAME_U32
  /* One launch passes one set of hidden pointers: targets of Triton releases that declare
   * different ones cannot share it (host targets declare none of their own). */
  if (*a->release && *b->release && a->hidden_pointers != b->hidden_pointers) {
    return TKRT_STATUS_MAKE(TKRT_STATUS_INVALID_ARGUMENT,
                            "inconsistent targets: %s is Triton %s's output (hidden scratch "
                            "pointers: %u) but %s is Triton %s's (%u)",
                            a->json_path, a->release, tkrt_hidden_pointer_count(a->hidden_pointers),
                            b->json_path, b->release, tkrt_hidden_pointer_count(b->hidden_pointers));
  }
  if (strcmp(a->backend, b->backend) == 0 && strcmp(a->arch, b->arch) == 0) {
    return TKRT_STATUS_MAKE(TKRT_STATUS_INVALID_ARGUMENT,
                            "%s and %s are both for %s %s: two builds for one target are variants "
                            "of the kernel (make a call with several variants), not targets",
                            a->json_path, b->json_path, a->backend, a->arch);
  }
  if (a->param_count != b->param_count) {
    return TKRT_STATUS_MAKE(TKRT_STATUS_INVALID_ARGUMENT,
                            "inconsistent targets: %s declares %zu parameters but %s declares %zu",
                            a->signature_path, a->param_count, b->signature_path, b->param_count);
  }
  for (size_t i = 0; i < a->param_count; ++i) {
    const tkrt_triton_param_t* x = &a->params[i];
    const tkrt_triton_param_t* y = &b->params[i];
    if (strcmp(x->name, y->name) != 0 || strcmp(x->type, y->type) != 0 ||
        x->divisibility != y->divisibility) {
      return TKRT_STATUS_MAKE(TKRT_STATUS_INVALID_ARGUMENT,
                              "inconsistent targets: parameter %zu is '%s: %s' (divisibility %u) in "
                              "%s but '%s: %s' (divisibility %u) in %s",
                              i, x->name, x->type, x->divisibility, a->signature_path, y->name,
                              y->type, y->divisibility, b->signature_path);
    }
  }
  return NULL;
}

static void tkrt_triton_kernel_destroy(tkrt_triton_kernel_t* k) {
  if (!k) return;
  tkrt_kernel_release(k->kernel);
  free(k->name);
  tkrt_triton_params_free(k->params, k->param_count);
  free(k->desc_meta);
  for (size_t i = 0; i < k->target_count; ++i) {
    tkrt_triton_target_t* t = &k->targets[i];
    free((void*)t->json_path);
    free((void*)t->backend);
    free((void*)t->arch);
    free((void*)t->triton_version);
    free((void*)t->hash);
    free((void*)t->native_code_left_out);
    free((void*)t->triton_release);
  }
  free(k->targets);
  free(k->constants);
  free(k);
}

/* Moves what the outputs hold into a new kernel (the outputs keep only what was not moved). */
static tkrt_status_t tkrt_triton_kernel_build(tkrt_triton_output_t* outputs, size_t count,
                                              tkrt_triton_kernel_t** out_kernel) {
  tkrt_triton_kernel_t* k = calloc(1, sizeof(*k));
  if (!k) return TKRT_OOM();
  atomic_init(&k->ref_count, 1);
  tkrt_status_t status = NULL;
  size_t image_total = 0;
  for (size_t i = 0; i < count; ++i) image_total += outputs[i].image_count;
  tkrt_kernel_image_t* images = calloc(image_total, sizeof(*images));
  k->targets = calloc(count, sizeof(*k->targets));
  if (!images || !k->targets) {
    status = TKRT_OOM();
    goto fail;
  }
  const tkrt_triton_output_t* first = &outputs[0];
  tkrt_kernel_desc_t desc;
  tkrt_kernel_desc_init(&desc);
  desc.name = first->name;
  desc.num_warps = first->num_warps;
  desc.num_ctas = first->num_ctas;
  if (first->num_ctas <= 1 && first->cluster_dims[0]) {
    /* An explicit cluster shape: tkrt honours cluster_dims when num_ctas is not above 1. */
    memcpy(desc.cluster_dims, first->cluster_dims, sizeof(desc.cluster_dims));
  }
  desc.launch_flags = first->launch_flags;
  for (size_t i = 0; i < count; ++i) {
    if (*outputs[i].release) desc.hidden_pointers = outputs[i].hidden_pointers;
  }
  desc.global_scratch_align = 1;
  desc.profile_scratch_align = 1;
  size_t n = 0;
  for (size_t i = 0; i < count; ++i) {
    const tkrt_triton_output_t* o = &outputs[i];
    /* One scratch allocation serves every target: the largest size and alignment. */
    if (o->global_scratch_size > desc.global_scratch_size) {
      desc.global_scratch_size = o->global_scratch_size;
    }
    if (o->global_scratch_align > desc.global_scratch_align) {
      desc.global_scratch_align = o->global_scratch_align;
    }
    if (o->profile_scratch_size > desc.profile_scratch_size) {
      desc.profile_scratch_size = o->profile_scratch_size;
    }
    if (o->profile_scratch_align > desc.profile_scratch_align) {
      desc.profile_scratch_align = o->profile_scratch_align;
    }
    const tkrt_hal_backend_t* runs = tkrt_hal_registry_find_triton_target(o->backend);
    if (runs && runs->formats.triton_arch_is_integer && !desc.compute_capability) {
      desc.compute_capability = (uint32_t)strtoul(o->arch, NULL, 10);
    }
    for (size_t j = 0; j < o->image_count; ++j) images[n++] = o->images[j];
  }
  desc.images = images;
  desc.image_count = n;
  status = tkrt_kernel_create(&desc, &k->kernel);
  if (status) goto fail;
  k->name = tkrt_triton_strdup(first->name);
  if (!k->name) {
    status = TKRT_OOM();
    goto fail;
  }
  k->num_warps = first->num_warps;
  k->num_stages = first->num_stages;
  for (size_t i = 0; i < count; ++i) {
    tkrt_triton_output_t* o = &outputs[i];
    tkrt_triton_target_t* t = &k->targets[i];
    /* The image's own arch spelling ("sm_90a") is more precise than the JSON's (90). */
    const char* image_arch = NULL;
    for (size_t j = 0; j < o->image_count && !image_arch; ++j) {
      if (!o->images[j].backend && o->images[j].arch) image_arch = o->images[j].arch;
    }
    const tkrt_hal_backend_t* runs = tkrt_hal_registry_find_triton_target(o->backend);
    char arch[80];
    if (image_arch) snprintf(arch, sizeof(arch), "%s", image_arch);
    else if (runs && runs->formats.triton_arch_name) runs->formats.triton_arch_name(o->arch, arch, sizeof(arch));
    else snprintf(arch, sizeof(arch), "%s", o->arch);
    t->arch = tkrt_triton_strdup(arch);
    t->json_path = o->json_path;
    o->json_path = NULL;
    t->backend = o->backend;
    o->backend = NULL;
    t->triton_version = o->triton_version;
    o->triton_version = NULL;
    t->hash = o->hash;
    o->hash = NULL;
    t->warp_size = o->warp_size;
    t->num_stages = o->num_stages;
    t->shared_mem_bytes = o->shared;
    t->global_scratch_size = o->global_scratch_size;
    t->global_scratch_align = o->global_scratch_align;
    t->tmem_size = o->tmem_size;
    t->image_kinds = o->image_kinds;
    t->native_code_left_out = o->native_code_left_out;
    o->native_code_left_out = NULL;
    t->triton_release = tkrt_triton_strdup(o->release);
    t->hidden_pointers = o->hidden_pointers;
    k->target_count++;
    if (!t->arch || !t->triton_release) {
      status = TKRT_OOM();
      goto fail;
    }
  }
  for (size_t i = 0; i < count && !k->desc_meta; ++i) {
    if (!outputs[i].desc_meta_count) continue;
    k->desc_meta = outputs[i].desc_meta;
    k->desc_meta_count = outputs[i].desc_meta_count;
    k->desc_meta_path = k->targets[i].json_path;
    outputs[i].desc_meta = NULL;
    outputs[i].desc_meta_count = 0;
  }
  k->params = outputs[0].params;
  k->param_count = outputs[0].param_count;
  outputs[0].params = NULL;
  outputs[0].param_count = 0;
  free(images);
  *out_kernel = k;
  return NULL;
fail:
  free(images);
  tkrt_triton_kernel_destroy(k);
  return status;
}

/* ---------------------------------------------------------------- public API */

void tkrt_triton_load_options_init(tkrt_triton_load_options_t* options) {
  memset(options, 0, sizeof(*options));
  options->struct_size = sizeof(*options);
}

tkrt_status_t tkrt_triton_image_kind_from_name(const char* name, tkrt_image_kind_t* out_kind) {
  size_t registered = 0;
  const tkrt_hal_backend_t* const* all = tkrt_hal_registry_backends(&registered);
  char known[128] = "";
  for (size_t b = 0; b < registered; ++b) {
    for (size_t f = 0; f < all[b]->formats.image_format_count; ++f) {
      const tkrt_hal_image_format_t* format = &all[b]->formats.image_formats[f];
      if (!format->triton_extension) continue;
      const char* kind_name = tkrt_image_kind_name(format->kind);
      if (name && out_kind && strcmp(name, kind_name) == 0) {
        *out_kind = format->kind;
        return NULL;
      }
      size_t used = strlen(known);
      snprintf(known + used, sizeof(known) - used, "%s%s", used ? ", " : "", kind_name);
    }
  }
  return TKRT_STATUS_MAKE(TKRT_STATUS_INVALID_ARGUMENT,
                          "unknown image kind '%s' (Triton's output holds %s)",
                          name ? name : "(null)", known);
}

tkrt_status_t tkrt_triton_kernel_load(const char* const* paths, size_t path_count,
                                      const tkrt_triton_load_options_t* caller_options,
                                      tkrt_triton_kernel_t** out_kernel) {
  if (!paths || path_count == 0 || !out_kernel) {
    return TKRT_STATUS_MAKE(TKRT_STATUS_INVALID_ARGUMENT,
                            "tkrt_triton_kernel_load: no path given (or NULL out_kernel)");
  }
  tkrt_triton_load_options_t options;
  tkrt_triton_load_options_init(&options);
  if (caller_options) {
    TKRT_RETURN_IF_ERROR(tkrt_versioned_read(&options, sizeof(options), caller_options,
                                             "tkrt_triton_kernel_load"));
  }
  uint32_t kinds = options.image_kinds;
  if (kinds == 0) {
    /* Every kind Triton writes for some backend. */
    size_t registered = 0;
    const tkrt_hal_backend_t* const* all = tkrt_hal_registry_backends(&registered);
    for (size_t b = 0; b < registered; ++b) {
      for (size_t f = 0; f < all[b]->formats.image_format_count; ++f) {
        if (all[b]->formats.image_formats[f].triton_extension) kinds |= 1u << all[b]->formats.image_formats[f].kind;
      }
    }
  }
  tkrt_triton_names_t jsons = {0};
  tkrt_status_t status = NULL;
  for (size_t i = 0; !status && i < path_count; ++i) {
    if (!paths[i]) {
      status = TKRT_STATUS_MAKE(TKRT_STATUS_INVALID_ARGUMENT, "tkrt_triton_kernel_load: path %zu is NULL", i);
    } else {
      status = tkrt_triton_expand_path(paths[i], &jsons);
    }
  }
  if (!status && jsons.count > TKRT_TRITON_MAX_TARGETS) {
    status = TKRT_STATUS_MAKE(TKRT_STATUS_INVALID_ARGUMENT,
                              "%zu targets given; at most %d", jsons.count, TKRT_TRITON_MAX_TARGETS);
  }
  tkrt_triton_output_t* outputs = NULL;
  if (!status) {
    outputs = calloc(jsons.count, sizeof(*outputs));
    if (!outputs) status = TKRT_OOM();
  }
  size_t kept = 0;
  for (size_t i = 0; !status && i < jsons.count; ++i) {
    status = tkrt_triton_output_read(jsons.items[i], kinds, options.allow_native_code,
                                     &outputs[kept]);
    if (status) break;
    if (outputs[kept].skipped) {
      tkrt_triton_output_clear(&outputs[kept]);
      continue;
    }
    for (size_t j = 0; !status && j < kept; ++j) {
      status = tkrt_triton_check_same(&outputs[j], &outputs[kept]);
    }
    ++kept;
  }
  if (!status && kept == 0) {
    status = TKRT_STATUS_MAKE(TKRT_STATUS_NOT_FOUND,
                              "none of the %zu targets (the first: %s) can have images of the "
                              "kinds asked for",
                              jsons.count, jsons.items[0]);
  }
  tkrt_triton_kernel_t* kernel = NULL;
  if (!status) status = tkrt_triton_kernel_build(outputs, kept, &kernel);
  if (!status) {
    status = tkrt_triton_constants_normalise(options.constants, &kernel->constants);
    if (status) {
      status = tkrt_status_annotate(status, "tkrt_triton_load_options_t.constants");
      tkrt_triton_kernel_release(kernel);
      kernel = NULL;
    }
  }
  for (size_t i = 0; outputs && i < jsons.count; ++i) tkrt_triton_output_clear(&outputs[i]);
  free(outputs);
  tkrt_triton_names_free(&jsons);
  if (status) return status;
  *out_kernel = kernel;
  return NULL;
}

void tkrt_triton_kernel_retain(tkrt_triton_kernel_t* kernel) {
  if (kernel) atomic_fetch_add(&kernel->ref_count, 1);
}

void tkrt_triton_kernel_release(tkrt_triton_kernel_t* kernel) {
  if (kernel && atomic_fetch_sub(&kernel->ref_count, 1) == 1) tkrt_triton_kernel_destroy(kernel);
}

tkrt_kernel_t* tkrt_triton_kernel_get(const tkrt_triton_kernel_t* kernel) {
  return kernel ? kernel->kernel : NULL;
}

const char* tkrt_triton_kernel_constants(const tkrt_triton_kernel_t* kernel) {
  return kernel && kernel->constants ? kernel->constants : "";
}

const char* tkrt_triton_kernel_name(const tkrt_triton_kernel_t* kernel) {
  return kernel ? kernel->name : NULL;
}

size_t tkrt_triton_kernel_param_count(const tkrt_triton_kernel_t* kernel) {
  return kernel ? kernel->param_count : 0;
}

const tkrt_triton_param_t* tkrt_triton_kernel_param(const tkrt_triton_kernel_t* kernel,
                                                    size_t index) {
  return kernel && index < kernel->param_count ? &kernel->params[index] : NULL;
}

size_t tkrt_triton_kernel_target_count(const tkrt_triton_kernel_t* kernel) {
  return kernel ? kernel->target_count : 0;
}

const tkrt_triton_target_t* tkrt_triton_kernel_target(const tkrt_triton_kernel_t* kernel,
                                                      size_t index) {
  return kernel && index < kernel->target_count ? &kernel->targets[index] : NULL;
}

long tkrt_triton_kernel_find_param(const tkrt_triton_kernel_t* kernel, const char* name) {
  if (!kernel || !name) return -1;
  for (size_t i = 0; i < kernel->param_count; ++i) {
    if (strcmp(kernel->params[i].name, name) == 0) return (long)i;
  }
  return -1;
}

/* ---------------------------------------------------------------- Triton's cache */

tkrt_status_t tkrt_triton_cache_scan(const char* cache_dir, const char* name,
                                     tkrt_triton_cache_visitor_t visit, void* user) {
  char dir[TKRT_TRITON_PATH_MAX];
  if (!visit) {
    return TKRT_STATUS_MAKE(TKRT_STATUS_INVALID_ARGUMENT, "tkrt_triton_cache_scan: no visitor");
  }
  if (!cache_dir || !*cache_dir) {
    /* Triton's own lookup order: TRITON_CACHE_DIR, else ~/.triton/cache (core/environment.c). */
    TKRT_RETURN_IF_ERROR(tkrt_environment_triton_cache_dir(dir, sizeof(dir)));
  } else {
    snprintf(dir, sizeof(dir), "%s", cache_dir);
  }
  if (!tkrt_triton_is_dir(dir)) {
    return TKRT_STATUS_MAKE(TKRT_STATUS_NOT_FOUND, "Triton cache directory %s does not exist", dir);
  }
  tkrt_triton_names_t hashes = {0};
  tkrt_status_t status = tkrt_triton_list_dir(dir, 1, &hashes);
  int stop = 0;
  for (size_t h = 0; !status && !stop && h < hashes.count; ++h) {
    char entry[TKRT_TRITON_PATH_MAX];
    int n = snprintf(entry, sizeof(entry), "%s/%s", dir, hashes.items[h]);
    if (n < 0 || (size_t)n >= sizeof(entry)) continue;
    tkrt_triton_names_t files = {0};
    status = tkrt_triton_list_dir(entry, 0, &files);
    for (size_t f = 0; !status && !stop && f < files.count; ++f) {
      char kernel[TKRT_TRITON_PATH_MAX];
      size_t length = strlen(files.items[f]) - 5;
      snprintf(kernel, sizeof(kernel), "%.*s", (int)length, files.items[f]);
      if (name && strcmp(name, kernel) != 0) continue;
      char path[TKRT_TRITON_PATH_MAX + 256];
      snprintf(path, sizeof(path), "%s/%s", entry, files.items[f]);
      stop = !visit(path, kernel, user);
    }
    tkrt_triton_names_free(&files);
  }
  tkrt_triton_names_free(&hashes);
  return status;
}
