/* tkrt info: the compiled-in backends with their availability and devices, or what a kernel
 * image is (kind, target, kernels). */
#include <stdlib.h>
#include <string.h>

#include "tools/tkrt_cli.h"

static const char kInfoUsage[] =
    "usage: tkrt info [--image FILE]\n"
    "\n"
    "Without options: every backend compiled into this tkrt, in selection order, whether it is\n"
    "available and why not, and for each device its name, arch, compute capability, SMs, warp\n"
    "size, memory, limits and features.\n"
    "--image FILE   describe a kernel image instead: its kind (ptx, cubin, fatbin, hsaco, host),\n"
    "               its target (e.g. sm_90a, gfx942:sramecc+:xnack-) and its kernels.\n";

static void print_features(uint32_t features) {
  static const struct {
    uint32_t bit;
    const char* name;
  } names[] = {{TKRT_DEVICE_FEATURE_CLUSTER, "cluster"},
               {TKRT_DEVICE_FEATURE_COOPERATIVE, "cooperative"},
               {TKRT_DEVICE_FEATURE_PDL, "pdl"},
               {TKRT_DEVICE_FEATURE_TMA, "tma"},
               {TKRT_DEVICE_FEATURE_GRAPHS, "graphs"}};
  int first = 1;
  for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); ++i) {
    if (features & names[i].bit) {
      printf("%s%s", first ? "" : ", ", names[i].name);
      first = 0;
    }
  }
  printf("%s\n", first ? "none" : "");
}

static int info_image(const char* path) {
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
    free(info);
    return tkrt_cli_fail("info", tkrt_status_annotate(status, "%s", path));
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

static int info_backends(void) {
  tkrt_backend_info_t backends[8];
  size_t count = 0;
  /* The environment's options (TKRT_BACKEND: the selection order listed first, TKRT_HIP_LIBRARY,
   * ...), as every command uses them. */
  tkrt_device_options_t env_options;
  tkrt_device_options_init(&env_options);
  tkrt_status_t status = tkrt_options_from_environment(&env_options, NULL);
  if (!status) status = tkrt_backend_list_with_options(&env_options, backends, 8, &count);
  if (status) return tkrt_cli_fail("info", status);
  printf("tkrt %s: %zu backend%s compiled in\n", TKRT_VERSION_STRING, count, count == 1 ? "" : "s");
  for (size_t b = 0; b < count && b < 8; ++b) {
    printf("\n%s: %s (%s)\n", backends[b].name, backends[b].available ? "available" : "unavailable",
           backends[b].reason);
    for (int ordinal = 0; ordinal < backends[b].device_count; ++ordinal) {
      tkrt_device_options_t options = env_options;
      options.backend = backends[b].name;
      options.ordinal = ordinal;
      tkrt_device_t* device = NULL;
      status = tkrt_device_open(&options, &device);
      if (status) {
        char* text = tkrt_status_to_string(status);
        printf("  device %d: cannot open: %s\n", ordinal, text ? text : "?");
        free(text);
        tkrt_status_free(status);
        continue;
      }
      const tkrt_device_info_t* info = tkrt_device_info(device);
      printf("  device %d: %s\n", ordinal, info->name);
      printf("    arch %s, compute capability %d.%d, %u SMs, warp size %u, driver %d\n", info->arch,
             info->cc_major, info->cc_minor, info->sm_count, info->warp_size,
             info->driver_version);
      printf("    memory %.1f GiB; shared memory per block %u B (opt-in %u B)\n",
             (double)info->total_memory / (1024.0 * 1024.0 * 1024.0), info->max_shared_per_block,
             info->max_shared_per_block_optin);
      printf("    max grid %u x %u x %u, max block %u threads, max cluster %u\n",
             info->max_grid_dim[0], info->max_grid_dim[1], info->max_grid_dim[2],
             info->max_threads_per_block, info->max_cluster_size);
      printf("    features: ");
      print_features(info->features);
      tkrt_device_release(device);
    }
  }
  return TKRT_CLI_OK;
}

int tkrt_cli_info(int argc, char** argv) {
  const char* image = NULL;
  for (int i = 1; i < argc; ++i) {
    if (strcmp(argv[i], "--help") == 0 || strcmp(argv[i], "-h") == 0) {
      fputs(kInfoUsage, stdout);
      return TKRT_CLI_OK;
    }
    if (strcmp(argv[i], "--image") == 0 && i + 1 < argc) {
      image = argv[++i];
    } else {
      return tkrt_cli_usage_error("info", "unexpected argument '%s'", argv[i]);
    }
  }
  return image ? info_image(image) : info_backends();
}
