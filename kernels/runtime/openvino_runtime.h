// The openvino-cpu measured target: OpenVINO's CPU plugin, driven through its C++ API.
#pragma once

#include <memory>

#include "kernels/runtime/runtime.h"

namespace pet::runtime {

// Opens OpenVINO's CPU runtime. UserError when pet was built without OpenVINO's C++ runtime.
std::unique_ptr<Runtime> open_openvino_runtime();

}  // namespace pet::runtime
