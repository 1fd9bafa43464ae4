/* SPDX-License-Identifier: Apache-2.0 */
/* tkrt triton: what the Triton loader (triton_load.c), the TTIR signature reader (triton_ttir.c)
 * and the call builder (triton_call.c) share. */
#ifndef TKRT_TRITON_INTERNAL_H_
#define TKRT_TRITON_INTERNAL_H_

#include <stdatomic.h>
#include <stddef.h>

#include "tkrt/triton.h"

#define TKRT_TRITON_JSON_LIMIT ((size_t)1 << 20)    /* metadata JSON */
#define TKRT_TRITON_TTIR_LIMIT ((size_t)64 << 20)   /* .ttir / .source text */
#define TKRT_TRITON_IMAGE_LIMIT ((size_t)512 << 20) /* cubin, PTX, HSACO, host image */
#define TKRT_TRITON_MAX_PARAMS 1024

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
};

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

#endif /* TKRT_TRITON_INTERNAL_H_ */
