/* tkrt core: the layout of kernels and calls, shared by the constructors (call.c), the launch
 * path (call_launch.c) and the autotuner. */
#ifndef TKRT_CORE_CALL_INTERNAL_H_
#define TKRT_CORE_CALL_INTERNAL_H_

#include <stdatomic.h>

#include "core/sha256.h"
#include "tkrt/call.h"

struct tkrt_kernel_s {
  atomic_int ref_count;
  tkrt_kernel_desc_t desc; /* deep copy; pointers below are owned */
  tkrt_kernel_image_t* images;
  uint8_t digest[TKRT_DIGEST_SIZE];
};

typedef struct tkrt_call_device_state tkrt_call_device_state_t;

struct tkrt_call_s {
  atomic_int ref_count;
  tkrt_call_desc_t desc; /* deep copy */
  tkrt_config_desc_t* configs;
  tkrt_alias_t* aliases;
  size_t array_param_count_max; /* most array params of any config: buffers it may consume */
  uint8_t digest[TKRT_DIGEST_SIZE];
  /* Per-device launch state, published lock-free: a singly linked list pushed with CAS. */
  _Atomic(tkrt_call_device_state_t*) device_states;
};

/* Frees launch state (call_launch.c); called when the call is destroyed. */
void tkrt_call_device_states_free(tkrt_call_t* call);

#endif /* TKRT_CORE_CALL_INTERNAL_H_ */
