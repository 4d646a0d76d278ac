// pet-run: run a model on the CPU executor with given or seeded random inputs.
#include <algorithm>
#include <chrono>
#include <filesystem>
#include <map>

#include <fmt/format.h>

#include "core/error.h"
#include "core/executor.h"
#include "core/file_safety.h"
#include "core/onnx_import.h"
#include "core/onnx_tensor.h"
#include "tools/cli_args.h"
#include "tools/commands.h"
#include "tools/help_text.h"

namespace pet {
namespace {

// Output names may contain '/' or ':' (torch names values "/layer1/Relu_output_0").
std::string file_name_for(const std::string& value_name) {
  std::string name = value_name;
  for (char& c : name)
    if (!std::isalnum(static_cast<unsigned char>(c)) && c != '_' && c != '-' && c != '.') c = '_';
  return name + ".pb";
}

// The --input flags as (name, file) pairs.
std::vector<std::pair<std::string, std::string>> input_files(const CliArgs& args) {
  std::vector<std::pair<std::string, std::string>> files;
  for (const std::string& text : args.all("--input")) {
    size_t equals = text.find('=');
    if (equals == std::string::npos || equals == 0)
      throw UserError(fmt::format("--input '{}' is not NAME=FILE.pb", text));
    files.emplace_back(text.substr(0, equals), text.substr(equals + 1));
  }
  return files;
}

// A given tensor for an input of `type`: as read, except that a u16 file for a bf16 input holds its
// bits (ONNX's node tests up to 1.16 store bfloat16 tensors as UINT16), which is said on `out`.
Tensor as_input(const std::string& name, Tensor given, const TensorType& type, std::ostream& out) {
  if (given.dtype() != DType::u16 || type.dtype != DType::bf16 || given.shape() != type.shape) return given;
  out << fmt::format("input '{}': the uint16 file is taken as bfloat16 bits\n", name);
  return as_stored_bfloat16(given, type.dtype);
}

std::vector<Tensor> gather_inputs(const Graph& graph, const CliArgs& args, uint64_t seed, std::ostream& out) {
  std::map<std::string, Tensor> given;
  for (const auto& [name, file] : input_files(args)) given[name] = read_tensor_file(file);
  std::vector<Tensor> random = random_inputs(graph, seed);
  std::vector<Tensor> inputs;
  int random_count = 0;
  for (size_t i = 0; i < graph.inputs().size(); ++i) {
    const Value& input = graph.value(graph.inputs()[i]);
    auto found = given.find(input.name);
    if (found == given.end()) ++random_count;
    inputs.push_back(found == given.end() ? random[i] : as_input(input.name, found->second, input.type, out));
    if (found != given.end()) given.erase(found);
  }
  if (!given.empty())
    throw UserError(fmt::format("--input names '{}', which is not an input of the model", given.begin()->first));
  if (random_count) out << fmt::format("random values for {} input(s), seed {}\n", random_count, seed);
  return inputs;
}

double median(std::vector<double> values) {
  std::sort(values.begin(), values.end());
  size_t mid = values.size() / 2;
  return values.size() % 2 ? values[mid] : (values[mid - 1] + values[mid]) / 2;
}

// The output files under --output-dir, checked before the model runs: the folder is writable and no
// file names the model, its external data, an --input file or another output.
std::vector<std::string> output_files(const Graph& graph, const CliArgs& args, const std::string& folder) {
  prepare_output_folder(folder, "--output-dir");
  std::string model = args.positionals()[0];
  std::vector<GuardedPath> inputs = {{model, "the model"}};
  for (const std::string& file : model_data_files(model)) inputs.push_back({file, "the model's external data"});
  for (const auto& [name, file] : input_files(args)) inputs.push_back({file, "the --input file"});
  std::vector<GuardedPath> outputs;
  std::vector<std::string> paths;
  std::map<std::string, std::string> output_by_file;
  for (ValueId id : graph.outputs()) {
    const std::string& name = graph.value(id).name;
    auto [first, fresh] = output_by_file.emplace(file_name_for(name), name);
    if (!fresh)
      throw UserError(fmt::format("outputs '{}' and '{}' would both be written to '{}' under --output-dir; rename one "
                                  "of them in the model",
                                  first->second, name, first->first));
    paths.push_back((std::filesystem::path(folder) / file_name_for(name)).string());
    outputs.push_back({paths.back(), fmt::format("the file for output '{}'", name), "choose another --output-dir"});
  }
  guard_output_paths(inputs, outputs);
  return paths;
}

int run_model(const CliArgs& args, std::ostream& out) {
  if (args.positionals().size() != 1)
    throw UserError(fmt::format("expected one model file, got {}; see pet-run --help", args.positionals().size()));
  ImportOptions import;
  for (const std::string& text : args.all("--input-shape")) {
    auto [name, shape] = parse_input_shape(text);
    import.input_shapes[name] = shape;
  }
  Graph graph = import_onnx(args.positionals()[0], import);
  auto seed = static_cast<uint64_t>(args.integer("--seed", 2026, 0, INT64_MAX));
  int64_t repeat = args.integer("--repeat", 1, 1, 100000);
  auto output_dir = args.last("--output-dir");
  std::vector<std::string> paths = output_dir ? output_files(graph, args, *output_dir) : std::vector<std::string>{};
  std::vector<Tensor> inputs = gather_inputs(graph, args, seed, out);
  std::vector<double> times;
  std::vector<Tensor> outputs;
  for (int64_t r = 0; r < repeat; ++r) {
    auto start = std::chrono::steady_clock::now();
    outputs = execute(graph, inputs);
    times.push_back(std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count());
  }
  for (size_t i = 0; i < outputs.size(); ++i) {
    const std::string& name = graph.value(graph.outputs()[i]).name;
    out << fmt::format("output '{}': {}\n", name, outputs[i].type().to_string());
    if (output_dir) write_tensor_file(paths[i], outputs[i], name);
  }
  out << fmt::format("cpu median latency {:.2f} ms over {} run(s)\n", median(times), repeat);
  return 0;
}

}  // namespace

int pet_run_main(const std::vector<std::string>& args, std::ostream& out, std::ostream& err) {
  return run_guarded("pet-run", err, [&] {
    CliArgs parsed("pet-run", args, {"--input", "--input-shape", "--output-dir", "--repeat", "--seed"}, {"--help", "-h"});
    if (parsed.has("--help") || parsed.has("-h")) {
      out << kPetRunHelp;
      return 0;
    }
    return run_model(parsed, out);
  });
}

}  // namespace pet
