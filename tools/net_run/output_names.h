// Where qnn-net-run puts outputs (reference §1.4):
//   <output_dir>/Result_<n>/<name>.raw            one graph in the context
//   <output_dir>/<graph>/Result_<n>/<name>.raw    several graphs
// <name> is the tensor name with every character other than [A-Za-z0-9_]
// replaced by '_' and a leading '_' added when it starts with a digit
// ("InceptionV3/Predictions/Reshape_1:0" -> "InceptionV3_Predictions_Reshape_1_0",
// "273" -> "_273"); a tensor without a name is "Output_<k>". Native files
// (--use_native_output_files) are "<name>_native.raw", except float32 outputs,
// which are always "<name>.raw".
#pragma once

#include <string>

namespace openhtp::netrun {

std::string sanitize_tensor_name(const std::string& name);

// The file name (no directory) of output `index` named `name`.
std::string output_file_name(const std::string& name, size_t index, bool native);

}  // namespace openhtp::netrun
