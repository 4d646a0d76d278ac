// Re-imports the staged output file, checks it on several seeded draws, then once in the target runtime.
#include "tools/written_check.h"

#include <algorithm>

#include <fmt/format.h>

#include "core/error.h"
#include "core/executor.h"
#include "core/file_safety.h"
#include "core/onnx_import.h"
#include "core/text_ir.h"
#include "kernels/runtime/runtime.h"

namespace pet {
namespace {

// The runtime's outputs on one draw against pet's executor on the original graph.
RuntimeCheck run_in_runtime(const Graph& original, const std::string& bytes, const WrittenCheckOptions& options) {
  RuntimeCheck check;
  check.target = options.runtime_target->name();
  check.seed = options.seed;
  std::unique_ptr<runtime::Runtime> runtime;
  try {
    runtime = options.runtime_target->open_runtime();
  } catch (const UserError& error) {
    check.unavailable = error.what();
    return check;
  }
  check.version = runtime->version();
  std::vector<Tensor> inputs = random_inputs(original, options.seed);
  PET_CHECK(!options.reference_outputs || options.reference_outputs->is_of(original),
            "reference outputs made for another graph");
  std::vector<Tensor> computed;
  if (!options.reference_outputs) computed = execute(original, inputs);
  const std::vector<Tensor>& expected =
      options.reference_outputs ? options.reference_outputs->on(options.seed, 1, inputs) : computed;
  std::vector<Tensor> actual;
  try {
    actual = runtime->run_model(bytes, inputs, options.runtime_target->resolved_threads());
  } catch (const UserError& error) {  // the model pet wrote: pet's fault, not the user's
    check.rejected = error.what();
    check.passed = false;
    return check;
  }
  PET_CHECK(actual.size() == expected.size(), fmt::format("{} answered {} outputs for a model with {}", check.target,
                                                          actual.size(), expected.size()));
  for (size_t i = 0; i < expected.size(); ++i) {
    check.outputs.push_back(compare_outputs(original.value(original.outputs()[i]).name, expected[i], actual[i],
                                            options.tolerance, runtime->computes_in(expected[i].dtype())));
    check.passed = check.passed && check.outputs.back().passed;
  }
  return check;
}

nlohmann::ordered_json outputs_json(const std::vector<OutputDifference>& outputs) {
  nlohmann::ordered_json json = nlohmann::ordered_json::array();
  for (const OutputDifference& output : outputs)
    json.push_back({{"name", output.name},
                    {"dtype", std::string(dtype_name(output.dtype))},
                    {"max_abs_error", output.max_abs_error},
                    {"max_rel_error", output.max_rel_error},
                    {"elements_outside_tolerance", output.elements_outside},
                    {"passed", output.passed}});
  return json;
}

// The written graph against the original on each seeded draw.
void compare_draws(const Graph& original, const Graph& written, const WrittenCheckOptions& options,
                   WrittenCheck& check) {
  for (int draw = 0; draw < options.draws; ++draw) {
    check.draws.push_back(differential(original, written, options.seed + static_cast<uint64_t>(draw), options.tolerance,
                                       options.reference_outputs));
    check.passed = check.passed && check.draws.back().passed;
  }
}

}  // namespace

double RuntimeCheck::max_abs_error() const {
  double worst = 0;
  for (const OutputDifference& output : outputs) worst = std::max(worst, output.max_abs_error);
  return worst;
}

WrittenCheck check_written_ir(const Graph& original, const std::string& text, const WrittenCheckOptions& options) {
  WrittenCheck check;
  Graph written;
  try {
    written = parse_graph(text);
  } catch (const UserError& error) {
    check.import_error = error.what();
    check.passed = false;
    return check;
  }
  compare_draws(original, written, options, check);
  return check;
}

WrittenCheck check_written_model(const Graph& original, const std::string& path, const WrittenCheckOptions& options,
                                 const std::optional<std::string>& runtime_bytes) {
  WrittenCheck check;
  std::optional<Graph> written;
  try {
    written = import_onnx(path);
  } catch (const UserError& error) {
    check.import_error = error.what();
    check.passed = false;
    return check;
  }
  compare_draws(original, *written, options, check);
  written.reset();  // before the runtime's copy of the bytes
  if (check.passed && options.runtime_target) {
    check.runtime = run_in_runtime(original, runtime_bytes ? *runtime_bytes : read_whole_file(path, "written model"),
                                   options);
    check.passed = check.runtime->passed;
  }
  return check;
}

nlohmann::ordered_json written_check_json(const WrittenCheck& check) {
  nlohmann::ordered_json json;
  json["passed"] = check.passed;
  if (!check.import_error.empty()) json["import_error"] = check.import_error;
  json["draws"] = nlohmann::ordered_json::array();
  for (const DifferentialReport& draw : check.draws)
    json["draws"].push_back({{"seed", draw.seed},
                             {"passed", draw.passed},
                             {"same_graph", draw.same_graph},
                             {"max_abs_error", draw.max_abs_error()},
                             {"outputs", outputs_json(draw.outputs)}});
  if (check.runtime) {
    const RuntimeCheck& runtime = *check.runtime;
    nlohmann::ordered_json& json_runtime = json["runtime"];
    json_runtime["target"] = runtime.target;
    if (!runtime.unavailable.empty()) {
      json_runtime["skipped"] = runtime.unavailable;
    } else {
      json_runtime["runtime"] = runtime.version;
      json_runtime["seed"] = runtime.seed;
      json_runtime["passed"] = runtime.passed;
      if (!runtime.rejected.empty()) json_runtime["rejected"] = runtime.rejected;
      json_runtime["max_abs_error"] = runtime.max_abs_error();
      json_runtime["outputs"] = outputs_json(runtime.outputs);
    }
  }
  return json;
}

std::string written_check_summary(const WrittenCheck& check) {
  if (!check.import_error.empty())
    return fmt::format("  written file: pet cannot import it again: {}\n", check.import_error);
  std::vector<std::string> draws;
  for (const DifferentialReport& draw : check.draws)
    draws.push_back(fmt::format("seed {} max abs error {:.3g} ({}{})", draw.seed, draw.max_abs_error(),
                                draw.passed ? "ok" : "FAILED", draw.same_graph ? ", the same graph: not run again" : ""));
  std::string text = fmt::format("  written file re-imported and checked: {}\n", fmt::join(draws, "; "));
  if (!check.runtime) return text;
  const RuntimeCheck& runtime = *check.runtime;
  if (!runtime.unavailable.empty())
    return text + fmt::format("  {} check skipped: {}\n", runtime.target, runtime.unavailable);
  if (!runtime.rejected.empty())
    return text + fmt::format("  written file in {} ({}): the runtime refused it: {} (FAILED)\n", runtime.target,
                              runtime.version, runtime.rejected);
  return text + fmt::format("  written file in {} ({}), seed {}: max abs error {:.3g} against pet's executor ({})\n",
                            runtime.target, runtime.version, runtime.seed, runtime.max_abs_error(),
                            runtime.passed ? "ok" : "FAILED");
}

}  // namespace pet
