// The offline loop's line formats, written and read back with every field checked.
#include "kernels/runtime/timing_request.h"

#include <cmath>
#include <sstream>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "core/error.h"
#include "core/file_safety.h"

namespace pet::runtime {
namespace {

using Json = nlohmann::ordered_json;

// Where a line came from, for messages: "misses.jsonl:3".
struct Place {
  const std::string& source;
  size_t line;
  std::string at() const { return fmt::format("{}:{}", source, line); }
};

const Json& field(const Json& object, const char* name, const Place& place) {
  auto found = object.find(name);
  if (found == object.end())
    throw UserError(fmt::format("{}: the line has no \"{}\"; write the file again with the tool that made it", place.at(),
                                name));
  return *found;
}

std::string text_field(const Json& object, const char* name, const Place& place) {
  const Json& value = field(object, name, place);
  if (!value.is_string()) throw UserError(fmt::format("{}: \"{}\" must be a string", place.at(), name));
  return value.get<std::string>();
}

int64_t integer_field(const Json& object, const char* name, int64_t low, const Place& place) {
  const Json& value = field(object, name, place);
  if (!value.is_number_integer() || value.get<int64_t>() < low)
    throw UserError(fmt::format("{}: \"{}\" must be an integer of at least {}", place.at(), name, low));
  return value.get<int64_t>();
}

std::vector<std::string> texts_field(const Json& object, const char* name, const Place& place) {
  const Json& value = field(object, name, place);
  std::vector<std::string> texts;
  if (!value.is_array()) throw UserError(fmt::format("{}: \"{}\" must be a list of strings", place.at(), name));
  for (const Json& item : value) {
    if (!item.is_string()) throw UserError(fmt::format("{}: \"{}\" must be a list of strings", place.at(), name));
    texts.push_back(item.get<std::string>());
  }
  return texts;
}

Json request_json(const TimingRequest& request) {
  const TimingOptions& options = request.options;
  return Json{{"id", request.id},
              {"target", request.target},
              {"kind", options.purpose.kind},
              {"keys", options.purpose.keys},
              {"first_is_reference", options.purpose.first == FirstModel::reference},
              {"threads", options.threads},
              {"warmup", options.warmup},
              {"runs", options.runs},
              {"per_node", options.per_node},
              {"seed", options.seed},
              {"models", request.models}};
}

TimingRequest read_request(const Json& json, const Place& place) {
  if (!json.is_object()) throw UserError(fmt::format("{}: a request is a JSON object", place.at()));
  TimingRequest request;
  request.id = static_cast<int>(integer_field(json, "id", 1, place));
  request.target = text_field(json, "target", place);
  TimingOptions& options = request.options;
  options.purpose.kind = text_field(json, "kind", place);
  options.purpose.keys = texts_field(json, "keys", place);
  const Json& reference = field(json, "first_is_reference", place);
  const Json& per_node = field(json, "per_node", place);
  if (!reference.is_boolean() || !per_node.is_boolean())
    throw UserError(fmt::format("{}: \"first_is_reference\" and \"per_node\" must be true or false", place.at()));
  options.purpose.first = reference.get<bool>() ? FirstModel::reference : FirstModel::like_the_others;
  options.per_node = per_node.get<bool>();
  options.threads = static_cast<int>(integer_field(json, "threads", 1, place));
  options.warmup = static_cast<int>(integer_field(json, "warmup", 0, place));
  options.runs = static_cast<int>(integer_field(json, "runs", 1, place));
  options.seed = static_cast<uint64_t>(integer_field(json, "seed", 0, place));
  request.models = texts_field(json, "models", place);
  if (request.models.empty()) throw UserError(fmt::format("{}: the request names no model", place.at()));
  return request;
}

Json timing_json(const Timing& timing) {
  Json nodes = Json::array();
  for (const NodeTime& node : timing.nodes)
    nodes.push_back({{"name", node.name}, {"op", node.op}, {"kernel", node.kernel}, {"us", node.microseconds}});
  return Json{{"runs_us", timing.runs_us}, {"nodes", nodes}};
}

Timing read_timing(const Json& json, const Place& place) {
  Timing timing;
  const Json& runs = field(json, "runs_us", place);
  const Json& nodes = field(json, "nodes", place);
  if (!runs.is_array() || !nodes.is_array())
    throw UserError(fmt::format("{}: a timing has lists \"runs_us\" and \"nodes\"", place.at()));
  for (const Json& run : runs) {
    if (!run.is_number() || run.get<double>() < 0)
      throw UserError(fmt::format("{}: \"runs_us\" holds non-negative numbers", place.at()));
    timing.runs_us.push_back(run.get<double>());
  }
  for (const Json& node : nodes) {
    const Json& us = field(node, "us", place);
    if (!us.is_number()) throw UserError(fmt::format("{}: a node's \"us\" is a number", place.at()));
    timing.nodes.push_back(
        {text_field(node, "name", place), text_field(node, "op", place), text_field(node, "kernel", place), us.get<double>()});
  }
  return timing;
}

TimingResult read_result(const Json& json, const Place& place) {
  TimingResult result;
  result.request = read_request(field(json, "request", place), place);
  const Json& timings = field(json, "timings", place);
  if (!timings.is_array()) throw UserError(fmt::format("{}: \"timings\" must be a list", place.at()));
  for (const Json& timing : timings) result.timings.push_back(read_timing(timing, place));
  result.refused = texts_field(json, "refused", place);
  if (json.contains("seconds")) {
    if (!json["seconds"].is_number() || json["seconds"].get<double>() < 0)
      throw UserError(fmt::format("{}: \"seconds\" is a non-negative number", place.at()));
    result.seconds = json["seconds"].get<double>();
  }
  size_t models = result.request.models.size();
  if (result.timings.size() != models || result.refused.size() != models)
    throw UserError(fmt::format("{}: {} models but {} timings and {} refusals; one of each per model", place.at(),
                                models, result.timings.size(), result.refused.size()));
  return result;
}

Json parse_line(const std::string& line, const Place& place, bool may_be_cut) {
  Json json = Json::parse(line, nullptr, false);
  if (json.is_discarded() && !may_be_cut)
    throw UserError(fmt::format("{}: not a JSON object; the file is damaged, write it again", place.at()));
  return json;
}

}  // namespace

std::string request_line(const TimingRequest& request) { return request_json(request).dump() + "\n"; }

std::string device_line(const MeasuringDevice& device) {
  return Json{{"device", {{"card", device.card}, {"runtime", device.runtime}}}}.dump() + "\n";
}

std::string result_line(const TimingResult& result) {
  Json timings = Json::array();
  for (const Timing& timing : result.timings) timings.push_back(timing_json(timing));
  Json json{{"request", request_json(result.request)}, {"timings", timings}, {"refused", result.refused}};
  if (result.seconds >= 0) json["seconds"] = std::round(result.seconds * 1000) / 1000;
  return json.dump() + "\n";
}

std::string stop_line(const std::string& reason) { return Json{{"stopped", reason}}.dump() + "\n"; }

std::vector<TimingRequest> read_requests(const std::string& path) {
  std::istringstream text(read_whole_file(path, "misses file"));
  std::vector<TimingRequest> requests;
  std::string line;
  for (size_t number = 1; std::getline(text, line); ++number) {
    if (line.empty()) continue;
    Place place{path, number};
    requests.push_back(read_request(parse_line(line, place, false), place));
  }
  return requests;
}

TimingResults parse_results(const std::string& text, const std::string& source) {
  TimingResults results;
  std::istringstream lines(text);
  std::string line;
  bool has_device = false;
  for (size_t number = 1; std::getline(lines, line); ++number) {
    if (line.empty()) continue;
    Place place{source, number};
    Json json = parse_line(line, place, lines.peek() == std::char_traits<char>::eof());
    if (json.is_discarded()) break;  // the last line, cut off where the run was stopped
    if (json.contains("device")) {
      results.device = {text_field(json["device"], "card", place), text_field(json["device"], "runtime", place)};
      has_device = true;
    } else if (json.contains("stopped")) {
      results.stopped = text_field(json, "stopped", place);
    } else {
      if (!has_device)
        throw UserError(fmt::format("{}: a result before the device line; the first line names the device", place.at()));
      results.results.push_back(read_result(json, place));
    }
  }
  if (!has_device)
    throw UserError(fmt::format("results file '{}' has no device line; it is not the output of pet-gpu measure", source));
  return results;
}

TimingResults read_results(const std::string& path) { return parse_results(read_whole_file(path, "results file"), path); }

std::string models_folder(const std::string& misses_path) { return misses_path + ".models"; }

}  // namespace pet::runtime
