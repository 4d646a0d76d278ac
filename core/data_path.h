// Where pet finds the files it reads at run time (the ONNX Runtime worker, the rule library, the
// repository's profile DB): under $PET_DATA_DIR when set (an installed package's data folder, which
// the Python package sets), else under the source tree pet was built from.
#pragma once

#include <string>

namespace pet {

// `relative` (a path inside the repository, e.g. "mutant/rules") under the data folder.
std::string data_path(const std::string& relative);

}  // namespace pet
