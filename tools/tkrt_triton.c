/* SPDX-License-Identifier: Apache-2.0 */
/* tkrt command-line tool: info, run and tune on Triton's own compile output (a kernel's
 * <name>.json with its cubin / PTX / HSACO and TTIR), and listing Triton's cache. */
#include <limits.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <dirent.h>
#include <sys/stat.h>

#include "tools/tkrt_cli.h"
#include "tkrt/environment.h"
#include "tkrt/triton_bound.h"

#define TRITON_MAX_VARIANTS 32
#define TRITON_MAX_PATHS 8
#define TRITON_MAX_ARGS 128

/* Largest --arg @FILE / --expect file read (1 GiB): a buffer, read after its size is checked. */
#define TKRT_TRITON_CLI_MAX_FILE ((size_t)1 << 30)

/* --save NAME=FILE: FILE written atomically in its folder. */
static tkrt_status_t triton_save(const char* path, const void* data, size_t size) {
  const char* slash = strrchr(path, '/');
  if (!slash) return tkrt_cli_write_file(".", path, data, size);
  char dir[4096];
  size_t length = (size_t)(slash - path);
  if (length == 0) length = 1; /* "/name": the root folder */
  if (length >= sizeof(dir) || !slash[1]) {
    return TKRT_STATUS_MAKE(TKRT_STATUS_INVALID_ARGUMENT, "--save: '%s' is not a file name", path);
  }
  memcpy(dir, path, length);
  dir[length] = '\0';
  return tkrt_cli_write_file(dir, slash + 1, data, size);
}

static const char kTritonUsage[] =
    "Triton kernels: `tkrt info`, `tkrt run` and `tkrt tune` also take Triton's compile output\n"
    "(what triton.compile writes, or an entry of Triton's cache ~/.triton/cache/<hash>/): a\n"
    "<name>.json, its folder, or a folder of per-target folders (cuda_sm90/, hip_gfx942/, ...).\n"
    "\n"
    "usage: tkrt info --image KERNEL          describe the kernel: parameters, launch, targets\n"
    "       tkrt info --triton-cache [DIR] [--kernel NAME]   list the kernels in Triton's cache\n"
    "                                         (default: $TRITON_CACHE_DIR, else\n"
    "                                         $TRITON_HOME/.triton/cache or ~/.triton/cache)\n"
    "       tkrt run KERNEL [variant options] [KERNEL [variant options]]... [options]\n"
    "       tkrt tune KERNEL [variant options] KERNEL [variant options]... [options]\n"
    "\n"
    "Several KERNELs are variants (other constexprs, num_warps, num_stages) of one autotuned call.\n"
    "variant options (apply to the KERNEL before them):\n"
    "  --grid EXPR        the grid, e.g. 'cdiv(n, BLOCK)' or 'cdiv(M, BM), cdiv(N, BN)': up to three\n"
    "                     integer expressions with + - * / // % ( ) cdiv min max, literals and the\n"
    "                     names of integer scalars, --const names, num_warps, num_stages. A variant\n"
    "                     without --grid takes the previous one's; the first needs one.\n"
    "  --const K=V,...    the variant's constexpr values, for its grid expression\n"
    "  --also PATH        another target of the same variant (e.g. the hip_gfx942 folder)\n"
    "arguments:\n"
    "  --arg NAME=VALUE       a scalar parameter (integer, 0x-hex, or float)\n"
    "  --arg NAME=@FILE       a pointer parameter: a buffer holding FILE's bytes\n"
    "  --arg NAME=zeros:BYTES a pointer parameter: a zero-filled buffer of BYTES bytes\n"
    "  --arg NAME=zeros       a zero-filled buffer of as many elements as --min-elements says\n"
    "  --min-elements NAME=EXPR\n"
    "                         the elements the kernel reads or writes through pointer NAME: an\n"
    "                         expression of the integer scalars, as --grid (e.g. n, or M*K). tkrt\n"
    "                         cannot see a kernel's indexing: without this, a buffer is passed as\n"
    "                         given, and a kernel indexing past it reads or writes memory that is\n"
    "                         not its own (on the host backend, this process's). With it, a\n"
    "                         smaller buffer (zeros:BYTES, a short @FILE) is refused before\n"
    "                         anything runs\n"
    "  --arg NAME=@FILE --desc NAME=SHAPE[/STRIDES][:nan]\n"
    "                         a tensor descriptor parameter (Triton's host TensorDescriptor): the\n"
    "                         buffer as for a pointer, and the tensor's shape in elements,\n"
    "                         outermost first (e.g. 256x512), with strides in elements (e.g.\n"
    "                         /512,1; default contiguous; the innermost must be 1); :nan pads\n"
    "                         reads outside the tensor with NaN (padding=\"nan\"; default zeros).\n"
    "                         A kernel Triton lowered to TMA (tensordesc_meta) needs a device\n"
    "                         with TMA (CUDA, sm_90 and newer); one it did not (empty\n"
    "                         tensordesc_meta: descriptors passed decomposed) runs anywhere\n"
    "  --unsigned NAME        the integer scalar is read as unsigned: an i32 takes 0..2^32-1\n"
    "                         (default: -2^31..2^31-1, the values Triton compiles i32 for)\n"
    "  --inout NAME           the pointer parameter is read and written in place (saved and\n"
    "                         restored around autotuning)\n"
    "  --expect NAME=FILE     compare that buffer after the launch with FILE's bytes\n"
    "  --save NAME=FILE       write that buffer after the launch to FILE\n"
    "  --rtol R --atol A      compare as numbers of the pointer's element type (fp16, bf16, fp32,\n"
    "                         fp64) within |got-want| <= A + R*|want|; default: bit for bit\n"
    "options:\n"
    "  --image-kind K     take only images of kind K (cubin, ptx, hsaco, host; repeatable)\n"
    "  --allow-native-code  take the host image <name>.so beside a .json (native code, which runs\n"
    "                     on this CPU with your rights as soon as it loads); off by default, when\n"
    "                     it is left out: only for folders you trust as your own code\n"
    "                     (docs/security.md). `info --image` lists it without running it.\n"
    "  --backend B        cuda, hip, host or a comma list (default: TKRT_BACKEND, then cuda,hip,host)\n"
    "  --device N         device ordinal (default 0)\n"
    "  --iterations N     timed launches after the checked one (default 20 for run, 0 for tune)\n"
    "  --store DIR|off    tuning decision store (default: TKRT_TUNE_DIR, then ~/.cache/tkrt/tune)\n"
    "  --policy auto|never --pin N    as for serialized calls\n"
    "  --target-ms MS --max-iterations N   tuning effort (default 10 ms, 100)\n"
    "  --json             one JSON object on stdout, as for serialized calls (\"kernel\", \"device\",\n"
    "                     \"decision\", \"configs\", \"outputs\", \"timing\", \"result\")\n"
    "Every pointer and descriptor parameter needs an --arg (a descriptor a --desc too), every scalar\n"
    "one too. Launches go through the bound launch (tkrt/triton_bound.h), which checks every\n"
    "argument against the kernel's specialisations (tt.divisibility). `tkrt tune` benchmarks every\n"
    "variant (even with a stored decision) and stores the decision.\n"
    "exit status: 0 success (outputs as expected), 1 an output differs, 2 bad usage, 3 error.\n";

typedef struct triton_variant_opts {
  const char* paths[TRITON_MAX_PATHS];
  size_t path_count;
  const char* grid;
  const char* constants;
} triton_variant_opts_t;

typedef struct triton_named {
  const char* name; /* points into argv; ends at '=' */
  size_t name_length;
  const char* value;
} triton_named_t;

typedef struct triton_opts {
  const char* command;
  int tune;
  triton_variant_opts_t variants[TRITON_MAX_VARIANTS];
  size_t variant_count;
  triton_named_t args[TRITON_MAX_ARGS], expects[TRITON_MAX_ARGS], saves[TRITON_MAX_ARGS];
  size_t arg_count, expect_count, save_count;
  const char* inout[TRITON_MAX_ARGS];
  size_t inout_count;
  const char* unsigned_names[TRITON_MAX_ARGS]; /* --unsigned NAME */
  size_t unsigned_count;
  triton_named_t descs[TRITON_MAX_ARGS];
  size_t desc_count;
  triton_named_t mins[TRITON_MAX_ARGS]; /* --min-elements NAME=EXPR */
  size_t min_count;
  double rtol, atol;
  int tolerant;
  uint32_t image_kinds;
  int json; /* --json */
  tkrt_cli_session_options_t session; /* the options run and tune share with serialized calls */
} triton_opts_t;

/* getopt_long values of the Triton commands' options. */
enum {
  OPT_GRID = TKRT_CLI_OPTION_BASE,
  OPT_CONST,
  OPT_ALSO,
  OPT_ARG,
  OPT_EXPECT,
  OPT_SAVE,
  OPT_INOUT,
  OPT_RTOL,
  OPT_ATOL,
  OPT_IMAGE_KIND,
  OPT_IMAGE,
  OPT_TRITON_CACHE,
  OPT_KERNEL,
  OPT_JSON,
  OPT_DESC,
  OPT_MIN_ELEMENTS,
  OPT_UNSIGNED,
};

/* ---------------------------------------------------------------- recognising Triton paths */

static int ends_with(const char* text, const char* suffix) {
  size_t a = strlen(text), b = strlen(suffix);
  return a >= b && strcmp(text + a - b, suffix) == 0;
}

/* A regular file (a symbolic link is not followed: Triton writes plain files). */
static int is_regular_file(const char* path) {
  struct stat st;
  return lstat(path, &st) == 0 && S_ISREG(st.st_mode);
}

/* Triton's own compile output, recognised by Triton's files only: a regular file <stem>.json
 * with beside it a regular <stem>.cubin, .ptx, .hsaco, .ttir or .so (what Triton, or tkrt's
 * host-image build, writes for the same kernel). A case folder's case.json, a project's
 * CMakePresets.json or a folder named like a .json are not. */
static int is_triton_json(const char* path) {
  if (!ends_with(path, ".json") || !is_regular_file(path)) return 0;
  const char* slash = strrchr(path, '/');
  if (strcmp(slash ? slash + 1 : path, "case.json") == 0) return 0;
  static const char* const kinds[] = {".cubin", ".ptx", ".hsaco", ".ttir", ".so"};
  size_t stem = strlen(path) - 5;
  for (size_t i = 0; i < sizeof(kinds) / sizeof(kinds[0]); ++i) {
    char sibling[4200];
    if (stem + strlen(kinds[i]) >= sizeof(sibling)) return 0;
    memcpy(sibling, path, stem);
    strcpy(sibling + stem, kinds[i]);
    if (is_regular_file(sibling)) return 1;
  }
  return 0;
}

/* True when `dir` holds a Triton kernel's .json (is_triton_json), or one of its subfolders
 * does (Triton's per-target folders). */
static int holds_kernel_json(const char* dir, int depth) {
  DIR* folder = opendir(dir);
  if (!folder) return 0;
  int found = 0;
  for (struct dirent* entry; !found && (entry = readdir(folder));) {
    if (entry->d_name[0] == '.') continue;
    char path[4200];
    tkrt_cli_join_path(path, sizeof(path), dir, entry->d_name);
    if (ends_with(entry->d_name, ".json")) {
      found = is_triton_json(path);
    } else if (depth == 0 && tkrt_cli_is_directory(path)) {
      found = holds_kernel_json(path, 1);
    }
  }
  closedir(folder);
  return found;
}

/* A Triton output: a kernel's .json (is_triton_json), or a folder holding one (itself or in a
 * per-target subfolder) and no serialized call. Anything else goes to the serialized-call path,
 * which names what is missing. */
static int is_triton_path(const char* path) {
  if (is_triton_json(path)) return 1;
  if (!tkrt_cli_is_directory(path)) return 0;
  char probe[4200];
  struct stat st;
  tkrt_cli_join_path(probe, sizeof(probe), path, "call.pb.z");
  if (stat(probe, &st) == 0) return 0;
  tkrt_cli_join_path(probe, sizeof(probe), path, "call.pb");
  return stat(probe, &st) != 0 && holds_kernel_json(path, 0);
}

/* The value of --image (as `--image FILE` or `--image=FILE`) at argv[i], or NULL. */
static const char* image_value(int argc, char** argv, int i) {
  if (strcmp(argv[i], "--image") == 0) return i + 1 < argc ? argv[i + 1] : NULL;
  return strncmp(argv[i], "--image=", 8) == 0 ? argv[i] + 8 : NULL;
}

/* ---------------------------------------------------------------- info */


/* Whether the image is machine code for this process, as the backend that loads it says. */
static bool image_is_native_code(const tkrt_kernel_image_t* image) {
  tkrt_backend_description_t backend = {.struct_size = sizeof(backend)};
  if (tkrt_status_consume_code(tkrt_backend_describe(tkrt_kernel_image_backend(image), &backend))) {
    return false;
  }
  return (backend.native_code_kinds & (1u << image->kind)) != 0;
}

static void print_kernel(const tkrt_triton_kernel_t* k) {
  /* Every string here comes from the kernel's files (its .json, TTIR, image) or their names:
   * escaped (\xNN) as dump does, so that a file cannot send the terminal escape sequences. */
  const tkrt_kernel_desc_t* d = tkrt_kernel_get_desc(tkrt_triton_kernel_get(k));
  printf("Triton kernel %s\n", tkrt_cli_escaped(tkrt_triton_kernel_name(k)));
  static const char* const kHidden[] = {"the hidden global- and profile-scratch pointers",
                                        "the hidden global-scratch pointer",
                                        "no hidden pointers"};
  printf("  parameters (%zu, then %s):\n", tkrt_triton_kernel_param_count(k),
         kHidden[d->hidden_pointers <= TKRT_HIDDEN_POINTERS_NONE ? d->hidden_pointers : 0]);
  for (size_t i = 0; i < tkrt_triton_kernel_param_count(k); ++i) {
    const tkrt_triton_param_t* p = tkrt_triton_kernel_param(k, i);
    printf("    %zu %s: %s", i, tkrt_cli_escaped(p->name), tkrt_cli_escaped(p->type));
    if (p->divisibility) printf(" (divisibility %u)", p->divisibility);
    printf("\n");
  }
  printf("  launch: num_warps %u, num_ctas %u", d->num_warps, d->num_ctas ? d->num_ctas : 1);
  if (d->cluster_dims[0]) {
    printf(", cluster %u x %u x %u", d->cluster_dims[0], d->cluster_dims[1], d->cluster_dims[2]);
  }
  printf(", global scratch %u bytes per program (align %u)%s%s\n", d->global_scratch_size,
         d->global_scratch_align, d->launch_flags & TKRT_LAUNCH_COOPERATIVE ? ", cooperative" : "",
         d->launch_flags & TKRT_LAUNCH_PDL ? ", pdl" : "");
  for (size_t t = 0; t < tkrt_triton_kernel_target_count(k); ++t) {
    const tkrt_triton_target_t* target = tkrt_triton_kernel_target(k, t);
    printf("  target %s %s: warp size %u (block %u threads), shared %u bytes, num_stages %u, "
           "triton %s%s\n",
           tkrt_cli_escaped(target->backend), tkrt_cli_escaped(target->arch), target->warp_size,
           target->warp_size * d->num_warps, target->shared_mem_bytes, target->num_stages,
           target->triton_version[0]   ? tkrt_cli_escaped(target->triton_version)
           : target->triton_release[0] ? target->triton_release
                                       : "?",
           target->triton_version[0] || !target->triton_release[0]
               ? ""
               : " (no triton_version field: recognised by its fields)");
    printf("    from %s", tkrt_cli_escaped(target->json_path));
    if (target->hash[0]) {
      char hash[17];
      snprintf(hash, sizeof(hash), "%s", target->hash);
      printf(" (hash %s...)", tkrt_cli_escaped(hash));
    }
    printf("\n");
  }
  for (size_t i = 0; i < d->image_count; ++i) {
    const tkrt_kernel_image_t* image = &d->images[i];
    printf("  image %zu: %s %s%s%s, %zu bytes%s\n", i, tkrt_kernel_image_backend(image),
           tkrt_image_kind_name(image->kind), image->arch ? " for " : "",
           image->arch ? tkrt_cli_escaped(image->arch) : "", image->size,
           image_is_native_code(image)
               ? " (native code: run and tune take it only with --allow-native-code)"
               : "");
  }
}

/* One cache entry: its kernel's name and its .json's path, escaped (a cache is shared data:
 * its folder and file names are not the user's to trust). */
static bool print_cache_entry(const char* json_path, const char* name, void* user) {
  size_t* count = user;
  printf("%s  %s\n", tkrt_cli_escaped(name), tkrt_cli_escaped(json_path));
  ++*count;
  return true;
}

static const struct option kTritonInfoOptions[] = {
    {"help", no_argument, NULL, 'h'},
    {"image", required_argument, NULL, OPT_IMAGE},
    {"triton-cache", no_argument, NULL, OPT_TRITON_CACHE},
    {"kernel", required_argument, NULL, OPT_KERNEL},
    {"json", no_argument, NULL, OPT_JSON},
    {NULL, 0, NULL, 0},
};

static int triton_info(int argc, char** argv) {
  const struct option* options = kTritonInfoOptions;
  const char* image = NULL;
  const char* cache = NULL;
  const char* kernel = NULL;
  int list_cache = 0;
  tkrt_cli_args_t args;
  tkrt_cli_args_init(&args, argc, argv, "info", options);
  for (int c; (c = tkrt_cli_args_next(&args)) != TKRT_CLI_ARG_END;) {
    switch (c) {
      case TKRT_CLI_ARG_BAD: return TKRT_CLI_USAGE;
      case 'h': fputs(kTritonUsage, stdout); return TKRT_CLI_OK;
      case OPT_IMAGE: image = args.value; break;
      case OPT_KERNEL: kernel = args.value; break;
      case OPT_TRITON_CACHE: list_cache = 1; break;
      case OPT_JSON:
        return tkrt_cli_usage_error("info", "--json describes backends and image files; a Triton "
                                    "kernel (--image on its .json or folder) and --triton-cache "
                                    "print as text");
      case TKRT_CLI_ARG_OPERAND:
        /* --triton-cache [DIR]: the folder is the operand right after it. */
        if (list_cache && !cache && strcmp(argv[optind - 1], args.value) == 0 &&
            strcmp(argv[optind - 2], "--triton-cache") == 0) {
          cache = args.value;
          break;
        }
        return tkrt_cli_usage_error("info", "unexpected argument '%s'", args.value);
      default: return tkrt_cli_usage_error("info", "unexpected argument '%s'", args.name);
    }
  }
  if (list_cache) {
    size_t count = 0;
    tkrt_status_t status = tkrt_triton_cache_scan(cache, kernel, print_cache_entry, &count);
    if (status) return tkrt_cli_fail("info", status);
    printf("%zu kernel%s\n", count, count == 1 ? "" : "s");
    return TKRT_CLI_OK;
  }
  /* `info` reads the images' bytes and never loads or runs them, so it lists a host image too
   * (print_kernel says that run and tune take it only with --allow-native-code). */
  tkrt_triton_load_options_t load;
  tkrt_triton_load_options_init(&load);
  load.allow_native_code = true;
  tkrt_triton_kernel_t* k = NULL;
  tkrt_status_t status = tkrt_triton_kernel_load(&image, 1, &load, &k);
  if (status && tkrt_status_code(status) == TKRT_STATUS_NOT_FOUND &&
      tkrt_cli_is_directory(image)) {
    /* Neither an image file nor a Triton kernel: the folder itself is the wrong argument. */
    tkrt_status_t wrong = TKRT_STATUS_MAKE(TKRT_STATUS_INVALID_ARGUMENT,
                                           "--image %s is a folder, not an image file: %s", image,
                                           tkrt_status_message(status));
    tkrt_status_free(status);
    status = wrong;
  }
  if (status) return tkrt_cli_fail("info", status);
  print_kernel(k);
  tkrt_triton_kernel_release(k);
  return TKRT_CLI_OK;
}

/* ---------------------------------------------------------------- run and tune: options */

static int parse_named(const char* command, const char* option, const char* text,
                       triton_named_t* out) {
  const char* eq = strchr(text, '=');
  if (!eq || eq == text || !eq[1]) {
    return tkrt_cli_usage_error(command, "%s '%s': expected NAME=VALUE", option, text);
  }
  out->name = text;
  out->name_length = (size_t)(eq - text);
  out->value = eq + 1;
  return 0;
}

/* The loader's answer: the kinds Triton writes for some backend. */
static tkrt_status_t parse_kind(const char* text, uint32_t* kinds) {
  tkrt_image_kind_t kind;
  TKRT_RETURN_IF_ERROR(tkrt_triton_image_kind_from_name(text, &kind));
  *kinds |= 1u << kind;
  return NULL;
}

static const struct option kTritonRunOptions[] = {
    {"help", no_argument, NULL, 'h'},
    {"grid", required_argument, NULL, OPT_GRID},
    {"const", required_argument, NULL, OPT_CONST},
    {"also", required_argument, NULL, OPT_ALSO},
    {"arg", required_argument, NULL, OPT_ARG},
    {"expect", required_argument, NULL, OPT_EXPECT},
    {"save", required_argument, NULL, OPT_SAVE},
    {"inout", required_argument, NULL, OPT_INOUT},
    {"desc", required_argument, NULL, OPT_DESC},
    {"min-elements", required_argument, NULL, OPT_MIN_ELEMENTS},
    {"unsigned", required_argument, NULL, OPT_UNSIGNED},
    {"rtol", required_argument, NULL, OPT_RTOL},
    {"atol", required_argument, NULL, OPT_ATOL},
    {"target-ms", required_argument, NULL, TKRT_CLI_OPT_TARGET_MS},
    {"device", required_argument, NULL, TKRT_CLI_OPT_DEVICE},
    {"iterations", required_argument, NULL, TKRT_CLI_OPT_ITERATIONS},
    {"pin", required_argument, NULL, TKRT_CLI_OPT_PIN},
    {"max-iterations", required_argument, NULL, TKRT_CLI_OPT_MAX_ITERATIONS},
    {"backend", required_argument, NULL, TKRT_CLI_OPT_BACKEND},
    {"store", required_argument, NULL, TKRT_CLI_OPT_STORE},
    {"policy", required_argument, NULL, TKRT_CLI_OPT_POLICY},
    {"image-kind", required_argument, NULL, OPT_IMAGE_KIND},
    {"allow-native-code", no_argument, NULL, TKRT_CLI_OPT_ALLOW_NATIVE_CODE},
    {"json", no_argument, NULL, OPT_JSON},
    {NULL, 0, NULL, 0},
};

const char* const tkrt_cli_triton_usage = kTritonUsage;
const struct option* const tkrt_cli_triton_run_options = kTritonRunOptions;
const struct option* const tkrt_cli_triton_info_options = kTritonInfoOptions;

static int parse_options(int argc, char** argv, triton_opts_t* o) {
  tkrt_cli_args_t args;
  tkrt_cli_args_init(&args, argc, argv, o->command, kTritonRunOptions);
  for (int c; (c = tkrt_cli_args_next(&args)) != TKRT_CLI_ARG_END;) {
    const char* a = args.name;
    const char* next = args.value;
    triton_variant_opts_t* current = o->variant_count ? &o->variants[o->variant_count - 1] : NULL;
    switch (c) {
      case TKRT_CLI_ARG_BAD:
        return TKRT_CLI_USAGE;
      case 'h':
        fputs(kTritonUsage, stdout);
        return -1;
      case TKRT_CLI_ARG_OPERAND: {
        if (o->variant_count == TRITON_MAX_VARIANTS) {
          return tkrt_cli_usage_error(o->command, "more than %d variants", TRITON_MAX_VARIANTS);
        }
        triton_variant_opts_t* v = &o->variants[o->variant_count++];
        v->paths[v->path_count++] = next;
        break;
      }
      case OPT_GRID:
      case OPT_CONST:
      case OPT_ALSO:
        if (!current) {
          return tkrt_cli_usage_error(o->command, "%s must follow the kernel it applies to", a);
        }
        if (c == OPT_GRID) {
          current->grid = next;
        } else if (c == OPT_CONST) {
          current->constants = next;
        } else if (current->path_count == TRITON_MAX_PATHS) {
          return tkrt_cli_usage_error(o->command, "too many --also");
        } else {
          current->paths[current->path_count++] = next;
        }
        break;
      case OPT_ARG:
      case OPT_EXPECT:
      case OPT_SAVE:
      case OPT_DESC:
      case OPT_MIN_ELEMENTS: {
        size_t* count = c == OPT_ARG      ? &o->arg_count
                        : c == OPT_EXPECT ? &o->expect_count
                        : c == OPT_SAVE   ? &o->save_count
                        : c == OPT_DESC   ? &o->desc_count
                                          : &o->min_count;
        triton_named_t* list = c == OPT_ARG      ? o->args
                               : c == OPT_EXPECT ? o->expects
                               : c == OPT_SAVE   ? o->saves
                               : c == OPT_DESC   ? o->descs
                                                 : o->mins;
        if (*count == TRITON_MAX_ARGS) return tkrt_cli_usage_error(o->command, "too many %s", a);
        int rc = parse_named(o->command, a, next, &list[*count]);
        if (rc) return rc;
        ++*count;
        break;
      }
      case OPT_INOUT:
        if (o->inout_count == TRITON_MAX_ARGS) return tkrt_cli_usage_error(o->command, "too many --inout");
        o->inout[o->inout_count++] = next;
        break;
      case OPT_UNSIGNED:
        if (o->unsigned_count == TRITON_MAX_ARGS) {
          return tkrt_cli_usage_error(o->command, "too many --unsigned");
        }
        o->unsigned_names[o->unsigned_count++] = next;
        break;
      case OPT_RTOL:
      case OPT_ATOL: {
        char* end = NULL;
        double value = strtod(next, &end);
        if (!*next || *end || !(value >= 0) || value > 1e300) {
          return tkrt_cli_usage_error(o->command, "bad %s '%s'", a, next);
        }
        if (c == OPT_RTOL) o->rtol = value, o->tolerant = 1;
        else o->atol = value, o->tolerant = 1;
        break;
      }
      case OPT_JSON:
        o->json = 1;
        break;
      case OPT_IMAGE_KIND: {
        tkrt_status_t kind_status = parse_kind(next, &o->image_kinds);
        if (kind_status) {
          int rc = tkrt_cli_usage_error(o->command, "--image-kind: %s",
                                        tkrt_status_message(kind_status));
          tkrt_status_free(kind_status);
          return rc;
        }
        break;
      }
      default: {
        int rc = tkrt_cli_session_option(o->command, c, a, next, &o->session);
        if (rc) return rc;
        break;
      }
    }
  }
  if (o->variant_count == 0) return tkrt_cli_usage_error(o->command, "no kernel given");
  if (!o->variants[0].grid) {
    return tkrt_cli_usage_error(o->command,
                                "the first kernel needs --grid (e.g. --grid 'cdiv(n, BLOCK)'): %s "
                                "is taken as Triton compile output%s",
                                o->variants[0].paths[0],
                                tkrt_cli_is_directory(o->variants[0].paths[0])
                                    ? " (a folder with a .json and no call.pb.z or call.pb)"
                                    : "");
  }
  for (size_t v = 1; v < o->variant_count; ++v) {
    if (!o->variants[v].grid) o->variants[v].grid = o->variants[v - 1].grid;
  }
  return 0;
}

/* ---------------------------------------------------------------- run and tune: comparing */

static double half_to_double(uint16_t h) {
  int exponent = (h >> 10) & 0x1F;
  int mantissa = h & 0x3FF;
  double value = exponent == 0    ? ldexp(mantissa, -24)
                 : exponent == 31 ? (mantissa ? NAN : INFINITY)
                                  : ldexp(mantissa + 1024, exponent - 25);
  return h & 0x8000 ? -value : value;
}

static double element(const unsigned char* p, const char* type, size_t index) {
  if (strcmp(type, "*fp16") == 0) {
    uint16_t h;
    memcpy(&h, p + index * 2, 2);
    return half_to_double(h);
  }
  if (strcmp(type, "*bf16") == 0) {
    uint32_t bits = 0;
    memcpy((unsigned char*)&bits + 2, p + index * 2, 2);
    float f;
    memcpy(&f, &bits, 4);
    return f;
  }
  if (strcmp(type, "*fp64") == 0) {
    double d;
    memcpy(&d, p + index * 8, 8);
    return d;
  }
  float f;
  memcpy(&f, p + index * 4, 4);
  return f;
}

/* Returns 1 when the buffer matches (printing how), 0 on a mismatch. */
static int compare(const triton_opts_t* o, const tkrt_triton_param_t* p, const unsigned char* got,
                   const unsigned char* want, size_t size) {
  if (!o->tolerant) {
    size_t first = size;
    size_t differ = 0;
    for (size_t i = 0; i < size; ++i) {
      if (got[i] != want[i]) {
        if (first == size) first = i;
        ++differ;
      }
    }
    if (!differ) {
      printf("%s: matches bit for bit (%zu bytes)\n", p->name, size);
      return 1;
    }
    printf("%s: MISMATCH: %zu of %zu bytes differ, the first at byte %zu\n", p->name, differ, size,
           first);
    return 0;
  }
  static const char* const known[] = {"*fp16", "*bf16", "*fp32", "*fp64"};
  int ok_type = 0;
  for (size_t i = 0; i < 4; ++i) ok_type |= strcmp(p->type, known[i]) == 0;
  if (!ok_type || !p->element_bytes) {
    printf("%s: cannot compare %s with a tolerance; comparing bit for bit\n", p->name, p->type);
    triton_opts_t exact = *o;
    exact.tolerant = 0;
    return compare(&exact, p, got, want, size);
  }
  size_t count = size / p->element_bytes;
  size_t bad = 0, worst_at = 0;
  double worst = 0;
  for (size_t i = 0; i < count; ++i) {
    double g = element(got, p->type, i), w = element(want, p->type, i);
    double error = fabs(g - w);
    int fine = error <= o->atol + o->rtol * fabs(w) || (isnan(g) && isnan(w));
    if (!fine) {
      if (error > worst || isnan(error)) worst = error, worst_at = i;
      ++bad;
    }
  }
  printf("%s: %s: %zu of %zu %s elements outside the tolerance", p->name,
         bad ? "MISMATCH" : "within tolerance", bad, count, p->type + 1);
  if (bad) printf(" (worst at %zu: error %g)", worst_at, worst);
  printf("\n");
  return bad == 0;
}

/* ---------------------------------------------------------------- run and tune */

typedef struct triton_session {
  tkrt_triton_kernel_t* kernels[TRITON_MAX_VARIANTS];
  tkrt_call_t* call;
  tkrt_runtime_t* runtime;  /* the command's: settings, device and tuner */
  tkrt_device_t* device;    /* the runtime's */
  tkrt_autotuner_t* tuner;  /* the runtime's */
  tkrt_triton_bound_t* bound; /* what launches */
  tkrt_triton_arg_t* args;    /* one per parameter */
  size_t arg_count;
  /* One buffer per pointer or descriptor parameter, in order. */
  tkrt_buffer_t* buffers;
  const tkrt_triton_param_t** pointer_params;
  size_t pointer_count;
  uint64_t* min_bytes; /* per parameter: what --min-elements asks for (0: nothing) */
} triton_session_t;

static void session_close(triton_session_t* s) {
  for (size_t i = 0; s->buffers && i < s->pointer_count; ++i) {
    if (s->buffers[i].ptr) tkrt_status_free(tkrt_memory_free(s->device, s->buffers[i].ptr));
  }
  free(s->buffers);
  free(s->pointer_params);
  free(s->min_bytes);
  free(s->args);
  tkrt_triton_bound_destroy(s->bound);
  tkrt_call_release(s->call);
  for (size_t i = 0; i < TRITON_MAX_VARIANTS; ++i) tkrt_triton_kernel_release(s->kernels[i]);
  tkrt_runtime_release(s->runtime); /* its device and tuner */
}

static const triton_named_t* find_named(const triton_named_t* list, size_t count, const char* name) {
  for (size_t i = 0; i < count; ++i) {
    if (strlen(name) == list[i].name_length && strncmp(list[i].name, name, list[i].name_length) == 0) {
      return &list[i];
    }
  }
  return NULL;
}

/* Every --arg / --expect / --save / --desc / --min-elements names a parameter of the right kind. */
static tkrt_status_t check_names(const triton_opts_t* o, const tkrt_triton_kernel_t* k) {
  const triton_named_t* lists[] = {o->args, o->expects, o->saves, o->descs, o->mins};
  const size_t counts[] = {o->arg_count, o->expect_count, o->save_count, o->desc_count,
                           o->min_count};
  static const char* const options[] = {"--arg", "--expect", "--save", "--desc", "--min-elements"};
  for (int l = 0; l < 5; ++l) {
    for (size_t i = 0; i < counts[l]; ++i) {
      char name[256];
      snprintf(name, sizeof(name), "%.*s", (int)lists[l][i].name_length, lists[l][i].name);
      long index = tkrt_triton_kernel_find_param(k, name);
      if (index < 0) {
        return TKRT_STATUS_MAKE(TKRT_STATUS_INVALID_ARGUMENT,
                                "%s %s: kernel '%s' has no parameter '%s' (see `tkrt info --image`)",
                                options[l], lists[l][i].name, tkrt_triton_kernel_name(k), name);
      }
      const tkrt_triton_param_t* p = tkrt_triton_kernel_param(k, (size_t)index);
      if (l == 3 && p->kind != TKRT_PARAM_TMA) {
        return TKRT_STATUS_MAKE(TKRT_STATUS_INVALID_ARGUMENT,
                                "%s %s: '%s' is %s, not a tensor descriptor", options[l],
                                lists[l][i].name, name, p->type);
      }
      if (l == 4 && !p->is_pointer) {
        return TKRT_STATUS_MAKE(TKRT_STATUS_INVALID_ARGUMENT,
                                "%s %s: '%s' is %s, not a pointer (a descriptor's --desc shape "
                                "says what it spans)",
                                options[l], lists[l][i].name, name, p->type);
      }
      if (l > 0 && !p->is_pointer && p->kind != TKRT_PARAM_TMA) {
        return TKRT_STATUS_MAKE(TKRT_STATUS_INVALID_ARGUMENT, "%s %s: '%s' is a scalar, not a buffer",
                                options[l], lists[l][i].name, name);
      }
      if (find_named(lists[l], i, name)) {
        return TKRT_STATUS_MAKE(TKRT_STATUS_INVALID_ARGUMENT, "%s %s: '%s' is given twice",
                                options[l], lists[l][i].name, name);
      }
    }
  }
  return NULL;
}

/* On the host backend, a kernel whose host image was left out for want of consent would fail as
 * "no image for this device"; say why instead, before anything is allocated or launched. */
static tkrt_status_t native_code_left_out(const tkrt_triton_kernel_t* k, tkrt_device_t* device) {
  /* Only a device whose backend loads native code (the host's) misses such an image. */
  tkrt_backend_description_t backend = {.struct_size = sizeof(backend)};
  if (tkrt_status_consume_code(tkrt_backend_describe(tkrt_device_backend_name(device), &backend)) ||
      !backend.native_code_kinds) {
    return NULL;
  }
  const tkrt_kernel_desc_t* d = tkrt_kernel_get_desc(tkrt_triton_kernel_get(k));
  for (size_t i = 0; i < d->image_count; ++i) {
    if (backend.image_kinds & (1u << d->images[i].kind)) return NULL;
  }
  for (size_t t = 0; t < tkrt_triton_kernel_target_count(k); ++t) {
    const char* left_out = tkrt_triton_kernel_target(k, t)->native_code_left_out;
    if (left_out) {
      return TKRT_STATUS_MAKE(TKRT_STATUS_PERMISSION_DENIED,
                              "kernel '%s' has no image for the host backend but %s, a host image "
                              "(native code, which would run in this process with your rights), "
                              "left out without consent: add --allow-native-code if you trust it "
                              "as your own code (docs/security.md)",
                              tkrt_triton_kernel_name(k), left_out);
    }
  }
  return NULL;
}

/* --desc NAME=SHAPE[/STRIDES][:nan] for descriptor parameter `p` (index i): "256x512" or
 * "256x512/512,1", in elements; strides default to contiguous; ":nan" (or ":zero", the default)
 * the padding. */
static tkrt_status_t parse_desc(const triton_opts_t* o, const tkrt_triton_param_t* p, size_t i,
                                tkrt_triton_arg_t* out) {
  const triton_named_t* desc = find_named(o->descs, o->desc_count, p->name);
  if (!desc) {
    return TKRT_STATUS_MAKE(TKRT_STATUS_INVALID_ARGUMENT,
                            "parameter %zu '%s' (%s) is a tensor descriptor: add --desc %s=SHAPE "
                            "(the tensor's shape in elements, e.g. --desc %s=%s)",
                            i, p->name, p->type, p->name, p->name,
                            p->desc_rank == 1 ? "4096" : p->desc_rank == 2 ? "256x256" : "8x256x256");
  }
  const char* text = desc->value;
  const char* at = text;
  uint32_t padding_nan = 0;
  const char* colon = strchr(text, ':');
  char shape_text[256];
  if (colon) {
    if (strcmp(colon + 1, "nan") != 0 && strcmp(colon + 1, "zero") != 0) {
      return TKRT_STATUS_MAKE(TKRT_STATUS_INVALID_ARGUMENT,
                              "--desc %s: padding '%s' is not nan or zero", desc->name, colon + 1);
    }
    padding_nan = strcmp(colon + 1, "nan") == 0;
    snprintf(shape_text, sizeof(shape_text), "%.*s", (int)(colon - text), text);
    at = (size_t)(colon - text) < sizeof(shape_text) ? shape_text : "!"; /* too long: refused */
  }
  uint32_t rank = 0, strides = 0;
  bool slash = false; /* a '/' was given: then strides must follow it */
  int64_t shape[TKRT_TMA_MAX_RANK] = {0}, stride[TKRT_TMA_MAX_RANK] = {0};
  for (int part = 0; part < 2; ++part) {
    char separator = part == 0 ? 'x' : ',';
    for (;;) {
      char* end = NULL;
      if (*at < '0' || *at > '9') break;
      unsigned long long value = strtoull(at, &end, 10);
      uint32_t* n = part == 0 ? &rank : &strides;
      if (value == 0 || value > INT64_MAX || *n == TKRT_TMA_MAX_RANK) {
        *n = TKRT_TMA_MAX_RANK + 1;
        break;
      }
      (part == 0 ? shape : stride)[(*n)++] = (int64_t)value;
      at = end;
      if (*at != separator) break;
      ++at;
      if (*at < '0' || *at > '9') {
        *n = TKRT_TMA_MAX_RANK + 1; /* a separator with no number after it */
        break;
      }
    }
    if (part == 0 && *at == '/') {
      ++at;
      slash = true;
      continue;
    }
    break;
  }
  if (*at || rank == 0 || rank > TKRT_TMA_MAX_RANK || (strides && strides != rank) ||
      strides > TKRT_TMA_MAX_RANK || (slash && !strides)) {
    return TKRT_STATUS_MAKE(TKRT_STATUS_INVALID_ARGUMENT,
                            "--desc %s: expected SHAPE[/STRIDES][:nan], e.g. 256x512 or "
                            "256x512/512,1 (1 to %d positive integers, as many strides as "
                            "dimensions)",
                            desc->name, TKRT_TMA_MAX_RANK);
  }
  if (rank != p->desc_rank) {
    return TKRT_STATUS_MAKE(TKRT_STATUS_INVALID_ARGUMENT,
                            "--desc %s: %u dimensions, but '%s' (%s) has %u", desc->name, rank,
                            p->name, p->type, p->desc_rank);
  }
  if (!strides) {
    stride[rank - 1] = 1;
    for (uint32_t d = rank - 1; d-- > 0;) {
      if (__builtin_mul_overflow(stride[d + 1], shape[d + 1], &stride[d])) {
        return TKRT_STATUS_MAKE(TKRT_STATUS_INVALID_ARGUMENT, "--desc %s: the shape is too large",
                                desc->name);
      }
    }
  }
  out->kind = TKRT_TRITON_ARG_DESCRIPTOR;
  out->rank = rank;
  memcpy(out->shape, shape, sizeof(shape));
  memcpy(out->strides, stride, sizeof(stride));
  out->padding_nan = padding_nan;
  return NULL;
}

static tkrt_status_t session_open(const triton_opts_t* o, triton_session_t* s, int* usage) {
  tkrt_triton_load_options_t load;
  tkrt_triton_load_options_init(&load);
  load.image_kinds = o->image_kinds;
  load.allow_native_code = o->session.allow_native_code != 0;
  tkrt_triton_variant_t variants[TRITON_MAX_VARIANTS];
  for (size_t v = 0; v < o->variant_count; ++v) {
    const triton_variant_opts_t* vo = &o->variants[v];
    TKRT_RETURN_IF_ERROR(tkrt_triton_kernel_load(vo->paths, vo->path_count, &load, &s->kernels[v]));
    variants[v] = (tkrt_triton_variant_t){s->kernels[v], vo->grid, {0, 0, 0}, vo->constants, NULL};
  }
  const tkrt_triton_kernel_t* k = s->kernels[0];
  /* From here to the device, what fails is what the flags say (--arg, --grid, --const, ...): a
   * usage mistake (exit 2), as the parser's own are. */
  *usage = 1;
  TKRT_RETURN_IF_ERROR(check_names(o, k));

  /* Scalars from --arg; pointers are checked to have one below. */
  tkrt_triton_scalar_t scalars[TRITON_MAX_ARGS];
  size_t scalar_count = 0;
  for (size_t i = 0; i < o->arg_count; ++i) {
    char name[256];
    snprintf(name, sizeof(name), "%.*s", (int)o->args[i].name_length, o->args[i].name);
    const tkrt_triton_param_t* p = tkrt_triton_kernel_param(k, (size_t)tkrt_triton_kernel_find_param(k, name));
    if (p->is_pointer || p->kind == TKRT_PARAM_TMA) continue;
    size_t length = 0;
    TKRT_RETURN_IF_ERROR(tkrt_status_annotate(
        tkrt_triton_scalar_parse(o->args[i].name, &scalars[scalar_count], &length), "--arg"));
    scalars[scalar_count].name = tkrt_triton_kernel_param(k, (size_t)tkrt_triton_kernel_find_param(k, name))->name;
    scalar_count++;
  }
  tkrt_triton_call_desc_t desc;
  tkrt_triton_call_desc_init(&desc);
  desc.variants = variants;
  desc.variant_count = o->variant_count;
  desc.scalars = scalars;
  desc.scalar_count = scalar_count;
  desc.inout = o->inout;
  desc.inout_count = o->inout_count;
  desc.unsigned_scalars = o->unsigned_names;
  desc.unsigned_scalar_count = o->unsigned_count;
  tkrt_status_t created = tkrt_triton_call_create(&desc, &s->call);
  if (created && tkrt_status_code(created) != TKRT_STATUS_INVALID_ARGUMENT) *usage = 0;
  TKRT_RETURN_IF_ERROR(created);
  /* Every pointer parameter has an --arg, of the right form; every descriptor a --desc too. */
  size_t count = tkrt_triton_kernel_param_count(k);
  s->args = calloc(count ? count : 1, sizeof(*s->args));
  if (!s->args) return TKRT_STATUS_MAKE(TKRT_STATUS_RESOURCE_EXHAUSTED, "out of memory");
  s->arg_count = count;
  for (size_t i = 0; i < count; ++i) {
    const tkrt_triton_param_t* p = tkrt_triton_kernel_param(k, i);
    const triton_named_t* arg = find_named(o->args, o->arg_count, p->name);
    int buffer = p->is_pointer || p->kind == TKRT_PARAM_TMA;
    if (!arg) {
      return TKRT_STATUS_MAKE(TKRT_STATUS_INVALID_ARGUMENT,
                              "parameter %zu '%s' (%s) has no value: add --arg %s=%s", i, p->name,
                              p->type, p->name, buffer ? "@FILE (or zeros:BYTES)" : "VALUE");
    }
    s->args[i].kind = TKRT_TRITON_ARG_DEFAULT; /* scalars: the call's value (from --arg) */
    if (p->kind == TKRT_PARAM_TMA) {
      TKRT_RETURN_IF_ERROR(parse_desc(o, p, i, &s->args[i]));
    }
    if (!buffer) continue;
    if (strcmp(arg->value, "zeros") == 0) {
      if (!find_named(o->mins, o->min_count, p->name)) {
        return TKRT_STATUS_MAKE(TKRT_STATUS_INVALID_ARGUMENT,
                                "--arg %s: zeros without :BYTES takes its size from "
                                "--min-elements %s=EXPR, which is not given",
                                arg->name, p->name);
      }
      continue;
    }
    if (arg->value[0] != '@' && strncmp(arg->value, "zeros:", 6) != 0) {
      return TKRT_STATUS_MAKE(TKRT_STATUS_INVALID_ARGUMENT,
                              "--arg %s: '%s' is a pointer (%s); give @FILE or zeros:BYTES",
                              arg->name, p->name, p->type);
    }
    if (arg->value[0] != '@') {
      char* end = NULL;
      unsigned long long bytes = strtoull(arg->value + 6, &end, 10);
      if (!arg->value[6] || arg->value[6] < '0' || arg->value[6] > '9' || *end || bytes == 0 ||
          bytes > ((size_t)1 << 40)) {
        return TKRT_STATUS_MAKE(TKRT_STATUS_INVALID_ARGUMENT,
                                "--arg %s: bad byte count (zeros:BYTES, 1 to 2^40)", arg->name);
      }
    }
  }
  /* What each --min-elements asks for, in bytes, from the integer scalars (as a grid is). */
  uint64_t* min_bytes = calloc(count ? count : 1, sizeof(*min_bytes));
  if (!min_bytes) return TKRT_STATUS_MAKE(TKRT_STATUS_RESOURCE_EXHAUSTED, "out of memory");
  s->min_bytes = min_bytes; /* freed with the session */
  {
    char bindings[4096];
    size_t used = 0;
    bindings[0] = '\0';
    for (size_t j = 0; j < scalar_count && used < sizeof(bindings); ++j) {
      if (scalars[j].is_float) continue;
      int n = snprintf(bindings + used, sizeof(bindings) - used, "%s%s=%lld", used ? "," : "",
                       scalars[j].name, (long long)scalars[j].i);
      if (n > 0) used += (size_t)n;
    }
    for (size_t m = 0; m < o->min_count; ++m) {
      char name[256];
      snprintf(name, sizeof(name), "%.*s", (int)o->mins[m].name_length, o->mins[m].name);
      const tkrt_triton_param_t* p = tkrt_triton_kernel_param(k, (size_t)tkrt_triton_kernel_find_param(k, name));
      uint32_t value[3] = {0, 0, 0};
      TKRT_RETURN_IF_ERROR(tkrt_status_annotate(
          tkrt_triton_grid_eval(o->mins[m].value, used ? bindings : NULL, value),
          "--min-elements %s (an expression of the integer scalars, as --grid)", o->mins[m].name));
      if (strchr(o->mins[m].value, ',')) {
        return TKRT_STATUS_MAKE(TKRT_STATUS_INVALID_ARGUMENT,
                                "--min-elements %s: one expression, not a list",
                                o->mins[m].name);
      }
      min_bytes[tkrt_triton_kernel_find_param(k, name)] =
          (uint64_t)value[0] * (p->element_bytes ? p->element_bytes : 1);
    }
  }
  *usage = 0;

  TKRT_RETURN_IF_ERROR(
      tkrt_cli_session_runtime(&o->session, o->tune, "variant", NULL, false, &s->runtime));
  TKRT_RETURN_IF_ERROR(tkrt_cli_session_device(&o->session, s->runtime, usage, &s->device));
  for (size_t v = 0; v < o->variant_count; ++v) {
    TKRT_RETURN_IF_ERROR(native_code_left_out(s->kernels[v], s->device));
  }
  TKRT_RETURN_IF_ERROR(tkrt_runtime_tuner(s->runtime, &s->tuner));
  /* The bound call launches (and is what is pinned and reported). */
  tkrt_triton_bound_options_t bound_options;
  tkrt_triton_bound_options_init(&bound_options);
  bound_options.runtime = s->runtime;
  bound_options.device = s->device;
  TKRT_RETURN_IF_ERROR(tkrt_triton_bound_create(&desc, &bound_options, &s->bound));
  tkrt_call_release(s->call);
  s->call = tkrt_triton_bound_call(s->bound);
  tkrt_call_retain(s->call);
  TKRT_RETURN_IF_ERROR(tkrt_cli_session_pin(&o->session, s->tuner, s->call, usage));

  /* One buffer per pointer parameter, in order. */
  s->buffers = calloc(count ? count : 1, sizeof(*s->buffers));
  s->pointer_params = calloc(count ? count : 1, sizeof(*s->pointer_params));
  if (!s->buffers || !s->pointer_params) return TKRT_STATUS_MAKE(TKRT_STATUS_RESOURCE_EXHAUSTED, "out of memory");
  for (size_t i = 0; i < count; ++i) {
    const tkrt_triton_param_t* p = tkrt_triton_kernel_param(k, i);
    const triton_named_t* arg = find_named(o->args, o->arg_count, p->name);
    if (!arg) {
      return TKRT_STATUS_MAKE(TKRT_STATUS_INVALID_ARGUMENT,
                              "parameter %zu '%s' (%s) has no value: add --arg %s=%s", i, p->name,
                              p->type, p->name, p->is_pointer ? "@FILE (or zeros:BYTES)" : "VALUE");
    }
    if (!p->is_pointer && p->kind != TKRT_PARAM_TMA) continue;
    size_t slot = s->pointer_count++;
    s->pointer_params[slot] = p;
    void* data = NULL;
    size_t size = 0;
    if (arg->value[0] == '@') {
      TKRT_RETURN_IF_ERROR(tkrt_status_annotate(tkrt_cli_read_file(arg->value + 1, TKRT_TRITON_CLI_MAX_FILE, &data, &size),
                                                "--arg %s", arg->name));
    } else if (strcmp(arg->value, "zeros") == 0) {
      /* As many elements as --min-elements asks for (checked above to be given). */
      if (min_bytes[i] == 0 || min_bytes[i] > ((uint64_t)1 << 40)) {
        return TKRT_STATUS_MAKE(TKRT_STATUS_INVALID_ARGUMENT,
                                "--arg %s=zeros: --min-elements asks for %llu bytes (1 to 2^40)",
                                p->name, (unsigned long long)min_bytes[i]);
      }
      size = (size_t)min_bytes[i];
    } else if (strncmp(arg->value, "zeros:", 6) == 0) {
      char* end = NULL;
      unsigned long long bytes = strtoull(arg->value + 6, &end, 10);
      if (!arg->value[6] || *end || bytes == 0 || bytes > ((size_t)1 << 40)) {
        return TKRT_STATUS_MAKE(TKRT_STATUS_INVALID_ARGUMENT, "--arg %s: bad byte count", arg->name);
      }
      size = (size_t)bytes;
    } else {
      return TKRT_STATUS_MAKE(TKRT_STATUS_INVALID_ARGUMENT,
                              "--arg %s: '%s' is a pointer (%s); give @FILE or zeros:BYTES",
                              arg->name, p->name, p->type);
    }
    if (size == 0) {
      free(data);
      return TKRT_STATUS_MAKE(TKRT_STATUS_INVALID_ARGUMENT, "--arg %s: the file is empty", arg->name);
    }
    if (size < min_bytes[i]) {
      free(data);
      const triton_named_t* m = find_named(o->mins, o->min_count, p->name);
      return TKRT_STATUS_MAKE(TKRT_STATUS_INVALID_ARGUMENT,
                              "--arg %s: the buffer holds %zu bytes, but --min-elements %s=%s asks "
                              "for %llu %s elements (%llu bytes): a kernel indexing that far would "
                              "read or write past it",
                              arg->name, size, p->name, m ? m->value : "?",
                              (unsigned long long)(min_bytes[i] / (p->element_bytes ? p->element_bytes : 1)),
                              p->type + 1, (unsigned long long)min_bytes[i]);
    }
    tkrt_status_t status = tkrt_memory_alloc(s->device, size, &s->buffers[slot].ptr);
    if (!status) {
      s->buffers[slot].size = size;
      status = data ? tkrt_memcpy_htod_async(s->device, s->buffers[slot].ptr, data, size, NULL)
                    : tkrt_memset_async(s->device, s->buffers[slot].ptr, 0, size, NULL);
    }
    if (!status) status = tkrt_stream_synchronize(s->device, NULL);
    free(data);
    TKRT_RETURN_IF_ERROR(status);
    if (p->is_pointer) s->args[i].kind = TKRT_TRITON_ARG_POINTER;
    s->args[i].ptr = s->buffers[slot].ptr;
    s->args[i].size = s->buffers[slot].size;
  }
  return NULL;
}

static tkrt_status_t triton_launch_once(void* user) {
  triton_session_t* s = user;
  return tkrt_triton_bound_launch(s->bound, NULL, s->args, s->arg_count, NULL);
}

static int triton_run(int argc, char** argv, int tune) {
  triton_opts_t* o = calloc(1, sizeof(*o));
  if (!o) return tkrt_cli_fail(argv[0], TKRT_STATUS_MAKE(TKRT_STATUS_RESOURCE_EXHAUSTED, "out of memory"));
  o->command = tune ? "tune" : "run";
  o->tune = tune;
  tkrt_cli_session_options_init(&o->session, tune);
  int rc = parse_options(argc, argv, o);
  if (rc) {
    free(o);
    return rc < 0 ? TKRT_CLI_OK : rc;
  }
  FILE* json = NULL;
  if (o->json && !(json = tkrt_cli_json_begin())) {
    free(o);
    return tkrt_cli_fail(tune ? "tune" : "run",
                         TKRT_STATUS_MAKE(TKRT_STATUS_INTERNAL, "--json: cannot duplicate stdout"));
  }
  triton_session_t s;
  memset(&s, 0, sizeof(s));
  int usage = 0;
  tkrt_cli_decision_t decision;
  memset(&decision, 0, sizeof(decision));
  tkrt_cli_timing_t timing;
  memset(&timing, 0, sizeof(timing));
  int checked[TRITON_MAX_ARGS] = {0}, matched[TRITON_MAX_ARGS] = {0};
  tkrt_status_t status = session_open(o, &s, &usage);
  int result = TKRT_CLI_OK;
  void* host = NULL;
  if (status) goto done;
  const tkrt_device_info_t* info = tkrt_device_info(s.device);
  const tkrt_call_desc_t* cd = tkrt_call_get_desc(s.call);
  printf("kernel %s, %zu variant%s, on %s device %d (%s, %s)\n",
         tkrt_cli_escaped(tkrt_triton_kernel_name(s.kernels[0])), cd->config_count,
         cd->config_count == 1 ? "" : "s", info->backend, info->ordinal,
         tkrt_cli_escaped(info->name), info->arch);
  for (size_t v = 0; v < cd->config_count; ++v) {
    printf("  variant %zu: grid %u x %u x %u, %s\n", v, cd->configs[v].grid[0],
           cd->configs[v].grid[1], cd->configs[v].grid[2],
           tkrt_cli_escaped(cd->configs[v].description));
  }
  if ((status = triton_launch_once(&s)) || (status = tkrt_stream_synchronize(s.device, NULL))) {
    goto done;
  }
  if ((status = tkrt_cli_decision_get(s.tuner, s.call, info->arch, &decision))) goto done;
  const tkrt_tune_report_t* report = &decision.report;
  const float* times = decision.times;
  /* Variants are numbered from 0, as in the list above, --pin and the progress lines. */
  printf("variant: %zu of 0..%zu, decided by: %s\n", report->chosen, cd->config_count - 1,
         tkrt_tune_source_name(report->source));
  if (report->source == TKRT_TUNE_SOURCE_TUNED || report->source == TKRT_TUNE_SOURCE_STORE) {
    for (size_t v = 0; v < cd->config_count; ++v) {
      if (times[v] == TKRT_TUNE_SKIPPED_MS) printf("  variant %zu: skipped\n", v);
      else if (report->source == TKRT_TUNE_SOURCE_TUNED && decision.pruned[v]) {
        printf("  variant %zu: pruned after %u launches (%.4f ms/launch)\n", v,
               report->round1_iterations, (double)times[v]);
      } else printf("  variant %zu: %.4f ms/launch%s\n", v, (double)times[v], v == report->chosen ? "  <- chosen" : "");
    }
  }
  if (tune) {
    if (cd->config_count == 1) printf("nothing to tune: one variant\n");
    else if (report->source == TKRT_TUNE_SOURCE_PINNED) printf("not benchmarked: variant %zu is pinned (--pin or TKRT_TUNE_PIN)\n", report->chosen);
    else if (report->store_file[0]) printf("decision stored in %s\n", tkrt_cli_escaped(report->store_file));
    else printf("decision NOT stored: the store is off or unusable (see --store, TKRT_TUNE_DIR)\n");
  }

  /* Check and save the buffers. */
  for (size_t i = 0; i < s.pointer_count; ++i) {
    const tkrt_triton_param_t* p = s.pointer_params[i];
    const triton_named_t* expect = find_named(o->expects, o->expect_count, p->name);
    const triton_named_t* save = find_named(o->saves, o->save_count, p->name);
    if (!expect && !save) continue;
    free(host);
    host = malloc(s.buffers[i].size);
    if (!host) {
      status = TKRT_STATUS_MAKE(TKRT_STATUS_RESOURCE_EXHAUSTED, "out of memory");
      goto done;
    }
    if ((status = tkrt_memcpy_dtoh_async(s.device, host, s.buffers[i].ptr, s.buffers[i].size, NULL)) ||
        (status = tkrt_stream_synchronize(s.device, NULL))) {
      goto done;
    }
    if (save && (status = triton_save(save->value, host, s.buffers[i].size))) goto done;
    if (expect) {
      void* want = NULL;
      size_t want_size = 0;
      if ((status = tkrt_status_annotate(tkrt_cli_read_file(expect->value, TKRT_TRITON_CLI_MAX_FILE, &want, &want_size),
                                         "--expect %s", expect->name))) {
        goto done;
      }
      checked[i] = 1;
      if (want_size != s.buffers[i].size) {
        printf("%s: MISMATCH: the buffer is %llu bytes but %s is %zu\n", p->name,
               (unsigned long long)s.buffers[i].size, tkrt_cli_escaped(expect->value), want_size);
        result = TKRT_CLI_MISMATCH;
      } else if (!(matched[i] = compare(o, p, host, want, want_size))) {
        result = TKRT_CLI_MISMATCH;
      }
      free(want);
    }
  }

  if (o->session.iterations > 0) {
    status = tkrt_cli_time_launches(s.device, o->session.iterations, triton_launch_once, &s,
                                    &timing);
    if (status) goto done;
    tkrt_cli_print_timing(stdout, &timing);
  }
  if (json) {
    fprintf(json, "{\n  \"command\": \"%s\",\n  \"kernel\": ", o->command);
    tkrt_cli_json_string(json, tkrt_triton_kernel_name(s.kernels[0]));
    fputs(",\n  \"device\": {\"backend\": ", json);
    tkrt_cli_json_string(json, info->backend);
    fprintf(json, ", \"ordinal\": %d, \"name\": ", info->ordinal);
    tkrt_cli_json_string(json, info->name);
    fputs(", \"arch\": ", json);
    tkrt_cli_json_string(json, info->arch);
    fputs("},\n  ", json);
    tkrt_cli_json_decision(json, s.call, &decision);
    fputs(",\n  \"outputs\": [", json);
    int first = 1;
    for (size_t i = 0; i < s.pointer_count; ++i) {
      if (!checked[i]) continue;
      fprintf(json, "%s{\"name\": ", first ? "" : ", ");
      tkrt_cli_json_string(json, s.pointer_params[i]->name);
      fprintf(json, ", \"bytes\": %llu, \"matches\": %s}", (unsigned long long)s.buffers[i].size,
              matched[i] ? "true" : "false");
      first = 0;
    }
    fputs("],\n  \"timing\": ", json);
    tkrt_cli_json_timing(json, &timing);
    fprintf(json, ",\n  \"result\": \"%s\"\n}\n", result == TKRT_CLI_OK ? "ok" : "mismatch");
  }

done:
  tkrt_cli_decision_free(&decision);
  free(host);
  session_close(&s);
  free(o);
  if (json) fclose(json);
  if (status && usage) return tkrt_cli_fail_usage(tune ? "tune" : "run", status);
  if (status) return tkrt_cli_fail(tune ? "tune" : "run", status);
  return result;
}

/* ---------------------------------------------------------------- dispatch */

int tkrt_cli_triton_dispatch(int argc, char** argv) {
  if (argc < 1) return -1;
  const char* command = argv[0];
  if (strcmp(command, "help") == 0 && argc >= 2 && strcmp(argv[1], "triton") == 0) {
    fputs(kTritonUsage, stdout);
    return TKRT_CLI_OK;
  }
  if (strcmp(command, "info") == 0) {
    for (int i = 1; i < argc && strcmp(argv[i], "--") != 0; ++i) {
      const char* image = image_value(argc, argv, i);
      if (strcmp(argv[i], "--triton-cache") == 0) return triton_info(argc, argv);
      if (image && (is_triton_json(image) || tkrt_cli_is_directory(image))) {
        return triton_info(argc, argv);
      }
    }
    return -1;
  }
  if (strcmp(command, "run") == 0 || strcmp(command, "tune") == 0) {
    /* The first operand decides: a Triton output, or a serialized call. */
    if (argc >= 2 && argv[1][0] != '-' && is_triton_path(argv[1])) {
      return triton_run(argc, argv, command[0] == 't');
    }
    /* Options only Triton's output takes, given with something else: say what the path is not,
     * rather than that the serialized-call path knows no --grid. */
    static const char* const triton_only[] = {"--grid", "--const", "--also", "--arg", "--inout", "--desc",
                                              "--image-kind"};
    for (int i = 2; argc >= 2 && argv[1][0] != '-' && i < argc && strcmp(argv[i], "--"); ++i) {
      for (size_t t = 0; t < sizeof(triton_only) / sizeof(triton_only[0]); ++t) {
        size_t length = strlen(triton_only[t]);
        if (strncmp(argv[i], triton_only[t], length) == 0 &&
            (argv[i][length] == '\0' || argv[i][length] == '=')) {
          return tkrt_cli_usage_error(
              command, "%s is for Triton compile output, and '%s' is none: Triton output is a "
              "<name>.json with its <name>.cubin, .ptx, .hsaco, .ttir or .so beside it, or a "
              "folder holding one (see `tkrt help triton`)",
              triton_only[t], tkrt_cli_escaped(argv[1]));
        }
      }
    }
  }
  return -1;
}
