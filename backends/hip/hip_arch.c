/* tkrt HIP backend: compares a code object's target (processor and xnack/sramecc features) with a
 * device's gcnArchName before loading, so a mismatch gets a clear message instead of a load error. */
#include <stdio.h>
#include <string.h>

#include "backends/hip/hip_internal.h"

void tkrt_hip_arch_processor(const char* arch_name, char* out, size_t capacity) {
  size_t length = strcspn(arch_name, ":");
  snprintf(out, capacity, "%.*s", (int)length, arch_name);
}

/* The device's setting of a feature in a gcnArchName ("...:xnack-" -> OFF); UNSUPPORTED when the
 * name does not mention it (the processor lacks it, or the runtime leaves it unspecified). */
static tkrt_image_feature_t tkrt_hip_device_feature(const char* arch_name, const char* feature) {
  size_t n = strlen(feature);
  for (const char* p = strchr(arch_name, ':'); p; p = strchr(p + 1, ':')) {
    if (strncmp(p + 1, feature, n) == 0 && (p[1 + n] == '+' || p[1 + n] == '-') &&
        (p[2 + n] == ':' || p[2 + n] == '\0')) {
      return p[1 + n] == '+' ? TKRT_IMAGE_FEATURE_ON : TKRT_IMAGE_FEATURE_OFF;
    }
  }
  return TKRT_IMAGE_FEATURE_UNSUPPORTED;
}

/* A code object built with the feature on (off) cannot run where the device has it off (on). */
static bool tkrt_hip_feature_conflicts(tkrt_image_feature_t code, tkrt_image_feature_t device) {
  if (code != TKRT_IMAGE_FEATURE_ON && code != TKRT_IMAGE_FEATURE_OFF) return false;
  if (device != TKRT_IMAGE_FEATURE_ON && device != TKRT_IMAGE_FEATURE_OFF) return false;
  return code != device;
}

tkrt_status_t tkrt_hip_check_code_object(const tkrt_image_info_t* image,
                                         const char* device_arch_name, int ordinal) {
  if (image->kind != TKRT_IMAGE_HSACO) {
    return TKRT_STATUS_MAKE(TKRT_STATUS_INVALID_ARGUMENT,
                            "the hip backend loads HSACO code objects, not %s images",
                            tkrt_image_kind_name(image->kind));
  }
  if (!device_arch_name || !device_arch_name[0] || !image->arch[0]) return NULL;
  if (strstr(image->arch, "-generic")) return NULL; /* runs on a family: the runtime decides */
  char device_processor[64];
  tkrt_hip_arch_processor(device_arch_name, device_processor, sizeof(device_processor));
  if (strcmp(device_processor, image->arch) != 0) {
    return TKRT_STATUS_MAKE(TKRT_STATUS_INVALID_ARGUMENT,
                            "HSACO targets %s but device %d is %s (%s); recompile the kernel for "
                            "%s",
                            image->target, ordinal, device_processor, device_arch_name,
                            device_processor);
  }
  static const char* const names[2] = {"sramecc", "xnack"};
  const tkrt_image_feature_t code[2] = {image->sramecc, image->xnack};
  for (int i = 0; i < 2; ++i) {
    tkrt_image_feature_t device = tkrt_hip_device_feature(device_arch_name, names[i]);
    if (tkrt_hip_feature_conflicts(code[i], device)) {
      return TKRT_STATUS_MAKE(TKRT_STATUS_INVALID_ARGUMENT,
                              "HSACO targets %s but device %d is %s: the code object needs %s %s, "
                              "the device has it %s",
                              image->target, ordinal, device_arch_name, names[i],
                              tkrt_image_feature_name(code[i]), tkrt_image_feature_name(device));
    }
  }
  return NULL;
}
