/* SPDX-License-Identifier: Apache-2.0 */
/* tkrt: tkrt_version, the library's version at run time (tkrt/version.h). */
#include "tkrt/version.h"

/* The headers' version must be the project's (CMakeLists.txt project(VERSION)): CMake passes it
 * in, and a release that bumps one and not the other does not build. */
#if defined(TKRT_PROJECT_VERSION_MAJOR) &&                                                  \
    (TKRT_PROJECT_VERSION_MAJOR != TKRT_VERSION_MAJOR ||                                     \
     TKRT_PROJECT_VERSION_MINOR != TKRT_VERSION_MINOR ||                                     \
     TKRT_PROJECT_VERSION_PATCH != TKRT_VERSION_PATCH)
#error "include/tkrt/api.h's TKRT_VERSION_* differ from CMakeLists.txt's project(VERSION)"
#endif

const char* tkrt_version(void) { return TKRT_VERSION_STRING; }

uint32_t tkrt_version_number(void) { return TKRT_VERSION_NUMBER; }
