/* SPDX-License-Identifier: Apache-2.0 */
/* The layouts of the C structs that the Python package mirrors with ctypes (python/tkrt): one line
 * "<struct> <sizeof>" per struct and "<struct>.<field> <offset> <size>" per field, read by
 * check_struct_layouts.py, which compares them with the ctypes mirrors. A field a mirror names
 * that the struct lacks fails to compile here; a field the struct gained changes its size. */
#include <stddef.h>
#include <stdio.h>

#include "tkrt/tkrt.h"
#include "xla/tkrt_xla.h"

#define STRUCT(type) printf("%s %zu\n", #type, sizeof(type))
#define FIELD(type, field) \
  printf("%s.%s %zu %zu\n", #type, #field, offsetof(type, field), sizeof(((type*)0)->field))

int main(void) {
  STRUCT(tkrt_device_options_t);
  FIELD(tkrt_device_options_t, struct_size);
  FIELD(tkrt_device_options_t, backend);
  FIELD(tkrt_device_options_t, ordinal);
  FIELD(tkrt_device_options_t, host_threads);
  FIELD(tkrt_device_options_t, cache_dir);
  FIELD(tkrt_device_options_t, trust_shared_cache);
  FIELD(tkrt_device_options_t, hip_library);
  FIELD(tkrt_device_options_t, log);
  FIELD(tkrt_device_options_t, allow_native_code_from_calls);
  FIELD(tkrt_device_options_t, params);
  FIELD(tkrt_device_options_t, param_count);
  STRUCT(tkrt_device_info_t);
  FIELD(tkrt_device_info_t, struct_size);
  FIELD(tkrt_device_info_t, backend);
  FIELD(tkrt_device_info_t, name);
  FIELD(tkrt_device_info_t, arch);
  FIELD(tkrt_device_info_t, ordinal);
  STRUCT(tkrt_backend_description_t);
  FIELD(tkrt_backend_description_t, struct_size);
  FIELD(tkrt_backend_description_t, name);
  FIELD(tkrt_backend_description_t, triton_target);
  FIELD(tkrt_backend_description_t, foreign_streams);
  FIELD(tkrt_backend_description_t, image_kinds);
  FIELD(tkrt_backend_description_t, native_code_kinds);
  FIELD(tkrt_backend_description_t, dlpack_device_type_count);
  FIELD(tkrt_backend_description_t, dlpack_device_types);
  STRUCT(tkrt_autotuner_options_t);
  FIELD(tkrt_autotuner_options_t, struct_size);
  FIELD(tkrt_autotuner_options_t, policy);
  FIELD(tkrt_autotuner_options_t, capture_policy);
  FIELD(tkrt_autotuner_options_t, target_ms);
  FIELD(tkrt_autotuner_options_t, max_iterations);
  FIELD(tkrt_autotuner_options_t, store_dir);
  FIELD(tkrt_autotuner_options_t, trust_shared_store);
  FIELD(tkrt_autotuner_options_t, pins);
  FIELD(tkrt_autotuner_options_t, refresh_store);
  FIELD(tkrt_autotuner_options_t, progress);
  FIELD(tkrt_autotuner_options_t, progress_user);
  FIELD(tkrt_autotuner_options_t, prune_margin);
  FIELD(tkrt_autotuner_options_t, exchange);
  FIELD(tkrt_autotuner_options_t, exchange_policy);
  FIELD(tkrt_autotuner_options_t, exchange_ranks);
  FIELD(tkrt_autotuner_options_t, exchange_timeout_ms);
  FIELD(tkrt_autotuner_options_t, tuning_key);
  FIELD(tkrt_autotuner_options_t, require_complete);
  STRUCT(tkrt_tune_report_t);
  FIELD(tkrt_tune_report_t, struct_size);
  FIELD(tkrt_tune_report_t, source);
  FIELD(tkrt_tune_report_t, chosen);
  FIELD(tkrt_tune_report_t, config_count);
  FIELD(tkrt_tune_report_t, iterations);
  FIELD(tkrt_tune_report_t, times_ms);
  FIELD(tkrt_tune_report_t, times_capacity);
  FIELD(tkrt_tune_report_t, skip_reason);
  FIELD(tkrt_tune_report_t, store_file);
  FIELD(tkrt_tune_report_t, fallback_reason);
  FIELD(tkrt_tune_report_t, round1_iterations);
  FIELD(tkrt_tune_report_t, prune_margin);
  FIELD(tkrt_tune_report_t, round1_best_ms);
  FIELD(tkrt_tune_report_t, pruned_count);
  FIELD(tkrt_tune_report_t, pruned);
  FIELD(tkrt_tune_report_t, timed_launches);
  FIELD(tkrt_tune_report_t, exchange_key);
  FIELD(tkrt_tune_report_t, exchange_role);
  FIELD(tkrt_tune_report_t, exchange_ranks);
  STRUCT(tkrt_triton_load_options_t);
  FIELD(tkrt_triton_load_options_t, struct_size);
  FIELD(tkrt_triton_load_options_t, image_kinds);
  FIELD(tkrt_triton_load_options_t, allow_native_code);
  STRUCT(tkrt_triton_param_t);
  FIELD(tkrt_triton_param_t, name);
  FIELD(tkrt_triton_param_t, type);
  FIELD(tkrt_triton_param_t, is_pointer);
  FIELD(tkrt_triton_param_t, kind);
  FIELD(tkrt_triton_param_t, element_bytes);
  FIELD(tkrt_triton_param_t, divisibility);
  STRUCT(tkrt_triton_target_t);
  FIELD(tkrt_triton_target_t, json_path);
  FIELD(tkrt_triton_target_t, backend);
  FIELD(tkrt_triton_target_t, arch);
  FIELD(tkrt_triton_target_t, warp_size);
  FIELD(tkrt_triton_target_t, num_stages);
  FIELD(tkrt_triton_target_t, shared_mem_bytes);
  FIELD(tkrt_triton_target_t, global_scratch_size);
  FIELD(tkrt_triton_target_t, global_scratch_align);
  FIELD(tkrt_triton_target_t, tmem_size);
  FIELD(tkrt_triton_target_t, triton_version);
  FIELD(tkrt_triton_target_t, hash);
  FIELD(tkrt_triton_target_t, image_kinds);
  FIELD(tkrt_triton_target_t, native_code_left_out);
  STRUCT(tkrt_kernel_desc_t);
  FIELD(tkrt_kernel_desc_t, struct_size);
  FIELD(tkrt_kernel_desc_t, name);
  FIELD(tkrt_kernel_desc_t, num_warps);
  STRUCT(tkrt_triton_scalar_t);
  FIELD(tkrt_triton_scalar_t, name);
  FIELD(tkrt_triton_scalar_t, is_float);
  FIELD(tkrt_triton_scalar_t, i);
  FIELD(tkrt_triton_scalar_t, f);
  STRUCT(tkrt_triton_variant_t);
  FIELD(tkrt_triton_variant_t, kernel);
  FIELD(tkrt_triton_variant_t, grid);
  FIELD(tkrt_triton_variant_t, grid_dims);
  FIELD(tkrt_triton_variant_t, constants);
  FIELD(tkrt_triton_variant_t, description);
  STRUCT(tkrt_triton_call_desc_t);
  FIELD(tkrt_triton_call_desc_t, struct_size);
  FIELD(tkrt_triton_call_desc_t, name);
  FIELD(tkrt_triton_call_desc_t, variants);
  FIELD(tkrt_triton_call_desc_t, variant_count);
  FIELD(tkrt_triton_call_desc_t, scalars);
  FIELD(tkrt_triton_call_desc_t, scalar_count);
  FIELD(tkrt_triton_call_desc_t, inout);
  FIELD(tkrt_triton_call_desc_t, inout_count);
  STRUCT(tkrt_runtime_options_t);
  FIELD(tkrt_runtime_options_t, struct_size);
  FIELD(tkrt_runtime_options_t, device);
  FIELD(tkrt_runtime_options_t, tuner);
  FIELD(tkrt_runtime_options_t, read_environment);
  STRUCT(tkrt_runtime_launch_args_t);
  FIELD(tkrt_runtime_launch_args_t, struct_size);
  FIELD(tkrt_runtime_launch_args_t, call);
  FIELD(tkrt_runtime_launch_args_t, device);
  FIELD(tkrt_runtime_launch_args_t, stream);
  FIELD(tkrt_runtime_launch_args_t, buffers);
  FIELD(tkrt_runtime_launch_args_t, input_count);
  FIELD(tkrt_runtime_launch_args_t, output_count);
  FIELD(tkrt_runtime_launch_args_t, scalars);
  FIELD(tkrt_runtime_launch_args_t, scalar_count);
  FIELD(tkrt_runtime_launch_args_t, alias_mode);
  FIELD(tkrt_runtime_launch_args_t, decision);
  STRUCT(tkrt_xla_stats_t);
  FIELD(tkrt_xla_stats_t, struct_size);
  FIELD(tkrt_xla_stats_t, instantiated);
  FIELD(tkrt_xla_stats_t, initialized);
  FIELD(tkrt_xla_stats_t, executed);
  FIELD(tkrt_xla_stats_t, executed_captured);
  FIELD(tkrt_xla_stats_t, legacy_executed);
  FIELD(tkrt_xla_stats_t, decoded);
  FIELD(tkrt_xla_stats_t, cache_entries);
  FIELD(tkrt_xla_stats_t, tuned_in_execute);
  FIELD(tkrt_xla_stats_t, capture_fallbacks);
  FIELD(tkrt_xla_stats_t, errors);
  FIELD(tkrt_xla_stats_t, devices_opened);
  FIELD(tkrt_xla_stats_t, legacy_status_fallback);
  FIELD(tkrt_xla_stats_t, unknown_size_fallbacks);
  FIELD(tkrt_xla_stats_t, blob_hashes);
  FIELD(tkrt_xla_stats_t, prepared);
  /* python/tkrt/exchange.py (issue 26) */
  STRUCT(tkrt_exchange_t);
  FIELD(tkrt_exchange_t, struct_size);
  FIELD(tkrt_exchange_t, user);
  FIELD(tkrt_exchange_t, set);
  FIELD(tkrt_exchange_t, get);
  FIELD(tkrt_exchange_t, add);
  STRUCT(tkrt_autotuner_stats_t);
  FIELD(tkrt_autotuner_stats_t, struct_size);
  FIELD(tkrt_autotuner_stats_t, exchange_leader);
  FIELD(tkrt_autotuner_stats_t, exchange_follower);
  FIELD(tkrt_autotuner_stats_t, exchange_merged);
  FIELD(tkrt_autotuner_stats_t, exchange_fallbacks);
  FIELD(tkrt_autotuner_stats_t, exchange_refused);
  FIELD(tkrt_autotuner_stats_t, exchange_errors);
  return 0;
}
