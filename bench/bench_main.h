/* SPDX-License-Identifier: Apache-2.0 */
/* tkrt benchmarks: the subcommands of the benchmark program (and of libtkrt_bench.so, which the
 * Python driver loads so that jaxlib's custom call runs in the same process). */
#ifndef TKRT_BENCH_BENCH_MAIN_H_
#define TKRT_BENCH_BENCH_MAIN_H_

#include "bench/bench_util.h"

int bench_launch_overhead(const bench_options_t* options);
int bench_threads(const bench_options_t* options);
int bench_module_load(const bench_options_t* options);
int bench_tuning(const bench_options_t* options);

/* The whole program: `argv[1]` names the subcommand. `jaxlib_fn` is jaxlib's legacy custom call
 * (triton_kernel_call) when the caller has one, else NULL; `jaxlib_why` says why not (may be
 * NULL). Exported from libtkrt_bench.so as the only symbol besides bench_version. */
__attribute__((visibility("default"))) int bench_main(int argc, char** argv, void* jaxlib_fn,
                                                      const char* jaxlib_why);

#endif /* TKRT_BENCH_BENCH_MAIN_H_ */
