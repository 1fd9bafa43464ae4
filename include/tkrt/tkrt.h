/* SPDX-License-Identifier: Apache-2.0 */
/* tkrt: the umbrella header. Portable runtime for compiled Triton kernels. */
#ifndef TKRT_TKRT_H_
#define TKRT_TKRT_H_

#include "tkrt/api.h"
#include "tkrt/autotune.h"
#include "tkrt/call.h"
#include "tkrt/device.h"
#include "tkrt/environment.h"
#include "tkrt/image.h"
#include "tkrt/log.h"
#include "tkrt/runtime.h"
#include "tkrt/settings.h"
#include "tkrt/status.h"
#include "tkrt/tma.h"
#include "tkrt/triton.h"
#include "tkrt/triton_bound.h"
#include "tkrt/version.h"
#include "tkrt/wire.h"

#endif /* TKRT_TKRT_H_ */
