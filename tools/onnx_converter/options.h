// qnn-onnx-converter's command line, with the real tool's option names.
#pragma once

#include <map>
#include <set>
#include <string>
#include <vector>

namespace openhtp::onnx_converter {

struct Options {
  // -i / --input_network, once per graph: every model becomes one graph of
  // the same context (graph name = the ONNX graph name).
  std::vector<std::string> input_networks;
  std::string output_path;                                // -o / --output_path (context binary)
  // --input_list: quantize. One list for every model, or one per model in -i order.
  std::vector<std::string> input_lists;
  bool weight_sharing = false;                            // --weight_sharing_enabled: WEIGHT_SHARING_ENABLED
  int act_bitwidth = 8;
  int weights_bitwidth = 8;
  int bias_bitwidth = 32;
  int num_hvx_threads = 0;                                // --num_hvx_threads (openhtp): graph config in the binary
  bool per_channel = false;                               // --use_per_channel_quantization
  std::string act_calibration = "min-max";               // --act_quantizer_calibration min-max|percentile|mse
  double percentile_value = 99.99;                        // --percentile_calibration_value
  bool keep_quant_nodes = false;
  std::string quantization_overrides;                     // --quantization_overrides <json> (quantization_overrides.h)
  // --preserve_io [layout|datatype] [names...]: quantized graph I/O stays float
  // (datatype; all I/O when no names follow). Layout is always preserved here.
  bool preserve_io_datatype = false;
  std::set<std::string> preserve_io_names;
  bool disable_batchnorm_folding = false;
  std::set<std::string> nhwc_inputs;                      // --input_layout NAME NHWC
  std::map<std::string, std::vector<int64_t>> input_dims; // -d / --input_dim NAME 1,3,224,224
  bool help = false;
  bool version = false;
};

bool parse_options(int argc, char** argv, Options* out, std::string* error);
const char* usage_text();

}  // namespace openhtp::onnx_converter
