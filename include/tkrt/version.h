/* SPDX-License-Identifier: Apache-2.0 */
/* tkrt: the library's version at run time, to catch a program built against one version's headers
 * running with another version's libtkrt.so. The headers' own version is TKRT_VERSION_* (api.h). */
#ifndef TKRT_VERSION_H_
#define TKRT_VERSION_H_

#include <stdint.h>

#include "tkrt/api.h"

#ifdef __cplusplus
extern "C" {
#endif

/* major * 10000 + minor * 100 + patch: 0.1.0 is 100. */
#define TKRT_VERSION_NUMBER \
  (TKRT_VERSION_MAJOR * 10000 + TKRT_VERSION_MINOR * 100 + TKRT_VERSION_PATCH)

/* The version of the library running, "major.minor.patch" (static storage). A program compares
 * it with TKRT_VERSION_STRING, the version of the headers it was built with. */
TKRT_API const char* tkrt_version(void);
/* The same as a number, as TKRT_VERSION_NUMBER encodes it. */
TKRT_API uint32_t tkrt_version_number(void);

/* True when the library running is the one the headers describe. Before 1.0 every minor release
 * may change the ABI, so only an equal major and minor (and a patch at least the headers') match. */
static inline int tkrt_version_matches_headers(void) {
  uint32_t library = tkrt_version_number();
  return library / 100 == TKRT_VERSION_NUMBER / 100 && library >= TKRT_VERSION_NUMBER;
}

#ifdef __cplusplus
}
#endif

#endif /* TKRT_VERSION_H_ */
