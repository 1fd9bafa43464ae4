/* SPDX-License-Identifier: Apache-2.0 */
/* The counters the fake libcuda (fake_libcuda.c) keeps for the tests that load it: one
 * declaration for both sides, so the library and its tests cannot disagree on the layout. */
#ifndef TKRT_TEST_CUDA_FAKE_LIBCUDA_H_
#define TKRT_TEST_CUDA_FAKE_LIBCUDA_H_

typedef struct tkrt_cuda_fake_counters {
  int jit_compiles;
  int module_loads;
  int ctx_set_current;
  int func_set_attribute;
  int last_func_set_attribute_value;
  int launches;
  int launches_ex;
  int last_ex_num_attrs;
  unsigned last_cluster_x;
  int last_spread;
  int last_cooperative;
  int last_pdl;
  int graph_launches;
  int captured_launches;
  int primary_retained;
  long live_allocations;
} tkrt_cuda_fake_counters_t;

#endif /* TKRT_TEST_CUDA_FAKE_LIBCUDA_H_ */
