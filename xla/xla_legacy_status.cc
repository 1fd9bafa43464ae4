// tkrt xla: writes a legacy custom call's error into XLA's status object when no library
// exports XlaCustomCallStatusSetFailure. XLA defines the object (custom_call_status_internal.h)
// as one std::optional<std::string>; this twin must be built against the same C++ ABI as XLA
// (libstdc++, the C++11 string ABI), which jaxlib's manylinux wheels use.
#include <cstddef>
#include <new>
#include <optional>
#include <string>

namespace {
struct XlaStatusTwin {
  std::optional<std::string> message;
};
}  // namespace

extern "C" __attribute__((visibility("hidden"))) void tkrt_xla_status_set_failure_fallback(
    void* status, const char* message, size_t length) {
  try {
    static_cast<XlaStatusTwin*>(status)->message = std::string(message, length);
  } catch (const std::bad_alloc&) {
    // A failure without its text is better than none: keep the shortest message possible.
    static_cast<XlaStatusTwin*>(status)->message.emplace();
  }
}
