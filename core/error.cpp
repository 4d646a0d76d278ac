// Formats internal-invariant failures with their source location.
#include "core/error.h"

#include <fmt/format.h>

namespace pet {

void report_check_failure(const char* file, int line, const char* condition, const std::string& detail) {
  std::string message = fmt::format("internal error at {}:{}: check '{}' failed", file, line, condition);
  if (!detail.empty()) message += ": " + detail;
  throw InternalError(message);
}

}  // namespace pet
