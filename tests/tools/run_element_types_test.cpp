// pet-run with inputs and outputs of the element types beyond f32, i64 and bool: .pb files in and out, random draws.
#include <gtest/gtest.h>

#include <algorithm>
#include <sstream>

#include "core/executor.h"
#include "core/onnx_export.h"
#include "core/onnx_tensor.h"
#include "core/text_ir.h"
#include "tests/test_temp_dir.h"
#include "tools/commands.h"

namespace pet::testing {
namespace {

// A uint8 image to float64 and bfloat16 (what a model taking raw pixels might start with).
const char* kPixels = R"(graph "pixels" opset 13 {
  input %image : u8[1,1,64,64]
  %wide = Cast[to="f64"](%image) : f64[1,1,64,64]
  %half = Cast[to="bf16"](%image) : bf16[1,1,64,64]
  output %wide
  output %half
})";

std::string pixels_model() {
  std::string path = (private_temp_dir() / "pixels.onnx").string();
  export_onnx(parse_graph(kPixels), path);
  return path;
}

TEST(PetRunElementTypes, ReadsAUint8InputAndWritesFloat64AndBFloat16Outputs) {
  std::string model = pixels_model();
  Tensor image = random_input({DType::u8, Shape{1, 1, 64, 64}}, 4);
  std::string input = (private_temp_dir() / "image.pb").string();
  write_tensor_file(input, image, "image");
  std::string folder = (private_temp_dir() / "pixels_out").string();
  std::ostringstream out, err;
  ASSERT_EQ(pet_run_main({model, "--input", "image=" + input, "--output-dir", folder}, out, err), 0) << err.str();
  EXPECT_NE(out.str().find("output 'wide': f64[1,1,64,64]"), std::string::npos) << out.str();
  EXPECT_NE(out.str().find("output 'half': bf16[1,1,64,64]"), std::string::npos) << out.str();
  EXPECT_TRUE(read_tensor_file(folder + "/wide.pb").same_content(image.converted(DType::f64)));
  EXPECT_TRUE(read_tensor_file(folder + "/half.pb").same_content(image.converted(DType::bf16)));
}

TEST(PetRunElementTypes, DrawsAUint8InputOverAllPixelValues) {
  std::string model = pixels_model();
  std::string folder = (private_temp_dir() / "pixels_random").string();
  std::ostringstream out, err;
  ASSERT_EQ(pet_run_main({model, "--output-dir", folder, "--seed", "7"}, out, err), 0) << err.str();
  EXPECT_NE(out.str().find("random values for 1 input(s), seed 7"), std::string::npos) << out.str();
  Tensor wide = read_tensor_file(folder + "/wide.pb");
  std::span<const double> values = wide.view<DType::f64>();
  EXPECT_EQ(*std::min_element(values.begin(), values.end()), 0);
  EXPECT_EQ(*std::max_element(values.begin(), values.end()), 255);
}

TEST(PetRunElementTypes, AnInputFileOfAnotherTypeNamesTheInput) {
  std::string model = pixels_model();
  std::string input = (private_temp_dir() / "image_f32.pb").string();
  write_tensor_file(input, Tensor::random_f32({1, 1, 64, 64}, 1), "image");
  std::ostringstream out, err;
  EXPECT_EQ(pet_run_main({model, "--input", "image=" + input}, out, err), 2);
  EXPECT_EQ(err.str(), "pet-run: error: input 'image' must be u8[1,1,64,64], got f32[1,1,64,64]; pass a tensor of "
                       "that type and shape\n");
}

TEST(PetRunElementTypes, AUint16FileForABFloat16InputIsTakenAsItsBits) {
  // ONNX's node tests up to 1.16 (test_cast_BFLOAT16_to_FLOAT) store bfloat16 tensors as UINT16.
  std::string model = (private_temp_dir() / "widen_bf16.onnx").string();
  export_onnx(parse_graph(R"(graph "widen" opset 13 {
    input %x : bf16[3]
    %y = Cast[to="f32"](%x) : f32[3]
    output %y
  })"),
              model);
  Tensor bits(DType::u16, Shape{3});
  std::span<uint16_t> values = bits.mutable_view<DType::u16>();
  values[0] = 0x3fc0, values[1] = 0xc010, values[2] = 0x4040;  // 1.5, -2.25, 3
  std::string input = (private_temp_dir() / "bits.pb").string();
  write_tensor_file(input, bits, "x");
  std::string folder = (private_temp_dir() / "widen_out").string();
  std::ostringstream out, err;
  ASSERT_EQ(pet_run_main({model, "--input", "x=" + input, "--output-dir", folder}, out, err), 0) << err.str();
  EXPECT_NE(out.str().find("input 'x': the uint16 file is taken as bfloat16 bits\n"), std::string::npos) << out.str();
  EXPECT_TRUE(read_tensor_file(folder + "/y.pb").same_content(Tensor::f32({3}, {1.5f, -2.25f, 3.0f})));
}

}  // namespace
}  // namespace pet::testing
