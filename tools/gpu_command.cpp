// pet-gpu's commands: devices (report, loaded libraries, self-test), ceilings, the executor's
// reference, check and time (kernels/gpu/executor/model_check.h does the work; here the flags),
// measure, a misses file timed through the executor's runtime (kernels/runtime/request_runner.h),
// and worker, that runtime serving pet-opt --live (kernels/runtime/worker_server.h).
#include "tools/gpu_command.h"

#include <fcntl.h>
#include <unistd.h>

#include <cstdint>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <optional>
#include <sstream>
#include <string>
#include <vector>

#include <fmt/format.h>

#include "core/error.h"
#include "core/executor.h"
#include "core/file_safety.h"
#include "core/text_ir.h"
#include "kernels/ceilings.h"
#include "kernels/devices.h"
#include "kernels/gpu/executor/gpu_runtime.h"
#include "kernels/gpu/executor/model_check.h"
#include "kernels/gpu/executor/reference.h"
#include "kernels/runtime/request_runner.h"
#include "kernels/runtime/worker_server.h"
#include "kernels/loaded_libraries.h"
#include "kernels/nvrtc_compile.h"
#include "kernels/self_test.h"
#include "tools/cli_args.h"
#include "tools/commands.h"
#include "tools/model_format.h"

namespace pet {
namespace {

int exit_status(const CudaStatus& status) { return status.outcome == CudaOutcome::failed ? 1 : 0; }

int devices(std::ostream& out) {
  DeviceReport report = probe_devices();
  out << format_device_report(report);
  out << fmt::format("NVRTC {}\n", nvrtc_version());
  int status = exit_status(report.status);
  for (const GpuDevice& device : report.devices) {
    CudaStatus tested = self_test_device(device.index);
    out << fmt::format("GPU {}: self-test {}\n", device.index, tested.ok() ? "passed" : "failed: " + tested.message);
    if (!tested.ok()) status = 1;
  }
  out << "loaded libraries:\n" << format_loaded_libraries(loaded_cuda_libraries());
  return status;
}

CeilingOptions ceiling_options(const CliArgs& parsed) {
  CeilingOptions options;
  options.gemm_size = static_cast<int>(parsed.integer("--gemm-size", options.gemm_size, 16, 32768));
  options.copy_bytes = parsed.integer("--copy-mib", options.copy_bytes >> 20, 1, 65536) << 20;
  options.runs = static_cast<int>(parsed.integer("--runs", options.runs, 1, 10000));
  options.warmup = static_cast<int>(parsed.integer("--warmup", options.warmup, 0, 10000));
  return options;
}

int ceilings(const CliArgs& parsed, std::ostream& out) {
  auto device = static_cast<int>(parsed.integer("--device", 0, 0, 63));
  CeilingsReport report = measure_ceilings(device, ceiling_options(parsed));
  out << format_ceilings(report);
  return exit_status(report.status);
}

// The one positional argument, the model, read as ONNX or textual IR.
Graph model_argument(const CliArgs& parsed, const std::string& command) {
  if (parsed.positionals().size() != 1)
    throw UserError(fmt::format("pet-gpu {} takes one model file, {} given (pet-gpu --help)", command,
                                parsed.positionals().size()));
  return read_model(parsed.positionals()[0], {});
}

gpu::MathMode math_mode(const CliArgs& parsed, gpu::MathMode fallback) {
  if (parsed.has("--strict") && parsed.has("--tf32")) throw UserError("--strict and --tf32 exclude each other");
  if (parsed.has("--strict")) return gpu::MathMode::strict;
  if (parsed.has("--tf32")) return gpu::MathMode::tf32;
  return fallback;
}

uint64_t seed_flag(const CliArgs& parsed) {
  return static_cast<uint64_t>(parsed.integer("--seed", static_cast<int64_t>(kDefaultSeed), 0, INT64_MAX));
}

// A command's value flags with the ones executor_options reads.
std::vector<std::string> executor_flags(std::vector<std::string> flags) {
  flags.insert(flags.end(), {"--device", "--conv-cache", "--conv-engines", "--conv-columns", "--gemm-splits"});
  return flags;
}

gpu::ExecutorOptions executor_options(const CliArgs& parsed, gpu::MathMode fallback) {
  gpu::ExecutorOptions options;
  options.math = math_mode(parsed, fallback);
  options.device = static_cast<int>(parsed.integer("--device", 0, 0, 63));
  options.conv_cache = parsed.last("--conv-cache").value_or("");
  options.conv_engines = static_cast<int>(parsed.integer("--conv-engines", options.conv_engines, 0, 64));
  if (std::optional<std::string> columns = parsed.last("--conv-columns"))
    options.conv_columns = gpu::column_path_named(*columns);
  options.gemm.split_bases = static_cast<int>(parsed.integer("--gemm-splits", options.gemm.split_bases, 0, 8));
  return options;
}

int reference(const CliArgs& parsed, std::ostream& out) {
  Graph graph = model_argument(parsed, "reference");
  std::optional<std::string> folder = parsed.last("--out");
  if (!folder) throw UserError("pet-gpu reference needs --out DIR, the folder the references go to");
  uint64_t seed = seed_flag(parsed);
  std::string weight_free;
  if (parsed.has("--weight-free")) {
    weight_free = print_graph(graph, PrintOptions{.weight_free = true});
    graph = parse_graph(weight_free);  // the references are of the model as it will be read there
  }
  gpu::write_reference(*folder, gpu::compute_reference(graph, seed));
  if (!weight_free.empty())
    write_file_atomically((std::filesystem::path(*folder) / "model.pet").string(), weight_free, "weight-free model");
  out << fmt::format("wrote {} inputs and {} outputs of model '{}' (seed {}, pet's CPU executor){} to {}\n",
                     graph.inputs().size(), graph.outputs().size(), graph.name, seed,
                     weight_free.empty() ? "" : fmt::format(" and the weight-free model ({} bytes)", weight_free.size()),
                     *folder);
  return 0;
}

// pet-gpu plan: what the executor would run the model as, decided on the host (no device needed).
int plan(const CliArgs& parsed, std::ostream& out) {
  Graph graph = model_argument(parsed, "plan");
  out << fmt::format("model '{}' as pet-gpu runs it, decided without a device (the algorithm or engine of each\n"
                     "library step is timed at load: pet-gpu check --steps)\n",
                     graph.name)
      << gpu::format_host_program(gpu::prepare_host_program(graph));
  return 0;
}

int check(const CliArgs& parsed, std::ostream& out) {
  Graph graph = model_argument(parsed, "check");
  gpu::CheckOptions options;
  options.executor = executor_options(parsed, gpu::MathMode::strict);
  options.reference_folder = parsed.last("--reference").value_or("");
  options.seed = seed_flag(parsed);
  options.tolerance = parsed.number("--tolerance", 0);
  if (options.tolerance < 0) throw UserError("--tolerance must be positive");
  gpu::CheckReport report = gpu::check_model(graph, options);
  out << gpu::format_check_report(graph, report, parsed.has("--steps"));
  if (report.status.outcome == CudaOutcome::no_device) return 0;
  return report.passed() ? 0 : 1;
}

int timing(const CliArgs& parsed, std::ostream& out) {
  Graph graph = model_argument(parsed, "time");
  gpu::TimeOptions options;
  options.executor = executor_options(parsed, gpu::MathMode::tf32);
  options.seed = seed_flag(parsed);
  options.runs = static_cast<int>(parsed.integer("--runs", options.runs, 1, 100000));
  options.warmup = static_cast<int>(parsed.integer("--warmup", options.warmup, 0, 100000));
  options.per_step = parsed.has("--per-step");
  gpu::TimeReport report = gpu::time_model(graph, options);
  out << gpu::format_time_report(graph, report);
  return exit_status(report.status);
}

// pet-gpu serve: the model loaded once, then one answer per request line read from `in` ("time RUNS
// WARMUP": the time command's end-to-end line; "quit" or the end of the input: done), so a harness
// interleaving several models times each without loading it again every round.
int serve(const CliArgs& parsed, std::istream& in, std::ostream& out) {
  Graph graph = model_argument(parsed, "serve");
  gpu::ExecutorOptions executor = executor_options(parsed, gpu::MathMode::tf32);
  gpu::GpuModelLoad loaded = gpu::load_gpu_model(graph, executor);
  if (loaded.status.outcome == CudaOutcome::no_device) {
    out << "no CUDA device: " << loaded.status.message << "\n";
    return 0;
  }
  if (!loaded.status.ok()) throw UserError(fmt::format("pet-gpu serve: loading failed: {}", loaded.status.message));
  std::vector<Tensor> inputs = random_inputs(graph, seed_flag(parsed));
  const gpu::LoadSummary& load = loaded.model->summary();
  out << fmt::format("ready: model '{}', {} math, {} steps, load {:.0f} ms\n", graph.name, gpu::to_string(executor.math),
                     load.steps.size(), load.load_ms)
      << std::flush;
  std::string line;
  while (std::getline(in, line) && line != "quit") {
    std::optional<ServeTimeRequest> request = parse_serve_request(line);
    if (!request) {
      out << fmt::format("error: '{}' is no request; send 'time RUNS WARMUP' or 'quit'\n", line) << std::flush;
      continue;
    }
    RunSummary timed = loaded.model->time(inputs, request->warmup, request->runs);
    out << fmt::format("end to end: median {:.4f} ms (q1 {:.4f}, q3 {:.4f}) over {} runs after {} warm-ups\n",
                       timed.median, timed.q1, timed.q3, timed.runs, request->warmup)
        << std::flush;
  }
  return 0;
}

// The card the results are keyed by; UserError "no CUDA device: ...; <where>" where there is none.
std::string card_name(int device, const std::string& where) {
  DeviceReport report = probe_devices();
  if (report.status.outcome == CudaOutcome::no_device)
    throw UserError(fmt::format("no CUDA device: {}; {}", report.status.message, where));
  if (!report.status.ok()) throw InternalError("pet-gpu: " + report.status.message);
  if (device >= static_cast<int>(report.devices.size()))
    throw UserError(fmt::format("--device {}: this machine has {} CUDA device{}", device, report.devices.size(),
                                report.devices.size() == 1 ? "" : "s"));
  return report.devices[static_cast<size_t>(device)].name;
}

int measure(const CliArgs& parsed, std::ostream& out) {
  if (parsed.positionals().size() != 1)
    throw UserError(fmt::format("pet-gpu measure takes one misses file (pet-opt --export-misses), {} given",
                                parsed.positionals().size()));
  const std::string misses = parsed.positionals()[0];
  std::optional<std::string> results = parsed.last("--out");
  if (!results) throw UserError("pet-gpu measure needs --out RESULTS, the file the timings are written to");
  runtime::MeasureOptions options;
  options.deadline_s = parsed.number("--deadline", options.deadline_s);
  if (!(options.deadline_s > 0)) throw UserError("--deadline must be a positive number of seconds");
  std::vector<runtime::TimingRequest> requests = runtime::read_requests(misses);
  gpu::ExecutorOptions executor = executor_options(parsed, gpu::MathMode::tf32);
  std::string card = card_name(
      executor.device, "pet-gpu measure times requests on a GPU machine (the measure stage of scripts/device/session.sh)");
  std::unique_ptr<runtime::Runtime> gpu_runtime = gpu::open_gpu_runtime(executor);
  for (const std::string& earlier : parsed.all("--skip-timed"))
    if (std::filesystem::exists(earlier) && std::filesystem::exists(*results) &&
        std::filesystem::equivalent(earlier, *results))
      throw UserError(fmt::format("--skip-timed '{}' is the --out file, which this run writes anew; give the new "
                                  "results another file",
                                  earlier));
  runtime::MeasuringDevice device{card, gpu_runtime->version()};
  options.timed_before = runtime::earlier_timings(parsed.all("--skip-timed"), requests, device);
  std::ofstream file(*results, std::ios::trunc);
  if (!file) throw UserError(fmt::format("--out '{}' cannot be written; check its folder", *results));
  runtime::MeasureOutcome outcome = runtime::measure_requests(
      *gpu_runtime, requests, runtime::models_folder(misses), device, file, options);
  out << fmt::format("{} on {}; results in {}\n", outcome.stopped, card, *results);
  out << fmt::format("time by kind: {}\n", runtime::by_kind_text(outcome));
  if (outcome.refused > 0)
    out << fmt::format("pet-gpu refused {} model{} (each a refusal in its result line); the first: {}\n",
                       outcome.refused, outcome.refused == 1 ? "" : "s", outcome.first_refusal);
  out << fmt::format("pet-gpu's loads: {}\n", gpu_runtime->activity());
  return 0;
}

// Where the process's standard output carries the worker's replies: a stream on a copy of it, with
// standard output itself pointed at standard error, so a library that prints cannot break a reply
// line. Nothing for another stream (a test's).
std::optional<std::ofstream> private_reply_stream(std::ostream& out) {
  if (&out != &std::cout) return std::nullopt;
  std::cout.flush();
  int copy = ::dup(STDOUT_FILENO);
  if (copy < 0 || ::dup2(STDERR_FILENO, STDOUT_FILENO) < 0) return std::nullopt;
  std::optional<std::ofstream> replies(std::in_place, fmt::format("/proc/self/fd/{}", copy));
  if (!*replies) {
    ::dup2(copy, STDOUT_FILENO);  // no such path here: the replies go to standard output as they are
    return std::nullopt;
  }
  return replies;
}

// pet-gpu worker: pet-opt's GPU runtime in a process of its own (pet-opt --live): JSON requests on
// `in`, one reply line each on `out` (kernels/runtime/worker_server.h); the version reply names the
// card and the math. Without a device every request is answered with that refusal.
int worker(const CliArgs& parsed, std::istream& in, std::ostream& out) {
  gpu::ExecutorOptions executor = executor_options(parsed, gpu::MathMode::tf32);
  const char* conv_cache = std::getenv("PET_GPU_CONV_CACHE");  // pet-opt starts the worker without flags for it
  if (executor.conv_cache.empty() && conv_cache != nullptr) executor.conv_cache = conv_cache;
  std::optional<std::ofstream> private_replies = private_reply_stream(out);
  std::ostream& replies = private_replies ? *private_replies : out;
  std::string card;
  try {
    card = card_name(executor.device, "pet-gpu worker runs where a CUDA device is");
  } catch (const UserError& error) {
    runtime::refuse_worker(error.what(), in, replies);
    return 0;
  }
  std::unique_ptr<runtime::Runtime> gpu_runtime = gpu::open_gpu_runtime(executor);
  nlohmann::json version = {{"ok", true},
                            {"version", gpu_runtime->version()},
                            {"card", card},
                            {"precision", gpu_runtime->compute_precision()}};
  const char* gpu_lock = std::getenv("PET_GPU_LOCK");  // several workers on one GPU: one times at a time
  runtime::serve_worker(*gpu_runtime, version, in, replies, gpu_lock != nullptr ? gpu_lock : "");
  runtime::log_worker_activity(*gpu_runtime, "pet-gpu worker");
  return 0;
}

}  // namespace

std::optional<ServeTimeRequest> parse_serve_request(const std::string& line) {
  std::istringstream words(line);
  std::string verb, runs, warmup, extra;
  if (!(words >> verb >> runs >> warmup) || verb != "time" || (words >> extra)) return std::nullopt;
  constexpr int64_t kMostRuns = 1'000'000'000;
  std::optional<int64_t> run_count = decimal_integer(runs, 1, kMostRuns);
  std::optional<int64_t> warmup_count = decimal_integer(warmup, 0, kMostRuns);
  if (!run_count || !warmup_count) return std::nullopt;
  return ServeTimeRequest{static_cast<int>(*run_count), static_cast<int>(*warmup_count)};
}

int pet_gpu_main(const std::vector<std::string>& args, std::ostream& out, std::ostream& err) {
  return pet_gpu_main(args, std::cin, out, err);
}

int pet_gpu_main(const std::vector<std::string>& args, std::istream& in, std::ostream& out, std::ostream& err) {
  return run_guarded("pet-gpu", err, [&] {
    if (args.empty() || args[0] == "--help" || args[0] == "-h") {
      out << kPetGpuHelp;
      return args.empty() ? 2 : 0;
    }
    std::vector<std::string> rest(args.begin() + 1, args.end());
    if (args[0] == "devices") {
      CliArgs parsed("pet-gpu devices", rest, {}, {});
      return devices(out);
    }
    if (args[0] == "ceilings") {
      CliArgs parsed("pet-gpu ceilings", rest, {"--device", "--gemm-size", "--copy-mib", "--runs", "--warmup"}, {});
      return ceilings(parsed, out);
    }
    if (args[0] == "reference")
      return reference(CliArgs("pet-gpu reference", rest, {"--out", "--seed"}, {"--weight-free"}), out);
    if (args[0] == "plan") return plan(CliArgs("pet-gpu plan", rest, {}, {}), out);
    if (args[0] == "check")
      return check(CliArgs("pet-gpu check", rest, executor_flags({"--reference", "--seed", "--tolerance"}),
                           {"--strict", "--tf32", "--steps"}),
                   out);
    if (args[0] == "time")
      return timing(CliArgs("pet-gpu time", rest, executor_flags({"--seed", "--runs", "--warmup"}),
                            {"--strict", "--tf32", "--per-step"}),
                    out);
    if (args[0] == "serve")
      return serve(CliArgs("pet-gpu serve", rest, executor_flags({"--seed"}), {"--strict", "--tf32"}), in, out);
    if (args[0] == "worker")
      return worker(CliArgs("pet-gpu worker", rest, executor_flags({}), {"--strict", "--tf32"}), in, out);
    if (args[0] == "measure")
      return measure(
          CliArgs("pet-gpu measure", rest, executor_flags({"--deadline", "--out", "--skip-timed"}), {"--strict", "--tf32"}),
          out);
    throw UserError(
        fmt::format("'{}' is not a pet-gpu command; the commands are devices, ceilings, reference, plan, "
                    "check, time, serve, measure and worker (pet-gpu --help)",
                    args[0]));
  });
}

}  // namespace pet
