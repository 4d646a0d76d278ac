// The ceilings' report as text (host code apart from the .cu: nvcc cannot check fmt's format strings).
#include <fmt/format.h>

#include "kernels/ceilings.h"

namespace pet {

std::string format_ceilings(const CeilingsReport& report) {
  std::string text;
  for (const Ceiling& ceiling : report.ceilings)
    text += fmt::format("{}: {:.1f} {} median (quartiles {:.1f} to {:.1f}, {} runs), {}\n", ceiling.name,
                        ceiling.rate.median, ceiling.unit, ceiling.rate.q1, ceiling.rate.q3, ceiling.rate.runs,
                        ceiling.method);
  if (report.status.outcome == CudaOutcome::no_device) text += "no CUDA device: " + report.status.message + "\n";
  if (report.status.outcome == CudaOutcome::failed) text += "CUDA failure: " + report.status.message + "\n";
  return text;
}

}  // namespace pet
