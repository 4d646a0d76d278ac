// Flag parsing for pet_harness (the shared CliArgs rules) and its exit status.
#include "bench/harness_cli.h"

#include <algorithm>
#include <cstdint>
#include <filesystem>
#include <ostream>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "core/error.h"
#include "kernels/runtime/runtime.h"
#include "search/cost/cost_model.h"
#include "tools/cli_args.h"

namespace pet::bench {
namespace {

std::vector<std::string> split_list(const std::string& flag, const std::string& text) {
  std::vector<std::string> items;
  size_t start = 0;
  while (start <= text.size()) {
    size_t end = std::min(text.find(',', start), text.size());
    std::string item = text.substr(start, end - start);
    if (item.empty())
      throw UserError(fmt::format("{} '{}' has an empty entry; separate names with single commas", flag, text));
    items.push_back(item);
    start = end + 1;
  }
  return items;
}

std::vector<int> parse_batches(const std::string& text) {
  std::vector<int> batches;
  for (const std::string& item : split_list("--batches", text)) {
    size_t used = 0;
    int value = 0;
    try {
      value = std::stoi(item, &used);
    } catch (const std::exception&) {
      used = 0;
    }
    if (used == 0 || used != item.size() || value < 1)
      throw UserError(fmt::format("--batches '{}': '{}' is not a batch size (an integer >= 1)", text, item));
    batches.push_back(value);
  }
  return batches;
}

std::vector<Mode> parse_modes(const std::string& text) {
  std::vector<Mode> modes;
  for (const std::string& mode : split_list("--modes", text)) modes.push_back(parse_mode(mode, "--modes:"));
  return modes;
}

// A measured target's runtime is opened by the first run; an estimated one's spec is read here, so a
// misspelled target fails before any run instead of once per run.
void check_target(const std::string& target) {
  if (runtime::is_measured_target(target)) return;
  std::vector<std::string> devices = cost::known_devices();
  std::error_code ignored;
  if (std::find(devices.begin(), devices.end(), target) == devices.end() &&
      !std::filesystem::is_regular_file(target, ignored))
    throw UserError(fmt::format(
        "--target '{}' is not a target: pass {} (measured on this machine), {} (estimated), or the path of a "
        "device spec JSON file",
        target, fmt::join(runtime::measured_targets(), ", "), fmt::join(devices, ", ")));
  cost::load_device(target);  // a spec file's own errors name the file and the field
}

}  // namespace

HarnessOptions parse_harness_args(const std::vector<std::string>& args, const std::string& default_models_dir) {
  CliArgs cli("pet_harness", args,
              {"--models-dir", "--models", "--batches", "--modes", "--beam", "--time-limit", "--target", "--threads",
               "--profile-db", "--select-runs", "--out", "--seed"},
              {"--replay", "--verbose", "-h", "--help"});
  if (!cli.positionals().empty())
    throw UserError(fmt::format("unexpected argument '{}'; see pet_harness --help", cli.positionals().front()));
  HarnessOptions options;
  options.models_dir = cli.last("--models-dir").value_or(default_models_dir);
  if (auto models = cli.last("--models")) options.models = split_list("--models", *models);
  if (auto batches = cli.last("--batches")) options.batches = parse_batches(*batches);
  if (auto modes = cli.last("--modes")) options.modes = parse_modes(*modes);
  options.beam = static_cast<int>(cli.integer("--beam", options.beam, 1, 1 << 20));
  options.time_limit_s = cli.number("--time-limit", options.time_limit_s);
  if (!(options.time_limit_s > 0))
    throw UserError(fmt::format("--time-limit {} must be a positive number of seconds", options.time_limit_s));
  options.target = cli.last("--target").value_or(options.target);
  check_target(options.target);
  options.runtime_threads = static_cast<int>(cli.integer("--threads", options.runtime_threads, 1, 1024));
  options.profile_db = cli.last("--profile-db").value_or(options.profile_db);
  options.replay = cli.has("--replay");
  options.select_runs = static_cast<int>(cli.integer("--select-runs", options.select_runs, 1, 10000));
  options.out_dir = cli.last("--out").value_or(options.out_dir);
  options.seed = static_cast<uint64_t>(cli.integer("--seed", static_cast<int64_t>(options.seed), 0, INT64_MAX));
  options.verbose = cli.has("--verbose");
  return options;
}

int harness_main(const std::vector<std::string>& args, const std::string& default_models_dir, std::ostream& out,
                 std::ostream& err) {
  try {
    if (std::find(args.begin(), args.end(), "-h") != args.end() ||
        std::find(args.begin(), args.end(), "--help") != args.end()) {
      out << kHarnessHelp;
      return 0;
    }
    HarnessOptions options = parse_harness_args(args, default_models_dir);
    HarnessTable table = run_harness(options, out, [&](const HarnessTable& so_far) {
      write_harness_outputs(so_far, options.out_dir);
    });
    for (const std::string& path : write_harness_outputs(table, options.out_dir)) out << "wrote " << path << "\n";
    bool all_good = !table.rows.empty() && std::all_of(table.rows.begin(), table.rows.end(), [](const HarnessRow& row) {
      return row.error.empty() && row.check_passed;
    });
    return all_good ? 0 : 1;
  } catch (const UserError& error) {
    err << "pet_harness: " << error.what() << "\n";
    return 2;
  } catch (const std::exception& error) {
    err << "pet_harness: internal error: " << error.what() << "\n";
    return 1;
  }
}

}  // namespace pet::bench
