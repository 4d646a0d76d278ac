// Golden pet-opt --passes runs: tests/golden/NAME.in.pet names its pass list on its first line
// ("# pet-opt --passes a,b"); pet-opt runs it and writes textual IR that must equal NAME.out.pet.
// PET_UPDATE_GOLDEN=1 rewrites the .out.pet files (review the diff before committing).
#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "core/text_ir.h"
#include "search/named_passes.h"
#include "tests/test_temp_dir.h"
#include "tools/commands.h"

namespace pet::testing {
namespace {

namespace fs = std::filesystem;

const fs::path& golden_dir() {
  static const fs::path dir = fs::path(PET_SOURCE_DIR) / "tests" / "golden";
  return dir;
}

std::string read_text(const fs::path& path) {
  std::ifstream file(path);
  std::stringstream text;
  text << file.rdbuf();
  return text.str();
}

// The pass list of the input's first line.
std::string pass_list(const std::string& input) {
  const std::string prefix = "# pet-opt --passes ";
  EXPECT_EQ(input.rfind(prefix, 0), 0u) << "a golden input starts with '" << prefix << "...'";
  return input.substr(prefix.size(), input.find('\n') - prefix.size());
}

void check_passes_golden(const std::string& name) {
  fs::path input = golden_dir() / (name + ".in.pet"), expected = golden_dir() / (name + ".out.pet");
  fs::path output = private_temp_dir() / (name + ".out.pet");
  std::ostringstream out, err;
  ASSERT_EQ(pet_opt_main({"--passes", pass_list(read_text(input)), input.string(), "-o", output.string()}, out, err),
            0)
      << err.str();
  const char* update = std::getenv("PET_UPDATE_GOLDEN");
  if (update && std::string(update) == "1") fs::copy_file(output, expected, fs::copy_options::overwrite_existing);
  EXPECT_EQ(read_text(output), read_text(expected)) << "rerun with PET_UPDATE_GOLDEN=1 to accept the new output";
}

TEST(PassesGolden, FoldBatchnorm) { check_passes_golden("passes_fold_batchnorm"); }
TEST(PassesGolden, LayoutChains) { check_passes_golden("passes_layout_chains"); }
TEST(PassesGolden, FuseBiasActivation) { check_passes_golden("passes_fuse_bias_activation"); }
TEST(PassesGolden, SinkLayoutsBelowCorrections) { check_passes_golden("passes_sink_layouts_below_corrections"); }

TEST(Passes, TheWrittenIrReadsBackAsTheSameGraph) {
  fs::path output = private_temp_dir() / "readback.pet";
  std::ostringstream out, err;
  fs::path input = golden_dir() / "passes_fold_batchnorm.in.pet";
  ASSERT_EQ(pet_opt_main({"--passes", "cleanup", input.string(), "-o", output.string()}, out, err), 0) << err.str();
  std::string written = read_text(output);
  EXPECT_EQ(print_graph(parse_graph(written), PrintOptions{1 << 20, false}), written);
}

TEST(Passes, EmitIrWritesTextualIrWhateverTheOutputIsNamed) {
  fs::path output = private_temp_dir() / "emitted.onnx";
  std::ostringstream out, err;
  fs::path input = golden_dir() / "passes_fuse_bias_activation.in.pet";
  ASSERT_EQ(pet_opt_main({"--passes", "finalize", "--emit-ir", input.string(), "-o", output.string()}, out, err), 0)
      << err.str();
  EXPECT_EQ(read_text(output).rfind("graph \"fuse_bias_activation\" opset 13 {\n", 0), 0u) << read_text(output);
}

TEST(Passes, EveryPassTheStagesReportCanRunByItsName) {
  const std::vector<std::string>& names = pass_names();
  Graph graph = parse_graph(read_text(golden_dir() / "passes_fold_batchnorm.in.pet"));
  for (const PassResult& pass : run_passes(graph, {"cleanup", "finalize"}))
    EXPECT_NE(std::find(names.begin(), names.end(), pass.pass), names.end()) << pass.pass;
}

// The whole pipeline from textual IR to textual IR: the written file is the optimized graph, read
// back and checked, and the report sits beside it.
TEST(PetOptIr, OptimizesATextualIrModelIntoTextualIr) {
  fs::path input = golden_dir() / "passes_fuse_bias_activation.in.pet";
  fs::path output = private_temp_dir() / "optimized.pet";
  std::ostringstream out, err;
  ASSERT_EQ(pet_opt_main({"--target", "h100", "--beam", "2", input.string(), "-o", output.string()}, out, err), 0)
      << err.str();
  EXPECT_EQ(read_text(output), read_text(golden_dir() / "passes_fuse_bias_activation.out.pet"))
      << "finalize fuses the bias and the Relu into the conv; no mutant beats that";
  EXPECT_TRUE(fs::exists(private_temp_dir() / "optimized.json"));
  EXPECT_NE(out.str().find("written file re-imported and checked"), std::string::npos) << out.str();
}

}  // namespace
}  // namespace pet::testing
