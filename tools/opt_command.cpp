// pet-opt: guard the paths, import, optimize (or run the --passes alone), write to a temporary file, check that
// file, put it in place, report.
#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <functional>
#include <iostream>

#include <fcntl.h>
#include <unistd.h>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "core/error.h"
#include "core/file_safety.h"
#include "core/onnx_export.h"
#include "core/onnx_mapping.h"
#include "core/onnx_import.h"
#include "kernels/runtime/gpu_kernels_version.h"
#include "kernels/runtime/runtime.h"
#include "search/cost/physical_floor.h"
#include "search/passes/named_passes.h"
#include "search/pipeline.h"
#include "tools/cli_args.h"
#include "tools/commands.h"
#include "tools/emit_kernels.h"
#include "tools/opt_command.h"
#include "tools/opt_flags.h"
#include "tools/opt_request.h"
#include "tools/model_format.h"
#include "tools/written_check.h"

namespace pet {
namespace {

std::string replace_extension(const std::string& path, const std::string& suffix) {
  std::filesystem::path p(path);
  bool known = p.extension() == ".onnx" || is_textual_ir_path(path);
  std::string stem = known ? p.stem().string() : p.filename().string();
  return (p.parent_path() / (stem + suffix)).string();
}

OptRequest parse_request(const CliArgs& args) {
  if (args.positionals().size() != 1)
    throw UserError(fmt::format("expected one model file, got {}; see pet-opt --help", args.positionals().size()));
  OptRequest request;
  request.model = args.positionals()[0];
  for (const OptFlag& flag : opt_flags()) flag.apply(args, request);
  if (request.output.empty())
    request.output = replace_extension(request.model, request.emit_ir ? ".opt.pet" : ".opt.onnx");
  if (request.report.empty()) request.report = replace_extension(request.output, ".json");
  const TargetSpec& target = request.optimize.target.spec;
  if (!request.emit_kernels.empty() && !target.emits_cuda_kernels())
    throw UserError(fmt::format("--emit-kernels writes CUDA kernels for a GPU target (--target h100, h200, a100, v100 "
                                "or a spec file); on {} the corrections run inside the written model ({}), so drop "
                                "--emit-kernels or choose a GPU target",
                                target.name(), target.correction_form()));
  // Read after every flag is checked, so a bad flag is reported before anything about the file.
  if (!is_textual_ir_path(request.model)) request.data_files = model_data_files(request.model);
  return request;
}

// Before any work: no output may name the model, its external data, the profile DB (read, and
// written by a measuring run) or the other output, and both outputs' folders must be writable.
void guard_request_paths(const OptRequest& request) {
  std::vector<GuardedPath> inputs = {{request.model, "the input model"}};
  for (const std::string& file : request.data_files) inputs.push_back({file, "the model's external data"});
  if (std::string db = profile_db_path(request.optimize.target_options()); !db.empty())
    inputs.push_back({db, request.optimize.target.profile_db.empty() ? "the profile DB" : "the profile DB (--profile-db)"});
  std::vector<GuardedPath> outputs = {{request.output, "the output (-o)"}, {request.report, "the report (--report)"}};
  if (!request.optimize.target.export_misses.empty()) outputs.push_back({request.optimize.target.export_misses, "the misses file (--export-misses)"});
  if (!request.emit_kernels.empty()) prepare_output_folder(request.emit_kernels, "--emit-kernels");
  if (!request.emit_kernels.empty())
    outputs.push_back({(std::filesystem::path(request.emit_kernels) / "manifest.json").string(),
                       "the kernel manifest (--emit-kernels)"});
  guard_output_paths(inputs, outputs);
}

// The request's own fields, then the pipeline's report (transformations, search, check), then the
// check of the written file (absent when the in-memory check failed and nothing was written).
std::string request_report(const OptRequest& request, const Graph& original, const OptimizeResult& result,
                           const WrittenCheck* written) {
  nlohmann::ordered_json report;
  report["model"] = request.model;
  report["output"] = request.output;
  report["mode"] = to_string(request.optimize.mode);
  report["beam"] = request.optimize.search.beam;
  report["seed"] = request.optimize.seed;
  report["nodes_before"] = original.nodes().size();
  report["nodes_after"] = result.graph.nodes().size();
  report["tolerance"] = {{"absolute", request.optimize.tolerance.absolute},
                         {"relative", request.optimize.tolerance.relative}};
  nlohmann::ordered_json pipeline = report_object(result, request.report_times);  // named: items() only refers to it
  for (auto& [key, value] : pipeline.items()) report[key] = std::move(value);
  if (written) report["written_check"] = written_check_json(*written);
  return report.dump(2) + "\n";
}

// The in-context scales the search priced with, for the terminal.
std::string context_summary(const cost::ContextScales& scales) {
  if (!scales.fitted && scales.coverage > 0)
    return fmt::format("  in-context calibration: none; the profiler's rows name {:.0f}% of the run's time by pet's "
                       "nodes (at least {:.0f}% needed), so the stand-alone group times stand\n",
                       100 * scales.coverage, 100 * cost::kMinCoverage);
  if (!scales.fitted) return "  in-context calibration: none (stand-alone group times as measured)\n";
  std::vector<std::string> ops;
  for (const auto& [op, scale] : scales.by_op) ops.push_back(fmt::format("{} {:.2f}", op, scale));
  return fmt::format("  in-context scales (the cleaned input run whole, {} of {} groups named by the profiler): {}; "
                     "other kernels {:.2f}; reorders {:.2f}; end to end {:.2f}\n",
                     scales.groups_matched, scales.groups, fmt::join(ops, ", "), scales.overall, scales.reorder,
                     scales.end_to_end);
}


// What is left for any rewrite that keeps the FLOPs: the input's and the written model's distance
// from the CPU's arithmetic peak.
std::string floor_summary(const FloorReport& floor, int threads) {
  if (!floor.known) return "";
  return fmt::format("  physical floor: {:.2f} GFLOP of Conv/MatMul/Gemm at this CPU's {} of {:.1f} GFLOP/s at {} "
                     "thread{}{} = {:.1f} us; the input runs at {:.1f}% of it, the written model at {:.1f}% ({})\n",
                     floor.flops / 1e9, floor.peak, floor.peak_gflops, threads, threads == 1 ? "" : "s",
                     floor.replayed ? " (from the profile DB)" : "", floor.floor_us, 100 * floor.input_fraction,
                     100 * floor.written_fraction, cost::floor_headroom(floor.written_fraction));
}

// A GPU target: which card recorded the times it replayed, and the misses it exported.
std::string gpu_summary(const TargetReport& report) {
  if (!report.target.measured || !TargetSpec::parse(report.target.name).timed_elsewhere()) return "";
  std::string text =
      report.target.runtime.empty()
          ? fmt::format("  recorded on: no card; the profile DB holds no times of this build's GPU kernels ({}), so "
                        "every cost is estimated{}\n",
                        runtime::gpu_kernels_tag(),
                        report.other_kernels.empty()
                            ? ""
                            : fmt::format(" (it holds {}, set aside: pet-gpu's kernels changed since; a check on "
                                          "the card times this build's, docs/GPU.md)",
                                          report.other_kernels))
          : fmt::format("  recorded on: {} ({})\n", report.target.cpu, report.target.runtime);
  if (!report.misses_file.empty())
    text += fmt::format("  exported {} timing request{} the profile DB lacks to {} in {:.1f} s (time them on a GPU "
                        "machine with pet-gpu measure {} --out RESULTS, then pet-profile --import RESULTS --misses {} "
                        "--out DB)\n",
                        report.misses, report.misses == 1 ? "" : "s", report.misses_file,
                        report.sources.recording_seconds, report.misses_file, report.misses_file);
  return text;
}

// The measured before/after latencies and the choice, for a measured target.
std::string measured_summary(const OptimizeResult& result) {
  const Selection& selection = result.target.selection;
  if (selection.source == SelectionSource::none) return "";
  std::string text;
  if (selection.source != SelectionSource::estimated) {
    const TimedCandidate& input = selection.candidates[0];
    const TimedCandidate& chosen = selection.candidates[selection.chosen];
    text += fmt::format("  {} latency in {}: input {:.1f} us +- {:.1f} -> written {:.1f} us +- {:.1f} ({:.3f}x, median of "
                        "{} interleaved runs)\n",
                        to_string(selection.source), result.target.target.runtime, input.median_us, input.spread_us, chosen.median_us,
                        chosen.spread_us, input.median_us / chosen.median_us, chosen.runs);
  }
  for (const TimedCandidate& candidate : selection.candidates)
    if (!candidate.rejected.empty()) text += fmt::format("  {} not timed: {}\n", candidate.label, candidate.rejected);
  text += fmt::format("  chose {}: {}\n", selection.candidates[selection.chosen].label, selection.reason);
  const cost::CostSources& sources = result.target.sources;
  std::string refused = sources.refused == 0 ? ""
                        : fmt::format(", {} refused by pet-gpu (programs with them ranked past every runnable one)",
                                      sources.refused);
  text += fmt::format("  kernel costs: {} measured ({:.1f} s), {} replayed, {} estimated{}; profile DB {}\n",
                      sources.measured, sources.measuring_seconds, sources.replayed, sources.estimated, refused,
                      result.target.profile_db);
  text += gpu_summary(result.target);
  if (result.target.calibrated)
    text += fmt::format("  calibration: predicted {:.1f} us for the cleaned input, measured {:.1f} us ({:+.1f}%; the "
                        "stand-alone sum {:.1f} us, {:+.1f}%)\n",
                        selection.candidates[1].predicted_us, selection.candidates[1].median_us,
                        100 * result.target.calibration_error, result.target.standalone_predicted_us,
                        100 * result.target.standalone_calibration_error);
  if (std::string stale = stale_profile_note(result.target); !stale.empty()) text += "  warning: " + stale + "\n";
  text += context_summary(result.target.context);
  text += floor_summary(result.target.floor, result.target.target.threads);
  return text;
}

// For openvino-cpu, pet's fused correction is written as its extension op (one kernel in OpenVINO
// with libpet_openvino_extension.so) unless --portable asks for standard ops only.
ExportOptions written_form(const OptRequest& request) {
  bool portable = request.optimize.target.portable;
  bool extension = request.optimize.target.spec.runs_correction_extension_op() && !portable &&
                   !runtime::default_openvino_extension().empty();
  bool onnx_runtime = request.optimize.target.spec.runs_onnx_runtime_ops() && !portable;
  return {.extension_ops = extension, .onnx_runtime_ops = onnx_runtime};
}

// The written model staged beside the output: textual IR (its text also left in `ir_text` for the
// check); the input's own bytes when the measured selection kept the input and the input is a
// self-contained ONNX file read as it is (no --input-shape, no external data), so "written
// unchanged" is literal; otherwise pet's export of what it chose, streamed into the file (no copy of
// its bytes whole beside the model's weights).
StagedFile staged_model(const OptRequest& request, const OptimizeResult& result, std::string& ir_text) {
  if (request.writes_ir()) {
    ir_text = textual_ir(result.graph);
    return StagedFile(request.output, ir_text, "model");
  }
  const Selection& selection = result.target.selection;
  const bool kept_input = selection.source != SelectionSource::none && selection.chosen == 0;
  if (kept_input && !is_textual_ir_path(request.model) && request.import.input_shapes.empty() &&
      request.data_files.empty())
    return StagedFile(request.output, read_whole_file(request.model, "model"), "model");
  ExportOptions options = written_form(request);
  return StagedFile(request.output, [&](int fd) { return write_onnx(result.graph, fd, options); }, "model");
}

bool uses_extension_ops(const Graph& graph) {
  return std::any_of(graph.nodes().begin(), graph.nodes().end(),
                     [](const Node& node) { return !node.def->extension_domain.empty(); });
}

// Where the written model needs pet's OpenVINO extension, the summary says how to load it.
std::string extension_note(const OptRequest& request, const Graph& written) {
  if (!written_form(request).extension_ops || request.writes_ir() || !uses_extension_ops(written)) return "";
  return fmt::format("  the model uses pet's fused correction op (ONNX domain {}); in OpenVINO load "
                     "core.add_extension(\"{}\") first, or write standard ops only with --portable\n",
                     kPetDomain, runtime::default_openvino_extension());
}

void print_summary(std::ostream& out, const OptRequest& request, const Graph& original, const OptimizeResult& result,
                   const WrittenCheck& written) {
  out << fmt::format("pet-opt {} (mode {}, beam {}, target {}, seed {})\n", request.model, to_string(request.optimize.mode),
                     request.optimize.search.beam, result.device, request.optimize.seed);
  out << report_table(result);
  out << measured_summary(result);
  std::vector<std::string> passes;
  for (const PassResult& pass : result.passes)
    if (pass.changes > 0) passes.push_back(fmt::format("{} {}", pass.pass, pass.changes));
  out << fmt::format("  passes: {}\n", passes.empty() ? "no changes" : fmt::format("{}", fmt::join(passes, ", ")));
  out << fmt::format("  nodes {} -> {}\n", original.nodes().size(), result.graph.nodes().size());
  for (const OutputDifference& output : result.check.outputs)
    out << fmt::format("  check '{}': max abs error {:.3g}, max rel error {:.3g} ({}{})\n", output.name,
                       output.max_abs_error, output.max_rel_error, output.passed ? "ok" : "FAILED",
                       result.check.same_graph ? ", the input's own graph: not run again" : "");
  out << written_check_summary(written);
  out << extension_note(request, result.graph);
  double total = 0;
  for (const StageTime& time : result.times) total += time.seconds;
  out << fmt::format("  wrote {} and {} in {:.2f} s\n", request.output, request.report, total);
}

// The descriptor $PET_PROGRESS_FD names (the Python package's pet.optimize reads the search's
// progress there, a pipe; 2 puts the lines on stderr, as in a log), or -1 where it is unset.
// Anything else is a UserError. A descriptor above 2 is closed on exec, so that only this process
// holds the writing end the reader waits on (the runtime workers it starts do not).
int progress_descriptor() {
  const char* text = std::getenv("PET_PROGRESS_FD");
  if (text == nullptr || *text == '\0') return -1;
  char* end = nullptr;
  long fd = std::strtol(text, &end, 10);
  if (*end != '\0' || fd < 0 || fd > 1'000'000 || fcntl(static_cast<int>(fd), F_GETFD) == -1)
    throw UserError(fmt::format("PET_PROGRESS_FD is '{}', which is not an open file descriptor; it names the pipe "
                                "pet.optimize reads the search's progress from, so unset it when running pet-opt "
                                "yourself",
                                text));
  if (fd > STDERR_FILENO) fcntl(static_cast<int>(fd), F_SETFD, FD_CLOEXEC);
  return static_cast<int>(fd);
}

// Writes `line` and a newline to `fd`, whole, retrying after signals; a reader gone is not an error
// of the run (and where the reader's process died, the pipe's SIGPIPE ends this one too).
void write_progress_line(int fd, const std::string& line) {
  std::string text = line + "\n";
  for (size_t done = 0; done < text.size();) {
    ssize_t wrote = ::write(fd, text.data() + done, text.size() - done);
    if (wrote < 0 && errno == EINTR) continue;
    if (wrote <= 0) return;
    done += static_cast<size_t>(wrote);
  }
}

// The search's progress: one line each to $PET_PROGRESS_FD where it is set; else on a terminal
// overwriting one line; elsewhere it stays quiet.
std::function<void(const std::string&)> progress_display(std::ostream& err) {
  if (&err != &std::cerr) return {};
  int fd = progress_descriptor();
  if (fd >= 0) return [fd](const std::string& line) { write_progress_line(fd, line); };
  if (!isatty(STDERR_FILENO)) return {};
  return [&err](const std::string& line) { err << "\r\033[K" << line << std::flush; };
}

// Whether progress_display(err) overwrites a terminal's line, which the run clears at its end.
bool progress_on_terminal(const std::ostream& err) {
  const char* fd = std::getenv("PET_PROGRESS_FD");
  return &err == &std::cerr && isatty(STDERR_FILENO) && (fd == nullptr || *fd == '\0');
}

WrittenCheckOptions written_check_options(const OptRequest& request, const OptimizeResult& result) {
  WrittenCheckOptions options;
  options.reference_outputs = request.optimize.hooks.reference_outputs;
  options.seed = request.optimize.seed;
  options.tolerance = request.optimize.tolerance;
  if (request.optimize.target.spec.timed_here() || request.optimize.target.live)
    options.runtime_target = TargetSpec::parse(request.optimize.target.spec.name(), result.target.target.threads);
  return options;
}

// The in-memory check failed: only the report is written, and the message says whose fault it is.
int report_failed_check(const OptRequest& request, const Graph& original, const OptimizeResult& result,
                        std::ostream& err) {
  write_file_atomically(request.report, request_report(request, original, result, nullptr), "report");
  if (result.check.inconclusive)
    err << fmt::format("pet-opt: {} (seed {}); nothing was written but the report {}. Check that the model computes "
                       "finite values on inputs in [-1, 1) (pet-run shows its outputs), or give it inputs of the "
                       "shapes and ranges it expects.\n",
                       result.check.failure_reason(), result.check.seed, request.report);
  else
    err << fmt::format("pet-opt: {} (seed {}); nothing was written but the report {}. This is a bug in pet; please "
                       "report it with the model.\n",
                       result.check.failure_reason(), result.check.seed, request.report);
  return 1;
}

// The staged output read back: textual IR parsed, ONNX imported (and run in a measured target).
WrittenCheck check_output(const Graph& original, const OptRequest& request, const StagedFile& file,
                          const std::string& text, const WrittenCheckOptions& options) {
  if (request.writes_ir()) return check_written_ir(original, text, options);
  return check_written_model(original, file.temporary_path(), options);
}

// --passes: the named passes alone, in order; the result is checked like an optimized model (read
// back, on three draws) and written without a report.
int run_pass_list(const OptRequest& request, const Graph& original, std::ostream& out, std::ostream& err) {
  Graph graph = original;
  std::vector<PassResult> results = run_passes(graph, request.passes);
  std::string ir_text = request.writes_ir() ? textual_ir(graph) : "";
  StagedFile file = request.writes_ir()
                        ? StagedFile(request.output, ir_text, "model")
                        : StagedFile(request.output, [&](int fd) { return write_onnx(graph, fd); }, "model");
  WrittenCheckOptions options;
  options.seed = request.optimize.seed;
  options.tolerance = request.optimize.tolerance;
  WrittenCheck written = check_output(original, request, file, ir_text, options);
  if (!written.passed) {
    err << written_check_summary(written);
    err << "pet-opt: the passes changed what the model computes; nothing was written. This is a bug in pet; please "
           "report it with the model and the --passes list.\n";
    return 1;
  }
  file.commit();
  std::vector<std::string> changes;
  for (const PassResult& pass : results) changes.push_back(fmt::format("{} {}", pass.pass, pass.changes));
  out << fmt::format("pet-opt {}: passes {}\n", request.model, fmt::join(changes, ", "));
  out << fmt::format("  nodes {} -> {}\n", original.nodes().size(), graph.nodes().size());
  out << written_check_summary(written);
  out << fmt::format("  wrote {}\n", request.output);
  return 0;
}

}  // namespace

OptRequest parse_opt_request(const CliArgs& args) { return parse_request(args); }

// The model goes to a temporary file beside the output, which pet reads again and checks (on
// several draws, and in the target runtime); only then are the model and the report renamed into
// place. A failed check leaves the report alone (it says what failed) and exits 1.
int run_opt_request(OptRequest& request, std::ostream& out, std::ostream& err) {
  guard_request_paths(request);
  auto start = std::chrono::steady_clock::now();
  Graph original = read_model(request.model, request.import);
  if (!request.writes_ir())  // refused before the search rather than at the writing
    check_writable_size(written_constant_bytes(original));
  double import_seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  if (!request.passes.empty()) return run_pass_list(request, original, out, err);
  ReferenceOutputs reference(original);  // the original runs once per draw across all the checks
  request.optimize.hooks.reference_outputs = &reference;
  OptimizeResult result = optimize(original, request.optimize);
  if (request.optimize.hooks.progress && progress_on_terminal(err)) err << "\r\033[K" << std::flush;
  result.times.insert(result.times.begin(), {is_textual_ir_path(request.model) ? "ir-parse" : "onnx-import",
                                             import_seconds});
  if (!result.check.passed) return report_failed_check(request, original, result, err);
  start = std::chrono::steady_clock::now();
  std::string ir_text;
  StagedFile model_file = staged_model(request, result, ir_text);
  WrittenCheck written =
      check_output(original, request, model_file, ir_text, written_check_options(request, result));
  result.times.push_back({"written-check", std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count()});
  throw_if_cancelled(request.optimize.hooks.cancelled);  // the staged model is removed: nothing is written
  std::string report = request_report(request, original, result, &written);
  if (!written.passed) {
    write_file_atomically(request.report, report, "report");
    err << written_check_summary(written);
    err << fmt::format("pet-opt: the written model failed the final check; nothing was written but the report {}. "
                       "This is a bug in pet; please report it with the model.\n",
                       request.report);
    return 1;
  }
  StagedFile report_file(request.report, report, "report");
  model_file.commit();
  report_file.commit();
  print_summary(out, request, original, result, written);
  if (!request.emit_kernels.empty()) {
    int kernels = write_correction_kernels(request.emit_kernels, result.graph, result.transformations);
    out << fmt::format("  emitted {} correction kernel{} into {} (manifest.json lists them{})\n", kernels,
                       kernels == 1 ? "" : "s", request.emit_kernels,
                       kernels == 0 ? ": the written model has no corrected partial mutant" : "");
  }
  return 0;
}

int pet_opt_main(const std::vector<std::string>& args, std::ostream& out, std::ostream& err) {
  return pet_opt_main(args, out, err, {});
}

int pet_opt_main(const std::vector<std::string>& args, std::ostream& out, std::ostream& err,
                 const std::function<bool()>& cancelled) {
  return run_guarded("pet-opt", err, [&] {
    CliArgs parsed = parse_opt_args(args);
    if (parsed.has("--help") || parsed.has("-h")) {
      out << pet_opt_help();
      return 0;
    }
    OptRequest request = parse_opt_request(parsed);
    request.optimize.hooks.progress = progress_display(err);
    request.optimize.hooks.cancelled = cancelled;
    return run_opt_request(request, out, err);
  });
}

}  // namespace pet
