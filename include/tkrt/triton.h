/* SPDX-License-Identifier: Apache-2.0 */
/* tkrt: kernels straight from Triton's compile output (no JAX): load the metadata JSON, the images
 * (cubin, PTX, HSACO; a host image beside them) and the TTIR signature, build calls over variants. */
#ifndef TKRT_TRITON_H_
#define TKRT_TRITON_H_

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "tkrt/api.h"
#include "tkrt/autotune.h"
#include "tkrt/call.h"
#include "tkrt/device.h"
#include "tkrt/status.h"

#ifdef __cplusplus
extern "C" {
#endif

/* The Triton releases whose compile output (CUDA and HIP targets) tkrt reads, oldest and newest:
 * others are refused by name. docs/compatibility.md has what each release writes. */
#define TKRT_TRITON_OLDEST "3.2"
#define TKRT_TRITON_NEWEST "3.9"

/* A Triton kernel loaded from one or more compile outputs of the same kernel for different
 * targets. Immutable and reference counted; thread-safe to share. */
typedef struct tkrt_triton_kernel_s tkrt_triton_kernel_t;

/* One parameter of the kernel as the TTIR `tt.func` declares it. Constexprs are folded away by
 * Triton and do not appear; the hidden global- and profile-scratch pointers are not listed. */
typedef struct tkrt_triton_param {
  const char* name;          /* "x_ptr" (the SSA name without '%') */
  const char* type;          /* Triton's spelling: "*fp32", "*fp16", "i32", "i64", "fp32", "i1" */
  bool is_pointer;
  /* How the value is passed: TKRT_PARAM_ARRAY for pointers (consumes the next buffer); I32 for
   * i8/i16/i32, I64 for i64, BOOL for i1, F32/F64 for fp32/fp64, U32 (raw bits) for fp16/bf16. */
  tkrt_param_kind_t kind;
  uint32_t element_bytes;    /* pointers: the pointee's size (0 unknown); scalars: the value's */
  uint32_t divisibility;     /* tt.divisibility (16 when Triton specialised it); 0: none */
  /* A tensor descriptor (`!tt.tensordesc<tensor<64x128xf16>>`, Triton's host TensorDescriptor;
   * type "tensordesc<fp16[64, 128]>", kind TKRT_PARAM_TMA, element_bytes the element's size): its
   * rank and the block shape the kernel was compiled for, outermost first. The shape and stride
   * parameters Triton adds after it in the TTIR are not listed: they come from the descriptor at
   * each launch. 0 for other parameters. */
  uint32_t desc_rank;
  uint32_t desc_block[TKRT_TMA_MAX_RANK];
} tkrt_triton_param_t;

/* One compile output (one metadata JSON) that went into the kernel. */
typedef struct tkrt_triton_target {
  const char* json_path;
  const char* backend;       /* "cuda", "hip" or "host" (target.backend) */
  const char* arch;          /* as the image says: "sm_90a", "gfx942"; from the JSON otherwise */
  uint32_t warp_size;        /* target.warp_size */
  uint32_t num_stages;       /* informational */
  uint32_t shared_mem_bytes; /* dynamic shared memory of this target's images ("shared") */
  uint32_t global_scratch_size, global_scratch_align;
  uint32_t tmem_size;        /* informational (Blackwell tensor memory) */
  const char* triton_version; /* "" when absent */
  const char* hash;           /* Triton's kernel hash; "" when absent */
  uint32_t image_kinds;       /* bits (1u << TKRT_IMAGE_*) of the images taken from beside it */
  /* The `<stem>.so` beside the JSON that was left out because loading native code was not
   * allowed (tkrt_triton_load_options_t.allow_native_code); NULL when none was. */
  const char* native_code_left_out;
  /* The Triton release the output was read as, "3.2" to "3.9": from triton_version (3.3 and
   * newer) or, for 3.2, which writes none, from its fields. "" for host targets (tkrt's own). */
  const char* triton_release;
  /* The hidden scratch pointers that release's kernels declare (a tkrt_hidden_pointers_t). */
  uint32_t hidden_pointers;
} tkrt_triton_target_t;

typedef struct tkrt_triton_load_options {
  size_t struct_size;
  /* Which image kinds to take, as bits (1u << TKRT_IMAGE_CUBIN) | ...; 0: every kind found (a
   * cubin and the PTX are both kept: the backend prefers the cubin and JITs the PTX where the
   * cubin does not fit the device). */
  uint32_t image_kinds;
  /* Whether a `<stem>.so` beside a JSON (a tkrt host image: native code, which the host backend
   * runs in this process with its rights) may be taken. Default false: such a file is left out
   * (recorded in the target's native_code_left_out), and a target that has no other image is
   * PERMISSION_DENIED naming the file. Set it only for folders you trust as you trust your own
   * code: Triton's cache and folders others can write are data, not code. See docs/security.md. */
  bool allow_native_code;
  /* The constexpr values the output was compiled with, "BLOCK=1024,EVEN=1", where the caller knows
   * them (Triton's output files do not record them; its CompiledKernel does: src.constants). Kept
   * with the kernel (tkrt_triton_kernel_constants): a variant's grid may name them without giving
   * them, and a variant whose `constants` gives one of them another value is refused
   * (INVALID_ARGUMENT naming both values: the code was compiled for this one, and another value
   * would only change the grid, not the code). NULL or "": none known. Integers and true/false. */
  const char* constants;
} tkrt_triton_load_options_t;

TKRT_API void tkrt_triton_load_options_init(tkrt_triton_load_options_t* options);

/* The image kind of a name for image_kinds: one Triton writes for some backend ("cubin", "ptx",
 * "hsaco", "host"; the backends say which). INVALID_ARGUMENT otherwise, listing them. */
TKRT_MUST_USE TKRT_API tkrt_status_t tkrt_triton_image_kind_from_name(
    const char* name, tkrt_image_kind_t* out_kind);

/* Loads a kernel. Each path is one of:
 *   - Triton's metadata `<stem>.json` (not `__grp__*.json`), with beside it the images
 *     `<stem>.cubin` / `<stem>.ptx` (target.backend "cuda"), `<stem>.hsaco` ("hip"), and
 *     optionally `<stem>.so`, a tkrt host image of the same kernel (see tkrt/host_kernel.h; taken
 *     only with options->allow_native_code), and the signature in `<stem>.ttir` (else
 *     `<stem>.source`);
 *   - a directory holding exactly one such JSON (a Triton cache entry `~/.triton/cache/<hash>/`,
 *     or what `triton.compile` wrote);
 *   - a directory without one whose subdirectories hold one each (one per target).
 * All targets must be the same kernel: same name, parameters, num_warps, num_ctas, cluster dims
 * and launch flags; two outputs for the same backend and arch are refused (they are variants, see
 * tkrt_triton_call_create). Global scratch is the largest of the targets'. Files are read with
 * size limits and must be regular files. Errors name the file and the field. */
TKRT_API tkrt_status_t tkrt_triton_kernel_load(const char* const* paths, size_t path_count,
                                               const tkrt_triton_load_options_t* options,
                                               tkrt_triton_kernel_t** out_kernel);
TKRT_API void tkrt_triton_kernel_retain(tkrt_triton_kernel_t* kernel);
TKRT_API void tkrt_triton_kernel_release(tkrt_triton_kernel_t* kernel);

/* Lent accessors, valid while the kernel lives. */
TKRT_API tkrt_kernel_t* tkrt_triton_kernel_get(const tkrt_triton_kernel_t* kernel);
TKRT_API const char* tkrt_triton_kernel_name(const tkrt_triton_kernel_t* kernel);
TKRT_API size_t tkrt_triton_kernel_param_count(const tkrt_triton_kernel_t* kernel);
TKRT_API const tkrt_triton_param_t* tkrt_triton_kernel_param(const tkrt_triton_kernel_t* kernel,
                                                             size_t index);
TKRT_API size_t tkrt_triton_kernel_target_count(const tkrt_triton_kernel_t* kernel);
TKRT_API const tkrt_triton_target_t* tkrt_triton_kernel_target(const tkrt_triton_kernel_t* kernel,
                                                               size_t index);
/* The constexprs the kernel was compiled with, as given at load (tkrt_triton_load_options_t.constants,
 * normalised to "NAME=INT,..."); "" when none were given. */
TKRT_API const char* tkrt_triton_kernel_constants(const tkrt_triton_kernel_t* kernel);
/* The index of the parameter named `name`, or -1. */
TKRT_API long tkrt_triton_kernel_find_param(const tkrt_triton_kernel_t* kernel, const char* name);

/* ---------------------------------------------------------------- Triton's cache */

/* Called for each kernel JSON found; `json_path` is lent for the call. Return false to stop. */
typedef bool (*tkrt_triton_cache_visitor_t)(const char* json_path, const char* kernel_name,
                                            void* user);

/* Lists the kernels in Triton's cache, in path order: `<cache_dir>/<hash>/<name>.json`.
 * cache_dir NULL: $TRITON_CACHE_DIR, else $TRITON_HOME/.triton/cache, else $HOME/.triton/cache
 * (Triton's own order; read in core/environment.c). name NULL: every kernel. A missing cache
 * directory is NOT_FOUND naming it. */
TKRT_API tkrt_status_t tkrt_triton_cache_scan(const char* cache_dir, const char* name,
                                              tkrt_triton_cache_visitor_t visit, void* user);

/* Whether an entry of Triton's cache (`folder`, holding <name>.json and the files beside it) may
 * be read for kernel `name` when nobody named it by path (tkrt.triton finding a CompiledKernel's
 * files): the folder is a real folder (not a link) and no <name>.* file in it is a link; unless
 * shared caches are trusted, the folder and those files belong to this user or root and no one
 * else can write them (tkrt's store rule), and the cache folder above is this user's or root's
 * and writable by no one else unless sticky; <name>.json (a regular file, not followed through a
 * link, at most 1 MiB) names the kernel and, when `hash` is not NULL, that hash. trust_shared: 1
 * trusts caches shared with other users, 0 does not, -1 reads TKRT_TRUST_SHARED_STORES. NULL when
 * the entry may be read; else PERMISSION_DENIED (or the file error) naming the file and why. */
TKRT_MUST_USE TKRT_API tkrt_status_t tkrt_triton_cache_entry_check(const char* folder,
                                                                   const char* name,
                                                                   const char* hash,
                                                                   int trust_shared);

/* ---------------------------------------------------------------- calls */

/* A scalar argument, by parameter name. Integers go to integer parameters (range-checked against
 * the parameter's width and reading, signed or unsigned) and to float parameters; floats only to
 * float parameters. */
typedef struct tkrt_triton_scalar {
  const char* name;
  bool is_float;
  int64_t i;
  double f;
  /* i holds the bits of an integer above INT64_MAX (2^63..2^64-1), for callers whose integers
   * are wider than int64_t (Python's); only an i64 read as unsigned takes one. Last, so that
   * {name, is_float, i, f} initialisers keep their meaning. */
  bool is_uint64;
} tkrt_triton_scalar_t;

/* Parses "NAME=VALUE" (VALUE an integer, 0x-hex, or a float with '.', 'e', inf or nan). `text`
 * must outlive the scalar only for `name`, which points into it; the '=' is not modified, so the
 * name is the prefix of length *out_name_length. */
TKRT_API tkrt_status_t tkrt_triton_scalar_parse(const char* text, tkrt_triton_scalar_t* out_scalar,
                                                size_t* out_name_length);

/* One compiled variant of the kernel and its grid. */
typedef struct tkrt_triton_variant {
  tkrt_triton_kernel_t* kernel; /* retained by the call (through its tkrt kernel) */
  /* The grid: an expression (syntax in docs/triton.md), e.g. "cdiv(n, BLOCK)" or
   * "cdiv(M, BM), cdiv(N, BN)": up to three comma-separated integer expressions with + - * / %
   * (integer, floor), parentheses, cdiv(a, b), min(a, b), max(a, b), integer literals, and names:
   * the call's integer scalars, this variant's `constants`, num_warps and num_stages. Missing
   * dimensions are 1. NULL: `grid_dims`. */
  const char* grid;
  uint32_t grid_dims[3];
  /* The constexpr values this variant was compiled with, for the grid expression: "BM=64,BN=128".
   * They are folded into the image; tkrt only uses them to evaluate the grid. May be NULL. Those
   * the kernel knows (tkrt_triton_kernel_constants) need not be given, and may not differ. */
  const char* constants;
  const char* description; /* autotune label; NULL: made from the constants and num_warps */
} tkrt_triton_variant_t;

typedef struct tkrt_triton_call_desc {
  size_t struct_size;
  const char* name; /* NULL: the kernel's */
  const tkrt_triton_variant_t* variants;
  size_t variant_count; /* >= 1; more than one makes an autotuned call */
  /* A value for every scalar parameter (and no other name). */
  const tkrt_triton_scalar_t* scalars;
  size_t scalar_count;
  /* Pointer parameters the kernel reads and writes (in place). tkrt saves and restores them
   * around autotuning, as for any aliased input; pure outputs need not be listed. */
  const char* const* inout;
  size_t inout_count;
  /* Integer scalar parameters read as unsigned. TTIR integers are signless, and Triton compiles
   * an i32 (i8, i16) parameter for the Python integers of its signed range, specialising to i64
   * beyond it, so by default a value must be in the signed range of the parameter's width
   * (-2^31..2^31-1 for i32; i64: the signed 64-bit range). A name listed here takes
   * 0..2^width-1 instead (i64: 0..2^64-1, passed as the int64_t of the same bits): for kernels
   * that read the parameter as unsigned (tl.uint32 in Triton's signature). Each name must be an
   * integer scalar parameter (not i1). */
  const char* const* unsigned_scalars;
  size_t unsigned_scalar_count;
} tkrt_triton_call_desc_t;

TKRT_API void tkrt_triton_call_desc_init(tkrt_triton_call_desc_t* desc);

/* Builds a tkrt call with one config per variant: pointer parameters become array parameters
 * (with the TTIR's divisibility, checked at launch), scalars take the given values, grids are
 * evaluated now. All variants must have the same parameter list. In-place parameters become the
 * call's alias records (input = the pointer's ordinal among the pointer parameters). The result is
 * an ordinary tkrt call: launch it with tkrt_triton_call_launch or tkrt_call_launch. */
TKRT_API tkrt_status_t tkrt_triton_call_create(const tkrt_triton_call_desc_t* desc,
                                               tkrt_call_t** out_call);

/* Launches a call made by tkrt_triton_call_create: `buffers` holds one buffer per pointer
 * parameter, in parameter order (sizes let tkrt check bytes and save in-place buffers; 0:
 * unknown). The in-place buffers are passed to tkrt_call_launch again as outputs, so that
 * autotuning restores them. `tuner` may be NULL for a single variant. A call with tensor
 * descriptors (TMA-form, or decomposed: tkrt_triton_call_create marks those in the call's
 * metadata) is refused here (INVALID_ARGUMENT naming the
 * descriptor parameter): their tensors come with each launch through tkrt_triton_bound_launch;
 * tkrt_call_launch on such a call runs the placeholders (the block, contiguous). */
TKRT_API tkrt_status_t tkrt_triton_call_launch(tkrt_call_t* call, tkrt_device_t* device,
                                               tkrt_stream_t stream, const tkrt_buffer_t* buffers,
                                               size_t buffer_count, tkrt_autotuner_t* tuner);

/* Evaluates a grid expression (the syntax of tkrt_triton_variant_t.grid) with names bound by a
 * "NAME=INT,..." list (may be NULL). Used by tkrt_triton_call_create; exposed for tools. */
TKRT_API tkrt_status_t tkrt_triton_grid_eval(const char* expression, const char* bindings,
                                             uint32_t out_grid[3]);

#ifdef __cplusplus
}
#endif

#endif /* TKRT_TRITON_H_ */
