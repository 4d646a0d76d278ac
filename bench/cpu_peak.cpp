// pet_cpu_peak: this CPU's arithmetic peak at N threads (kernels/runtime/cpu_peak.h), the physical
// floor the harness divides a model's FLOPs by (no runtime's kernel can beat it, unlike its sgemm).
//
// Usage: pet_cpu_peak [--threads N] [--rounds R]   prints one JSON object on stdout.
#include <cstdio>
#include <cstdlib>
#include <string>

#include "kernels/runtime/cpu_peak.h"

namespace {

int parse_count(const char* flag, const char* text) {
  char* end = nullptr;
  long value = std::strtol(text, &end, 10);
  if (end == text || *end != '\0' || value < 1 || value > 4096) {
    std::fprintf(stderr, "pet_cpu_peak: %s takes a whole number from 1 to 4096, not '%s'\n", flag, text);
    std::exit(2);
  }
  return static_cast<int>(value);
}

}  // namespace

int main(int argc, char** argv) {
  int threads = 1, rounds = 5;
  for (int i = 1; i < argc; ++i) {
    std::string flag = argv[i];
    if ((flag == "--threads" || flag == "--rounds") && i + 1 < argc) {
      (flag == "--threads" ? threads : rounds) = parse_count(argv[i], argv[i + 1]);
      ++i;
    } else {
      std::fprintf(stderr, "usage: pet_cpu_peak [--threads N] [--rounds R]\n");
      return 2;
    }
  }
  pet::runtime::CpuPeak peak = pet::runtime::measure_cpu_peak(threads, rounds);
  auto number = [](double gflops) { return gflops > 0 ? std::to_string(gflops) : std::string("null"); };
  std::printf("{\"threads\": %d, \"isa\": \"%s\", \"fp32_gflops\": %s, \"bf16_gflops\": %s}\n", threads,
              peak.isa.c_str(), number(peak.fp32_gflops).c_str(), number(peak.bf16_gflops).c_str());
  return 0;
}
