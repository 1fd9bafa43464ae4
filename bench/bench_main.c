/* SPDX-License-Identifier: Apache-2.0 */
/* tkrt benchmarks: the command line shared by the tkrt_bench program and libtkrt_bench.so (the
 * Python driver calls bench_main so that jaxlib's custom call runs in the same process). */
#include "bench/bench_main.h"

#include <stdlib.h>
#include <string.h>

static const char kUsage[] =
    "usage: tkrt_bench SUBCOMMAND [options]\n"
    "  launch        host cost per launch: raw driver, HAL, prepared call, XLA custom call, jaxlib\n"
    "  threads       launches per second from 1, 2, 4 and 8 threads\n"
    "  module-load   matmul kernels: cold PTX JIT vs warm cubin cache (two processes)\n"
    "  tune          matmul_autotuned: tuning time and choice, then a second process (store)\n"
    "options:\n"
    "  --backend cuda|host   (default cuda; module-load and tune are CUDA only)\n"
    "  --json PATH           write the results as JSON\n"
    "  --vectors DIR         jaxlib vectors (default: the checkout's test/data/jaxlib-0.11.2)\n"
    "  --vector NAME         tune: the autotuned vector in DIR (call.pb.z, in0.bin, in1.bin,\n"
    "                        out0.bin; default matmul_autotuned)\n"
    "  --xla-lib PATH        libtkrt_xla.so for path (c) of `launch` (default $TKRT_XLA_LIBRARY)\n"
    "  --launches N --reps N launches per repetition, repetitions\n"
    "  --quick               few launches (CI)\n"
    "  --commit SHA          recorded in the JSON (default $TKRT_BENCH_COMMIT)\n"
    "  --self PATH           this program (for subcommands that start processes)\n";

/* The jaxlib vectors the repository carries (test/data/jaxlib-0.11.2), as CMake found them. */
#ifndef BENCH_DEFAULT_VECTORS
#error "CMake passes BENCH_DEFAULT_VECTORS (test/data/jaxlib-0.11.2 of the checkout)"
#endif
static const char* bench_default_vectors(void) { return BENCH_DEFAULT_VECTORS; }

int bench_main(int argc, char** argv, void* jaxlib_fn, const char* jaxlib_why) {
  if (argc < 2 || strcmp(argv[1], "--help") == 0 || strcmp(argv[1], "-h") == 0) {
    fputs(kUsage, argc < 2 ? stderr : stdout);
    return argc < 2 ? 2 : 0;
  }
  bench_options_t o;
  memset(&o, 0, sizeof(o));
  o.backend = "cuda";
  o.xla_library = getenv("TKRT_XLA_LIBRARY");
  o.commit = getenv("TKRT_BENCH_COMMIT");
  o.self_exe = "/proc/self/exe";
  o.jaxlib_fn = jaxlib_fn;
  o.jaxlib_fn_why = jaxlib_why;
  const char* command = argv[1];
  for (int i = 2; i < argc; ++i) {
    const char* a = argv[i];
    const char* v = i + 1 < argc ? argv[i + 1] : NULL;
    const char** slot = NULL;
    long* number = NULL;
    if (strcmp(a, "--quick") == 0) {
      o.quick = 1;
      continue;
    }
    if (strcmp(a, "--backend") == 0) slot = &o.backend;
    else if (strcmp(a, "--json") == 0) slot = &o.json_path;
    else if (strcmp(a, "--vectors") == 0) slot = &o.vectors;
    else if (strcmp(a, "--vector") == 0) slot = &o.vector;
    else if (strcmp(a, "--xla-lib") == 0) slot = &o.xla_library;
    else if (strcmp(a, "--commit") == 0) slot = &o.commit;
    else if (strcmp(a, "--self") == 0) slot = &o.self_exe;
    else if (strcmp(a, "--child") == 0) slot = &o.child;
    else if (strcmp(a, "--child-out") == 0) slot = &o.child_out;
    else if (strcmp(a, "--launches") == 0) number = &o.launches;
    else if (strcmp(a, "--reps") == 0) number = &o.reps;
    if ((!slot && !number) || !v) {
      fprintf(stderr, "tkrt_bench: %s '%s'\n%s", v ? "unknown option" : "missing value for", a, kUsage);
      return 2;
    }
    ++i;
    if (slot) {
      *slot = v;
    } else {
      char* end = NULL;
      *number = strtol(v, &end, 10);
      if (*end || *number <= 0) {
        fprintf(stderr, "tkrt_bench: bad %s '%s'\n", a, v);
        return 2;
      }
    }
  }
  if (!o.vectors) o.vectors = bench_default_vectors();
  if (!o.vector) o.vector = "matmul_autotuned";
  if (o.child && !o.child_out) {
    fprintf(stderr, "tkrt_bench: --child needs --child-out\n");
    return 2;
  }
  int rc;
  if (strcmp(command, "launch") == 0) {
    rc = bench_launch_overhead(&o);
  } else if (strcmp(command, "threads") == 0) {
    rc = bench_threads(&o);
  } else if (strcmp(command, "module-load") == 0) {
    rc = bench_module_load(&o);
  } else if (strcmp(command, "tune") == 0) {
    rc = bench_tuning(&o);
  } else {
    fprintf(stderr, "tkrt_bench: unknown subcommand '%s'\n%s", command, kUsage);
    return 2;
  }
  fflush(stdout);
  return rc;
}
