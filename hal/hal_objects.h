/* tkrt: the API-level module and function objects, shared by the public API and the core so the
 * launch fast path can reach the backend handle without another lookup. */
#ifndef TKRT_HAL_HAL_OBJECTS_H_
#define TKRT_HAL_HAL_OBJECTS_H_

#include <pthread.h>

#include "hal/hal.h"

struct tkrt_function_s {
  tkrt_module_t* module;
  void* handle; /* backend function */
  struct tkrt_function_s* next;
  char name[];
};

struct tkrt_module_s {
  tkrt_device_t* device; /* retained */
  void* handle;          /* backend module */
  tkrt_image_kind_t kind;
  pthread_mutex_t lock;  /* guards `functions` (lookups only, never launches) */
  struct tkrt_function_s* functions;
};

#endif /* TKRT_HAL_HAL_OBJECTS_H_ */
