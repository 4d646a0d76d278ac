// The openvino-cpu target when pet was built without OpenVINO: opening it says how to get it.
#include "kernels/runtime/openvino_runtime.h"

#include "core/error.h"

namespace pet::runtime {

std::unique_ptr<Runtime> open_openvino_runtime(const std::string& /*extension*/) {
  throw UserError(
      "target 'openvino-cpu' is unavailable: OpenVINO's C++ runtime was not found when pet was built; "
      "run `bash scripts/install-deps.sh` (it pip-installs the openvino wheel for python3), then "
      "reconfigure and rebuild pet");
}

}  // namespace pet::runtime
