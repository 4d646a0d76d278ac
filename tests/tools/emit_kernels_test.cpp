// pet-opt --emit-kernels: before, a model whose written program holds corrected partial mutants;
// after, one CUDA source per correction and a manifest naming the patch each fills in the written
// model. A measured target refuses the flag with the reason.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <sstream>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include <set>

#include "core/onnx_import.h"
#include "core/text_ir.h"
#include "tools/emit_kernels.h"
#include "tests/error/onnx_model_builder.h"
#include "tests/search/batched_conv.h"
#include "tests/search/corrected_moves.h"
#include "tools/commands.h"

namespace pet::testing {
namespace {

std::string model_file() {
  std::string path = temp_file("emit-batched.pet");
  std::ofstream(path) << kBatchedConv;
  return path;
}

nlohmann::json read_json(const std::string& path) {
  std::ifstream file(path);
  return nlohmann::json::parse(file);
}

TEST(EmitKernels, EachCorrectionOfACorrectedProgramBecomesACudaSourceNamingThePatchItFills) {
  Graph graph = parse_graph(kBatchedConv);
  std::vector<search::Program> moves = corrected_moves(graph);
  ASSERT_FALSE(moves.empty()) << "the seam mutants of a batched conv";
  for (const search::Program& move : moves) {
    SCOPED_TRACE(move.history.back().name);
    ASSERT_EQ(move.history.back().evidence_kind, EvidenceKind::partial_correction);
    std::string folder = temp_file("emit-kernels");
    std::filesystem::remove_all(folder);
    int count = write_correction_kernels(folder, move.graph, move.history);
    nlohmann::json manifest = read_json(folder + "/manifest.json");
    const nlohmann::json& kernels = manifest["kernels"];
    size_t corrections = 0;
    for (const auto& site : move.history.back().corrected_sites) corrections += site->corrections.size();
    EXPECT_EQ(kernels.size(), corrections) << manifest.dump(2);
    EXPECT_EQ(count, static_cast<int>(kernels.size()));
    EXPECT_TRUE(manifest["not_emitted"].empty()) << manifest.dump(2);
    std::set<std::string> filled;
    for (const nlohmann::json& kernel : kernels) {
      std::ifstream source(folder + "/" + kernel["file"].get<std::string>());
      std::string text((std::istreambuf_iterator<char>(source)), std::istreambuf_iterator<char>());
      EXPECT_NE(text.find("extern \"C\" __global__ void __launch_bounds__(256) " + kernel["kernel"].get<std::string>() + "("),
                std::string::npos)
          << text;
      EXPECT_EQ(kernel["replaces"], "c") << "the input model's node the mutant replaced";
      const nlohmann::json& into = kernel["written_into"];
      EXPECT_TRUE(filled.insert(into["node"].get<std::string>() + "#" + std::to_string(into["patch"].get<int>())).second)
          << "each patch is filled by one kernel";
      bool found = false;
      for (const Node& node : move.graph.nodes()) found = found || node.name == into["node"].get<std::string>();
      EXPECT_TRUE(found) << into.dump();
      EXPECT_EQ(kernel["activation"], "Relu") << "the ReLU fused into the corrected node applies to the box too";
      EXPECT_GT(kernel["elements"].get<int64_t>(), 0);
      EXPECT_GE(kernel["launch"]["grid"].get<int64_t>(), 1);
      ASSERT_FALSE(kernel["params"].empty());
      EXPECT_EQ(kernel["params"][0]["value"], "x") << "the data input, by its name in the model";
      EXPECT_EQ(kernel["params"][0]["in_written_model"], true);
    }
  }
}

TEST(PetOptEmitKernels, AWrittenModelWithoutCorrectionsGivesAnEmptyManifestAndSaysWhy) {
  std::string folder = temp_file("emit-kernels-none");
  std::filesystem::remove_all(folder);
  std::ostringstream out, err;
  ASSERT_EQ(pet_opt_main({"--target", "h100", "--mode", "none", model_file(), "-o", temp_file("emit-none.onnx"),
                          "--emit-kernels", folder},
                         out, err),
            0)
      << err.str();
  EXPECT_TRUE(read_json(folder + "/manifest.json")["kernels"].empty());
  EXPECT_NE(out.str().find("emitted 0 correction kernels into " + folder +
                           " (manifest.json lists them: the written model has no corrected partial mutant)"),
            std::string::npos)
      << out.str();
}

TEST(PetOptEmitKernels, AMeasuredTargetRefusesTheFlagWithTheReason) {
  std::ostringstream out, err;
  EXPECT_EQ(pet_opt_main({"--target", "ort-cpu", model_file(), "--emit-kernels", temp_file("emit-ort")}, out, err), 2);
  EXPECT_NE(err.str().find("--emit-kernels writes CUDA kernels for a GPU target (--target h100, h200, a100, v100 "
                           "or a spec file); on ort-cpu the corrections run inside the written model (as the standard ops "
                           "ONNX Runtime runs fastest)"),
            std::string::npos)
      << err.str();
}

}  // namespace
}  // namespace pet::testing
