// The project's error channels: UserError for bad input, PET_CHECK for broken invariants, and
// Cancelled when the caller stopped the run.
#pragma once

#include <functional>
#include <stdexcept>
#include <string>

namespace pet {

// A problem with what the user gave us (model, flags, files). The message says what is wrong,
// where, and how to fix it. Tools print it and exit with status 2.
class UserError : public std::runtime_error {
 public:
  explicit UserError(const std::string& message) : std::runtime_error(message) {}
};

// A broken internal invariant: a bug in pet, never the user's fault. Tools exit with status 1.
class InternalError : public std::logic_error {
 public:
  explicit InternalError(const std::string& message) : std::logic_error(message) {}
};

// The caller stopped the run (Ctrl-C, or its cancellation hook said so): neither the user's fault nor
// a bug. It unwinds every stage; nothing is written. Tools exit with status 130, as after SIGINT.
class Cancelled : public std::runtime_error {
 public:
  Cancelled() : std::runtime_error("cancelled") {}
};

// A caller's question "should the run stop now?", asked between units of work (a candidate
// examined or scored, an expansion, a stage); may be empty. It may be asked from any of pet's
// threads at once, so it must be safe to call concurrently and cheap.
using CancelHook = std::function<bool()>;

// Throws Cancelled when `cancelled` is given and says so.
inline void throw_if_cancelled(const CancelHook& cancelled) {
  if (cancelled && cancelled()) throw Cancelled();
}

[[noreturn]] void report_check_failure(const char* file, int line, const char* condition, const std::string& detail);

}  // namespace pet

// Stays on in release builds: a wrong answer from an optimizer is worse than a crash.
#define PET_CHECK(condition, ...)                                                   \
  do {                                                                              \
    if (!(condition)) ::pet::report_check_failure(__FILE__, __LINE__, #condition, std::string{__VA_ARGS__}); \
  } while (false)
