// The request runner: one request at a time, each result flushed before the next starts; the next
// request's models are read and serialized on another thread while the runtime times this one.
#include "kernels/runtime/request_runner.h"

#include <chrono>
#include <filesystem>
#include <future>
#include <map>

#include <fmt/format.h>

#include "core/error.h"
#include "core/file_safety.h"
#include "core/onnx_export.h"
#include "core/text_ir.h"

namespace pet::runtime {
namespace {

std::vector<ModelBytes> serialized_models(const TimingRequest& request, const std::string& folder,
                                           const ExportOptions& options) {
  std::vector<ModelBytes> models;
  for (const std::string& file : request.models) {
    std::string path = (std::filesystem::path(folder) / file).string();
    models.push_back(serialize_onnx(parse_graph(read_whole_file(path, "a request's weight-free model")), options));
  }
  return models;
}

// `request`'s models, read and serialized on another thread; get() gives them or rethrows.
std::future<std::vector<ModelBytes>> models_in_background(const TimingRequest& request, const std::string& folder,
                                                           const ExportOptions& options) {
  return std::async(std::launch::async,
                    [&request, &folder, options] { return serialized_models(request, folder, options); });
}

TimingResult time_request(Runtime& runtime, const TimingRequest& request, std::vector<ModelBytes> models) {
  TimingResult result;
  result.request = request;
  try {
    result.timings = time_accepted(runtime, models, request.options, result.refused, request.options.purpose.first);
  } catch (const ModelRejected& refusal) {  // the reference: the others cannot be compared without it
    result.timings.assign(models.size(), Timing{});
    result.refused.assign(models.size(), "the reference (model 0) was refused");
    result.refused[0] = refusal.what();
  }
  return result;
}

std::function<double()> steady_clock_from_now() {
  auto start = std::chrono::steady_clock::now();
  return [start] { return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count(); };
}

}  // namespace

MeasureOutcome measure_requests(Runtime& runtime, const std::vector<TimingRequest>& requests,
                                const std::string& models_folder, const MeasuringDevice& device, std::ostream& out,
                                const MeasureOptions& options) {
  std::function<double()> elapsed = options.elapsed_s ? options.elapsed_s : steady_clock_from_now();
  out << device_line(device) << std::flush;
  MeasureOutcome outcome;
  std::vector<const TimingRequest*> todo;
  for (const TimingRequest& request : requests)
    if (options.timed_before.count(request.id) == 0) todo.push_back(&request);
  outcome.timed_before = static_cast<int>(requests.size() - todo.size());
  const ExportOptions export_options = runtime.export_options();
  std::future<std::vector<ModelBytes>> next;
  if (!todo.empty()) next = models_in_background(*todo.front(), models_folder, export_options);
  double now = elapsed();  // one reading per request: its end is the next one's start
  for (size_t i = 0; i < todo.size(); ++i) {
    if (now >= options.deadline_s) {
      outcome.left = static_cast<int>(todo.size()) - outcome.timed;
      break;
    }
    std::vector<ModelBytes> models = next.get();
    if (i + 1 < todo.size()) next = models_in_background(*todo[i + 1], models_folder, export_options);
    TimingResult result = time_request(runtime, *todo[i], std::move(models));
    double ended = elapsed();
    result.seconds = ended - now;
    now = ended;
    KindTotals& kind = outcome.by_kind[todo[i]->options.purpose.kind];
    ++kind.requests;
    kind.seconds += result.seconds;
    for (const std::string& refusal : result.refused) {
      if (refusal.empty()) continue;
      if (outcome.refused++ == 0) outcome.first_refusal = refusal;
    }
    out << result_line(result) << std::flush;
    ++outcome.timed;
  }
  std::string before =
      outcome.timed_before > 0 ? fmt::format(" ({} timed by an earlier run)", outcome.timed_before) : "";
  outcome.stopped = outcome.left > 0
                        ? fmt::format("deadline of {:g} s reached: {} of {} requests timed, {} left{}",
                                      options.deadline_s, outcome.timed, todo.size(), outcome.left, before)
                        : fmt::format("all {} requests timed{}", todo.size(), before);
  out << stop_line(outcome.stopped) << std::flush;
  return outcome;
}

std::string by_kind_text(const MeasureOutcome& outcome) {
  std::string text;
  for (const auto& [kind, totals] : outcome.by_kind)
    text += fmt::format("{}{} {} in {:.1f} s", text.empty() ? "" : ", ", kind, totals.requests, totals.seconds);
  return text.empty() ? "none" : text;
}

std::set<int> earlier_timings(const std::vector<std::string>& earlier, const std::vector<TimingRequest>& requests,
                              const MeasuringDevice& device) {
  std::map<int, std::string> by_id;
  for (const TimingRequest& request : requests) by_id[request.id] = request_line(request);
  std::set<int> ids;
  for (const std::string& path : earlier) {
    TimingResults results = read_results(path);
    if (results.device.card != device.card || results.device.runtime != device.runtime)
      throw UserError(fmt::format("--skip-timed '{}' was timed on {} ({}), this run on {} ({}); its timings are not "
                                  "this run's to continue",
                                  path, results.device.card, results.device.runtime, device.card, device.runtime));
    for (const TimingResult& result : results.results) {
      auto found = by_id.find(result.request.id);
      if (found == by_id.end() || found->second != request_line(result.request))
        throw UserError(fmt::format("--skip-timed '{}' answers another misses file: its request {} is not this "
                                    "file's; pass the results of a run on the same kit",
                                    path, result.request.id));
      ids.insert(result.request.id);
    }
  }
  return ids;
}

}  // namespace pet::runtime
