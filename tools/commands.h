// The tools as library functions, so tests can run them without a process.
#pragma once

#include <functional>
#include <ostream>
#include <string>
#include <vector>

namespace pet {

// Each returns the exit status: 0 ok, 1 internal error (or a failed check), 2 user error, 130
// cancelled (an in-process caller's hook stopped the run).
int pet_opt_main(const std::vector<std::string>& args, std::ostream& out, std::ostream& err);
// pet_opt_main whose run stops when `cancelled` says so (pet-opt's main: after SIGINT or SIGTERM),
// writing nothing but keeping in the profile DB what it measured.
int pet_opt_main(const std::vector<std::string>& args, std::ostream& out, std::ostream& err,
                 const std::function<bool()>& cancelled);
int pet_run_main(const std::vector<std::string>& args, std::ostream& out, std::ostream& err);

// Calls `body`, mapping UserError to status 2, Cancelled to 130 and any other exception to status
// 1, with the message on `err` prefixed by the tool name.
int run_guarded(const std::string& tool, std::ostream& err, const std::function<int()>& body);
// A bench's main: `--help` or `-h` first prints `usage` to stdout; otherwise `body` runs on the
// arguments under run_guarded, errors to stderr.
int guarded_main(const std::string& tool, const char* usage, int argc, char** argv,
                 const std::function<int(const std::vector<std::string>&)>& body);

}  // namespace pet
