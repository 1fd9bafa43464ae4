/* SPDX-License-Identifier: Apache-2.0 */
/* tkrt host backend: the worker pool that runs the programs of a launch in parallel. Jobs come
 * from many streams at once; every participant claims chunks of program indices atomically. */
#include <stdlib.h>

#include "backends/host/host_internal.h"

typedef struct tkrt_host_job {
  tkrt_host_pool_body_t body;
  void* context;
  uint64_t count;
  uint64_t chunk;
  atomic_uint_fast64_t next;     /* next unclaimed index */
  atomic_uint_fast64_t finished; /* indices completed */
  uint32_t active;               /* workers inside the job (guarded by the pool lock) */
  struct tkrt_host_job* queue_next;
} tkrt_host_job_t;

struct tkrt_host_pool {
  pthread_mutex_t lock;
  pthread_cond_t work; /* a job was queued, or shutdown */
  pthread_cond_t done; /* a job finished or a worker left it */
  tkrt_host_job_t* head;
  tkrt_host_job_t* tail;
  bool shutdown;
  uint32_t worker_count;
  pthread_t workers[];
};

typedef struct tkrt_host_worker_arg {
  tkrt_host_pool_t* pool;
  uint32_t participant;
} tkrt_host_worker_arg_t;

/* Claims and runs chunks until the job has none left. */
static void tkrt_host_job_participate(tkrt_host_pool_t* pool, tkrt_host_job_t* job,
                                      uint32_t participant) {
  for (;;) {
    uint64_t begin = atomic_fetch_add_explicit(&job->next, job->chunk, memory_order_relaxed);
    if (begin >= job->count) break;
    uint64_t end = begin + job->chunk < job->count ? begin + job->chunk : job->count;
    for (uint64_t i = begin; i < end; ++i) job->body(job->context, i, participant);
    uint64_t done = atomic_fetch_add_explicit(&job->finished, end - begin, memory_order_acq_rel) +
                    (end - begin);
    if (done == job->count) {
      pthread_mutex_lock(&pool->lock);
      pthread_cond_broadcast(&pool->done);
      pthread_mutex_unlock(&pool->lock);
    }
  }
}

/* Takes the job off the queue once every index is claimed (pool lock held). */
static void tkrt_host_job_dequeue_locked(tkrt_host_pool_t* pool, tkrt_host_job_t* job) {
  tkrt_host_job_t** link = &pool->head;
  tkrt_host_job_t* previous = NULL;
  while (*link && *link != job) {
    previous = *link;
    link = &(*link)->queue_next;
  }
  if (!*link) return;
  *link = job->queue_next;
  if (pool->tail == job) pool->tail = previous;
}

static void* tkrt_host_worker_main(void* raw) {
  tkrt_host_worker_arg_t arg = *(tkrt_host_worker_arg_t*)raw;
  free(raw);
  tkrt_host_pool_t* pool = arg.pool;
  pthread_mutex_lock(&pool->lock);
  for (;;) {
    while (!pool->head && !pool->shutdown) pthread_cond_wait(&pool->work, &pool->lock);
    if (pool->shutdown) break;
    tkrt_host_job_t* job = pool->head;
    ++job->active;
    pthread_mutex_unlock(&pool->lock);
    tkrt_host_job_participate(pool, job, arg.participant);
    pthread_mutex_lock(&pool->lock);
    tkrt_host_job_dequeue_locked(pool, job);
    if (--job->active == 0) pthread_cond_broadcast(&pool->done);
  }
  pthread_mutex_unlock(&pool->lock);
  return NULL;
}

tkrt_status_t tkrt_host_pool_create(uint32_t workers, tkrt_host_pool_t** out_pool) {
  tkrt_host_pool_t* pool = calloc(1, sizeof(*pool) + workers * sizeof(pthread_t));
  if (!pool) return TKRT_STATUS_MAKE(TKRT_STATUS_RESOURCE_EXHAUSTED, "out of host memory");
  pthread_mutex_init(&pool->lock, NULL);
  pthread_cond_init(&pool->work, NULL);
  pthread_cond_init(&pool->done, NULL);
  for (uint32_t i = 0; i < workers; ++i) {
    tkrt_host_worker_arg_t* arg = malloc(sizeof(*arg));
    int error = -1;
    if (arg) {
      arg->pool = pool;
      arg->participant = i + 1; /* 0 is the submitting thread */
      error = pthread_create(&pool->workers[i], NULL, tkrt_host_worker_main, arg);
    }
    if (error != 0) {
      free(arg);
      tkrt_host_pool_destroy(pool);
      return TKRT_STATUS_MAKE(TKRT_STATUS_RESOURCE_EXHAUSTED,
                              "could not start host worker thread %u of %u (error %d)", i + 1,
                              workers, error);
    }
    pool->worker_count = i + 1;
  }
  *out_pool = pool;
  return NULL;
}

void tkrt_host_pool_destroy(tkrt_host_pool_t* pool) {
  if (!pool) return;
  pthread_mutex_lock(&pool->lock);
  pool->shutdown = true;
  pthread_cond_broadcast(&pool->work);
  pthread_mutex_unlock(&pool->lock);
  for (uint32_t i = 0; i < pool->worker_count; ++i) pthread_join(pool->workers[i], NULL);
  pthread_cond_destroy(&pool->done);
  pthread_cond_destroy(&pool->work);
  pthread_mutex_destroy(&pool->lock);
  free(pool);
}

uint32_t tkrt_host_pool_participants(const tkrt_host_pool_t* pool) {
  return pool->worker_count + 1;
}

void tkrt_host_pool_run(tkrt_host_pool_t* pool, uint64_t count, tkrt_host_pool_body_t body,
                        void* context) {
  if (count == 0) return;
  tkrt_host_job_t job = {.body = body, .context = context, .count = count};
  uint64_t per_participant = count / ((uint64_t)tkrt_host_pool_participants(pool) * 8u);
  job.chunk = per_participant ? per_participant : 1;
  atomic_init(&job.next, 0);
  atomic_init(&job.finished, 0);
  if (count > 1 && pool->worker_count > 0) {
    pthread_mutex_lock(&pool->lock);
    if (pool->tail) {
      pool->tail->queue_next = &job;
    } else {
      pool->head = &job;
    }
    pool->tail = &job;
    pthread_cond_broadcast(&pool->work);
    pthread_mutex_unlock(&pool->lock);
  }
  tkrt_host_job_participate(pool, &job, 0);
  pthread_mutex_lock(&pool->lock);
  tkrt_host_job_dequeue_locked(pool, &job);
  while (atomic_load_explicit(&job.finished, memory_order_acquire) != count || job.active != 0) {
    pthread_cond_wait(&pool->done, &pool->lock);
  }
  pthread_mutex_unlock(&pool->lock);
}
