/* SPDX-License-Identifier: Apache-2.0 */
/* tkrt triton: bound launches of Triton kernels (tkrt/triton_bound.h), the layer above the
 * runtime (its devices and tuner) and the Triton loader (whose parameter lists, grid programs and
 * scalar rules it applies at each launch). A call made once with the
 * scalars' defaults and prepared on the device; per launch, every argument is checked against
 * its parameter (kind, integer range, tt.divisibility, descriptor rank / block / strides / base),
 * the scalars and descriptor shapes go to the core as per-launch values, and the grid is each
 * variant's compiled program run on this launch's scalars. A tuning key picks, per distinct
 * tuple of its scalars' values, a call of its own (the same call with those values, so its digest
 * and therefore its tuning decision differ), made and prepared on first use and kept in a table
 * read without a lock. */
#include <inttypes.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/versioned.h"
#include "tkrt/runtime.h"
#include "tkrt/triton_bound.h"
#include "triton/triton_bound_internal.h"
#include "triton/triton_internal.h"

#define TKRT_BOUND_STACK 64    /* arguments / buffers / scalars handled on the stack */
#define TKRT_BOUND_BUCKETS 64  /* tuning-key table */
#define TKRT_BOUND_KEYS_MAX 16 /* scalars in a tuning key */
/* Distinct tuning-key values a bound call keeps (each a call, loaded and decided, kept until the
 * bound call is destroyed); a launch with one more is refused. triton_bound.h documents it. */
#define TKRT_BOUND_KEY_VALUES_MAX 4096
#define TKRT_OOM() TKRT_STATUS_MAKE(TKRT_STATUS_RESOURCE_EXHAUSTED, "out of host memory")

/* One tuning-key value's call: immutable once published. */
typedef struct tkrt_bound_key_entry {
  struct tkrt_bound_key_entry* next;
  tkrt_call_t* call;
  int64_t values[TKRT_BOUND_KEYS_MAX]; /* key_count used */
} tkrt_bound_key_entry_t;

/* Where a parameter's launch values go. */
typedef struct tkrt_bound_slot {
  size_t buffer;  /* pointers, descriptors: the buffer index */
  size_t scalar;  /* scalars: the call's scalar index; descriptors: the first hidden one's */
  size_t tma;     /* descriptors: the TMA parameter's index */
  int has_default;
  tkrt_scalar_t default_value;  /* the call's value when has_default */
  int64_t default_integer;      /* for the grid */
  uint32_t tma_block[TKRT_TMA_MAX_RANK]; /* descriptors: meta's box (fp4_padded: see below) */
  bool fp4_padded;
  bool decomposed; /* descriptors: passed decomposed (no TMA), tkrt_triton_kernel_decomposed */
  bool unsigned_read; /* integer scalars: one of the desc's unsigned_scalars */
  /* The launch's fast path, set at create from the parameter: what it takes, and for integer
   * scalars their range and kind; anything off it goes through the checks that explain. */
  uint8_t op;            /* TKRT_BOUND_OP_* */
  uint32_t divisibility; /* tt.divisibility (pointers, integers); 0 or 1: none */
  tkrt_param_kind_t kind; /* INT: the scalar's kind (I32, I64, BOOL, U32 never: a float) */
  int64_t low;            /* INT: the range (tkrt_triton_int_range) */
  uint64_t high;
  /* POINTER, TMA: the DLPack dtypes (code << 8 | bits) an array for it may have, two at most;
   * 0 of them: an element tkrt knows no DLPack type of (a given dtype is refused). */
  uint32_t dtypes[2];
  uint32_t dtype_count;
} tkrt_bound_slot_t;

/* The DLPack type codes tkrt names (dlpack.h's DLDataTypeCode). */
enum { TKRT_DL_INT = 0, TKRT_DL_UINT = 1, TKRT_DL_FLOAT = 2, TKRT_DL_BFLOAT = 4,
       TKRT_DL_COMPLEX = 5, TKRT_DL_BOOL = 6 };
#define TKRT_DL(code, bits) ((uint32_t)(code) << 8 | (uint32_t)(bits))

/* Triton's element names and the DLPack types arrays of them have (TTIR's integers are signless:
 * either signedness; i1 is a bool array; the float8 names by DLPack's codes 9..13). */
static const struct tkrt_bound_element {
  const char* name;
  uint32_t dtypes[2];
  uint32_t count;
} kTkrtElements[] = {
    {"i1", {TKRT_DL(TKRT_DL_BOOL, 8)}, 1},
    {"i8", {TKRT_DL(TKRT_DL_INT, 8), TKRT_DL(TKRT_DL_UINT, 8)}, 2},
    {"i16", {TKRT_DL(TKRT_DL_INT, 16), TKRT_DL(TKRT_DL_UINT, 16)}, 2},
    {"i32", {TKRT_DL(TKRT_DL_INT, 32), TKRT_DL(TKRT_DL_UINT, 32)}, 2},
    {"i64", {TKRT_DL(TKRT_DL_INT, 64), TKRT_DL(TKRT_DL_UINT, 64)}, 2},
    {"fp16", {TKRT_DL(TKRT_DL_FLOAT, 16)}, 1},
    {"fp32", {TKRT_DL(TKRT_DL_FLOAT, 32)}, 1},
    {"fp64", {TKRT_DL(TKRT_DL_FLOAT, 64)}, 1},
    {"bf16", {TKRT_DL(TKRT_DL_BFLOAT, 16)}, 1},
    {"fp8e4b15", {TKRT_DL(9, 8)}, 1},
    {"fp8e4nv", {TKRT_DL(10, 8)}, 1},
    {"fp8e4b8", {TKRT_DL(11, 8)}, 1},
    {"fp8e5", {TKRT_DL(12, 8)}, 1},
    {"fp8e5b16", {TKRT_DL(13, 8)}, 1},
};

/* A pointer's or descriptor's element name: "*fp32" -> "fp32", "tensordesc<fp16[64, 64]>" ->
 * "fp16". */
static void tkrt_bound_element_name(const tkrt_triton_param_t* p, char* out, size_t capacity) {
  const char* e = p->type[0] == '*' ? p->type + 1
                  : strncmp(p->type, "tensordesc<", 11) == 0 ? p->type + 11
                                                               : p->type;
  size_t n = strcspn(e, "[>");
  snprintf(out, capacity, "%.*s", (int)n, e);
}

/* A DLPack dtype in words, Triton's element name where it has one. */
static const char* tkrt_bound_dtype_name(uint32_t dtype, char* out, size_t capacity) {
  uint32_t code = dtype >> 8, bits = dtype & 0xff;
  for (size_t i = 0; i < sizeof(kTkrtElements) / sizeof(kTkrtElements[0]); ++i) {
    for (uint32_t j = 0; j < kTkrtElements[i].count; ++j) {
      if (kTkrtElements[i].dtypes[j] == dtype) {
        snprintf(out, capacity, "%s", kTkrtElements[i].name);
        return out;
      }
    }
  }
  if (code == TKRT_DL_COMPLEX) snprintf(out, capacity, "complex%u", bits);
  else snprintf(out, capacity, "DLPack type code %u, %u bits", code, bits);
  return out;
}

static inline bool tkrt_bound_dtype_ok(const tkrt_bound_slot_t* slot, uint32_t dtype) {
  return dtype == 0 || (slot->dtype_count && (dtype == slot->dtypes[0] || dtype == slot->dtypes[1]));
}

enum { TKRT_BOUND_OP_POINTER = 1, TKRT_BOUND_OP_TMA = 2, TKRT_BOUND_OP_INT = 3,
       TKRT_BOUND_OP_SCALAR = 4 };

/* v is not a multiple of d (d > 1): a mask for powers of two (tt.divisibility is 16), no
 * division on the launch path. */
static inline bool tkrt_bound_indivisible(uint64_t v, uint32_t d) {
  if (d <= 1) return false;
  return (d & (d - 1)) == 0 ? (v & (d - 1)) != 0 : v % d != 0;
}

struct tkrt_triton_bound_s {
  tkrt_runtime_t* runtime; /* retained */
  tkrt_device_t* device;   /* retained */
  char* name;
  tkrt_triton_kernel_t* kernel; /* variant 0's, retained: its parameters are the arguments */
  size_t param_count;
  tkrt_bound_slot_t* slots;
  size_t buffer_count, scalar_count, tma_count;
  size_t alias_count;
  size_t* alias_buffers; /* the buffer index of each in-place pointer, in the call's order */
  size_t variant_count;
  tkrt_triton_variant_t* variants; /* copies: kernels retained, strings owned, grid NULL */
  tkrt_triton_grid_program_t** programs;
  tkrt_triton_scalar_t* defaults; /* names owned */
  size_t default_count;
  char** inout;
  size_t inout_count;
  char** unsigned_names; /* the desc's unsigned_scalars, for the tuning-key values' calls */
  size_t unsigned_count;
  tkrt_call_t* call; /* the defaults' call */
  /* min_elements: a pointer parameter's least extent, an expression of the integer scalars. */
  size_t min_count;
  struct tkrt_bound_min {
    size_t param;
    char* text; /* "NAME=EXPR" as given */
    tkrt_triton_grid_program_t* program;
  }* mins;
  /* Tuning key. */
  size_t key_count;
  size_t key_params[TKRT_BOUND_KEYS_MAX];
  _Atomic(tkrt_bound_key_entry_t*) buckets[TKRT_BOUND_BUCKETS];
  pthread_mutex_t key_lock;
  size_t key_values;      /* entries in buckets (under key_lock) */
  size_t key_values_max;  /* TKRT_BOUND_KEY_VALUES_MAX; tests lower it */
  /* Closing (tkrt_triton_bound_close): a launch counts itself in `inflight` and then looks at
   * `closed`; close sets `closed` and then waits for `inflight` to drain (sequentially consistent
   * atomics: one of the two sees the other), so no launch runs on what close frees. */
  atomic_uint inflight;
  atomic_bool closed;
  atomic_bool launched; /* a launch reached the core: close must wait for the device */
  pthread_mutex_t close_lock;
  pthread_cond_t drained;
  bool released; /* the calls are released (under close_lock) */
};

void tkrt_triton_bound_options_init(tkrt_triton_bound_options_t* options) {
  memset(options, 0, sizeof(*options));
  options->struct_size = sizeof(*options);
}

static char* tkrt_bound_strdup(const char* text) {
  if (!text) return NULL;
  size_t n = strlen(text) + 1;
  char* copy = malloc(n);
  if (copy) memcpy(copy, text, n);
  return copy;
}

/* The calls (every tuning-key value's and the defaults'): what launches use. */
static void tkrt_bound_release_calls(tkrt_triton_bound_t* b) {
  for (size_t i = 0; i < TKRT_BOUND_BUCKETS; ++i) {
    tkrt_bound_key_entry_t* e = atomic_load_explicit(&b->buckets[i], memory_order_acquire);
    atomic_store_explicit(&b->buckets[i], NULL, memory_order_relaxed);
    while (e) {
      tkrt_bound_key_entry_t* next = e->next;
      tkrt_call_release(e->call);
      free(e);
      e = next;
    }
  }
  tkrt_call_release(b->call);
  b->call = NULL;
}

tkrt_status_t tkrt_triton_bound_close(tkrt_triton_bound_t* b) {
  if (!b) return TKRT_STATUS_MAKE(TKRT_STATUS_INVALID_ARGUMENT, "tkrt_triton_bound_close: NULL");
  atomic_store(&b->closed, true);
  pthread_mutex_lock(&b->close_lock);
  while (atomic_load(&b->inflight) != 0) pthread_cond_wait(&b->drained, &b->close_lock);
  tkrt_status_t status = NULL;
  if (!b->released && atomic_load(&b->launched)) {
    /* Work queued by earlier launches may still run kernels of these modules and use this
     * scratch: the device finishes everything first (every stream: launches may have gone to
     * streams tkrt does not know). A device error reported here is the close's; the calls are
     * released all the same (the work they could be used by has ended or failed). */
    status = tkrt_device_synchronize(b->device);
    if (status) {
      status = tkrt_status_annotate(status, "closing '%s': waiting for its queued launches",
                                    b->name);
    }
  }
  if (!b->released) {
    tkrt_bound_release_calls(b);
    b->released = true;
  }
  pthread_mutex_unlock(&b->close_lock);
  return status;
}

void tkrt_triton_bound_destroy(tkrt_triton_bound_t* b) {
  if (!b) return;
  if (!b->released) {
    if (b->device) tkrt_status_free(tkrt_triton_bound_close(b));
    else tkrt_bound_release_calls(b); /* a half-built one: nothing was launched */
  }
  pthread_mutex_destroy(&b->close_lock);
  pthread_cond_destroy(&b->drained);
  pthread_mutex_destroy(&b->key_lock);
  for (size_t v = 0; v < b->variant_count; ++v) {
    tkrt_triton_grid_program_free(b->programs ? b->programs[v] : NULL);
    if (b->variants) {
      tkrt_triton_kernel_release(b->variants[v].kernel);
      free((void*)b->variants[v].constants);
      free((void*)b->variants[v].description);
    }
  }
  free(b->programs);
  for (size_t m = 0; m < b->min_count; ++m) {
    tkrt_triton_grid_program_free(b->mins[m].program);
    free(b->mins[m].text);
  }
  free(b->mins);
  free(b->variants);
  for (size_t i = 0; i < b->default_count; ++i) free((void*)b->defaults[i].name);
  free(b->defaults);
  for (size_t i = 0; i < b->inout_count; ++i) free(b->inout[i]);
  free(b->inout);
  for (size_t i = 0; i < b->unsigned_count; ++i) free(b->unsigned_names[i]);
  free(b->unsigned_names);
  free(b->slots);
  free(b->alias_buffers);
  free(b->name);
  tkrt_triton_kernel_release(b->kernel);
  tkrt_device_release(b->device);
  tkrt_runtime_release(b->runtime);
  free(b);
}

tkrt_call_t* tkrt_triton_bound_call(const tkrt_triton_bound_t* bound) {
  return bound ? bound->call : NULL;
}

size_t tkrt_triton_bound_arg_count(const tkrt_triton_bound_t* bound) {
  return bound ? bound->param_count : 0;
}

/* The call of `b` with the key scalars set to `key_values` (NULL: the defaults). */
static tkrt_status_t tkrt_bound_make_call(const tkrt_triton_bound_t* b, const int64_t* key_values,
                                          tkrt_call_t** out_call) {
  tkrt_triton_scalar_t stack[TKRT_BOUND_STACK];
  size_t count = b->default_count + (key_values ? b->key_count : 0);
  tkrt_triton_scalar_t* scalars = count <= TKRT_BOUND_STACK ? stack : malloc(count * sizeof(*scalars));
  if (!scalars) return TKRT_OOM();
  size_t n = 0;
  for (size_t i = 0; i < b->default_count; ++i) {
    int keyed = 0;
    for (size_t k = 0; key_values && k < b->key_count; ++k) {
      keyed |= strcmp(b->kernel->params[b->key_params[k]].name, b->defaults[i].name) == 0;
    }
    if (!keyed) scalars[n++] = b->defaults[i];
  }
  for (size_t k = 0; key_values && k < b->key_count; ++k) {
    /* A launch's value is its int64_t, or the bits of one above INT64_MAX (which only an
     * unsigned i64 takes, so a negative value there is such bits). */
    const tkrt_bound_slot_t* slot = &b->slots[b->key_params[k]];
    scalars[n++] = (tkrt_triton_scalar_t){b->kernel->params[b->key_params[k]].name, false,
                                          key_values[k], 0.0,
                                          slot->unsigned_read && key_values[k] < 0};
  }
  tkrt_triton_call_desc_t desc;
  tkrt_triton_call_desc_init(&desc);
  desc.name = b->name;
  desc.variants = b->variants;
  desc.variant_count = b->variant_count;
  desc.scalars = scalars;
  desc.scalar_count = n;
  desc.inout = (const char* const*)b->inout;
  desc.inout_count = b->inout_count;
  desc.unsigned_scalars = (const char* const*)b->unsigned_names;
  desc.unsigned_scalar_count = b->unsigned_count;
  tkrt_status_t status = tkrt_triton_call_create_internal(&desc, true, out_call);
  if (scalars != stack) free(scalars);
  return status;
}

tkrt_status_t tkrt_triton_bound_create(const tkrt_triton_call_desc_t* caller_desc,
                                       const tkrt_triton_bound_options_t* caller_options,
                                       tkrt_triton_bound_t** out_bound) {
  if (!caller_desc || !caller_options || !out_bound) {
    return TKRT_STATUS_MAKE(TKRT_STATUS_INVALID_ARGUMENT, "tkrt_triton_bound_create: NULL argument");
  }
  tkrt_triton_call_desc_t d;
  tkrt_triton_call_desc_init(&d);
  TKRT_RETURN_IF_ERROR(tkrt_versioned_read(&d, sizeof(d), caller_desc, "tkrt_triton_bound_create"));
  tkrt_triton_bound_options_t o;
  tkrt_triton_bound_options_init(&o);
  TKRT_RETURN_IF_ERROR(
      tkrt_versioned_read(&o, sizeof(o), caller_options, "tkrt_triton_bound_create options"));
  if (!o.device) {
    return TKRT_STATUS_MAKE(TKRT_STATUS_INVALID_ARGUMENT,
                            "tkrt_triton_bound_create: options.device is required");
  }
  if (d.variant_count == 0 || !d.variants || !d.variants[0].kernel) {
    return TKRT_STATUS_MAKE(TKRT_STATUS_INVALID_ARGUMENT,
                            "tkrt_triton_bound_create: no variant (or a variant without kernel)");
  }
  if ((d.scalar_count && !d.scalars) || (d.inout_count && !d.inout) ||
      (o.tuning_key_count && !o.tuning_key) ||
      (d.unsigned_scalar_count && !d.unsigned_scalars) ||
      (o.min_element_count && !o.min_elements)) {
    return TKRT_STATUS_MAKE(TKRT_STATUS_INVALID_ARGUMENT,
                            "tkrt_triton_bound_create: scalars, inout, unsigned_scalars, "
                            "tuning_key or min_elements announced but NULL");
  }
  tkrt_runtime_t* runtime = o.runtime ? o.runtime : tkrt_runtime_default();
  if (!runtime) return TKRT_OOM();
  const tkrt_triton_kernel_t* k0 = d.variants[0].kernel;
  const char* kernel_name = d.name ? d.name : k0->name;
  if (o.tuning_key_count > TKRT_BOUND_KEYS_MAX) {
    return TKRT_STATUS_MAKE(TKRT_STATUS_INVALID_ARGUMENT,
                            "'%s': a tuning key of %zu scalars (at most %d)", kernel_name,
                            o.tuning_key_count, TKRT_BOUND_KEYS_MAX);
  }
  /* Key names: integer scalar parameters, once each. */
  size_t key_params[TKRT_BOUND_KEYS_MAX];
  for (size_t k = 0; k < o.tuning_key_count; ++k) {
    const char* name = o.tuning_key[k] ? o.tuning_key[k] : "(null)";
    long index = tkrt_triton_kernel_find_param(k0, name);
    if (index < 0 || !tkrt_triton_param_is_integer(&k0->params[index])) {
      return TKRT_STATUS_MAKE(TKRT_STATUS_INVALID_ARGUMENT,
                              "'%s': tuning key '%s' is %s; a tuning key names integer scalar "
                              "parameters",
                              kernel_name, name,
                              index < 0 ? "no parameter of the kernel" : k0->params[index].type);
    }
    for (size_t j = 0; j < k; ++j) {
      if (key_params[j] == (size_t)index) {
        return TKRT_STATUS_MAKE(TKRT_STATUS_INVALID_ARGUMENT,
                                "'%s': tuning key '%s' is named twice", kernel_name, name);
      }
    }
    key_params[k] = (size_t)index;
  }

  /* Descriptors lowered to TMA need it: refused on devices without it before anything is loaded
   * (decomposed ones run anywhere). */
  if (!tkrt_triton_kernel_decomposed(k0) &&
      !(tkrt_device_info(o.device)->features & TKRT_DEVICE_FEATURE_TMA)) {
    for (size_t i = 0; i < k0->param_count; ++i) {
      if (k0->params[i].kind != TKRT_PARAM_TMA) continue;
      return TKRT_STATUS_MAKE(TKRT_STATUS_UNIMPLEMENTED,
                              "'%s': parameter %zu (%s: %s) is a tensor descriptor, which needs "
                              "TMA; the %s backend's device has none (CUDA on sm_90 and newer): "
                              "Triton lowered it to TMA (its tensordesc_meta); compiled for a "
                              "target without TMA, Triton passes descriptors decomposed (empty "
                              "tensordesc_meta), a form that runs on every backend",
                              kernel_name, i, k0->params[i].name, k0->params[i].type,
                              tkrt_device_backend_name(o.device));
    }
  }
  tkrt_triton_bound_t* b = calloc(1, sizeof(*b));
  if (!b) return TKRT_OOM();
  pthread_mutex_init(&b->key_lock, NULL);
  pthread_mutex_init(&b->close_lock, NULL);
  pthread_cond_init(&b->drained, NULL);
  atomic_init(&b->inflight, 0);
  atomic_init(&b->closed, false);
  atomic_init(&b->launched, false);
  b->key_values_max = TKRT_BOUND_KEY_VALUES_MAX;
  tkrt_runtime_retain(runtime);
  b->runtime = runtime;
  tkrt_device_retain(o.device);
  b->device = o.device;
  tkrt_triton_kernel_retain((tkrt_triton_kernel_t*)k0);
  b->kernel = (tkrt_triton_kernel_t*)k0;
  b->param_count = k0->param_count;
  b->key_count = d.variant_count > 1 ? o.tuning_key_count : 0;
  memcpy(b->key_params, key_params, o.tuning_key_count * sizeof(size_t));
  tkrt_status_t status = NULL;
  b->name = tkrt_bound_strdup(kernel_name);
  b->slots = calloc(b->param_count ? b->param_count : 1, sizeof(*b->slots));
  b->variants = calloc(d.variant_count, sizeof(*b->variants));
  b->programs = calloc(d.variant_count, sizeof(*b->programs));
  b->defaults = calloc(d.scalar_count ? d.scalar_count : 1, sizeof(*b->defaults));
  b->inout = calloc(d.inout_count ? d.inout_count : 1, sizeof(*b->inout));
  b->unsigned_names = calloc(d.unsigned_scalar_count ? d.unsigned_scalar_count : 1,
                             sizeof(*b->unsigned_names));
  if (!b->name || !b->slots || !b->variants || !b->programs || !b->defaults || !b->inout ||
      !b->unsigned_names) {
    status = TKRT_OOM();
    goto fail;
  }
  for (size_t s = 0; s < d.scalar_count; ++s) {
    b->defaults[s] = d.scalars[s];
    b->defaults[s].name = tkrt_bound_strdup(d.scalars[s].name ? d.scalars[s].name : "");
    b->default_count++;
    if (!b->defaults[s].name) {
      status = TKRT_OOM();
      goto fail;
    }
  }
  for (size_t i = 0; i < d.inout_count; ++i) {
    b->inout[i] = tkrt_bound_strdup(d.inout[i] ? d.inout[i] : "");
    b->inout_count++;
    if (!b->inout[i]) {
      status = TKRT_OOM();
      goto fail;
    }
  }
  for (size_t i = 0; i < d.unsigned_scalar_count; ++i) {
    b->unsigned_names[i] = tkrt_bound_strdup(d.unsigned_scalars[i] ? d.unsigned_scalars[i] : "");
    b->unsigned_count++;
    if (!b->unsigned_names[i]) {
      status = TKRT_OOM();
      goto fail;
    }
  }
  /* min_elements: "NAME=EXPR", NAME a pointer parameter of known element size. */
  if (o.min_element_count) {
    b->mins = calloc(o.min_element_count, sizeof(*b->mins));
    if (!b->mins) {
      status = TKRT_OOM();
      goto fail;
    }
  }
  for (size_t m = 0; m < o.min_element_count; ++m) {
    const char* text = o.min_elements[m] ? o.min_elements[m] : "(null)";
    const char* eq = strchr(text, '=');
    char name[256];
    if (!eq || eq == text || (size_t)(eq - text) >= sizeof(name)) {
      status = TKRT_STATUS_MAKE(TKRT_STATUS_INVALID_ARGUMENT,
                                "'%s': min_elements '%s' is not NAME=EXPR", kernel_name, text);
      goto fail;
    }
    snprintf(name, sizeof(name), "%.*s", (int)(eq - text), text);
    long index = tkrt_triton_kernel_find_param(k0, name);
    const tkrt_triton_param_t* p = index < 0 ? NULL : &k0->params[index];
    if (!p || !p->is_pointer) {
      status = TKRT_STATUS_MAKE(TKRT_STATUS_INVALID_ARGUMENT,
                                "'%s': min_elements names '%s', which is %s; it names pointer "
                                "parameters",
                                kernel_name, name, p ? "not a pointer parameter" : "no parameter");
      goto fail;
    }
    if (!p->element_bytes) {
      status = TKRT_STATUS_MAKE(TKRT_STATUS_INVALID_ARGUMENT,
                                "'%s': min_elements %s: the size of a %s element is not known",
                                kernel_name, name, p->type);
      goto fail;
    }
    for (size_t j = 0; j < b->min_count; ++j) {
      if (b->mins[j].param == (size_t)index) {
        status = TKRT_STATUS_MAKE(TKRT_STATUS_INVALID_ARGUMENT,
                                  "'%s': min_elements names '%s' twice", kernel_name, name);
        goto fail;
      }
    }
    struct tkrt_bound_min* entry = &b->mins[b->min_count];
    entry->param = (size_t)index;
    entry->text = tkrt_bound_strdup(text);
    if (!entry->text) {
      status = TKRT_OOM();
      goto fail;
    }
    b->min_count++;
    status = tkrt_triton_value_compile(k0, eq + 1, &entry->program);
    if (!status && tkrt_triton_grid_value_count(entry->program) == 0) {
      int64_t count = 0; /* a constant: refused now when negative */
      status = tkrt_triton_value_run(entry->program, NULL, 0, &count);
      if (!status && count < 0) {
        status = TKRT_STATUS_MAKE(TKRT_STATUS_INVALID_ARGUMENT,
                                  "'%s': min_elements %s is %lld elements", kernel_name, text,
                                  (long long)count);
      }
    }
    if (status) {
      status = tkrt_status_annotate(status, "'%s': min_elements %s", kernel_name, text);
      goto fail;
    }
  }
  /* Variants: their grids compiled into programs; the call's own grid is the program's value at
   * the defaults where they give every scalar, else 1 x 1 x 1 (each launch gives its own). */
  for (size_t v = 0; v < d.variant_count; ++v) {
    const tkrt_triton_variant_t* from = &d.variants[v];
    tkrt_triton_variant_t* to = &b->variants[v];
    if (!from->kernel) {
      status = TKRT_STATUS_MAKE(TKRT_STATUS_INVALID_ARGUMENT, "variant %zu has no kernel", v);
      goto fail;
    }
    tkrt_triton_kernel_retain(from->kernel);
    to->kernel = from->kernel;
    b->variant_count++;
    to->constants = tkrt_bound_strdup(from->constants);
    to->description = tkrt_bound_strdup(from->description);
    if ((from->constants && !to->constants) || (from->description && !to->description)) {
      status = TKRT_OOM();
      goto fail;
    }
    status = tkrt_triton_grid_compile_variant(from, &b->programs[v]);
    if (status) {
      status = tkrt_status_annotate(status, "variant %zu of '%s'", v, kernel_name);
      goto fail;
    }
  }

  /* Where each argument goes: buffers in order of the buffer-taking parameters, scalars in order
   * of the call's scalar parameters (a descriptor's hidden shape and strides among them). */
  size_t descriptor = 0;
  for (size_t i = 0; i < b->param_count; ++i) {
    const tkrt_triton_param_t* p = &k0->params[i];
    tkrt_bound_slot_t* slot = &b->slots[i];
    slot->divisibility = p->divisibility;
    if (p->is_pointer || p->kind == TKRT_PARAM_TMA) {
      char element[32];
      tkrt_bound_element_name(p, element, sizeof(element));
      for (size_t e = 0; e < sizeof(kTkrtElements) / sizeof(kTkrtElements[0]); ++e) {
        if (strcmp(kTkrtElements[e].name, element) != 0) continue;
        slot->dtypes[0] = kTkrtElements[e].dtypes[0];
        slot->dtypes[1] = kTkrtElements[e].count > 1 ? kTkrtElements[e].dtypes[1]
                                                     : kTkrtElements[e].dtypes[0];
        slot->dtype_count = kTkrtElements[e].count;
      }
    }
    if (p->is_pointer) {
      slot->op = TKRT_BOUND_OP_POINTER;
      slot->buffer = b->buffer_count++;
    } else if (p->kind == TKRT_PARAM_TMA && tkrt_triton_kernel_decomposed(k0)) {
      /* Decomposed: the base as a buffer, shape, strides, padding flag and the hidden shape
       * and strides as 4 * rank + 1 scalars. */
      slot->op = TKRT_BOUND_OP_TMA;
      slot->decomposed = true;
      slot->buffer = b->buffer_count++;
      slot->scalar = b->scalar_count;
      b->scalar_count += 4 * (size_t)p->desc_rank + 1;
    } else if (p->kind == TKRT_PARAM_TMA) {
      slot->op = TKRT_BOUND_OP_TMA;
      slot->buffer = b->buffer_count++;
      slot->tma = b->tma_count++;
      slot->scalar = b->scalar_count;
      b->scalar_count += 2 * (size_t)p->desc_rank;
      if (descriptor < k0->desc_meta_count) {
        const tkrt_triton_desc_meta_t* m = &k0->desc_meta[descriptor];
        memcpy(slot->tma_block, m->block_size, sizeof(slot->tma_block));
        slot->fp4_padded = m->fp4_padded;
      }
      ++descriptor;
    } else {
      slot->scalar = b->scalar_count++;
      slot->op = TKRT_BOUND_OP_SCALAR;
      /* Integer scalars (the ranges of tkrt_bound_scalar, which explains what is off them). */
      if (p->kind == TKRT_PARAM_BOOL || p->kind == TKRT_PARAM_I64 || p->kind == TKRT_PARAM_I32) {
        slot->op = TKRT_BOUND_OP_INT;
        slot->kind = p->kind;
        slot->unsigned_read = tkrt_triton_desc_unsigned(&d, p->name);
        const char* rule;
        tkrt_triton_int_range(p, slot->unsigned_read, &slot->low, &slot->high, &rule);
      }
    }
  }

  /* The call's own grids (for tkrt_triton_bound_call's users): each program at the defaults, a
   * scalar without one counting 0 as in the call; 0 x 0 x 0 (nothing launched) where that does
   * not evaluate (a division by zero): never a guessed grid. */
  {
    int64_t stack_values[TKRT_BOUND_STACK];
    int64_t* values = b->param_count <= TKRT_BOUND_STACK
                          ? stack_values
                          : calloc(b->param_count, sizeof(*values));
    if (!values) {
      status = TKRT_OOM();
      goto fail;
    }
    for (size_t i = 0; i < b->param_count; ++i) {
      values[i] = 0;
      for (size_t s = 0; s < b->default_count; ++s) {
        if (!b->defaults[s].is_float && strcmp(b->defaults[s].name, k0->params[i].name) == 0) {
          values[i] = b->defaults[s].i;
        }
      }
    }
    for (size_t v = 0; v < b->variant_count; ++v) {
      tkrt_status_t grid = tkrt_triton_grid_run(b->programs[v], values, b->param_count,
                                                b->variants[v].grid_dims);
      if (grid) {
        tkrt_status_free(grid);
        for (int dim = 0; dim < 3; ++dim) b->variants[v].grid_dims[dim] = 0;
      }
    }
    if (values != stack_values) free(values);
  }

  /* The call with the defaults (it checks them, the in-place names and the descriptors). */
  if ((status = tkrt_bound_make_call(b, NULL, &b->call))) goto fail;
  const tkrt_call_desc_t* cd = tkrt_call_get_desc(b->call);
  const tkrt_param_t* call_params = cd->configs[0].params;
  for (size_t i = 0; i < b->param_count; ++i) {
    const tkrt_triton_param_t* p = &k0->params[i];
    if (p->is_pointer || p->kind == TKRT_PARAM_TMA) continue;
    for (size_t s = 0; s < b->default_count; ++s) {
      if (strcmp(b->defaults[s].name, p->name) != 0) continue;
      b->slots[i].has_default = 1;
      b->slots[i].default_integer = b->defaults[s].is_float ? 0 : b->defaults[s].i;
    }
    /* The call's parameter with this scalar: the value as bound (converted, range-checked). */
    size_t at = 0, scalar = 0;
    for (; at < cd->configs[0].param_count; ++at) {
      tkrt_param_kind_t kind = call_params[at].kind;
      if (kind == TKRT_PARAM_ARRAY || kind == TKRT_PARAM_TMA) continue;
      if (scalar++ == b->slots[i].scalar) break;
    }
    if (at < cd->configs[0].param_count) {
      b->slots[i].default_value.kind = call_params[at].kind;
      memcpy(&b->slots[i].default_value.value, &call_params[at].value,
             sizeof(b->slots[i].default_value.value));
    }
  }
  b->alias_count = cd->alias_count;
  b->alias_buffers = calloc(cd->alias_count ? cd->alias_count : 1, sizeof(size_t));
  if (!b->alias_buffers) {
    status = TKRT_OOM();
    goto fail;
  }
  for (size_t a = 0; a < cd->alias_count; ++a) b->alias_buffers[a] = cd->aliases[a].input_index;
  status = tkrt_runtime_prepare(runtime, b->call, b->device, NULL, NULL);
  if (status) goto fail;
  bool capturing = false;
  status = tkrt_stream_is_capturing(b->device, NULL, &capturing);
  if (!status && capturing) {
    status = TKRT_STATUS_MAKE(TKRT_STATUS_FAILED_PRECONDITION,
                              "'%s': the device's default stream is capturing; create the bound "
                              "call before capturing (preparing loads the kernels)",
                              kernel_name);
  }
  if (status) goto fail;
  *out_bound = b;
  return NULL;
fail:
  tkrt_triton_bound_destroy(b);
  return status;
}

/* ---------------------------------------------------------------- launching */

typedef struct tkrt_bound_grid_user {
  const tkrt_triton_bound_t* bound;
  const int64_t* values;
  const uint32_t* grids; /* the caller's, 3 per variant (tkrt_triton_bound_launch_with); or NULL */
} tkrt_bound_grid_user_t;

static tkrt_status_t tkrt_bound_grid(void* user, size_t config, uint32_t out_grid[3]) {
  const tkrt_bound_grid_user_t* u = user;
  if (config >= u->bound->variant_count) {
    return TKRT_STATUS_MAKE(TKRT_STATUS_INTERNAL, "'%s': config %zu of %zu", u->bound->name,
                            config, u->bound->variant_count);
  }
  if (u->grids) {
    memcpy(out_grid, &u->grids[3 * config], 3 * sizeof(*out_grid));
    return NULL;
  }
  tkrt_status_t status = tkrt_triton_grid_run(u->bound->programs[config], u->values,
                                              u->bound->param_count, out_grid);
  if (status) status = tkrt_status_annotate(status, "variant %zu of '%s'", config, u->bound->name);
  return status;
}

static const char* tkrt_bound_kind_name(uint32_t kind) {
  switch (kind) {
    case TKRT_TRITON_ARG_DEFAULT: return "a default";
    case TKRT_TRITON_ARG_POINTER: return "a pointer";
    case TKRT_TRITON_ARG_INT: return "an integer";
    case TKRT_TRITON_ARG_FLOAT: return "a float";
    case TKRT_TRITON_ARG_DESCRIPTOR: return "a tensor descriptor";
    case TKRT_TRITON_ARG_UINT: return "an integer above INT64_MAX";
    default: return "an unknown kind";
  }
}

#define TKRT_ARG_ERROR(code, ...) TKRT_STATUS_MAKE(code, __VA_ARGS__)

/* An integer or float argument into the call's scalar for `p`. */
static tkrt_status_t tkrt_bound_scalar(const tkrt_triton_bound_t* b, size_t i,
                                       const tkrt_triton_param_t* p, const tkrt_triton_arg_t* a,
                                       tkrt_scalar_t* out, int64_t* out_integer) {
  const tkrt_bound_slot_t* slot = &b->slots[i];
  if (a->kind == TKRT_TRITON_ARG_DEFAULT) {
    if (!slot->has_default) {
      return TKRT_ARG_ERROR(TKRT_STATUS_INVALID_ARGUMENT,
                            "'%s': argument %zu (%s: %s) has no value: pass it (the bound call "
                            "has no default for it)",
                            b->name, i, p->name, p->type);
    }
    *out = slot->default_value;
    *out_integer = slot->default_integer;
    return NULL;
  }
  int floating = p->kind == TKRT_PARAM_F32 || p->kind == TKRT_PARAM_F64 ||
                 p->kind == TKRT_PARAM_U32;
  if (a->kind == TKRT_TRITON_ARG_FLOAT && !floating) {
    return TKRT_ARG_ERROR(TKRT_STATUS_INVALID_ARGUMENT,
                          "'%s': argument %zu (%s: %s) is an integer parameter but was given the "
                          "float %g",
                          b->name, i, p->name, p->type, a->f);
  }
  bool above = a->kind == TKRT_TRITON_ARG_UINT;
  if (above && (uint64_t)a->i <= (uint64_t)INT64_MAX) {
    return TKRT_ARG_ERROR(TKRT_STATUS_INVALID_ARGUMENT,
                          "'%s': argument %zu (%s: %s) is given as an integer above INT64_MAX "
                          "(TKRT_TRITON_ARG_UINT) but its bits are %" PRIu64
                          ", which an INT argument holds",
                          b->name, i, p->name, p->type, (uint64_t)a->i);
  }
  if (a->kind != TKRT_TRITON_ARG_INT && a->kind != TKRT_TRITON_ARG_FLOAT && !above) {
    return TKRT_ARG_ERROR(TKRT_STATUS_INVALID_ARGUMENT,
                          "'%s': argument %zu (%s: %s) is a scalar but was given %s", b->name, i,
                          p->name, p->type, tkrt_bound_kind_name(a->kind));
  }
  memset(out, 0, sizeof(*out));
  out->kind = p->kind;
  *out_integer = 0;
  if (floating) {
    double value = a->kind == TKRT_TRITON_ARG_FLOAT ? a->f
                   : above                          ? (double)(uint64_t)a->i
                                                    : (double)a->i;
    if (p->kind == TKRT_PARAM_F32) {
      out->value.f32 = (float)value;
    } else if (p->kind == TKRT_PARAM_F64) {
      out->value.f64 = value;
    } else {
      /* fp16 / bf16: the call's own conversion, through a one-scalar bind. */
      tkrt_triton_scalar_t s = {p->name, true, 0, value};
      tkrt_param_t bound;
      TKRT_RETURN_IF_ERROR(tkrt_triton_bind_scalar_public(p, &s, false, &bound));
      out->value.u32 = bound.value.u32;
    }
    return NULL;
  }
  int64_t v = a->i;
  int64_t low;
  uint64_t high;
  const char* rule;
  char text[24];
  tkrt_triton_int_range(p, b->slots[i].unsigned_read, &low, &high, &rule);
  if (!tkrt_triton_int_fits(low, high, v, above)) {
    return TKRT_ARG_ERROR(TKRT_STATUS_OUT_OF_RANGE,
                          "'%s': argument %zu (%s: %s) = %s is out of range (%" PRId64 "..%" PRIu64
                          ")%s",
                          b->name, i, p->name, p->type, tkrt_triton_int_text(v, above, text), low,
                          high, rule);
  }
  if (p->divisibility > 1 && tkrt_bound_indivisible((uint64_t)v, p->divisibility)) {
    return TKRT_ARG_ERROR(TKRT_STATUS_INVALID_ARGUMENT,
                          "'%s': argument %zu (%s: %s) = %s is not a multiple of %u: the "
                          "kernel was compiled with tt.divisibility = %u for %s (Triton "
                          "specialised it for multiples of %u)",
                          b->name, i, p->name, p->type, tkrt_triton_int_text(v, above, text),
                          p->divisibility, p->divisibility, p->name, p->divisibility);
  }
  if (p->kind == TKRT_PARAM_BOOL) out->value.b = v != 0;
  else if (p->kind == TKRT_PARAM_I64) out->value.i64 = v;
  else out->value.i32 = (int32_t)(uint32_t)(uint64_t)v;
  *out_integer = v;
  return NULL;
}

/* Whether a descriptor's elements are floating point (NaN padding needs it). */
static bool tkrt_bound_float_element(const tkrt_triton_param_t* p) {
  const char* e = p->type + strlen("tensordesc<");
  return strncmp(e, "fp", 2) == 0 || strncmp(e, "bf", 2) == 0;
}

/* A descriptor argument: its base as the buffer, its shape and strides for the TMA encode and as
 * the hidden i32 shape / i64 stride scalars; decomposed, its shape, strides, padding flag and the
 * hidden ones as scalars. */
/* An array whose element type the parameter does not take. */
static tkrt_status_t tkrt_bound_dtype_error(const tkrt_triton_bound_t* b, size_t i,
                                            const tkrt_triton_param_t* p, uint32_t dtype) {
  char have[48], want[32];
  tkrt_bound_element_name(p, want, sizeof(want));
  return TKRT_ARG_ERROR(TKRT_STATUS_INVALID_ARGUMENT,
                        "'%s': argument %zu (%s: %s): the array's elements are %s; the kernel "
                        "takes %s",
                        b->name, i, p->name, p->type,
                        tkrt_bound_dtype_name(dtype, have, sizeof(have)), want);
}

static tkrt_status_t tkrt_bound_descriptor(const tkrt_triton_bound_t* b, size_t i,
                                           const tkrt_triton_param_t* p,
                                           const tkrt_triton_arg_t* a, tkrt_buffer_t* buffer,
                                           tkrt_tma_shape_t* shape, tkrt_scalar_t* hidden) {
  const tkrt_bound_slot_t* slot = &b->slots[i];
  if (a->kind != TKRT_TRITON_ARG_DESCRIPTOR) {
    return TKRT_ARG_ERROR(TKRT_STATUS_INVALID_ARGUMENT,
                          "'%s': argument %zu (%s: %s) is a tensor descriptor but was given %s",
                          b->name, i, p->name, p->type, tkrt_bound_kind_name(a->kind));
  }
  if (!tkrt_bound_dtype_ok(slot, a->dtype)) return tkrt_bound_dtype_error(b, i, p, a->dtype);
  uint32_t rank = p->desc_rank;
  if (a->rank != rank) {
    return TKRT_ARG_ERROR(TKRT_STATUS_INVALID_ARGUMENT,
                          "'%s': argument %zu (%s: %s) has rank %u; the kernel takes rank %u",
                          b->name, i, p->name, p->type, a->rank, rank);
  }
  int block_given = 0;
  for (uint32_t d = 0; d < rank; ++d) block_given |= a->block[d] != 0;
  for (uint32_t d = 0; block_given && d < rank; ++d) {
    if (a->block[d] != (int64_t)p->desc_block[d]) {
      return TKRT_ARG_ERROR(TKRT_STATUS_INVALID_ARGUMENT,
                            "'%s': argument %zu (%s: %s) has block dimension %u = %" PRId64
                            "; the kernel was compiled for %u (block shape of the descriptor "
                            "must match the kernel's)",
                            b->name, i, p->name, p->type, d, a->block[d], p->desc_block[d]);
    }
  }
  if (a->strides[rank - 1] != 1) {
    return TKRT_ARG_ERROR(TKRT_STATUS_INVALID_ARGUMENT,
                          "'%s': argument %zu (%s: %s): the innermost stride is %" PRId64
                          "; a tensor descriptor's must be 1",
                          b->name, i, p->name, p->type, a->strides[rank - 1]);
  }
  if (a->padding_nan > 1) {
    return TKRT_ARG_ERROR(TKRT_STATUS_INVALID_ARGUMENT,
                          "'%s': argument %zu (%s: %s): padding_nan is %u; 0 (pad with zeros) or "
                          "1 (pad with NaN)",
                          b->name, i, p->name, p->type, a->padding_nan);
  }
  if (a->padding_nan && !tkrt_bound_float_element(p)) {
    return TKRT_ARG_ERROR(TKRT_STATUS_INVALID_ARGUMENT,
                          "'%s': argument %zu (%s: %s): padding with NaN needs a floating-point "
                          "element type",
                          b->name, i, p->name, p->type);
  }
  if (!slot->decomposed && a->ptr % 16 != 0) {
    return TKRT_ARG_ERROR(TKRT_STATUS_INVALID_ARGUMENT,
                          "'%s': argument %zu (%s: %s): the base 0x%" PRIx64
                          " is not 16-byte aligned (TMA needs it)",
                          b->name, i, p->name, p->type, (uint64_t)a->ptr);
  }
  for (uint32_t d = 0; d < rank; ++d) {
    if (a->shape[d] < 1 || a->shape[d] > INT32_MAX) {
      return TKRT_ARG_ERROR(TKRT_STATUS_OUT_OF_RANGE,
                            "'%s': argument %zu (%s: %s): shape dimension %u is %" PRId64
                            ", not in 1..%d",
                            b->name, i, p->name, p->type, d, a->shape[d], INT32_MAX);
    }
    if (a->strides[d] < 1) {
      return TKRT_ARG_ERROR(TKRT_STATUS_OUT_OF_RANGE,
                            "'%s': argument %zu (%s: %s): stride %u is %" PRId64
                            ", not positive",
                            b->name, i, p->name, p->type, d, a->strides[d]);
    }
    if (!slot->decomposed && d + 1 < rank && p->element_bytes &&
        ((uint64_t)a->strides[d] * p->element_bytes) % 16 != 0) {
      return TKRT_ARG_ERROR(TKRT_STATUS_INVALID_ARGUMENT,
                            "'%s': argument %zu (%s: %s): stride %u is %" PRId64
                            " elements, %" PRIu64 " bytes: TMA needs a multiple of 16 bytes",
                            b->name, i, p->name, p->type, d, a->strides[d],
                            (uint64_t)a->strides[d] * p->element_bytes);
    }
  }
  /* The bytes the tensor spans must lie in the buffer, where its size is known. */
  if (a->size != TKRT_BUFFER_SIZE_UNKNOWN && p->element_bytes) {
    uint64_t last = 0, term = 0;
    int overflow = 0;
    for (uint32_t d = 0; d < rank && !overflow; ++d) {
      overflow = __builtin_mul_overflow((uint64_t)(a->shape[d] - 1), (uint64_t)a->strides[d],
                                        &term) ||
                 __builtin_add_overflow(last, term, &last);
    }
    uint64_t bytes = 0;
    overflow = overflow || __builtin_add_overflow(last, 1, &last) ||
               __builtin_mul_overflow(last, (uint64_t)p->element_bytes, &bytes);
    if (overflow || bytes > a->size) {
      return TKRT_ARG_ERROR(TKRT_STATUS_OUT_OF_RANGE,
                            "'%s': argument %zu (%s: %s): its shape and strides span %s%" PRIu64
                            " bytes but the buffer holds %" PRIu64,
                            b->name, i, p->name, p->type, overflow ? "more than " : "",
                            overflow ? UINT64_MAX : bytes, a->size);
    }
  }
  buffer->ptr = a->ptr;
  buffer->size = a->size;
  if (slot->decomposed) {
    /* shape i64, strides i64, padding i1, then the hidden shape i32 and strides i64. */
    for (uint32_t d = 0; d < rank; ++d) {
      hidden[d] = (tkrt_scalar_t){.kind = TKRT_PARAM_I64, .value.i64 = a->shape[d]};
      hidden[rank + d] = (tkrt_scalar_t){.kind = TKRT_PARAM_I64, .value.i64 = a->strides[d]};
      hidden[2 * rank + 1 + d] =
          (tkrt_scalar_t){.kind = TKRT_PARAM_I32, .value.i32 = (int32_t)a->shape[d]};
      hidden[3 * rank + 1 + d] = (tkrt_scalar_t){.kind = TKRT_PARAM_I64, .value.i64 = a->strides[d]};
    }
    hidden[2 * rank] = (tkrt_scalar_t){.kind = TKRT_PARAM_BOOL, .value.b = a->padding_nan != 0};
    return NULL;
  }
  shape->rank = rank;
  shape->fill = a->padding_nan ? 2 : 1; /* NaN or zeros (tkrt_tma_shape_t.fill) */
  for (uint32_t d = 0; d < rank; ++d) {
    shape->shape[d] = (uint64_t)a->shape[d];
    shape->strides[d] = (uint64_t)a->strides[d];
    memset(&hidden[d], 0, sizeof(hidden[d]));
    hidden[d].kind = TKRT_PARAM_I32;
    hidden[d].value.i32 = (int32_t)a->shape[d];
    memset(&hidden[rank + d], 0, sizeof(hidden[d]));
    hidden[rank + d].kind = TKRT_PARAM_I64;
    hidden[rank + d].value.i64 = a->strides[d];
  }
  /* Two fp4 values per byte: the encode sees twice the innermost extent (as Triton's launcher). */
  if (slot->fp4_padded) shape->shape[rank - 1] *= 2;
  return NULL;
}

/* "n=4096, m=8": the key's names and values, for messages. */
static void tkrt_bound_show_key(const tkrt_triton_bound_t* b, const int64_t* key, char* shown,
                                size_t size) {
  size_t used = 0;
  shown[0] = '\0';
  for (size_t k = 0; k < b->key_count && used < size; ++k) {
    int n = snprintf(shown + used, size - used, "%s%s=%" PRId64, k ? ", " : "",
                     b->kernel->params[b->key_params[k]].name, key[k]);
    if (n > 0) used += (size_t)n;
  }
}

void tkrt_triton_bound_set_key_values_max(tkrt_triton_bound_t* b, size_t max) {
  pthread_mutex_lock(&b->key_lock);
  b->key_values_max = max;
  pthread_mutex_unlock(&b->key_lock);
}

/* The call for this launch's tuning-key values: found without a lock, or made, prepared and
 * published under the table's lock. */
static tkrt_status_t tkrt_bound_keyed_call(const tkrt_triton_bound_t* cb, tkrt_stream_t stream,
                                           const int64_t* values, uint32_t flags,
                                           tkrt_call_t** out_call) {
  tkrt_triton_bound_t* b = (tkrt_triton_bound_t*)cb;
  int64_t key[TKRT_BOUND_KEYS_MAX];
  uint64_t hash = 1469598103934665603ull;
  for (size_t k = 0; k < b->key_count; ++k) {
    key[k] = values[b->key_params[k]];
    hash = (hash ^ (uint64_t)key[k]) * 1099511628211ull;
    hash ^= hash >> 29;
  }
  _Atomic(tkrt_bound_key_entry_t*)* bucket = &b->buckets[hash % TKRT_BOUND_BUCKETS];
  size_t key_bytes = b->key_count * sizeof(int64_t);
  for (tkrt_bound_key_entry_t* e = atomic_load_explicit(bucket, memory_order_acquire); e;
       e = e->next) {
    if (memcmp(e->values, key, key_bytes) == 0) {
      *out_call = e->call;
      return NULL;
    }
  }
  if (flags & TKRT_CALL_LAUNCH_NO_WAIT) return tkrt_status_would_wait();
  bool capturing = false;
  TKRT_RETURN_IF_ERROR(tkrt_stream_is_capturing(b->device, stream, &capturing));
  if (capturing) {
    char shown[256];
    tkrt_bound_show_key(b, key, shown, sizeof(shown));
    return TKRT_STATUS_MAKE(TKRT_STATUS_FAILED_PRECONDITION,
                            "'%s': tuning key value (%s) not seen before, inside a stream capture: "
                            "its call must be made, loaded and tuned first; launch it once with "
                            "these values before capturing",
                            b->name, shown);
  }
  pthread_mutex_lock(&b->key_lock);
  tkrt_status_t status = NULL;
  tkrt_bound_key_entry_t* found = NULL;
  for (tkrt_bound_key_entry_t* e = atomic_load_explicit(bucket, memory_order_acquire); e && !found;
       e = e->next) {
    if (memcmp(e->values, key, key_bytes) == 0) found = e;
  }
  if (!found && b->key_values >= b->key_values_max) {
    char shown[256];
    tkrt_bound_show_key(b, key, shown, sizeof(shown));
    status = TKRT_STATUS_MAKE(TKRT_STATUS_RESOURCE_EXHAUSTED,
                              "'%s': tuning key value (%s) is new, and a bound call keeps at most "
                              "%zu distinct ones (each a loaded, decided call): key on fewer or "
                              "coarser scalars, or make another bound call",
                              b->name, shown, b->key_values_max);
  } else if (!found) {
    tkrt_bound_key_entry_t* e = calloc(1, sizeof(*e));
    if (!e) {
      status = TKRT_OOM();
    } else {
      memcpy(e->values, key, key_bytes);
      status = tkrt_bound_make_call(b, key, &e->call);
      /* Its modules are the defaults' call's (the same kernels' images): a bound call holds one
       * module per image however many key values it sees (not inside a capture: refused above). */
      if (!status) status = tkrt_call_prepare_sharing(e->call, b->device, b->call);
    }
    if (status) {
      if (e) tkrt_call_release(e->call);
      free(e);
    } else {
      e->next = atomic_load_explicit(bucket, memory_order_relaxed);
      atomic_store_explicit(bucket, e, memory_order_release);
      found = e;
      b->key_values++;
    }
  }
  pthread_mutex_unlock(&b->key_lock);
  if (found) *out_call = found->call;
  return status;
}

/* A pointer argument against its min_elements: the expression at this launch's scalars, times the
 * element size, within the argument's size (which must be given). */
static tkrt_status_t tkrt_bound_min_check(const tkrt_triton_bound_t* b, size_t m,
                                          const tkrt_triton_arg_t* args, const int64_t* values) {
  const struct tkrt_bound_min* entry = &b->mins[m];
  const tkrt_triton_param_t* p = &b->kernel->params[entry->param];
  const tkrt_triton_arg_t* a = &args[entry->param];
  int64_t count = 0;
  TKRT_RETURN_IF_ERROR(tkrt_triton_value_run(entry->program, values, b->param_count, &count));
  uint64_t bytes = 0;
  if (count < 0 || __builtin_mul_overflow((uint64_t)count, (uint64_t)p->element_bytes, &bytes)) {
    return TKRT_ARG_ERROR(TKRT_STATUS_INVALID_ARGUMENT,
                          "'%s': argument %zu (%s: %s): min_elements %s is %" PRId64
                          " elements at this launch's scalars",
                          b->name, entry->param, p->name, p->type, entry->text, count);
  }
  if (a->kind != TKRT_TRITON_ARG_POINTER || bytes == 0) return NULL; /* refused elsewhere */
  if (a->size == TKRT_BUFFER_SIZE_UNKNOWN) {
    return TKRT_ARG_ERROR(TKRT_STATUS_INVALID_ARGUMENT,
                          "'%s': argument %zu (%s: %s) has no size, but the launch was prepared "
                          "with min_elements %s (%" PRId64 " elements, %" PRIu64 " bytes): give "
                          "the buffer's size",
                          b->name, entry->param, p->name, p->type, entry->text, count, bytes);
  }
  if (a->size < bytes) {
    return TKRT_ARG_ERROR(TKRT_STATUS_INVALID_ARGUMENT,
                          "'%s': argument %zu (%s: %s) spans %" PRIu64 " bytes; the launch was "
                          "prepared with min_elements %s (%" PRId64 " elements, %" PRIu64
                          " bytes)",
                          b->name, entry->param, p->name, p->type, (uint64_t)a->size, entry->text,
                          count, bytes);
  }
  return NULL;
}

static tkrt_status_t tkrt_bound_launch(const tkrt_triton_bound_t* b, tkrt_stream_t stream,
                                       const tkrt_triton_arg_t* args, size_t arg_count,
                                       const uint32_t* grids, tkrt_launch_decision_t* decision,
                                       uint32_t flags) {
  if (arg_count != b->param_count) {
    return TKRT_STATUS_MAKE(TKRT_STATUS_INVALID_ARGUMENT,
                            "'%s' takes %zu arguments (its parameters); %zu were given", b->name,
                            b->param_count, arg_count);
  }
  /* TMA descriptors on a device without TMA were refused at creation (the device is fixed). */
  /* Stack arrays for the usual counts, the heap above. */
  tkrt_buffer_t buffers_stack[TKRT_BOUND_STACK];
  tkrt_scalar_t scalars_stack[TKRT_BOUND_STACK];
  tkrt_tma_shape_t shapes_stack[8];
  int64_t values_stack[TKRT_BOUND_STACK];
  size_t buffer_total = b->buffer_count + b->alias_count;
  tkrt_buffer_t* buffers = buffer_total <= TKRT_BOUND_STACK
                               ? buffers_stack
                               : malloc(buffer_total * sizeof(*buffers));
  tkrt_scalar_t* scalars = b->scalar_count <= TKRT_BOUND_STACK
                               ? scalars_stack
                               : malloc(b->scalar_count * sizeof(*scalars));
  tkrt_tma_shape_t* shapes = b->tma_count <= 8 ? shapes_stack
                                               : malloc(b->tma_count * sizeof(*shapes));
  int64_t* values = b->param_count <= TKRT_BOUND_STACK ? values_stack
                                                       : malloc(b->param_count * sizeof(*values));
  tkrt_status_t status = NULL;
  if (!buffers || !scalars || !shapes || !values) status = TKRT_OOM();
  for (size_t i = 0; i < b->param_count && !status; ++i) {
    const tkrt_triton_arg_t* a = &args[i];
    const tkrt_bound_slot_t* slot = &b->slots[i];
    values[i] = 0;
    /* The usual cases first, from the slot alone: a pointer that meets its divisibility, an
     * integer in its range that meets its divisibility. The rest (errors included) below. */
    if (slot->op == TKRT_BOUND_OP_POINTER && a->kind == TKRT_TRITON_ARG_POINTER &&
        tkrt_bound_dtype_ok(slot, a->dtype) &&
        (a->size == 0 || !tkrt_bound_indivisible(a->ptr, slot->divisibility))) {
      buffers[slot->buffer].ptr = a->ptr;
      buffers[slot->buffer].size = a->size;
      continue;
    }
    if (slot->op == TKRT_BOUND_OP_INT && a->kind == TKRT_TRITON_ARG_INT &&
        tkrt_triton_int_fits(slot->low, slot->high, a->i, false) &&
        !tkrt_bound_indivisible((uint64_t)a->i, slot->divisibility)) {
      tkrt_scalar_t* out = &scalars[slot->scalar];
      int64_t v = a->i;
      out->kind = slot->kind;
      out->value.i64 = 0;
      if (slot->kind == TKRT_PARAM_BOOL) out->value.b = v != 0;
      else if (slot->kind == TKRT_PARAM_I64) out->value.i64 = v;
      else out->value.i32 = (int32_t)(uint32_t)(uint64_t)v;
      values[i] = v;
      continue;
    }
    const tkrt_triton_param_t* p = &b->kernel->params[i];
    if (p->is_pointer) {
      if (a->kind != TKRT_TRITON_ARG_POINTER) {
        status = TKRT_ARG_ERROR(TKRT_STATUS_INVALID_ARGUMENT,
                                "'%s': argument %zu (%s: %s) is a pointer but was given %s",
                                b->name, i, p->name, p->type, tkrt_bound_kind_name(a->kind));
        break;
      }
      if (!tkrt_bound_dtype_ok(slot, a->dtype)) {
        status = tkrt_bound_dtype_error(b, i, p, a->dtype);
        break;
      }
      if (a->size != 0 && tkrt_bound_indivisible(a->ptr, p->divisibility)) {
        status = TKRT_ARG_ERROR(TKRT_STATUS_INVALID_ARGUMENT,
                                "'%s': argument %zu (%s: %s) = 0x%" PRIx64 " is not a multiple of "
                                "%u: the kernel was compiled with tt.divisibility = %u for %s",
                                b->name, i, p->name, p->type, (uint64_t)a->ptr, p->divisibility,
                                p->divisibility, p->name);
        break;
      }
      buffers[slot->buffer].ptr = a->ptr;
      buffers[slot->buffer].size = a->size;
    } else if (p->kind == TKRT_PARAM_TMA) {
      status = tkrt_bound_descriptor(b, i, p, a, &buffers[slot->buffer],
                                     slot->decomposed ? NULL : &shapes[slot->tma],
                                     &scalars[slot->scalar]);
    } else {
      status = tkrt_bound_scalar(b, i, p, a, &scalars[slot->scalar], &values[i]);
    }
  }
  for (size_t m = 0; m < b->min_count && !status; ++m) status = tkrt_bound_min_check(b, m, args, values);
  tkrt_call_t* call = b->call;
  if (!status && b->key_count) status = tkrt_bound_keyed_call(b, stream, values, flags, &call);
  if (!status) {
    /* The in-place pointers again, as outputs: the tuner saves and restores them. */
    for (size_t a = 0; a < b->alias_count; ++a) {
      buffers[b->buffer_count + a] = buffers[b->alias_buffers[a]];
    }
    tkrt_bound_grid_user_t grid_user = {b, values, grids};
    /* The runtime's launch: its tuner decides autotuned calls. */
    tkrt_call_launch_args_t launch;
    tkrt_call_launch_args_init(&launch);
    launch.device = b->device;
    launch.stream = stream;
    launch.buffers = buffers;
    launch.input_count = b->buffer_count;
    launch.output_count = b->alias_count;
    launch.scalars = scalars;
    launch.scalar_count = b->scalar_count;
    launch.decision = decision;
    launch.grid = tkrt_bound_grid;
    launch.grid_user = &grid_user;
    launch.tma_shapes = b->tma_count ? shapes : NULL;
    launch.tma_shape_count = b->tma_count;
    launch.flags = flags;
    status = tkrt_runtime_launch(b->runtime, call, &launch);
  }
  if (buffers != buffers_stack) free(buffers);
  if (scalars != scalars_stack) free(scalars);
  if (shapes != shapes_stack) free(shapes);
  if (values != values_stack) free(values);
  return status;
}

/* Counts the launch in for the time it runs (see tkrt_triton_bound_close). */
static tkrt_status_t tkrt_bound_launch_counted(const tkrt_triton_bound_t* cb, tkrt_stream_t stream,
                                               const tkrt_triton_arg_t* args, size_t arg_count,
                                               const uint32_t* grids,
                                               tkrt_launch_decision_t* decision, uint32_t flags,
                                               const char* what) {
  if (!cb || (arg_count && !args)) {
    return TKRT_STATUS_MAKE(TKRT_STATUS_INVALID_ARGUMENT, "%s: NULL argument", what);
  }
  tkrt_triton_bound_t* b = (tkrt_triton_bound_t*)cb;
  atomic_fetch_add(&b->inflight, 1);
  tkrt_status_t status;
  if (atomic_load(&b->closed)) {
    status = TKRT_STATUS_MAKE(TKRT_STATUS_FAILED_PRECONDITION,
                              "'%s': this bound launch was closed (tkrt_triton_bound_close): its "
                              "kernels are unloaded",
                              b->name);
  } else {
    if (!atomic_load_explicit(&b->launched, memory_order_relaxed)) {
      atomic_store_explicit(&b->launched, true, memory_order_relaxed);
    }
    status = tkrt_bound_launch(b, stream, args, arg_count, grids, decision, flags);
  }
  if (atomic_fetch_sub(&b->inflight, 1) == 1 && atomic_load(&b->closed)) {
    pthread_mutex_lock(&b->close_lock);
    pthread_cond_broadcast(&b->drained);
    pthread_mutex_unlock(&b->close_lock);
  }
  return status;
}

tkrt_status_t tkrt_triton_bound_launch(const tkrt_triton_bound_t* b, tkrt_stream_t stream,
                                       const tkrt_triton_arg_t* args, size_t arg_count,
                                       tkrt_launch_decision_t* decision) {
  return tkrt_bound_launch_counted(b, stream, args, arg_count, NULL, decision, 0,
                                   "tkrt_triton_bound_launch");
}

tkrt_status_t tkrt_triton_bound_try_launch(const tkrt_triton_bound_t* b, tkrt_stream_t stream,
                                           const tkrt_triton_arg_t* args, size_t arg_count,
                                           tkrt_launch_decision_t* decision) {
  return tkrt_bound_launch_counted(b, stream, args, arg_count, NULL, decision,
                                   TKRT_CALL_LAUNCH_NO_WAIT, "tkrt_triton_bound_try_launch");
}

void tkrt_triton_bound_launch_options_init(tkrt_triton_bound_launch_options_t* options) {
  memset(options, 0, sizeof(*options));
  options->struct_size = sizeof(*options);
}

tkrt_status_t tkrt_triton_bound_launch_with(const tkrt_triton_bound_t* b, tkrt_stream_t stream,
                                            const tkrt_triton_arg_t* args, size_t arg_count,
                                            const tkrt_triton_bound_launch_options_t* caller,
                                            tkrt_launch_decision_t* decision) {
  tkrt_triton_bound_launch_options_t options;
  tkrt_triton_bound_launch_options_init(&options);
  if (caller) {
    TKRT_RETURN_IF_ERROR(tkrt_versioned_read(&options, sizeof(options), caller,
                                             "tkrt_triton_bound_launch_with"));
  }
  if (b && options.grids) {
    if (options.grid_count != 3 * b->variant_count) {
      return TKRT_STATUS_MAKE(TKRT_STATUS_INVALID_ARGUMENT,
                              "'%s': %zu grid values given; its %zu variant%s take %zu (3 each)",
                              b->name, options.grid_count, b->variant_count,
                              b->variant_count == 1 ? "" : "s", 3 * b->variant_count);
    }
  } else if (options.grid_count) {
    return TKRT_STATUS_MAKE(TKRT_STATUS_INVALID_ARGUMENT,
                            "tkrt_triton_bound_launch_with: grid_count %zu without grids",
                            options.grid_count);
  }
  return tkrt_bound_launch_counted(b, stream, args, arg_count, options.grids, decision,
                                   options.no_wait ? TKRT_CALL_LAUNCH_NO_WAIT : 0,
                                   "tkrt_triton_bound_launch_with");
}
