// pet-profile as a library function, so tests can run it without a process.
#pragma once

#include <ostream>
#include <string>
#include <vector>

namespace pet {

inline constexpr const char* kPetProfileHelp = R"(usage: pet-profile --device NAME --out DB.json model.onnx [more.onnx ...]

Measures the distinct convolutions, matmuls/gemms, layout and elementwise ops of the models on
this machine's GPU (cuDNN, cuBLAS with TF32, own kernels; CUDA events, warm-up, median of runs)
and merges them into a profile DB that the cost model prefers over its analytic estimates.

options:
  --device NAME|FILE       the device the entries are recorded for: h100, a100, v100 or a spec
                           file; it must be the GPU this runs on
  --out FILE               profile DB to update (created when absent), e.g.
                           search/cost/profile-db.json
  --runs N                 timed runs per op, the median is kept (default 30)
  --warmup N               untimed runs first (default 5)
  --input-shape NAME=DIMS  static shape for an input with symbolic dims
  -h, --help               this text
)";

// Exit status: 0 ok, 1 internal error, 2 user error (including: no GPU here).
int pet_profile_main(const std::vector<std::string>& args, std::ostream& out, std::ostream& err);

}  // namespace pet
