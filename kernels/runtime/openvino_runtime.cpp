// The openvino-cpu target: compiles serialized ONNX models on OpenVINO's CPU plugin and times them interleaved.
#include "kernels/runtime/openvino_runtime.h"

#include <algorithm>
#include <chrono>
#include <cstring>
#include <mutex>
#include <optional>
#include <random>
#include <sstream>
#include <utility>

#include <fmt/format.h>
#include <openvino/openvino.hpp>

#include "core/error.h"
#include "core/onnx_mapping.h"

namespace pet::runtime {
namespace {

// One model ready to run; the request is declared last so it is destroyed before its model.
struct LoadedModel {
  std::vector<ov::element::Type> declared_outputs;  // the model's output types, before OpenVINO compiles it
  ov::CompiledModel compiled;
  ov::InferRequest request;
};

// The profiler's rows of one model: identities from the first timed run, one sample per timed run.
struct NodeSamples {
  std::vector<ov::ProfilingInfo> rows;
  std::vector<std::vector<double>> microseconds;
};

double median(std::vector<double> values) {
  if (values.empty()) return 0;
  std::sort(values.begin(), values.end());
  size_t middle = values.size() / 2;
  return values.size() % 2 ? values[middle] : (values[middle - 1] + values[middle]) / 2;
}

template <typename T>
void fill_uniform(ov::Tensor& tensor, std::mt19937_64& rng) {
  std::uniform_real_distribution<float> uniform(-1.0f, 1.0f);
  T* data = tensor.data<T>();
  for (size_t i = 0; i < tensor.get_size(); ++i) data[i] = static_cast<T>(uniform(rng));
}

// Floats uniform in [-1, 1), booleans true, every other type (integers) zeros.
void fill_input(ov::Tensor tensor, std::mt19937_64& rng) {
  ov::element::Type type = tensor.get_element_type();
  if (type == ov::element::f32) return fill_uniform<float>(tensor, rng);
  if (type == ov::element::f64) return fill_uniform<double>(tensor, rng);
  if (type == ov::element::f16) return fill_uniform<ov::float16>(tensor, rng);
  if (type == ov::element::bf16) return fill_uniform<ov::bfloat16>(tensor, rng);
  if (type == ov::element::boolean) {
    std::fill_n(tensor.data<char>(), tensor.get_size(), 1);
    return;
  }
  std::fill_n(static_cast<char*>(tensor.data()), tensor.get_byte_size(), 0);
}

// Every model gets the same random stream, so variants of one graph see the same inputs.
void fill_inputs(LoadedModel& model, uint64_t seed) {
  std::mt19937_64 rng(seed);
  for (const ov::Output<const ov::Node>& input : model.compiled.inputs()) fill_input(model.request.get_tensor(input), rng);
}

// OpenVINO prefixes its messages with "Exception from src/...cpp:N:" lines (one per rethrow);
// the user needs only the text after them.
std::string openvino_message(const ov::Exception& error) {
  std::istringstream lines(error.what());
  std::string line, message;
  while (std::getline(lines, line)) {
    bool location = line.rfind("Exception from ", 0) == 0 && !line.empty() && line.back() == ':';
    if (location || line.find_first_not_of(" \t\r") == std::string::npos) continue;
    message += (message.empty() ? "" : " ") + line;
  }
  return message.empty() ? std::string(error.what()) : message;
}

// `exact` asks for float32 arithmetic throughout: on CPUs with bf16 units OpenVINO otherwise computes
// in bf16, which a timing should see but a check of pet's rewrite against pet's executor should not.
ov::AnyMap compile_properties(const TimingOptions& options, bool exact) {
  ov::AnyMap properties = {ov::inference_num_threads(options.threads),
                           ov::hint::performance_mode(ov::hint::PerformanceMode::LATENCY), ov::num_streams(1),
                           ov::enable_profiling(options.per_node)};
  if (exact) properties.insert(ov::hint::inference_precision(ov::element::f32));
  return properties;
}

// A model written with pet's extension ops names their domain among its opset imports; OpenVINO
// without pet's extension refuses them, which deserves a way out.
std::string extension_hint(const std::string& bytes) {
  if (bytes.find(kPetDomain) == std::string::npos) return "";
  return fmt::format("; the model uses pet's fused correction op (ONNX domain {}), which OpenVINO runs only with "
                     "pet's extension loaded: core.add_extension(\"{}\") (pet itself loads it unless "
                     "PET_OPENVINO_EXTENSION is empty), or write the model with pet-opt --portable",
                     kPetDomain, default_openvino_extension().empty() ? "libpet_openvino_extension.so"
                                                                      : default_openvino_extension());
}

// Reads the ONNX bytes from memory (the string overload of read_model parses model content) and
// compiles them for the CPU; OpenVINO's refusals are the model's problem, reported by index.
LoadedModel load_model(ov::Core& core, const std::string& bytes, size_t index, const TimingOptions& options,
                       bool exact = false) {
  try {
    std::shared_ptr<ov::Model> model = core.read_model(bytes, ov::Tensor());
    for (const ov::Output<ov::Node>& input : model->inputs()) {
      if (input.get_partial_shape().is_dynamic())
        throw ModelRejected(index, fmt::format("model {} has the input '{}' with the dynamic shape {}; pet times "
                                               "models with static input shapes only, so export it with fixed "
                                               "dimensions",
                                               index, input.get_node()->get_friendly_name(),
                                               input.get_partial_shape().to_string()));
    }
    LoadedModel loaded;
    for (const ov::Output<ov::Node>& output : model->outputs())
      loaded.declared_outputs.push_back(output.get_element_type());
    loaded.compiled = core.compile_model(model, "CPU", compile_properties(options, exact));
    loaded.request = loaded.compiled.create_infer_request();
    fill_inputs(loaded, options.seed);
    return loaded;
  } catch (const ov::Exception& error) {
    throw ModelRejected(index, fmt::format("model {} was rejected by OpenVINO: {}{}", index,
                                           openvino_message(error), extension_hint(bytes)));
  }
}

double time_one_run(ov::InferRequest& request) {
  auto start = std::chrono::steady_clock::now();
  request.infer();
  auto stop = std::chrono::steady_clock::now();
  return std::chrono::duration<double, std::micro>(stop - start).count();
}

double node_microseconds(const ov::ProfilingInfo& row) {
  if (row.status != ov::ProfilingInfo::Status::EXECUTED) return 0;
  return static_cast<double>(row.real_time.count());
}

void record_nodes(const ov::InferRequest& request, NodeSamples& samples) {
  std::vector<ov::ProfilingInfo> rows = request.get_profiling_info();
  if (samples.rows.empty()) {
    samples.rows = rows;
    samples.microseconds.resize(rows.size());
  }
  PET_CHECK(rows.size() == samples.rows.size(), "OpenVINO's profiler changed its node count between runs");
  for (size_t i = 0; i < rows.size(); ++i) {
    PET_CHECK(rows[i].node_name == samples.rows[i].node_name, "OpenVINO's profiler reordered node " + rows[i].node_name);
    samples.microseconds[i].push_back(node_microseconds(rows[i]));
  }
}

std::vector<NodeTime> summarize_nodes(const NodeSamples& samples) {
  std::vector<NodeTime> nodes;
  for (size_t i = 0; i < samples.rows.size(); ++i) {
    const ov::ProfilingInfo& row = samples.rows[i];
    nodes.push_back({row.node_name, row.node_type, row.exec_type, median(samples.microseconds[i])});
  }
  return nodes;
}

// Runs round by round so every model sees the same machine state (interleaving), then
// summarizes the profiler's per-node samples.
std::vector<Timing> run_interleaved(std::vector<LoadedModel>& models, const TimingOptions& options) {
  std::vector<Timing> timings(models.size());
  std::vector<NodeSamples> samples(models.size());
  for (int warmup = 0; warmup < options.warmup; ++warmup)
    for (LoadedModel& model : models) model.request.infer();
  for (int round = 0; round < options.runs; ++round) {
    for (size_t i = 0; i < models.size(); ++i) {
      timings[i].runs_us.push_back(time_one_run(models[i].request));
      if (options.per_node) record_nodes(models[i].request, samples[i]);
    }
  }
  for (size_t i = 0; i < models.size(); ++i) timings[i].nodes = summarize_nodes(samples[i]);
  return timings;
}

// pet's element types and OpenVINO's, for every type pet holds (the same bytes per element both ways).
using ov::element::Type_t;
constexpr std::pair<DType, Type_t> kElementTypes[] = {
    {DType::f32, Type_t::f32}, {DType::i64, Type_t::i64}, {DType::boolean, Type_t::boolean}, {DType::f64, Type_t::f64},
    {DType::bf16, Type_t::bf16}, {DType::i8, Type_t::i8}, {DType::u8, Type_t::u8},   {DType::i16, Type_t::i16},
    {DType::u16, Type_t::u16}, {DType::i32, Type_t::i32}, {DType::u32, Type_t::u32}, {DType::u64, Type_t::u64}};

ov::element::Type element_type(DType dtype) {
  for (const auto& [pet_type, type] : kElementTypes)
    if (pet_type == dtype) return type;
  throw InternalError(fmt::format("tensors of type {} cannot be given to OpenVINO", dtype_name(dtype)));
}

std::optional<DType> dtype_of(const ov::element::Type& type) {
  for (const auto& [pet_type, known] : kElementTypes)
    if (ov::element::Type(known) == type) return pet_type;
  return std::nullopt;
}

// An output as pet holds it, converted as Cast does to the type the model declares where OpenVINO
// answers another (an i32 for the model's i64 on some versions).
Tensor tensor_from_openvino(const ov::Tensor& output, const ov::element::Type& declared) {
  std::vector<int64_t> dims(output.get_shape().begin(), output.get_shape().end());
  std::optional<DType> dtype = dtype_of(output.get_element_type()), wanted = dtype_of(declared);
  if (!dtype || !wanted)
    throw InternalError(fmt::format("OpenVINO answered an output of type {} for the model's {}, which pet cannot hold",
                                    output.get_element_type().get_type_name(), declared.get_type_name()));
  Tensor tensor(*dtype, Shape(dims));
  PET_CHECK(tensor.nbytes() == output.get_byte_size(), "OpenVINO's output size does not match its shape");
  if (tensor.nbytes() > 0) std::memcpy(tensor.mutable_raw(), output.data(), tensor.nbytes());
  return *dtype == *wanted ? tensor : tensor.converted(*wanted);
}

class OpenVinoRuntime final : public Runtime {
 public:
  explicit OpenVinoRuntime(const std::string& extension) : extension_(extension) {
    if (extension_.empty()) return;
    try {
      core_.add_extension(extension_);
    } catch (const ov::Exception& error) {
      throw UserError(fmt::format("pet's OpenVINO extension '{}' could not be loaded: {}; rebuild pet (it builds "
                                  "kernels/openvino_extension with the openvino-cpu target) or set "
                                  "PET_OPENVINO_EXTENSION to its path (empty: run without it)",
                                  extension_, openvino_message(error)));
    }
  }

  std::string target() const override { return "openvino-cpu"; }
  ExportOptions export_options() const override { return {.extension_ops = !extension_.empty()}; }
  std::string version() const override { return std::string("openvino ") + ov::get_openvino_version().buildNumber; }
  std::string compute_precision() const override {
    std::lock_guard<std::mutex> lock(mutex_);
    try {
      return core_.get_property("CPU", ov::hint::inference_precision).to_string();
    } catch (const ov::Exception&) {
      return "f32";  // an OpenVINO without the property computes as the model says
    }
  }

  DType computes_in(DType type) const override {
    if (type == DType::f64) return DType::f32;
    return type == DType::i64 ? DType::i32 : type;
  }

  std::vector<Timing> time_models(const std::vector<ModelBytes>& models, const TimingOptions& options) override {
    PET_CHECK(options.threads >= 1 && options.warmup >= 0 && options.runs >= 0, "bad TimingOptions");
    std::lock_guard<std::mutex> lock(mutex_);
    std::vector<LoadedModel> loaded;  // each model's bytes freed once it is compiled
    for (size_t i = 0; i < models.size(); ++i)
      loaded.push_back(
          models[i].with_bytes([&](const std::string& bytes) { return load_model(core_, bytes, i, options); }));
    try {
      return run_interleaved(loaded, options);
    } catch (const ov::Exception& error) {
      throw InternalError(fmt::format("OpenVINO failed while running compiled models: {}", openvino_message(error)));
    }
  }

  std::vector<Tensor> run_model(const std::string& model, const std::vector<Tensor>& inputs, int threads) override {
    std::lock_guard<std::mutex> lock(mutex_);
    TimingOptions options;
    options.threads = threads;
    LoadedModel loaded = load_model(core_, model, 0, options, /*exact=*/true);
    if (loaded.compiled.inputs().size() != inputs.size())
      throw UserError(fmt::format("model 0 has {} inputs for OpenVINO, {} were given", loaded.compiled.inputs().size(),
                                  inputs.size()));
    try {
      for (size_t i = 0; i < inputs.size(); ++i) {
        const Tensor& input = inputs[i];
        ov::Shape shape(input.shape().dims().begin(), input.shape().dims().end());
        ov::Tensor tensor(element_type(input.dtype()), shape);
        if (input.nbytes() > 0) std::memcpy(tensor.data(), input.raw(), input.nbytes());
        loaded.request.set_input_tensor(i, tensor);
      }
      loaded.request.infer();
      std::vector<Tensor> outputs;
      for (size_t i = 0; i < loaded.compiled.outputs().size(); ++i)
        outputs.push_back(tensor_from_openvino(loaded.request.get_output_tensor(i), loaded.declared_outputs[i]));
      return outputs;
    } catch (const ov::Exception& error) {
      throw UserError(fmt::format("model 0 was rejected by OpenVINO when run: {}", openvino_message(error)));
    }
  }

 private:
  std::string extension_;
  mutable std::mutex mutex_;
  ov::Core core_;
};

}  // namespace

std::unique_ptr<Runtime> open_openvino_runtime(const std::string& extension) {
  return std::make_unique<OpenVinoRuntime>(extension);
}

}  // namespace pet::runtime
