// Runs pet-opt or pet-run in-process and keeps what it printed and its exit status.
#pragma once

#include <sstream>
#include <string>
#include <vector>

#include "tools/commands.h"

namespace pet::testing {

struct ToolRun {
  int status;
  std::string out;
  std::string err;
};

inline ToolRun run_opt(const std::vector<std::string>& args) {
  std::ostringstream out, err;
  int status = pet_opt_main(args, out, err);
  return {status, out.str(), err.str()};
}

inline ToolRun run_run(const std::vector<std::string>& args) {
  std::ostringstream out, err;
  int status = pet_run_main(args, out, err);
  return {status, out.str(), err.str()};
}

}  // namespace pet::testing
