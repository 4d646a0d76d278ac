// Every registered op has every facet it claims, and its declarations are coherent.
#include <gtest/gtest.h>

#include <set>

#include "core/registry.h"

namespace pet {
namespace {

// Each failure names the op and the facet, so a new op file learns what it forgot.
std::vector<std::string> facet_problems(const OpDef& def) {
  std::vector<std::string> problems;
  auto need = [&](bool present, const std::string& facet) {
    if (!present) problems.push_back(def.name + ": missing " + facet);
  };
  need(static_cast<bool>(def.infer), "shape rule (infer)");
  need(static_cast<bool>(def.compute), "reference kernel (compute)");
  need(static_cast<bool>(def.cost), "cost rule");
  need(static_cast<bool>(def.to_onnx), "ONNX export (to_onnx)");
  if (!def.onnx_ops.empty()) need(static_cast<bool>(def.from_onnx), "ONNX import (from_onnx) for the ONNX ops it claims");
  need(def.min_inputs >= 0 && def.min_inputs <= def.max_inputs, "a valid input count range");
  need(def.num_outputs == -1 || def.num_outputs >= 1, "an output count (>= 1, or -1 for attribute-dependent)");
  bool linear = def.traits.linearity != Linearity::None;
  need(linear == !def.traits.linear_inputs.empty(), "linear_inputs exactly when it declares a linearity");
  for (int input : def.traits.linear_inputs)
    need(input >= 0 && input < def.max_inputs, "linear inputs within its inputs (" + std::to_string(input) + ")");
  need(!(def.traits.layout_only && def.traits.linearity == Linearity::Multilinear),
       "a coherent linearity: layout-only ops are jointly linear, not multilinear");
  need(!def.traits.view || (def.traits.layout_only && def.min_inputs >= 1),
       "a view's facets: layout-only, reading input 0 (traits.view)");
  for (const AttrSpec& spec : def.attrs)
    if (spec.default_value) need(attr_kind(*spec.default_value) == spec.kind, "a default of the declared kind for '" + spec.name + "'");
  return problems;
}

TEST(Registry, EveryOpHasTheFacetsItClaims) {
  for (const OpDef* def : OpRegistry::global().all())
    for (const std::string& problem : facet_problems(*def)) ADD_FAILURE() << problem;
}

TEST(Registry, OnnxNamesAreClaimedOnceAndFoundBack) {
  std::set<std::string> seen;
  for (const OpDef* def : OpRegistry::global().all())
    for (const std::string& onnx_op : def->onnx_ops) {
      EXPECT_TRUE(seen.insert(onnx_op).second) << onnx_op << " claimed twice";
      EXPECT_EQ(OpRegistry::global().find_onnx(onnx_op), def);
    }
}

TEST(Registry, CoversTheOperatorsTheModelsAndUsersNeed) {
  for (const char* op : {"Conv", "ConvTranspose", "MatMul", "Gemm", "Add", "Sub", "Mul", "Div", "Pow", "Relu",
                         "LeakyRelu", "Sigmoid", "HardSigmoid", "HardSwish", "Tanh", "Erf", "Clip", "Sqrt", "Exp",
                         "Softmax", "LogSoftmax", "BatchNormalization", "LayerNormalization", "ReduceMean",
                         "ReduceSum", "ReduceMax", "MaxPool", "AveragePool", "GlobalAveragePool", "GlobalMaxPool",
                         "Concat", "Split", "Slice", "Pad", "Transpose", "Reshape", "Flatten", "Squeeze",
                         "Unsqueeze", "Expand", "Gather", "Where", "Equal", "Cast", "Identity", "Dropout",
                         "ConstantOfShape", "Shape", "Resize"})
    EXPECT_NE(OpRegistry::global().find_onnx(op), nullptr) << op;
  EXPECT_NE(OpRegistry::global().find("Layout"), nullptr);
}

TEST(Registry, AnExtraOpRegisteredAtRunTimeIsFound) {
  OpRegistry registry;
  OpDef def;
  def.name = "Twice";
  const OpDef& stored = registry.add(def);
  EXPECT_EQ(registry.find("Twice"), &stored);
  EXPECT_EQ(registry.find("Thrice"), nullptr);
}

}  // namespace
}  // namespace pet
