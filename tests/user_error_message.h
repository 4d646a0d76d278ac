// The message of the UserError a call throws, so tests compare pet's error messages as written.
#pragma once

#include <functional>
#include <string>

#include "core/error.h"

namespace pet::testing {

// `call`'s UserError message, or "(no error)" when it throws none.
inline std::string user_error_message(const std::function<void()>& call) {
  try {
    call();
  } catch (const UserError& error) {
    return error.what();
  }
  return "(no error)";
}

}  // namespace pet::testing
