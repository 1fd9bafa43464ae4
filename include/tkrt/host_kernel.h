/* SPDX-License-Identifier: Apache-2.0 */
/* tkrt: how to write kernels for the host backend. A host module image is a native shared object;
 * each kernel in it is a C function run once per program (CTA) of the launch grid, like a Triton
 * program, and is described by an exported tkrt_host_kernel_desc_t named tkrt_host_kernel__<name>.
 *
 *   #include <tkrt/host_kernel.h>
 *   TKRT_HOST_KERNEL(add_kernel, "*fp32,*fp32,*fp32,i32") {
 *     const float* x = TKRT_HOST_PARAM(const float*, 0);  ... TKRT_HOST_PARAM(int32_t, 3) ...
 *     uint32_t pid = program->pid[0];
 *   }
 *
 * Parameters arrive as CUDA's kernelParams do: params[i] points at the value of parameter i.
 * The signature (Triton's spelling: "*" marks a pointer; i1 i8 u8 i16 u16 fp16 bf16 i32 u32 fp32
 * i64 u64 fp64) tells the backend how many parameters the kernel declares and their sizes, so that
 * launches can copy the values and ignore extra trailing parameters, as the CUDA driver does.
 * Programs of one launch run concurrently on a worker pool; a kernel must not depend on the order
 * in which programs run (on a GPU it could not either). This header has no link dependency. */
#ifndef TKRT_HOST_KERNEL_H_
#define TKRT_HOST_KERNEL_H_

#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#define TKRT_HOST_KERNEL_ABI_VERSION 1u
#define TKRT_HOST_KERNEL_SYMBOL_PREFIX "tkrt_host_kernel__"

typedef struct tkrt_host_program {
  uint32_t pid[3];          /* this program's index in the grid (tl.program_id) */
  uint32_t num_programs[3]; /* the grid (tl.num_programs) */
  uint32_t block[3];        /* threads asked for; one host thread runs the whole program */
  uint32_t cluster[3];      /* cluster dims, {1,1,1} when none */
  void* shared;             /* static + dynamic shared memory of this program, 64-byte aligned */
  uint32_t shared_bytes;
} tkrt_host_program_t;

typedef void (*tkrt_host_kernel_fn_t)(void* const* params, const tkrt_host_program_t* program);

typedef struct tkrt_host_kernel_desc {
  uint32_t abi_version; /* TKRT_HOST_KERNEL_ABI_VERSION */
  uint32_t static_shared_bytes;
  const char* name;
  const char* signature;
  tkrt_host_kernel_fn_t fn;
} tkrt_host_kernel_desc_t;

#if defined(__GNUC__) || defined(__clang__)
#define TKRT_HOST_KERNEL_EXPORT __attribute__((visibility("default")))
#else
#define TKRT_HOST_KERNEL_EXPORT
#endif

#define TKRT_HOST_KERNEL_EX(name, signature, static_shared)                                      \
  static void name##__tkrt_body(void* const* params, const tkrt_host_program_t* program);        \
  TKRT_HOST_KERNEL_EXPORT extern const tkrt_host_kernel_desc_t tkrt_host_kernel__##name;         \
  const tkrt_host_kernel_desc_t tkrt_host_kernel__##name = {                                     \
      TKRT_HOST_KERNEL_ABI_VERSION, (static_shared), #name, (signature), name##__tkrt_body};     \
  static void name##__tkrt_body(void* const* params, const tkrt_host_program_t* program)

#define TKRT_HOST_KERNEL(name, signature) TKRT_HOST_KERNEL_EX(name, signature, 0)

/* Reads parameter i as type T. */
#define TKRT_HOST_PARAM(T, i) (*(T const*)(params[(i)]))

#ifdef __cplusplus
}
#endif

#endif /* TKRT_HOST_KERNEL_H_ */
