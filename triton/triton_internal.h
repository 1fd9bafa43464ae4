/* SPDX-License-Identifier: Apache-2.0 */
/* tkrt triton: what the Triton loader (triton_load.c), the TTIR signature reader (triton_ttir.c)
 * and the call builder (triton_call.c) share. */
#ifndef TKRT_TRITON_INTERNAL_H_
#define TKRT_TRITON_INTERNAL_H_

#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "tkrt/triton.h"

#define TKRT_TRITON_JSON_LIMIT ((size_t)1 << 20)    /* metadata JSON */
#define TKRT_TRITON_TTIR_LIMIT ((size_t)64 << 20)   /* .ttir / .source text */
#define TKRT_TRITON_IMAGE_LIMIT ((size_t)512 << 20) /* cubin, PTX, HSACO, host image */
#define TKRT_TRITON_MAX_PARAMS 1024

/* One entry of Triton's `tensordesc_meta` (the JSON's, one per tensor descriptor parameter, in
 * order, when the kernel was lowered to TMA): what the host encodes the CUtensorMap with. */
typedef struct tkrt_triton_desc_meta {
  uint32_t swizzle;   /* CUtensorMapSwizzle */
  uint32_t elem_size; /* bytes */
  uint32_t elem_type; /* Triton's device-side enum (tkrt_triton_desc_host_type maps it) */
  uint32_t rank;
  uint32_t block_size[TKRT_TMA_MAX_RANK]; /* the TMA box, outermost first */
  bool fp4_padded;
} tkrt_triton_desc_meta_t;

/* CUtensorMapDataType for Triton's device-side element type enum (8 -> 10, 9 -> 8, 10 -> 9; the
 * others are the same), as Triton's launcher maps it. */
uint32_t tkrt_triton_desc_host_type(uint32_t device_type);

struct tkrt_triton_kernel_s {
  atomic_int ref_count;
  tkrt_kernel_t* kernel;
  char* name;
  tkrt_triton_param_t* params; /* strings owned */
  size_t param_count;
  tkrt_triton_target_t* targets; /* strings owned */
  size_t target_count;
  uint32_t num_warps;
  uint32_t num_stages; /* the first target's */
  /* tensordesc_meta of the first target that has one (empty: descriptors, if any, were not
   * lowered to TMA, or there are none). */
  tkrt_triton_desc_meta_t* desc_meta;
  size_t desc_meta_count;
  const char* desc_meta_path; /* the JSON it came from (a target's json_path) */
  char* constants; /* the compiled constexprs given at load, "NAME=INT,..."; "" when none */
};

/* `text` ("NAME=INT,...", true/false as 1/0) checked and normalised into a malloc'ed string;
 * INVALID_ARGUMENT naming the item that is not NAME=INTEGER or a name bound twice. */
tkrt_status_t tkrt_triton_constants_normalise(const char* text, char** out);

/* Parses the parameter list of `tt.func public @<kernel_name>(...)` in TTIR text (NULL name: the
 * first public tt.func). `what` names the file in errors. */
tkrt_status_t tkrt_triton_parse_signature(const char* text, size_t size, const char* kernel_name,
                                          const char* what, tkrt_triton_param_t** out_params,
                                          size_t* out_count);
void tkrt_triton_params_free(tkrt_triton_param_t* params, size_t count);

/* The signature a host image (ELF bytes, not loaded) declares for `kernel` in its
 * tkrt_host_kernel__<kernel> descriptor ("*fp32,*fp32,*fp32,i32"), malloc'ed; *out_signature is
 * NULL when the image is of a machine or descriptor ABI the host backend refuses by itself.
 * INVALID_ARGUMENT naming `what` when the descriptor or its string cannot be found in the bytes
 * (triton_hostsig.c). */
tkrt_status_t tkrt_triton_host_signature(const void* data, size_t size, const char* kernel,
                                         const char* what, char** out_signature);
/* Compares the TTIR's parameter list with a host image's signature: the same count, and each
 * parameter of the same type (unsigned and signed integers of one size alike). A mismatch is
 * INVALID_ARGUMENT naming both files and the first parameter that differs. */
tkrt_status_t tkrt_triton_check_host_signature(const tkrt_triton_param_t* params, size_t count,
                                               const char* ttir_path, const char* kernel,
                                               const char* signature, const char* image_path);

/* ---------------------------------------------------------------- grid programs */

/* A variant's grid expression compiled once: its constants, num_warps and num_stages folded, the
 * kernel's integer scalar parameters left as variables read from a per-launch array indexed by
 * parameter index (tkrt_triton_kernel_param). Immutable; run it from any thread. */
typedef struct tkrt_triton_grid_program tkrt_triton_grid_program_t;

/* Compiles `variant`'s grid (its `grid`, else its grid_dims as a constant program). Names: the
 * kernel's integer scalar parameters (variables), num_warps, num_stages, the variant's constants.
 * Errors are those of tkrt_triton_grid_eval (INVALID_ARGUMENT naming the expression and offset;
 * OUT_OF_RANGE for a constant dimension outside 0..2^32-1). */
tkrt_status_t tkrt_triton_grid_compile_variant(const tkrt_triton_variant_t* variant,
                                               tkrt_triton_grid_program_t** out_program);
/* Compiles an expression whose variables are `var_names` (value k is values[k] at each run) and
 * whose constants are bound by "NAME=INT,..." `bindings` (may be NULL). For tools and fuzzers. */
tkrt_status_t tkrt_triton_grid_compile(const char* expression, const char* const* var_names,
                                       size_t var_count, const char* bindings,
                                       tkrt_triton_grid_program_t** out_program);
/* Evaluates with int64 values: every operation checked (overflow, division by zero naming the
 * divisor: INVALID_ARGUMENT), each dimension in 0..2^32-1 (OUT_OF_RANGE); out_grid untouched on
 * error. No allocation, no lock. */
tkrt_status_t tkrt_triton_grid_run(const tkrt_triton_grid_program_t* program,
                                   const int64_t* values, size_t value_count,
                                   uint32_t out_grid[3]);
/* One integer expression (the grid syntax) of the kernel's integer scalar parameters, values read
 * at each run by parameter index as a variant's grid: for prepare's min_elements. A list of
 * expressions is INVALID_ARGUMENT. tkrt_triton_value_run gives its value, any int64 (checked
 * arithmetic, as a grid's; no range on the result). */
tkrt_status_t tkrt_triton_value_compile(const tkrt_triton_kernel_t* kernel, const char* expression,
                                        tkrt_triton_grid_program_t** out_program);
tkrt_status_t tkrt_triton_value_run(const tkrt_triton_grid_program_t* program,
                                    const int64_t* values, size_t value_count, int64_t* out_value);
/* How many values a run reads (1 + the largest variable index), 0 for a constant grid. */
size_t tkrt_triton_grid_value_count(const tkrt_triton_grid_program_t* program);
const char* tkrt_triton_grid_expression(const tkrt_triton_grid_program_t* program);
void tkrt_triton_grid_program_free(tkrt_triton_grid_program_t* program);

/* tkrt_triton_call_create, where a scalar without a value (allowed when `allow_missing`) takes 0
 * and is no name of the grid: for bound launches, whose scalars come per launch (their grids are
 * programs; the call's own grids are then its variants' grid_dims). */
tkrt_status_t tkrt_triton_call_create_internal(const tkrt_triton_call_desc_t* desc,
                                               bool allow_missing, tkrt_call_t** out_call);
/* Whether the kernel's tensor descriptors (if any) are passed decomposed (tensordesc_meta empty:
 * Triton did not lower them to TMA): the call then takes, per descriptor, the base as an ARRAY
 * parameter, shape as rank I64, strides as rank I64, the padding-NaN flag as BOOL and the TTIR's
 * hidden shape (rank I32) and strides (rank I64); else a TMA parameter and the hidden ones. */
bool tkrt_triton_kernel_decomposed(const tkrt_triton_kernel_t* kernel);

/* A scalar argument into the call's parameter (range, divisibility, fp16/bf16 conversion), as
 * tkrt_triton_call_create binds it; `unsigned_read`: the parameter is one of the call's
 * unsigned_scalars. */
tkrt_status_t tkrt_triton_bind_scalar_public(const tkrt_triton_param_t* param,
                                             const tkrt_triton_scalar_t* s, bool unsigned_read,
                                             tkrt_param_t* out);

/* The values an integer scalar parameter takes (tkrt_triton_call_desc_t's rule, the one copy of
 * it: Python hands integers over and reports what this says): i1 0..1; iN the signed range of N
 * bits, or 0..2^N-1 when read as unsigned (an unsigned i64: 0..2^64-1, the values above INT64_MAX
 * given as their bits with `above`). *out_rule: a sentence for messages on values outside it (""
 * when nothing more is to be said). */
void tkrt_triton_int_range(const tkrt_triton_param_t* param, bool unsigned_read, int64_t* out_low,
                           uint64_t* out_high, const char** out_rule);
/* Whether value `i` (its bits as a uint64 above INT64_MAX when `above`) is in [low, high]. */
static inline bool tkrt_triton_int_fits(int64_t low, uint64_t high, int64_t i, bool above) {
  if (above) return (uint64_t)i > (uint64_t)INT64_MAX && (uint64_t)i <= high;
  return i >= low && (i < 0 || (uint64_t)i <= high);
}
/* The value as text: "%lld", or "%llu" of its bits when above INT64_MAX. */
static inline const char* tkrt_triton_int_text(int64_t i, bool above, char out[24]) {
  if (above) snprintf(out, 24, "%llu", (unsigned long long)(uint64_t)i);
  else snprintf(out, 24, "%lld", (long long)i);
  return out;
}

/* Whether `name` is among the desc's unsigned_scalars. */
bool tkrt_triton_desc_unsigned(const tkrt_triton_call_desc_t* desc, const char* name);

/* Whether a parameter is an integer scalar (i1, i8..i64): a grid variable, range-checked. */
bool tkrt_triton_param_is_integer(const tkrt_triton_param_t* param);

#endif /* TKRT_TRITON_INTERNAL_H_ */
