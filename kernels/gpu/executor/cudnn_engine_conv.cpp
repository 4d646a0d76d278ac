// The graph-API convolution: descriptors owned by shared handles, the graph built attribute by
// attribute as cuDNN's backend documentation lists them, heuristics in mode A and then the
// fallback list, each engine configuration filtered by its notes and finalized into a plan.
#include "kernels/gpu/executor/cudnn_engine_conv.h"

#include <fmt/format.h>

#include <algorithm>
#include <set>

#include "kernels/gpu/executor/cuda_check.h"

namespace pet::gpu {
namespace {

using Descriptor = std::shared_ptr<void>;  // owns one cudnnBackendDescriptor_t

constexpr int64_t kX = 1, kW = 2, kY = 3;  // the operands' unique ids

Descriptor create(cudnnBackendDescriptorType_t type) {
  cudnnBackendDescriptor_t raw = nullptr;
  check_cudnn(cudnnBackendCreateDescriptor(type, &raw), "cudnnBackendCreateDescriptor");
  return Descriptor(raw, [](void* owned) { cudnnBackendDestroyDescriptor(static_cast<cudnnBackendDescriptor_t>(owned)); });
}

cudnnBackendDescriptor_t raw(const Descriptor& descriptor) {
  return static_cast<cudnnBackendDescriptor_t>(descriptor.get());
}

template <typename T>
void set(const Descriptor& descriptor, cudnnBackendAttributeName_t name, cudnnBackendAttributeType_t type,
         const std::vector<T>& values) {
  check_cudnn(cudnnBackendSetAttribute(raw(descriptor), name, type, static_cast<int64_t>(values.size()), values.data()),
              fmt::format("cudnnBackendSetAttribute (attribute {})", static_cast<int>(name)));
}

template <typename T>
void set_one(const Descriptor& descriptor, cudnnBackendAttributeName_t name, cudnnBackendAttributeType_t type,
             T value) {
  set(descriptor, name, type, std::vector<T>{value});
}

void set_descriptor(const Descriptor& descriptor, cudnnBackendAttributeName_t name, const Descriptor& value) {
  set_one(descriptor, name, CUDNN_TYPE_BACKEND_DESCRIPTOR, raw(value));
}

void finalize(const Descriptor& descriptor, const char* what) {
  check_cudnn(cudnnBackendFinalize(raw(descriptor)), fmt::format("cudnnBackendFinalize ({})", what));
}

std::vector<int64_t> widened(const std::vector<int>& values) { return {values.begin(), values.end()}; }

std::vector<int64_t> packed_strides(const std::vector<int64_t>& dims) {
  std::vector<int64_t> strides(dims.size(), 1);
  for (size_t d = dims.size() - 1; d > 0; --d) strides[d - 1] = strides[d] * dims[d];
  return strides;
}

Descriptor tensor(const std::vector<int>& dims, int64_t id, int64_t alignment) {
  Descriptor descriptor = create(CUDNN_BACKEND_TENSOR_DESCRIPTOR);
  std::vector<int64_t> extents = widened(dims);
  set_one(descriptor, CUDNN_ATTR_TENSOR_DATA_TYPE, CUDNN_TYPE_DATA_TYPE, CUDNN_DATA_FLOAT);
  set(descriptor, CUDNN_ATTR_TENSOR_DIMENSIONS, CUDNN_TYPE_INT64, extents);
  set(descriptor, CUDNN_ATTR_TENSOR_STRIDES, CUDNN_TYPE_INT64, packed_strides(extents));
  set_one(descriptor, CUDNN_ATTR_TENSOR_UNIQUE_ID, CUDNN_TYPE_INT64, id);
  set_one(descriptor, CUDNN_ATTR_TENSOR_BYTE_ALIGNMENT, CUDNN_TYPE_INT64, std::min<int64_t>(alignment, 16));
  finalize(descriptor, "tensor");
  return descriptor;
}

Descriptor convolution(const ConvConfig& config) {
  Descriptor descriptor = create(CUDNN_BACKEND_CONVOLUTION_DESCRIPTOR);
  std::vector<int64_t> pads = widened(config.pads);
  set_one(descriptor, CUDNN_ATTR_CONVOLUTION_COMP_TYPE, CUDNN_TYPE_DATA_TYPE, CUDNN_DATA_FLOAT);
  set_one(descriptor, CUDNN_ATTR_CONVOLUTION_CONV_MODE, CUDNN_TYPE_CONVOLUTION_MODE, CUDNN_CROSS_CORRELATION);
  set_one(descriptor, CUDNN_ATTR_CONVOLUTION_SPATIAL_DIMS, CUDNN_TYPE_INT64, static_cast<int64_t>(pads.size()));
  set(descriptor, CUDNN_ATTR_CONVOLUTION_DILATIONS, CUDNN_TYPE_INT64, widened(config.dilations));
  set(descriptor, CUDNN_ATTR_CONVOLUTION_FILTER_STRIDES, CUDNN_TYPE_INT64, widened(config.strides));
  set(descriptor, CUDNN_ATTR_CONVOLUTION_PRE_PADDINGS, CUDNN_TYPE_INT64, pads);
  set(descriptor, CUDNN_ATTR_CONVOLUTION_POST_PADDINGS, CUDNN_TYPE_INT64, widened(config.pads_end));
  finalize(descriptor, "convolution");
  return descriptor;
}

// What an engine's notes say about it.
struct EngineFacts {
  int64_t index = -1;
  bool tensor_core = false, forbidden_numerics = false, runtime_compiled = false;
};

EngineFacts engine_facts(const Descriptor& config) {
  Descriptor engine = create(CUDNN_BACKEND_ENGINE_DESCRIPTOR);
  cudnnBackendDescriptor_t engine_raw = raw(engine);
  int64_t count = 0;
  check_cudnn(cudnnBackendGetAttribute(raw(config), CUDNN_ATTR_ENGINECFG_ENGINE, CUDNN_TYPE_BACKEND_DESCRIPTOR, 1,
                                       &count, &engine_raw),
              "cudnnBackendGetAttribute (the configuration's engine)");
  EngineFacts facts;
  check_cudnn(cudnnBackendGetAttribute(engine_raw, CUDNN_ATTR_ENGINE_GLOBAL_INDEX, CUDNN_TYPE_INT64, 1, &count,
                                       &facts.index),
              "cudnnBackendGetAttribute (the engine's index)");
  std::vector<cudnnBackendNumericalNote_t> numerics(CUDNN_NUMERICAL_NOTE_TYPE_COUNT);
  check_cudnn(cudnnBackendGetAttribute(engine_raw, CUDNN_ATTR_ENGINE_NUMERICAL_NOTE, CUDNN_TYPE_NUMERICAL_NOTE,
                                       static_cast<int64_t>(numerics.size()), &count, numerics.data()),
              "cudnnBackendGetAttribute (the engine's numerical notes)");
  for (int64_t i = 0; i < std::min<int64_t>(count, static_cast<int64_t>(numerics.size())); ++i) {
    cudnnBackendNumericalNote_t note = numerics[static_cast<size_t>(i)];
    if (note == CUDNN_NUMERICAL_NOTE_TENSOR_CORE) facts.tensor_core = true;
    if (note == CUDNN_NUMERICAL_NOTE_DOWN_CONVERT_INPUTS || note == CUDNN_NUMERICAL_NOTE_REDUCED_PRECISION_REDUCTION ||
        note == CUDNN_NUMERICAL_NOTE_NONDETERMINISTIC)
      facts.forbidden_numerics = true;
  }
  std::vector<cudnnBackendBehaviorNote_t> behaviors(CUDNN_BEHAVIOR_NOTE_TYPE_COUNT);
  check_cudnn(cudnnBackendGetAttribute(engine_raw, CUDNN_ATTR_ENGINE_BEHAVIOR_NOTE, CUDNN_TYPE_BEHAVIOR_NOTE,
                                       static_cast<int64_t>(behaviors.size()), &count, behaviors.data()),
              "cudnnBackendGetAttribute (the engine's behavior notes)");
  for (int64_t i = 0; i < std::min<int64_t>(count, static_cast<int64_t>(behaviors.size())); ++i)
    if (behaviors[static_cast<size_t>(i)] == CUDNN_BEHAVIOR_NOTE_RUNTIME_COMPILATION) facts.runtime_compiled = true;
  return facts;
}

}  // namespace

// The descriptors every plan of one configuration refers to, alive as long as any plan is.
struct ConvEngineGraph {
  Descriptor x, w, y, convolution, operation, graph;
};

std::string ConvAlignments::key() const { return fmt::format("align {} {} {}", x, w, y); }

std::string EnginePlan::describe() const {
  return fmt::format("engine {}{}", engine, tensor_core ? " (tensor cores)" : "");
}

namespace {

std::shared_ptr<ConvEngineGraph> operation_graph(cudnnHandle_t handle, const ConvConfig& config,
                                                 const ConvAlignments& alignments) {
  auto built = std::make_shared<ConvEngineGraph>();
  built->x = tensor(config.input, kX, alignments.x);
  built->w = tensor(config.filter, kW, alignments.w);
  built->y = tensor(config.output, kY, alignments.y);
  built->convolution = convolution(config);
  built->operation = create(CUDNN_BACKEND_OPERATION_CONVOLUTION_FORWARD_DESCRIPTOR);
  set_descriptor(built->operation, CUDNN_ATTR_OPERATION_CONVOLUTION_FORWARD_X, built->x);
  set_descriptor(built->operation, CUDNN_ATTR_OPERATION_CONVOLUTION_FORWARD_W, built->w);
  set_descriptor(built->operation, CUDNN_ATTR_OPERATION_CONVOLUTION_FORWARD_Y, built->y);
  set_descriptor(built->operation, CUDNN_ATTR_OPERATION_CONVOLUTION_FORWARD_CONV_DESC, built->convolution);
  set_one(built->operation, CUDNN_ATTR_OPERATION_CONVOLUTION_FORWARD_ALPHA, CUDNN_TYPE_FLOAT, 1.0f);
  set_one(built->operation, CUDNN_ATTR_OPERATION_CONVOLUTION_FORWARD_BETA, CUDNN_TYPE_FLOAT, 0.0f);
  finalize(built->operation, "convolution forward operation");
  built->graph = create(CUDNN_BACKEND_OPERATIONGRAPH_DESCRIPTOR);
  set_one(built->graph, CUDNN_ATTR_OPERATIONGRAPH_HANDLE, CUDNN_TYPE_HANDLE, handle);
  set_descriptor(built->graph, CUDNN_ATTR_OPERATIONGRAPH_OPS, built->operation);
  finalize(built->graph, "operation graph");
  return built;
}

// The engine configurations cuDNN's heuristics of `mode` propose, best first; none when the
// heuristics refuse the graph.
std::vector<Descriptor> engine_configs(const ConvEngineGraph& graph, cudnnBackendHeurMode_t mode) {
  Descriptor heuristics = create(CUDNN_BACKEND_ENGINEHEUR_DESCRIPTOR);
  set_descriptor(heuristics, CUDNN_ATTR_ENGINEHEUR_OPERATION_GRAPH, graph.graph);
  set_one(heuristics, CUDNN_ATTR_ENGINEHEUR_MODE, CUDNN_TYPE_HEUR_MODE, mode);
  if (cudnnBackendFinalize(raw(heuristics)) != CUDNN_STATUS_SUCCESS) return {};
  int64_t count = 0;
  if (cudnnBackendGetAttribute(raw(heuristics), CUDNN_ATTR_ENGINEHEUR_RESULTS, CUDNN_TYPE_BACKEND_DESCRIPTOR, 0, &count,
                               nullptr) != CUDNN_STATUS_SUCCESS ||
      count <= 0)
    return {};
  std::vector<Descriptor> configs;  // cuDNN fills descriptors the caller created
  std::vector<cudnnBackendDescriptor_t> raws;
  for (int64_t i = 0; i < count; ++i) {
    configs.push_back(create(CUDNN_BACKEND_ENGINECFG_DESCRIPTOR));
    raws.push_back(raw(configs.back()));
  }
  int64_t returned = 0;
  if (cudnnBackendGetAttribute(raw(heuristics), CUDNN_ATTR_ENGINEHEUR_RESULTS, CUDNN_TYPE_BACKEND_DESCRIPTOR, count,
                               &returned, raws.data()) != CUDNN_STATUS_SUCCESS)
    return {};
  configs.resize(static_cast<size_t>(std::clamp<int64_t>(returned, 0, count)));
  return configs;
}

// The configuration finalized into a plan on `handle`; null when cuDNN cannot finalize it.
Descriptor execution_plan(cudnnHandle_t handle, const Descriptor& config) {
  Descriptor plan = create(CUDNN_BACKEND_EXECUTION_PLAN_DESCRIPTOR);
  set_one(plan, CUDNN_ATTR_EXECUTION_PLAN_HANDLE, CUDNN_TYPE_HANDLE, handle);
  set_descriptor(plan, CUDNN_ATTR_EXECUTION_PLAN_ENGINE_CONFIG, config);
  if (cudnnBackendFinalize(raw(plan)) != CUDNN_STATUS_SUCCESS) return nullptr;
  return plan;
}

int64_t plan_workspace(const Descriptor& plan) {
  int64_t bytes = 0, count = 0;
  check_cudnn(cudnnBackendGetAttribute(raw(plan), CUDNN_ATTR_EXECUTION_PLAN_WORKSPACE_SIZE, CUDNN_TYPE_INT64, 1, &count,
                                       &bytes),
              "cudnnBackendGetAttribute (a plan's workspace)");
  return bytes;
}

}  // namespace

EnginePlans conv_engine_plans(cudnnHandle_t handle, const ConvConfig& config, MathMode math,
                              const ConvAlignments& alignments, int64_t max_workspace, int limit,
                              int64_t only_engine) {
  EnginePlans result;
  std::shared_ptr<ConvEngineGraph> graph;
  try {
    graph = operation_graph(handle, config, alignments);
  } catch (const CudaFailure& failure) {
    result.note = fmt::format("cuDNN's graph API refused the convolution: {}", failure.what());
    return result;
  }
  int left_out = 0, unfinalized = 0;
  std::set<int64_t> engines;
  for (cudnnBackendHeurMode_t mode : {CUDNN_HEUR_MODE_A, CUDNN_HEUR_MODE_FALLBACK}) {
    for (const Descriptor& config_descriptor : engine_configs(*graph, mode)) {
      if (static_cast<int>(result.plans.size()) >= limit) break;
      try {
        EngineFacts facts = engine_facts(config_descriptor);
        if (engines.contains(facts.index) || (only_engine >= 0 && facts.index != only_engine)) continue;
        if (facts.forbidden_numerics || facts.runtime_compiled || (math == MathMode::strict && facts.tensor_core)) {
          ++left_out;
          continue;
        }
        Descriptor plan = execution_plan(handle, config_descriptor);
        if (plan == nullptr) {
          ++unfinalized;
          continue;
        }
        int64_t bytes = plan_workspace(plan);
        if (bytes > max_workspace) {
          ++left_out;
          continue;
        }
        engines.insert(facts.index);
        result.plans.push_back({graph, plan, facts.index, bytes, facts.tensor_core});
      } catch (const CudaFailure&) {  // a configuration cuDNN cannot describe or finalize
        ++unfinalized;
      }
    }
  }
  result.note = fmt::format("{} plans; {} engines left out by their notes or workspace, {} not finalized",
                            result.plans.size(), left_out, unfinalized);
  return result;
}

cudnnStatus_t run_engine_plan(cudnnHandle_t handle, cudaStream_t stream, const EnginePlan& plan, void* x, void* w,
                              void* y, void* workspace) {
  check_cudnn(cudnnSetStream(handle, stream), "cudnnSetStream");
  Descriptor pack = create(CUDNN_BACKEND_VARIANT_PACK_DESCRIPTOR);
  set(pack, CUDNN_ATTR_VARIANT_PACK_UNIQUE_IDS, CUDNN_TYPE_INT64, std::vector<int64_t>{kX, kW, kY});
  set(pack, CUDNN_ATTR_VARIANT_PACK_DATA_POINTERS, CUDNN_TYPE_VOID_PTR, std::vector<void*>{x, w, y});
  set_one(pack, CUDNN_ATTR_VARIANT_PACK_WORKSPACE, CUDNN_TYPE_VOID_PTR, workspace);
  finalize(pack, "variant pack");
  return cudnnBackendExecute(handle, static_cast<cudnnBackendDescriptor_t>(plan.plan.get()), raw(pack));
}

}  // namespace pet::gpu
