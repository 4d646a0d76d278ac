// The openvino-cpu measured target: OpenVINO's CPU plugin, driven through its C++ API.
#pragma once

#include <memory>

#include "kernels/runtime/runtime.h"

namespace pet::runtime {

// Opens OpenVINO's CPU runtime with pet's extension library `extension` loaded (empty: none), so
// it runs pet's fused correction op as one kernel. UserError when pet was built without OpenVINO's
// C++ runtime, or when the extension cannot be loaded.
std::unique_ptr<Runtime> open_openvino_runtime(const std::string& extension = default_openvino_extension());

}  // namespace pet::runtime
