// Corrected programs exported to ONNX hold standard ops of their opset only (the Overwrite and
// Layout nodes lower to Slice, Concat, Reshape and Transpose) under distinct node names, and
// pet's own import of the file computes what the original computes. The same cases run in
// onnxruntime through check_corrections_onnxruntime.py.
#include <gtest/gtest.h>

#include <filesystem>
#include <iostream>
#include <set>

#include <fmt/format.h>
#include <fmt/ranges.h>
#include <onnx/defs/schema.h>
#include <onnx/onnx_pb.h>

#include "tests/test_temp_dir.h"
#include "core/onnx_export.h"
#include "core/onnx_import.h"
#include "core/text_ir.h"
#include "tests/corrector/correction_cases.h"
#include "verifier/differential.h"

namespace pet::corrector {
namespace {

constexpr uint64_t kSeed = 2026;

// The op types of the exported model that the ONNX schema registry does not know at its opset.
std::vector<std::string> nonstandard_ops(const onnx::ModelProto& model) {
  int opset = static_cast<int>(model.opset_import(0).version());
  std::vector<std::string> unknown;
  for (const onnx::NodeProto& node : model.graph().node())
    if (!node.domain().empty() || onnx::OpSchemaRegistry::Schema(node.op_type(), opset, "") == nullptr)
      unknown.push_back(node.domain() + "::" + node.op_type());
  return unknown;
}

// Node names given twice; the ONNX checker allows them, onnxruntime refuses the model.
std::vector<std::string> repeated_node_names(const onnx::ModelProto& model) {
  std::set<std::string> seen;
  std::vector<std::string> repeated;
  for (const onnx::NodeProto& node : model.graph().node())
    if (!seen.insert(node.name()).second) repeated.push_back(node.name());
  return repeated;
}

std::vector<std::string> op_types(const onnx::ModelProto& model) {
  std::vector<std::string> types;
  for (const onnx::NodeProto& node : model.graph().node()) types.push_back(node.op_type());
  return types;
}

// Exports, checks the op types, imports the file back; empty when all is well.
std::string check_lowering(const correction_cases::CorrectedCase& c, uint64_t seed) {
  onnx::ModelProto model;
  export_onnx_proto(c.corrected.program, model);
  if (std::vector<std::string> unknown = nonstandard_ops(model); !unknown.empty())
    return fmt::format("not standard ONNX ops: {}", fmt::join(unknown, ", "));
  if (std::vector<std::string> repeated = repeated_node_names(model); !repeated.empty())
    return fmt::format("node names given twice: {}", fmt::join(repeated, ", "));
  std::filesystem::path path = pet::testing::private_temp_dir() / fmt::format("pet_corrected_{}.onnx", c.name);
  export_onnx(c.corrected.program, path.string());
  Graph imported = import_onnx(path.string());
  std::filesystem::remove(path);
  for (const Node& node : imported.nodes())
    if (node.op() == "Overwrite" || node.op() == "Layout") return "the import holds a pet-only " + node.op();
  DifferentialReport report = differential(c.original, imported, seed, {1e-5, 1e-5});
  if (!report.passed) return fmt::format("imported export differs from the original by {}", report.max_abs_error());
  return "";
}

// PET's N2H conv mutant (two images stacked along H), corrected on the two seam rows.

// Layouts become Reshape/Transpose/Reshape; each correction a Slice of x, the sliced Conv, and
// the Overwrite's Slices of the base around the patch joined by Concats.
TEST(CorrectOnnxExport, StackedConvLowering) {
  Graph original = correction_cases::seam_example_original();
  Graph mutant = correction_cases::seam_example_mutant();
  CorrectedProgram corrected = correct(original, mutant, examine(original, mutant));
  onnx::ModelProto model;
  export_onnx_proto(corrected.program, model);
  EXPECT_EQ(fmt::format("{}", fmt::join(op_types(model), " ")),
            "Reshape Transpose Reshape Conv Reshape Transpose Reshape "  // the mutant
            "Slice Conv Slice Concat Slice Concat "                      // seam row 15 of image 0
            "Slice Conv Slice Concat Slice Concat");                     // seam row 0 of image 1
  EXPECT_EQ(nonstandard_ops(model), std::vector<std::string>{});
  EXPECT_EQ(onnx::OpSchemaRegistry::Schema("Overwrite", 13, ""), nullptr);  // the check can fail
  EXPECT_EQ(repeated_node_names(model), std::vector<std::string>{});
}

TEST(CorrectOnnxExport, EveryFamilyLowersToStandardOpsAndRunsAfterImport) {
  std::cout << "corrected-program export test: seed " << kSeed << "\n";
  std::vector<correction_cases::CorrectedCase> cases = correction_cases::onnx_lowering_cases(kSeed, 4);
  ASSERT_EQ(cases.size(), 24u);
  for (size_t i = 0; i < cases.size(); ++i) {
    const correction_cases::CorrectedCase& c = cases[i];
    ASSERT_FALSE(c.corrected.corrections.empty()) << c.name;
    EXPECT_EQ(check_lowering(c, kSeed + i), "") << c.name << "\noriginal:\n"
                                                << print_graph(c.original) << "corrected:\n"
                                                << print_graph(c.corrected.program);
  }
}

}  // namespace
}  // namespace pet::corrector
