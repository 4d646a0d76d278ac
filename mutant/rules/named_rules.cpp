// The hand-written TASO substitutions, one entry each: a name, the substitution in words, and
// both sides in textual IR at small shapes.
#include "mutant/rules/named_rules.h"

#include "core/hash.h"
#include "core/text_ir.h"

namespace pet::rules {
namespace {

const std::string kConv3x3 = "Conv[dilations=[1,1], group=1, pads=[1,1,1,1], strides=[1,1]]";
const std::string kConv1x1 = "Conv[dilations=[1,1], group=1, pads=[0,0,0,0], strides=[1,1]]";

NamedRule merge_1x1_into_3x3() {
  return {"merge-1x1-into-3x3-conv",
          "enlarge a 1x1 kernel to 3x3 with zeros and merge it with a 3x3 conv of the same input: concat the "
          "weights, one conv, split the result (guard: same input, stride and dilation; the 3x3 conv pads one "
          "more than the 1x1)",
          "  input %x : f32[1,4,6,6]\n  input %w : f32[2,4,1,1]\n  input %v : f32[3,4,3,3]\n",
          "  %a = " + kConv1x1 + "(%x, %w)\n  %b = " + kConv3x3 + "(%x, %v)\n  output %a\n  output %b\n",
          "  %p = Pad[mode=\"constant\", pads=[0,0,1,1,0,0,1,1], value=0](%w)\n"
          "  %c = Concat[axis=0](%p, %v)\n  %m = " + kConv3x3 + "(%x, %c)\n"
          "  %a, %b = Split[axis=1, split=[2,3]](%m)\n  output %a\n  output %b\n"};
}

// The same merge for video models' 3-D convs (ResNet3D's downsampling blocks): a 1x1x1 shortcut
// conv enlarged to 3x3x3 with zeros beside its 3x3x3 sibling.
NamedRule merge_1x1x1_into_3x3x3() {
  const std::string conv3 = "Conv[dilations=[1,1,1], group=1, pads=[1,1,1,1,1,1], strides=[1,1,1]]";
  const std::string conv1 = "Conv[dilations=[1,1,1], group=1, pads=[0,0,0,0,0,0], strides=[1,1,1]]";
  return {"merge-1x1x1-into-3x3x3-conv",
          "enlarge a 1x1x1 kernel to 3x3x3 with zeros and merge it with a 3x3x3 conv of the same input: concat "
          "the weights, one conv, split the result (guard: same input, stride and dilation; the 3x3x3 conv pads one "
          "more than the 1x1x1)",
          "  input %x : f32[1,4,4,6,6]\n  input %w : f32[2,4,1,1,1]\n  input %v : f32[3,4,3,3,3]\n",
          "  %a = " + conv1 + "(%x, %w)\n  %b = " + conv3 + "(%x, %v)\n  output %a\n  output %b\n",
          "  %p = Pad[mode=\"constant\", pads=[0,0,1,1,1,0,0,1,1,1], value=0](%w)\n"
          "  %c = Concat[axis=0](%p, %v)\n  %m = " + conv3 + "(%x, %c)\n"
          "  %a, %b = Split[axis=1, split=[2,3]](%m)\n  output %a\n  output %b\n"};
}

NamedRule fuse_scalar_into_biased_conv() {
  return {"fuse-scalar-mul-into-conv-with-bias",
          "fold a scalar multiplication after a conv with a bias into its weight and bias (guard: the bias is "
          "per channel, the factor a scalar)",
          "  input %x : f32[1,4,6,6]\n  input %w : f32[3,4,3,3]\n  input %b : f32[1,3,1,1]\n  input %s : f32[]\n",
          "  %c = " + kConv3x3 + "(%x, %w)\n  %y = Add(%c, %b)\n  %o = Mul(%y, %s)\n  output %o\n",
          "  %ws = Mul(%w, %s)\n  %bs = Mul(%b, %s)\n  %c = " + kConv3x3 + "(%x, %ws)\n  %o = Add(%c, %bs)\n"
          "  output %o\n",
          false,
          {"b"}};
}

NamedRule fuse_channel_add_into_biased_conv() {
  return {"fuse-channel-add-into-conv-bias",
          "fold a per-channel addition after a conv with a bias into that bias (guard: both are per channel)",
          "  input %x : f32[1,4,6,6]\n  input %w : f32[3,4,3,3]\n  input %b : f32[1,3,1,1]\n  input %d : f32[1,3,1,1]\n",
          "  %c = " + kConv3x3 + "(%x, %w)\n  %y = Add(%c, %b)\n  %o = Add(%y, %d)\n  output %o\n",
          "  %e = Add(%b, %d)\n  %c = " + kConv3x3 + "(%x, %w)\n  %o = Add(%c, %e)\n  output %o\n",
          false,
          {"b", "d"}};
}

// Transformers' Q/K/V projections: three MatMuls of one [batch, tokens, features] activation by
// constant matrices. The enumerated matmul class has 2-D operands only, so its merge cannot bind them.
NamedRule merge_parallel_matmuls() {
  return {"merge-parallel-matmuls-sharing-input",
          "merge two MatMuls of the same [batch, rows, k] input by concatenating their [k, n] weights along "
          "their columns, one MatMul, split the result along its last axis (guard: the same input, 2-D weights)",
          "  input %x : f32[2,3,4]\n  input %a : f32[4,5]\n  input %b : f32[4,6]\n",
          "  %p = MatMul(%x, %a)\n  %q = MatMul(%x, %b)\n  output %p\n  output %q\n",
          "  %c = Concat[axis=1](%a, %b)\n  %m = MatMul(%x, %c)\n  %p, %q = Split[axis=2, split=[5,6]](%m)\n"
          "  output %p\n  output %q\n"};
}

Graph side_graph(const std::string& name, const std::string& inputs, const std::string& body) {
  return parse_graph("graph \"" + name + "\" opset 13 {\n" + inputs + body + "}\n");
}

nlohmann::ordered_json constraints_of(const Graph& lhs, const NamedRule& rule) {
  nlohmann::ordered_json inputs = nlohmann::ordered_json::array();
  for (ValueId id : lhs.inputs())
    inputs.push_back({{"name", lhs.value(id).name}, {"type", lhs.value(id).type.to_string()}});
  nlohmann::ordered_json json;
  json["inputs"] = inputs;
  json["substitution"] = rule.substitution;
  if (!rule.per_channel.empty()) json["per_channel"] = rule.per_channel;
  return json;
}

}  // namespace

const std::vector<NamedRule>& named_rules() {
  static const std::vector<NamedRule> kRules = {merge_1x1_into_3x3(), merge_1x1x1_into_3x3x3(),
                                                fuse_scalar_into_biased_conv(),
                                                fuse_channel_add_into_biased_conv(), merge_parallel_matmuls()};
  return kRules;
}

void named_candidates(const std::string& shape_class, std::vector<ProofJob>& jobs, std::vector<RuleRecord>& records) {
  for (const NamedRule& rule : named_rules()) {
    ProofJob job{side_graph("lhs", rule.inputs, rule.lhs), side_graph("rhs", rule.inputs, rule.rhs)};
    Hasher hasher;
    hasher.add(shape_class);
    hasher.add(rule.name);
    RuleRecord record;
    record.name = rule.name;
    record.shape_class = shape_class;
    record.lhs = print_graph(job.lhs);
    record.rhs = print_graph(job.rhs);
    record.constraints = constraints_of(job.lhs, rule);
    record.bidirectional = rule.bidirectional;
    record.content_hash = hasher.value();
    jobs.push_back(std::move(job));
    records.push_back(std::move(record));
  }
}

}  // namespace pet::rules
