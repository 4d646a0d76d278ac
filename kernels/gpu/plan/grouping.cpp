// Step grouping: corrections first (each Overwrite or LayoutOverwrite its own step), then layer
// normalizations written out as nine nodes (one layer_norm step each), then the conv and GEMM
// epilogues, then elementwise kernels grown backwards from their last node, then single nodes;
// steps run in the order of their last nodes, a valid order because only a step's last node has
// readers outside it. Last, the steps that compute nothing but corrections' patches are marked,
// so their time counts as the corrections'.
#include "kernels/gpu/plan/grouping.h"

#include <algorithm>
#include <optional>
#include <set>
#include <utility>

#include "core/broadcast_axis.h"
#include "core/ops/fused_activation.h"
#include "kernels/gpu/plan/layer_norm_pattern.h"

namespace pet::gpu {
namespace {

// The op cuDNN's and cuBLASLt's epilogues add with.
constexpr const char* kAddOp = "Add";

class Grouper {
 public:
  Grouper(const Graph& graph, const std::vector<NodeSupport>& support, const std::vector<bool>& known_before_running,
          const Consumers& readers)
      : graph_(graph), support_(support), known_(known_before_running), readers_(readers),
        step_of_(graph.nodes().size(), -1) {}

  Grouping run() {
    group_corrections();
    group_layer_norm_patterns();
    group_with_epilogues(StepKind::cudnn_conv);
    group_with_epilogues(StepKind::cublaslt_gemm);
    group_elementwise();
    group_remaining();
    return finish();
  }

 private:
  StepKind kind_of(NodeId n) const { return support_[static_cast<size_t>(n)].kind; }
  bool is_free(NodeId n) const {
    return step_of_[static_cast<size_t>(n)] < 0 && support_[static_cast<size_t>(n)].role == NodeRole::step;
  }
  std::span<const NodeId> readers(ValueId id) const { return readers_[static_cast<size_t>(id)]; }
  bool known(ValueId id) const { return known_[static_cast<size_t>(id)]; }

  int open_step(StepKind kind, NodeId first) {
    Step step;
    step.kind = kind;
    step.nodes = {first};
    steps_.push_back(std::move(step));
    step_of_[static_cast<size_t>(first)] = static_cast<int>(steps_.size()) - 1;
    return static_cast<int>(steps_.size()) - 1;
  }
  void join(int step, NodeId n) {
    steps_[static_cast<size_t>(step)].nodes.push_back(n);
    step_of_[static_cast<size_t>(n)] = step;
  }

  // The free node that alone reads `id`, when `id` is no graph output.
  std::optional<NodeId> sole_reader(ValueId id) const {
    if (graph_.is_output(id) || readers(id).size() != 1 || !is_free(readers(id)[0])) return std::nullopt;
    return readers(id)[0];
  }

  // Whether every output of `n` is read, only by nodes of `step`, and is no graph output.
  bool read_only_inside(NodeId n, int step) const {
    for (ValueId id : graph_.node(n).outputs) {
      if (graph_.is_output(id) || readers(id).empty()) return false;
      for (NodeId reader : readers(id))
        if (step_of_[static_cast<size_t>(reader)] != step) return false;
    }
    return true;
  }

  void add_producer(ValueId id, std::set<NodeId>& pending) const {
    if (id != kNoValue && graph_.value(id).producer >= 0) pending.insert(graph_.value(id).producer);
  }

  // Pulls producers into `step` from the highest node down, so every reader a producer has inside
  // the step has joined before the producer is looked at.
  template <typename Accept>
  void absorb_producers(int step, std::set<NodeId> pending, Accept accept) {
    while (!pending.empty()) {
      NodeId n = *pending.rbegin();
      pending.erase(n);
      if (!is_free(n) || !accept(n) || !read_only_inside(n, step)) continue;
      join(step, n);
      for (ValueId id : graph_.node(n).inputs) add_producer(id, pending);
    }
  }

  // A correction's base (input 0) comes from the program it corrects; its patches are computed by
  // their own steps (cuDNN, cuBLASLt, generated kernels), before the correction's one kernel.
  void group_corrections() {
    for (NodeId n = 0; n < static_cast<NodeId>(graph_.nodes().size()); ++n)
      if (is_free(n) && kind_of(n) == StepKind::correction) open_step(StepKind::correction, n);
  }

  // Each layer normalization written out in standard ops (layer_norm_pattern.h) whose nodes are
  // all still free becomes one layer_norm step.
  void group_layer_norm_patterns() {
    for (NodeId n = 0; n < static_cast<NodeId>(graph_.nodes().size()); ++n) {
      if (!is_free(n) || graph_.node(n).op() != "ReduceMean") continue;
      std::optional<LayerNormPattern> pattern = match_layer_norm(graph_, readers_, known_, n);
      if (!pattern || !std::all_of(pattern->nodes.begin(), pattern->nodes.end(), [&](NodeId m) { return is_free(m); }))
        continue;
      int step = open_step(StepKind::layer_norm, pattern->nodes.front());
      for (size_t i = 1; i < pattern->nodes.size(); ++i) join(step, pattern->nodes[i]);
      steps_[static_cast<size_t>(step)].layer_norm_ops = std::move(pattern);
    }
  }

  struct FusableAdd {
    NodeId node;
    ValueId other;
  };

  // The Add that alone reads `current`, keeps its type, and adds an operand `fits` accepts.
  template <typename Fits>
  std::optional<FusableAdd> fusable_add(ValueId current, Fits fits) const {
    std::optional<NodeId> reader = sole_reader(current);
    if (!reader) return std::nullopt;
    const Node& add = graph_.node(*reader);
    if (add.op() != kAddOp || add.inputs.size() != 2) return std::nullopt;
    ValueId other = add.inputs[0] == current ? add.inputs[1] : add.inputs[0];
    if (other == current || graph_.value(add.outputs[0]).type != graph_.value(current).type) return std::nullopt;
    if (!fits(other)) return std::nullopt;
    return FusableAdd{*reader, other};
  }

  void group_with_epilogues(StepKind kind) {
    for (NodeId n = 0; n < static_cast<NodeId>(graph_.nodes().size()); ++n) {
      if (!is_free(n) || kind_of(n) != kind) continue;
      const Node& node = graph_.node(n);
      int step = open_step(kind, n);
      Epilogue& epilogue = steps_[static_cast<size_t>(step)].epilogue;
      if (ops::activation_op(node.attrs)) epilogue.activation = ops::fused_activation(node.attrs);
      if (kind == StepKind::cudnn_conv && node.inputs.size() > 2) epilogue.bias = node.inputs[2];
      if (epilogue.activation == kNoActivation) fuse_epilogue(step, kind);
    }
  }

  struct FusableScale {
    NodeId node;
    float factor;
  };

  // The Mul by, or Div by, a one-value f32 weight that alone reads `current` and keeps its type
  // (attention's scores over the square root of the head size).
  std::optional<FusableScale> fusable_scale(ValueId current) const {
    std::optional<NodeId> reader = sole_reader(current);
    if (!reader) return std::nullopt;
    const Node& node = graph_.node(*reader);
    bool divides = node.op() == "Div";
    if ((!divides && node.op() != "Mul") || node.inputs.size() != 2) return std::nullopt;
    ValueId other = node.inputs[0] == current ? node.inputs[1] : node.inputs[0];
    if (other == current || (divides && node.inputs[0] != current)) return std::nullopt;
    if (graph_.value(node.outputs[0]).type != graph_.value(current).type || !graph_.is_constant(other)) return std::nullopt;
    const Tensor& weight = *graph_.value(other).constant;
    if (weight.dtype() != DType::f32 || weight.numel() != 1) return std::nullopt;
    float value = weight.f32()[0];
    if (divides && value == 0.0f) return std::nullopt;
    return FusableScale{*reader, divides ? 1.0f / value : value};
  }

  // conv -> (+bias) -> (+residual) -> (relu); gemm -> (x or / a one-value weight, MatMul only) ->
  // (+bias) -> (+residual, a computed value of the output's type, MatMul only: cuBLASLt's C) -> (relu).
  void fuse_epilogue(int step, StepKind kind) {
    Epilogue& epilogue = steps_[static_cast<size_t>(step)].epilogue;
    ValueId current = graph_.node(steps_[static_cast<size_t>(step)].nodes.back()).outputs[0];
    bool matmul = kind == StepKind::cublaslt_gemm &&
                  graph_.node(steps_[static_cast<size_t>(step)].nodes.front()).op() == "MatMul";
    if (matmul)
      if (std::optional<FusableScale> scale = fusable_scale(current)) {
        join(step, scale->node);
        epilogue.scale = scale->factor;
        current = graph_.node(scale->node).outputs[0];
      }
    const TensorType& out = graph_.value(current).type;
    int bias_axis = kind == StepKind::cudnn_conv ? 1 : out.shape.rank() - 1;
    auto is_bias = [&](ValueId other) {
      const TensorType& type = graph_.value(other).type;
      return known(other) && type.dtype == DType::f32 && varies_only_along(type.shape, out.shape.rank(), bias_axis);
    };
    if (epilogue.bias == kNoValue)
      if (std::optional<FusableAdd> add = fusable_add(current, is_bias)) {
        join(step, add->node);
        epilogue.bias = add->other;
        current = graph_.node(add->node).outputs[0];
      }
    auto is_residual = [&](ValueId other) {
      return graph_.value(other).type == out && (kind == StepKind::cudnn_conv || !known(other));
    };
    if (kind == StepKind::cudnn_conv || matmul)
      if (std::optional<FusableAdd> add = fusable_add(current, is_residual)) {
        join(step, add->node);
        epilogue.residual = add->other;
        current = graph_.node(add->node).outputs[0];
      }
    if (std::optional<NodeId> reader = sole_reader(current))
      if (std::optional<std::string> activation = ops::activation_for_op(graph_.node(*reader).op())) {
        join(step, *reader);
        epilogue.activation = *activation;
      }
  }

  void group_elementwise() {
    for (NodeId n = static_cast<NodeId>(graph_.nodes().size()) - 1; n >= 0; --n) {
      if (!is_free(n) || kind_of(n) != StepKind::elementwise) continue;
      int step = open_step(StepKind::elementwise, n);
      std::set<NodeId> pending;
      for (ValueId id : graph_.node(n).inputs) add_producer(id, pending);
      absorb_producers(step, std::move(pending), [&](NodeId p) { return kind_of(p) == StepKind::elementwise; });
    }
  }

  void group_remaining() {
    for (NodeId n = 0; n < static_cast<NodeId>(graph_.nodes().size()); ++n) {
      if (step_of_[static_cast<size_t>(n)] >= 0 || support_[static_cast<size_t>(n)].role == NodeRole::outside) continue;
      if (support_[static_cast<size_t>(n)].role == NodeRole::step) {
        open_step(kind_of(n), n);
        continue;
      }
      const auto& outputs = graph_.node(n).outputs;
      bool owns_bytes = std::any_of(outputs.begin(), outputs.end(), [&](ValueId id) { return graph_.is_output(id); });
      if (owns_bytes)
        open_step(StepKind::copy, n);
      else
        aliases_.push_back({n, AliasKind::view, graph_.node(n).inputs, outputs});
    }
  }

  void list_step_values(Step& step) const {
    std::sort(step.nodes.begin(), step.nodes.end());
    for (NodeId n : step.nodes)
      for (ValueId id : graph_.node(n).inputs) {
        if (id == kNoValue) continue;
        NodeId producer = graph_.value(id).producer;
        bool inside = producer >= 0 && std::binary_search(step.nodes.begin(), step.nodes.end(), producer);
        if (!inside && std::find(step.inputs.begin(), step.inputs.end(), id) == step.inputs.end())
          step.inputs.push_back(id);
      }
    step.outputs = graph_.node(step.nodes.back()).outputs;
  }

  Grouping finish() {
    for (Step& step : steps_) list_step_values(step);
    std::stable_sort(steps_.begin(), steps_.end(),
                     [](const Step& a, const Step& b) { return a.nodes.back() < b.nodes.back(); });
    mark_patch_steps();
    return Grouping{std::move(steps_), std::move(aliases_)};
  }

  // Whether `reader` is a correction node reading `id` as a patch (an input after the base).
  bool reads_as_patch(NodeId reader, ValueId id) const {
    const Node& node = graph_.node(reader);
    return kind_of(reader) == StepKind::correction &&
           std::find(node.inputs.begin() + 1, node.inputs.end(), id) != node.inputs.end() && node.inputs[0] != id;
  }

  // From the last step back: a step computes only patches when each of its outputs is read, by
  // corrections as a patch or by steps that compute only patches, and by nothing else.
  void mark_patch_steps() {
    std::vector<int> step_of_node(graph_.nodes().size(), -1);
    for (size_t s = 0; s < steps_.size(); ++s)
      for (NodeId n : steps_[s].nodes) step_of_node[static_cast<size_t>(n)] = static_cast<int>(s);
    for (size_t s = steps_.size(); s-- > 0;) {
      Step& step = steps_[s];
      if (step.kind == StepKind::correction) continue;
      bool only_patches = !step.outputs.empty();
      for (ValueId id : step.outputs) {
        if (graph_.is_output(id) || readers(id).empty()) only_patches = false;
        for (NodeId reader : readers(id)) {
          int at = step_of_node[static_cast<size_t>(reader)];
          if (at < 0 || !(reads_as_patch(reader, id) || steps_[static_cast<size_t>(at)].computes_patch))
            only_patches = false;
        }
      }
      step.computes_patch = only_patches;
    }
  }

  const Graph& graph_;
  const std::vector<NodeSupport>& support_;
  const std::vector<bool>& known_;  // per value: a constant, or folded before anything runs
  const Consumers& readers_;  // graph.consumers()
  std::vector<int> step_of_;
  std::vector<Step> steps_;
  std::vector<Alias> aliases_;
};

}  // namespace

Grouping group_nodes(const Graph& graph, const std::vector<NodeSupport>& support) {
  std::vector<bool> constants(graph.values().size(), false);
  for (ValueId id = 0; id < static_cast<ValueId>(graph.values().size()); ++id)
    constants[static_cast<size_t>(id)] = graph.is_constant(id);
  return group_nodes(graph, support, constants, graph.consumers());
}

Grouping group_nodes(const Graph& graph, const std::vector<NodeSupport>& support,
                     const std::vector<bool>& known_before_running, const Consumers& readers) {
  return Grouper(graph, support, known_before_running, readers).run();
}

}  // namespace pet::gpu
