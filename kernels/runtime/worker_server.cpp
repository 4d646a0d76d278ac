// The worker loop: each request line parsed, its models read from their files, the runtime asked,
// and every refusal or failure turned into a reply line instead of ending the worker.
#include "kernels/runtime/worker_server.h"

#include <fcntl.h>
#include <unistd.h>

#include <cstdlib>
#include <functional>
#include <optional>

#include <fmt/format.h>

#include "core/error.h"
#include "core/file_lock.h"
#include "core/file_safety.h"
#include "kernels/runtime/tensor_wire.h"

namespace pet::runtime {
namespace {

using nlohmann::json;

json refusal(int index, const std::string& error) { return {{"ok", false}, {"index", index}, {"error", error}}; }

std::vector<ModelBytes> read_models(const json& paths) {
  std::vector<ModelBytes> models;
  for (const json& path : paths) models.push_back(read_whole_file(path.get<std::string>(), "a model to time"));
  return models;
}

json timing_json(const Timing& timing) {
  json nodes = json::array();
  for (const NodeTime& node : timing.nodes)
    nodes.push_back({{"name", node.name}, {"op", node.op}, {"kernel", node.kernel}, {"us", node.microseconds}});
  return {{"runs_us", timing.runs_us}, {"nodes", nodes}};
}

json time_request(Runtime& runtime, const json& request) {
  TimingOptions options;
  options.threads = request.value("threads", options.threads);
  options.warmup = request.value("warmup", options.warmup);
  options.runs = request.value("runs", options.runs);
  options.per_node = request.value("per_node", options.per_node);
  options.seed = request.value("seed", options.seed);
  if (options.threads < 1 || options.warmup < 0 || options.runs < 1)
    return refusal(-1, fmt::format("malformed request: threads {}, warmup {}, runs {}", options.threads,
                                   options.warmup, options.runs));
  json timings = json::array();
  for (const Timing& timing : runtime.time_models(read_models(request.at("models")), options))
    timings.push_back(timing_json(timing));
  return {{"ok", true}, {"timings", timings}};
}

json run_request(Runtime& runtime, const json& run) {
  std::string model = read_whole_file(run.at("model").get<std::string>(), "a model to run");
  std::vector<Tensor> inputs;
  for (const json& wire : run.at("inputs")) inputs.push_back(tensor_from_wire(wire));
  json outputs = json::array();
  try {
    for (const Tensor& output : runtime.run_model(model, inputs, run.value("threads", 1)))
      outputs.push_back(tensor_to_wire(output));
  } catch (const ModelRejected&) {
    throw;
  } catch (const UserError& error) {  // the one model of a run: its refusal
    throw ModelRejected(0, error.what());
  }
  return {{"ok", true}, {"outputs", outputs}};
}

// Each non-blank line of `in` answered by `answer`, one flushed line on `out`, until `in` ends.
void answer_lines(std::istream& in, std::ostream& out, const std::function<json(const std::string&)>& answer) {
  std::string line;
  while (std::getline(in, line)) {
    if (line.find_first_not_of(" \t\r") == std::string::npos) continue;
    json reply = answer(line);
    out << reply.dump() << '\n' << std::flush;
  }
}

}  // namespace

json answer_worker_request(Runtime& runtime, const json& version_reply, const std::string& line) {
  json request = json::parse(line, nullptr, /*allow_exceptions=*/false);
  if (!request.is_object()) return refusal(-1, "malformed request: a request must be a JSON object");
  try {
    if (request.value("version", false)) return version_reply;
    return request.contains("run") ? run_request(runtime, request.at("run")) : time_request(runtime, request);
  } catch (const ModelRejected& rejected) {
    json reply = refusal(static_cast<int>(rejected.index()), rejected.what());
    for (const ModelRejected::Refusal& other : rejected.others())
      reply["others"].push_back({{"index", other.index}, {"error", other.message}});
    return reply;
  } catch (const json::exception& error) {
    return refusal(-1, fmt::format("malformed request: {}", error.what()));
  } catch (const UserError& error) {  // an unreadable file: the worker goes on
    return refusal(-1, error.what());
  } catch (const InternalError& error) {  // the runtime's failure: said, and the worker goes on
    return refusal(-1, error.what());
  }
}

void serve_worker(Runtime& runtime, const json& version_reply, std::istream& in, std::ostream& out,
                  const std::string& gpu_lock) {
  SharedDevice whole_requests(gpu_lock);
  if (whole_requests.shared() && runtime.share_device(whole_requests)) whole_requests = SharedDevice();
  answer_lines(in, out, [&](const std::string& line) {
    SharedDevice::Hold held = whole_requests.hold();
    return answer_worker_request(runtime, version_reply, line);
  });
}

void log_worker_activity(const Runtime& runtime, const std::string& worker) {
  const char* log = std::getenv("PET_GPU_ACTIVITY_LOG");
  if (log == nullptr || *log == '\0') return;
  int fd = ::open(log, O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC, 0644);
  if (fd < 0) return;
  write_all_bytes(fd, fmt::format("{} {}: {}\n", worker, ::getpid(), runtime.activity()));
  ::close(fd);
}

void refuse_worker(const std::string& reason, std::istream& in, std::ostream& out) {
  answer_lines(in, out, [&](const std::string&) { return refusal(-1, reason); });
}

}  // namespace pet::runtime
