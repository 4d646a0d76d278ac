// The example rules, one graph pair each.
#include "verifier/z3/example_rules.h"

#include "core/error.h"

namespace pet {
namespace {

const char* kConv = "Conv[dilations=[1,1], group=1, pads=[1,1,1,1], strides=[1,1]]";

std::string graph(const std::string& body) { return "graph \"rule\" opset 13 {\n" + body + "}\n"; }

ExampleRule merge_convs() {
  std::string inputs = "input %x : f32[1,4,6,6]\ninput %w1 : f32[2,4,3,3]\ninput %w2 : f32[3,4,3,3]\n";
  return {"merge-convs-sharing-input",
          graph(inputs + "%y1 = " + kConv + "(%x, %w1)\n%y2 = " + kConv + "(%x, %w2)\noutput %y1\noutput %y2\n"),
          graph(inputs + "%w = Concat[axis=0](%w1, %w2)\n%y = " + kConv +
                "(%x, %w)\n%y1, %y2 = Split[axis=1, split=[2,3]](%y)\noutput %y1\noutput %y2\n"),
          true};
}

ExampleRule merge_conv_with_enlarged_kernel() {
  std::string inputs = "input %x : f32[1,4,6,6]\ninput %w1 : f32[2,4,1,1]\ninput %w3 : f32[3,4,3,3]\n";
  return {"merge-1x1-and-3x3-convs",
          graph(inputs + "%y1 = Conv[dilations=[1,1], group=1, pads=[0,0,0,0], strides=[1,1]](%x, %w1)\n%y3 = " +
                kConv + "(%x, %w3)\noutput %y1\noutput %y3\n"),
          graph(inputs + "%big = Pad[mode=\"constant\", pads=[0,0,1,1,0,0,1,1], value=0](%w1)\n" +
                "%w = Concat[axis=0](%big, %w3)\n%y = " + kConv +
                "(%x, %w)\n%y1, %y3 = Split[axis=1, split=[2,3]](%y)\noutput %y1\noutput %y3\n"),
          true};
}

ExampleRule matmul_associative() {
  std::string inputs = "input %a : f32[2,3]\ninput %b : f32[3,4]\ninput %c : f32[4,5]\n";
  return {"matmul-reassociate", graph(inputs + "%ab = MatMul(%a, %b)\n%y = MatMul(%ab, %c)\noutput %y\n"),
          graph(inputs + "%bc = MatMul(%b, %c)\n%y = MatMul(%a, %bc)\noutput %y\n"), true};
}

ExampleRule relu_transpose() {
  return {"relu-through-transpose",
          graph("input %x : f32[2,3,4]\n%t = Transpose[perm=[2,0,1]](%x)\n%y = Relu(%t)\noutput %y\n"),
          graph("input %x : f32[2,3,4]\n%r = Relu(%x)\n%y = Transpose[perm=[2,0,1]](%r)\noutput %y\n"), true};
}

ExampleRule factor_scalar() {
  std::string inputs = "input %x : f32[2,3]\ninput %y : f32[2,3]\nconst %two : f32[] = [2]\n";
  return {"factor-scalar-out-of-add",
          graph(inputs + "%x2 = Mul(%x, %two)\n%y2 = Mul(%y, %two)\n%z = Add(%x2, %y2)\noutput %z\n"),
          graph(inputs + "%s = Add(%x, %y)\n%z = Mul(%s, %two)\noutput %z\n"), true};
}

ExampleRule split_concat() {
  std::string inputs = "input %x : f32[2,3]\ninput %y : f32[2,4]\n";
  return {
      "split-of-concat",
      graph(inputs + "%c = Concat[axis=1](%x, %y)\n%a, %b = Split[axis=1, split=[3,4]](%c)\noutput %a\noutput %b\n"),
      graph(inputs + "output %x\noutput %y\n"), true};
}

ExampleRule transpose_twice() {
  return {
      "transpose-twice-is-identity",
      graph("input %x : f32[2,3,4]\n%t = Transpose[perm=[1,2,0]](%x)\n%y = Transpose[perm=[2,0,1]](%t)\noutput %y\n"),
      graph("input %x : f32[2,3,4]\noutput %x\n"), true};
}

ExampleRule batch_to_height_and_back() {
  return {"layout-batch-to-height-and-back",
          graph("input %x : f32[4,2,3,3]\n"
                "%h = Layout[expanded=[2,2,2,3,3], perm=[1,2,0,3,4], groups=[1,1,2,1]](%x)\n"
                "%y = Layout[expanded=[2,2,2,3,3], perm=[2,0,1,3,4], groups=[2,1,1,1]](%h)\noutput %y\n"),
          graph("input %x : f32[4,2,3,3]\noutput %x\n"), true};
}

ExampleRule identity_kernel_conv() {
  return {"conv-with-identity-kernel",
          graph("input %x : f32[1,2,4,4]\nconst %eye : f32[2,2,1,1] = [1,0,0,1]\n"
                "%y = Conv[dilations=[1,1], group=1, pads=[0,0,0,0], strides=[1,1]](%x, %eye)\noutput %y\n"),
          graph("input %x : f32[1,2,4,4]\noutput %x\n"), true};
}

ExampleRule conv_weight_sum() {
  std::string inputs = "input %x : f32[1,2,5,5]\ninput %w1 : f32[3,2,3,3]\ninput %w2 : f32[3,2,3,3]\n";
  return {"conv-of-weight-sum",
          graph(inputs + "%a = " + kConv + "(%x, %w1)\n%b = " + kConv + "(%x, %w2)\n%y = Add(%a, %b)\noutput %y\n"),
          graph(inputs + "%w = Add(%w1, %w2)\n%y = " + kConv + "(%x, %w)\noutput %y\n"), true};
}

ExampleRule merge_convs_on_batch() {
  std::string inputs = "input %x1 : f32[1,2,5,5]\ninput %x2 : f32[2,2,5,5]\ninput %w : f32[3,2,3,3]\n";
  return {"merge-convs-sharing-weight",
          graph(inputs + "%y1 = " + kConv + "(%x1, %w)\n%y2 = " + kConv + "(%x2, %w)\noutput %y1\noutput %y2\n"),
          graph(inputs + "%x = Concat[axis=0](%x1, %x2)\n%y = " + kConv +
                "(%x, %w)\n%y1, %y2 = Split[axis=0, split=[1,2]](%y)\noutput %y1\noutput %y2\n"),
          true};
}

ExampleRule relu_transpose_concat() {
  std::string inputs = "input %x : f32[2,3]\ninput %y : f32[2,4]\n";
  return {"relu-transpose-concat",
          graph(inputs + "%c = Concat[axis=1](%x, %y)\n%t = Transpose[perm=[1,0]](%c)\n%z = Relu(%t)\noutput %z\n"),
          graph(inputs + "%rx = Relu(%x)\n%ry = Relu(%y)\n%tx = Transpose[perm=[1,0]](%rx)\n" +
                "%ty = Transpose[perm=[1,0]](%ry)\n%z = Concat[axis=0](%tx, %ty)\noutput %z\n"),
          true};
}

ExampleRule add_reorder() {
  std::string inputs = "input %x : f32[4]\ninput %y : f32[4]\ninput %z : f32[4]\n";
  return {"add-reorder", graph(inputs + "%a = Add(%x, %y)\n%b = Add(%a, %z)\noutput %b\n"),
          graph(inputs + "%a = Add(%z, %x)\n%b = Add(%a, %y)\noutput %b\n"), true};
}

ExampleRule matmul_transpose() {
  std::string inputs = "input %a : f32[2,3]\ninput %b : f32[3,4]\n";
  return {"transpose-of-matmul", graph(inputs + "%m = MatMul(%a, %b)\n%y = Transpose[perm=[1,0]](%m)\noutput %y\n"),
          graph(inputs +
                "%bt = Transpose[perm=[1,0]](%b)\n%at = Transpose[perm=[1,0]](%a)\n%y = MatMul(%bt, %at)\noutput %y\n"),
          true};
}

ExampleRule taso_conv_mul() {
  std::string inputs = "input %x : f32[1,2,5,5]\ninput %w : f32[3,2,3,3]\ninput %s : f32[]\n";
  return {"taso-unsound-drop-mul-after-conv",
          graph(inputs + "%c = " + kConv + "(%x, %w)\n%y = Mul(%c, %s)\noutput %y\n"),
          graph(inputs + "%y = " + kConv + "(%x, %w)\noutput %y\n"), false};
}

}  // namespace

const std::vector<ExampleRule>& example_rules() {
  static const std::vector<ExampleRule> kRules = {merge_convs(),           merge_conv_with_enlarged_kernel(),
                                                  matmul_associative(),    relu_transpose(),
                                                  factor_scalar(),         split_concat(),
                                                  transpose_twice(),       batch_to_height_and_back(),
                                                  conv_weight_sum(),       merge_convs_on_batch(),
                                                  relu_transpose_concat(), add_reorder(),
                                                  matmul_transpose(),      identity_kernel_conv(),
                                                  taso_conv_mul()};
  return kRules;
}

const ExampleRule& example_rule(const std::string& name) {
  for (const ExampleRule& rule : example_rules())
    if (rule.name == name) return rule;
  PET_CHECK(false, "no example rule named " + name);
  return example_rules().front();
}

}  // namespace pet
