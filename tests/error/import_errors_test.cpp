// Every way a model can be bad, each with the exact message the user sees.
#include <gtest/gtest.h>

#include "core/error.h"
#include "core/graph.h"
#include "core/onnx_import.h"
#include "tests/error/onnx_model_builder.h"

namespace pet::testing {
namespace {

using onnx::TensorProto;

std::string import_error(const std::string& path, const ImportOptions& options = {}) {
  try {
    import_onnx(path, options);
  } catch (const UserError& error) {
    return error.what();
  }
  return "(no error)";
}

OnnxModelBuilder relu_model(int elem_type = TensorProto::FLOAT, std::vector<int64_t> dims = {2, 3}) {
  OnnxModelBuilder builder;
  builder.input("x", elem_type, dims).output("y", elem_type, dims);
  builder.node("Relu", {"x"}, {"y"}, "relu");
  return builder;
}

TEST(ImportErrors, MissingFile) {
  EXPECT_EQ(import_error("/nonexistent/model.onnx"),
            "/nonexistent/model.onnx: cannot open model file '/nonexistent/model.onnx'; check the path");
}

TEST(ImportErrors, AFolderInsteadOfAFile) {
  std::string folder = ::testing::TempDir();
  EXPECT_EQ(import_error(folder), folder + ": '" + folder +
                                      "' is a folder, not a model file; pass the path of the .onnx file in it");
}

TEST(ImportErrors, NotAnOnnxFile) {
  std::string path = temp_file("garbage.onnx");
  write_bytes(path, "\xff\xff\xff\xff not protobuf");
  EXPECT_EQ(import_error(path), path + ": '" + path +
                                    "' is not a valid ONNX model (protobuf parsing failed); the file may be truncated "
                                    "or not an ONNX file");
}

TEST(ImportErrors, TruncatedFile) {
  OnnxModelBuilder builder = relu_model();
  builder.float_initializer("unused", {64}, std::vector<float>(64, 1.0f));
  std::string bytes = builder.model().SerializeAsString();
  std::string path = temp_file("truncated.onnx");
  write_bytes(path, bytes.substr(0, bytes.size() / 2));
  EXPECT_EQ(import_error(path), path + ": '" + path +
                                    "' is not a valid ONNX model (protobuf parsing failed); the file may be truncated "
                                    "or not an ONNX file");
}

TEST(ImportErrors, OpsetTooNew) {
  OnnxModelBuilder builder = relu_model();
  builder.model().mutable_opset_import(0)->set_version(19);
  std::string path = builder.save("opset19.onnx");
  EXPECT_EQ(import_error(path), path + ": the model uses opset 19 of the default ONNX domain; pet supports opsets 6 to "
                                       "17: convert it with onnx.version_converter.convert_version(model, 17)");
}

TEST(ImportErrors, UnsupportedOperator) {
  OnnxModelBuilder builder;
  builder.input("x", TensorProto::FLOAT, {3, 3}).output("y", TensorProto::FLOAT, {});
  builder.node("Det", {"x"}, {"y"}, "det");
  std::string path = builder.save("det.onnx");
  EXPECT_EQ(import_error(path), path + ": node 'det' (Det, opset 13): operator Det is not supported by pet; replace it "
                                       "in the model or open an issue asking for it");
}

TEST(ImportErrors, OperatorOutsideTheDefaultDomain) {
  OnnxModelBuilder builder = relu_model();
  auto* custom = builder.model().add_opset_import();
  custom->set_domain("com.example");
  custom->set_version(1);
  builder.model().mutable_graph()->mutable_node(0)->set_domain("com.example");
  builder.model().mutable_graph()->mutable_node(0)->set_op_type("FastRelu");
  std::string path = builder.save("custom_domain.onnx");
  EXPECT_EQ(import_error(path), path + ": node 'relu' (FastRelu, domain 'com.example'): operators outside the default "
                                       "ONNX domain are not supported; export the model with standard ONNX operators");
}

TEST(ImportErrors, UnsupportedElementType) {
  std::string path = relu_model(TensorProto::DOUBLE).save("double.onnx");
  EXPECT_EQ(import_error(path), path + ": input 'x' has element type DOUBLE; pet supports float32, int64 and bool");
}

TEST(ImportErrors, SymbolicDimensionNeedsInputShape) {
  std::string path = relu_model(TensorProto::FLOAT, {-1, 3}).save("symbolic.onnx");
  EXPECT_EQ(import_error(path), path + ": input 'x' has a symbolic dimension 'batch' (dim 0); give its static shape "
                                       "with --input-shape x=<d0>x<d1>x...");
}

TEST(ImportErrors, InputShapeFixesASymbolicDimension) {
  std::string path = relu_model(TensorProto::FLOAT, {-1, 3}).save("symbolic_fixed.onnx");
  ImportOptions options;
  options.input_shapes["x"] = Shape{4, 3};
  EXPECT_EQ(import_onnx(path, options).value(0).type.to_string(), "f32[4,3]");
}

TEST(ImportErrors, InputShapeForAnUnknownInput) {
  std::string path = relu_model().save("unknown_input_shape.onnx");
  ImportOptions options;
  options.input_shapes["image"] = Shape{1, 3};
  EXPECT_EQ(import_error(path, options), path + ": --input-shape names 'image', but the model's inputs are: x");
}

TEST(ImportErrors, BadInputShapeSyntax) {
  try {
    parse_input_shape("x=1x3xbig");
    FAIL();
  } catch (const UserError& error) {
    EXPECT_STREQ(error.what(), "--input-shape 'x=1x3xbig' is not NAME=D0xD1x... (e.g. input=1x3x224x224)");
  }
}

TEST(ImportErrors, ShapeComputedAtRunTime) {
  OnnxModelBuilder builder;
  builder.input("x", TensorProto::FLOAT, {2, 3}).input("s", TensorProto::INT64, {2});
  builder.output("y", TensorProto::FLOAT, {3, 2});
  builder.node("Reshape", {"x", "s"}, {"y"}, "reshape");
  std::string path = builder.save("dynamic_reshape.onnx");
  EXPECT_EQ(import_error(path),
            path + ": node 'reshape' (Reshape, opset 13): input 1 (shape) must be a constant, but the model computes "
                   "it at run time; pet needs static shapes: export the model with constant shape (e.g. without "
                   "dynamic axes) or fix the input shapes with --input-shape");
}

// Found by fuzz/fuzz_onnx_import: the product of the dimensions overflowed int64 (undefined).
TEST(ImportErrors, ReshapeShapeWhoseElementCountOverflows) {
  OnnxModelBuilder builder;
  builder.input("x", TensorProto::FLOAT, {2, 3});
  builder.int_initializer("s", {2}, {int64_t{1} << 40, int64_t{1} << 40});
  builder.output("y", TensorProto::FLOAT, {int64_t{1} << 40, int64_t{1} << 40});
  builder.node("Reshape", {"x", "s"}, {"y"}, "reshape");
  std::string path = builder.save("overflowing_reshape.onnx");
  EXPECT_EQ(import_error(path),
            path + ": node 'reshape' (Reshape, opset 13): shape [1099511627776, 1099511627776] has more elements than "
                   "a 64-bit count holds; give a shape whose element count matches the input");
}

TEST(ImportErrors, IncompatibleBroadcast) {
  OnnxModelBuilder builder;
  builder.input("x", TensorProto::FLOAT, {2, 3}).input("z", TensorProto::FLOAT, {4});
  builder.output("y", TensorProto::FLOAT, {2, 3});
  builder.node("Add", {"x", "z"}, {"y"}, "add");
  std::string path = builder.save("bad_broadcast.onnx");
  EXPECT_EQ(import_error(path), path + ": node 'add' (Add): cannot broadcast shapes 2x3 and 4");
}

TEST(ImportErrors, CheckerRejectsAnUndefinedInput) {
  OnnxModelBuilder builder = relu_model();
  builder.model().mutable_graph()->mutable_node(0)->set_input(0, "nowhere");
  std::string path = builder.save("undefined_input.onnx");
  std::string message = import_error(path);
  EXPECT_EQ(message.rfind(path + ": the model fails the ONNX checker: ", 0), 0u) << message;
  EXPECT_NE(message.find("fix or re-export the model"), std::string::npos) << message;
}

OnnxModelBuilder external_data_model(const std::string& location) {
  OnnxModelBuilder builder;
  builder.input("x", TensorProto::FLOAT, {4}).output("y", TensorProto::FLOAT, {4});
  auto* weight = builder.model().mutable_graph()->add_initializer();
  weight->set_name("w");
  weight->set_data_type(TensorProto::FLOAT);
  weight->add_dims(4);
  weight->set_data_location(TensorProto::EXTERNAL);
  auto* entry = weight->add_external_data();
  entry->set_key("location");
  entry->set_value(location);
  builder.node("Add", {"x", "w"}, {"y"}, "add");
  return builder;
}

TEST(ImportErrors, MissingExternalData) {
  std::string path = external_data_model("missing_weights.bin").save("external_missing.onnx");
  EXPECT_EQ(import_error(path), path + ": the model fails the ONNX checker: Data of TensorProto ( tensor name: w) "
                                       "should be stored in " + temp_file("missing_weights.bin") +
                                       ", but it doesn't exist or is not accessible.; fix or re-export the model");
}

TEST(ImportErrors, ExternalDataNextToTheModelLoads) {
  std::vector<float> values = {1.5f, -2.0f, 3.25f, 4.0f};
  write_bytes(temp_file("external_weights.bin"),
              std::string(reinterpret_cast<const char*>(values.data()), values.size() * sizeof(float)));
  Graph graph = import_onnx(external_data_model("external_weights.bin").save("external_ok.onnx"));
  const Tensor& weight = *graph.value(*graph.find_value("w")).constant;
  EXPECT_EQ(std::vector<float>(weight.f32().begin(), weight.f32().end()), values);
}

TEST(ImportErrors, UnsupportedAttributeValue) {
  OnnxModelBuilder builder;
  builder.input("x", TensorProto::FLOAT, {1, 1, 4, 4}).output("y", TensorProto::FLOAT, {1, 1, 8, 8});
  builder.float_initializer("scales", {4}, {1, 1, 2, 2});
  auto& node = builder.node("Resize", {"x", "", "scales"}, {"y"}, "resize");
  auto* mode = node.add_attribute();
  mode->set_name("coordinate_transformation_mode");
  mode->set_type(onnx::AttributeProto::STRING);
  mode->set_s("half_pixel_symmetric");
  std::string path = builder.save("resize_half_pixel_symmetric.onnx");
  std::string message = import_error(path);
  EXPECT_EQ(message.rfind(path + ": node 'resize' (Resize, opset 13): ", 0), 0u) << message;
  EXPECT_NE(message.find("half_pixel_symmetric"), std::string::npos) << message;
  EXPECT_NE(message.find("is not supported"), std::string::npos) << message;
}

}  // namespace
}  // namespace pet::testing
