// pet-profile: a GPU machine's results of exported misses imported into a profile DB.
#include "tools/profile_command.h"

#include <filesystem>
#include <map>

#include <fmt/format.h>

#include "core/error.h"
#include "kernels/runtime/gpu_kernels_version.h"
#include "kernels/runtime/timing_request.h"
#include "search/cost/cost_model.h"
#include "search/measure/timing_import.h"
#include "tools/cli_args.h"
#include "tools/commands.h"

namespace pet {
namespace {

std::string required(const CliArgs& args, const std::string& flag, const std::string& what) {
  std::optional<std::string> value = args.last(flag);
  if (!value) throw UserError(fmt::format("pet-profile needs {} {}; see pet-profile --help", flag, what));
  return *value;
}

int import_results(const CliArgs& args, std::ostream& out) {
  if (!args.positionals().empty())
    throw UserError(fmt::format("pet-profile takes no model files ('{}'); it imports the results of pet-gpu measure "
                                "with --import RESULTS --misses FILE --out DB",
                                args.positionals()[0]));
  std::string results_path = required(args, "--import", "RESULTS, the results file of pet-gpu measure");
  std::string misses = required(args, "--misses", "FILE, the misses file the results answer");
  std::string db_path = required(args, "--out", "DB, the profile DB to extend");
  runtime::TimingResults results = runtime::read_results(results_path);
  const cost::ProfileDb loaded = std::filesystem::exists(db_path) ? cost::ProfileDb::load(db_path) : cost::ProfileDb{};
  cost::ProfileDb db = loaded;
  ImportReport report = import_timings(results, runtime::models_folder(misses), db);
  db.save_merged(db_path, loaded);
  out << fmt::format("imported {} results ({}): {} entries under '{}' into {}\n", report.results,
                     results.stopped.empty() ? "the run was cut short" : results.stopped, report.entries,
                     report.target.db_device(), db_path);
  for (const std::string& note : report.notes) out << "  left out: " << note << "\n";
  if (report.results > 0 && !report.target.runtime.ends_with(runtime::gpu_kernels_tag()))
    out << fmt::format("  warning: these times were taken with other GPU kernels than this build's ({}); pet-opt "
                       "built from these sources will not replay them\n",
                       runtime::gpu_kernels_tag());
  return 0;
}

// A DB pet-opt --live wrote elsewhere, added entry by entry (same key and device: replaced).
int merge_db(const CliArgs& args, std::ostream& out) {
  if (args.has("--import") || args.has("--misses") || !args.positionals().empty())
    throw UserError("pet-profile --merge adds a profile DB; --import RESULTS --misses FILE imports pet-gpu measure's "
                    "results: one of them per run, and no other arguments");
  std::string source = *args.last("--merge");
  std::string db_path = required(args, "--out", "DB, the profile DB to extend");
  if (std::filesystem::exists(db_path) && std::filesystem::equivalent(source, db_path))
    throw UserError(fmt::format("pet-profile --merge '{}' is the --out DB itself; name the DB to add", source));
  cost::ProfileDb added = cost::ProfileDb::load(source);
  added.save_merged(db_path, cost::ProfileDb{});
  std::vector<cost::ProfileEntry> entries = added.entries();
  std::map<std::string, int> by_device;
  for (const cost::ProfileEntry& entry : entries) ++by_device[entry.device];
  out << fmt::format("merged {} entries from {} into {}\n", entries.size(), source, db_path);
  for (const auto& [device, count] : by_device) out << fmt::format("  {} under '{}'\n", count, device);
  return 0;
}

}  // namespace

int pet_profile_main(const std::vector<std::string>& args, std::ostream& out, std::ostream& err) {
  return run_guarded("pet-profile", err, [&] {
    CliArgs parsed("pet-profile", args, {"--import", "--misses", "--merge", "--out"}, {"--help", "-h"});
    if (parsed.has("--help") || parsed.has("-h") || args.empty()) {
      out << kPetProfileHelp;
      return args.empty() ? 2 : 0;
    }
    if (parsed.has("--merge")) return merge_db(parsed, out);
    return import_results(parsed, out);
  });
}

}  // namespace pet
