// Bottom-up hashing of the computation that defines each value.
#include "core/structural_hash.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <optional>
#include <string>

#include "core/hash.h"
#include "core/memo.h"

namespace pet {
namespace {

constexpr size_t kRememberedScales = 1 << 16;  // weights' RMS-keeping scales, by content hash

}  // namespace

void add_attr_value(Hasher& hasher, const AttrValue& value) {
  hasher.add(static_cast<uint64_t>(value.index()));
  std::visit(
      [&](const auto& v) {
        using V = std::decay_t<decltype(v)>;
        if constexpr (std::is_same_v<V, int64_t>) {
          hasher.add(static_cast<uint64_t>(v));
        } else if constexpr (std::is_same_v<V, double>) {
          float f = static_cast<float>(v);  // attributes are float32 in ONNX
          hasher.add_bytes(&f, sizeof f);
        } else if constexpr (std::is_same_v<V, std::string>) {
          hasher.add(v);
        } else {
          hasher.add(static_cast<uint64_t>(v.size()));
          for (auto element : v) {
            if constexpr (std::is_same_v<decltype(element), double>) {
              float f = static_cast<float>(element);
              hasher.add_bytes(&f, sizeof f);
            } else {
              hasher.add(static_cast<uint64_t>(element));
            }
          }
        }
      },
      value);
}

uint64_t attributes_hash(const Attributes& attrs) {
  Hasher hasher;
  for (const auto& [name, value] : attrs.entries()) {
    hasher.add(name);
    add_attr_value(hasher, value);
  }
  return hasher.value();
}

static uint64_t node_output_hash(const Graph& graph, const Node& node, const std::vector<uint64_t>& hashes,
                                 size_t output_index) {
  std::vector<uint64_t> inputs;
  for (ValueId id : node.inputs) inputs.push_back(id == kNoValue ? 0x9e3779b97f4a7c15ULL : hashes[static_cast<size_t>(id)]);
  if (node.def->traits.commutative && inputs.size() >= 2) std::sort(inputs.begin(), inputs.begin() + 2);
  Hasher hasher;
  hasher.add(node.op());
  hasher.add(attributes_hash(node.attrs));
  for (uint64_t h : inputs) hasher.add(h);
  hasher.add(static_cast<uint64_t>(output_index));
  const TensorType& type = graph.value(node.outputs[output_index]).type;
  hasher.add(static_cast<uint64_t>(type.dtype));
  for (int64_t d : type.shape.dims()) hasher.add(static_cast<uint64_t>(d));
  return hasher.value();
}

static uint64_t constant_hash(const Tensor& tensor, ConstantHashing hashing) {
  if (hashing == ConstantHashing::content || !is_weight(tensor)) return tensor.content_hash();
  Hasher hasher;
  hasher.add("weight");
  hasher.add(static_cast<uint64_t>(tensor.dtype()));
  for (int64_t d : tensor.shape().dims()) hasher.add(static_cast<uint64_t>(d));
  return hasher.value();
}

bool is_weight(const Tensor& tensor) { return tensor.dtype() == DType::f32 && tensor.numel() > kInlineElements; }

// Uniform noise in [-s, s) has a root mean square of s / sqrt(3): the scale that keeps the RMS.
// Remembered by content hash: a weight-free export of every program a search times reads the same
// weights again.
float rms_keeping_scale(const Tensor& tensor) {
  static Memo<float> scales(kRememberedScales);
  std::string key = std::to_string(tensor.content_hash());
  if (std::optional<float> found = scales.find(key)) return *found;
  double squares = 0;
  for (float value : tensor.f32()) squares += static_cast<double>(value) * value;
  auto scale =
      static_cast<float>(std::sqrt(3.0 * squares / static_cast<double>(std::max<int64_t>(1, tensor.numel()))));
  scales.remember(std::move(key), scale);
  return scale;
}

std::vector<uint64_t> value_hashes(const Graph& graph, ConstantHashing hashing) {
  std::vector<uint64_t> hashes(graph.values().size(), 0);
  for (size_t i = 0; i < graph.inputs().size(); ++i) {
    const TensorType& type = graph.value(graph.inputs()[i]).type;
    Hasher hasher;
    hasher.add("input");
    hasher.add(static_cast<uint64_t>(i));
    hasher.add(static_cast<uint64_t>(type.dtype));
    for (int64_t d : type.shape.dims()) hasher.add(static_cast<uint64_t>(d));
    hashes[static_cast<size_t>(graph.inputs()[i])] = hasher.value();
  }
  for (size_t v = 0; v < graph.values().size(); ++v)
    if (graph.values()[v].constant) hashes[v] = constant_hash(*graph.values()[v].constant, hashing);
  for (const Node& node : graph.nodes())
    for (size_t i = 0; i < node.outputs.size(); ++i)
      hashes[static_cast<size_t>(node.outputs[i])] = node_output_hash(graph, node, hashes, i);
  return hashes;
}

static uint64_t graph_hash(const Graph& graph, ConstantHashing hashing) {
  std::vector<uint64_t> hashes = value_hashes(graph, hashing);
  std::vector<uint64_t> node_hashes;
  for (const Node& node : graph.nodes()) node_hashes.push_back(hashes[static_cast<size_t>(node.outputs.at(0))]);
  std::sort(node_hashes.begin(), node_hashes.end());
  Hasher hasher;
  hasher.add(static_cast<uint64_t>(graph.inputs().size()));
  for (ValueId id : graph.outputs()) hasher.add(hashes[static_cast<size_t>(id)]);
  for (uint64_t h : node_hashes) hasher.add(h);
  return hasher.value();
}

uint64_t structural_hash(const Graph& graph) { return graph_hash(graph, ConstantHashing::content); }

uint64_t timing_hash(const Graph& graph) { return graph_hash(graph, ConstantHashing::weights_by_type); }

}  // namespace pet
