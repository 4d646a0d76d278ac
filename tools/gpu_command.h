// pet-gpu as a library function: pet's CUDA side on this machine's GPU, callable without a process.
#pragma once

#include <istream>
#include <ostream>
#include <optional>
#include <string>
#include <vector>

namespace pet {

inline constexpr const char* kPetGpuHelp = R"(usage: pet-gpu COMMAND [options]

pet's CUDA side on this machine's GPU. On a machine without one, devices, ceilings, check, time
and serve say "no CUDA device" and exit 0 (check, time and serve refuse a model the executor
cannot run first; serve reads nothing), worker answers every request so; measure says so and
exits 2, as it would write no timing; reference and plan need no GPU.

commands:
  devices                the CUDA devices; the CUDA runtime, driver, cuDNN, cuBLAS and NVRTC
                         versions this process loaded, with the path of each library; the axpy
                         self-test on each device
  ceilings [options]     one device's measured ceilings: device-to-device copy bandwidth and
                         cuBLAS GEMM rates in TF32 and BF16 on random matrices (CUDA events,
                         warm-up, median and quartiles of the runs); clocks are read, never set
  reference MODEL --out DIR [--seed N] [--weight-free]
                         seeded random inputs (never zeros) and the outputs pet's CPU executor
                         computes from them, written to DIR as input_<i>.pb and output_<i>.pb;
                         needs no GPU (MODEL: .onnx, or textual IR .pet/.ir); --weight-free
                         regenerates every large weight as seeded noise of its own scale and
                         writes that model as DIR/model.pet, a few KiB that travel to a GPU
                         machine, where check reads it back bit for bit
  plan MODEL             the steps pet-gpu would run MODEL as, decided without a GPU: per step
                         its backend (a cuDNN convolution, a cuBLASLt GEMM with its shapes, or
                         a generated kernel with its launch), then counts; needs no GPU
  check MODEL [options]  runs MODEL with pet's CUDA executor (a CUDA-graph replay and an eager
                         run) and compares every output with the references: relative L2 error,
                         passing at 1e-4 in strict FP32
  time MODEL [options]   the forward pass as CUDA-graph replays, timed with CUDA events after
                         warm-up: median and quartiles
  serve MODEL [options]  loads MODEL once, then answers one line per line read from standard
                         input: "time RUNS WARMUP" gives the time command's end-to-end line (CUDA-
                         graph replays of the same seeded inputs), "quit" or the end of the input
                         ends it; prints "ready: ..." once loaded (--strict | --tf32, --seed N,
                         --device N, --conv-cache FILE, --conv-engines N, --conv-columns P,
                         --gemm-splits N as for time)
  measure FILE --out RESULTS [--deadline S] [--skip-timed RESULTS]
                         times the requests of a misses file (pet-opt --export-misses) as
                         pet-opt's measured path would: each request's models loaded from
                         FILE.models/, interleaved round by round as CUDA-graph replays between
                         CUDA events, after its warm-ups, per step where it asks; one result line
                         per request, flushed as it goes; no request starts after S seconds
                         (default 60); import RESULTS with pet-profile --import
  worker                 pet-opt --live's runtime on this machine's GPU: one JSON request per line
                         on standard input (time models interleaved, run one model), one JSON
                         reply per line on standard output (kernels/runtime/json_worker.h); the
                         models are loaded in one device session (--strict | --tf32, default
                         --tf32; --device N, --conv-cache FILE, --conv-engines N, --conv-columns
                         P, --gemm-splits N as for time);
                         with $PET_GPU_LOCK naming a file, each request's loads, runs and
                         timings hold an exclusive lock on it (reading and preparing its
                         models do not), so several workers on one GPU time one at a time;
                         $PET_GPU_CONV_CACHE is its --conv-cache when none is given;
                         without a device every request is answered "no CUDA device"

ceilings options:
  --device N             the device (default 0)
  --gemm-size N          M = N = K of both GEMMs (default 8192)
  --copy-mib N           the copied buffer in MiB (default 1024)
  --runs N               timed runs of each (default 10)
  --warmup N             untimed runs first (default 3)

check options:
  --reference DIR        inputs and outputs written by pet-gpu reference (default: random inputs
                         from --seed, outputs from pet's CPU executor on this machine)
  --strict | --tf32      FP32 math: cuDNN FMA kernels, CUBLAS_COMPUTE_32F (the default); or TF32
                         tensor cores, passing at 1e-2
  --tolerance X          pass at relative L2 <= X instead
  --seed N               the random inputs' seed (default 2026)
  --steps                also print what runs each step (algorithm, kernel, launch)
  --device N             the device (default 0)
  --conv-cache FILE      in TF32, each convolution's choice between cuDNN's legacy API and its
                         graph API's plans (timed at load) read from FILE where an earlier load
                         made it, and appended to FILE where this load makes it
  --conv-engines N       in TF32, how many of cuDNN's graph-API plans each convolution times
                         against the legacy API's choice (default 8; 0: the legacy API alone)
  --conv-columns P       the column path (im2col and one cuBLASLt GEMM) of the convolutions with
                         small outputs or pads that differ at the two ends: timed against
                         cuDNN's choice at load (the default), always, or off
  --gemm-splits N        how many of cuBLASLt's first heuristic algorithms each GEMM (the column
                         path's included) also times with K split 2, 4, 8 and 16 ways at load
                         (default 2; 0: none split)

measure options:
  --strict | --tf32      the math (default: --tf32, as the h100 and h200 targets are timed)
  --device N             the device (default 0)
  --skip-timed RESULTS   leaves out the requests an earlier run timed (its results file, on the
                         same misses file, card and libraries); repeatable
  --conv-cache FILE, --conv-engines N, --conv-columns P, --gemm-splits N
                         as for check

time options:
  --strict | --tf32      the math (default: --tf32)
  --runs N               timed replays (default 100)
  --warmup N             untimed replays first (default 10)
  --per-step             also a profiled eager run: each step's median time under its node names
  --seed N, --device N, --conv-cache FILE, --conv-engines N, --conv-columns P,
  --gemm-splits N        as for check

  -h, --help             this text

Exit status: 0 ok or no device here, 1 a CUDA failure or a failed check, 2 a usage error.
)";

// serve's request "time RUNS WARMUP" (RUNS at least 1, WARMUP at least 0, words separated by
// blanks); nullopt for any other line, which serve answers with an error naming it.
struct ServeTimeRequest {
  int runs = 0, warmup = 0;
};
std::optional<ServeTimeRequest> parse_serve_request(const std::string& line);

// Exit status as in kPetGpuHelp; serve reads its requests from `in` (std::cin without it).
int pet_gpu_main(const std::vector<std::string>& args, std::ostream& out, std::ostream& err);
int pet_gpu_main(const std::vector<std::string>& args, std::istream& in, std::ostream& out, std::ostream& err);

}  // namespace pet
