// libFuzzer target: arbitrary bytes as a model file in a private temp folder, imported by import_onnx.
//
// A UserError is the expected answer to a bad model; any other exception (an internal check, a
// std::bad_alloc, a parse error that escapes), a crash, a leak or undefined behaviour is a finding.
#include <unistd.h>

#include <cstdint>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>

#include "core/error.h"
#include "core/onnx_import.h"

namespace {

// One folder per fuzzer process, made once: the model is the only file in it, so an external-data
// location can resolve to nothing else the fuzzer wrote.
const std::string& model_path() {
  static const std::string path = [] {
    std::string folder = (std::filesystem::temp_directory_path() / "pet-fuzz-onnx-XXXXXX").string();
    if (mkdtemp(folder.data()) == nullptr) std::abort();
    return folder + "/model.onnx";
  }();
  return path;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  {
    std::ofstream file(model_path(), std::ios::binary | std::ios::trunc);
    file.write(reinterpret_cast<const char*>(data), static_cast<std::streamsize>(size));
    if (!file) std::abort();
  }
  try {
    pet::Graph graph = pet::import_onnx(model_path());
    graph.validate();
  } catch (const pet::UserError&) {
    // The documented answer to a bad model.
  }
  return 0;
}
