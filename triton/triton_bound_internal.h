/* SPDX-License-Identifier: Apache-2.0 */
/* tkrt triton: what tests may reach of bound launches (triton_bound.c) beyond tkrt/triton_bound.h. */
#ifndef TKRT_TRITON_TRITON_BOUND_INTERNAL_H_
#define TKRT_TRITON_TRITON_BOUND_INTERNAL_H_

#include <stddef.h>

#include "tkrt/triton_bound.h"

/* Lowers how many distinct tuning-key values a bound call keeps (4096 otherwise). */
void tkrt_triton_bound_set_key_values_max(tkrt_triton_bound_t* bound, size_t max);

#endif /* TKRT_TRITON_TRITON_BOUND_INTERNAL_H_ */
