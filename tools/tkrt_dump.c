/* SPDX-License-Identifier: Apache-2.0 */
/* tkrt dump: a decoded call, as text for people or as JSON with every field for tools. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "tools/tkrt_cli.h"

static const char kDumpUsage[] =
    "usage: tkrt dump FILE [--json] [--read-hsaco-paths]\n"
    "\n"
    "Decodes a serialized call (zlib-compressed or raw TritonAnyKernelCall; or a case directory\n"
    "holding call.pb.z) and prints it. --json prints every field: type, name, metadata size, and\n"
    "per config the description, kernel name, num_warps, num_ctas, shared_mem_bytes,\n"
    "compute_capability, images (kind, size, backend, arch), global scratch, grid, and each\n"
    "parameter with its kind and value; then the alias records. JSON strings are UTF-8: text that\n"
    "is valid UTF-8 is written as it is (control characters escaped), and each byte that is not\n"
    "becomes U+FFFD (\\ufffd); metadata_hex has the metadata's exact bytes. Text output shows\n"
    "control and non-ASCII bytes of the call's strings as \\xNN. --read-hsaco-paths reads the HSACO files a\n"
    "ROCm call names by path (off by default: a call from elsewhere could name any file).\n"
    "Nothing in the call is loaded or run.\n";

static void print_param_value(FILE* out, const tkrt_param_t* p, int json) {
  switch (p->kind) {
    case TKRT_PARAM_ARRAY:
      fprintf(out, json ? "{\"bytes_to_zero\": %llu, \"ptr_divisibility\": %llu}"
                        : "bytes_to_zero=%llu divisibility=%llu",
              (unsigned long long)p->value.array.bytes_to_zero,
              (unsigned long long)p->value.array.ptr_divisibility);
      break;
    case TKRT_PARAM_BOOL: fprintf(out, "%s", p->value.b ? "true" : "false"); break;
    case TKRT_PARAM_I32: fprintf(out, "%d", p->value.i32); break;
    case TKRT_PARAM_U32: fprintf(out, "%u", p->value.u32); break;
    case TKRT_PARAM_I64: fprintf(out, "%lld", (long long)p->value.i64); break;
    case TKRT_PARAM_U64: fprintf(out, "%llu", (unsigned long long)p->value.u64); break;
    case TKRT_PARAM_F32:
      if (json && !isfinite(p->value.f32)) {
        fprintf(out, "\"%g\"", (double)p->value.f32);
      } else {
        fprintf(out, "%.9g", (double)p->value.f32);
      }
      break;
    case TKRT_PARAM_F64:
      if (json && !isfinite(p->value.f64)) {
        fprintf(out, "\"%g\"", p->value.f64);
      } else {
        fprintf(out, "%.17g", p->value.f64);
      }
      break;
    case TKRT_PARAM_TMA: {
      const tkrt_tma_desc_t* t = &p->value.tma;
      fprintf(out, json ? "{\"elem_type\": %u, \"swizzle\": %u, \"oob_fill\": %u, \"shape\": ["
                        : "elem_type=%u swizzle=%u oob_fill=%u shape=[",
              t->elem_type, t->swizzle, t->oob_fill);
      for (uint32_t i = 0; i < t->rank; ++i) {
        fprintf(out, "%s%llu", i ? ", " : "", (unsigned long long)t->shape[i]);
      }
      fprintf(out, json ? "], \"strides\": [" : "] strides=[");
      for (uint32_t i = 0; i < t->rank; ++i) {
        fprintf(out, "%s%llu", i ? ", " : "", (unsigned long long)t->strides[i]);
      }
      fprintf(out, json ? "], \"block_shape\": [" : "] block_shape=[");
      for (uint32_t i = 0; i < t->rank; ++i) fprintf(out, "%s%u", i ? ", " : "", t->block_shape[i]);
      fprintf(out, json ? "]}" : "]");
      break;
    }
  }
}

static void dump_json(const tkrt_call_t* call) {
  const tkrt_call_desc_t* d = tkrt_call_get_desc(call);
  char digest[65];
  for (int i = 0; i < 32; ++i) snprintf(digest + 2 * i, 3, "%02x", tkrt_call_digest(call)[i]);
  printf("{\n  \"type\": \"%s\",\n  \"name\": ", d->autotuned ? "autotuned_kernel_call" : "kernel_call");
  tkrt_cli_json_string(stdout, d->name);
  printf(",\n  \"metadata_size\": %zu,\n  \"metadata\": ", d->metadata_size);
  tkrt_cli_json_bytes_as_string(stdout, d->metadata, d->metadata_size);
  printf(",\n  \"metadata_hex\": \"");
  for (size_t i = 0; i < d->metadata_size; ++i) {
    printf("%02x", ((const unsigned char*)d->metadata)[i]);
  }
  printf("\"");
  printf(",\n  \"digest\": \"%s\",\n  \"autotune_name\": ", digest);
  tkrt_cli_json_string(stdout, d->autotune_name);
  printf(",\n  \"configs\": [");
  for (size_t c = 0; c < d->config_count; ++c) {
    const tkrt_config_desc_t* config = &d->configs[c];
    const tkrt_kernel_desc_t* k = tkrt_kernel_get_desc(config->kernel);
    printf("%s\n    {\n      \"description\": ", c ? "," : "");
    tkrt_cli_json_string(stdout, config->description);
    printf(",\n      \"kernel_name\": ");
    tkrt_cli_json_string(stdout, k->name);
    printf(",\n      \"num_warps\": %u,\n      \"num_ctas\": %u,\n", k->num_warps, k->num_ctas);
    printf("      \"cluster_dims\": [%u, %u, %u],\n", k->cluster_dims[0], k->cluster_dims[1],
           k->cluster_dims[2]);
    printf("      \"shared_mem_bytes\": %u,\n      \"compute_capability\": %u,\n",
           k->shared_mem_bytes, k->compute_capability);
    printf("      \"global_scratch_size\": %u,\n      \"global_scratch_align\": %u,\n",
           k->global_scratch_size, k->global_scratch_align);
    printf("      \"profile_scratch_size\": %u,\n      \"profile_scratch_align\": %u,\n",
           k->profile_scratch_size, k->profile_scratch_align);
    printf("      \"hidden_pointers\": %u,\n", k->hidden_pointers);
    printf("      \"ttir_size\": %zu,\n      \"images\": [", k->ttir ? strlen(k->ttir) : 0);
    for (size_t i = 0; i < k->image_count; ++i) {
      const tkrt_kernel_image_t* image = &k->images[i];
      printf("%s\n        {\"kind\": \"%s\", \"size\": %zu, \"backend\": \"%s\", \"arch\": ",
             i ? "," : "", tkrt_image_kind_name(image->kind), image->size,
             tkrt_kernel_image_backend(image));
      tkrt_cli_json_string(stdout, image->arch);
      printf(", \"entry_name\": ");
      tkrt_cli_json_string(stdout, image->entry_name);
      printf("}");
    }
    printf("\n      ],\n      \"grid\": [%u, %u, %u],\n      \"parameters\": [", config->grid[0],
           config->grid[1], config->grid[2]);
    for (size_t i = 0; i < config->param_count; ++i) {
      printf("%s\n        {\"kind\": \"%s\", \"value\": ", i ? "," : "",
             tkrt_param_kind_name(config->params[i].kind));
      print_param_value(stdout, &config->params[i], 1);
      printf("}");
    }
    printf("\n      ]\n    }");
  }
  printf("\n  ],\n  \"aliases\": [");
  for (size_t i = 0; i < d->alias_count; ++i) {
    printf("%s\n    {\"input_index\": %llu, \"output_index\": %llu, \"size_bytes\": %llu}",
           i ? "," : "", (unsigned long long)d->aliases[i].input_index,
           (unsigned long long)d->aliases[i].output_index,
           (unsigned long long)d->aliases[i].size_bytes);
  }
  printf("%s]\n}\n", d->alias_count ? "\n  " : "");
}

static void dump_text(const tkrt_call_t* call) {
  const tkrt_call_desc_t* d = tkrt_call_get_desc(call);
  printf("%s call '", d->autotuned ? "autotuned" : "plain");
  tkrt_cli_print_text(stdout, d->name ? d->name : "");
  printf("': %zu config%s, %zu bytes of metadata\n", d->config_count,
         d->config_count == 1 ? "" : "s", d->metadata_size);
  for (size_t c = 0; c < d->config_count; ++c) {
    const tkrt_config_desc_t* config = &d->configs[c];
    const tkrt_kernel_desc_t* k = tkrt_kernel_get_desc(config->kernel);
    printf("config %zu", c);
    if (config->description) {
      printf(" '");
      tkrt_cli_print_text(stdout, config->description);
      printf("'");
    }
    printf(": kernel ");
    tkrt_cli_print_text(stdout, k->name);
    printf(", grid %ux%ux%u, %u warps, num_ctas %u, shared %u B, cc %u", config->grid[0],
           config->grid[1], config->grid[2], k->num_warps, k->num_ctas, k->shared_mem_bytes,
           k->compute_capability);
    if (k->global_scratch_size) printf(", scratch %u B/CTA", k->global_scratch_size);
    printf("\n");
    for (size_t i = 0; i < k->image_count; ++i) {
      const tkrt_kernel_image_t* image = &k->images[i];
      printf("  image: ");
      tkrt_cli_print_text(stdout, tkrt_kernel_image_backend(image));
      printf(" %s for ", tkrt_image_kind_name(image->kind));
      tkrt_cli_print_text(stdout, image->arch ? image->arch : "any arch");
      printf(", %zu bytes\n", image->size);
    }
    for (size_t i = 0; i < config->param_count; ++i) {
      printf("  param %zu: %s ", i, tkrt_param_kind_name(config->params[i].kind));
      print_param_value(stdout, &config->params[i], 0);
      printf("\n");
    }
  }
  for (size_t i = 0; i < d->alias_count; ++i) {
    printf("alias: input %llu -> output %llu, %llu bytes\n",
           (unsigned long long)d->aliases[i].input_index,
           (unsigned long long)d->aliases[i].output_index,
           (unsigned long long)d->aliases[i].size_bytes);
  }
}

enum { OPT_JSON = TKRT_CLI_OPTION_BASE, OPT_READ_HSACO_PATHS };
static const struct option options[] = {
    {"help", no_argument, NULL, 'h'},
    {"json", no_argument, NULL, OPT_JSON},
    {"read-hsaco-paths", no_argument, NULL, OPT_READ_HSACO_PATHS},
    {NULL, 0, NULL, 0},
};
const char* const tkrt_cli_dump_usage = kDumpUsage;
const struct option* const tkrt_cli_dump_options = options;

int tkrt_cli_dump(int argc, char** argv) {
  const char* path = NULL;
  int json = 0, read_hsaco_paths = 0;
  tkrt_cli_args_t args;
  tkrt_cli_args_init(&args, argc, argv, "dump", options);
  for (int c; (c = tkrt_cli_args_next(&args)) != TKRT_CLI_ARG_END;) {
    switch (c) {
      case TKRT_CLI_ARG_BAD: return TKRT_CLI_USAGE;
      case 'h': fputs(kDumpUsage, stdout); return TKRT_CLI_OK;
      case OPT_JSON: json = 1; break;
      case OPT_READ_HSACO_PATHS: read_hsaco_paths = 1; break;
      case TKRT_CLI_ARG_OPERAND:
        if (path) {
          return tkrt_cli_usage_error("dump", "unexpected argument '%s' (the call is '%s')",
                                      args.value, path);
        }
        path = args.value;
        break;
      default: return tkrt_cli_usage_error("dump", "unexpected argument '%s'", args.name);
    }
  }
  if (!path) return tkrt_cli_usage_error("dump", "no call file given");
  tkrt_call_t* call = NULL;
  tkrt_status_t status = tkrt_cli_load_call(path, read_hsaco_paths, &call);
  if (status) return tkrt_cli_fail("dump", status);
  if (json) {
    dump_json(call);
  } else {
    dump_text(call);
  }
  tkrt_call_release(call);
  return TKRT_CLI_OK;
}
