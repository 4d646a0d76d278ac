// The golden driver: every tests/golden/NAME.in.pet is a test. Its first line is its RUN line,
// "# RUN: pet-opt FLAGS"; the driver runs pet-opt with those flags on the file, writing textual IR
// that must equal NAME.out.pet, so a new golden test is two files and no C++.
// PET_UPDATE_GOLDEN=1 rewrites the .out.pet files (review the diff before committing).
#include <gtest/gtest.h>

#include <algorithm>
#include <cctype>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "core/text_ir.h"
#include "search/passes/named_passes.h"
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

// The NAMEs of tests/golden/NAME.in.pet, sorted.
std::vector<std::string> golden_names() {
  std::vector<std::string> names;
  for (const fs::directory_entry& entry : fs::directory_iterator(golden_dir())) {
    std::string file = entry.path().filename().string();
    if (file.ends_with(".in.pet")) names.push_back(file.substr(0, file.size() - 7));
  }
  std::sort(names.begin(), names.end());
  return names;
}

// The pet-opt flags of the input's RUN line.
std::vector<std::string> run_line_flags(const std::string& input) {
  const std::string prefix = "# RUN: pet-opt ";
  EXPECT_EQ(input.rfind(prefix, 0), 0u) << "a golden input's first line is '" << prefix << "FLAGS'";
  std::istringstream line(input.substr(prefix.size(), input.find('\n') - prefix.size()));
  std::vector<std::string> flags;
  for (std::string flag; line >> flag;) flags.push_back(flag);
  return flags;
}

class Golden : public ::testing::TestWithParam<std::string> {};

TEST_P(Golden, RunLineWritesTheExpectedIr) {
  const std::string& name = GetParam();
  fs::path input = golden_dir() / (name + ".in.pet"), expected = golden_dir() / (name + ".out.pet");
  fs::path output = private_temp_dir() / (name + ".out.pet");
  std::vector<std::string> args = run_line_flags(read_text(input));
  args.insert(args.end(), {input.string(), "-o", output.string()});
  std::ostringstream out, err;
  ASSERT_EQ(pet_opt_main(args, out, err), 0) << err.str();
  const char* update = std::getenv("PET_UPDATE_GOLDEN");
  if (update && std::string(update) == "1") fs::copy_file(output, expected, fs::copy_options::overwrite_existing);
  EXPECT_EQ(read_text(output), read_text(expected)) << "rerun with PET_UPDATE_GOLDEN=1 to accept the new output";
}

// Test names are the file names, with characters gtest refuses made underscores.
std::string test_name(const ::testing::TestParamInfo<std::string>& info) {
  std::string name = info.param;
  std::replace_if(name.begin(), name.end(), [](char c) { return !std::isalnum(static_cast<unsigned char>(c)); }, '_');
  return name;
}

INSTANTIATE_TEST_SUITE_P(Files, Golden, ::testing::ValuesIn(golden_names()), test_name);

TEST(GoldenDriver, FindsEveryInputFileAndEachHasItsExpectedOutput) {
  std::vector<std::string> names = golden_names();
  EXPECT_GE(names.size(), 4u);
  for (const std::string& name : names)
    EXPECT_TRUE(fs::exists(golden_dir() / (name + ".out.pet"))) << name << ".in.pet has no " << name << ".out.pet";
}

TEST(GoldenDriver, ARunLineIsTheFirstLineAndGivesPetOptItsFlags) {
  EXPECT_EQ(run_line_flags("# RUN: pet-opt --passes cleanup --emit-ir\ngraph ..."),
            (std::vector<std::string>{"--passes", "cleanup", "--emit-ir"}));
}

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
