// pet-profile: import models, collect the distinct signatures of the ops worth measuring, time each
// on the GPU and merge the results into a profile DB.
#include "tools/profile_command.h"

#include <chrono>
#include <ctime>
#include <filesystem>
#include <map>

#include <fmt/format.h>

#include "core/error.h"
#include "core/onnx_import.h"
#include "kernels/profiler.h"
#include "search/cost/cost_model.h"
#include "tools/cli_args.h"
#include "tools/commands.h"

namespace pet {
namespace {

struct Candidate {
  size_t model;
  NodeId node;
};

std::string today_iso() {
  std::time_t now = std::chrono::system_clock::to_time_t(std::chrono::system_clock::now());
  std::tm utc{};
  gmtime_r(&now, &utc);
  char text[16];
  std::strftime(text, sizeof text, "%Y-%m-%d", &utc);
  return text;
}

bool runs_on_gpu(const Graph& graph, const Node& node) {
  if (node.def->traits.type_only) return false;
  for (ValueId input : node.inputs)
    if (input != kNoValue && !graph.is_constant(input)) return true;
  return false;  // weight preparation, folded before anything runs
}

// Distinct signatures in the order first met, so runs and logs are reproducible.
std::vector<std::pair<std::string, Candidate>> collect(const std::vector<Graph>& models) {
  std::vector<std::pair<std::string, Candidate>> found;
  std::map<std::string, size_t> seen;
  for (size_t m = 0; m < models.size(); ++m)
    for (NodeId id = 0; id < static_cast<NodeId>(models[m].nodes().size()); ++id) {
      const Node& node = models[m].node(id);
      if (!profilable(node) || !runs_on_gpu(models[m], node)) continue;
      std::string key = cost::signature_of(models[m], node).key();
      if (seen.emplace(key, found.size()).second) found.push_back({key, {m, id}});
    }
  return found;
}

int profile(const CliArgs& args, std::ostream& out) {
  std::optional<std::string> device = args.last("--device");
  std::optional<std::string> db_path = args.last("--out");
  if (!device || !db_path) throw UserError("--device and --out are required; see pet-profile --help");
  if (args.positionals().empty()) throw UserError("expected at least one model file; see pet-profile --help");
  std::string device_name = cost::load_device(*device).name;
  ProfileSettings settings;
  settings.runs = static_cast<int>(args.integer("--runs", 30, 1, 100000));
  settings.warmup = static_cast<int>(args.integer("--warmup", 5, 0, 100000));
  DeviceReport report = probe_devices();
  if (report.status.outcome == CudaOutcome::no_device) throw UserError(no_gpu_message(report.status));
  if (!report.status.ok()) throw UserError(fmt::format("the GPU does not answer ({}); check it with pet-devices", report.status.message));
  ImportOptions import;
  for (const std::string& text : args.all("--input-shape")) import.input_shapes.insert(parse_input_shape(text));
  std::vector<Graph> models;
  for (const std::string& path : args.positionals()) models.push_back(import_onnx(path, import));
  const cost::ProfileDb loaded =
      std::filesystem::exists(*db_path) ? cost::ProfileDb::load(*db_path) : cost::ProfileDb{};
  cost::ProfileDb db = loaded;
  std::string libraries = library_versions(report.versions), date = today_iso();
  out << fmt::format("profiling on {} ({}), recorded as '{}'\n", report.devices.at(0).name, libraries, device_name);
  int measured = 0;
  for (const auto& [key, where] : collect(models)) {
    std::string why;
    const Graph& graph = models[where.model];
    std::optional<OpMeasurement> result = profile_node(graph, graph.node(where.node), settings, why);
    if (!result) {
      out << fmt::format("  skipped {}: {}\n", key, why);
      continue;
    }
    db.add({key, device_name, result->microseconds, result->method, libraries, date});
    out << fmt::format("  {:10.2f} us  {}  [{}]\n", result->microseconds, key, result->method);
    ++measured;
  }
  db.save_merged(*db_path, loaded);
  out << fmt::format("{} ops measured; {} entries in {}\n", measured, cost::ProfileDb::load(*db_path).entries().size(),
                     *db_path);
  return 0;
}

}  // namespace

int pet_profile_main(const std::vector<std::string>& args, std::ostream& out, std::ostream& err) {
  return run_guarded("pet-profile", err, [&] {
    CliArgs parsed("pet-profile", args, {"--device", "--out", "--runs", "--warmup", "--input-shape"}, {"--help", "-h"});
    if (parsed.has("--help") || parsed.has("-h")) {
      out << kPetProfileHelp;
      return 0;
    }
    return profile(parsed, out);
  });
}

}  // namespace pet
