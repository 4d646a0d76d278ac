// The seam-correction cases of the corrector's overhead target: ResNet-18's 3×3 convolutions and
// CSRNet's dilated back end, at batch 1 and 16, each as the standalone conv the search mutates.
#pragma once

#include <string>
#include <vector>

#include "core/graph.h"
#include "search/cost/cost_model.h"

namespace pet::search {

struct SeamCase {
  std::string name;  // "resnet18 conv 64x56x56 b1"
  int64_t batch, in_channels, out_channels, size, dilation;
};

std::vector<SeamCase> resnet18_and_csrnet_seam_cases();

// Conv(x, w, b) with the case's shape; inputs x, w, b (w and b are weights).
Graph seam_case_program(const SeamCase& seam);

struct SeamOverhead {
  std::string family;      // the partial mutant's templates
  double original_us = 0;  // the case's conv as the model has it
  double mutant_us = 0;
  double corrected_us = 0;
  double ratio = 0;        // (corrected - mutant) / mutant under the cost model
  int corrections = 0;
  std::string lowerings;   // how the fused corrections are written for the target
  std::string corrected_us_by_lowering;  // CorrectionOverhead's, where the target picks a lowering
  // The same two in ResNet's context: followed by the residual Add and the ReLU, which the original
  // conv fuses into its epilogue and the corrected mutant runs after its correction (0: not priced).
  double original_in_context_us = 0;
  double corrected_in_context_us = 0;
};

// The program followed by a residual `Add` of a fresh input `residual` and a `Relu`, as ResNet's
// basic block ends (the seam cases' convs with 64 to 512 channels are its second convs).
Graph with_residual_epilogue(const Graph& program);

// Every partial mutant of the case the generator finds (default options), corrected, fused and
// priced; sorted by corrected cost (the one the search would take first). The first, and only the
// first, is also priced in context (with_residual_epilogue).
std::vector<SeamOverhead> seam_overheads(const SeamCase& seam, const cost::CostModel& cost);

}  // namespace pet::search
