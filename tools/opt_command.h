// pet-opt's work as two library calls, so that the Python API (python/) runs the same code as the
// command line: the request read from the flag table, then guarded, optimized, written and checked.
#pragma once

#include <ostream>

#include "tools/cli_args.h"
#include "tools/opt_request.h"

namespace pet {

// The request from arguments parsed by parse_opt_args: every flag of the table applied, the
// default output and report paths filled in, the model's external data files listed. UserError
// for a bad flag or model path.
OptRequest parse_opt_request(const CliArgs& args);

// Guards the paths, imports, optimizes (or runs --passes alone), writes the model and the report
// through temporary files, checks the written model and puts both in place; the summary goes to
// `out`, a failed check's message to `err`. request.optimize.hooks are the caller's (pet-opt
// sets a terminal line for progress). Returns 0 when written and checked, 1 when a check failed
// (only the report written); user errors, internal errors and Cancelled (nothing written) are thrown.
int run_opt_request(OptRequest& request, std::ostream& out, std::ostream& err);

}  // namespace pet
