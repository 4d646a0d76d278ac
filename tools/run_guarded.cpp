// Maps the error channels (and a cancelled run) to exit statuses for every tool.
#include <iostream>

#include <fmt/format.h>

#include "core/error.h"
#include "tools/commands.h"

namespace pet {

int run_guarded(const std::string& tool, std::ostream& err, const std::function<int()>& body) {
  try {
    return body();
  } catch (const UserError& error) {
    err << fmt::format("{}: error: {}\n", tool, error.what());
    return 2;
  } catch (const Cancelled&) {
    err << fmt::format("{}: cancelled; nothing was written\n", tool);
    return 130;
  } catch (const std::exception& error) {
    err << fmt::format("{}: internal error: {}\nThis is a bug in pet; please report it with the model.\n", tool,
                       error.what());
    return 1;
  }
}

int guarded_main(const std::string& tool, const char* usage, int argc, char** argv,
                 const std::function<int(const std::vector<std::string>&)>& body) {
  std::vector<std::string> arguments(argv + 1, argv + argc);
  if (!arguments.empty() && (arguments[0] == "--help" || arguments[0] == "-h")) {
    std::cout << usage;
    return 0;
  }
  return run_guarded(tool, std::cerr, [&] { return body(arguments); });
}

}  // namespace pet
