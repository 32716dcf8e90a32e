// QNN enum values as their header names ("QNN_DATATYPE_FLOAT_32"), the way
// QNN's tools print them. Unknown values print as their number in hex, so a
// binary from a newer backend still dumps.
#pragma once

#include <string>

#include "QnnTypes.h"

namespace openhtp::tools {

std::string data_type_name(Qnn_DataType_t v);
std::string tensor_type_name(Qnn_TensorType_t v);
std::string definition_name(Qnn_Definition_t v);
std::string quantization_encoding_name(Qnn_QuantizationEncoding_t v);
std::string mem_type_name(Qnn_TensorMemType_t v);

}  // namespace openhtp::tools
