// Every way a model can be bad, each with the exact message the user sees.
#include <gtest/gtest.h>

#include <sys/wait.h>
#include <unistd.h>

#include <filesystem>
#include <limits>

#include "core/error.h"
#include "core/executor.h"
#include "core/graph.h"
#include "core/onnx_import.h"
#include "core/registry.h"
#include "tests/error/onnx_model_builder.h"
#include "tests/os_conditions.h"

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
            "/nonexistent/model.onnx: cannot open model file '/nonexistent/model.onnx': it does not exist; check the "
            "path");
}

TEST(ImportErrors, UnreadableFileSaysPermissionDenied) {
  std::string path = relu_model().save("unreadable.onnx");
  std::filesystem::permissions(path, std::filesystem::perms::none);
  EXPECT_EQ(run_as_nobody([&] { return import_error(path); }), path + ": cannot open model file '" + path +
                                              "': permission denied; make the file readable for this user (chmod "
                                              "u+r) or run as a user who may read it");
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
  builder.model().mutable_opset_import(0)->set_version(22);
  std::string path = builder.save("opset22.onnx");
  EXPECT_EQ(import_error(path), path + ": the model uses opset 22 of the default ONNX domain; pet supports opsets 6 to "
                                       "21: convert it with onnx.version_converter.convert_version(model, 21)");
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

// ONNX Runtime's Attention (com.microsoft) on x [1,4,8], with `extra` inputs past weights and bias.
OnnxModelBuilder onnx_runtime_model(const std::string& op, const std::vector<std::string>& extra = {}) {
  OnnxModelBuilder builder;
  builder.input("x", TensorProto::FLOAT, {1, 4, 8}).output("y", TensorProto::FLOAT, {1, 4, 8});
  builder.input("w", TensorProto::FLOAT, {8, 24}).input("b", TensorProto::FLOAT, {24});
  for (const std::string& name : extra) builder.input(name, TensorProto::INT32, {1});
  std::vector<std::string> inputs{"x", "w", "b"};
  inputs.insert(inputs.end(), extra.begin(), extra.end());
  onnx::NodeProto& node = builder.node(op, inputs, {"y"}, "attention");
  node.set_domain("com.microsoft");
  auto* heads = node.add_attribute();
  heads->set_name("num_heads");
  heads->set_type(onnx::AttributeProto::INT);
  heads->set_i(2);
  auto* domain = builder.model().add_opset_import();
  domain->set_domain("com.microsoft");
  domain->set_version(1);
  return builder;
}

TEST(ImportErrors, OnnxRuntimesAttentionReadsButNotItsMaskOrItsOtherOps) {
  EXPECT_EQ(import_error(onnx_runtime_model("Attention").save("attention.onnx")), "(no error)");
  std::string masked = onnx_runtime_model("Attention", {"mask_index"}).save("attention_mask.onnx");
  EXPECT_EQ(import_error(masked), masked + ": node 'attention' (Attention): mask_index and past (inputs 3 and 4) are "
                                           "not supported; give the mask as the additive attention_bias (input 5) "
                                           "instead");
  std::string seven = onnx_runtime_model("Attention", {"m", "p", "a", "l"}).save("attention_seven.onnx");
  EXPECT_EQ(import_error(seven), seven + ": node 'attention' (Attention, opset 13): 7 inputs given, pet's Attention "
                                         "reads at most 6; re-export the model without the optional inputs past "
                                         "those, or open an issue with this model");
  std::string other = onnx_runtime_model("SkipLayerNormalization").save("skip.onnx");
  EXPECT_EQ(import_error(other), other + ": node 'attention' (SkipLayerNormalization, domain 'com.microsoft'): "
                                         "operators outside the default ONNX domain are not supported (of domain "
                                         "'com.microsoft' pet reads Attention only); export the model with standard "
                                         "ONNX operators");
}

// Its causal mask: unidirectional 0 or 1, mask_filter_value finite.
TEST(ImportErrors, OnnxRuntimesAttentionsCausalMaskAttributes) {
  auto with = [](const std::string& file, const std::string& name, int64_t i, float f) {
    OnnxModelBuilder builder = onnx_runtime_model("Attention");
    auto* attribute = builder.model().mutable_graph()->mutable_node(0)->add_attribute();
    attribute->set_name(name);
    attribute->set_type(name == "unidirectional" ? onnx::AttributeProto::INT : onnx::AttributeProto::FLOAT);
    if (name == "unidirectional") attribute->set_i(i);
    else attribute->set_f(f);
    return builder.save(file);
  };
  EXPECT_EQ(import_error(with("causal.onnx", "unidirectional", 1, 0)), "(no error)");
  std::string two = with("causal_two.onnx", "unidirectional", 2, 0);
  EXPECT_EQ(import_error(two), two + ": node 'attention' (Attention): unidirectional must be 0 or 1, got 2");
  std::string infinite = with("causal_inf.onnx", "mask_filter_value", 0, -std::numeric_limits<float>::infinity());
  EXPECT_EQ(import_error(infinite), infinite + ": node 'attention' (Attention): mask_filter_value must be finite, got "
                                               "-inf (the float's lowest value masks as -inf does, without an -inf in "
                                               "the sums)");
}

TEST(ImportErrors, UnsupportedElementType) {
  std::string path = relu_model(TensorProto::STRING).save("string.onnx");
  EXPECT_EQ(import_error(path), path + ": input 'x' has element type STRING (no arithmetic is defined on strings); pet "
                                       "supports float32, float16, bfloat16, double, int8 to int64, uint8 to uint64 and bool");
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

// The importer is the edge where a shape rule's refusal (a value inside pet) becomes the user's
// error: the same words, after the model's path.
TEST(ImportErrors, AShapeRulesRefusalIsTheImportersMessageWordForWord) {
  OnnxModelBuilder builder;
  builder.input("x", TensorProto::FLOAT, {1, 3, 8, 8});
  builder.float_initializer("w", {4, 5, 3, 3}, std::vector<float>(4 * 5 * 3 * 3, 0.5f));
  builder.output("y", TensorProto::FLOAT, {1, 4, 6, 6});
  builder.node("Conv", {"x", "w"}, {"y"}, "conv");
  std::string path = builder.save("conv_channels.onnx");
  const OpDef& conv = OpRegistry::global().get("Conv");
  TensorType x{DType::f32, Shape({1, 3, 8, 8})}, w{DType::f32, Shape({4, 5, 3, 3})};
  Attributes attrs{{"strides", std::vector<int64_t>{1, 1}},
                   {"pads", std::vector<int64_t>{0, 0, 0, 0}},
                   {"dilations", std::vector<int64_t>{1, 1}},
                   {"group", int64_t{1}}};
  ShapeResult refused = infer_types(conv, complete_attributes(conv, attrs), {&x, &w}, "conv");
  ASSERT_TRUE(refused.refused());
  EXPECT_EQ(refused.refusal().message,
            "node 'conv' (Conv): input has 3 channels, but weight 4x5x3x3 with group 1 "
            "expects 5");
  EXPECT_EQ(import_error(path), path + ": " + refused.refusal().message);
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
  EXPECT_EQ(import_error(path), path + ": initializer 'w' keeps its data in external file '" +
                                    temp_file("missing_weights.bin") +
                                    "', which cannot be read (it does not exist); keep the data file next to the model");
}

TEST(ImportErrors, ExternalDataNextToTheModelLoads) {
  std::vector<float> values = {1.5f, -2.0f, 3.25f, 4.0f};
  write_bytes(temp_file("external_weights.bin"),
              std::string(reinterpret_cast<const char*>(values.data()), values.size() * sizeof(float)));
  Graph graph = import_onnx(external_data_model("external_weights.bin").save("external_ok.onnx"));
  const Tensor& weight = *graph.value(*graph.find_value("w")).constant;
  EXPECT_EQ(std::vector<float>(weight.f32().begin(), weight.f32().end()), values);
}

// ---- external data must stay inside the model's folder tree ----

namespace fs = std::filesystem;

// 16 bytes (four floats) in a file beside the model's folder, which no model may read.
const std::string kSecret = "PET-SECRET-BYTES";

// A fresh folder tree: <root>/model/ for the model, <root>/outside/secret.bin and <root>/secret.bin.
struct ModelFolder {
  fs::path root, model_dir, outside;
  std::string save(OnnxModelBuilder builder) const {
    std::string path = (model_dir / "m.onnx").string();
    write_bytes(path, builder.model().SerializeAsString());
    return path;
  }
};

ModelFolder model_folder(const std::string& name) {
  ModelFolder folder;
  folder.root = fs::path(temp_file("containment")) / name;
  fs::remove_all(folder.root);
  folder.model_dir = folder.root / "model";
  folder.outside = folder.root / "outside";
  fs::create_directories(folder.model_dir);
  fs::create_directories(folder.outside);
  write_bytes((folder.outside / "secret.bin").string(), kSecret);
  write_bytes((folder.root / "secret.bin").string(), kSecret);
  return folder;
}

void add_external_entry(TensorProto& tensor, const std::string& key, const std::string& value) {
  auto* entry = tensor.add_external_data();
  entry->set_key(key);
  entry->set_value(value);
}

std::string leaves_message(const std::string& path, const std::string& what, const std::string& location,
                           const fs::path& folder) {
  return path + ": " + what + " keeps its data at '" + location + "', which leaves the model's folder '" +
         folder.string() +
         "'; external data must lie inside the model's folder tree: move the file there and give its path relative "
         "to the model";
}

TEST(ImportErrors, ExternalDataLeavingTheFolderIsRefused) {
  ModelFolder folder = model_folder("leaving");
  for (std::string location : {"../secret.bin", "sub/../../secret.bin", "./sub/../../outside/secret.bin",
                               "../outside/secret.bin", "./sub/../../../etc/passwd"}) {
    std::string path = folder.save(external_data_model(location));
    EXPECT_EQ(import_error(path), leaves_message(path, "initializer 'w'", location, folder.model_dir)) << location;
  }
}

TEST(ImportErrors, AbsoluteExternalDataLocationsAreRefused) {
  ModelFolder folder = model_folder("absolute");
  write_bytes((folder.model_dir / "w.bin").string(), kSecret);
  for (std::string location : {(folder.outside / "secret.bin").string(), (folder.model_dir / "w.bin").string(),
                               std::string("/etc/passwd"), std::string("/abs")}) {
    std::string path = folder.save(external_data_model(location));
    EXPECT_EQ(import_error(path), path + ": initializer 'w' keeps its data at the absolute location '" + location +
                                      "'; external data must be named relative to the model's folder '" +
                                      folder.model_dir.string() +
                                      "': move the file into that folder and give its relative path")
        << location;
  }
}

TEST(ImportErrors, ExternalDataThroughASymbolicLinkOutsideIsRefused) {
  ModelFolder folder = model_folder("symlinks");
  fs::create_directory_symlink(folder.outside, folder.model_dir / "sub");
  fs::create_symlink(folder.root / "secret.bin", folder.model_dir / "w.bin");
  std::vector<std::pair<std::string, fs::path>> cases = {{"sub/secret.bin", folder.outside / "secret.bin"},
                                                         {"w.bin", folder.root / "secret.bin"},
                                                         {"./sub/../w.bin", folder.root / "secret.bin"}};
  for (const auto& [location, target] : cases) {
    std::string path = folder.save(external_data_model(location));
    EXPECT_EQ(import_error(path), path + ": initializer 'w' keeps its data at '" + location +
                                      "', which a symbolic link leads to '" + fs::canonical(target).string() +
                                      "', outside the model's folder '" + fs::canonical(folder.model_dir).string() +
                                      "'; copy the data file into the model's folder tree instead of linking to it")
        << location;
  }
}

TEST(ImportErrors, ExternalDataWithoutALocationIsRefused) {
  ModelFolder folder = model_folder("no_location");
  std::string path = folder.save(external_data_model(""));
  EXPECT_EQ(import_error(path), path + ": initializer 'w' is stored as external data but its 'location' is empty; "
                                       "re-export the model with its data file next to it");
}

OnnxModelBuilder constant_model(const std::string& location) {
  OnnxModelBuilder builder;
  builder.input("x", TensorProto::FLOAT, {4}).output("y", TensorProto::FLOAT, {4});
  auto& constant = builder.node("Constant", {}, {"c"}, "const");
  auto* value = constant.add_attribute();
  value->set_name("value");
  value->set_type(onnx::AttributeProto::TENSOR);
  TensorProto* tensor = value->mutable_t();
  tensor->set_data_type(TensorProto::FLOAT);
  tensor->add_dims(4);
  tensor->set_data_location(TensorProto::EXTERNAL);
  add_external_entry(*tensor, "location", location);
  builder.node("Add", {"x", "c"}, {"y"}, "add");
  return builder;
}

TEST(ImportErrors, ConstantNodeExternalDataOutsideIsRefused) {
  ModelFolder folder = model_folder("constant");
  for (std::string location : {"../secret.bin", "sub/../../outside/secret.bin"}) {
    std::string path = folder.save(constant_model(location));
    EXPECT_EQ(import_error(path), leaves_message(path, "attribute 'value' of node 'const'", location, folder.model_dir))
        << location;
  }
  std::string absolute = (folder.outside / "secret.bin").string();
  std::string path = folder.save(constant_model(absolute));
  EXPECT_NE(import_error(path).find("attribute 'value' of node 'const' keeps its data at the absolute location '" +
                                    absolute + "'"),
            std::string::npos);
}

TEST(ImportErrors, ConstantNodeExternalDataInsideLoads) {
  ModelFolder folder = model_folder("constant_inside");
  std::vector<float> values = {1, 2, 3, 4};
  fs::create_directories(folder.model_dir / "data");
  write_bytes((folder.model_dir / "data" / "c.bin").string(),
              std::string(reinterpret_cast<const char*>(values.data()), sizeof(float) * 4));
  Graph graph = import_onnx(folder.save(constant_model("data/c.bin")));
  std::vector<Tensor> out = execute(graph, {Tensor::f32({4}, {10, 20, 30, 40})});
  EXPECT_EQ(std::vector<float>(out[0].f32().begin(), out[0].f32().end()), (std::vector<float>{11, 22, 33, 44}));
}

std::string offset_length_error(const std::string& name, const std::string& offset, const std::string& length) {
  ModelFolder folder = model_folder(name);
  write_bytes((folder.model_dir / "w.bin").string(), kSecret);
  OnnxModelBuilder builder = external_data_model("w.bin");
  TensorProto& weight = *builder.model().mutable_graph()->mutable_initializer(0);
  if (!offset.empty()) add_external_entry(weight, "offset", offset);
  if (!length.empty()) add_external_entry(weight, "length", length);
  std::string path = folder.save(builder);
  return import_error(path).substr(path.size() + 2);
}

TEST(ImportErrors, BadExternalDataOffsetsAndLengthsAreUserErrors) {
  auto not_a_count = [](const std::string& key, const std::string& text) {
    return "initializer 'w' has the external-data " + key + " '" + text +
           "', which is not a byte count from 0 to 9223372036854775807; fix the model's external_data entries";
  };
  EXPECT_EQ(offset_length_error("offset_text", "abc", ""), not_a_count("offset", "abc"));
  EXPECT_EQ(offset_length_error("offset_negative", "-4", ""), not_a_count("offset", "-4"));
  EXPECT_EQ(offset_length_error("offset_huge", "99999999999999999999999", ""),
            not_a_count("offset", "99999999999999999999999"));
  EXPECT_EQ(offset_length_error("length_text", "", "16 bytes"), not_a_count("length", "16 bytes"));
  EXPECT_EQ(offset_length_error("length_negative", "", "-16"), not_a_count("length", "-16"));
  std::string overflow = offset_length_error("offset_overflow", "9223372036854775807", "16");
  std::string w_bin = fs::canonical(fs::path(temp_file("containment")) / "offset_overflow" / "model" / "w.bin").string();
  EXPECT_EQ(overflow,
            "initializer 'w': external file '" + w_bin +
                "' ends before offset 9223372036854775807 + 16 bytes (it has 16); the file is truncated or the "
                "model's offset and length are wrong");
  EXPECT_NE(offset_length_error("offset_past_end", "8", "").find("ends before offset 8 + 16 bytes (it has 16)"),
            std::string::npos);
  EXPECT_EQ(offset_length_error("length_wrong", "", "8"),
            "initializer 'w' declares 8 bytes of external data in 'w.bin' but its shape needs 16; fix the 'length' "
            "entry or re-export the model");
  EXPECT_EQ(offset_length_error("length_huge", "0", "9223372036854775807"),
            "initializer 'w' declares 9223372036854775807 bytes of external data in 'w.bin' but its shape needs 16; "
            "fix the 'length' entry or re-export the model");
}

TEST(ImportErrors, InitializerTooLargeToHoldIsAUserError) {
  OnnxModelBuilder builder = relu_model();
  TensorProto* huge = builder.model().mutable_graph()->add_initializer();
  huge->set_name("huge");
  huge->set_data_type(TensorProto::FLOAT);
  huge->add_dims(int64_t{1} << 40);  // 2^61 elements: the element count fits in int64, the byte count does not
  huge->add_dims(int64_t{1} << 21);
  huge->set_raw_data("abcd");
  std::string path = builder.save("huge_initializer.onnx");
  EXPECT_EQ(import_error(path), path + ": initializer 'huge' has the shape [1099511627776,2097152], too large to "
                                       "hold in memory; fix the model's dims");
}

// Before: a rank-17 tensor reached point facets that keep one index per dimension in arrays of
// 16 (UBSan: index 16 out of bounds in Transpose's facet during pet-opt). After: every way a
// value enters a graph (an input, an initializer, a node's output) refuses ranks above 16.
TEST(ImportErrors, TensorsOfRankAboveSixteenAreUserErrors) {
  std::vector<int64_t> rank17(17, 1);
  std::string input_path = relu_model(TensorProto::FLOAT, rank17).save("rank17_input.onnx");
  EXPECT_EQ(import_error(input_path),
            input_path + ": input 'x' has rank 17 ([1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1]); pet handles tensors of rank "
                         "up to 16: reshape it to fewer dimensions");

  OnnxModelBuilder initializer = relu_model();
  initializer.float_initializer("w", rank17, {1.0f});
  initializer.node("Add", {"w", "w"}, {"unused"}, "add");
  std::string initializer_path = initializer.save("rank17_initializer.onnx");
  EXPECT_EQ(import_error(initializer_path),
            initializer_path + ": constant 'w' has rank 17 ([1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1]); pet handles "
                               "tensors of rank up to 16: reshape it to fewer dimensions");

  OnnxModelBuilder unsqueezed;
  unsqueezed.input("x", TensorProto::FLOAT, std::vector<int64_t>(16, 1)).output("y", TensorProto::FLOAT, rank17);
  unsqueezed.int_initializer("axes", {1}, {0});
  unsqueezed.node("Unsqueeze", {"x", "axes"}, {"y"}, "grow");
  std::string node_path = unsqueezed.save("rank17_output.onnx");
  std::string message = import_error(node_path);
  EXPECT_NE(message.find("node 'grow' (Unsqueeze): output 0 has rank 17"), std::string::npos) << message;
  EXPECT_NE(message.find("pet handles tensors of rank up to 16"), std::string::npos) << message;
}

// Before: a Conv over 5 spatial dimensions overflowed its point facet's tap arrays (ASan:
// stack-buffer-overflow in pet-opt). After: convolutions and poolings take at most 4.
TEST(ImportErrors, ConvOverFiveSpatialDimensionsIsAUserErrorNotACrash) {
  std::vector<int64_t> x_dims{1, 2, 3, 3, 3, 3, 3}, w_dims{2, 2, 1, 1, 1, 1, 1};
  OnnxModelBuilder builder;
  builder.input("x", TensorProto::FLOAT, x_dims).output("y", TensorProto::FLOAT, x_dims);
  builder.float_initializer("w", w_dims, std::vector<float>(4, 0.5f));
  builder.node("Conv", {"x", "w"}, {"y"}, "conv5d");
  std::string path = builder.save("conv5d.onnx");
  std::string message = import_error(path);
  EXPECT_NE(message.find("node 'conv5d' (Conv"), std::string::npos) << message;
  EXPECT_NE(message.find("5 spatial dimensions; pet takes at most 4"), std::string::npos) << message;
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

// Found by fuzz_onnx_import: a Conv on a rank-2 input. Before, ONNX 1.12's shape inference
// dereferenced a null pointer (SIGSEGV); after, pet's Conv rule rejects the node first.
TEST(ImportErrors, ConvOnARankTwoInputIsAUserErrorNotACrash) {
  for (int64_t rank : {1, 2, 3}) {
    OnnxModelBuilder builder;
    std::vector<int64_t> x_dims(static_cast<size_t>(rank), 1);
    builder.input("x", TensorProto::FLOAT, x_dims).output("y", TensorProto::FLOAT, {});
    builder.float_initializer("w", {2, 1, 3, 3}, std::vector<float>(18, 0.5f));
    builder.float_initializer("b", {2}, {0.0f, 1.0f});
    auto& conv = builder.node("Conv", {"x", "w", "b"}, {"c"}, "conv");
    auto* pads = conv.add_attribute();
    pads->set_name("pads");
    pads->set_type(onnx::AttributeProto::INTS);
    for (int i = 0; i < 4; ++i) pads->add_ints(1);
    builder.node("Relu", {"c"}, {"y"}, "conv_relu");
    std::string message = import_error(builder.save("conv_rank" + std::to_string(rank) + ".onnx"));
    EXPECT_NE(message.find("node 'conv' (Conv"), std::string::npos) << rank << ": " << message;
  }
}

// Found by fuzz_onnx_import: a graph input without a name at opset 18, which ONNX 1.12's checker
// does not see. Before, an internal error (exit 1: "value name '' is taken"); after, pet's own
// check gives a user error, as for repeated inputs and initializers.
TEST(ImportErrors, UnnamedOrRepeatedInputsAndInitializersAreUserErrors) {
  auto at_opset_18 = [](OnnxModelBuilder& builder) { builder.model().mutable_opset_import(0)->set_version(18); };
  OnnxModelBuilder unnamed_input;
  unnamed_input.input("", TensorProto::FLOAT, {2}).input("x", TensorProto::FLOAT, {2}).output("y", TensorProto::FLOAT, {2});
  unnamed_input.node("Relu", {"x"}, {"y"}, "relu");
  at_opset_18(unnamed_input);
  std::string path = unnamed_input.save("unnamed_input.onnx");
  EXPECT_EQ(import_error(path), path + ": graph input #0 has no name; every input and initializer needs one, since "
                                       "nodes read values by name: the model is malformed");

  OnnxModelBuilder repeated_input;
  repeated_input.input("x", TensorProto::FLOAT, {2}).input("x", TensorProto::FLOAT, {3}).output("y", TensorProto::FLOAT, {2});
  repeated_input.node("Relu", {"x"}, {"y"}, "relu");
  at_opset_18(repeated_input);
  path = repeated_input.save("repeated_input.onnx");
  EXPECT_EQ(import_error(path), path + ": graph input #1 is named 'x', like an earlier input or initializer; every "
                                       "value must be defined once: rename one of them");

  OnnxModelBuilder repeated_initializer;
  repeated_initializer.input("x", TensorProto::FLOAT, {2}).output("y", TensorProto::FLOAT, {2});
  repeated_initializer.float_initializer("w", {2}, {1.0f, 2.0f}).float_initializer("w", {2}, {3.0f, 4.0f});
  repeated_initializer.node("Add", {"x", "w"}, {"y"}, "add");
  at_opset_18(repeated_initializer);
  path = repeated_initializer.save("repeated_initializer.onnx");
  EXPECT_EQ(import_error(path), path + ": initializer #1 is named 'w', like an earlier input or initializer; every "
                                       "value must be defined once: rename one of them");
}

// Found by fuzz_onnx_import: a model that declares a wrong shape for an intermediate value or for
// a graph output. Before, an internal error (pet's shape disagreed with the declared one, which
// ONNX's shape inference keeps); after, the declaration is ignored and pet's shape stands.
TEST(ImportErrors, AWrongDeclaredIntermediateShapeIsIgnored) {
  OnnxModelBuilder builder;
  builder.input("x", TensorProto::FLOAT, {1, 4, 4, 4}).output("y", TensorProto::FLOAT, {1, 1, 4, 4});
  builder.int_initializer("split", {2}, {1, 3});
  auto* axis = builder.node("Split", {"x", "split"}, {"a", "b"}, "split_node").add_attribute();
  axis->set_name("axis");
  axis->set_type(onnx::AttributeProto::INT);
  axis->set_i(1);
  builder.node("Relu", {"a"}, {"y"}, "relu");
  auto* declared = builder.model().mutable_graph()->add_value_info();
  declared->set_name("a");
  declared->mutable_type()->mutable_tensor_type()->set_elem_type(TensorProto::FLOAT);
  for (int64_t d : {1, 1, 2, 83}) declared->mutable_type()->mutable_tensor_type()->mutable_shape()->add_dim()->set_dim_value(d);
  std::string path = builder.save("wrong_value_info.onnx");
  Graph graph = import_onnx(path);
  EXPECT_EQ(graph.value(graph.outputs()[0]).type.to_string(), "f32[1,1,4,4]");

  // The fuzzer's own case: the input x is also a graph output, declared with another shape.
  auto* also_output = builder.model().mutable_graph()->add_output();
  also_output->CopyFrom(*declared);
  also_output->set_name("x");
  builder.model().mutable_graph()->clear_value_info();
  path = builder.save("input_as_output_declared_wrong.onnx");
  graph = import_onnx(path);
  EXPECT_EQ(graph.value(graph.outputs()[1]).type.to_string(), "f32[1,4,4,4]");
}

}  // namespace
}  // namespace pet::testing
