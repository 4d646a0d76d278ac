// Loads an ONNX test folder, runs it on the executor and compares with the expected outputs.
#include "tests/test_temp_dir.h"
#include "tests/conformance/conformance_case.h"

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <optional>
#include <regex>
#include <set>

#include <fmt/format.h>
#include <onnx/onnx_pb.h>

#include "core/error.h"
#include "core/executor.h"
#include "core/float16.h"
#include "core/onnx_import.h"
#include "core/onnx_tensor.h"

namespace pet::testing {

namespace fs = std::filesystem;

static const char* kDataRoot = "/usr/share/libonnx-testdata/data";

// The suites' folders: Debian's ONNX 1.12 data, and ONNX 1.16's node tests as generated into the
// build folder by scripts/onnx-testdata.sh (opsets up to 21, float16 cases).
static fs::path suite_root(const std::string& suite) {
  if (suite == kNodeSuite116) return fs::path(PET_BINARY_DIR) / "onnx-testdata-1.16" / "node";
  return fs::path(kDataRoot) / suite;
}

std::vector<std::string> conformance_cases(const std::string& suite) {
  std::vector<std::string> folders;
  fs::path root = suite_root(suite);
  if (!fs::exists(root)) return folders;
  const char* filter = std::getenv("PET_CONFORMANCE_FILTER");
  std::regex pattern(filter ? filter : ".*", std::regex::icase);
  for (const auto& entry : fs::directory_iterator(root))
    if (fs::exists(entry.path() / "model.onnx") && std::regex_search(entry.path().filename().string(), pattern))
      folders.push_back(entry.path().string());
  std::sort(folders.begin(), folders.end());
  return folders;
}

static bool is_unsupported(const std::string& message) {
  return message.find("is not supported") != std::string::npos || message.find("pet supports") != std::string::npos;
}

static std::vector<Tensor> load_numbered(const fs::path& dir, const std::string& prefix) {
  std::vector<Tensor> tensors;
  for (int i = 0;; ++i) {
    fs::path file = dir / fmt::format("{}_{}.pb", prefix, i);
    if (!fs::exists(file)) break;
    tensors.push_back(read_tensor_file(file.string()));
  }
  return tensors;
}

static onnx::ModelProto read_model(const fs::path& folder) {
  onnx::ModelProto model;
  std::ifstream file(folder / "model.onnx", std::ios::binary);
  model.ParseFromIstream(&file);
  return model;
}

CaseInfo describe_case(const std::string& folder) {
  onnx::ModelProto model = read_model(folder);
  CaseInfo info;
  for (const auto& entry : model.opset_import())
    if (entry.domain().empty() || entry.domain() == "ai.onnx") info.opset = static_cast<int>(entry.version());
  for (const auto* values : {&model.graph().input(), &model.graph().output()})
    for (const auto& value : *values)
      info.float16 = info.float16 || value.type().tensor_type().elem_type() == onnx::TensorProto::FLOAT16;
  return info;
}

// Float16 outputs are compared as float16: pet's f32 result is rounded like the model's output,
// within a float16-sized tolerance (the reference computed its intermediates in float16, each
// rounding worth up to 2^-11 relative).
// Integers and bool compare exactly; bfloat16 within its 8-bit significand.
static std::string compare(const Tensor& expected, Tensor got, size_t index, bool float16) {
  if (expected.type() != got.type())
    return fmt::format("output {}: expected {}, got {}", index, expected.type().to_string(), got.type().to_string());
  if (float16)
    for (float& value : got.mutable_f32()) value = round_to_half(value);
  bool coarse = float16 || expected.dtype() == DType::bf16;
  double rtol = coarse ? 1e-2 : 1e-3, atol = coarse ? 1e-3 : 1e-5;
  for (int64_t i = 0; i < expected.numel(); ++i) {
    double want = expected.as_double(i), have = got.as_double(i);
    bool same = is_float_dtype(expected.dtype())
                    ? (std::isnan(want) && std::isnan(have)) || want == have ||
                          std::abs(want - have) <= atol + rtol * std::abs(want)
                    : want == have;
    if (!same) return fmt::format("output {} element {}: expected {}, got {}", index, i, want, have);
  }
  return "";
}

// ONNX node tests feed shape-like operands (pads, axes, starts, scales...) as graph inputs. pet
// compiles static graphs, so, like any static-shape compiler, it specializes the model on the
// data set's value of exactly the inputs an op asks to be constant, and runs the rest as usual.
struct SpecializedModel {
  std::string path;
  std::set<std::string> baked_inputs;
};

static std::optional<std::string> input_needed_as_constant(const onnx::ModelProto& model, const std::string& message) {
  static const std::regex pattern(R"(node '(.*)' \((\w+), opset \d+\): input (\d+) \(.*must be a constant)");
  std::smatch match;
  if (!std::regex_search(message, match, pattern)) return std::nullopt;
  for (int i = 0; i < model.graph().node_size(); ++i) {
    const auto& node = model.graph().node(i);
    std::string name = node.name().empty() ? fmt::format("{}_{}", node.op_type(), i) : node.name();
    int input = std::stoi(match[3].str());
    if (name == match[1].str() && input < node.input_size()) return node.input(input);
  }
  return std::nullopt;
}

static void bake_input(onnx::ModelProto& model, const std::string& name, const Tensor& value) {
  auto* inputs = model.mutable_graph()->mutable_input();
  for (int i = 0; i < inputs->size(); ++i)
    if (inputs->Get(i).name() == name) {
      inputs->DeleteSubrange(i, 1);
      break;
    }
  tensor_to_proto(value, name, *model.mutable_graph()->add_initializer());
}

// `value` when it is a graph input, else the shape-like (non-float) graph inputs it is computed
// from, in model order (float data stays a run-time input).
static std::vector<std::string> upstream_inputs(const onnx::ModelProto& model, const std::string& value,
                                                const std::map<std::string, Tensor>& inputs) {
  if (inputs.count(value)) return {value};
  std::set<std::string> needed{value};
  for (int i = model.graph().node_size() - 1; i >= 0; --i) {
    const auto& node = model.graph().node(i);
    bool feeds = std::any_of(node.output().begin(), node.output().end(), [&](const auto& o) { return needed.count(o); });
    if (feeds) needed.insert(node.input().begin(), node.input().end());
  }
  std::vector<std::string> names;
  for (const auto& input : model.graph().input())
    if (needed.count(input.name()) && inputs.count(input.name()) && inputs.at(input.name()).dtype() != DType::f32)
      names.push_back(input.name());
  return names;
}

// Imports the model, baking inputs in from `inputs` (by graph input name) while the importer
// reports one it needs constant: the input itself, or the graph inputs it is computed from (a
// crop's pads computed from its shape input).
static Graph import_specialized(const fs::path& folder, int data_set, const std::map<std::string, Tensor>& inputs,
                                std::set<std::string>& baked) {
  std::string path = (folder / "model.onnx").string();
  onnx::ModelProto model;
  std::ifstream file(path, std::ios::binary);
  model.ParseFromIstream(&file);
  for (int attempt = 0;; ++attempt) {
    try {
      return import_onnx(path);
    } catch (const UserError& error) {
      auto name = input_needed_as_constant(model, error.what());
      if (!name || attempt > 16) throw;
      std::vector<std::string> sources = upstream_inputs(model, *name, inputs);
      std::erase_if(sources, [&](const std::string& source) { return baked.count(source) > 0; });
      if (sources.empty()) throw;
      for (const std::string& source : sources) {
        bake_input(model, source, inputs.at(source));
        baked.insert(source);
      }
      path = (pet::testing::private_temp_dir() / fmt::format("pet_conformance_{}_{}.onnx", folder.filename().string(), data_set)).string();
      std::ofstream out(path, std::ios::binary);
      model.SerializeToOstream(&out);
    }
  }
}

static std::vector<std::string> graph_input_names(const fs::path& folder) {
  onnx::ModelProto model;
  std::ifstream file(folder / "model.onnx", std::ios::binary);
  model.ParseFromIstream(&file);
  std::set<std::string> initializers;
  for (const auto& init : model.graph().initializer()) initializers.insert(init.name());
  std::vector<std::string> names;
  for (const auto& input : model.graph().input())
    if (!initializers.count(input.name())) names.push_back(input.name());
  return names;
}

static bool needs_constant_input(const std::string& message) {
  return message.find("must be a constant") != std::string::npos;
}

// Imports first, so models with sequence or optional values are rejected before their data
// files (which are not TensorProtos) are read.
static std::string run_data_set(const fs::path& folder, int s) {
  std::optional<Graph> plain;
  try {
    plain = import_onnx((folder / "model.onnx").string());
  } catch (const UserError& error) {
    if (!needs_constant_input(error.what())) throw;
  }
  fs::path dir = folder / fmt::format("test_data_set_{}", s);
  std::vector<Tensor> inputs = load_numbered(dir, "input");
  std::vector<Tensor> expected = load_numbered(dir, "output");
  std::vector<std::string> names = graph_input_names(folder);
  std::map<std::string, Tensor> by_name;
  for (size_t i = 0; i < inputs.size() && i < names.size(); ++i) by_name[names[i]] = inputs[i];
  std::set<std::string> baked;
  Graph graph = plain ? std::move(*plain) : import_specialized(folder, s, by_name, baked);
  std::vector<Tensor> runtime_inputs;
  for (size_t i = 0; i < inputs.size() && i < names.size(); ++i)
    if (!baked.count(names[i])) {
      size_t position = runtime_inputs.size();
      DType wanted = position < graph.inputs().size() ? graph.value(graph.inputs()[position]).type.dtype : inputs[i].dtype();
      runtime_inputs.push_back(as_stored_bfloat16(inputs[i], wanted));
      if (position < graph.inputs().size() && runtime_inputs.back().shape() != graph.value(graph.inputs()[position]).type.shape)
        throw UserError(fmt::format("a data set that contradicts its model is not supported: input '{}' is {} where the "
                                    "model declares {} (ONNX Runtime refuses it too)",
                                    names[i], runtime_inputs.back().shape().to_string(),
                                    graph.value(graph.inputs()[position]).type.shape.to_string()));
    }
  std::vector<Tensor> outputs = execute(graph, runtime_inputs);
  if (outputs.size() != expected.size()) return fmt::format("{} outputs, expected {}", outputs.size(), expected.size());
  for (size_t i = 0; i < outputs.size(); ++i) expected[i] = as_stored_bfloat16(expected[i], outputs[i].dtype());
  onnx::ModelProto model = read_model(folder);
  for (size_t i = 0; i < outputs.size(); ++i) {
    bool float16 = static_cast<int>(i) < model.graph().output_size() &&
                   model.graph().output(static_cast<int>(i)).type().tensor_type().elem_type() ==
                       onnx::TensorProto::FLOAT16;
    std::string difference = compare(expected[i], outputs[i], i, float16);
    if (!difference.empty()) return fmt::format("data set {}: {}", s, difference);
  }
  return "";
}

CaseResult run_conformance_case(const std::string& folder) {
  try {
    int sets = 0;
    for (; fs::exists(fs::path(folder) / fmt::format("test_data_set_{}", sets)); ++sets) {
      std::string failure = run_data_set(folder, sets);
      if (!failure.empty()) return {CaseStatus::Failed, failure};
    }
    if (sets == 0) return {CaseStatus::Failed, "no test_data_set_* folder"};
    return {CaseStatus::Passed, ""};
  } catch (const UserError& error) {
    return {is_unsupported(error.what()) ? CaseStatus::Unsupported : CaseStatus::Failed, error.what()};
  } catch (const std::exception& error) {
    return {CaseStatus::Failed, error.what()};
  }
}

}  // namespace pet::testing
