// SPDX-License-Identifier: Apache-2.0
// The legacy target's error reaches XLA's status object (one std::optional<std::string>) through
// libtkrt_xla's status twin, which is built without a C++ runtime of its own: this program, a C++
// one like XLA, hands it real status objects (empty, holding a short message, holding a long one
// from this program's allocator), reads back what the twin wrote and destroys them with its own
// libstdc++. No library here exports XlaCustomCallStatusSetFailure, so the twin is what runs.
#include <cstdio>
#include <cstring>
#include <optional>
#include <string>

#include "xla/tkrt_xla.h"

namespace {
int failures = 0;

void check(bool ok, const char* what, const std::optional<std::string>& status) {
  if (!ok) {
    std::fprintf(stderr, "FAIL: %s (status: %s)\n", what,
                 status ? ("\"" + *status + "\"").c_str() : "empty");
    ++failures;
  }
}

// One legacy call with an opaque blob that is not a call; returns the status XLA would see.
void call(std::optional<std::string>* status) {
  static const char blob[] = "not a TritonAnyKernelCall";
  tkrt_xla_legacy_call(nullptr, nullptr, blob, sizeof(blob) - 1, status);
}

void check_message(const std::optional<std::string>& status, const char* label) {
  static const char prefix[] = "tkrt_triton_kernel_call_legacy: ";
  check(status.has_value(), label, status);
  if (!status) return;
  check(status->compare(0, sizeof(prefix) - 1, prefix) == 0, "message names the target", status);
  check(status->size() > 15 && status->size() == std::strlen(status->c_str()),
        "message is the whole text (past the string's inline buffer)", status);
  check(status->find("blob") != std::string::npos || status->find("decod") != std::string::npos,
        "message says what was wrong with the call", status);
}
}  // namespace

int main() {
  std::optional<std::string> empty;
  call(&empty);
  check_message(empty, "an empty status gets the message");

  std::optional<std::string> short_one("short");
  call(&short_one);
  check_message(short_one, "a status holding a short message gets the new one");

  // A long message from this program's operator new: the twin replaces it (freeing the old block).
  std::optional<std::string> long_one(std::string(300, 'x'));
  call(&long_one);
  check_message(long_one, "a status holding a long message gets the new one");

  tkrt_xla_stats_t stats;
  std::memset(&stats, 0, sizeof(stats));
  stats.struct_size = sizeof(stats);
  tkrt_xla_get_stats(&stats);
  if (stats.legacy_status_fallback != 1 || stats.errors != 3) {
    std::fprintf(stderr, "FAIL: stats say legacy_status_fallback=%llu errors=%llu, expected 1 and 3\n",
                 (unsigned long long)stats.legacy_status_fallback, (unsigned long long)stats.errors);
    ++failures;
  }
  if (failures) return 1;
  std::printf("ok: the status twin wrote \"%s\" into three status objects\n", empty->c_str());
  return 0;  // the three strings are freed here by this program's libstdc++
}
