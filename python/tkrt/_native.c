/* SPDX-License-Identifier: Apache-2.0 */
/* tkrt._native: the launch path of tkrt.triton's prepared launches in C (issue 25).
 *
 * A Launcher holds a bound launch (tkrt_triton_bound_t*, made by tkrt.triton.prepare through
 * ctypes) and a plan made at prepare: per argument of Triton's call, what it is (a pointer, an
 * integer scalar, a float scalar, a tensor descriptor with its rank and block, or a fixed value
 * Triton specialised the kernel to). Called with vectorcall, `launcher(x, y, out, n,
 * stream=None)` reads every array's address, extent, dtype and device in C (the DLPack C exchange API where the array's type offers it, PyTorch's and CuPy's
 * attributes, else a DLPack capsule that is read and never consumed), the scalars, the stream
 * (explicit, else the framework's current one), and calls tkrt_triton_bound_launch once. Value
 * rules are the C library's: the arrays' dtypes and extents and the integers go to it as read, and
 * its status is the error; only what decides whether a value can be handed over at all is
 * checked here (an array on another device, an integer wider than 64 bits, an object of no kind
 * the argument takes).
 *
 * The extension links libtkrt.so.0 and calls it directly; tkrt.triton checks that it is the library
 * it loaded itself (_library_marker), so the process has one copy of tkrt. Anything the fast checks
 * refuse is handed to the launcher's Python method _explain, the ctypes path's argument reader,
 * which raises the error with today's message; a C status becomes tkrt.triton.Error here (its
 * code name and message read from the status, no call back into Python for them).
 *
 * The GIL (issue 31): a launch is first tried with the GIL held (tkrt_triton_bound_try_launch,
 * which never waits); where it would wait (a decision to make, a store or an exchange to ask, a
 * tuning-key value's modules to load, scratch to grow) it is made again with the GIL released, so
 * other threads, the exchange's Python store and the log run meanwhile. A launch whose arrays no
 * stream order protects (the host backend's, and arrays read through a DLPack capsule on a GPU)
 * is synchronous: launched and waited for with the GIL released, its arrays and capsules held
 * until the stream has passed it. */
#define PY_SSIZE_T_CLEAN
#include <Python.h>

#include <stdint.h>
#include <string.h>

#include "tkrt/log.h"
#include "tkrt/triton_bound.h"

#if PY_VERSION_HEX < 0x030A0000 /* Python 3.9 (the package's oldest) lacks Py_NewRef */
static inline PyObject* Py_NewRef(PyObject* o) {
  Py_INCREF(o);
  return o;
}
#endif

/* ------------------------------------------------------------------ DLPack (dlpack.h 1.x) */

typedef struct {
  int32_t device_type;
  int32_t device_id;
} dl_device_t;

typedef struct {
  uint8_t code;
  uint8_t bits;
  uint16_t lanes;
} dl_dtype_t;

typedef struct {
  void* data;
  dl_device_t device;
  int32_t ndim;
  dl_dtype_t dtype;
  int64_t* shape;
  int64_t* strides;
  uint64_t byte_offset;
} dl_tensor_t;

typedef struct { /* capsule "dltensor" */
  dl_tensor_t dl_tensor;
  void* manager_ctx;
  void (*deleter)(void*);
} dl_managed_t;

typedef struct {
  uint32_t major;
  uint32_t minor;
} dl_version_t;

typedef struct { /* capsule "dltensor_versioned" */
  dl_version_t version;
  void* manager_ctx;
  void (*deleter)(void*);
  uint64_t flags;
  dl_tensor_t dl_tensor;
} dl_managed_versioned_t;

/* DLPack 1.2's C exchange API (the capsule "dlpack_exchange_api" of a type's
 * __dlpack_c_exchange_api__): only the members used here are typed. */
typedef struct dl_exchange_header {
  dl_version_t version;
  struct dl_exchange_header* prev_api;
} dl_exchange_header_t;

typedef struct {
  dl_exchange_header_t header;
  void* managed_tensor_allocator;
  void* managed_tensor_from_py_object_no_sync;
  void* managed_tensor_to_py_object_no_sync;
  int (*dltensor_from_py_object_no_sync)(void* py_object, dl_tensor_t* out);
  int (*current_work_stream)(int32_t device_type, int32_t device_id, void** out_stream);
} dl_exchange_api_t;

enum { DL_CPU = 1 };

/* ------------------------------------------------------------------ module state */

static PyObject* g_error;         /* tkrt.triton.Error(code, message) */
static PyObject* g_classify;      /* tkrt.triton._classify_array_type(type) -> tuple */
static PyObject* s_dlpack, *s_dlpack_device, *s_max_version, *s_version_1_0, *s_data_ptr,
    *s_numel, *s_size, *s_get_device, *s_dtype,
    *s_data, *s_ptr, *s_device_id, *s_block_until_ready, *s_explain, *s_stream_of, *s_base,
    *s_shape, *s_strides, *s_block_shape, *s_padding, *s_zero, *s_nan, *s_stream, *s_grid, *s_cuda_stream, *s_kwnames_max_version;

/* How arrays of one Python type are read; classified once per type (g_classify). */
enum { READ_NONE = 0, READ_EXCHANGE = 1, READ_TORCH = 2, READ_CUPY = 3, READ_DLPACK = 4,
       READ_JAX = 5 };

typedef struct {
  PyTypeObject* type; /* strong reference */
  int read;
  const dl_exchange_api_t* api; /* READ_EXCHANGE */
  PyObject* capsule;            /* keeps the API alive */
  PyObject* dtypes;   /* TORCH / CUPY: {dtype object: code << 8 | bits} */
  PyObject* stream;   /* TORCH / CUPY: callable(ordinal) -> current stream handle, or None */
  int32_t gpu_type;   /* TORCH / CUPY: the DLPack device type of its GPU arrays (TORCH: 0 until
                       * the first GPU tensor says) */
  int legacy_dlpack;  /* its __dlpack__ refused max_version= once (DLPack < 1.0 producers, NumPy
                       * before 2.1): asked without it from then on (a failed call with it raises
                       * and formats a TypeError each launch) */
} type_entry_t;

/* The classified types: entries are allocated one by one and never move or go away (a caller may
 * hold one across calls into Python, which can let another thread classify a new type), and each
 * keeps its type alive. Types that hold arrays are few and live as long as the process. */
static type_entry_t** g_types;
static Py_ssize_t g_type_count, g_type_capacity;

static type_entry_t* type_entry(PyTypeObject* type) {
  for (Py_ssize_t i = 0; i < g_type_count; i++) {
    if (g_types[i]->type == type) return g_types[i];
  }
  if (!g_classify) {
    PyErr_SetString(PyExc_RuntimeError, "tkrt._native is not configured");
    return NULL;
  }
  PyObject* r = PyObject_CallOneArg(g_classify, (PyObject*)type);
  if (!r) return NULL;
  int read = 0;
  PyObject *capsule = Py_None, *dtypes = Py_None, *stream = Py_None;
  int gpu_type = 0;
  if (!PyArg_ParseTuple(r, "iOOOi", &read, &capsule, &dtypes, &stream, &gpu_type)) {
    Py_DECREF(r);
    return NULL;
  }
  for (Py_ssize_t i = 0; i < g_type_count; i++) { /* classified meanwhile by another thread */
    if (g_types[i]->type == type) {
      Py_DECREF(r);
      return g_types[i];
    }
  }
  if (g_type_count == g_type_capacity) {
    Py_ssize_t capacity = g_type_capacity ? 2 * g_type_capacity : 16;
    type_entry_t** grown = PyMem_Realloc(g_types, sizeof(*grown) * (size_t)capacity);
    if (!grown) {
      Py_DECREF(r);
      PyErr_NoMemory();
      return NULL;
    }
    g_types = grown;
    g_type_capacity = capacity;
  }
  type_entry_t* e = PyMem_Calloc(1, sizeof(*e));
  if (!e) {
    Py_DECREF(r);
    PyErr_NoMemory();
    return NULL;
  }
  e->read = read;
  e->gpu_type = gpu_type;
  if (read == READ_EXCHANGE) {
    const dl_exchange_api_t* api = PyCapsule_GetPointer(capsule, "dlpack_exchange_api");
    if (!api || api->header.version.major != 1 || !api->dltensor_from_py_object_no_sync) {
      PyErr_Clear();
      e->read = READ_DLPACK; /* an API this reader does not know: the capsule path */
    } else {
      e->api = api;
      e->capsule = Py_NewRef(capsule);
    }
  }
  e->dtypes = dtypes == Py_None ? NULL : Py_NewRef(dtypes);
  e->stream = stream == Py_None ? NULL : Py_NewRef(stream);
  e->type = (PyTypeObject*)Py_NewRef((PyObject*)type);
  Py_DECREF(r);
  g_types[g_type_count++] = e;
  return e;
}

/* ------------------------------------------------------------------ the launcher */

enum { P_POINTER = 0, P_INT = 1, P_FLOAT = 2, P_DESC = 3, P_FIXED = 4 };

typedef struct {
  int kind;
  int param;            /* the kernel parameter's index (not for FIXED) */
  uint32_t rank;        /* DESC */
  int64_t block[TKRT_TMA_MAX_RANK];
  PyObject* value;      /* FIXED */
} entry_t;

typedef struct {
  PyObject_HEAD
  vectorcallfunc vectorcall;
  PyObject* dict;
  PyObject* weakrefs;
  const tkrt_triton_bound_t* bound;
  entry_t* plan; /* in the order of Triton's full argument list */
  Py_ssize_t plan_count;
  Py_ssize_t* arrays; /* plan positions of the arrays-only form */
  Py_ssize_t array_count;
  Py_ssize_t param_count; /* the kernel's parameters: tkrt_triton_bound_arg_count */
  int32_t dev_types[8];
  int dev_type_count;
  int32_t ordinal;
  int process_memory; /* any array ordinal (the host backend); launches are synchronous */
  int foreign_streams;
  tkrt_device_t* device; /* for the synchronous launches' stream synchronize */
  int need_size;      /* sizes are read (tuning with in-place buffers, min_elements) */
  PyObject* context;  /* "launching <kernel>" */
  size_t variant_count; /* the bound call's configs: a grid= launch gives each the same grid */
} launcher_t;

/* What one array read gives. */
typedef struct {
  uint64_t address, extent;
  int32_t device_type, device_id;
  uint16_t dtype; /* code << 8 | bits; 0xffff: lanes != 1 */
  type_entry_t* entry;
} array_t;

/* The address, extent, device and dtype of a DLPack tensor: 0, or 1 when its shape is negative
 * or its span overflows 64 bits (not readable: the caller explains). The address is the first
 * element's (data + byte_offset), what Triton passes for a PyTorch tensor (data_ptr()); the extent
 * counts the bytes from there to the end of the highest element, so a view with negative strides,
 * whose other elements lie below its first, holds only what lies above it (docs/triton.md). */
static int extent_of(const dl_tensor_t* t, array_t* out) {
  int64_t item = (int64_t)(((uint64_t)t->dtype.bits * t->dtype.lanes + 7) / 8);
  int64_t high = item, low = 0;
  if (t->ndim < 0 || (t->ndim > 0 && !t->shape)) return 1;
  for (int32_t d = 0; d < t->ndim; d++) {
    if (t->shape[d] < 0) return 1;
  }
  for (int32_t d = 0; d < t->ndim; d++) {
    int64_t size = t->shape[d];
    if (size == 0) {
      high = 0;
      low = 0;
      break;
    }
    int64_t stride = 1, step;
    if (t->strides) {
      stride = t->strides[d];
    } else {
      for (int32_t later = d + 1; later < t->ndim; later++) {
        if (__builtin_mul_overflow(stride, t->shape[later], &stride)) return 1;
      }
    }
    if (__builtin_mul_overflow(size - 1, stride, &step) ||
        __builtin_mul_overflow(step, item, &step) ||
        (step >= 0 ? __builtin_add_overflow(high, step, &high)
                   : __builtin_add_overflow(low, step, &low))) {
      return 1;
    }
  }
  uint64_t address, lowest;
  if (__builtin_add_overflow((uint64_t)(uintptr_t)t->data, t->byte_offset, &address) ||
      __builtin_sub_overflow(address, 0 - (uint64_t)low, &lowest) ||
      __builtin_add_overflow(address, (uint64_t)high, &lowest)) {
    return 1; /* the span below or above the first element leaves the address space */
  }
  out->address = address;
  out->extent = (uint64_t)high;
  out->device_type = t->device.device_type;
  out->device_id = t->device.device_id;
  out->dtype = t->dtype.lanes == 1 ? (uint16_t)(t->dtype.code << 8 | t->dtype.bits) : 0xffff;
  return 0;
}

/* Reads an array through DLPack's capsule; *keep gets the capsule (alive until the launch is
 * enqueued). 0 ok; -1 with an exception; 1: not readable (the caller explains). */
static int read_capsule(PyObject* obj, type_entry_t* e, array_t* out, PyObject** keep) {
  PyObject* args[2] = {obj, s_version_1_0};
  PyObject* capsule = NULL;
  if (!e || !e->legacy_dlpack) {
    capsule = PyObject_VectorcallMethod(s_dlpack, args, 1 | PY_VECTORCALL_ARGUMENTS_OFFSET,
                                        s_kwnames_max_version);
  }
  if (!capsule && (e && e->legacy_dlpack ? 1 : PyErr_ExceptionMatches(PyExc_TypeError))) {
    /* A producer older than DLPack 1.0 */
    int first = !(e && e->legacy_dlpack);
    if (first) PyErr_Clear();
    capsule = PyObject_VectorcallMethod(s_dlpack, args, 1 | PY_VECTORCALL_ARGUMENTS_OFFSET, NULL);
    if (capsule && first && e) e->legacy_dlpack = 1;
  }
  if (!capsule) {
    if (PyErr_ExceptionMatches(PyExc_AttributeError)) {
      PyErr_Clear();
      return 1;
    }
    return -1;
  }
  const dl_tensor_t* t = NULL;
  if (PyCapsule_IsValid(capsule, "dltensor_versioned")) {
    dl_managed_versioned_t* m = PyCapsule_GetPointer(capsule, "dltensor_versioned");
    if (m->version.major == 1) t = &m->dl_tensor;
  } else if (PyCapsule_IsValid(capsule, "dltensor")) {
    t = &((dl_managed_t*)PyCapsule_GetPointer(capsule, "dltensor"))->dl_tensor;
  }
  if (!t) {
    Py_DECREF(capsule);
    return 1;
  }
  if (extent_of(t, out)) {
    Py_DECREF(capsule);
    return 1;
  }
  *keep = capsule;
  return 0;
}

static int dtype_from_map(PyObject* map, PyObject* obj, uint16_t* out) {
  if (!map || !PyDict_Check(map)) return 1; /* no dtype table for this type: explained */
  PyObject* dtype = PyObject_GetAttr(obj, s_dtype);
  if (!dtype) return -1;
  PyObject* code = PyDict_GetItemWithError(map, dtype); /* borrowed */
  Py_DECREF(dtype);
  if (!code) return PyErr_Occurred() ? -1 : 1;
  *out = (uint16_t)PyLong_AsLong(code);
  return 0;
}

static int as_u64(PyObject* v, uint64_t* out) {
  if (!v) return -1;
  if (!PyLong_Check(v)) {
    Py_DECREF(v);
    return 1;
  }
  *out = PyLong_AsUnsignedLongLong(v);
  Py_DECREF(v);
  if (*out == (uint64_t)-1 && PyErr_Occurred()) {
    PyErr_Clear();
    return 1;
  }
  return 0;
}

static int read_array_at(const launcher_t* self, PyObject* obj, array_t* out, PyObject** keep,
                         int sized) {
  type_entry_t* e = type_entry(Py_TYPE(obj));
  if (!e) return -1;
  out->entry = e;
  out->extent = TKRT_BUFFER_SIZE_UNKNOWN;
  switch (e->read) {
    case READ_EXCHANGE: {
      dl_tensor_t t;
      if (e->api->dltensor_from_py_object_no_sync(obj, &t) != 0) {
        if (PyErr_Occurred()) PyErr_Clear();
        return 1;
      }
      return extent_of(&t, out);
    }
    case READ_TORCH:
      if (!self->need_size && !sized && e->dtypes) {
        PyObject* index = PyObject_VectorcallMethod(s_get_device, &obj,
                                                    1 | PY_VECTORCALL_ARGUMENTS_OFFSET, NULL);
        if (!index) return -1;
        long i = PyLong_AsLong(index);
        Py_DECREF(index);
        if (i == -1 && PyErr_Occurred()) return -1;
        if (i >= 0 && !e->gpu_type) { /* what this build says of its GPU tensors, asked once */
          PyObject* device = PyObject_VectorcallMethod(s_dlpack_device, &obj,
                                                       1 | PY_VECTORCALL_ARGUMENTS_OFFSET, NULL);
          if (!device) return -1;
          long kind = PyTuple_Check(device) && PyTuple_GET_SIZE(device) == 2
                          ? PyLong_AsLong(PyTuple_GET_ITEM(device, 0)) : -1;
          Py_DECREF(device);
          if (kind <= 0) {
            if (!PyErr_Occurred()) PyErr_SetString(PyExc_TypeError, "__dlpack_device__: not (type, id)");
            return -1;
          }
          e->gpu_type = (int32_t)kind;
        }
        out->device_type = i < 0 ? DL_CPU : e->gpu_type;
        out->device_id = i < 0 ? 0 : (int32_t)i;
        int r = dtype_from_map(e->dtypes, obj, &out->dtype);
        if (!r) r = as_u64(PyObject_VectorcallMethod(s_data_ptr, &obj,
                                                     1 | PY_VECTORCALL_ARGUMENTS_OFFSET, NULL),
                           &out->address);
        if (r || out->address) return r;
        /* No memory: an empty tensor passes (extent 0), a meta tensor does not. */
        uint64_t count = 0;
        r = as_u64(PyObject_VectorcallMethod(s_numel, &obj, 1 | PY_VECTORCALL_ARGUMENTS_OFFSET,
                                             NULL), &count);
        if (r) return r;
        out->extent = count ? TKRT_BUFFER_SIZE_UNKNOWN : 0;
        return 0;
      }
      return read_capsule(obj, e, out, keep);
    case READ_CUPY:
      if (!self->need_size && !sized && e->dtypes) {
        PyObject* memory = PyObject_GetAttr(obj, s_data);
        if (!memory) return -1;
        uint64_t id = 0;
        int r = as_u64(PyObject_GetAttr(memory, s_ptr), &out->address);
        if (!r) r = as_u64(PyObject_GetAttr(memory, s_device_id), &id);
        Py_DECREF(memory);
        if (r) return r;
        out->device_type = e->gpu_type;
        out->device_id = (int32_t)id;
        r = dtype_from_map(e->dtypes, obj, &out->dtype);
        if (r || out->address) return r;
        uint64_t count = 0;
        r = as_u64(PyObject_GetAttr(obj, s_size), &count);
        if (r) return r;
        out->extent = count ? TKRT_BUFFER_SIZE_UNKNOWN : 0;
        return 0;
      }
      return read_capsule(obj, e, out, keep);
    case READ_JAX: { /* JAX gives no current stream: wait for the array, then the capsule */
      PyObject* r = PyObject_VectorcallMethod(s_block_until_ready, &obj,
                                              1 | PY_VECTORCALL_ARGUMENTS_OFFSET, NULL);
      if (!r) return -1;
      Py_DECREF(r);
      return read_capsule(obj, e, out, keep);
    }
    case READ_DLPACK:
      return read_capsule(obj, e, out, keep);
    default:
      return 1;
  }
}

/* Reads one array: 0 ok, -1 exception, 1 not readable here (the caller explains). `sized`: its
 * extent is needed (a descriptor's base: the core checks the tensor lies inside it), so the
 * PyTorch and CuPy fast paths, which give only the address, are not taken. An address of 0 with
 * a nonzero extent (a PyTorch meta tensor) is not readable. */
static int read_array(const launcher_t* self, PyObject* obj, array_t* out, PyObject** keep,
                      int sized) {
  int r = read_array_at(self, obj, out, keep, sized);
  if (r == 0 && out->address == 0 && out->extent != 0) return 1;
  return r;
}

/* Whether the array lives where the launch runs (its DLPack device type and id), which decides
 * whether its address means anything there. Its element type and extent are the C library's to
 * judge (tkrt_triton_arg_t.dtype and .size): they are handed over. */
static int array_fits(const launcher_t* self, const array_t* a) {
  int on_device = 0;
  for (int i = 0; i < self->dev_type_count; i++) {
    if (self->dev_types[i] == a->device_type) on_device = 1;
  }
  return on_device && (a->device_id == self->ordinal || self->process_memory);
}

/* The array's DLPack dtype as tkrt_triton_arg_t.dtype takes it (a vector type: code 0xff, which
 * names no DLPack type, as the ctypes reader passes it). */
static uint32_t arg_dtype(const array_t* a) { return a->dtype == 0xffff ? 0xff00u : a->dtype; }

/* A sequence of at most TKRT_TMA_MAX_RANK integers into out; its length, or -1 (not such). */
static int int_list(PyObject* obj, int64_t* out) {
  if (!obj) {
    PyErr_Clear();
    return -1;
  }
  PyObject* seq = PySequence_Fast(obj, "");
  Py_DECREF(obj);
  if (!seq) {
    PyErr_Clear();
    return -1;
  }
  Py_ssize_t n = PySequence_Fast_GET_SIZE(seq);
  int ok = n >= 1 && n <= TKRT_TMA_MAX_RANK;
  for (Py_ssize_t i = 0; ok && i < n; i++) {
    PyObject* item = PySequence_Fast_GET_ITEM(seq, i);
    if (PyLong_CheckExact(item)) { /* the usual: a plain int, no __index__ call */
      int overflow = 0;
      out[i] = PyLong_AsLongLongAndOverflow(item, &overflow);
      if (overflow) ok = 0;
      continue;
    }
    if (PyBool_Check(item) || !PyIndex_Check(item)) {
      ok = 0;
      break;
    }
    int overflow = 0;
    PyObject* index = PyNumber_Index(item);
    if (!index) {
      ok = 0;
      break;
    }
    out[i] = PyLong_AsLongLongAndOverflow(index, &overflow);
    Py_DECREF(index);
    if (overflow || (out[i] == -1 && PyErr_Occurred())) ok = 0;
  }
  Py_DECREF(seq);
  if (!ok) {
    PyErr_Clear();
    return -1;
  }
  return (int)n;
}

/* Fills a DESCRIPTOR argument from a TensorDescriptor-like object: 0, -1 exception, 1 explain. */
static int read_descriptor(const launcher_t* self, const entry_t* p, PyObject* obj,
                           tkrt_triton_arg_t* arg, array_t* base, PyObject** keep) {
  /* padding: "zero" (Triton's default, interned; None or absent alike) or "nan"; anything else
   * is explained by the ctypes reader. */
  arg->padding_nan = 0;
  PyObject* padding = PyObject_GetAttr(obj, s_padding);
  if (!padding) {
    PyErr_Clear();
  } else {
    int zero = padding == Py_None || padding == s_zero ||
               (PyUnicode_Check(padding) && PyUnicode_CompareWithASCIIString(padding, "zero") == 0);
    int nan = !zero && (padding == s_nan || (PyUnicode_Check(padding) &&
                                             PyUnicode_CompareWithASCIIString(padding, "nan") == 0));
    Py_DECREF(padding);
    if (!zero && !nan) return 1;
    arg->padding_nan = (uint32_t)nan;
  }
  PyObject* b = PyObject_GetAttr(obj, s_base);
  if (!b) {
    PyErr_Clear();
    return 1;
  }
  int r = read_array(self, b, base, keep, 1);
  Py_DECREF(b);
  if (r) return r;
  if (!array_fits(self, base)) return 1;
  int rank = int_list(PyObject_GetAttr(obj, s_shape), arg->shape);
  if (rank < 0 || (uint32_t)rank != p->rank) return 1;
  if (int_list(PyObject_GetAttr(obj, s_strides), arg->strides) != rank) return 1;
  if (int_list(PyObject_GetAttr(obj, s_block_shape), arg->block) != rank) return 1;
  arg->kind = TKRT_TRITON_ARG_DESCRIPTOR;
  arg->rank = (uint32_t)rank;
  arg->ptr = base->address;
  arg->size = base->extent;
  arg->dtype = arg_dtype(base);
  return 0;
}

/* An integer argument, handed to C as it is: INT when it fits int64_t, UINT (its bits) from 2^63
 * to 2^64-1; whether the parameter takes it is the C library's to say (its range rules). 0 ok,
 * 1 explain (not an integer, or wider than 64 bits). */
static int read_int(PyObject* obj, tkrt_triton_arg_t* arg) {
  if (!PyLong_Check(obj)) {
    if (PyFloat_Check(obj) || !PyIndex_Check(obj)) return 1;
  }
  PyObject* index = PyNumber_Index(obj);
  if (!index) {
    PyErr_Clear();
    return 1;
  }
  int overflow = 0;
  long long v = PyLong_AsLongLongAndOverflow(index, &overflow);
  if (overflow > 0) {
    unsigned long long u = PyLong_AsUnsignedLongLong(index);
    Py_DECREF(index);
    if (u == (unsigned long long)-1 && PyErr_Occurred()) {
      PyErr_Clear();
      return 1;
    }
    arg->kind = TKRT_TRITON_ARG_UINT;
    arg->i = (int64_t)u;
    return 0;
  }
  Py_DECREF(index);
  if (overflow || (v == -1 && PyErr_Occurred())) {
    PyErr_Clear();
    return 1;
  }
  arg->kind = TKRT_TRITON_ARG_INT;
  arg->i = v;
  return 0;
}

/* A float parameter takes what the ctypes reader takes: a numbers.Real that is not a bool. 0 ok,
 * -1 exception, 1 explain. */
static int read_float(PyObject* obj, tkrt_triton_arg_t* arg) {
  static PyObject* real; /* numbers.Real, imported once */
  double f;
  if (PyFloat_CheckExact(obj)) {
    f = PyFloat_AS_DOUBLE(obj);
  } else if (!PyBool_Check(obj)) {
    if (!PyLong_Check(obj) && !PyFloat_Check(obj)) {
      if (!real) {
        PyObject* numbers = PyImport_ImportModule("numbers");
        if (!numbers) return -1;
        real = PyObject_GetAttrString(numbers, "Real");
        Py_DECREF(numbers);
        if (!real) return -1;
      }
      int is = PyObject_IsInstance(obj, real);
      if (is <= 0) return is < 0 ? -1 : 1;
    }
    f = PyFloat_AsDouble(obj);
    if (f == -1.0 && PyErr_Occurred()) {
      PyErr_Clear();
      return 1;
    }
  } else {
    return 1;
  }
  arg->kind = TKRT_TRITON_ARG_FLOAT;
  arg->f = f;
  return 0;
}

/* The launch stream: explicit, else the framework's current one, else the device's default.
 * 0 ok, -1 exception. */
static int launch_stream(launcher_t* self, PyObject* stream, const array_t* first,
                         uint64_t* out) {
  *out = 0;
  if (stream && stream != Py_None) {
    if (self->foreign_streams && PyLong_CheckExact(stream)) {
      *out = PyLong_AsUnsignedLongLong(stream);
      if (*out == (uint64_t)-1 && PyErr_Occurred()) PyErr_Clear();
      else return 0;
    } else if (self->foreign_streams) {
      PyObject* h = PyObject_GetAttr(stream, s_cuda_stream);
      if (h && PyLong_CheckExact(h)) {
        *out = PyLong_AsUnsignedLongLong(h);
        Py_DECREF(h);
        if (!(*out == (uint64_t)-1 && PyErr_Occurred())) return 0;
      } else {
        Py_XDECREF(h);
      }
      PyErr_Clear();
    }
    /* Other forms, and the host backend's own streams: Python checks and explains. */
    PyObject* args[2] = {(PyObject*)self, stream};
    PyObject* h = PyObject_VectorcallMethod(s_stream_of, args, 2 | PY_VECTORCALL_ARGUMENTS_OFFSET,
                                            NULL);
    if (!h) return -1;
    *out = PyLong_AsUnsignedLongLong(h);
    Py_DECREF(h);
    return *out == (uint64_t)-1 && PyErr_Occurred() ? -1 : 0;
  }
  if (!self->foreign_streams || !first || !first->entry) return 0;
  type_entry_t* e = first->entry;
  if (e->read == READ_EXCHANGE) {
    if (!e->api->current_work_stream) return 0;
    void* s = NULL;
    if (e->api->current_work_stream(first->device_type, first->device_id, &s) != 0) {
      if (!PyErr_Occurred()) PyErr_SetString(PyExc_RuntimeError, "current_work_stream failed");
      return -1;
    }
    *out = (uint64_t)(uintptr_t)s;
    return 0;
  }
  if ((e->read == READ_TORCH || e->read == READ_CUPY) && e->stream) {
    PyObject* ordinal = PyLong_FromLong(self->ordinal);
    if (!ordinal) return -1;
    PyObject* h = PyObject_CallOneArg(e->stream, ordinal);
    Py_DECREF(ordinal);
    if (!h) return -1;
    *out = PyLong_AsUnsignedLongLong(h);
    Py_DECREF(h);
    return *out == (uint64_t)-1 && PyErr_Occurred() ? -1 : 0;
  }
  return 0; /* DLPack arrays of other frameworks: the legacy default stream */
}

/* Raises tkrt.triton.Error(code name, "<context>: <message>") for a status, and frees it. */
static void raise_status(tkrt_status_t status, PyObject* context) {
  PyObject* message = PyUnicode_FromFormat("%U: %s", context, tkrt_status_message(status));
  const char* code = tkrt_status_code_name(tkrt_status_code(status));
  tkrt_status_free(status);
  if (!message) return;
  if (!g_error) {
    PyErr_Format(PyExc_RuntimeError, "%s: %U", code, message);
  } else {
    PyObject* error = PyObject_CallFunction(g_error, "sO", code, message);
    if (error) {
      PyErr_SetObject(g_error, error);
      Py_DECREF(error);
    }
  }
  Py_DECREF(message);
}

#define STACK_ARGS 24

static PyObject* explain(launcher_t* self, PyObject* const* args, Py_ssize_t nargs,
                         Py_ssize_t position) {
  PyObject* tuple = PyTuple_New(nargs);
  if (!tuple) return NULL;
  for (Py_ssize_t i = 0; i < nargs; i++) PyTuple_SET_ITEM(tuple, i, Py_NewRef(args[i]));
  PyObject* pos = PyLong_FromSsize_t(position);
  PyObject* call[3] = {(PyObject*)self, tuple, pos};
  PyObject* r = pos ? PyObject_VectorcallMethod(s_explain, call,
                                                3 | PY_VECTORCALL_ARGUMENTS_OFFSET, NULL)
                    : NULL;
  Py_DECREF(tuple);
  Py_XDECREF(pos);
  if (r) { /* _explain found nothing wrong: say so rather than launch on a guess */
    Py_DECREF(r);
    PyErr_Format(PyExc_RuntimeError, "%U: argument at position %zd was refused by the native "
                 "launch path but accepted by tkrt.triton's reader", self->context, position);
  }
  return NULL;
}

static PyObject* launcher_call(PyObject* callable, PyObject* const* args, size_t nargsf,
                               PyObject* kwnames) {
  launcher_t* self = (launcher_t*)callable;
  Py_ssize_t nargs = PyVectorcall_NARGS(nargsf);
  PyObject* stream = NULL;
  PyObject* grid_obj = NULL;
  if (kwnames) {
    Py_ssize_t nk = PyTuple_GET_SIZE(kwnames);
    for (Py_ssize_t k = 0; k < nk; k++) {
      PyObject* name = PyTuple_GET_ITEM(kwnames, k);
      if (name == s_grid || PyUnicode_CompareWithASCIIString(name, "grid") == 0) {
        grid_obj = args[nargs + k];
        continue;
      }
      if (name != s_stream && PyUnicode_CompareWithASCIIString(name, "stream") != 0) {
        PyErr_Format(PyExc_TypeError, "%U: unexpected keyword argument '%U' (a launch takes "
                     "the arguments, stream= and grid=)", self->context, name);
        return NULL;
      }
      stream = args[nargs + k];
    }
  }
  /* grid=: this launch's grid for every variant (Triton's launcher hands one over), in place of
   * the grids the bound call computes: an int or a tuple of 1 to 3 ints, each 0..2^32-1. */
  uint32_t grid[3] = {1, 1, 1};
  int have_grid = grid_obj != NULL && grid_obj != Py_None;
  if (have_grid) {
    PyObject* seq = PyLong_Check(grid_obj) ? PyTuple_Pack(1, grid_obj)
                                            : PySequence_Fast(grid_obj, "");
    if (!seq) {
      PyErr_Clear();
      PyErr_Format(PyExc_TypeError, "%U: grid= must be an int or a tuple of 1 to 3 ints; got "
                   "%R", self->context, grid_obj);
      return NULL;
    }
    Py_ssize_t dims = PySequence_Fast_GET_SIZE(seq);
    int ok = dims >= 1 && dims <= 3;
    for (Py_ssize_t d = 0; ok && d < dims; d++) {
      PyObject* item = PySequence_Fast_GET_ITEM(seq, d);
      unsigned long long v = PyLong_Check(item) ? PyLong_AsUnsignedLongLong(item) : (1ull << 40);
      if (v == (unsigned long long)-1 && PyErr_Occurred()) {
        PyErr_Clear();
        v = 1ull << 40;
      }
      ok = v < (1ull << 32);
      grid[d] = (uint32_t)v;
    }
    Py_DECREF(seq);
    if (!ok) {
      PyErr_Format(PyExc_ValueError, "%U: grid= %R: 1 to 3 ints, each in 0..2^32-1",
                   self->context, grid_obj);
      return NULL;
    }
  }
  uint32_t grids_stack[3 * 8];
  uint32_t* grids = NULL;
  tkrt_triton_bound_launch_options_t wait_options, try_options;
  if (!self->bound) return explain(self, args, nargs, -1); /* closed: Python says so */
  int full;
  if (nargs == self->plan_count) full = 1;
  else if (nargs == self->array_count) full = 0;
  else return explain(self, args, nargs, -1); /* the argument count */

  tkrt_triton_arg_t stack[STACK_ARGS];
  tkrt_triton_arg_t* c_args = stack;
  Py_ssize_t n = self->param_count;
  if (n > STACK_ARGS) {
    c_args = PyMem_Malloc(sizeof(*c_args) * (size_t)n);
    if (!c_args) return PyErr_NoMemory();
  }
  for (Py_ssize_t i = 0; i < n; i++) {
    c_args[i].kind = TKRT_TRITON_ARG_DEFAULT;
    c_args[i].size = TKRT_BUFFER_SIZE_UNKNOWN;
  }
  PyObject* keep[STACK_ARGS];
  PyObject** kept = keep;
  Py_ssize_t kept_count = 0, given = full ? self->plan_count : self->array_count;
  if (given > STACK_ARGS) {
    kept = PyMem_Malloc(sizeof(*kept) * (size_t)given);
    if (!kept) {
      if (c_args != stack) PyMem_Free(c_args);
      return PyErr_NoMemory();
    }
  }
  array_t first = {0};
  int have_first = 0, failed = 0;
  /* An array read through a DLPack capsule on a GPU: no stream order is known to protect its
   * memory once the capsule goes, so the launch is waited for before the capsule is dropped. */
  int synchronous = 0;
  Py_ssize_t bad = -1;
  for (Py_ssize_t g = 0; g < given && !failed; g++) {
    Py_ssize_t position = full ? g : self->arrays[g];
    const entry_t* p = &self->plan[position];
    PyObject* obj = args[g];
    tkrt_triton_arg_t* arg = p->kind == P_FIXED ? NULL : &c_args[p->param];
    int r = 0;
    switch (p->kind) {
      case P_POINTER: {
        array_t a;
        PyObject* capsule = NULL;
        r = read_array(self, obj, &a, &capsule, 0);
        if (capsule) {
          kept[kept_count++] = capsule;
          synchronous = 1;
        }
        if (!r && !array_fits(self, &a)) r = 1;
        if (!r) {
          arg->kind = TKRT_TRITON_ARG_POINTER;
          arg->ptr = a.address;
          arg->size = a.extent;
          arg->dtype = arg_dtype(&a);
          if (!have_first) {
            first = a;
            have_first = 1;
          }
        }
        break;
      }
      case P_DESC: {
        array_t a;
        PyObject* capsule = NULL;
        r = read_descriptor(self, p, obj, arg, &a, &capsule);
        if (capsule) {
          kept[kept_count++] = capsule;
          synchronous = 1;
        }
        if (!r && !have_first) {
          first = a;
          have_first = 1;
        }
        break;
      }
      case P_INT:
        r = read_int(obj, arg);
        break;
      case P_FLOAT:
        r = read_float(obj, arg);
        break;
      case P_FIXED: {
        int eq = PyObject_RichCompareBool(obj, p->value, Py_EQ);
        r = eq < 0 ? -1 : !eq;
        break;
      }
    }
    if (r < 0 && (p->kind == P_POINTER || p->kind == P_DESC) &&
        PyErr_ExceptionMatches(PyExc_Exception)) {
      r = 1; /* the framework refused the read: the ctypes reader says which argument */
    }
    if (r) {
      failed = r;
      bad = g;
    }
  }
  PyObject* result = NULL;
  uint64_t s = 0;
  int closed = 0;
  if (failed == 0 && launch_stream(self, stream, have_first ? &first : NULL, &s) == 0 &&
      !(closed = !self->bound)) {
    /* (Reading the arguments and the stream runs Python code, which may have closed the launch
     * in another thread: checked again above, with no Python code from there to the enqueue. A
     * close that runs while the GIL is released below is waited for by the C library, and a
     * launch after it is refused there: the bound object itself lives until the launcher is
     * freed.) */
    const tkrt_triton_bound_t* bound = self->bound;
    tkrt_stream_t st = (tkrt_stream_t)(uintptr_t)s;
    tkrt_status_t status;
    if (have_grid) {
      grids = self->variant_count <= 8 ? grids_stack
                                       : PyMem_Malloc(3 * self->variant_count * sizeof(*grids));
      /* Out of memory: grids stays NULL with a grid_count, which the C library refuses (never a
       * launch with other grids than asked). */
      for (size_t v = 0; grids && v < self->variant_count; v++) {
        memcpy(&grids[3 * v], grid, sizeof(grid));
      }
      tkrt_triton_bound_launch_options_init(&wait_options);
      wait_options.grids = grids;
      wait_options.grid_count = 3 * self->variant_count;
      try_options = wait_options;
      try_options.no_wait = true;
    }
    /* tkrt_log_flush delivers what a launch that released the GIL logged before it returns; it
     * is called with the GIL released (it waits for a drain thread that may need the GIL). */
    if (self->process_memory || synchronous) {
      Py_BEGIN_ALLOW_THREADS
      status = have_grid ? tkrt_triton_bound_launch_with(bound, st, c_args, (size_t)n,
                                                         &wait_options, NULL)
                         : tkrt_triton_bound_launch(bound, st, c_args, (size_t)n, NULL);
      if (!status) status = tkrt_stream_synchronize(self->device, st);
      tkrt_log_flush();
      Py_END_ALLOW_THREADS
    } else {
      status = have_grid ? tkrt_triton_bound_launch_with(bound, st, c_args, (size_t)n,
                                                         &try_options, NULL)
                         : tkrt_triton_bound_try_launch(bound, st, c_args, (size_t)n, NULL);
      if (tkrt_status_is_would_wait(status)) {
        Py_BEGIN_ALLOW_THREADS
        status = have_grid ? tkrt_triton_bound_launch_with(bound, st, c_args, (size_t)n,
                                                           &wait_options, NULL)
                           : tkrt_triton_bound_launch(bound, st, c_args, (size_t)n, NULL);
        tkrt_log_flush(); /* what the wait logged (loads, the tuner) */
        Py_END_ALLOW_THREADS
      }
    }
    if (!status) {
      result = Py_NewRef(Py_None);
    } else {
      raise_status(status, self->context);
    }
  }
  for (Py_ssize_t i = 0; i < kept_count; i++) Py_DECREF(kept[i]); /* after the launch ran */
  if (kept != keep) PyMem_Free(kept);
  if (grids && grids != grids_stack) PyMem_Free(grids);
  if (c_args != stack) PyMem_Free(c_args);
  if (failed == 1) {
    PyErr_Clear();
    return explain(self, args, nargs, full ? bad : self->arrays[bad]);
  }
  if (closed) return explain(self, args, nargs, -1); /* closed meanwhile: Python says so */
  return result;
}

/* _setup(bound_address, plan, arrays, param_count, dev_types, ordinal, process_memory,
 *        foreign_streams, need_size, context, device_address) */
static PyObject* launcher_setup(PyObject* op, PyObject* a) {
  launcher_t* self = (launcher_t*)op;
  unsigned long long bound, device;
  PyObject *plan, *arrays, *dev_types, *context;
  Py_ssize_t param_count;
  int ordinal, process_memory, foreign, need_size;
  if (!PyArg_ParseTuple(a, "KO!O!nO!ipppUK", &bound, &PyList_Type, &plan, &PyTuple_Type, &arrays,
                        &param_count, &PyTuple_Type, &dev_types, &ordinal, &process_memory,
                        &foreign, &need_size, &context, &device)) {
    return NULL;
  }
  if (!device) {
    PyErr_SetString(PyExc_ValueError, "tkrt._native.Launcher: no device");
    return NULL;
  }
  if (self->plan) {
    PyErr_SetString(PyExc_RuntimeError, "tkrt._native.Launcher: already set up");
    return NULL;
  }
  Py_ssize_t count = PyList_GET_SIZE(plan), array_count = PyTuple_GET_SIZE(arrays);
  if (PyTuple_GET_SIZE(dev_types) > 8 || param_count < 0 || count < param_count) {
    PyErr_SetString(PyExc_ValueError, "tkrt._native.Launcher: bad plan");
    return NULL;
  }
  entry_t* entries = PyMem_Calloc((size_t)count + 1, sizeof(entry_t));
  Py_ssize_t* positions = PyMem_Calloc((size_t)array_count + 1, sizeof(Py_ssize_t));
  if (!entries || !positions) {
    PyMem_Free(entries);
    PyMem_Free(positions);
    return PyErr_NoMemory();
  }
  self->plan = entries;
  self->arrays = positions;
  self->plan_count = count; /* freed by dealloc from here on */
  for (Py_ssize_t i = 0; i < count; i++) {
    entry_t* e = &entries[i];
    PyObject* item = PyList_GET_ITEM(plan, i);
    PyObject *block = NULL, *value = NULL;
    unsigned int rank = 0;
    if (!PyArg_ParseTuple(item, "ii|IOO", &e->kind, &e->param, &rank, &block, &value)) {
      return NULL;
    }
    if (e->kind < P_POINTER || e->kind > P_FIXED ||
        (e->kind != P_FIXED && (e->param < 0 || e->param >= param_count)) ||
        rank > TKRT_TMA_MAX_RANK) {
      PyErr_Format(PyExc_ValueError, "tkrt._native.Launcher: bad plan entry %zd", i);
      return NULL;
    }
    e->rank = rank;
    if (block && block != Py_None) {
      Py_INCREF(block);
      if (int_list(block, e->block) != (int)rank) {
        PyErr_SetString(PyExc_ValueError, "tkrt._native.Launcher: bad block");
        return NULL;
      }
    }
    if (e->kind == P_FIXED) e->value = Py_NewRef(value ? value : Py_None);
  }
  for (Py_ssize_t i = 0; i < array_count; i++) {
    positions[i] = PyLong_AsSsize_t(PyTuple_GET_ITEM(arrays, i));
    if (positions[i] < 0 || positions[i] >= count) {
      if (!PyErr_Occurred()) PyErr_SetString(PyExc_ValueError, "tkrt._native.Launcher: bad arrays");
      return NULL;
    }
  }
  self->array_count = array_count;
  self->param_count = param_count;
  self->dev_type_count = (int)PyTuple_GET_SIZE(dev_types);
  for (int i = 0; i < self->dev_type_count; i++) {
    self->dev_types[i] = (int32_t)PyLong_AsLong(PyTuple_GET_ITEM(dev_types, i));
  }
  if (PyErr_Occurred()) return NULL;
  self->ordinal = ordinal;
  self->process_memory = process_memory;
  self->foreign_streams = foreign;
  self->need_size = need_size;
  self->device = (tkrt_device_t*)(uintptr_t)device;
  Py_XSETREF(self->context, Py_NewRef(context));
  self->bound = (const tkrt_triton_bound_t*)(uintptr_t)bound;
  self->variant_count = tkrt_call_get_desc(tkrt_triton_bound_call(self->bound))->config_count;
  Py_RETURN_NONE;
}

/* _detach(): later launches raise (through _explain); the bound launch is the caller's to free. */
static PyObject* launcher_detach(PyObject* op, PyObject* unused) {
  (void)unused;
  ((launcher_t*)op)->bound = NULL;
  Py_RETURN_NONE;
}

static PyObject* launcher_new(PyTypeObject* type, PyObject* args, PyObject* kwargs) {
  (void)args;
  (void)kwargs;
  launcher_t* self = (launcher_t*)type->tp_alloc(type, 0);
  if (self) self->vectorcall = launcher_call;
  return (PyObject*)self;
}

static int launcher_traverse(PyObject* op, visitproc visit, void* arg) {
  launcher_t* self = (launcher_t*)op;
  Py_VISIT(self->dict);
  for (Py_ssize_t i = 0; self->plan && i < self->plan_count; i++) Py_VISIT(self->plan[i].value);
  return 0; /* a static type: a heap subclass's own traverse visits its type */
}

static int launcher_clear(PyObject* op) {
  launcher_t* self = (launcher_t*)op;
  Py_CLEAR(self->dict);
  for (Py_ssize_t i = 0; self->plan && i < self->plan_count; i++) Py_CLEAR(self->plan[i].value);
  return 0;
}

static void launcher_dealloc(PyObject* op) {
  launcher_t* self = (launcher_t*)op;
  PyTypeObject* type = Py_TYPE(op);
  PyObject_GC_UnTrack(op);
  if (self->weakrefs) PyObject_ClearWeakRefs(op);
  launcher_clear(op);
  Py_CLEAR(self->context);
  PyMem_Free(self->plan);
  PyMem_Free(self->arrays);
  type->tp_free(op); /* a heap subclass's type is released by its own dealloc (subtype_dealloc) */
}

static PyMethodDef launcher_methods[] = {
    {"_setup", launcher_setup, METH_VARARGS, "Sets the bound launch and its plan (tkrt.triton)."},
    {"_detach", launcher_detach, METH_NOARGS, "Forgets the bound launch: later launches raise."},
    {NULL, NULL, 0, NULL},
};

static PyTypeObject launcher_type = {
    PyVarObject_HEAD_INIT(NULL, 0)
    .tp_name = "tkrt._native.Launcher",
    .tp_basicsize = sizeof(launcher_t),
    .tp_flags = Py_TPFLAGS_DEFAULT | Py_TPFLAGS_BASETYPE | Py_TPFLAGS_HAVE_GC |
                Py_TPFLAGS_HAVE_VECTORCALL,
    .tp_doc = "A bound launch called with vectorcall: launcher(*arguments, stream=None).",
    .tp_new = launcher_new,
    .tp_dealloc = launcher_dealloc,
    .tp_traverse = launcher_traverse,
    .tp_clear = launcher_clear,
    .tp_call = PyVectorcall_Call,
    .tp_vectorcall_offset = offsetof(launcher_t, vectorcall),
    .tp_dictoffset = offsetof(launcher_t, dict),
    .tp_weaklistoffset = offsetof(launcher_t, weakrefs),
    .tp_methods = launcher_methods,
};

/* ------------------------------------------------------------------ module functions */

/* _configure(error_class, classify): tkrt.triton.Error (raised for a failed launch's status) and
 * the classifier of array types (tkrt.triton's array readers). */
static PyObject* configure(PyObject* module, PyObject* a) {
  (void)module;
  PyObject *error, *classify;
  if (!PyArg_ParseTuple(a, "OO", &error, &classify)) return NULL;
  if (!PyType_Check(error) || !PyType_IsSubtype((PyTypeObject*)error,
                                                (PyTypeObject*)PyExc_Exception) ||
      !PyCallable_Check(classify)) {
    PyErr_SetString(PyExc_ValueError, "tkrt._native._configure: bad arguments");
    return NULL;
  }
  Py_XSETREF(g_error, Py_NewRef(error));
  Py_XSETREF(g_classify, Py_NewRef(classify));
  Py_RETURN_NONE;
}

/* _library_marker() -> the address of tkrt_runtime_default in the libtkrt this module linked:
 * tkrt.triton compares it with the library it loaded (one copy of tkrt per process). */
static PyObject* library_marker(PyObject* module, PyObject* unused) {
  (void)module;
  (void)unused;
  return PyLong_FromVoidPtr((void*)(uintptr_t)&tkrt_runtime_default);
}

/* _vectorcall_subclass(type): a Python subclass of Launcher without its own __call__ is called
 * through vectorcall too (what Python 3.12 does by itself; 3.9-3.11 do not inherit the flag for
 * heap types, and would call it through tp_call with a tuple and a dict). */
static PyObject* vectorcall_subclass(PyObject* module, PyObject* type) {
  (void)module;
  if (!PyType_Check(type) || !PyType_IsSubtype((PyTypeObject*)type, &launcher_type)) {
    PyErr_SetString(PyExc_TypeError, "a subclass of tkrt._native.Launcher");
    return NULL;
  }
  PyTypeObject* t = (PyTypeObject*)type;
  if (t->tp_call == PyVectorcall_Call && t->tp_vectorcall_offset == launcher_type.tp_vectorcall_offset) {
    t->tp_flags |= Py_TPFLAGS_HAVE_VECTORCALL;
    PyType_Modified(t);
    Py_RETURN_TRUE;
  }
  Py_RETURN_FALSE;
}

/* _array(obj) -> (address, extent, device_type, device_id, code << 8 | bits, read) as the native
 * path reads it (tests and array_info). */
static PyObject* array_probe(PyObject* module, PyObject* obj) {
  (void)module;
  launcher_t probe;
  memset(&probe, 0, sizeof(probe));
  probe.need_size = 1;
  array_t a;
  PyObject* keep = NULL;
  memset(&a, 0, sizeof(a));
  int r = read_array(&probe, obj, &a, &keep, 1);
  Py_XDECREF(keep);
  if (r < 0) return NULL;
  if (r > 0) {
    PyErr_Format(PyExc_TypeError, "a %s is not an array the native path reads",
                 Py_TYPE(obj)->tp_name);
    return NULL;
  }
  return Py_BuildValue("KKiiii", (unsigned long long)a.address, (unsigned long long)a.extent,
                       a.device_type, a.device_id, (int)a.dtype, a.entry->read);
}

static PyMethodDef module_methods[] = {
    {"_configure", configure, METH_VARARGS, "Sets tkrt.triton's Error class and array classifier."},
    {"_library_marker", library_marker, METH_NOARGS, "The address of tkrt_runtime_default."},
    {"_vectorcall_subclass", vectorcall_subclass, METH_O, "Vectorcall for a Python subclass."},
    {"_array", array_probe, METH_O, "What the native path reads of an array."},
    {NULL, NULL, 0, NULL},
};

static struct PyModuleDef module_def = {
    PyModuleDef_HEAD_INIT, "tkrt._native",
    "The native launch path of tkrt.triton (see tkrt/triton.py).", -1, module_methods,
    NULL, NULL, NULL, NULL,
};

#define INTERN(var, text)                                   \
  do {                                                      \
    if (!((var) = PyUnicode_InternFromString(text))) return NULL; \
  } while (0)

PyMODINIT_FUNC PyInit__native(void) {
  INTERN(s_dlpack, "__dlpack__");
  INTERN(s_dlpack_device, "__dlpack_device__");
  INTERN(s_max_version, "max_version");
  INTERN(s_data_ptr, "data_ptr");
  INTERN(s_numel, "numel");
  INTERN(s_size, "size");
  INTERN(s_get_device, "get_device");
  INTERN(s_dtype, "dtype");
  INTERN(s_data, "data");
  INTERN(s_ptr, "ptr");
  INTERN(s_device_id, "device_id");
  INTERN(s_block_until_ready, "block_until_ready");
  INTERN(s_explain, "_explain");
  INTERN(s_stream_of, "_stream_of");
  INTERN(s_base, "base");
  INTERN(s_shape, "shape");
  INTERN(s_strides, "strides");
  INTERN(s_block_shape, "block_shape");
  INTERN(s_padding, "padding");
  INTERN(s_zero, "zero");
  INTERN(s_nan, "nan");
  INTERN(s_stream, "stream");
  INTERN(s_grid, "grid");
  INTERN(s_cuda_stream, "cuda_stream");
  if (!(s_version_1_0 = Py_BuildValue("(ii)", 1, 0))) return NULL;
  if (!(s_kwnames_max_version = PyTuple_Pack(1, s_max_version))) return NULL;
  if (PyType_Ready(&launcher_type) < 0) return NULL;
  PyObject* m = PyModule_Create(&module_def);
  if (!m) return NULL;
  Py_INCREF(&launcher_type);
  if (PyModule_AddObject(m, "Launcher", (PyObject*)&launcher_type) < 0) {
    Py_DECREF(&launcher_type);
    Py_DECREF(m);
    return NULL;
  }
  if (PyModule_AddIntConstant(m, "ARG_STRUCT_SIZE", (long)sizeof(tkrt_triton_arg_t)) < 0) {
    Py_DECREF(m);
    return NULL;
  }
  return m;
}
