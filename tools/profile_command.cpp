// pet-profile: a GPU machine's results of exported misses imported into a profile DB.
#include "tools/profile_command.h"

#include <algorithm>
#include <filesystem>
#include <map>

#include <fmt/format.h>

#include "core/error.h"
#include "kernels/runtime/gpu_kernels_version.h"
#include "kernels/runtime/timing_request.h"
#include "search/cost/cost_model.h"
#include "search/cost/in_context.h"
#include "search/cost/kernel_groups.h"
#include "search/cost/roofline.h"
#include "search/cost/workload.h"
#include "search/measure/measured_ranking.h"
#include "search/measure/measured_selection.h"
#include "search/measure/timing_import.h"
#include "tools/cli_args.h"
#include "tools/commands.h"
#include "tools/model_format.h"

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

// One device's line: its entries by kind and dates, and for a GPU device whether this build replays them.
std::string device_summary(const std::string& device, const std::vector<const cost::ProfileEntry*>& entries) {
  std::map<std::string, int> kinds;  // by entry_kind: the request kind whose timings made the entry
  int refused = 0;                     // kernel groups pet-gpu refused (cost::kernel_group_refusal)
  std::string first = entries.front()->date, last = first;
  for (const cost::ProfileEntry* entry : entries) {
    ++kinds[entry_kind(entry->key)];
    refused += cost::is_refused_group(*entry) ? 1 : 0;
    first = std::min(first, entry->date);
    last = std::max(last, entry->date);
  }
  std::string refusals = refused == 0 ? "" : fmt::format(" ({} refused by pet-gpu)", refused);
  std::string text = fmt::format("  '{}': {} entr{} ({} {}{}, {} {}, {} {}, {} {}), recorded {}\n", device,
                                 entries.size(), entries.size() == 1 ? "y" : "ies", kinds[cost::kKernelGroups],
                                 cost::kKernelGroups, refusals, kinds[cost::kInContext], cost::kInContext,
                                 kinds[search::kRanked], search::kRanked, kinds[kSelection], kSelection,
                                 first == last ? first : first + " to " + last);
  if (device.find(", kernels ") == std::string::npos) return text;
  if (device.find(runtime::gpu_kernels_tag() + " |") != std::string::npos)
    return text + "    this build's GPU kernels: pet-opt replays them\n";
  return text + fmt::format("    other GPU kernels than this build's ({}): pet-opt built from these sources replays "
                            "none of them\n",
                            runtime::gpu_kernels_tag());
}

int summarize_db(const CliArgs& args, std::ostream& out) {
  if (args.has("--import") || args.has("--misses") || args.has("--merge") || args.has("--out") ||
      !args.positionals().empty())
    throw UserError("pet-profile --summary DB reads one profile DB and changes nothing; give it no other arguments");
  std::string path = *args.last("--summary");
  if (!std::filesystem::exists(path))
    throw UserError(fmt::format("pet-profile --summary: '{}' does not exist; name a profile DB, e.g. "
                                "bench/profiles/h200.json",
                                path));
  std::vector<cost::ProfileEntry> entries = cost::ProfileDb::load(path).entries();
  std::map<std::string, std::vector<const cost::ProfileEntry*>> by_device;
  for (const cost::ProfileEntry& entry : entries) by_device[entry.device].push_back(&entry);
  out << fmt::format("{}: {} entries, {} device{}\n", path, entries.size(), by_device.size(),
                     by_device.size() == 1 ? "" : "s");
  for (const auto& [device, of_device] : by_device) out << device_summary(device, of_device);
  return 0;
}

// One node's description, its place in pet-gpu's kernels and its price per device.
nlohmann::json node_estimate(const Graph& graph, NodeId id, cost::KernelPlace place, const std::vector<double>& us) {
  const Node& node = graph.node(id);
  cost::Workload work = cost::describe_workload(graph, node);
  return {{"node", id},
          {"output", graph.value(node.outputs.at(0)).name},
          {"op", node.op()},
          {"engine", cost::engine_name(work.engine)},
          {"place", cost::kernel_place_name(place)},
          {"flops", work.flops},
          {"bytes", work.bytes},
          {"us", us}};
}

// One model's lines: a header naming the model and the devices, then one JSON line per kernel group
// (a pet-gpu step, in pet-gpu's order), its "us" one value per device (what a GPU target prices a
// group its DB lacks at: estimated_group_us, the sum over its nodes at their places in the step).
void estimate_groups(const std::string& model, const std::vector<std::string>& names,
                     const std::vector<cost::DeviceSpec>& devices, std::ostream& out) {
  Graph graph = read_model(model, {});
  out << nlohmann::json{{"model", model}, {"devices", names}}.dump() << "\n";
  cost::KernelGrouping grouping = cost::kernel_groups(graph, cost::GroupingRule::pet_gpu_steps);
  for (size_t g = 0; g < grouping.groups.size(); ++g) {
    const cost::KernelGroup& group = grouping.groups[g];
    std::vector<cost::KernelPlace> places = cost::gpu_kernel_places(grouping, group);
    std::vector<std::vector<double>> node_us(group.nodes.size());  // [node][device]
    std::vector<double> total(devices.size(), 0.0);
    for (size_t d = 0; d < devices.size(); ++d) {
      std::vector<double> us = cost::estimated_group_us(devices[d], graph, grouping, group);
      for (size_t i = 0; i < us.size(); ++i) {
        node_us[i].push_back(us[i]);
        total[d] += us[i];
      }
    }
    nlohmann::json nodes = nlohmann::json::array();
    for (size_t i = 0; i < group.nodes.size(); ++i) nodes.push_back(node_estimate(graph, group.nodes[i], places[i], node_us[i]));
    nlohmann::json line = {{"group", g}, {"head", nodes[0]["output"]}, {"ops", cost::context_class(graph, group)},
                           {"us", total}, {"nodes", nodes}};
    out << line.dump() << "\n";
  }
}

// The analytic estimate of each kernel group of each model (--estimate, repeatable) under each
// device spec (--device, repeatable).
int estimate_models(const CliArgs& args, std::ostream& out) {
  if (args.has("--import") || args.has("--misses") || args.has("--merge") || args.has("--out") ||
      !args.positionals().empty())
    throw UserError("pet-profile --estimate MODEL --device NAME|FILE prints estimates and changes nothing; give it no "
                    "other arguments");
  std::vector<std::string> names = args.all("--device");
  if (names.empty())
    throw UserError("pet-profile --estimate needs --device NAME|FILE, the device spec (h100, h200, a100, v100 or a "
                    "JSON file); see pet-profile --help");
  std::vector<cost::DeviceSpec> devices;
  for (const std::string& name : names) devices.push_back(cost::load_device(name));
  for (const std::string& model : args.all("--estimate")) estimate_groups(model, names, devices, out);
  return 0;
}

}  // namespace

int pet_profile_main(const std::vector<std::string>& args, std::ostream& out, std::ostream& err) {
  return run_guarded("pet-profile", err, [&] {
    CliArgs parsed("pet-profile", args, {"--import", "--misses", "--merge", "--out", "--summary", "--estimate", "--device"}, {"--help", "-h"});
    if (parsed.has("--help") || parsed.has("-h") || args.empty()) {
      out << kPetProfileHelp;
      return args.empty() ? 2 : 0;
    }
    if (parsed.has("--summary")) return summarize_db(parsed, out);
    if (parsed.has("--estimate")) return estimate_models(parsed, out);
    if (parsed.has("--merge")) return merge_db(parsed, out);
    return import_results(parsed, out);
  });
}

}  // namespace pet
