/* SPDX-License-Identifier: Apache-2.0 */
/* tkrt_hsaco_pack: stores the cubin of the same kernels in a real AMDGPU code object, for the
 * hip-over-cuda test runtime. Usage: tkrt_hsaco_pack IN.hsaco IN.cubin OUT.hsaco [rule]... */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "test/hip/over_cuda/hoc_elf.h"

static unsigned char* hoc_read(const char* path, size_t* out_size) {
  FILE* file = fopen(path, "rb");
  if (!file) return NULL;
  unsigned char* data = NULL;
  long size = -1;
  if (fseek(file, 0, SEEK_END) == 0) size = ftell(file);
  if (size > 0 && fseek(file, 0, SEEK_SET) == 0) data = malloc((size_t)size);
  if (data && fread(data, 1, (size_t)size, file) != (size_t)size) {
    free(data);
    data = NULL;
  }
  fclose(file);
  if (data) *out_size = (size_t)size;
  return data;
}

int main(int argc, char** argv) {
  if (argc < 4) {
    fprintf(stderr,
            "usage: %s IN.hsaco IN.cubin OUT.hsaco [--any-block KERNEL] [--cuda-shared KERNEL=BYTES]...\n"
            "Adds the cubin (section " HOC_SECTION_CUBIN ") and launch rules (section "
            HOC_SECTION_LAUNCH ") to an AMDGPU code object for the hip-over-cuda test runtime.\n"
            "Kernels named with --any-block run with the block as given; every other kernel\n"
            "must be launched with num_warps x 64 threads and runs with num_warps x 32.\n"
            "--cuda-shared: the dynamic shared memory the CUDA build of KERNEL needs (Triton's\n"
            "'shared' for it), used instead of the HIP launch's amount.\n",
            argv[0]);
    return 2;
  }
  char rules[8192] = "";
  size_t used = 0;
  for (int i = 4; i < argc; ++i) {
    const char* value = i + 1 < argc ? argv[i + 1] : NULL;
    const char* equals = value ? strchr(value, '=') : NULL;
    int written = -1;
    if (strcmp(argv[i], "--any-block") == 0 && value && !strpbrk(value, " \n")) {
      written = snprintf(rules + used, sizeof(rules) - used, "any-block %s\n", value);
    } else if (strcmp(argv[i], "--cuda-shared") == 0 && equals && equals[1] &&
               strspn(equals + 1, "0123456789") == strlen(equals + 1) && !strpbrk(value, " \n")) {
      written = snprintf(rules + used, sizeof(rules) - used, "cuda-shared %.*s %s\n",
                         (int)(equals - value), value, equals + 1);
    } else {
      fprintf(stderr, "%s: bad argument '%s'%s%s\n", argv[0], argv[i], value ? " " : "",
              value ? value : "");
      return 2;
    }
    if (written < 0 || (size_t)written >= sizeof(rules) - used) {
      fprintf(stderr, "%s: too many rules\n", argv[0]);
      return 2;
    }
    used += (size_t)written;
    ++i;
  }
  size_t hsaco_size = 0, cubin_size = 0, packed_size = 0;
  unsigned char* hsaco = hoc_read(argv[1], &hsaco_size);
  unsigned char* cubin = hoc_read(argv[2], &cubin_size);
  int rc = 1;
  char error[256] = "";
  unsigned char* packed = NULL;
  if (!hsaco || !cubin) {
    fprintf(stderr, "%s: cannot read %s\n", argv[0], hsaco ? argv[2] : argv[1]);
    goto done;
  }
  packed = hoc_pack(hsaco, hsaco_size, cubin, cubin_size, rules, &packed_size, error,
                    sizeof(error));
  if (!packed) {
    fprintf(stderr, "%s: %s: %s\n", argv[0], argv[1], error);
    goto done;
  }
  FILE* out = fopen(argv[3], "wb");
  if (!out || fwrite(packed, 1, packed_size, out) != packed_size || fclose(out) != 0) {
    fprintf(stderr, "%s: cannot write %s\n", argv[0], argv[3]);
    goto done;
  }
  rc = 0;
done:
  free(packed);
  free(hsaco);
  free(cubin);
  return rc;
}
