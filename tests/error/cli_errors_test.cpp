// Command-line mistakes: exact messages and exit status 2.
#include <gtest/gtest.h>

#include <sys/resource.h>

#include <csignal>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "core/onnx_tensor.h"
#include "tests/error/onnx_model_builder.h"
#include "tests/error/tool_run.h"
#include "tests/os_conditions.h"
#include "tests/test_temp_dir.h"
#include "tools/commands.h"

namespace pet::testing {
namespace {

std::string small_model() {
  OnnxModelBuilder builder;
  builder.input("x", onnx::TensorProto::FLOAT, {2, 3}).output("y", onnx::TensorProto::FLOAT, {2, 3});
  builder.node("Relu", {"x"}, {"y"}, "relu");
  return builder.save("cli_small.onnx");
}

void expect_user_error(const ToolRun& run, const std::string& message) {
  EXPECT_EQ(run.status, 2);
  EXPECT_EQ(run.err, message + "\n");
}

TEST(CliErrors, OptWithoutModel) {
  expect_user_error(run_opt({}), "pet-opt: error: expected one model file, got 0; see pet-opt --help");
}

TEST(CliErrors, OptUnknownFlag) {
  expect_user_error(run_opt({"--bem", "8", "m.onnx"}), "pet-opt: error: unknown flag '--bem'; see pet-opt --help");
}

TEST(CliErrors, OptFlagWithoutValue) {
  expect_user_error(run_opt({"m.onnx", "--beam"}), "pet-opt: error: --beam needs a value; see pet-opt --help");
}

TEST(CliErrors, OptBeamOutOfRange) {
  expect_user_error(run_opt({"--beam", "0", small_model()}), "pet-opt: error: --beam '0' must be an integer from 1 to 1024");
}

TEST(CliErrors, OptUnknownMode) {
  expect_user_error(run_opt({"--mode", "fast", small_model()}),
                    "pet-opt: error: --mode 'fast' is not one of none, taso, pet, pet-eq-only, pet-neq-only");
}

TEST(CliErrors, OptUnknownTasoSearch) {
  expect_user_error(run_opt({"--taso-search", "greedy", small_model()}),
                    "pet-opt: error: --taso-search 'greedy' is not one of beam, alpha");
}

TEST(CliErrors, OptAlphaBelowOne) {
  expect_user_error(run_opt({"--alpha", "0.9", small_model()}), "pet-opt: error: --alpha 0.9 must be at least 1.0");
}

TEST(CliErrors, OptAlphaNotANumber) {
  expect_user_error(run_opt({"--alpha", "fast", small_model()}), "pet-opt: error: --alpha 'fast' must be a number");
}

TEST(CliErrors, OptTimeLimitNotPositive) {
  expect_user_error(run_opt({"--time-limit", "0", small_model()}),
                    "pet-opt: error: --time-limit 0 must be a positive number of seconds");
}

// ---- pet-opt never overwrites its input, under any spelling ----

namespace fs = std::filesystem;

std::string file_bytes(const fs::path& path) {
  std::ifstream file(path, std::ios::binary);
  return std::string((std::istreambuf_iterator<char>(file)), std::istreambuf_iterator<char>());
}

// A fresh folder holding a copy of the small model as m.onnx.
fs::path folder_with_model(const std::string& name) {
  fs::path folder = fs::path(temp_file("cli_paths")) / name;
  fs::remove_all(folder);
  fs::create_directories(folder);
  fs::copy_file(small_model(), folder / "m.onnx");
  return folder;
}

// y = x + w, with the 4 floats of w kept in the external file `location` (serialized model bytes).
std::string external_weight_model(const std::string& location) {
  OnnxModelBuilder builder;
  builder.input("x", onnx::TensorProto::FLOAT, {4}).output("y", onnx::TensorProto::FLOAT, {4});
  onnx::TensorProto* weight = builder.model().mutable_graph()->add_initializer();
  weight->set_name("w");
  weight->set_data_type(onnx::TensorProto::FLOAT);
  weight->add_dims(4);
  weight->set_data_location(onnx::TensorProto::EXTERNAL);
  auto* entry = weight->add_external_data();
  entry->set_key("location");
  entry->set_value(location);
  builder.node("Add", {"x", "w"}, {"y"}, "add");
  return builder.model().SerializeAsString();
}

std::string overwrite_error(const std::string& role, const std::string& path, const std::string& model) {
  return "pet-opt: error: " + role + " '" + path + "' is the same file as the input model '" + model +
         "'; writing it would overwrite an input: choose another path";
}

TEST(CliErrors, OptRefusesEverySpellingOfItsInputAsOutput) {
  fs::path folder = folder_with_model("spellings");
  std::string model = (folder / "m.onnx").string();
  std::string before = file_bytes(model);
  fs::create_symlink(model, folder / "soft.onnx");
  fs::create_hard_link(model, folder / "hard.onnx");
  std::string dir = folder.string(), name = folder.filename().string();
  for (std::string output : {model, dir + "/./m.onnx", dir + "/../" + name + "/m.onnx", dir + "/soft.onnx",
                             dir + "/hard.onnx"})
    expect_user_error(run_opt({model, "--target", "h100", "-o", output}), overwrite_error("the output (-o)", output, model));
  EXPECT_EQ(file_bytes(model), before);
}

TEST(CliErrors, OptRefusesAReportNamingTheInputOrTheOutput) {
  fs::path folder = folder_with_model("report");
  std::string model = (folder / "m.onnx").string();
  std::string before = file_bytes(model);
  std::string output = (folder / "o.onnx").string();
  expect_user_error(run_opt({model, "--target", "h100", "-o", output, "--report", folder.string() + "/./m.onnx"}),
                    overwrite_error("the report (--report)", folder.string() + "/./m.onnx", model));
  expect_user_error(run_opt({model, "--target", "h100", "-o", output, "--report", output}),
                    "pet-opt: error: the output (-o) '" + output + "' and the report (--report) '" + output +
                        "' name the same file; give them different paths");
  EXPECT_EQ(file_bytes(model), before);
  EXPECT_FALSE(fs::exists(output));
}

TEST(CliErrors, OptRefusesToOverwriteItsProfileDb) {
  fs::path folder = folder_with_model("profile_db");
  std::string db = (folder / "db.json").string();
  write_bytes(db, "{\"entries\": []}\n");
  std::string output = folder.string() + "/../" + folder.filename().string() + "/db.json";
  expect_user_error(run_opt({(folder / "m.onnx").string(), "--target", "h100", "--profile-db", db, "-o", output}),
                    "pet-opt: error: the output (-o) '" + output + "' is the same file as the profile DB (--profile-db) '" +
                        db + "'; writing it would overwrite an input: choose another path");
  EXPECT_EQ(file_bytes(db), "{\"entries\": []}\n");
}

TEST(CliErrors, OptRefusesToOverwriteExternalData) {
  fs::path folder = fs::path(temp_file("cli_paths")) / "external";
  fs::remove_all(folder);
  fs::create_directories(folder);
  std::string model = (folder / "m.onnx").string();
  write_bytes(model, external_weight_model("w.bin"));
  write_bytes((folder / "w.bin").string(), std::string(16, '\0'));
  std::string output = folder.string() + "/./w.bin";
  expect_user_error(run_opt({model, "--target", "h100", "-o", output}),
                    "pet-opt: error: the output (-o) '" + output + "' is the same file as the model's external data '" +
                        fs::canonical(folder / "w.bin").string() +
                        "'; writing it would overwrite an input: choose another path");
  EXPECT_EQ(file_bytes(folder / "w.bin"), std::string(16, '\0'));
}

TEST(CliErrors, OptChecksItsOutputFolderBeforeTheSearch) {
  fs::path folder = folder_with_model("bad_folder");
  std::string model = (folder / "m.onnx").string();
  std::string output = (folder / "missing" / "o.onnx").string();
  ToolRun run = run_opt({model, "--target", "h100", "-o", output});
  expect_user_error(run, "pet-opt: error: the output (-o) '" + output + "': its folder '" +
                             (folder / "missing").string() +
                             "' cannot be used (it does not exist); create the folder first or choose an existing one");
  EXPECT_EQ(run.out, "") << "nothing was optimized";
  std::string report = (folder / "missing" / "r.json").string();
  expect_user_error(run_opt({model, "--target", "h100", "-o", (folder / "o.onnx").string(), "--report", report}),
                    "pet-opt: error: the report (--report) '" + report + "': its folder '" +
                        (folder / "missing").string() +
                        "' cannot be used (it does not exist); create the folder first or choose an existing one");
  EXPECT_FALSE(fs::exists(folder / "o.onnx"));
}

TEST(CliErrors, OptFailedWriteIsAUserErrorAndLeavesNothing) {
  fs::path folder = fs::path(temp_file("cli_paths")) / "fsize";
  fs::remove_all(folder);
  fs::create_directories(folder);
  OnnxModelBuilder builder;  // 64 KiB of weights: the model cannot fit under a 16 KiB limit
  builder.input("x", onnx::TensorProto::FLOAT, {16384}).output("y", onnx::TensorProto::FLOAT, {16384});
  builder.float_initializer("w", {16384}, std::vector<float>(16384, 0.5f));
  builder.node("Mul", {"x", "w"}, {"y"}, "mul");
  std::string model = (folder / "m.onnx").string();
  write_bytes(model, builder.model().SerializeAsString());
  std::string output = (folder / "o.onnx").string();
  ToolRun run;
  {
    FileSizeLimit limit(16384);
    run = run_opt({model, "--target", "h100", "--mode", "none", "-o", output});
  }
  expect_user_error(run, "pet-opt: error: cannot write the model '" + output +
                             "': the file would exceed the file size limit; raise the limit (ulimit -f) or write to a "
                             "disk without one");
  std::vector<std::string> files;
  for (const auto& entry : fs::directory_iterator(folder)) files.push_back(entry.path().filename().string());
  EXPECT_EQ(files, std::vector<std::string>{"m.onnx"}) << "no model, no report, no temporary file";
}

// ---- pet-opt never reads (or copies) a byte from outside the model's folder ----

const std::string kSecret = "PET-SECRET-BYTES";

TEST(CliErrors, OptNeverCopiesBytesFromOutsideTheModelFolder) {
  fs::path root = fs::path(temp_file("cli_paths")) / "secret";
  fs::remove_all(root);
  fs::path model_dir = root / "model";
  fs::create_directories(model_dir / "inside");
  fs::create_directories(root / "outside");
  write_bytes((root / "secret.bin").string(), kSecret);
  write_bytes((root / "outside" / "secret.bin").string(), kSecret);
  fs::create_directory_symlink(root / "outside", model_dir / "sub");
  fs::create_symlink(root / "secret.bin", model_dir / "linked.bin");
  for (std::string location : std::vector<std::string>{"../secret.bin", "inside/../../secret.bin", "sub/secret.bin", "linked.bin",
                               (root / "secret.bin").string(), "./inside/../../outside/secret.bin"}) {
    std::string model = (model_dir / "m.onnx").string();
    write_bytes(model, external_weight_model(location));
    ToolRun run = run_opt({model, "--target", "h100", "-o", (model_dir / "o.onnx").string()});
    EXPECT_EQ(run.status, 2) << location;
    EXPECT_NE(run.err.find("initializer 'w' keeps its data at"), std::string::npos) << run.err;
    for (const auto& file : fs::recursive_directory_iterator(model_dir)) {
      if (!file.is_regular_file() || file.is_symlink()) continue;
      EXPECT_EQ(file_bytes(file.path()).find(kSecret), std::string::npos) << file.path() << " after " << location;
    }
    EXPECT_FALSE(fs::exists(model_dir / "o.onnx")) << location;
  }
}

TEST(CliErrors, RunRefusesInputTensorsWithExternalDataOutsideTheirFolder) {
  fs::path root = fs::path(temp_file("cli_paths")) / "run_secret";
  fs::remove_all(root);
  fs::create_directories(root / "inputs");
  write_bytes((root / "secret.bin").string(), std::string(24, 'S'));
  for (std::string location : std::vector<std::string>{"../secret.bin", (root / "secret.bin").string()}) {
    onnx::TensorProto tensor;
    tensor.set_name("x");
    tensor.set_data_type(onnx::TensorProto::FLOAT);
    tensor.add_dims(2);
    tensor.add_dims(3);
    tensor.set_data_location(onnx::TensorProto::EXTERNAL);
    auto* entry = tensor.add_external_data();
    entry->set_key("location");
    entry->set_value(location);
    std::string input = (root / "inputs" / "x.pb").string();
    write_bytes(input, tensor.SerializeAsString());
    ToolRun run = run_run({small_model(), "--input", "x=" + input});
    EXPECT_EQ(run.status, 2) << location;
    EXPECT_EQ(run.err.rfind("pet-run: error: tensor file '" + input + "' keeps its data at ", 0), 0u) << run.err;
    EXPECT_EQ(run.out, "");
  }
}

TEST(CliErrors, RunRefusesTwoOutputsWritingOneFile) {
  OnnxModelBuilder builder;
  builder.input("x", onnx::TensorProto::FLOAT, {2, 3});
  builder.output("a/b", onnx::TensorProto::FLOAT, {2, 3}).output("a_b", onnx::TensorProto::FLOAT, {2, 3});
  builder.node("Relu", {"x"}, {"a/b"}, "relu");
  builder.node("Abs", {"x"}, {"a_b"}, "abs");
  std::string model = builder.save("two_outputs_one_file.onnx");
  fs::path folder = fs::path(temp_file("cli_paths")) / "run_two_outputs";
  fs::remove_all(folder);
  expect_user_error(run_run({model, "--output-dir", folder.string()}),
                    "pet-run: error: outputs 'a/b' and 'a_b' would both be written to 'a_b.pb' under --output-dir; "
                    "rename one of them in the model");
}

TEST(CliErrors, RunRefusesOutputFilesThatOverwriteItsInputs) {
  fs::path folder = fs::path(temp_file("cli_paths")) / "run_overwrite";
  fs::remove_all(folder);
  fs::create_directories(folder);
  std::string input = (folder / "y.pb").string();  // the model's output is named y
  write_tensor_file(input, Tensor::f32({2, 3}, {1, 2, 3, 4, 5, 6}), "x");
  std::string before = file_bytes(input);
  expect_user_error(run_run({small_model(), "--input", "x=" + input, "--output-dir", folder.string()}),
                    "pet-run: error: the file for output 'y' '" + (folder / "y.pb").string() +
                        "' is the same file as the --input file '" + input +
                        "'; writing it would overwrite an input: choose another --output-dir");
  EXPECT_EQ(file_bytes(input), before);
  std::string not_a_folder = small_model();
  expect_user_error(run_run({small_model(), "--output-dir", not_a_folder}),
                    "pet-run: error: --output-dir '" + not_a_folder +
                        "' exists and is not a folder; choose a folder for the outputs");
}

TEST(CliErrors, OptHelpExitsZero) {
  ToolRun run = run_opt({"--help"});
  EXPECT_EQ(run.status, 0);
  EXPECT_NE(run.out.find("usage: pet-opt [options] model.onnx"), std::string::npos);
}

TEST(CliErrors, RunUnknownInputName) {
  std::string tensor = temp_file("cli_input.pb");
  write_tensor_file(tensor, Tensor::f32({2, 3}, {1, 2, 3, 4, 5, 6}), "x");
  expect_user_error(run_run({small_model(), "--input", "nope=" + tensor}),
                    "pet-run: error: --input names 'nope', which is not an input of the model");
}

TEST(CliErrors, RunInputOfTheWrongShape) {
  std::string tensor = temp_file("cli_wrong_shape.pb");
  write_tensor_file(tensor, Tensor::f32({3}, {1, 2, 3}), "x");
  expect_user_error(run_run({small_model(), "--input", "x=" + tensor}),
                    "pet-run: error: input 'x' must be f32[2,3], got f32[3]; pass a tensor of that type and shape");
}

TEST(CliErrors, RunRepeatNotANumber) {
  expect_user_error(run_run({small_model(), "--repeat", "many"}),
                    "pet-run: error: --repeat 'many' must be an integer from 1 to 100000");
}

TEST(CliErrors, RunInputWithoutFile) {
  expect_user_error(run_run({small_model(), "--input", "x"}), "pet-run: error: --input 'x' is not NAME=FILE.pb");
}

// A textual IR model (pet-opt reads a *.pet or *.ir file as IR) in the private temp folder.
std::string ir_model(const std::string& name, const std::string& text) {
  std::string path = (private_temp_dir() / name).string();
  std::ofstream(path) << text;
  return path;
}

const char* kReluIr = "graph \"g\" opset 13 {\n  input %x : f32[2,3]\n  %y = Relu(%x) : f32[2,3]\n  output %y\n}\n";

TEST(CliErrors, OptUnknownPassNamesTheValidOnes) {
  expect_user_error(run_opt({"--passes", "fold-batchnorm,fold-bn", ir_model("passes.pet", kReluIr)}),
                    "pet-opt: error: --passes: 'fold-bn' is not a pass; the passes are cleanup, finalize, "
                    "remove-identities, fold-batchnorm, eliminate-dead-nodes, fold-weights, "
                    "eliminate-common-subexpressions, sink-layouts, eliminate-layout-chains, fuse-conv-bias, "
                    "fuse-corrections, sink-layouts-below-corrections, fuse-activations");
}

TEST(CliErrors, OptPassListWithAnEmptyEntry) {
  expect_user_error(run_opt({"--passes", "cleanup,", ir_model("passes.pet", kReluIr)}),
                    "pet-opt: error: --passes 'cleanup,' has an empty entry; separate pass names with single commas");
}

TEST(CliErrors, OptTextualIrThatDoesNotParseNamesTheFileAndLine) {
  std::string path = ir_model("broken.pet", "graph \"g\" opset 13 {\n  input %x : f32[2,3]\n  %y = Relu(%z) : f32[2,3]\n}\n");
  expect_user_error(run_opt({"--passes", "cleanup", path}),
                    "pet-opt: error: " + path + ": IR line 3: expected a defined value, found 'z'");
}

TEST(CliErrors, OptInputShapeForTextualIr) {
  std::string path = ir_model("shaped.ir", kReluIr);
  expect_user_error(run_opt({"--input-shape", "x=4x3", path}),
                    "pet-opt: error: --input-shape: '" + path +
                        "' is textual IR, whose inputs have static shapes already; drop the flag or edit the "
                        "input's type in the file");
}

}  // namespace
}  // namespace pet::testing
