/* SPDX-License-Identifier: Apache-2.0 */
/* tkrt: the environment reader. The library reads environment variables only in
 * core/environment.c: here, for tools (the tkrt CLI, libtkrt_xla, the Python package) that call
 * this to honour the TKRT_* variables, and TRITON_CACHE_DIR / HOME in tkrt_triton_cache_scan
 * (tkrt/triton.h). */
#ifndef TKRT_ENVIRONMENT_H_
#define TKRT_ENVIRONMENT_H_

#include "tkrt/api.h"
#include "tkrt/autotune.h"
#include "tkrt/device.h"
#include "tkrt/log.h"
#include "tkrt/status.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Fills the options from the environment, over whatever they hold (call the _init functions
 * first); either pointer may be NULL. The variables and their words come from the settings table
 * (tkrt/settings.h, core/settings.c; the list: docs/settings.md), those of scope "library".
 * Variables that are unset leave their field alone, except the cache folders, which get their
 * per-user defaults:
 *   TKRT_BACKEND        device->backend        a backend name or comma list (no empty names)
 *   TKRT_HOST_THREADS   device->host_threads   1..256
 *   TKRT_CACHE_DIR      device->cache_dir      $TKRT_CACHE_DIR/cubin, or off; default
 *                                              $XDG_CACHE_HOME/tkrt/cubin or ~/.cache/tkrt/cubin
 *   TKRT_HIP_LIBRARY    device->hip_library    path, soname or ':' list
 *   TKRT_LOG            the process's log level (tkrt_log_set_level; device->log is left
 *                       alone): off | error | warn | info | debug, any case; the switch words
 *                       1, on, yes, true mean debug and 0, off, no, false mean off; default warn
 *   TKRT_TUNE_POLICY    tuner->policy          auto | never (any case)
 *   TKRT_TUNE_DIR       tuner->store_dir       decision store folder, or off; default
 *                                              $XDG_CACHE_HOME/tkrt/tune or ~/.cache/tkrt/tune
 *   TKRT_TUNE_PIN       tuner->pins            <digest prefix|*>[@arch]=<config>,...
 *   TKRT_TUNE_PRUNE_MARGIN  tuner->prune_margin  a number up to 1e6; negative turns pruning off
 *   TKRT_TUNE_REQUIRE_COMPLETE  tuner->require_complete  on/off: refuse to tune at run time
 *   TKRT_TRUST_SHARED_STORES  device->trust_shared_cache and tuner->trust_shared_store:
 *                       on trusts caches and stores other users own or can write
 * On/off settings read the same words, ignoring case: on, true, yes, 1 and off, false, no, 0;
 * any other value is refused (never taken for off).
 * String fields point into the environment or into static storage (the defaults): they stay valid
 * while the environment is not changed. A value that cannot be used (TKRT_HOST_THREADS=lots,
 * TKRT_TUNE_POLICY=sometimes, TKRT_LOG=loud) is INVALID_ARGUMENT naming the variable, and nothing
 * is written (nor the log level set). */
TKRT_MUST_USE TKRT_API tkrt_status_t tkrt_options_from_environment(
    tkrt_device_options_t* device, tkrt_autotuner_options_t* tuner);

#ifdef __cplusplus
}
#endif

#endif /* TKRT_ENVIRONMENT_H_ */
