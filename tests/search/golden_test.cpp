// Golden tests: tests/golden/NAME.in.ir through a stage must print as NAME.out.ir.
// PET_UPDATE_GOLDEN=1 rewrites the .out.ir files (review the diff before committing).
#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "core/text_ir.h"
#include "search/cleanup.h"
#include "verifier/differential.h"

namespace pet {
namespace {

namespace fs = std::filesystem;

std::string read_file(const fs::path& path) {
  std::ifstream file(path);
  std::stringstream text;
  text << file.rdbuf();
  return text.str();
}

void check_golden(const std::string& name, const std::function<void(Graph&)>& stage) {
  fs::path dir = fs::path(PET_SOURCE_DIR) / "tests" / "golden";
  Graph before = parse_graph(read_file(dir / (name + ".in.ir")));
  Graph after = before;
  stage(after);
  std::string printed = print_graph(after, PrintOptions{0, false});  // weights as content hashes
  fs::path expected_path = dir / (name + ".out.ir");
  const char* update = std::getenv("PET_UPDATE_GOLDEN");
  if (update && std::string(update) == "1") std::ofstream(expected_path) << printed;
  EXPECT_EQ(printed, read_file(expected_path)) << "rerun with PET_UPDATE_GOLDEN=1 to accept the new output";
  EXPECT_TRUE(differential(before, after, 17).passed) << name << " changed the computed values";
}

TEST(Golden, CleanupConvBnRelu) {
  check_golden("cleanup_conv_bn_relu", [](Graph& graph) { cleanup(graph); });
}

}  // namespace
}  // namespace pet
