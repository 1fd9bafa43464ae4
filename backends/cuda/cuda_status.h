/* tkrt CUDA backend: turning a CUresult into a tkrt status that keeps the CUDA error name, the
 * driver's description and the operation that failed. */
#ifndef TKRT_BACKENDS_CUDA_CUDA_STATUS_H_
#define TKRT_BACKENDS_CUDA_CUDA_STATUS_H_

#include <cuda.h>

#include "tkrt/status.h"

/* The status code for a CUresult (a switch on the numeric value). CUDA_SUCCESS maps to OK. */
tkrt_status_code_t tkrt_cuda_status_code(CUresult result);

/* "CUDA_ERROR_INVALID_PTX", from the backend's own table, so it works without a driver and for
 * codes the loaded driver does not name. NULL for values the table does not know. */
const char* tkrt_cuda_error_name(CUresult result);

/* Makes "<operation> failed: CUDA_ERROR_X (driver description)" with the mapped code. The name
 * and description come from cuGetErrorName/cuGetErrorString when the driver resolved them, else
 * from tkrt_cuda_error_name. `result` must not be CUDA_SUCCESS (that yields an INTERNAL status). */
tkrt_status_t tkrt_cuda_status_make(CUresult result, const char* file, int line,
                                    const char* operation_format, ...) TKRT_PRINTF_LIKE(4, 5);

#define TKRT_CUDA_STATUS(result, ...) \
  tkrt_cuda_status_make((result), __FILE__, __LINE__, __VA_ARGS__)

#endif /* TKRT_BACKENDS_CUDA_CUDA_STATUS_H_ */
