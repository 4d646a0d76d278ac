// The worked example of docs/ADDING_AN_OPERATOR.md: a new layout op, FlipRows, with every facet,
// an axioms family and two mutant templates, and the generator finding a mutant that uses it.
// The doc quotes the sections between the "---8<---" markers; a test keeps the two identical.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <limits>
#include <random>
#include <set>
#include <sstream>

#include "tests/test_temp_dir.h"
#include "core/error.h"
#include "core/executor.h"
#include "core/onnx_export.h"
#include "core/onnx_import.h"
#include "core/ops/linear_facets.h"
#include "core/prime_field.h"
#include "core/registry.h"
#include "core/text_ir.h"
#include "mutant/attribute_forms.h"
#include "mutant/generator.h"
#include "verifier/axioms/axiom_util.h"
#include "verifier/axioms/numeric_check.h"
#include "verifier/box_analysis.h"
#include "verifier/field_evaluator.h"
#include "verifier/z3/prover.h"

// ---8<--- example: the op file (core/ops/flip_rows.cpp)
// FlipRows: reverses the rows (axis 2) of an NCHW tensor; a pure layout change.
#include <fmt/format.h>

#include "core/onnx_mapping.h"
#include "core/ops/op_util.h"
#include "core/ops/strided_copy.h"

namespace pet::ops {
namespace {

ShapeResult infer_flip_rows(const ShapeContext& context) {
  const TensorType& input = context.input(0);
  PET_REFUSE_UNLESS(context, input.shape.rank() == 4, "needs an NCHW tensor (rank 4), got " + input.shape.to_string());
  return {input};
}

// A view of the input that starts at its last row and walks the rows backwards.
void flip_rows_kernel(KernelContext& context) {
  const Tensor& input = context.input(0);
  if (input.numel() == 0) return;
  std::vector<int64_t> strides = input.shape().strides();
  StridedView view{(input.shape()[2] - 1) * strides[2], input.shape().dims(), strides};
  view.strides[2] = -strides[2];
  copy_strided(input, view, context.outputs[0]);
}

// ONNX has no FlipRows: a Slice of axis 2 from the last row backwards (steps need opset 10).
void export_flip_rows(const Node& node, OnnxExportNode& out) {
  if (out.opset() < 10)
    throw UserError(fmt::format("node '{}' (FlipRows): exports as a Slice with step -1, which needs opset 10 "
                                "or newer; export with --opset 10 or later", node.name));
  auto ints = [&](int64_t value) { return out.add_constant(Tensor::i64(Shape{1}, {value})); };
  out.add_node("Slice", {out.input(0), ints(-1), ints(std::numeric_limits<int64_t>::min()), ints(2), ints(-1)},
               {out.output(0)}, {});
}

// Output row h is input row H-1-h.
uint64_t flip_rows_point(const PointContext& context) {
  const int64_t* at = context.index;
  int64_t index[4] = {at[0], at[1], context.output.shape[2] - 1 - at[2], at[3]};
  return context.pull(0, index);
}

// The input's boxes, mirrored along axis 2: cut c becomes cut H-c.
BoxGrid flip_rows_boxes(const BoxContext& context) {
  std::vector<std::vector<int64_t>> cuts = context.grid(0).all_cuts();
  int64_t rows = context.output.shape[2];
  std::vector<int64_t> mirrored;
  for (auto cut = cuts[2].rbegin(); cut != cuts[2].rend(); ++cut) mirrored.push_back(rows - *cut);
  cuts[2] = std::move(mirrored);
  return BoxGrid(std::move(cuts));
}

}  // namespace

OpDef make_FlipRows() {
  OpDef def;
  def.name = "FlipRows";
  def.onnx_ops = {};  // no ONNX op imports as FlipRows, so no from_onnx
  def.attrs = {};     // nothing to choose: the canonical form is the op name alone
  def.traits.linearity = Linearity::Joint;
  def.traits.linear_inputs = {0};
  def.traits.layout_only = true;
  def.infer = infer_flip_rows;
  def.compute = flip_rows_kernel;
  def.cost = data_movement_cost;
  def.to_onnx = export_flip_rows;
  def.eval_point = flip_rows_point;
  def.propagate_boxes = flip_rows_boxes;
  return def;
}

}  // namespace pet::ops
// --->8--- end of example

// ---8<--- example: registration at run time
namespace pet {

// Built in, this is the line PET_OP(FlipRows) in core/ops/list_tensor.h. A test or plugin adds it
// to the registry once (a second add of the same name is an internal error).
const OpDef& register_flip_rows() {
  static const OpDef& def = OpRegistry::global().add(ops::make_FlipRows());
  return def;
}

}  // namespace pet
// --->8--- end of example

// ---8<--- example: the axioms file (verifier/axioms/flip_rows.cpp)
namespace pet::axioms {

using Dims = std::vector<int64_t>;

AxiomSchema flip_rows_involution() {
  return {"flip-rows-involution",
          "flip_rows",
          "FlipRows(FlipRows(x)) = x",
          [](const SignatureIndex& index) {
            std::vector<AxiomParams> result;
            for (const NodeSignature& flip : index.of("FlipRows"))
              result.push_back({{"shape", flip.inputs[0].shape.dims()}});
            return result;
          },
          [](const AxiomParams& p) { return p.get_ints("shape").size() == 4 && all_positive(p.get_ints("shape")); },
          [](const AxiomParams& p) {
            AxiomSides s;
            ValueId x = s.input("x", shape_param(p, "shape"));
            s.set_outputs({node(s.lhs, "FlipRows", {}, {node(s.lhs, "FlipRows", {}, {x})})}, {x});
            return s;
          },
          {{{"shape", Dims{1, 2, 3, 2}}}, {{"shape", Dims{2, 1, 4, 3}}}}};
}

// Mirroring input and kernel mirrors the output when the window is symmetric about each row:
// stride 1 and as much padding above as below.
AxiomSchema flip_rows_through_conv() {
  return {"flip-rows-through-conv",
          "flip_rows",
          "Conv(FlipRows(x), FlipRows(w)) = FlipRows(Conv(x, w)) for row stride 1 and equal top and bottom pads",
          [](const SignatureIndex& index) {
            std::vector<AxiomParams> result;
            if (index.of("FlipRows").empty()) return result;
            for (const NodeSignature& conv : index.of("Conv"))
              if (is_plain_conv(conv)) result.push_back(conv_params(conv));
            return result;
          },
          [](const AxiomParams& p) {
            Dims pads = p.get_ints("pads");
            return p.get_ints("x").size() == 4 && p.get_ints("strides")[0] == 1 && pads[0] == pads[2];
          },
          [](const AxiomParams& p) {
            AxiomSides s;
            ValueId x = s.input("x", shape_param(p, "x")), w = s.input("w", shape_param(p, "w"));
            ValueId flipped = node(s.lhs, "Conv", conv_attrs(p),
                                   {node(s.lhs, "FlipRows", {}, {x}), node(s.lhs, "FlipRows", {}, {w})});
            s.set_outputs({flipped}, {node(s.rhs, "FlipRows", {}, {node(s.rhs, "Conv", conv_attrs(p), {x, w})})});
            return s;
          },
          {conv_example({1, 2, 5, 4}, {3, 2, 3, 3}, 1, 1, 1),
           with_param(conv_example({1, 2, 7, 5}, {2, 1, 3, 1}, 1, 0, 2), "dilations", Dims{2, 1})}};
}

// Listed in all_axioms() (verifier/axioms/axiom.cpp) when built in.
std::vector<AxiomSchema> flip_rows_axioms() { return {flip_rows_involution(), flip_rows_through_conv()}; }

}  // namespace pet::axioms
// --->8--- end of example

// ---8<--- example: the templates (one line each in mutant/template_set.cpp)
namespace pet::mutant {

// FlipRows has no attributes to choose: one point, on every operand its shape rule accepts.
const std::vector<AttributeDomain> kFlipRowsDomain = {{Axes::None, {}, Source::NoValue, {form::no_attributes}}};

std::vector<MutantTemplate> with_flip_rows(std::vector<MutantTemplate> templates) {
  templates.push_back({"flip-rows", "FlipRows", Stage::Pre, 1, 1, Role::Any, kFlipRowsDomain});
  templates.push_back({"flip-rows-back", "FlipRows", Stage::Post, 1, 1, Role::Any, kFlipRowsDomain});
  return templates;
}

}  // namespace pet::mutant
// --->8--- end of example

namespace pet {
namespace {

// ---8<--- example: the generator finds a mutant that uses the new op
const char* kConv = R"(graph "conv" opset 13 {
  input %x : f32[1,2,8,6]
  input %w : f32[2,2,3,3]
  %y = Conv[dilations=[1,1], group=1, pads=[1,1,1,1], strides=[1,1]](%x, %w)
  output %y
})";

TEST(AddingAnOperator, GeneratorFlipsInputAndKernelAndFlipsTheResultBack) {
  register_flip_rows();
  mutant::GeneratorOptions options;
  // The built-in conv template alone plus ours: the whole set finds this mutant too, but spends a
  // second or two on families that do not involve FlipRows.
  options.templates.clear();
  for (const mutant::MutantTemplate& tmpl : mutant::default_templates())
    if (tmpl.name == "conv") options.templates.push_back(tmpl);
  options.templates = mutant::with_flip_rows(options.templates);

  mutant::Generation result = mutant::generate_mutants(parse_graph(kConv), options);
  const mutant::Mutant* flipped = nullptr;
  for (const mutant::Mutant& mutant : result.mutants)
    if (mutant.family == "flip-rows+flip-rows+conv+flip-rows-back") flipped = &mutant;
  ASSERT_NE(flipped, nullptr) << result.stats.summary();
  EXPECT_EQ(flipped->verdict.kind, VerdictKind::Full) << flipped->verdict.summary();
  EXPECT_EQ(print_graph(flipped->program), R"(graph "conv_mutant" opset 13 {
  input %x : f32[1,2,8,6]
  input %w : f32[2,2,3,3]
  %flip-rows_0 = FlipRows(%x) : f32[1,2,8,6]
  %flip-rows_1 = FlipRows(%w) : f32[2,2,3,3]
  %conv_2 = Conv[dilations=[1,1], group=1, pads=[1,1,1,1], strides=[1,1]](%flip-rows_0, %flip-rows_1) : f32[1,2,8,6]
  %flip-rows-back_3 = FlipRows(%conv_2) : f32[1,2,8,6]
  output %flip-rows-back_3
}
)");
}
// --->8--- end of example

}  // namespace
}  // namespace pet

// ---8<--- example: a template with a domain of values
namespace pet::mutant {

// H and W zero-padded at the end up to a multiple of 4 where they are not (built in, the line
// inside push_back is the entry in default_templates()).
std::vector<MutantTemplate> with_pad_spatial_to_4(std::vector<MutantTemplate> templates) {
  using namespace form;
  templates.push_back({"pad-spatial-to-4", "Pad", Stage::Pre, 1, 1, Role::Activation, {{Axes::Spatial, {4}, Source::Fixed, {pad_to_multiple}, {Side::End}, 4, 4}}});
  return templates;
}

}  // namespace pet::mutant
// --->8--- end of example

namespace pet {
namespace {

// ---8<--- example: the generator pads, convolves and slices back
TEST(AddingAnOperator, ADomainOfValuesPadsTheRowsToAMultipleOfFour) {
  mutant::GeneratorOptions options;
  options.templates.clear();
  for (const mutant::MutantTemplate& tmpl : mutant::default_templates())
    if (tmpl.name == "conv" || tmpl.name == "slice-to-output") options.templates.push_back(tmpl);
  options.templates = mutant::with_pad_spatial_to_4(options.templates);

  mutant::Generation result = mutant::generate_mutants(parse_graph(R"(graph "conv" opset 13 {
  input %x : f32[1,2,6,8]
  input %w : f32[2,2,3,3]
  %y = Conv[dilations=[1,1], group=1, pads=[1,1,1,1], strides=[1,1]](%x, %w)
  output %y
})"), options);
  ASSERT_FALSE(result.mutants.empty()) << result.stats.summary();
  const mutant::Mutant& padded = result.mutants.front();  // full mutants come first
  EXPECT_EQ(padded.family, "pad-spatial-to-4+conv+slice-to-output");
  EXPECT_EQ(padded.verdict.kind, VerdictKind::Full) << padded.verdict.summary();
  EXPECT_EQ(print_graph(padded.program), R"(graph "conv_mutant" opset 13 {
  input %x : f32[1,2,6,8]
  input %w : f32[2,2,3,3]
  %pad-spatial-to-4_0 = Pad[mode="constant", pads=[0,0,0,0,0,0,2,0], value=0](%x) : f32[1,2,8,8]
  %conv_1 = Conv[dilations=[1,1], group=1, pads=[1,1,1,1], strides=[1,1]](%pad-spatial-to-4_0, %w) : f32[1,2,8,8]
  %slice-to-output_2 = Slice[ends=[1,2,6,8], starts=[0,0,0,0], steps=[1,1,1,1]](%conv_1) : f32[1,2,6,8]
  output %slice-to-output_2
}
)");
}
// --->8--- end of example

std::vector<float> values(const Tensor& tensor) { return {tensor.f32().begin(), tensor.f32().end()}; }

TEST(AddingAnOperator, RegisteringTwiceGivesTheSameDefinition) {
  EXPECT_EQ(&register_flip_rows(), &register_flip_rows());
  EXPECT_EQ(OpRegistry::global().find("FlipRows"), &register_flip_rows());
  EXPECT_EQ(OpRegistry::global().find_onnx("FlipRows"), nullptr);
}

TEST(AddingAnOperator, KernelReversesTheRows) {
  register_flip_rows();
  Graph graph = parse_graph(R"(graph "flip" opset 13 {
  const %x : f32[1,1,3,2] = [1,2,3,4,5,6]
  %y = FlipRows(%x) : f32[1,1,3,2]
  output %y
})");
  EXPECT_EQ(values(execute(graph, {}).at(0)), (std::vector<float>{5, 6, 3, 4, 1, 2}));
}

TEST(AddingAnOperator, TextualIrPrintsAndParsesBack) {
  register_flip_rows();
  const std::string text = R"(graph "flip" opset 13 {
  input %x : f32[1,2,4,3]
  %y = FlipRows(%x) : f32[1,2,4,3]
  output %y
}
)";
  EXPECT_EQ(print_graph(parse_graph(text)), text);
}

TEST(AddingAnOperator, ShapeErrorNamesTheNode) {
  register_flip_rows();
  Graph graph;
  ValueId x = graph.add_input("x", {DType::f32, Shape{2, 3, 4}});
  try {
    graph.add_node1("FlipRows", {}, {x}, "flip");
    FAIL() << "expected a UserError";
  } catch (const UserError& error) {
    EXPECT_STREQ(error.what(), "node 'flip' (FlipRows): needs an NCHW tensor (rank 4), got 2x3x4");
  }
}

// Integer-valued floats in [-3, 3]: sums of products stay exact in float32.
Tensor small_integers(const Shape& shape, uint64_t seed) {
  std::mt19937_64 engine(seed);
  Tensor tensor(DType::f32, shape);
  for (float& v : tensor.mutable_f32()) v = static_cast<float>(static_cast<int>(engine() % 7) - 3);
  return tensor;
}

TEST(AddingAnOperator, PointEvaluationOverZpAgreesWithTheKernel) {
  register_flip_rows();
  Graph graph;
  ValueId x = graph.add_constant("x", small_integers({2, 3, 5, 4}, 11));
  ValueId w = graph.add_constant("w", small_integers({2, 3, 3, 2}, 12));
  Attributes conv{{"strides", std::vector<int64_t>{2, 1}}, {"pads", std::vector<int64_t>{1, 0, 2, 1}},
                  {"dilations", std::vector<int64_t>{1, 1}}, {"group", int64_t{1}}};
  ValueId flipped = graph.add_node1("FlipRows", {}, {x});
  graph.add_output(flipped);
  graph.add_output(graph.add_node1("FlipRows", {}, {graph.add_node1("Conv", conv, {flipped, w})}));
  std::vector<Tensor> expected = execute(graph, {});
  FieldEvaluator evaluator(graph, 1, 0);
  for (size_t k = 0; k < expected.size(); ++k) {
    const Shape& shape = expected[k].shape();
    std::vector<int64_t> index(static_cast<size_t>(shape.rank()));
    for (int64_t flat = 0; flat < shape.numel(); ++flat) {
      ops::unravel_index(flat, shape, index.data());
      ASSERT_EQ(evaluator.output(static_cast<int>(k), index.data()),
                field::from_float(expected[k].f32()[static_cast<size_t>(flat)]))
          << "output " << k << " element " << flat;
    }
  }
}

TEST(AddingAnOperator, BoxesMirrorAlongTheRows) {
  register_flip_rows();
  Graph graph = parse_graph(R"(graph "boxes" opset 13 {
  input %x : f32[1,1,4,3]
  %p = Pad[mode="constant", pads=[0,0,2,0,0,0,1,0], value=0](%x) : f32[1,1,7,3]
  %y = FlipRows(%p) : f32[1,1,7,3]
  output %y
})");
  std::vector<BoxGrid> grids = analyze_boxes(graph);
  EXPECT_EQ(grids.at(1).cuts(2), (std::vector<int64_t>{0, 2, 6, 7}));
  EXPECT_EQ(grids.at(2).cuts(2), (std::vector<int64_t>{0, 1, 5, 7}));
  EXPECT_EQ(grids.at(2).cuts(3), grids.at(1).cuts(3));
}

TEST(AddingAnOperator, ExportsAsAStandardSliceThatRunsTheSame) {
  register_flip_rows();
  Graph graph = parse_graph(R"(graph "flip" opset 13 {
  input %x : f32[1,2,5,3]
  %y = FlipRows(%x) : f32[1,2,5,3]
  output %y
})");
  std::filesystem::path path = pet::testing::private_temp_dir() / "pet_flip_rows_export.onnx";
  export_onnx(graph, path.string());
  Graph imported = import_onnx(path.string());
  std::filesystem::remove(path);
  ASSERT_EQ(imported.nodes().size(), 1u);
  EXPECT_EQ(imported.nodes()[0].op(), "Slice");
  Tensor x = Tensor::random_f32({1, 2, 5, 3}, 3);
  EXPECT_EQ(values(execute(imported, {x}).at(0)), values(execute(graph, {x}).at(0)));
}

TEST(AddingAnOperator, ExportBeforeOpset10IsAUserErrorNamingTheNode) {
  register_flip_rows();
  Graph graph = parse_graph(R"(graph "flip" opset 9 {
  input %x : f32[1,2,5,3]
  %y = FlipRows(%x) : f32[1,2,5,3] @flip
  output %y
})");
  try {
    export_onnx(graph, (pet::testing::private_temp_dir() / "pet_flip_rows_opset9.onnx").string());
    FAIL() << "expected a UserError";
  } catch (const UserError& error) {
    EXPECT_STREQ(error.what(), "node 'flip' (FlipRows): exports as a Slice with step -1, which needs opset 10 or "
                               "newer; export with --opset 10 or later");
  }
}

TEST(AddingAnOperator, AxiomsHoldNumerically) {
  register_flip_rows();
  int checked = 0;
  for (const axioms::AxiomSchema& schema : axioms::flip_rows_axioms())
    for (const axioms::AxiomCheck& check : axioms::check_axiom(schema, 7)) {
      ++checked;
      EXPECT_TRUE(check.passed) << check.instance << " (seed " << check.seed << "): " << check.failure;
    }
  EXPECT_GE(checked, 4);  // two examples per axiom
}

TEST(AddingAnOperator, Z3ProvesTheFlipMutantFromTheNewAxioms) {
  register_flip_rows();
  std::vector<axioms::AxiomSchema> library = axioms::all_axioms();
  for (axioms::AxiomSchema& schema : axioms::flip_rows_axioms()) library.push_back(std::move(schema));
  ProveOptions options;
  options.axioms = &library;
  Graph original = parse_graph(kConv);
  Graph mutant = parse_graph(R"(graph "flipped" opset 13 {
  input %x : f32[1,2,8,6]
  input %w : f32[2,2,3,3]
  %a = FlipRows(%x) : f32[1,2,8,6]
  %b = FlipRows(%w) : f32[2,2,3,3]
  %c = Conv[dilations=[1,1], group=1, pads=[1,1,1,1], strides=[1,1]](%a, %b) : f32[1,2,8,6]
  %y = FlipRows(%c) : f32[1,2,8,6]
  output %y
})");
  ProofResult proof = prove(mutant, original, options);
  EXPECT_EQ(proof.status, ProofStatus::Proved) << proof.reason;
  bool used_conv_axiom = false;
  for (const std::string& instance : proof.axioms_used)
    used_conv_axiom |= instance.rfind("flip-rows-through-conv", 0) == 0;
  EXPECT_TRUE(used_conv_axiom);
  // The built-in library alone knows nothing about FlipRows.
  EXPECT_NE(prove(mutant, original).status, ProofStatus::Proved);
}

// Every line of the example sections above appears, as a whole line, in the doc.
std::vector<std::string> example_lines(const std::string& path) {
  std::ifstream in(path);
  std::vector<std::string> lines;
  bool inside = false;
  for (std::string line; std::getline(in, line);) {
    if (line.rfind("// ---8<---", 0) == 0) inside = true;
    else if (line.rfind("// --->8---", 0) == 0) inside = false;
    else if (inside && !line.empty()) lines.push_back(line);
  }
  return lines;
}

TEST(AddingAnOperator, TheDocQuotesThisFilesExampleLineForLine) {
  const std::string root = PET_SOURCE_DIR;
  std::vector<std::string> example = example_lines(root + "/tests/mutant/mutant_adding_an_operator_test.cpp");
  ASSERT_GT(example.size(), 100u);
  std::ifstream doc(root + "/docs/ADDING_AN_OPERATOR.md");
  ASSERT_TRUE(doc) << "docs/ADDING_AN_OPERATOR.md is missing";
  std::set<std::string> doc_lines;
  for (std::string line; std::getline(doc, line);) doc_lines.insert(line);
  for (const std::string& line : example)
    EXPECT_TRUE(doc_lines.count(line)) << "docs/ADDING_AN_OPERATOR.md lacks this line of the example:\n" << line;
}

}  // namespace
}  // namespace pet
