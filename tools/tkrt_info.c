/* SPDX-License-Identifier: Apache-2.0 */
/* tkrt info: the backends tkrt knows with their availability and devices, or what a kernel
 * image is (kind, target, kernels). */
#include <stdlib.h>
#include <string.h>

#include "tkrt/triton.h"
#include "tools/tkrt_cli.h"

static const char kInfoUsage[] =
    "usage: tkrt info [--image FILE] [--json]\n"
    "\n"
    "Without options: every backend tkrt knows, in selection order (TKRT_BACKEND's backends\n"
    "first), whether it is available and why not, and for each device its name, arch, compute\n"
    "capability, SMs, warp size, memory, limits and features; then the Triton releases whose\n"
    "compile output tkrt reads and the jaxlib releases whose serialized calls it is tested with.\n"
    "--image FILE   describe a kernel image instead: its kind (ptx, cubin, fatbin, hsaco, host),\n"
    "               its target (e.g. sm_90a, gfx942:sramecc+:xnack-) and its kernels; a file that\n"
    "               is none of these (text, a library without tkrt host kernels) is \"not a\n"
    "               kernel image\" (exit 3).\n"
    "--json         the same as one JSON object: {\"version\", \"triton_releases\": [OLDEST,\n"
    "               NEWEST], \"jaxlib_tested\": [OLDEST, NEWEST], \"backends\": [{\"name\",\n"
    "               \"available\", \"reason\", \"device_count\", \"devices\": [{\"ordinal\", \"name\",\n"
    "               \"arch\", \"limits\": {...}, \"features\": [...]} or {\"ordinal\", \"error\"}]}]},\n"
    "               or with --image {\"path\", \"size\", \"kind\", \"arch\", \"target\", \"elf\",\n"
    "               \"kernel_count\", \"kernels\", ...}.\n"
    "`tkrt help triton` describes --image on Triton's compile output and --triton-cache.\n";

/* The oldest and newest jaxlib releases whose serialized calls the tests decode and run
 * (test/data/jaxlib-versions; docs/compatibility.md). */
static const char kJaxlibOldest[] = "0.4.31";
static const char kJaxlibNewest[] = "0.12.0.1";

static const struct {
  uint32_t bit;
  const char* name;
} kFeatureNames[] = {{TKRT_DEVICE_FEATURE_CLUSTER, "cluster"},
                     {TKRT_DEVICE_FEATURE_COOPERATIVE, "cooperative"},
                     {TKRT_DEVICE_FEATURE_PDL, "pdl"},
                     {TKRT_DEVICE_FEATURE_TMA, "tma"},
                     {TKRT_DEVICE_FEATURE_GRAPHS, "graphs"}};

/* "cluster, tma" as text, ["cluster", "tma"] as JSON. */
static void print_features(uint32_t features, int json) {
  int first = 1;
  if (json) putchar('[');
  for (size_t i = 0; i < sizeof(kFeatureNames) / sizeof(kFeatureNames[0]); ++i) {
    if (features & kFeatureNames[i].bit) {
      printf(json ? "%s\"%s\"" : "%s%s", first ? "" : ", ", kFeatureNames[i].name);
      first = 0;
    }
  }
  if (json) {
    putchar(']');
  } else {
    printf("%s\n", first ? "none" : "");
  }
}

static void print_image_json(const char* path, size_t size, const tkrt_image_info_t* info) {
  printf("{\n  \"path\": ");
  tkrt_cli_json_string(stdout, path);
  printf(",\n  \"size\": %zu,\n  \"kind\": \"%s\",\n  \"arch\": ", size,
         tkrt_image_kind_name(info->kind));
  tkrt_cli_json_string(stdout, info->arch);
  printf(",\n  \"target\": ");
  tkrt_cli_json_string(stdout, info->target);
  if (info->kind == TKRT_IMAGE_PTX) {
    printf(",\n  \"ptx_version\": [%u, %u]", info->ptx_version_major, info->ptx_version_minor);
  }
  if (info->kind == TKRT_IMAGE_PTX || info->kind == TKRT_IMAGE_CUBIN) {
    printf(",\n  \"sm\": %u", info->sm);
  }
  if (info->kind == TKRT_IMAGE_HSACO) {
    printf(",\n  \"code_object_version\": %u", info->code_object_version);
  }
  if (info->elf_machine) {
    printf(",\n  \"elf\": {\"machine\": %u, \"flags\": %u, \"osabi\": %u, \"abi_version\": %u}",
           info->elf_machine, info->elf_flags, info->elf_osabi, info->elf_abi_version);
  }
  if (info->kind == TKRT_IMAGE_FATBIN) {
    printf(",\n  \"fatbin_entry_count\": %zu,\n  \"fatbin_entries\": [", info->fatbin_entry_count);
    for (size_t i = 0; i < info->fatbin_entry_count && i < TKRT_IMAGE_FATBIN_ENTRIES_MAX; ++i) {
      printf("%s", i ? ", " : "");
      tkrt_cli_json_string(stdout, info->fatbin_entries[i]);
    }
    printf("]");
  }
  /* kernels lists the first TKRT_IMAGE_KERNELS_MAX names; kernel_count is the total. */
  printf(",\n  \"kernel_count\": %zu,\n  \"kernels\": [", info->kernel_count);
  for (size_t i = 0; i < info->kernel_count && i < TKRT_IMAGE_KERNELS_MAX; ++i) {
    printf("%s", i ? ", " : "");
    tkrt_cli_json_string(stdout, info->kernels[i]);
  }
  printf("]\n}\n");
}

static int info_image(const char* path, int json) {
  void* bytes = NULL;
  size_t size = 0;
  tkrt_status_t status = tkrt_cli_read_file(path, TKRT_WIRE_MAX_MESSAGE_SIZE, &bytes, &size);
  if (status) return tkrt_cli_fail("info", status);
  tkrt_image_info_t* info = malloc(sizeof(*info));
  if (!info) {
    free(bytes);
    return tkrt_cli_fail("info", TKRT_STATUS_MAKE(TKRT_STATUS_RESOURCE_EXHAUSTED, "out of memory"));
  }
  info->struct_size = sizeof(*info);
  status = tkrt_image_inspect(bytes, size, info);
  free(bytes);
  if (status) {
    /* What the inspector could not read (text that is not PTX, any other file) is no image. */
    free(info);
    return tkrt_cli_fail("info", tkrt_status_annotate(status, "%s: not a kernel image", path));
  }
  if (info->kind == TKRT_IMAGE_HOST && info->kernel_count == 0) {
    /* An ELF file without tkrt's kernel table: any library or program, not a host image. */
    tkrt_status_t wrong = TKRT_STATUS_MAKE(
        TKRT_STATUS_INVALID_ARGUMENT,
        "%s: not a kernel image: an ELF file (%s) that defines no tkrt host kernels (a host "
        "image defines them with TKRT_HOST_KERNEL, tkrt/host_kernel.h)",
        path, info->target[0] ? info->target : "native");
    free(info);
    return tkrt_cli_fail("info", wrong);
  }
  if (json) {
    print_image_json(path, size, info);
    free(info);
    return TKRT_CLI_OK;
  }
  printf("%s: %s image, %zu bytes\n", path, tkrt_image_kind_name(info->kind), size);
  printf("  target: %s\n", info->target[0] ? info->target : "(unknown)");
  if (info->kind == TKRT_IMAGE_PTX) {
    printf("  ptx version: %u.%u\n", info->ptx_version_major, info->ptx_version_minor);
  }
  if (info->kind == TKRT_IMAGE_HSACO) {
    printf("  code object version: %u\n", info->code_object_version);
  }
  if (info->elf_machine) {
    printf("  elf: machine %u, flags 0x%08x, osabi %u, abi version %u\n", info->elf_machine,
           info->elf_flags, info->elf_osabi, info->elf_abi_version);
  }
  for (size_t i = 0; i < info->fatbin_entry_count && i < TKRT_IMAGE_FATBIN_ENTRIES_MAX; ++i) {
    printf("  fatbin entry: %s\n", info->fatbin_entries[i]);
  }
  printf("  kernels (%zu):", info->kernel_count);
  for (size_t i = 0; i < info->kernel_count && i < TKRT_IMAGE_KERNELS_MAX; ++i) {
    printf(" %s", info->kernels[i]);
  }
  if (info->kernel_count > TKRT_IMAGE_KERNELS_MAX) printf(" ...");
  printf("\n");
  free(info);
  return TKRT_CLI_OK;
}

static void print_device_json(const tkrt_device_info_t* info) {
  printf("{\"ordinal\": %d, \"name\": ", info->ordinal);
  tkrt_cli_json_string(stdout, info->name);
  printf(", \"arch\": ");
  tkrt_cli_json_string(stdout, info->arch);
  printf(",\n         \"compute_capability\": [%d, %d], \"driver_version\": %d,\n", info->cc_major,
         info->cc_minor, info->driver_version);
  printf("         \"limits\": {\"sm_count\": %u, \"warp_size\": %u, \"max_threads_per_block\": %u, "
         "\"max_block_dim\": [%u, %u, %u], \"max_grid_dim\": [%u, %u, %u], "
         "\"max_shared_per_block\": %u, \"max_shared_per_block_optin\": %u, "
         "\"max_cluster_size\": %u, \"total_memory\": %llu},\n",
         info->sm_count, info->warp_size, info->max_threads_per_block, info->max_block_dim[0],
         info->max_block_dim[1], info->max_block_dim[2], info->max_grid_dim[0],
         info->max_grid_dim[1], info->max_grid_dim[2], info->max_shared_per_block,
         info->max_shared_per_block_optin, info->max_cluster_size,
         (unsigned long long)info->total_memory);
  printf("         \"features\": ");
  print_features(info->features, 1);
  printf("}");
}

static void print_device_text(const tkrt_device_info_t* info) {
  printf("  device %d: %s\n", info->ordinal, info->name);
  printf("    arch %s, compute capability %d.%d, %u SMs, warp size %u, driver %d\n", info->arch,
         info->cc_major, info->cc_minor, info->sm_count, info->warp_size, info->driver_version);
  printf("    memory %.1f GiB; shared memory per block %u B (opt-in %u B)\n",
         (double)info->total_memory / (1024.0 * 1024.0 * 1024.0), info->max_shared_per_block,
         info->max_shared_per_block_optin);
  printf("    max grid %u x %u x %u, max block %u threads, max cluster %u\n", info->max_grid_dim[0],
         info->max_grid_dim[1], info->max_grid_dim[2], info->max_threads_per_block,
         info->max_cluster_size);
  printf("    features: ");
  print_features(info->features, 0);
}

static int info_backends(int json) {
  tkrt_backend_info_t backends[8];
  size_t count = 0;
  /* The environment's options (TKRT_BACKEND: the selection order listed first, TKRT_HIP_LIBRARY,
   * ...), as every command uses them. */
  tkrt_device_options_t env_options;
  tkrt_device_options_init(&env_options);
  tkrt_status_t status = tkrt_options_from_environment(&env_options, NULL);
  if (!status) status = tkrt_backend_list_with_options(&env_options, backends, 8, &count);
  if (status && env_options.backend && *env_options.backend) {
    status = tkrt_status_annotate(status, "TKRT_BACKEND=%s", env_options.backend);
  }
  if (status) return tkrt_cli_fail("info", status);
  if (json) {
    printf("{\n  \"version\": \"%s\",\n  \"triton_releases\": [\"%s\", \"%s\"],\n"
           "  \"jaxlib_tested\": [\"%s\", \"%s\"],\n  \"backends\": [",
           TKRT_VERSION_STRING, TKRT_TRITON_OLDEST, TKRT_TRITON_NEWEST, kJaxlibOldest,
           kJaxlibNewest);
  } else {
    printf("tkrt %s: reads Triton %s to %s compile output; jaxlib calls tested from jaxlib %s to "
           "%s (docs/compatibility.md)\n",
           TKRT_VERSION_STRING, TKRT_TRITON_OLDEST, TKRT_TRITON_NEWEST, kJaxlibOldest,
           kJaxlibNewest);
    printf("%zu backend%s, in selection order\n", count, count == 1 ? "" : "s");
  }
  for (size_t b = 0; b < count && b < 8; ++b) {
    if (json) {
      printf("%s\n    {\"name\": ", b ? "," : "");
      tkrt_cli_json_string(stdout, backends[b].name);
      printf(", \"available\": %s, \"reason\": ", backends[b].available ? "true" : "false");
      tkrt_cli_json_string(stdout, backends[b].reason);
      printf(", \"device_count\": %d,\n     \"devices\": [", backends[b].device_count);
    } else {
      printf("\n%s: %s (%s)\n", backends[b].name,
             backends[b].available ? "available" : "unavailable", backends[b].reason);
    }
    for (int ordinal = 0; ordinal < backends[b].device_count; ++ordinal) {
      tkrt_device_options_t options = env_options;
      options.backend = backends[b].name;
      options.ordinal = ordinal;
      tkrt_device_t* device = NULL;
      status = tkrt_device_open(&options, &device);
      if (json && ordinal) printf(",");
      if (status) {
        char* text = tkrt_status_to_string(status);
        if (json) {
          printf("\n        {\"ordinal\": %d, \"error\": ", ordinal);
          tkrt_cli_json_string(stdout, text ? text : "out of memory");
          printf("}");
        } else {
          printf("  device %d: cannot open: ", ordinal);
          tkrt_cli_print_text(stdout, text ? text : "out of memory");
          printf("\n");
        }
        free(text);
        tkrt_status_free(status);
        continue;
      }
      if (json) {
        printf("\n        ");
        print_device_json(tkrt_device_info(device));
      } else {
        print_device_text(tkrt_device_info(device));
      }
      tkrt_device_release(device);
    }
    if (json) printf("]}");
  }
  if (json) printf("\n  ]\n}\n");
  return TKRT_CLI_OK;
}

enum { OPT_IMAGE = TKRT_CLI_OPTION_BASE, OPT_JSON };
static const struct option options[] = {
    {"help", no_argument, NULL, 'h'},
    {"image", required_argument, NULL, OPT_IMAGE},
    {"json", no_argument, NULL, OPT_JSON},
    {NULL, 0, NULL, 0},
};
const char* const tkrt_cli_info_usage = kInfoUsage;
const struct option* const tkrt_cli_info_options = options;

int tkrt_cli_info(int argc, char** argv) {
  const char* image = NULL;
  int json = 0;
  tkrt_cli_args_t args;
  tkrt_cli_args_init(&args, argc, argv, "info", options);
  for (int c; (c = tkrt_cli_args_next(&args)) != TKRT_CLI_ARG_END;) {
    switch (c) {
      case TKRT_CLI_ARG_BAD: return TKRT_CLI_USAGE;
      case 'h': fputs(kInfoUsage, stdout); return TKRT_CLI_OK;
      case OPT_IMAGE: image = args.value; break;
      case OPT_JSON: json = 1; break;
      case TKRT_CLI_ARG_OPERAND:
        return tkrt_cli_usage_error("info", "unexpected argument '%s' (an image is named with "
                                    "--image FILE)", args.value);
      default: return tkrt_cli_usage_error("info", "unexpected argument '%s'", args.name);
    }
  }
  return image ? info_image(image, json) : info_backends(json);
}
