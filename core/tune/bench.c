/* SPDX-License-Identifier: Apache-2.0 */
/* tkrt tune: benchmarking the configs of a call on the caller's stream, in-place inputs saved
 * and restored around each (alias_saves.c), pruning configs that are clearly slower. */
#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "base/fs.h"
#include "base/log.h"
#include "base/versioned.h"
#include "core/tune/decision_store.h"
#include "core/tune/tune_db.h"
#include "core/tune/tune_internal.h"
#include "hal/hal.h"

/* ---------------------------------------------------------------- benchmarking */

typedef struct tkrt_bench {
  const tkrt_call_t* call;
  const tkrt_call_device_state_t* state;
  const tkrt_call_launch_args_t* args;
  const tkrt_alias_saves_t* saves;
  tkrt_event_t start, end;
} tkrt_bench_t;

/* Restores aliased inputs, runs one warm-up launch, then `iterations` launches between events;
 * *out_ms is their mean. */
static tkrt_status_t tkrt_bench_config(tkrt_bench_t* b, size_t index, uint32_t iterations,
                                       float* out_ms) {
  tkrt_device_t* device = b->args->device;
  TKRT_RETURN_IF_ERROR(tkrt_alias_restore(b->args, b->saves));
  TKRT_RETURN_IF_ERROR(tkrt_call_launch_config(b->call, b->state, index, b->args));
  TKRT_RETURN_IF_ERROR(tkrt_event_record(device, b->start, b->args->stream));
  for (uint32_t i = 0; i < iterations; ++i) {
    TKRT_RETURN_IF_ERROR(tkrt_call_launch_config(b->call, b->state, index, b->args));
  }
  TKRT_RETURN_IF_ERROR(tkrt_event_record(device, b->end, b->args->stream));
  TKRT_RETURN_IF_ERROR(tkrt_event_synchronize(device, b->end));
  float ms = 0;
  TKRT_RETURN_IF_ERROR(tkrt_event_elapsed_ms(device, b->start, b->end, &ms));
  *out_ms = ms / (float)iterations;
  return NULL;
}

/* Benchmarks every runnable config with the aliased inputs in `found` saved before and restored
 * before each config and at the end; takes ownership of `found`. Configs marked in `known` (may be
 * NULL) keep the times already in entry->times_ms (the tuning database) and are not launched. */
tkrt_status_t tkrt_benchmark(tkrt_autotuner_t* tuner, const tkrt_call_t* call,
                                    const tkrt_call_device_state_t* state,
                                    const tkrt_call_launch_args_t* args, tkrt_tune_entry_t* entry,
                                    tkrt_alias_saves_t* found, const uint8_t* known) {
  tkrt_device_t* device = args->device;
  size_t count = call->desc.config_count;
  tkrt_alias_saves_t saves = *found;
  tkrt_bench_t bench = {.call = call, .state = state, .args = args, .saves = &saves};
  tkrt_status_t status = NULL;
  int saved = 0;
  if ((status = tkrt_event_create(device, &bench.start)) ||
      (status = tkrt_event_create(device, &bench.end)) ||
      (status = tkrt_alias_save(args, &saves))) {
    goto done;
  }
  saved = 1;
  /* Pass 1: one timed launch per config sizes the iteration count. */
  float best = -1;
  for (size_t c = 0; c < count; ++c) {
    if (known && known[c]) continue;
    entry->times_ms[c] = TKRT_TUNE_SKIPPED_MS;
    if (state->configs[c].unrunnable) {
      if (!entry->skip_reason[0]) {
        snprintf(entry->skip_reason, sizeof(entry->skip_reason), "%s",
                 tkrt_status_message(state->configs[c].unrunnable));
      }
      continue;
    }
    float ms = 0;
    if ((status = tkrt_bench_config(&bench, c, 1, &ms))) goto done;
    entry->timed_launches++;
    if (tuner->progress) tuner->progress(tuner->progress_user, c, count, 1, 1, ms);
    if (best < 0 || ms < best) best = ms;
  }
  uint32_t iterations = tuner->max_iterations;
  if (best > 0) {
    double wanted = tuner->target_ms / best;
    iterations = wanted < 1 ? 1 : wanted > tuner->max_iterations ? tuner->max_iterations
                                                                  : (uint32_t)wanted;
  }
  /* Pass 2: the measurement that decides; strictly faster wins, so ties keep the earlier one.
   * With enough iterations it runs in two rounds: every config over a quarter of them, then the
   * rest only for configs within the margin of the best first-round mean. A config's time is the
   * mean over all its launches, so every config that can still win, the winner included, is
   * measured with the full count; a pruned one keeps its first-round mean. */
  size_t runnable = 0;
  for (size_t c = 0; c < count; ++c) {
    runnable += state->configs[c].unrunnable == NULL && !(known && known[c]);
  }
  bool rounds = tuner->prune_margin >= 0 && iterations >= TKRT_TUNE_PRUNE_MIN_ITERATIONS &&
                runnable > 1;
  uint32_t first = rounds ? iterations / 4 : iterations;
  float best_first = -1;
  for (size_t c = 0; c < count; ++c) {
    if (state->configs[c].unrunnable || (known && known[c])) continue;
    if ((status = tkrt_bench_config(&bench, c, first, &entry->times_ms[c]))) goto done;
    entry->timed_launches += first;
    if (!rounds && tuner->progress) {
      tuner->progress(tuner->progress_user, c, count, 2, iterations, entry->times_ms[c]);
    }
    if (best_first < 0 || entry->times_ms[c] < best_first) best_first = entry->times_ms[c];
  }
  if (rounds) {
    entry->round1_iterations = first;
    entry->round1_best_ms = best_first;
    /* A best mean of 0 is below the timer's resolution: nothing is known to be far behind it. */
    double limit = best_first > 0 ? (double)best_first * (1.0 + tuner->prune_margin) : INFINITY;
    for (size_t c = 0; c < count; ++c) {
      if (state->configs[c].unrunnable || (known && known[c])) continue;
      if ((double)entry->times_ms[c] > limit) {
        entry->pruned[c] = 1;
        entry->pruned_count++;
        if (tuner->progress) {
          tuner->progress(tuner->progress_user, c, count, 2, first, entry->times_ms[c]);
        }
        continue;
      }
      float rest = 0;
      uint32_t more = iterations - first;
      if ((status = tkrt_bench_config(&bench, c, more, &rest))) goto done;
      entry->timed_launches += more;
      entry->times_ms[c] =
          (float)(((double)entry->times_ms[c] * first + (double)rest * more) / iterations);
      if (tuner->progress) {
        tuner->progress(tuner->progress_user, c, count, 2, iterations, entry->times_ms[c]);
      }
    }
  }
  size_t chosen = count;
  for (size_t c = 0; c < count; ++c) {
    if (state->configs[c].unrunnable || entry->pruned[c]) continue;
    if (chosen == count || entry->times_ms[c] < entry->times_ms[chosen]) chosen = c;
  }
  entry->chosen = chosen;
  entry->iterations = iterations;

done:
  if (saved) {
    /* Every exit leaves the aliased inputs as the caller gave them; the copy is retried once,
     * since losing the caller's input is worse than a second attempt. */
    tkrt_status_t restore = tkrt_alias_restore(args, &saves);
    if (restore) {
      tkrt_status_free(restore);
      restore = tkrt_alias_restore(args, &saves);
    }
    if (restore && !status) {
      status = restore;
    } else {
      tkrt_status_free(restore);
    }
  }
  /* The saved copies may still be read or written by queued copies: free them only once the
   * stream has drained. A stream that cannot be drained keeps them (a leak on a broken stream
   * beats freeing memory the device may still touch). */
  int drained = 1;
  if (saves.count) {
    tkrt_status_t drain = tkrt_stream_synchronize(device, args->stream);
    if (drain) {
      /* Reported either way; a second attempt only decides whether freeing is safe. */
      tkrt_status_t again = tkrt_stream_synchronize(device, args->stream);
      drained = again == NULL;
      tkrt_status_free(again);
      if (!status) {
        status = drain;
      } else {
        tkrt_status_free(drain);
      }
    }
  }
  if (drained) {
    tkrt_alias_saves_free(device, &saves);
  } else {
    free(saves.inputs);
  }
  if (bench.start) tkrt_status_free(tkrt_event_destroy(device, bench.start));
  if (bench.end) tkrt_status_free(tkrt_event_destroy(device, bench.end));
  return status;
}
