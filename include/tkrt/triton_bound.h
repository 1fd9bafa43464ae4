/* SPDX-License-Identifier: Apache-2.0 */
/* tkrt: bound launches of Triton kernels (the runtime layer over tkrt/triton.h): per-launch
 * pointers, scalars and tensor descriptors, grids evaluated from the scalars, tuning keys. */
#ifndef TKRT_TRITON_BOUND_H_
#define TKRT_TRITON_BOUND_H_

#include <stddef.h>
#include <stdint.h>

#include "tkrt/api.h"
#include "tkrt/call.h"
#include "tkrt/device.h"
#include "tkrt/runtime.h"
#include "tkrt/status.h"
#include "tkrt/triton.h"

#ifdef __cplusplus
extern "C" {
#endif

/* A call bound to a runtime's device with per-launch arguments: every pointer, scalar and tensor
 * descriptor is given at each launch, the grid is evaluated from that launch's scalars (each
 * variant's grid expression compiled once into a program), Triton's specialisations are checked per
 * launch (an integer scalar's tt.divisibility), and an autotuned call is decided once per value of
 * its tuning key. What the native Python launcher and tkrt.triton's ctypes path call. Immutable
 * after creation except for its tuning-key table; launch it from any number of threads. */
typedef struct tkrt_triton_bound_s tkrt_triton_bound_t;

typedef struct tkrt_triton_bound_options {
  size_t struct_size;
  tkrt_runtime_t* runtime; /* NULL: tkrt_runtime_default(); its tuner decides autotuned calls */
  tkrt_device_t* device;   /* required: a device of `runtime` */
  /* Scalar parameters whose values key the tuning decision (Triton's autotune key=): each
   * distinct tuple of their values is decided on its first launch (benchmarked, or read from the
   * tuner's store, where it is persisted like any decision) and kept until the bound call is
   * destroyed, at most 4096 of them (RESOURCE_EXHAUSTED beyond). NULL / 0: one decision for
   * every launch. Ignored for a single variant. */
  const char* const* tuning_key;
  size_t tuning_key_count;
  /* The least extents of pointer arguments, as "NAME=EXPR": NAME a pointer parameter whose
   * element size is known, EXPR an expression of the kernel's integer scalars (the grid syntax:
   * "n", "M*K", "4096") counting the elements the kernel reads or writes through it, which tkrt
   * cannot see in the kernel. At each launch EXPR is evaluated with that launch's scalars, and a
   * pointer argument whose size (tkrt_triton_arg_t.size) is smaller or unknown is
   * INVALID_ARGUMENT naming it, nothing enqueued; a bad entry is INVALID_ARGUMENT at creation.
   * NULL / 0: none (Python's prepare(min_elements=...), the CLI's --min-elements). */
  const char* const* min_elements;
  size_t min_element_count;
} tkrt_triton_bound_options_t;

TKRT_API void tkrt_triton_bound_options_init(tkrt_triton_bound_options_t* options);

/* Builds the call of `desc` (tkrt_triton_call_create: desc->scalars are defaults here and may
 * leave any scalar out; a launch must then give it), compiles each variant's grid into a program
 * of the scalars, and prepares the call on the device (tkrt_runtime_prepare; FAILED_PRECONDITION
 * when the device's default stream is capturing). */
TKRT_MUST_USE TKRT_API tkrt_status_t tkrt_triton_bound_create(
    const tkrt_triton_call_desc_t* desc, const tkrt_triton_bound_options_t* options,
    tkrt_triton_bound_t** out_bound);
/* Closes it: later launches are FAILED_PRECONDITION (saying it was closed); launches running on
 * other threads are waited for, then all work queued on the device (tkrt_device_synchronize:
 * launches made with it may still be queued, on any stream), and then its calls are released
 * (modules unloaded, scratch freed). The object itself stays valid until destroyed, so a thread
 * that launches it after the close gets the error, never freed memory. A device error met while
 * waiting is returned (the calls are released all the same). Closing again does nothing. Do not
 * close a bound call whose launches a graph captured and will replay. */
TKRT_MUST_USE TKRT_API tkrt_status_t tkrt_triton_bound_close(tkrt_triton_bound_t* bound);
/* Closes it (unless closed) and frees it: once no thread can launch it any more. */
TKRT_API void tkrt_triton_bound_destroy(tkrt_triton_bound_t* bound);
/* Lent: the call with the default values (the one decided when there is no tuning key). Its own
 * grids are each variant's grid at the defaults, a scalar without a default counting 0; where
 * that does not evaluate (a division by zero) the grid is 0 x 0 x 0, so launching the call
 * without a grid callback (tkrt_call_launch) launches nothing: give per-launch scalars through
 * tkrt_triton_bound_launch, which evaluates the grid at each launch. */
TKRT_API tkrt_call_t* tkrt_triton_bound_call(const tkrt_triton_bound_t* bound);
/* How many arguments a launch takes: the kernel's parameters (tkrt_triton_kernel_param_count). */
TKRT_API size_t tkrt_triton_bound_arg_count(const tkrt_triton_bound_t* bound);

typedef enum tkrt_triton_arg_kind {
  TKRT_TRITON_ARG_DEFAULT = 0,    /* a scalar's default from the desc */
  TKRT_TRITON_ARG_POINTER = 1,    /* ptr, size */
  TKRT_TRITON_ARG_INT = 2,        /* i: integer and i1 parameters, or a float parameter */
  TKRT_TRITON_ARG_FLOAT = 3,      /* f: float parameters only */
  TKRT_TRITON_ARG_DESCRIPTOR = 4, /* ptr (the base), size, rank, shape, strides, block */
  /* i holds the bits of an integer above INT64_MAX (2^63..2^64-1), as a caller whose integers are
   * wider than int64_t (Python's) passes one; only an i64 read as unsigned takes it. */
  TKRT_TRITON_ARG_UINT = 5,
} tkrt_triton_arg_kind_t;

/* One launch argument, in parameter order. */
typedef struct tkrt_triton_arg {
  uint32_t kind;            /* tkrt_triton_arg_kind_t */
  uint32_t rank;            /* DESCRIPTOR */
  tkrt_deviceptr_t ptr;     /* POINTER; DESCRIPTOR: the tensor's base */
  uint64_t size;            /* bytes from ptr, or TKRT_BUFFER_SIZE_UNKNOWN */
  int64_t i;                /* INT; UINT: the bits of the uint64 value */
  double f;                 /* FLOAT */
  int64_t shape[TKRT_TMA_MAX_RANK];   /* DESCRIPTOR: in elements, outermost first */
  int64_t strides[TKRT_TMA_MAX_RANK]; /* DESCRIPTOR: in elements, the innermost 1 */
  /* DESCRIPTOR: the block shape the caller's descriptor names; must equal the parameter's
   * desc_block (the kernel was compiled for it). All 0: not checked. */
  int64_t block[TKRT_TMA_MAX_RANK];
  /* DESCRIPTOR: what reads outside the tensor give: 0 zeros, 1 NaN (Triton's padding="nan";
   * a floating-point element type only). */
  uint32_t padding_nan;
  /* POINTER, DESCRIPTOR (its base): the array's element type as DLPack describes it, code << 8 |
   * bits (lanes 1; kDLInt 0, kDLUInt 1, kDLFloat 2, kDLBfloat 4, kDLComplex 5, kDLBool 6, the
   * float8 codes 9..13); 0: not given, not checked. Given, it must be one the parameter's element
   * takes (an iN pointer takes signed and unsigned N-bit integers: TTIR is signless; i1 takes
   * kDLBool) or the launch is INVALID_ARGUMENT naming both. */
  uint32_t dtype;
} tkrt_triton_arg_t;

/* Launches on `stream` (a native stream of the device; NULL: its default). Every argument is
 * checked before anything is enqueued: the kind fits the parameter, integers fit its type, an
 * integer with tt.divisibility is a multiple of it, pointers meet their tt.divisibility, a
 * descriptor's rank, block and strides fit the parameter (INVALID_ARGUMENT / OUT_OF_RANGE naming
 * the argument, its value and the rule). Descriptors that Triton lowered to TMA (non-empty
 * tensordesc_meta) are refused on devices without TMA (UNIMPLEMENTED naming the backend);
 * decomposed ones (empty tensordesc_meta: the base pointer, shape, strides and padding flag
 * passed as parameters) run on every backend. `decision` (may be NULL): what ran and why. Once
 * the call (for this tuning-key value) is decided on the device, a launch usually takes no lock
 * and allocates nothing; the exceptions: a grid needing more global scratch than allocated so far
 * grows it (under a lock), above 64 parameters or buffers or 8 descriptors its arrays are
 * malloc'ed, and the core allocates above its own stack sizes. A tuning-key value not seen
 * before makes, prepares and decides its call (under the table's lock); a bound call keeps at
 * most 4096 distinct values (until destroyed): one more is RESOURCE_EXHAUSTED naming it. */
TKRT_MUST_USE TKRT_API tkrt_status_t tkrt_triton_bound_launch(const tkrt_triton_bound_t* bound,
                                                              tkrt_stream_t stream,
                                                              const tkrt_triton_arg_t* args,
                                                              size_t arg_count,
                                                              tkrt_launch_decision_t* decision);

/* The launch above, but it never waits: where tkrt_triton_bound_launch would wait — for the call's
 * first preparation on the device or its decision (the store, benchmarking, a decision exchange),
 * for a tuning-key value not seen before (its call made and its modules loaded), or to grow
 * scratch — it enqueues nothing and returns tkrt_status_would_wait() (tkrt_status_is_would_wait;
 * code UNAVAILABLE, nothing to free). For callers that hold a lock others may need while a launch
 * waits (Python's GIL: tkrt.triton tries with the GIL held, and on that status launches again
 * with it released). Arguments are checked first, as by tkrt_triton_bound_launch. */
TKRT_MUST_USE TKRT_API tkrt_status_t tkrt_triton_bound_try_launch(const tkrt_triton_bound_t* bound,
                                                                  tkrt_stream_t stream,
                                                                  const tkrt_triton_arg_t* args,
                                                                  size_t arg_count,
                                                                  tkrt_launch_decision_t* decision);

/* Options of tkrt_triton_bound_launch_with. */
typedef struct tkrt_triton_bound_launch_options {
  size_t struct_size;
  /* Never wait: as tkrt_triton_bound_try_launch. */
  bool no_wait;
  /* This launch's grid of every variant, in place of the grid each variant's program would
   * compute: grids[3 * v + d] is dimension d of variant v (each 0..2^32-1; a 0 makes the launch a
   * no-op, as a grid of 0 does), for callers that compute grids themselves, as Triton's grid
   * callables of the launch's arguments. grid_count must be 3 x the variants. NULL: the programs. */
  const uint32_t* grids;
  size_t grid_count;
} tkrt_triton_bound_launch_options_t;

TKRT_API void tkrt_triton_bound_launch_options_init(tkrt_triton_bound_launch_options_t* options);

/* tkrt_triton_bound_launch (or, with no_wait, tkrt_triton_bound_try_launch) with `options`
 * (NULL: none): the same checks, and a grid_count that is not 3 x the variants is
 * INVALID_ARGUMENT before anything is enqueued. */
TKRT_MUST_USE TKRT_API tkrt_status_t tkrt_triton_bound_launch_with(
    const tkrt_triton_bound_t* bound, tkrt_stream_t stream, const tkrt_triton_arg_t* args,
    size_t arg_count, const tkrt_triton_bound_launch_options_t* options,
    tkrt_launch_decision_t* decision);

#ifdef __cplusplus
}
#endif

#endif /* TKRT_TRITON_BOUND_H_ */
