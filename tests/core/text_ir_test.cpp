// Textual IR: printing is stable, parsing gives the same graph, and bad text names its line.
#include <gtest/gtest.h>

#include <fmt/format.h>

#include "core/error.h"
#include "core/structural_hash.h"
#include "core/text_ir.h"

namespace pet {
namespace {

const char* kTiny = R"(graph "tiny" opset 13 {
  input %x : f32[2,3]
  const %b : f32[3] = [1,-5,0.5]
  %sum = Add(%x, %b) : f32[2,3]
  %y = Relu(%sum) : f32[2,3]
  output %y
}
)";

TEST(TextIr, PrintOfParseIsTheSameText) { EXPECT_EQ(print_graph(parse_graph(kTiny)), kTiny); }

TEST(TextIr, NodeNamesWithSlashesPrintQuotedAndParseBack) {
  const std::string text = R"(graph "named" opset 13 {
  input %x : f32[2]
  %y = Relu(%x) : f32[2] @"/layer1/relu:0"
  output %y
}
)";
  EXPECT_EQ(print_graph(parse_graph(text), PrintOptions{.node_names = true}), text);
}

TEST(TextIr, AttributesPrintInNameOrderAndDistinguishEveryValue) {
  Attributes conv = {{"strides", std::vector<int64_t>{1, 2}}, {"group", int64_t{1}}, {"auto_pad", std::string("NOTSET")}};
  EXPECT_EQ(conv.to_string(), "[auto_pad=\"NOTSET\", group=1, strides=[1,2]]");
  EXPECT_EQ(Attributes{}.to_string(), "");
  Attributes other = conv;
  other.set("strides", std::vector<int64_t>{2, 1});
  EXPECT_NE(other.to_string(), conv.to_string()) << "the layout memos key on this text";
}

TEST(TextIr, LargeConstantsPrintAsBlobsAndParseBackWithTheTable) {
  Graph graph = parse_graph(R"(graph "g" opset 13 {
    input %x : f32[4,32]
    const %w : f32[32] = random(7)
    %y = Add(%x, %w) : f32[4,32]
    output %y
  })");
  std::string printed = print_graph(graph);
  EXPECT_NE(printed.find("const %w : f32[32] = blob("), std::string::npos) << printed;
  Graph reparsed = parse_graph(printed, collect_blobs(graph));
  EXPECT_EQ(structural_hash(reparsed), structural_hash(graph));
}

// Before: a structural comparison printed every large constant as blob(HASH), hashing all the
// weights. After: without constant values, each constant prints as "..." beside its name and type.
TEST(TextIr, WithoutConstantValuesEveryConstantPrintsAsAnEllipsis) {
  Graph graph = parse_graph(R"(graph "g" opset 13 {
    input %x : f32[4,32]
    const %w : f32[32] = random(7)
    const %s : f32[1] = [0.5]
    %y = Add(%x, %w) : f32[4,32]
    %z = Mul(%y, %s) : f32[4,32]
    output %z
  })");
  std::string printed = print_graph(graph, PrintOptions{.constant_values = false});
  EXPECT_NE(printed.find("const %w : f32[32] = ...\n"), std::string::npos) << printed;
  EXPECT_NE(printed.find("const %s : f32[1] = ...\n"), std::string::npos) << printed;
  EXPECT_NE(printed.find("%z = Mul(%y, %s) : f32[4,32]"), std::string::npos) << printed;
}

// Weight-free IR: a model travels to the GPU machine without its weights and is regenerated there
// bit for bit; each large constant becomes seeded noise of its own root mean square.
TEST(TextIr, WeightFreePrintingRegeneratesLargeConstantsAsSeededNoiseOfTheSameScale) {
  Graph graph = parse_graph(R"(graph "g" opset 13 {
    input %x : f32[4,32]
    const %w : f32[32] = random(7, 0.5)
    const %b : f32[2] = [3,-4]
    %y = Add(%x, %w) : f32[4,32]
    output %y
  })");
  const Tensor& weight = *graph.value(*graph.find_value("w")).constant;
  EXPECT_EQ(weight.f32()[0], Tensor::random_f32(Shape({32}), 7, -0.5f, 0.5f).f32()[0]);
  std::string printed = print_graph(graph, PrintOptions{.weight_free = true});
  std::string expected_line = fmt::format("const %w : f32[32] = random({}, ", weight.content_hash());
  ASSERT_NE(printed.find(expected_line), std::string::npos) << printed;
  EXPECT_NE(printed.find("const %b : f32[2] = [3,-4]"), std::string::npos) << "small constants stay inline";
  Graph regenerated = parse_graph(printed);
  EXPECT_EQ(structural_hash(parse_graph(printed)), structural_hash(regenerated)) << "parsing twice gives the same bits";
  double original = 0, copy = 0;
  for (float value : weight.f32()) original += value * value;
  for (float value : regenerated.value(*regenerated.find_value("w")).constant->f32()) copy += value * value;
  EXPECT_NEAR(copy / original, 1.0, 0.5) << "the same scale, not the same values";
}

TEST(TextIrErrors, ARandomScaleMustBeANonNegativeNumber) {
  try {
    parse_graph("graph \"g\" opset 13 {\n  const %w : f32[32] = random(7, -1)\n  output %w\n}\n");
    FAIL() << "a negative scale was accepted";
  } catch (const UserError& error) {
    EXPECT_NE(std::string(error.what()).find("a scale between 0 and the largest float"), std::string::npos)
        << error.what();
  }
}

TEST(TextIr, NamesWithOddCharactersAreQuoted) {
  Graph graph;
  ValueId x = graph.add_input("input 0", {DType::f32, {2}});
  graph.add_output(graph.add_node1("Relu", {}, {x}, "/layer1/relu"));
  std::string printed = print_graph(graph);
  EXPECT_NE(printed.find("input %\"input 0\" : f32[2]"), std::string::npos) << printed;
  EXPECT_EQ(print_graph(parse_graph(printed)), printed);
}

void expect_parse_error(const std::string& text, const std::string& message) {
  try {
    parse_graph(text);
    FAIL() << "expected a UserError";
  } catch (const UserError& error) {
    EXPECT_EQ(std::string(error.what()), message);
  }
}

TEST(TextIrErrors, UnknownOpNamesTheLine) {
  expect_parse_error("graph \"g\" opset 13 {\n  input %x : f32[2]\n  %y = Frobnicate(%x)\n}",
                     "IR line 3: expected a registered op, found 'Frobnicate'");
}

TEST(TextIrErrors, UndefinedValueNamesTheLine) {
  expect_parse_error("graph \"g\" opset 13 {\n  input %x : f32[2]\n  %y = Relu(%z)\n}",
                     "IR line 3: expected a defined value, found 'z'");
}

TEST(TextIrErrors, WrongWrittenTypeIsReported) {
  expect_parse_error("graph \"g\" opset 13 {\n  input %x : f32[2]\n  %y = Relu(%x) : f32[3]\n}",
                     "IR line 3: '%y' is written as f32[3] but Relu computes f32[2]");
}

TEST(TextIrErrors, ConstantWithTooFewValues) {
  expect_parse_error("graph \"g\" opset 13 {\n  const %c : f32[3] = [1,2]\n}",
                     "IR line 2: the constant has 2 values but f32[3] needs 3");
}

// Numbers the parser once passed on unchecked (std::stoull, a negative allocation, int64 overflow).
TEST(TextIrErrors, SeedOutOfRange) {
  expect_parse_error("graph \"g\" opset 13 {\n  const %c : f32[2] = random(99999999999999999999)\n}",
                     "IR line 2: expected a decimal seed below 2^64, found '99999999999999999999'");
  expect_parse_error("graph \"g\" opset 13 {\n  const %c : f32[2] = random(seven)\n}",
                     "IR line 2: expected a decimal seed below 2^64, found 'seven'");
}

TEST(TextIrErrors, BlobHashThatIsNotHexadecimal) {
  expect_parse_error("graph \"g\" opset 13 {\n  const %c : f32[32] = blob(xyz)\n}",
                     "IR line 2: expected a hexadecimal blob hash below 2^64, found 'xyz'");
}

TEST(TextIrErrors, NegativeOrOverflowingDimensions) {
  expect_parse_error("graph \"g\" opset 13 {\n  input %x : f32[2,-1]\n}",
                     "IR line 2: expected a dimension of at least 0 whose product with the others is below 2^60, "
                     "found '-1'");
  expect_parse_error("graph \"g\" opset 13 {\n  input %x : f32[4294967296,4294967296]\n}",
                     "IR line 2: expected a dimension of at least 0 whose product with the others is below 2^60, "
                     "found '4294967296'");
}

TEST(TextIrErrors, MissingRequiredAttribute) {
  expect_parse_error("graph \"g\" opset 13 {\n  input %x : f32[1,1,3,3]\n  input %w : f32[1,1,1,1]\n"
                     "  %y = Conv[dilations=[1,1], group=1, pads=[0,0,0,0]](%x, %w)\n}",
                     "IR line 4: expected attribute 'strides' of Conv (it has no default), found ']'");
  expect_parse_error("graph \"g\" opset 13 {\n  input %x : f32[2,3]\n  %y = Transpose(%x)\n}",
                     "IR line 3: expected attribute 'perm' of Transpose (it has no default), found '('");
}

TEST(TextIrErrors, I64ConstantOutOfRange) {
  expect_parse_error("graph \"g\" opset 13 {\n  const %c : i64[2] = [1, 1e30]\n}",
                     "IR line 2: expected an integer of type i64 (from -9223372036854775808 to "
                     "9223372036854775807), found '1e30'");
  expect_parse_error("graph \"g\" opset 13 {\n  const %c : i64[1] = [nan]\n}",
                     "IR line 2: expected an integer of type i64 (from -9223372036854775808 to "
                     "9223372036854775807), found 'nan'");
  expect_parse_error("graph \"g\" opset 13 {\n  const %c : u8[2] = [255, 256]\n}",
                     "IR line 2: expected an integer of type u8 (from 0 to 255), found '256'");
}

TEST(StructuralHash, IgnoresNamesAndNodeOrder) {
  Graph a = parse_graph(R"(graph "a" opset 13 {
    input %x : f32[4]
    %p = Relu(%x)
    %q = Add(%x, %x)
    %r = Add(%p, %q)
    output %r
  })");
  Graph b = parse_graph(R"(graph "b" opset 13 {
    input %in : f32[4]
    %two = Add(%in, %in)
    %pos = Relu(%in)
    %out = Add(%two, %pos)
    output %out
  })");
  EXPECT_EQ(structural_hash(a), structural_hash(b));  // Add is commutative, so operand order is free
}

TEST(StructuralHash, SeesAttributeAndConstantChanges) {
  Graph a = parse_graph("graph \"a\" opset 13 {\n input %x : f32[2]\n const %c : f32[2] = [1,2]\n"
                        " %y = Add(%x, %c)\n output %y\n}");
  Graph b = parse_graph("graph \"a\" opset 13 {\n input %x : f32[2]\n const %c : f32[2] = [1,3]\n"
                        " %y = Add(%x, %c)\n output %y\n}");
  EXPECT_NE(structural_hash(a), structural_hash(b));
}

// Before: a profile DB's whole-model keys hashed the weights, so times recorded on a model's
// weight-free form (all that travels to a GPU) never replayed on the model. After: the timing
// hash keeps shapes, ops and small constants, and only the weights' values are blind to it.
TEST(TimingHash, AModelAndItsWeightFreeFormShareItWhileSmallConstantsAndShapesStillCount) {
  auto model = [](const std::string& weight, const std::string& shift, int first_index, int width) {
    std::string indices;
    for (int i = 0; i < 20; ++i) indices += fmt::format("{}{}", i ? "," : "", i == 0 ? first_index : i);
    return parse_graph(fmt::format(R"(graph "g" opset 13 {{
      input %x : f32[4,{0}]
      const %w : f32[{0}] = {1}
      const %b : f32[1] = {2}
      const %i : i64[20] = [{3}]
      %y = Add(%x, %w) : f32[4,{0}]
      %g = Gather[axis=1](%y, %i) : f32[4,20]
      %o = Add(%g, %b) : f32[4,20]
      output %o
    }})",
                                   width, weight, shift, indices));
  };
  Graph original = model("random(7, 0.5)", "[3]", 0, 32);
  Graph weight_free = parse_graph(print_graph(original, PrintOptions{.weight_free = true}));
  ASSERT_NE(structural_hash(weight_free), structural_hash(original)) << "other weights, another computation";
  EXPECT_EQ(timing_hash(weight_free), timing_hash(original));
  EXPECT_EQ(timing_hash(model("random(8, 2)", "[3]", 0, 32)), timing_hash(original)) << "other weights";
  EXPECT_NE(timing_hash(model("random(7, 0.5)", "[4]", 0, 32)), timing_hash(original)) << "a small constant";
  EXPECT_NE(timing_hash(model("random(7, 0.5)", "[3]", 25, 32)), timing_hash(original)) << "an index";
  EXPECT_NE(timing_hash(model("random(7, 0.5)", "[3]", 0, 48)), timing_hash(original)) << "other shapes";
  EXPECT_TRUE(is_weight(*original.value(*original.find_value("w")).constant));
  EXPECT_FALSE(is_weight(*original.value(*original.find_value("i")).constant)) << "indices are never weights";
}

}  // namespace
}  // namespace pet
