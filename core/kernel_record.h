/* SPDX-License-Identifier: Apache-2.0 */
/* tkrt core: the side record a format layer (the wire codec) keeps beside a kernel it made: what
 * re-encoding needs and what runs does not depend on. The one part of the kernel's internals the
 * layers above the core may use; the layout stays in call_internal.h. */
#ifndef TKRT_CORE_KERNEL_RECORD_H_
#define TKRT_CORE_KERNEL_RECORD_H_

#include "tkrt/call.h"

/* tkrt_kernel_create, with a side record attached: on success the kernel owns `record` and frees
 * it with record_free when it dies; on failure the caller still owns it. The record is immutable
 * and not in the digest. */
tkrt_status_t tkrt_kernel_create_with_record(const tkrt_kernel_desc_t* desc, void* record,
                                             void (*record_free)(void* record),
                                             tkrt_kernel_t** out_kernel);

/* The kernel's side record if it was attached with `record_free` (its owner's), else NULL. */
const void* tkrt_kernel_record(const tkrt_kernel_t* kernel, void (*record_free)(void* record));

#endif /* TKRT_CORE_KERNEL_RECORD_H_ */
