// An axpy kernel that proves a device can run pet's own CUDA code end to end.
#pragma once

#include <span>
#include <vector>

#include "kernels/cuda_status.h"

namespace pet {

struct AxpyResult {
  CudaStatus status;
  std::vector<float> y;  // a*x + y as computed on the device; empty unless status.ok()
};

// Copies x and y to `device`, launches y = a*x + y there and copies y back. With no device the
// status is no_device and names the first CUDA call that found out. x and y must be equally long;
// empty inputs touch no device.
AxpyResult run_axpy(int device, float a, std::span<const float> x, std::span<const float> y);

// Runs run_axpy on fixed inputs whose results are exact in float and compares every element.
CudaStatus self_test_device(int device);

}  // namespace pet
