/* tkrt core: launching kernel calls on a device (validation, parameter packing, per-device
 * state published without locks). */
#include <stdlib.h>

#include "core/call_internal.h"

void tkrt_call_device_states_free(tkrt_call_t* call) { (void)call; }
