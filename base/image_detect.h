/* SPDX-License-Identifier: Apache-2.0 */
/* tkrt base: telling an image's kind from its first bytes (the HAL's module loader, the wire codec
 * and the image inspector all ask the same question). */
#ifndef TKRT_BASE_IMAGE_DETECT_H_
#define TKRT_BASE_IMAGE_DETECT_H_

#include <stddef.h>

#include "tkrt/device.h"

/* PTX (text with a .version directive near the start), cubin (ELF, EM_CUDA), HSACO (ELF,
 * EM_AMDGPU), host (any other ELF), fatbin (its magic); TKRT_IMAGE_AUTO when nothing matches. */
tkrt_image_kind_t tkrt_image_detect(const void* data, size_t size);

#endif /* TKRT_BASE_IMAGE_DETECT_H_ */
