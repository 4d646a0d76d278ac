// Opsets 18-21 and float16: the new op forms imported and exported, float16 rounding, and
// float16 models read into f32 and written back in float16.
#include <gtest/gtest.h>

#include <cmath>
#include <fstream>

#include <fmt/format.h>
#include <onnx/onnx_pb.h>

#include "core/error.h"
#include "core/executor.h"
#include "core/float16.h"
#include "core/onnx_export.h"
#include "core/onnx_import.h"
#include "core/text_ir.h"
#include "tests/core/fake_onnx_node.h"
#include "tests/core/op_test_util.h"
#include "tests/test_temp_dir.h"

namespace pet::test {
namespace {

using Ints = std::vector<int64_t>;
using Floats = std::vector<double>;

TensorType f32(Shape shape) { return {DType::f32, std::move(shape)}; }
TensorType i64(Shape shape) { return {DType::i64, std::move(shape)}; }

// ---- float16 conversion ---------------------------------------------------------------------

TEST(Float16, KnownBitPatterns) {
  EXPECT_EQ(float_to_half_bits(1.0f), 0x3c00);
  EXPECT_EQ(float_to_half_bits(-2.0f), 0xc000);
  EXPECT_EQ(float_to_half_bits(65504.0f), 0x7bff);              // largest finite
  EXPECT_EQ(float_to_half_bits(65519.0f), 0x7bff);              // below the halfway point
  EXPECT_EQ(float_to_half_bits(65520.0f), 0x7c00);              // halfway: ties to even, to infinity
  EXPECT_EQ(float_to_half_bits(0x1p-24f), 0x0001);              // smallest subnormal
  EXPECT_EQ(float_to_half_bits(0x1p-25f), 0x0000);              // halfway to zero: ties to even
  EXPECT_EQ(float_to_half_bits(0x1.8p-24f), 0x0002);            // 1.5 subnormal steps: ties to even
  EXPECT_EQ(float_to_half_bits(1.0f + 0x1p-11f), 0x3c00);       // halfway between 1 and 1 + 2^-10
  EXPECT_EQ(float_to_half_bits(1.0f + 0x1.8p-11f), 0x3c01);     // past halfway
  EXPECT_EQ(float_to_half_bits(-INFINITY), 0xfc00);
  EXPECT_TRUE(std::isnan(half_bits_to_float(float_to_half_bits(NAN))));
  EXPECT_EQ(half_bits_to_float(0x3555), 0.333251953125f);
}

TEST(Float16, EveryHalfSurvivesTheRoundTrip) {
  for (uint32_t bits = 0; bits < 0x10000; ++bits) {
    auto half = static_cast<uint16_t>(bits);
    float value = half_bits_to_float(half);
    if (std::isnan(value)) continue;
    ASSERT_EQ(float_to_half_bits(value), half) << "bits " << bits;
  }
}

// ---- Cast to float16: a rounding op ---------------------------------------------------------

TEST(CastFloat16, RoundsToNearestHalfAndStaysF32) {
  Tensor rounded = run1("Cast", {{"to", std::string("f16")}}, {Tensor::f32({3}, {0.1f, 70000.0f, 1.0f + 0x1p-11f})});
  expect_f32(rounded, {3}, {0.0999755859375f, INFINITY, 1.0f});
}

TEST(CastFloat16, ImportsOnnxFloat16AsRoundingCast) {
  OnnxImported cast = import_node(FakeImportNode("Cast", 19, {{"to", int64_t{10}}, {"saturate", int64_t{1}}}, {f32({2})}));
  EXPECT_EQ(cast.attrs.get_string("to"), "f16");
}

TEST(CastFloat16, ExportsAFloat16RoundTrip) {
  FakeExportNode out = export_node("Cast", {{"to", std::string("f16")}}, {f32({2})}, 19);
  EXPECT_EQ(exported_ops(out), (std::vector<std::string>{"Cast", "Cast"}));
  EXPECT_EQ(out.nodes[0].attrs.get_int("to"), 10);
  EXPECT_EQ(out.nodes[1].attrs.get_int("to"), 1);
}

TEST(CastFloat16, CastLikeTakesTheSecondInputsType) {
  OnnxImported to_int = import_node(FakeImportNode("CastLike", 21, {}, {f32({2}), i64({1})}));
  EXPECT_EQ(to_int.attrs.get_string("to"), "i64");
  EXPECT_EQ(to_int.inputs, (std::vector<int>{0}));
}

// ---- Reduce*, Split, Pad: inputs that were attributes -----------------------------------------

TEST(ModernForms, ReduceMeanAxesBecomeAnInputAtOpset18) {
  OnnxImported mean = import_node(
      FakeImportNode("ReduceMean", 18, {{"keepdims", int64_t{0}}}, {f32({2, 3, 4}), i64({1})}, {{1, Tensor::i64({1}, {-1})}}));
  EXPECT_EQ(mean.attrs.get_ints("axes"), (Ints{2}));
  FakeExportNode at17 = export_node("ReduceMean", {{"axes", Ints{2}}, {"keepdims", int64_t{0}}}, {f32({2, 3, 4})}, 17);
  EXPECT_EQ(at17.nodes[0].inputs.size(), 1u);
  EXPECT_EQ(at17.nodes[0].attrs.get_ints("axes"), (Ints{2}));
  FakeExportNode at18 = export_node("ReduceMean", {{"axes", Ints{2}}, {"keepdims", int64_t{0}}}, {f32({2, 3, 4})}, 18);
  ASSERT_EQ(at18.nodes[0].inputs.size(), 2u);
  EXPECT_FALSE(at18.nodes[0].attrs.has("axes"));
  EXPECT_EQ(at18.constant(at18.nodes[0].inputs[1]).to_int_vector(), (Ints{2}));
}

TEST(ModernForms, SplitNumOutputsLeavesASmallerLastPiece) {
  OnnxImported split =
      import_node(FakeImportNode("Split", 18, {{"axis", int64_t{1}}, {"num_outputs", int64_t{3}}}, {f32({1, 8})}, {}, 3));
  EXPECT_EQ(split.attrs.get_ints("split"), (Ints{3, 3, 2}));
}

TEST(ModernForms, PadAxesSpreadOverTheRank) {
  OnnxImported pad = import_node(FakeImportNode("Pad", 18, {}, {f32({1, 2, 3}), i64({4}), std::nullopt, i64({2})},
                                                {{1, Tensor::i64({4}, {1, 2, 3, 4})}, {3, Tensor::i64({2}, {0, -1})}}));
  EXPECT_EQ(pad.attrs.get_ints("pads"), (Ints{1, 0, 2, 3, 0, 4}));
}

TEST(ModernForms, ReduceMaxAndMinOfBoolAreAnyAndAll) {
  Tensor x = Tensor::boolean({2, 3}, {0, 1, 0, 1, 1, 1});
  expect_bool(run1("ReduceMax", {{"axes", Ints{1}}, {"keepdims", int64_t{0}}}, {x}), {2}, {1, 1});
  expect_bool(run1("ReduceMin", {{"axes", Ints{1}}, {"keepdims", int64_t{0}}}, {x}), {2}, {0, 1});
  expect_bool(run1("ReduceMin", {{"axes", Ints{1}}, {"keepdims", int64_t{0}}}, {Tensor::boolean({2, 0}, {})}), {2}, {1, 1});
}

TEST(ModernForms, ReduceMaxOfBoolNeedsOpset20ToExport) {
  expect_user_error([] { export_node("ReduceMax", {{"axes", Ints{1}}, {"keepdims", int64_t{0}}}, {{DType::boolean, {2, 3}}}, 19); },
                    "node 'n' (ReduceMax): a bool input needs opset 20 or later, exporting at opset 19; export at a "
                    "newer opset");
  EXPECT_EQ(exported_ops(export_node("ReduceMax", {{"axes", Ints{1}}, {"keepdims", int64_t{0}}}, {{DType::boolean, {2, 3}}}, 20)),
            std::vector<std::string>{"ReduceMax"});
}

// ---- Resize 18/19 ---------------------------------------------------------------------------

TEST(ModernForms, ResizeAxesAttributeScalesOnlyTheListedAxes) {
  OnnxImported resize = import_node(FakeImportNode("Resize", 18, {{"axes", Ints{3, 2}}, {"mode", std::string("linear")}},
                                                   {f32({1, 2, 4, 6}), std::nullopt, f32({2})},
                                                   {{2, Tensor::f32({2}, {0.5f, 2.0f})}}));
  EXPECT_EQ(resize.attrs.get_floats("scales"), (Floats{1, 1, 2, 0.5}));
  EXPECT_EQ(resize.attrs.get_ints("sizes"), (Ints{1, 2, 8, 3}));
}

TEST(ModernForms, ResizeKeepAspectRatioNotLargerSharesTheSmallerScale) {
  OnnxImported resize = import_node(FakeImportNode(
      "Resize", 18, {{"keep_aspect_ratio_policy", std::string("not_larger")}, {"axes", Ints{2, 3}}},
      {f32({1, 1, 4, 6}), std::nullopt, std::nullopt, i64({2})}, {{3, Tensor::i64({2}, {2, 9})}}));
  EXPECT_EQ(resize.attrs.get_floats("scales"), (Floats{1, 1, 0.5, 0.5}));
  EXPECT_EQ(resize.attrs.get_ints("sizes"), (Ints{1, 1, 2, 3}));
}

TEST(ModernForms, ResizeHalfPixelSymmetricCentresARoundedOutput) {
  // 1x1x1x3 -> width 4 at scale 1.5 (4.5 rounded down): half_pixel_symmetric maps output x to
  // 1.5 x (1 - 4 / 4.5) + (x + 0.5) / 1.5 - 0.5, i.e. 0, 2/3, 4/3, 2 (half_pixel: -1/6 ... 11/6).
  Attributes attrs{{"mode", std::string("linear")}, {"coordinate_transformation_mode", std::string("half_pixel_symmetric")},
                   {"scales", Floats{1, 1, 1, 1.5}}, {"sizes", Ints{1, 1, 1, 4}}};
  expect_f32_near(run1("Resize", attrs, {Tensor::f32({1, 1, 1, 3}, {0, 10, 20})}), {1, 1, 1, 4},
                  {0.0f, 6.6666667f, 13.3333333f, 20.0f}, 1e-4f);
}

TEST(ModernForms, ResizeHalfPixelSymmetricNeedsOpset19ToExport) {
  Attributes attrs{{"mode", std::string("linear")}, {"coordinate_transformation_mode", std::string("half_pixel_symmetric")},
                   {"scales", Floats{1, 1, 1, 1.5}}, {"sizes", Ints{1, 1, 1, 4}}};
  expect_user_error([&] { export_node("Resize", attrs, {f32({1, 1, 1, 3})}, 18); },
                    "node 'n' (Resize): coordinate_transformation_mode 'half_pixel_symmetric' needs opset 19 or "
                    "later, exporting at opset 18; export at a newer opset");
}

TEST(ModernForms, ResizeAntialiasIsAUserError) {
  expect_user_error(
      [] {
        import_node(FakeImportNode("Resize", 18, {{"antialias", int64_t{1}}}, {f32({1, 1, 2, 2}), std::nullopt, f32({4})},
                                   {{2, Tensor::f32({4}, {1, 1, 2, 2})}}));
      },
      "node 'n' (Resize, opset 18): antialias=1 is not supported; re-export the model without it, or open an issue "
      "with this model");
}

// ---- Scatter reduction max/min (opset 18) ---------------------------------------------------

TEST(ModernForms, ScatterElementsMaxAndMinKeepTheExtreme) {
  Tensor data = Tensor::f32({4}, {1, 5, 3, 7});
  Tensor indices = Tensor::i64({3}, {0, 0, 3});
  Tensor updates = Tensor::f32({3}, {4, 2, 6});
  expect_f32(run1("ScatterElements", {{"reduction", std::string("max")}}, {data, indices, updates}), {4}, {4, 5, 3, 7});
  expect_f32(run1("ScatterElements", {{"reduction", std::string("min")}}, {data, indices, updates}), {4}, {1, 5, 3, 6});
}

TEST(ModernForms, ScatterMaxBeforeOpset18IsAUserError) {
  expect_user_error(
      [] {
        import_node(FakeImportNode("ScatterND", 16, {{"reduction", std::string("max")}},
                                   {f32({4}), i64({1, 1}), f32({1})}));
      },
      "node 'n' (ScatterND, opset 16): reduction 'max' exists from opset 18 on; use add, mul or none, or a newer "
      "opset");
}

// ---- whole models at opsets 18-21 and float16 -----------------------------------------------

std::string temp_path(const std::string& name) { return (pet::testing::private_temp_dir() / name).string(); }

void write_model(const onnx::ModelProto& model, const std::string& path) {
  std::ofstream file(path, std::ios::binary);
  ASSERT_TRUE(model.SerializeToOstream(&file));
}

onnx::ModelProto model_at(int opset, int64_t ir_version) {
  onnx::ModelProto model;
  model.set_ir_version(ir_version);
  auto* entry = model.add_opset_import();
  entry->set_domain("");
  entry->set_version(opset);
  model.mutable_graph()->set_name("m");
  return model;
}

void add_value(google::protobuf::RepeatedPtrField<onnx::ValueInfoProto>* list, const std::string& name, int elem_type,
               const Ints& dims) {
  auto* info = list->Add();
  info->set_name(name);
  info->mutable_type()->mutable_tensor_type()->set_elem_type(elem_type);
  for (int64_t d : dims) info->mutable_type()->mutable_tensor_type()->mutable_shape()->add_dim()->set_dim_value(d);
}

void add_node(onnx::ModelProto& model, const std::string& op, const std::vector<std::string>& inputs,
              const std::vector<std::string>& outputs) {
  auto* node = model.mutable_graph()->add_node();
  node->set_op_type(op);
  for (const auto& input : inputs) node->add_input(input);
  for (const auto& output : outputs) node->add_output(output);
}

TEST(ModernModels, Opset21ModelRoundTripsThroughAFile) {
  Graph graph = parse_graph(R"(graph "g" opset 21 {
    input %x : f32[2,6]
    %m = ReduceMean[axes=[1], keepdims=1](%x)
    %d = Sub(%x, %m)
    %y0, %y1 = Split[axis=1, split=[4,2]](%d)
    output %y0
    output %y1
  })");
  Graph back = through_onnx_file(graph, "opset21.onnx");
  EXPECT_EQ(back.opset, 21);
  EXPECT_EQ(print_graph(back), print_graph(graph));
}

TEST(ModernModels, ValueDefinedTwiceIsAUserError) {
  onnx::ModelProto model = model_at(21, 10);
  add_value(model.mutable_graph()->mutable_input(), "x", onnx::TensorProto::FLOAT, {2});
  add_node(model, "Relu", {"x"}, {"y"});
  add_node(model, "Neg", {"x"}, {"y"});
  add_value(model.mutable_graph()->mutable_output(), "y", onnx::TensorProto::FLOAT, {2});
  std::string path = temp_path("defined_twice.onnx");
  write_model(model, path);
  expect_user_error([&] { import_onnx(path); },
                    path + ": node 'Neg_1' (Neg, opset 21) writes 'y', which an input, initializer or earlier node "
                           "already defines; every value must be defined once: rename one of them");
}

TEST(ModernModels, Opset22IsRefusedWithTheSupportedRange) {
  onnx::ModelProto model = model_at(22, 10);
  add_value(model.mutable_graph()->mutable_input(), "x", onnx::TensorProto::FLOAT, {2});
  add_node(model, "Relu", {"x"}, {"y"});
  add_value(model.mutable_graph()->mutable_output(), "y", onnx::TensorProto::FLOAT, {2});
  std::string path = temp_path("opset22.onnx");
  write_model(model, path);
  expect_user_error([&] { import_onnx(path); },
                    path + ": the model uses opset 22 of the default ONNX domain; pet supports opsets 6 to 21: convert "
                           "it with onnx.version_converter.convert_version(model, 21)");
}

// x (float16) -> Mul by a float16 weight -> y (float16).
onnx::ModelProto float16_model(int opset, int64_t ir_version) {
  onnx::ModelProto model = model_at(opset, ir_version);
  add_value(model.mutable_graph()->mutable_input(), "x", onnx::TensorProto::FLOAT16, {3});
  auto* weight = model.mutable_graph()->add_initializer();
  weight->set_name("w");
  weight->set_data_type(onnx::TensorProto::FLOAT16);
  weight->add_dims(3);
  for (float value : {0.5f, -2.0f, 0.1f}) weight->add_int32_data(float_to_half_bits(value));  // typed-field form
  add_node(model, "Mul", {"x", "w"}, {"y"});
  add_value(model.mutable_graph()->mutable_output(), "y", onnx::TensorProto::FLOAT16, {3});
  return model;
}

TEST(Float16Models, ImportComputesInF32AndRecordsTheStorage) {
  for (auto [opset, ir] : {std::pair{17, int64_t{8}}, std::pair{21, int64_t{10}}}) {
    std::string path = temp_path(fmt::format("float16_{}.onnx", opset));
    write_model(float16_model(opset, ir), path);
    Graph graph = import_onnx(path);
    EXPECT_EQ(graph.value(graph.inputs()[0]).type, f32({3}));
    EXPECT_EQ(graph.float16_values, (std::set<std::string>{"w", "x", "y"}));
    EXPECT_TRUE(graph.float16_weights);
    // 0.1 is held as its float16 value
    expect_f32(execute(graph, {Tensor::f32({3}, {2, 1, 1})})[0], {3}, {1.0f, -2.0f, 0.0999755859375f});
  }
}

TEST(Float16Models, CastLikeToAFloat16ValueRounds) {
  onnx::ModelProto model = model_at(21, 10);
  add_value(model.mutable_graph()->mutable_input(), "x", onnx::TensorProto::FLOAT, {2});
  add_value(model.mutable_graph()->mutable_input(), "like", onnx::TensorProto::FLOAT16, {1});
  add_node(model, "CastLike", {"x", "like"}, {"y"});
  add_value(model.mutable_graph()->mutable_output(), "y", onnx::TensorProto::FLOAT16, {2});
  std::string path = temp_path("castlike_float16.onnx");
  write_model(model, path);
  Graph graph = import_onnx(path);
  expect_f32(execute(graph, {Tensor::f32({2}, {0.1f, 3.0f}), Tensor::f32({1}, {0.0f})})[0], {2},
             {0.0999755859375f, 3.0f});
}

TEST(Float16Models, ElementTypesNewerThanTheLibraryAreNamedByNumber) {
  onnx::ModelProto model = model_at(21, 10);
  add_value(model.mutable_graph()->mutable_input(), "x", 17, {2});  // FLOAT8E4M3FN
  add_node(model, "Identity", {"x"}, {"y"});
  add_value(model.mutable_graph()->mutable_output(), "y", 17, {2});
  std::string path = temp_path("float8.onnx");
  write_model(model, path);
  expect_user_error([&] { import_onnx(path); },
                    path + ": input 'x' has element type number 17; pet supports float32, float16, bfloat16, double, "
                           "int8 to int64, uint8 to uint64 and bool");
}

TEST(Float16Models, ExportWritesTheFloat16SignatureAndWeights) {
  std::string path = temp_path("float16_export_source.onnx");
  write_model(float16_model(21, 10), path);
  Graph graph = import_onnx(path);
  onnx::ModelProto written;
  export_onnx_proto(graph, written);
  EXPECT_EQ(written.ir_version(), 10);
  EXPECT_EQ(written.graph().input(0).name(), "x");
  EXPECT_EQ(written.graph().input(0).type().tensor_type().elem_type(), onnx::TensorProto::FLOAT16);
  EXPECT_EQ(written.graph().output(0).name(), "y");
  EXPECT_EQ(written.graph().output(0).type().tensor_type().elem_type(), onnx::TensorProto::FLOAT16);
  ASSERT_EQ(written.graph().initializer_size(), 1);
  EXPECT_EQ(written.graph().initializer(0).data_type(), onnx::TensorProto::FLOAT16);
  std::vector<std::string> ops;
  for (const auto& node : written.graph().node()) ops.push_back(node.op_type());
  EXPECT_EQ(ops, (std::vector<std::string>{"Cast", "Cast", "Mul", "Cast"}));  // x and w to f32, y back to f16
  std::string again = temp_path("float16_export_written.onnx");
  write_model(written, again);
  Graph back = import_onnx(again);
  EXPECT_EQ(back.float16_values, (std::set<std::string>{"w", "x", "y"}));
  Tensor input = Tensor::f32({3}, {2, 1, 1});
  EXPECT_TRUE(execute(back, {input})[0].same_content(execute(graph, {input})[0]));
}

}  // namespace
}  // namespace pet::test
