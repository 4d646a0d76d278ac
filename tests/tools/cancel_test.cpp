// A cancelled pet-opt run, in process: Cancelled unwinds it, nothing is written (no model, no
// report, no staged file), and the tools' guard says so with status 130.
#include <gtest/gtest.h>

#include <atomic>
#include <cstdint>
#include <filesystem>
#include <sstream>
#include <string>

#include "core/error.h"
#include "core/onnx_export.h"
#include "core/text_ir.h"
#include "tests/error/onnx_model_builder.h"
#include "tools/cli_args.h"
#include "tools/commands.h"
#include "tools/opt_command.h"
#include "tools/opt_flags.h"

namespace pet::testing {
namespace {

// A folder of its own holding only the model, which pet-opt is asked to write beside it.
std::filesystem::path folder_with_model(const std::string& name) {
  std::filesystem::path folder = temp_file(name);
  std::filesystem::remove_all(folder);
  std::filesystem::create_directories(folder);
  export_onnx(parse_graph(R"(graph "g" opset 13 {
    input %x : f32[2,8,16,16]
    const %w : f32[8,8,3,3] = random(1)
    %c = Conv[dilations=[1,1], group=1, pads=[1,1,1,1], strides=[1,1]](%x, %w)
    %y = Relu(%c)
    output %y
  })"),
              (folder / "model.onnx").string());
  return folder;
}

int64_t files_in(const std::filesystem::path& folder) {
  return std::distance(std::filesystem::directory_iterator(folder), std::filesystem::directory_iterator());
}

// pet-opt on the folder's model, its hook saying stop from the `stop_at`th ask on; returns how
// often it was asked.
int64_t run_cancelled_at(const std::filesystem::path& folder, int64_t stop_at) {
  OptRequest request = parse_opt_request(parse_opt_args(
      {(folder / "model.onnx").string(), "--target", "h100", "--mutation-rounds", "1", "--beam", "2"}));
  std::atomic<int64_t> asked{0};
  request.optimize.hooks.cancelled = [&asked, stop_at] { return ++asked >= stop_at; };
  std::ostringstream out, err;
  EXPECT_THROW(run_opt_request(request, out, err), Cancelled);
  return asked.load();
}

TEST(PetOptCancel, ACancelledRunWritesNothing) {
  std::filesystem::path folder = folder_with_model("cancel-first");
  int64_t asks = run_cancelled_at(folder, 1);
  EXPECT_EQ(asks, 1) << "asked first of all, before the target is opened";
  EXPECT_EQ(files_in(folder), 1) << "the model alone";
}

TEST(PetOptCancel, StoppedAfterTheWrittenCheckTheStagedModelIsRemoved) {
  std::filesystem::path folder = folder_with_model("cancel-last");
  // Never stopping: the last ask comes after the written model was staged and checked.
  OptRequest request = parse_opt_request(parse_opt_args(
      {(folder / "model.onnx").string(), "--target", "h100", "--mutation-rounds", "1", "--beam", "2"}));
  std::atomic<int64_t> asked{0};
  request.optimize.hooks.cancelled = [&asked] { return ++asked < 0; };
  std::ostringstream out, err;
  ASSERT_EQ(run_opt_request(request, out, err), 0) << err.str();
  EXPECT_EQ(files_in(folder), 3) << "the model, the written model and its report";
  std::filesystem::remove(folder / "model.opt.onnx");
  std::filesystem::remove(folder / "model.opt.json");
  run_cancelled_at(folder, asked.load());
  EXPECT_EQ(files_in(folder), 1) << "the model alone: the staged file was removed as the run unwound";
}

TEST(PetOptCancel, TheToolsGuardSaysCancelledAndExits130) {
  std::ostringstream err;
  EXPECT_EQ(run_guarded("pet-opt", err, []() -> int { throw Cancelled(); }), 130);
  EXPECT_EQ(err.str(), "pet-opt: cancelled; nothing was written\n");
}

}  // namespace
}  // namespace pet::testing
