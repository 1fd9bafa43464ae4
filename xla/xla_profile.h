/* SPDX-License-Identifier: Apache-2.0 */
/* tkrt xla: stage timing of the handlers, for profile builds only (CMake -DTKRT_PROFILE=ON, as
 * bench/run_perf.sh's profile step builds them). Each stage adds the time-stamp-counter ticks it
 * took to a process-wide counter; tkrt_xla_profile() reads them. In every other build the macros
 * compile to nothing and tkrt_xla_profile() reports no stages. Shared by the floor handlers
 * (bench/xla_floor.c), which keep their own counters. */
#ifndef TKRT_XLA_XLA_PROFILE_H_
#define TKRT_XLA_XLA_PROFILE_H_

#ifdef TKRT_PROFILE
#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>
#include <time.h>
#if defined(__x86_64__) || defined(__i386__)
#include <x86intrin.h>
static inline uint64_t tkrt_profile_ticks(void) { return __rdtsc(); }
#else
static inline uint64_t tkrt_profile_ticks(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return (uint64_t)t.tv_sec * 1000000000u + (uint64_t)t.tv_nsec;
}
#endif

/* Ticks per microsecond, measured once against CLOCK_MONOTONIC over 20 ms. */
static inline double tkrt_profile_ticks_per_us(void) {
  struct timespec a, b, pause = {0, 20 * 1000 * 1000};
  clock_gettime(CLOCK_MONOTONIC, &a);
  uint64_t t0 = tkrt_profile_ticks();
  nanosleep(&pause, NULL);
  uint64_t t1 = tkrt_profile_ticks();
  clock_gettime(CLOCK_MONOTONIC, &b);
  double us = (double)(b.tv_sec - a.tv_sec) * 1e6 + (double)(b.tv_nsec - a.tv_nsec) / 1e3;
  return us > 0 ? (double)(t1 - t0) / us : 0;
}

/* What tkrt_xla_profile and bench_floor_profile return: copies up to `capacity` counters and their
 * names, sets *ticks_per_us (measured on first use), zeroes the counters when `reset`. */
static inline size_t tkrt_profile_read(atomic_uint_fast64_t* counters, const char* const* names,
                                       size_t count, uint64_t* out_values,
                                       const char** out_names, size_t capacity,
                                       double* ticks_per_us, int reset) {
  static double rate;
  if (rate == 0) rate = tkrt_profile_ticks_per_us();
  if (ticks_per_us) *ticks_per_us = rate;
  for (size_t i = 0; i < count; ++i) {
    uint64_t value = reset ? atomic_exchange(&counters[i], 0) : atomic_load(&counters[i]);
    if (i < capacity && out_values) out_values[i] = value;
    if (i < capacity && out_names) out_names[i] = names[i];
  }
  return count;
}

#define TKRT_PROFILE_TICK(var) const uint64_t var = tkrt_profile_ticks()
#define TKRT_PROFILE_ADD(counters, stage, from, to) \
  atomic_fetch_add_explicit(&(counters)[stage], (to) - (from), memory_order_relaxed)
#define TKRT_PROFILE_COUNT(counters, stage) \
  atomic_fetch_add_explicit(&(counters)[stage], 1, memory_order_relaxed)
#else
#define TKRT_PROFILE_TICK(var) ((void)0)
#define TKRT_PROFILE_ADD(counters, stage, from, to) ((void)0)
#define TKRT_PROFILE_COUNT(counters, stage) ((void)0)
#endif

/* The adapter's stages: per target, the calls counted and the ticks of each stage. */
#define TKRT_XLA_PROFILE_STAGES(X)                                                            \
  X(ffi_calls) X(ffi_entry) X(ffi_device) X(ffi_buffers) X(ffi_capture) X(ffi_launch)         \
  X(ffi_total) X(legacy_calls) X(legacy_entry) X(legacy_device) X(legacy_view)                \
  X(legacy_launch) X(legacy_total) X(init_calls) X(init_total)

enum {
#define TKRT_XLA_PROFILE_ENUM(name) TKRT_XLA_PROF_##name,
  TKRT_XLA_PROFILE_STAGES(TKRT_XLA_PROFILE_ENUM)
#undef TKRT_XLA_PROFILE_ENUM
  TKRT_XLA_PROF_COUNT
};

#endif /* TKRT_XLA_XLA_PROFILE_H_ */
