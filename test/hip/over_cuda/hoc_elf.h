/* SPDX-License-Identifier: Apache-2.0 */
/* hip-over-cuda (a HIP runtime over the CUDA driver, for tests): reading AMDGPU code objects and
 * the sections the pack tool adds to them (the cubin of the same kernels, launch rules). */
#ifndef TKRT_TEST_HIP_OVER_CUDA_HOC_ELF_H_
#define TKRT_TEST_HIP_OVER_CUDA_HOC_ELF_H_

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* The cubin of the same kernels, as ptxas or Triton wrote it. */
#define HOC_SECTION_CUBIN ".tkrt.cubin"
/* Text lines of launch rules: "any-block <kernel>" (the kernel's CUDA build works with any block
 * and is launched with the block as given; every other kernel follows the wave64 rule,
 * hoc_wave64_block) and "cuda-shared <kernel> <bytes>" (the CUDA build's own dynamic shared memory,
 * from its metadata, used instead of the HIP launch's amount, which sizes the AMD code's LDS). */
#define HOC_SECTION_LAUNCH ".tkrt.launch"

#define HOC_EM_AMDGPU 224

/* The size of an ELF64 image from its headers alone (hipModuleLoadData gets no size): the end of
 * the furthest header table, section or segment. 0 when the bytes are not a well-formed little-
 * endian ELF64 file within `limit` bytes. */
size_t hoc_elf_size(const void* image, size_t limit);

/* The e_machine and e_flags of an ELF64 image of `size` bytes; false when it is not one. */
bool hoc_elf_header(const void* image, size_t size, uint16_t* out_machine, uint32_t* out_flags);

/* The bytes of the section named `name`; false when there is none (or the image is malformed). */
bool hoc_elf_section(const void* image, size_t size, const char* name, const uint8_t** out_data,
                     size_t* out_size);

/* Whether .symtab or .dynsym defines `name` (an AMDGPU kernel is "<kernel>.kd", its descriptor). */
bool hoc_elf_has_symbol(const void* image, size_t size, const char* name);

/* "gfx942" for the EF_AMDGPU_MACH field of e_flags; NULL for a processor this table lacks. */
const char* hoc_amdgpu_processor(uint32_t e_flags);

/* The compute capability ROCm reports for a processor: gfx942 -> 9.4, gfx90a -> 9.0, gfx1100 ->
 * 11.0 (the major is the digits before the last two characters, the minor the next digit, a hex
 * letter counting as 0). False for a name that is not "gfx" and at least three characters. */
bool hoc_arch_version(const char* processor, int* out_major, int* out_minor);

/* Returns a new image: `hsaco` with the two sections above appended (non-allocated, so the AMD
 * loader ignores them); `rules` is their text, one rule per line (may be NULL). NULL with a reason
 * in `error` when `hsaco` is not an AMDGPU ELF64 code object or already has the sections. */
uint8_t* hoc_pack(const uint8_t* hsaco, size_t hsaco_size, const uint8_t* cubin, size_t cubin_size,
                  const char* rules, size_t* out_size, char* error, size_t error_capacity);

/* Whether the launch rules (the HOC_SECTION_LAUNCH text) exempt `kernel` from the wave64 rule. */
bool hoc_launch_any_block(const uint8_t* rules, size_t rules_size, const char* kernel);

/* The "cuda-shared" bytes the rules give `kernel`; false when they give none. */
bool hoc_launch_cuda_shared(const uint8_t* rules, size_t rules_size, const char* kernel,
                            unsigned int* out_bytes);

/* The wave64 rule: an AMD launch of a Triton kernel has num_warps x 64 threads in x (y = z = 1),
 * and its CUDA build runs the same program with num_warps x 32. Writes the CUDA block x and returns
 * true when the block has that shape; false otherwise. */
bool hoc_wave64_block(unsigned int bx, unsigned int by, unsigned int bz, unsigned int* out_cuda_bx);

#endif /* TKRT_TEST_HIP_OVER_CUDA_HOC_ELF_H_ */
