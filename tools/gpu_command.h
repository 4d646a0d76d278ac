// pet-gpu as a library function: pet's CUDA side on this machine's GPU, callable without a process.
#pragma once

#include <ostream>
#include <string>
#include <vector>

namespace pet {

inline constexpr const char* kPetGpuHelp = R"(usage: pet-gpu COMMAND [options]

pet's CUDA side on this machine's GPU. Every command says "no CUDA device" and exits 0 on a
machine without one.

commands:
  devices                the CUDA devices; the CUDA runtime, driver, cuDNN, cuBLAS and NVRTC
                         versions this process loaded, with the path of each library; the axpy
                         self-test on each device
  ceilings [options]     one device's measured ceilings: device-to-device copy bandwidth and
                         cuBLAS GEMM rates in TF32 and BF16 on random matrices (CUDA events,
                         warm-up, median and quartiles of the runs); clocks are read, never set

ceilings options:
  --device N             the device (default 0)
  --gemm-size N          M = N = K of both GEMMs (default 8192)
  --copy-mib N           the copied buffer in MiB (default 1024)
  --runs N               timed runs of each (default 10)
  --warmup N             untimed runs first (default 3)

  -h, --help             this text

Exit status: 0 ok or no device here, 1 a CUDA failure, 2 a usage error.
)";

// Exit status as in kPetGpuHelp.
int pet_gpu_main(const std::vector<std::string>& args, std::ostream& out, std::ostream& err);

}  // namespace pet
