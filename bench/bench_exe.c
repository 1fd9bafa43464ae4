/* SPDX-License-Identifier: Apache-2.0 */
/* tkrt benchmarks: the tkrt_bench program (everything but jaxlib's path, which needs the Python
 * driver bench_driver.py to hand over jaxlib's function pointer). */
#include "bench/bench_main.h"

int main(int argc, char** argv) {
  return bench_main(argc, argv, NULL, "jaxlib's entry point comes only through bench_driver.py");
}
