/* SPDX-License-Identifier: Apache-2.0 */
/* Stands for another release's libtkrt.so in tools.cli.version: preloaded (LD_PRELOAD), its
 * tkrt_version and tkrt_version_number are found before the real library's, as a libtkrt.so of
 * another version would be, so that `tkrt --version` must report the library's version and warn. */
#include <stdint.h>

const char* tkrt_version(void) { return "9.8.7"; }
uint32_t tkrt_version_number(void) { return 90807; }
