// pet-opt's flags, declared once: the parser's allow-list, the reading of each flag into the
// request, and --help all come from this table (the Python API's keywords will too), and every
// default shown is read from a default-constructed OptimizeOptions.
#pragma once

#include <functional>
#include <string>
#include <vector>

#include "tools/cli_args.h"
#include "tools/opt_request.h"

namespace pet {

struct OptFlag {
  std::string name;               // "--beam"
  std::string alias;              // "-o", or empty
  std::string value;              // what it takes ("N", "FILE"), or empty for a switch
  std::vector<std::string> help;  // --help's lines; "{default}" stands for default_text()
  std::function<std::string()> default_text;                // the default as --help states it, or none
  std::function<void(const CliArgs&, OptRequest&)> apply;  // reads the flag (absent: leaves the default)
};

// Every flag in --help's order, -h/--help last.
const std::vector<OptFlag>& opt_flags();

// pet-opt --help, built from the table.
std::string pet_opt_help();

// The arguments parsed against the table's flags (an unknown flag is a UserError).
CliArgs parse_opt_args(const std::vector<std::string>& args);

}  // namespace pet
