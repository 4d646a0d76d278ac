// pet_write_correction_cases DIR: writes the ONNX lowering test cases (the original, the
// uncorrected mutant and the corrected program of each) for check_corrections_onnxruntime.py.
#include <exception>
#include <filesystem>
#include <iostream>

#include "core/onnx_export.h"
#include "tests/corrector/correction_cases.h"

int main(int argc, char** argv) {
  if (argc != 2) {
    std::cerr << "usage: pet_write_correction_cases DIR\n";
    return 2;
  }
  try {
    std::filesystem::path dir = argv[1];
    std::filesystem::create_directories(dir);
    for (const auto& entry : std::filesystem::directory_iterator(dir))  // no stale cases from older runs
      if (entry.path().extension() == ".onnx") std::filesystem::remove(entry.path());
    for (const auto& c : pet::corrector::correction_cases::onnx_lowering_cases(2026, 4)) {
      pet::export_onnx(c.original, (dir / (c.name + ".original.onnx")).string());
      pet::export_onnx(c.mutant, (dir / (c.name + ".mutant.onnx")).string());
      pet::export_onnx(c.corrected.program, (dir / (c.name + ".corrected.onnx")).string());
      std::cout << c.name << " (" << c.mutant_family << "): " << c.corrected.corrections.size() << " corrections\n";
    }
  } catch (const std::exception& error) {
    std::cerr << "pet_write_correction_cases: " << error.what() << "\n";
    return 1;
  }
  return 0;
}
