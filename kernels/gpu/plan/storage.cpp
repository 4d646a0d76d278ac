// Storage assignment: kinds from where a value comes from, views from view nodes, then Concat and
// Split bytes shared in node order (an earlier decision can take a value a later one wanted), then
// weight preparations from the steps that remain.
#include "kernels/gpu/plan/storage.h"

#include <algorithm>
#include <set>

#include <fmt/format.h>

#include "core/error.h"

namespace pet::gpu {
namespace {

int64_t bytes_of(const Value& value) {
  std::optional<int64_t> bytes = tensor_bytes(value.type);
  PET_CHECK(bytes.has_value(), fmt::format("value '{}' has more bytes than int64 holds", value.name));
  return *bytes;
}

// Every dimension before `axis` is 1, so each piece along `axis` is one contiguous byte range.
bool pieces_are_contiguous(const Shape& shape, int axis) {
  for (int d = 0; d < axis; ++d)
    if (shape[d] != 1) return false;
  return true;
}

class StorageAssigner {
 public:
  StorageAssigner(const Graph& graph, Grouping& grouping, std::vector<PlannedValue>& values)
      : graph_(graph), grouping_(grouping), values_(values) {}

  void run() {
    set_initial_kinds();
    set_view_nodes();
    share_concat_and_split_bytes();
    prepare_weights();
  }

 private:
  ValueStorage& storage(ValueId id) { return values_[static_cast<size_t>(id)].storage; }

  void set_initial_kinds() {
    for (ValueId id = 0; id < static_cast<ValueId>(graph_.values().size()); ++id) {
      const Value& value = graph_.value(id);
      ValueStorage& s = storage(id);
      s.bytes = bytes_of(value);
      if (value.constant)
        s.kind = StorageKind::weight;
      else if (value.producer < 0)
        s.kind = StorageKind::input;
      else if (graph_.is_output(id))
        s.kind = StorageKind::output;
      else
        s.kind = StorageKind::fused;
    }
    for (const Step& step : grouping_.steps)
      for (ValueId id : step.outputs)
        if (storage(id).kind == StorageKind::fused) storage(id).kind = StorageKind::arena;
  }

  void make_view(ValueId id, ValueId base, int64_t offset) {
    storage(id).kind = StorageKind::view;
    storage(id).base = base;
    storage(id).offset = offset;
  }

  void set_view_nodes() {
    for (const Alias& alias : grouping_.aliases) {
      const Node& node = graph_.node(alias.node);
      make_view(node.outputs[0], node.inputs[0], 0);
    }
  }

  bool write_concat_in_place(const Node& node) {
    ValueId out = node.outputs[0];
    const Shape& shape = graph_.value(out).type.shape;
    if (!pieces_are_contiguous(shape, normalize_axis(node.attrs.get_int("axis"), shape.rank()))) return false;
    std::set<ValueId> seen;
    for (ValueId id : node.inputs)
      if (!seen.insert(id).second || storage(id).kind != StorageKind::arena) return false;
    int64_t offset = 0;
    for (ValueId id : node.inputs) {
      make_view(id, out, offset);
      offset += storage(id).bytes;
    }
    return true;
  }

  bool split_into_views(const Node& node) {
    ValueId in = node.inputs[0];
    const Shape& shape = graph_.value(in).type.shape;
    if (!pieces_are_contiguous(shape, normalize_axis(node.attrs.get_int("axis"), shape.rank()))) return false;
    for (ValueId id : node.outputs)
      if (graph_.is_output(id)) return false;
    int64_t offset = 0;
    for (ValueId id : node.outputs) {
      make_view(id, in, offset);
      offset += storage(id).bytes;
    }
    return true;
  }

  // Steps are in node order here and a Concat or Split step has its node alone.
  void share_concat_and_split_bytes() {
    std::vector<Step> kept;
    for (Step& step : grouping_.steps) {
      const Node& node = graph_.node(step.nodes.front());
      if (step.kind == StepKind::concat && write_concat_in_place(node))
        grouping_.aliases.push_back({step.nodes.front(), AliasKind::concat_in_place, node.inputs, node.outputs});
      else if (step.kind == StepKind::split && split_into_views(node))
        grouping_.aliases.push_back({step.nodes.front(), AliasKind::split_views, node.inputs, node.outputs});
      else
        kept.push_back(std::move(step));
    }
    grouping_.steps = std::move(kept);
    std::sort(grouping_.aliases.begin(), grouping_.aliases.end(),
              [](const Alias& a, const Alias& b) { return a.node < b.node; });
  }

  WeightPreparation preparation_for(const Step& step, ValueId id) const {
    const Node& main = graph_.node(step.nodes.front());
    auto main_input = [&](size_t index) { return index < main.inputs.size() && main.inputs[index] == id; };
    if (step.kind == StepKind::cudnn_conv) {
      if (main_input(1)) return WeightPreparation::conv_filter;
      if (id == step.epilogue.bias) return WeightPreparation::conv_bias;
    }
    if (step.kind == StepKind::cublaslt_gemm) {
      if (id == step.epilogue.bias) return WeightPreparation::gemm_bias;
      if (main_input(0) || main_input(1) || main_input(2)) return WeightPreparation::gemm_operand;
    }
    return WeightPreparation::upload;
  }

  void prepare_weights() {
    for (const Step& step : grouping_.steps)
      for (ValueId id : step.inputs) {
        ValueStorage& root = storage(storage_root(values_, id).value);
        if (root.kind != StorageKind::weight) continue;
        WeightPreparation preparation = preparation_for(step, id);
        auto at = std::lower_bound(root.preparations.begin(), root.preparations.end(), preparation);
        if (at == root.preparations.end() || *at != preparation) root.preparations.insert(at, preparation);
      }
  }

  const Graph& graph_;
  Grouping& grouping_;
  std::vector<PlannedValue>& values_;
};

}  // namespace

StorageRoot storage_root(const std::vector<PlannedValue>& values, ValueId id) {
  StorageRoot root{id, 0};
  for (size_t hops = 0; values.at(static_cast<size_t>(root.value)).storage.kind == StorageKind::view; ++hops) {
    PET_CHECK(hops < values.size(),
              fmt::format("value '{}' is a view of itself", values[static_cast<size_t>(id)].name));
    const ValueStorage& view = values[static_cast<size_t>(root.value)].storage;
    root.offset += view.offset;
    root.value = view.base;
  }
  return root;
}

std::vector<PlannedValue> planned_values(const Graph& graph) {
  std::vector<PlannedValue> values;
  for (const Value& value : graph.values()) values.push_back({value.name, value.type, {}});
  return values;
}

Grouping planned_steps(const Graph& graph, const std::vector<NodeSupport>& support,
                       const std::vector<bool>& known_before_running, const Consumers& readers) {
  Grouping grouping = group_nodes(graph, support, known_before_running, readers);
  std::vector<PlannedValue> values = planned_values(graph);
  assign_storage(graph, grouping, values);
  return grouping;
}

void assign_storage(const Graph& graph, Grouping& grouping, std::vector<PlannedValue>& values) {
  StorageAssigner(graph, grouping, values).run();
}

}  // namespace pet::gpu
