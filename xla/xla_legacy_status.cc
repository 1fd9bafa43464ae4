// SPDX-License-Identifier: Apache-2.0
// tkrt xla: writes a legacy custom call's error into XLA's status object when no library
// exports XlaCustomCallStatusSetFailure. XLA defines the object (custom_call_status_internal.h)
// as one std::optional<std::string>; this twin must be built against the same C++ ABI as XLA
// (libstdc++, the C++11 string ABI), which jaxlib's manylinux wheels use.
//
// libtkrt_xla.so needs no C++ runtime (no libstdc++.so.6, no libgcc_s.so.1): this file is built
// without exceptions or RTTI (xla/CMakeLists.txt), as C++20, where libstdc++ declares no extern
// template for std::string and so its members are compiled here, and the few functions that code
// still calls are defined below. The version script (xla/tkrt_xla.map) exports only tkrt_ names,
// so these bind inside libtkrt_xla.so alone and never replace the process's own. A block of ours that XLA frees
// later goes through its operator delete, which is libstdc++'s free(): both sides use malloc.
#include <cstddef>
#include <cstdlib>
#include <optional>
#include <string>

namespace {
struct XlaStatusTwin {
  std::optional<std::string> message;
};

// The block the next operator new of this thread hands out: the fallback allocates it itself
// (where a failure can be handled) before the one string construction that allocates.
thread_local void* reserved_block = nullptr;
thread_local std::size_t reserved_size = 0;
}  // namespace

void* operator new(std::size_t size) {
  void* block = reserved_block;
  if (block && size <= reserved_size) {
    reserved_block = nullptr;
    return block;
  }
  // Not reached with libstdc++, whose string asks for exactly length + 1 bytes; kept correct.
  block = std::malloc(size ? size : 1);
  if (!block) std::abort();  // no exceptions here: an allocation that cannot fail softly
  return block;
}
void operator delete(void* block) noexcept { std::free(block); }
void operator delete(void* block, std::size_t) noexcept { std::free(block); }

namespace std {
// Called by std::string only for a null pointer with a length, or a length over max_size() (or
// its allocator's): the fallback passes neither (a message is at most 2 KiB, never null).
void __throw_logic_error(const char*) { std::abort(); }
void __throw_length_error(const char*) { std::abort(); }
void __throw_bad_alloc() { std::abort(); }
void __throw_bad_array_new_length() { std::abort(); }
// libstdc++ declares an extern template for std::allocator<char> too; unoptimised builds call its
// (empty) members rather than inline them, so they are instantiated here.
template class allocator<char>;
}  // namespace std

extern "C" __attribute__((visibility("hidden"))) void tkrt_xla_status_set_failure_fallback(void* status, const char* message,
                                                                 size_t length) {
  XlaStatusTwin* twin = static_cast<XlaStatusTwin*>(status);
  twin->message.emplace();  // an empty string in its own buffer: allocates nothing
  if (!message || length == 0) return;
  if (length > twin->message->capacity()) {
    reserved_block = std::malloc(length + 1);
    // Out of memory: the call still fails, with an empty message rather than none.
    if (!reserved_block) return;
    reserved_size = length + 1;
  }
  twin->message.emplace(message, length);
  if (reserved_block) {  // the string did not take it (an implementation that asks differently)
    std::free(reserved_block);
    reserved_block = nullptr;
  }
}
