// NVRTC compiles every kernel `pet-opt --emit-kernels` writes for the corrected moves of a
// batched conv (on any machine with the CUDA toolkit; nothing runs on a GPU here).
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

#include <nlohmann/json.hpp>

#include "core/text_ir.h"
#include "kernels/nvrtc_compile.h"
#include "tests/error/onnx_model_builder.h"
#include "tests/search/batched_conv.h"
#include "tests/search/corrected_moves.h"
#include "tools/emit_kernels.h"

namespace pet::testing {
namespace {

TEST(EmitKernelsNvrtc, EveryEmittedSourceCompiles) {
  std::vector<search::Program> moves = corrected_moves(parse_graph(kBatchedConv));
  ASSERT_FALSE(moves.empty());
  int compiled = 0;
  for (const search::Program& move : moves) {
    std::string folder = temp_file("emit-kernels-nvrtc");
    std::filesystem::remove_all(folder);
    write_correction_kernels(folder, move.graph, move.history);
    std::ifstream manifest_file(folder + "/manifest.json");
    nlohmann::json manifest = nlohmann::json::parse(manifest_file);
    for (const nlohmann::json& kernel : manifest["kernels"]) {
      std::ifstream source_file(folder + "/" + kernel["file"].get<std::string>());
      std::string source((std::istreambuf_iterator<char>(source_file)), std::istreambuf_iterator<char>());
      PtxCompilation ptx = compile_to_ptx(source, kernel["file"].get<std::string>());
      EXPECT_TRUE(ptx.ok()) << ptx.error;
      ++compiled;
    }
  }
  EXPECT_GT(compiled, 0);
}

}  // namespace
}  // namespace pet::testing
