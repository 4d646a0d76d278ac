// The project's two error channels: UserError for bad input, PET_CHECK for broken invariants.
#pragma once

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

[[noreturn]] void report_check_failure(const char* file, int line, const char* condition, const std::string& detail);

}  // namespace pet

// Stays on in release builds: a wrong answer from an optimizer is worse than a crash.
#define PET_CHECK(condition, ...)                                                   \
  do {                                                                              \
    if (!(condition)) ::pet::report_check_failure(__FILE__, __LINE__, #condition, std::string{__VA_ARGS__}); \
  } while (false)
