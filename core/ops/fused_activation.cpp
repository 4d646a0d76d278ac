// The fused activation's facets, wrapped around an op's own so the op files stay one line each.
#include "core/ops/fused_activation.h"

#include <fmt/format.h>

#include "core/error.h"
#include "core/graph.h"
#include "core/onnx_mapping.h"

namespace pet::ops {
namespace {

const std::string kNone = "none";
const std::string kRelu = "relu";

bool has_no_activation(const Attributes& attrs) { return fused_activation(attrs) == kNone; }

// The op's own lowering, writing output 0 under another name so the Relu can write the real one.
class RedirectedOutput : public ForwardingExportNode {
 public:
  RedirectedOutput(OnnxExportNode& outer, std::string output)
      : ForwardingExportNode(outer), output_(std::move(output)) {}
  std::string output(int index) const override { return index == 0 ? output_ : outer().output(index); }

 private:
  std::string output_;
};

}  // namespace

const std::string& fused_activation(const Attributes& attrs) {
  return attrs.has(kActivationAttr) ? attrs.get_string(kActivationAttr) : kNone;
}

std::optional<std::string> activation_op(const Attributes& attrs) {
  if (fused_activation(attrs) == kRelu) return "Relu";
  return std::nullopt;
}

std::optional<std::string> activation_for_op(const std::string& op) {
  if (op == "Relu") return kRelu;
  return std::nullopt;
}

Attributes without_activation(Attributes attrs) {
  attrs.erase(kActivationAttr);
  return attrs;
}

OpDef with_fused_activation(OpDef def) {
  def.attrs.push_back({kActivationAttr, AttrKind::String, AttrValue(kNone), true});
  def.infer = [infer = def.infer](const ShapeContext& context) -> ShapeResult {
    const std::string& activation = fused_activation(context.attrs);
    PET_REFUSE_UNLESS(context, activation == kNone || activation == kRelu,
                      fmt::format("activation \"{}\" is not one of \"none\", \"relu\"", activation));
    return infer(context);
  };
  def.compute = [compute = def.compute](KernelContext& context) {
    compute(context);
    if (has_no_activation(context.attrs)) return;
    for (float& v : context.outputs[0].mutable_f32()) v = v > 0.0f ? v : 0.0f;  // exactly Relu's kernel
  };
  def.cost = [cost = def.cost](const CostContext& context) {
    Cost total = cost(context);
    if (!has_no_activation(context.attrs)) total.flops += static_cast<double>(context.outputs[0].shape.numel());
    return total;
  };
  def.traits.linear_when = [own = def.traits.linear_when](const Attributes& attrs) {
    return has_no_activation(attrs) && (!own || own(attrs));
  };
  if (def.eval_point)
    def.eval_point = [eval = def.eval_point](const PointContext& context) {
      PET_CHECK(has_no_activation(context.attrs), "point evaluation of a node with a fused activation");
      return eval(context);
    };
  if (def.propagate_boxes)
    def.propagate_boxes = [boxes = def.propagate_boxes](const BoxContext& context) {
      PET_CHECK(has_no_activation(context.attrs), "box propagation through a node with a fused activation");
      return boxes(context);
    };
  def.to_onnx = [to_onnx = def.to_onnx](const Node& node, OnnxExportNode& out) {
    std::optional<std::string> op = activation_op(node.attrs);
    if (!op) {
      to_onnx(node, out);
      return;
    }
    Node plain = node;
    plain.attrs = without_activation(node.attrs);
    std::string before = out.fresh_name("pre_" + fused_activation(node.attrs));
    RedirectedOutput redirected(out, before);
    to_onnx(plain, redirected);
    out.add_node(*op, {before}, {out.output(0)}, {});
  };
  return def;
}

}  // namespace pet::ops
