/* SPDX-License-Identifier: Apache-2.0 */
/* tkrt: export and attribute macros shared by every public header.
 * Only symbols marked TKRT_API leave the shared library; everything else is hidden. */
#ifndef TKRT_API_H_
#define TKRT_API_H_

#if defined(TKRT_STATIC_DEFINE)
#define TKRT_API
#elif defined(__GNUC__) || defined(__clang__)
#define TKRT_API __attribute__((visibility("default")))
#else
#define TKRT_API
#endif

#if defined(__GNUC__) || defined(__clang__)
#define TKRT_PRINTF_LIKE(fmt, args) __attribute__((format(printf, fmt, args)))
#define TKRT_MUST_USE __attribute__((warn_unused_result))
#else
#define TKRT_PRINTF_LIKE(fmt, args)
#define TKRT_MUST_USE
#endif

#define TKRT_VERSION_MAJOR 0
#define TKRT_VERSION_MINOR 1
#define TKRT_VERSION_PATCH 0
#define TKRT_VERSION_STRING "0.1.0"

#endif /* TKRT_API_H_ */
