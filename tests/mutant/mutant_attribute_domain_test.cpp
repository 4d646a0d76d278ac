// The attribute domain enumerator: a domain row and operand types in, the attribute sets out.
#include <gtest/gtest.h>

#include <fmt/format.h>

#include "core/ops/layout.h"
#include "core/text_ir.h"
#include "mutant/attribute_forms.h"
#include "mutant/template.h"

namespace pet::mutant {
namespace {

TensorType f32(std::vector<int64_t> dims) { return {DType::f32, Shape(std::move(dims))}; }

// Each Layout attribute set as the shape it produces.
std::vector<std::string> layout_shapes(const std::vector<Attributes>& sets) {
  std::vector<std::string> shapes;
  for (const Attributes& attrs : sets) shapes.push_back(ops::layout_output_shape(attrs).to_string());
  return shapes;
}

std::vector<std::string> ints(const std::vector<Attributes>& sets, const std::string& name) {
  std::vector<std::string> values;
  for (const Attributes& attrs : sets) values.push_back(fmt::format("{}", fmt::join(attrs.get_ints(name), ",")));
  return values;
}

TEST(AttributeDomain, BatchChunksStackOnEachSpatialAxisByTheFactorsThatDivideTheBatch) {
  TemplateContext context{{f32({2, 4, 16, 8})}, {f32({2, 4, 16, 8})}, {}, {}, {}};
  AttributeDomain domain{Axes::Spatial, {2, 3, 4}, Source::BatchRatios, {form::batch_to_axis}, {Side::End}, 3};
  EXPECT_EQ(layout_shapes(enumerate_attributes({domain}, "Layout", context)),
            (std::vector<std::string>{"1x4x32x8", "1x4x16x16"}));
}

TEST(AttributeDomain, TheBatchRatioToTheTargetsIsAFactorToo) {
  TemplateContext context{{f32({1, 4, 48, 8})}, {f32({6, 4, 8, 8})}, {}, {}, {}};
  AttributeDomain domain{Axes::Height, {2}, Source::BatchRatios, {form::axis_to_batch}};
  EXPECT_EQ(layout_shapes(enumerate_attributes({domain}, "Layout", context)),
            (std::vector<std::string>{"2x4x24x8", "6x4x8x8"}));
}

TEST(AttributeDomain, DeinterleaveFactorsAreTheOriginalConvsDilation) {
  Graph conv = parse_graph(R"(graph "g" opset 13 {
    input %x : f32[1,4,16,12]
    input %w : f32[4,4,3,3]
    %y = Conv[dilations=[2,2], group=1, pads=[2,2,2,2], strides=[1,1]](%x, %w)
    output %y
  })");
  TemplateContext context{{f32({1, 4, 16, 12})}, {}, {&conv.nodes()[0]}, {f32({4, 4, 3, 3})}, {}};
  AttributeDomain domain{Axes::BothSpatialThenEach, {}, Source::OriginalDilation, {form::deinterleave}};
  // both axes at once (4 chunks), then H alone, then W alone
  EXPECT_EQ(layout_shapes(enumerate_attributes({domain}, "Layout", context)),
            (std::vector<std::string>{"4x4x8x6", "2x4x8x12", "2x4x16x6"}));
  AttributeDomain inherit{Axes::None, {}, Source::OriginalCompute, {form::inherited, form::undilated}};
  context.operands.push_back(f32({4, 4, 3, 3}));
  EXPECT_EQ(ints(enumerate_attributes({inherit}, "Conv", context), "dilations"), (std::vector<std::string>{"2,2", "1,1"}));
  EXPECT_EQ(ints(enumerate_attributes({inherit}, "Conv", context), "pads"), (std::vector<std::string>{"2,2,2,2", "1,1,1,1"}));
  EXPECT_TRUE(enumerate_attributes({inherit}, "MatMul", context).empty());  // only the template's own op is inherited
}

TEST(AttributeDomain, OddAxesPadOnEitherSideEvenOnesNot) {
  TemplateContext context{{f32({1, 4, 15, 16})}, {}, {}, {}, {}};
  AttributeDomain domain{Axes::Spatial, {2}, Source::Fixed, {form::pad_to_multiple}, {Side::Start, Side::End}, 4, 4};
  EXPECT_EQ(ints(enumerate_attributes({domain}, "Pad", context), "pads"),
            (std::vector<std::string>{"0,0,1,0,0,0,0,0", "0,0,0,0,0,0,1,0"}));
  context.operands = {f32({1, 4, 15})};  // outside the domain's ranks
  EXPECT_TRUE(enumerate_attributes({domain}, "Pad", context).empty());
}

TEST(AttributeDomain, ChannelsPadToEachOfTheTargetsMultiples) {
  TemplateContext context{{f32({1, 50, 8, 8})}, {}, {}, {}, {8, 16}};
  AttributeDomain domain{Axes::Channel, {}, Source::ChannelMultiples, {form::pad_to_multiple}};
  EXPECT_EQ(ints(enumerate_attributes({domain}, "Pad", context), "pads"),
            (std::vector<std::string>{"0,0,0,0,0,6,0,0", "0,0,0,0,0,14,0,0"}));
  context.channel_multiples = {};  // a target without a preferred multiple
  EXPECT_TRUE(enumerate_attributes({domain}, "Pad", context).empty());
}

TEST(AttributeDomain, EqualSetsFromDifferentPointsAreEnumeratedOnce) {
  // Q, K and V targets of one type: one slice per side, not three.
  TemplateContext context{{f32({1, 8, 36})}, {f32({1, 8, 12}), f32({1, 8, 12}), f32({1, 8, 12})}, {}, {}, {}};
  AttributeDomain domain{Axes::Every, {}, Source::Targets, {form::slice_to_target}, {Side::Start, Side::End}};
  EXPECT_EQ(ints(enumerate_attributes({domain}, "Slice", context), "starts"), (std::vector<std::string>{"0,0,0", "0,0,24"}));
}

TEST(AttributeDomain, EveryBuiltInTemplateIsADomainOfForms) {
  std::vector<MutantTemplate> all = default_templates();
  all.insert(all.end(), square_kernel_templates().begin(), square_kernel_templates().end());
  for (const MutantTemplate& tmpl : all) {
    EXPECT_FALSE(tmpl.domains.empty()) << tmpl.name;
    for (const AttributeDomain& domain : tmpl.domains) {
      EXPECT_FALSE(domain.forms.empty()) << tmpl.name;
      for (Form form : domain.forms) EXPECT_NE(form, nullptr) << tmpl.name;
    }
  }
}

}  // namespace
}  // namespace pet::mutant
