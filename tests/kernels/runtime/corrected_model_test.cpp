// A corrected model (the corrector's fused seam correction) in both CPU runtimes: OpenVINO runs pet's
// correction op through pet's extension, ONNX Runtime the standard-op lowering; both match pet's executor.
#include <gtest/gtest.h>

#include <stdlib.h>

#include <filesystem>
#include <fstream>
#include <string>

#include "core/error.h"
#include "core/executor.h"
#include "core/onnx_export.h"
#include "core/onnx_import.h"
#include "core/onnx_mapping.h"
#include "core/text_ir.h"
#include "kernels/runtime/openvino_runtime.h"
#include "tests/kernels/runtime/corrected_conv.h"
#include "kernels/runtime/ort_runtime.h"
#include "kernels/runtime/runtime.h"

namespace pet::runtime {
namespace {

const std::string kCorrectedConv = corrected_conv_ir();

void expect_matches_executor(const std::vector<Tensor>& got, const Graph& reference, const std::vector<Tensor>& inputs) {
  std::vector<Tensor> expected = execute(reference, inputs);
  ASSERT_EQ(got.size(), 1u);
  ASSERT_EQ(got[0].numel(), expected[0].numel());
  for (int64_t i = 0; i < expected[0].numel(); ++i) EXPECT_NEAR(got[0].f32()[i], expected[0].f32()[i], 1e-4) << i;
}

bool has_extension() { return !default_openvino_extension().empty(); }

// OpenVINO's runtime, or null when pet was built without it (the sanitizer build leaves it out).
std::unique_ptr<Runtime> openvino_if_built(const std::string& extension) {
  try {
    return open_openvino_runtime(extension);
  } catch (const UserError& error) {
    if (std::string(error.what()).find("is unavailable") == std::string::npos) throw;
    return nullptr;
  }
}

TEST(CorrectedModel, ExtensionFormIsAPetDomainNodeReadBackAsItself) {
  Graph corrected = parse_graph(kCorrectedConv);
  std::string bytes = serialize_onnx(corrected, {.extension_ops = true});
  EXPECT_NE(bytes.find(kPetDomain), std::string::npos);
  EXPECT_EQ(serialize_onnx(corrected).find(kPetDomain), std::string::npos) << "portable by default";
  std::string folder = (std::filesystem::temp_directory_path() / "pet-corrected-XXXXXX").string();
  ASSERT_NE(mkdtemp(folder.data()), nullptr);
  std::string path = folder + "/corrected.onnx";
  std::ofstream(path, std::ios::binary) << bytes;
  Graph read = import_onnx(path);
  std::filesystem::remove_all(folder);
  // The standard Layout comes back as its Reshape/Transpose lowering; pet's op as itself.
  auto correction_line = [](const Graph& graph) {
    std::string text = print_graph(graph);
    size_t at = text.find("LayoutOverwrite[");
    return at == std::string::npos ? std::string() : text.substr(at, text.find('\n', at) - at);
  };
  EXPECT_EQ(correction_line(read), correction_line(corrected));
  EXPECT_NE(correction_line(read), "");
  std::vector<Tensor> inputs = random_inputs(corrected, 5);
  EXPECT_TRUE(execute(read, inputs)[0].same_content(execute(corrected, inputs)[0]));
}

TEST(CorrectedModel, OpenVinoRunsPetsCorrectionOpThroughTheExtension) {
  if (!has_extension()) GTEST_SKIP() << "pet's OpenVINO extension is not built here";
  Graph corrected = parse_graph(kCorrectedConv);
  std::vector<Tensor> inputs = random_inputs(corrected, 17);
  std::unique_ptr<Runtime> openvino = open_openvino_runtime();
  ASSERT_TRUE(openvino->export_options().extension_ops);
  std::vector<Tensor> got = openvino->run_model(serialize_onnx(corrected, openvino->export_options()), inputs, 2);
  expect_matches_executor(got, corrected, inputs);
  expect_matches_executor(got, parse_graph(kOriginalConv), inputs);
}

TEST(CorrectedModel, OnnxRuntimeRunsTheStandardLowering) {
  Graph corrected = parse_graph(kCorrectedConv);
  std::vector<Tensor> inputs = random_inputs(corrected, 17);
  std::unique_ptr<Runtime> ort = open_ort_runtime();
  EXPECT_FALSE(ort->export_options().extension_ops);
  std::vector<Tensor> got = ort->run_model(serialize_onnx(corrected, ort->export_options()), inputs, 1);
  expect_matches_executor(got, parse_graph(kOriginalConv), inputs);
}

TEST(CorrectedModel, OpenVinoWithoutTheExtensionSaysHowToLoadIt) {
  Graph corrected = parse_graph(kCorrectedConv);
  std::vector<Tensor> inputs = random_inputs(corrected, 17);
  std::unique_ptr<Runtime> bare = openvino_if_built("");
  if (!bare) GTEST_SKIP() << "pet was built without OpenVINO";
  EXPECT_FALSE(bare->export_options().extension_ops);
  try {
    bare->run_model(serialize_onnx(corrected, {.extension_ops = true}), inputs, 1);
    FAIL() << "OpenVINO ran pet's op without the extension";
  } catch (const UserError& error) {
    std::string message = error.what();
    EXPECT_NE(message.find("pet's fused correction op (ONNX domain ai.pet)"), std::string::npos) << message;
    EXPECT_NE(message.find("core.add_extension("), std::string::npos) << message;
    EXPECT_NE(message.find("pet-opt --portable"), std::string::npos) << message;
  }
}

TEST(CorrectedModel, AnExtensionThatCannotBeLoadedIsAUserError) {
  if (!openvino_if_built("")) GTEST_SKIP() << "pet was built without OpenVINO";
  try {
    open_openvino_runtime("/no/such/libpet_openvino_extension.so");
    FAIL() << "a missing library was accepted";
  } catch (const UserError& error) {
    EXPECT_NE(std::string(error.what()).find("pet's OpenVINO extension '/no/such/libpet_openvino_extension.so' "
                                             "could not be loaded"),
              std::string::npos)
        << error.what();
  }
}

}  // namespace
}  // namespace pet::runtime
