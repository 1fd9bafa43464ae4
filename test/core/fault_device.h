/* SPDX-License-Identifier: Apache-2.0 */
/* A HAL device that forwards to a real one and fails the Nth fallible operation: the tests' tool
 * for proving that every error path releases what it took and loses nothing. */
#ifndef TKRT_TEST_CORE_FAULT_DEVICE_H_
#define TKRT_TEST_CORE_FAULT_DEVICE_H_

#include "hal/hal.h"

typedef struct tkrt_fault_stats {
  int operations;        /* fallible operations seen so far */
  int injected;          /* 1 once the fault fired */
  char injected_op[64];  /* which operation failed */
  int live_device_allocs;
  int live_host_allocs;
  int launches;
  int module_loads;      /* successful module loads */
  int live_modules;      /* loaded and not unloaded */
  int most_loads_at_once; /* the most module loads seen in flight together */
} tkrt_fault_stats_t;

/* Wraps `inner` (retained). Operation number `fail_at` (1-based; 0 = never) fails with `code`. */
tkrt_status_t tkrt_fault_device_create(tkrt_device_t* inner, int fail_at, tkrt_status_code_t code,
                                       tkrt_device_t** out_device);
const tkrt_fault_stats_t* tkrt_fault_device_stats(tkrt_device_t* device);
/* Makes every module load take at least `micros` longer (as a PTX JIT would), so that tests can
 * see whether loads overlap. */
void tkrt_fault_device_set_load_delay(tkrt_device_t* device, unsigned micros);

/* Gives the device a virtual clock, for tests of what the autotuner decides from times: a launch
 * with parameter `spin_param` (a uint32_t count of microseconds that the core test kernels spin)
 * advances the clock by that much and reaches the kernel with 0 (no spin); an event records the
 * clock when it is enqueued, and the time between two events is the clock's difference. Measured
 * times are then exact on a loaded machine too (one clock for all streams: a test of one stream).
 * Call before any event of the device is created; calling it again (between launches) only
 * changes which parameter is the spin, for a test whose kernel has it elsewhere. */
void tkrt_fault_device_use_virtual_clock(tkrt_device_t* device, uint32_t spin_param);

/* For a test's setup hook: replaces *device (whose reference passes to the wrapper) by a fault
 * device that injects nothing and runs a virtual clock on `spin_param`; exits the test program,
 * saying why, when the wrapper cannot be made. */
void tkrt_fault_device_wrap_with_virtual_clock(tkrt_device_t** device, uint32_t spin_param);

#endif /* TKRT_TEST_CORE_FAULT_DEVICE_H_ */
