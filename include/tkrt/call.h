/* SPDX-License-Identifier: Apache-2.0 */
/* tkrt: kernel descriptions and kernel calls, the objects the wire codec produces and C users
 * build directly. Both are immutable after creation and reference counted.
 *
 * Lifetimes: a kernel deep-copies its description (strings, image bytes) at creation, so the
 * caller may free its own copy at once. A call deep-copies its description and retains its
 * kernels. Launching or preparing a call on a device builds per-device state that lives with the
 * call until its last reference goes: the loaded modules, the global scratch allocation, the
 * decided config, and a reference to the device (so a device outlives every call that ran on it).
 * Releasing a call while a launch of it is still queued on a stream is the caller's to avoid:
 * synchronize first (the modules and scratch the launch uses are freed with the call). A call may
 * be launched from many threads at once; launches take no lock once the state exists. */
#ifndef TKRT_CALL_H_
#define TKRT_CALL_H_

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "tkrt/api.h"
#include "tkrt/device.h"
#include "tkrt/status.h"
#include "tkrt/tma.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct tkrt_kernel_s tkrt_kernel_t;
typedef struct tkrt_call_s tkrt_call_t;

/* ---------------------------------------------------------------- kernels */

/* Where an image came from: built by a C user, or decoded from which field of a serialized call.
 * Re-encoding puts an image back in its field; any origin but API means the bytes came from a blob.
 * What else re-encoding needs (the HSACO path, optional fields present as 0) is the codec's own
 * business, kept beside decoded kernels, not in these structs. */
typedef enum tkrt_image_origin {
  TKRT_IMAGE_ORIGIN_API = 0,          /* built by a C user */
  TKRT_IMAGE_ORIGIN_PTX_FIELD = 1,    /* TritonKernel.ptx (field 4) held the PTX text */
  TKRT_IMAGE_ORIGIN_HSACO_PATH = 2,   /* TritonKernel.ptx held an HSACO path (ROCm); bytes read once */
  TKRT_IMAGE_ORIGIN_MODULE_IMAGE = 3, /* TritonKernel.module_image (field 11) */
  TKRT_IMAGE_ORIGIN_TKRT_FIELD = 4,   /* tkrt's own image-bytes field */
} tkrt_image_origin_t;

typedef struct tkrt_kernel_image {
  const char* backend;   /* "cuda", "hip", "host"; NULL: derived from the kind */
  const char* arch;      /* e.g. "sm_90a", "gfx942"; NULL or "": any arch of the backend */
  tkrt_image_kind_t kind;
  const void* data;
  size_t size;
  const char* entry_name;    /* NULL: the kernel's name */
  uint32_t shared_mem_bytes; /* 0: the kernel's; module_image carries its own value */
  tkrt_image_origin_t origin;
} tkrt_kernel_image_t;

typedef struct tkrt_kernel_desc {
  size_t struct_size;
  const char* name;              /* entry symbol */
  uint32_t num_warps;            /* block = num_warps x warp size (1-D) */
  uint32_t num_ctas;             /* cluster size along x; 0 or 1: no cluster */
  uint32_t cluster_dims[3];      /* legacy explicit cluster dims (wire fields 7-9), used when
                                    num_ctas <= 1 and they are not all 0 (a 0 counts as 1);
                                    the decoder leaves them 0 when the blob has num_ctas */
  uint32_t shared_mem_bytes;     /* dynamic shared memory at launch */
  uint32_t compute_capability;   /* major*10+minor the image was built for; informational */
  uint32_t global_scratch_size;  /* per-CTA global scratch bytes; 0: none */
  uint32_t global_scratch_align; /* its alignment; 0: default (256) */
  uint32_t launch_flags;         /* TKRT_LAUNCH_COOPERATIVE, TKRT_LAUNCH_PDL */
  const char* ttir;              /* informational, kept for round trips; may be NULL */
  const tkrt_kernel_image_t* images;
  size_t image_count;
  /* Per-CTA profile scratch (Triton's profile_scratch_size / _align: kernels instrumented for
   * intra-kernel profiling): like global scratch, grid x num_ctas x size bytes, passed as the
   * second hidden pointer. 0: none (the pointer is null). Align 0: default (256). */
  uint32_t profile_scratch_size;
  uint32_t profile_scratch_align;
  /* Which hidden scratch pointers the kernel declares after its parameters (a tkrt_hidden_pointers_t):
   * the launch passes exactly those. */
  uint32_t hidden_pointers;
} tkrt_kernel_desc_t;

/* The hidden pointers a Triton kernel declares after its own parameters, which changed between
 * Triton releases. The default (0) is what jaxlib passes and Triton 3.5 and newer declare. */
typedef enum tkrt_hidden_pointers {
  TKRT_HIDDEN_POINTERS_GLOBAL_PROFILE = 0, /* global scratch, then profile scratch (3.5 and newer) */
  TKRT_HIDDEN_POINTERS_GLOBAL = 1,         /* global scratch only (Triton 3.3 and 3.4) */
  TKRT_HIDDEN_POINTERS_NONE = 2,           /* none (Triton 3.2) */
} tkrt_hidden_pointers_t;

/* How many pointers `hidden_pointers` stands for: 2, 1 or 0. */
TKRT_API uint32_t tkrt_hidden_pointer_count(uint32_t hidden_pointers);

TKRT_API void tkrt_kernel_desc_init(tkrt_kernel_desc_t* desc);
/* Deep-copies the description (strings and image bytes). At least one image; a name; num_warps
 * >= 1. Errors name the offending field. */
TKRT_MUST_USE TKRT_API tkrt_status_t tkrt_kernel_create(const tkrt_kernel_desc_t* desc,
                                          tkrt_kernel_t** out_kernel);
TKRT_API void tkrt_kernel_retain(tkrt_kernel_t* kernel);
TKRT_API void tkrt_kernel_release(tkrt_kernel_t* kernel);
/* Lent view of the kernel's own copy; valid while the kernel lives. */
TKRT_API const tkrt_kernel_desc_t* tkrt_kernel_get_desc(const tkrt_kernel_t* kernel);
/* The backend a kernel image is for: image->backend, or derived from its kind. */
TKRT_API const char* tkrt_kernel_image_backend(const tkrt_kernel_image_t* image);

/* ---------------------------------------------------------------- parameters */

typedef enum tkrt_param_kind {
  TKRT_PARAM_ARRAY = 1, /* consumes the next buffer */
  TKRT_PARAM_BOOL = 2,
  TKRT_PARAM_I32 = 3,
  TKRT_PARAM_U32 = 4,
  TKRT_PARAM_I64 = 5,
  TKRT_PARAM_U64 = 6,
  TKRT_PARAM_F32 = 7,
  TKRT_PARAM_F64 = 8,
  TKRT_PARAM_TMA = 9, /* a host-side TMA descriptor built at launch (backends with TMA only) */
} tkrt_param_kind_t;

/* A TMA parameter's shape and strides for one launch (tkrt_call_launch_args_t.tma_shapes), for
 * descriptors whose tensor changes from launch to launch (Triton's host TensorDescriptor): rank
 * must be the parameter's; element type, swizzle and block shape stay the call's, and the fill
 * too unless `fill` says otherwise. rank 0 keeps the call's shape, strides and fill. */
typedef struct tkrt_tma_shape {
  uint32_t rank;
  uint64_t shape[TKRT_TMA_MAX_RANK];
  uint64_t strides[TKRT_TMA_MAX_RANK];
  /* This launch's out-of-bounds fill: 0 keeps the call's oob_fill; 1 zeros; 2 NaN (Triton's
   * padding="nan"; a floating-point element type). That is, oob_fill + 1 when nonzero. */
  uint32_t fill;
} tkrt_tma_shape_t;

typedef struct tkrt_param {
  tkrt_param_kind_t kind;
  union {
    struct {
      uint64_t bytes_to_zero;    /* zeroed at the buffer start before every launch */
      uint64_t ptr_divisibility; /* 0: none; else the address must be divisible by it */
    } array;
    bool b;
    int32_t i32;
    uint32_t u32;
    int64_t i64;
    uint64_t u64;
    float f32;
    double f64;
    tkrt_tma_desc_t tma;
  } value;
} tkrt_param_t;

TKRT_API const char* tkrt_param_kind_name(tkrt_param_kind_t kind);

/* ---------------------------------------------------------------- calls */

typedef struct tkrt_config_desc {
  tkrt_kernel_t* kernel; /* retained by the call */
  uint32_t grid[3];      /* in CTAs, before cluster scaling */
  const tkrt_param_t* params;
  size_t param_count;
  const char* description; /* autotune config label; may be NULL */
} tkrt_config_desc_t;

/* jaxlib's alias record: input buffer index, output BUFFER index (operands then results, so
 * num_inputs + output ordinal: jaxlib's autotuner compares buffers[input] with buffers[output], and
 * TransformerEngine writes its records that way), and the bytes to save. Some frontends write the
 * output's ordinal instead, so tkrt decides which inputs alias outputs from buffer addresses at run
 * time and uses records for sizes (and, on XLA's legacy target, where buffers have no sizes, for
 * which buffers are aliased outputs). */
typedef struct tkrt_alias {
  uint64_t input_index;
  uint64_t output_index;
  uint64_t size_bytes;
} tkrt_alias_t;

typedef struct tkrt_call_desc {
  size_t struct_size;
  const char* name;      /* TritonAnyKernelCall.name; may be NULL */
  const void* metadata;  /* opaque frontend bytes; may be NULL */
  size_t metadata_size;
  bool autotuned;        /* an autotuned call (several configs), even with one config */
  const char* autotune_name; /* TritonAutotunedKernelCall.name; may be NULL */
  const tkrt_config_desc_t* configs;
  size_t config_count;   /* >= 1; exactly 1 unless autotuned */
  const tkrt_alias_t* aliases;
  size_t alias_count;
} tkrt_call_desc_t;

TKRT_API void tkrt_call_desc_init(tkrt_call_desc_t* desc);
/* Deep-copies the description and retains its kernels. */
TKRT_MUST_USE TKRT_API tkrt_status_t tkrt_call_create(const tkrt_call_desc_t* desc, tkrt_call_t** out_call);
TKRT_API void tkrt_call_retain(tkrt_call_t* call);
TKRT_API void tkrt_call_release(tkrt_call_t* call);
/* Lent view of the call's own copy. */
TKRT_API const tkrt_call_desc_t* tkrt_call_get_desc(const tkrt_call_t* call);

#define TKRT_DIGEST_SIZE 32
/* SHA-256 over a canonical, wire-independent encoding of everything that affects execution
 * (configs, kernels, images, params, aliases; not names or metadata). Keys tuning decisions. */
TKRT_API const uint8_t* tkrt_call_digest(const tkrt_call_t* call);

/* ---------------------------------------------------------------- launching */

typedef struct tkrt_autotuner_s tkrt_autotuner_t;

/* A buffer's size when the caller does not know it (XLA's legacy custom call passes bare
 * pointers). */
#define TKRT_BUFFER_SIZE_UNKNOWN UINT64_MAX

/* A device buffer: its address and its size in bytes, or TKRT_BUFFER_SIZE_UNKNOWN. Sizes let tkrt
 * find inputs that overlap outputs and check bytes_to_zero. A size of 0 is an empty buffer (an
 * empty optional operand or result): XLA may give it any address, null or one shared with another
 * buffer, so it never counts as aliasing anything and its address is not checked for
 * ptr_divisibility (the kernel must not read it). */
typedef struct tkrt_buffer {
  tkrt_deviceptr_t ptr;
  uint64_t size;
} tkrt_buffer_t;

/* Why a config runs (tkrt_call_launch_args_t.decision, tkrt_tune_report_t.source). */
typedef enum tkrt_tune_source {
  TKRT_TUNE_SOURCE_NONE = 0,   /* no decision yet */
  TKRT_TUNE_SOURCE_SINGLE = 1, /* one config: nothing to decide */
  TKRT_TUNE_SOURCE_PINNED = 2,
  TKRT_TUNE_SOURCE_TUNED = 3,  /* benchmarked in this process */
  TKRT_TUNE_SOURCE_STORE = 4,  /* read from the decision store */
  TKRT_TUNE_SOURCE_DEFAULT = 5, /* policy NEVER without a decision, or a capture without one: the
                                  first runnable config */
  /* Tuning would overwrite an input that shares memory with an output and whose size is unknown,
   * so it cannot be saved and restored: the first runnable config runs, untuned. Kept in memory
   * for the tuner's life (never stored); fallback_reason says which input. */
  TKRT_TUNE_SOURCE_FALLBACK = 6,
  /* Decided through the tuner's decision exchange (tkrt/autotune.h): another rank's published
   * decision (leader policy) or the merged timings of every rank (merge policy). */
  TKRT_TUNE_SOURCE_EXCHANGE = 7,
  /* The exchange timed out, failed or held a refused value: every rank runs the same
   * deterministic choice (the first runnable config); fallback_reason says why. */
  TKRT_TUNE_SOURCE_EXCHANGE_FALLBACK = 8
} tkrt_tune_source_t;

/* What a launch ran, for callers that count or log it (libtkrt_xla's counters). */
typedef struct tkrt_launch_decision {
  size_t config;             /* the config that ran */
  tkrt_tune_source_t source; /* SINGLE for a call with one config */
  /* This launch made the decision (the call's first launch on the device, or a capture with no
   * decision yet); false when it reused the one made before. */
  bool decided;
  /* The decision holds for this launch only: a capture without a decision ran the first
   * runnable config (TKRT_CAPTURE_POLICY_FIRST_CONFIG); the next launch outside capture tunes. */
  bool provisional;
  bool capturing; /* the stream was capturing (known when `decided`) */
} tkrt_launch_decision_t;

/* A per-launch scalar (tkrt_call_launch_args_t.scalars): a scalar kind of tkrt_param_kind_t and
 * its value, 16 bytes; kind 0 keeps the call's value. */
typedef struct tkrt_scalar {
  tkrt_param_kind_t kind;
  union {
    bool b;
    int32_t i32;
    uint32_t u32;
    int64_t i64;
    uint64_t u64;
    float f32;
    double f64;
  } value;
} tkrt_scalar_t;

typedef struct tkrt_call_launch_args {
  size_t struct_size;
  tkrt_device_t* device;
  tkrt_stream_t stream;
  /* All inputs, then all outputs, as XLA passes them. The k-th array parameter takes buffer k;
   * buffers beyond the array parameters (e.g. an output aliased to an input) are not passed. */
  const tkrt_buffer_t* buffers;
  size_t input_count;
  size_t output_count;
  /* Decides which config of an autotuned call runs (required when there are several). */
  tkrt_autotuner_t* tuner;
  /* Optional: the inputs that share memory with an output (address and size), for callers that
   * know them better than buffer addresses can tell (XLA's legacy custom call, whose buffers carry
   * no sizes, knows them from the call's alias records). When set (even with a count of 0), the
   * autotuner saves and restores exactly these around every config; when NULL, it finds them by
   * comparing the addresses and sizes of the inputs with those of the outputs. An entry of unknown
   * size cannot be saved: the call then runs its first runnable config untuned (report source
   * TKRT_TUNE_SOURCE_FALLBACK), never an error. */
  const tkrt_buffer_t* aliased_inputs;
  size_t aliased_input_count;
  /* Optional out: filled with what the launch ran and why when the launch succeeds. */
  tkrt_launch_decision_t* decision;
  /* Optional per-launch scalars: entry k replaces the value of the config's k-th scalar parameter
   * (parameters that are neither ARRAY nor TMA, in order) for this launch only; an entry whose
   * kind is 0 keeps the call's value. Each given entry's kind must equal the parameter's, and
   * there may not be more entries than scalar parameters (INVALID_ARGUMENT naming the parameter).
   * Grids are the call's unless `grid` below gives them per launch. */
  const tkrt_scalar_t* scalars;
  size_t scalar_count;
  /* Optional per-launch grid (grids that depend on per-launch scalars): called with the index of
   * the config about to run (for every config the tuner benchmarks) before anything is enqueued
   * for it; out_grid (in programs, before cluster scaling; it holds the config's own grid on
   * entry) replaces that config's grid for this launch. A status it returns fails the launch with
   * nothing enqueued for that config (while tuning, configs benchmarked before it have run and
   * in-place buffers are restored), as does a grid over the device's limits. Global and profile
   * scratch grow to what the grid needs, outside a stream capture only: a captured launch that
   * needs more than the call holds is FAILED_PRECONDITION (launch once with the largest grid
   * first). */
  tkrt_status_t (*grid)(void* grid_user, size_t config, uint32_t out_grid[3]);
  void* grid_user;
  /* Optional per-launch shapes of TMA parameters: entry k is the k-th TMA parameter's (parameter
   * order), validated like the call's; rank 0 keeps the call's. No more entries than TMA
   * parameters. The backend encodes a descriptor per (base, shape, strides, box, type, swizzle,
   * fill) and keeps recent ones, so steady launches of the same tensor do not encode again. */
  const tkrt_tma_shape_t* tma_shapes;
  size_t tma_shape_count;
  /* TKRT_CALL_LAUNCH_* bits; 0 by default. */
  uint32_t flags;
} tkrt_call_launch_args_t;

/* A launch that never waits: where it would have to — to prepare the call on the device (loading
 * its modules), to decide an autotuned call (the decision store, benchmarking, a decision
 * exchange), or to grow its global or profile scratch — it enqueues nothing and returns
 * tkrt_status_would_wait(). For callers that hold a lock others may need meanwhile (Python's
 * GIL): they try with the flag, and on that status release the lock and launch without it. */
#define TKRT_CALL_LAUNCH_NO_WAIT 1u
/* The call's alias records name buffers by index over this launch's inputs-then-outputs list
 * (jaxlib's legacy custom call, whose buffers are bare pointers: record = (input buffer index,
 * output buffer index, bytes), as jaxlib's autotuner reads them). While tuning, an input is saved
 * when its address is the record's output buffer's or any other buffer's, with the record's size;
 * a record naming a buffer the launch does not have is INVALID_ARGUMENT, nothing enqueued. Without
 * the flag (buffers with sizes: XLA's typed FFI, Python) inputs that share memory with outputs are
 * found from addresses and sizes. `aliased_inputs`, when set, wins over both. */
#define TKRT_CALL_LAUNCH_ALIASES_BY_INDEX 2u

TKRT_API void tkrt_call_launch_args_init(tkrt_call_launch_args_t* args);

/* Loads the call's kernels on the device and allocates its global scratch, so that later launches
 * (for example under stream capture, where neither is allowed) only enqueue work. Idempotent and
 * safe to call from many threads: the work is done once per (call, device). */
TKRT_MUST_USE TKRT_API tkrt_status_t tkrt_call_prepare(tkrt_call_t* call, tkrt_device_t* device);
/* tkrt_call_prepare, taking the modules that `source` (a call prepared on the same device, or
 * NULL) loaded for the same images instead of loading them again: for calls that differ only in
 * their scalars (a tuning key's values), so that a thousand of them hold one module per image.
 * Each module stays loaded while any call that holds it does. */
TKRT_MUST_USE TKRT_API tkrt_status_t tkrt_call_prepare_sharing(tkrt_call_t* call,
                                                               tkrt_device_t* device,
                                                               const tkrt_call_t* source);

/* Launches the call with jaxlib's semantics: array parameters take buffers in order, scalars are
 * packed by type, the hidden global-scratch and profile-scratch pointers follow, block = num_warps
 * x warp size, grid x is scaled by the cluster size, and bytes_to_zero is zeroed before the launch.
 * Everything is validated before anything is enqueued; an empty grid is a successful no-op.
 * Autotuned calls pick their config through args->tuner (see tkrt/autotune.h). */
TKRT_MUST_USE TKRT_API tkrt_status_t tkrt_call_launch(tkrt_call_t* call, const tkrt_call_launch_args_t* args);

/* What tkrt_call_state reports about a call on one device. */
#define TKRT_CALL_STATE_PREPARED 1u /* kernels loaded and scratch allocated on the device */
/* The config that launches run is known without tuning: the call has one config (and is
 * prepared), or `tuner` (the same tuner, by id) decided it on this device and cached it. */
#define TKRT_CALL_STATE_DECIDED 2u

/* The call's published state on `device`, read without a lock (an acquire load and a walk of the
 * call's per-device list, which holds one entry per device it ran on): 0, or TKRT_CALL_STATE_*
 * bits. `tuner` may be NULL (then only single-config calls read as decided). When DECIDED and
 * `out_config` is not NULL, *out_config is the config launches run. A state once reported stays
 * (the core never unloads a prepared call nor forgets a decision while the call lives). */
TKRT_API uint32_t tkrt_call_state(const tkrt_call_t* call, const tkrt_device_t* device,
                                  const tkrt_autotuner_t* tuner, size_t* out_config);

#ifdef __cplusplus
}
#endif

#endif /* TKRT_CALL_H_ */
