#include "options.h"

#include <sstream>

#include "common/command_line.h"

namespace openhtp::onnx_converter {

namespace {

const std::set<std::string> kFlags = {"--use_per_channel_quantization", "--keep_quant_nodes",
                                      "--disable_batchnorm_folding", "--weight_sharing_enabled"};
const std::set<std::string> kPairs = {"--input_layout", "--input_dim"};

bool parse_int(const std::string& s, int* out) {
  try {
    size_t used = 0;
    *out = std::stoi(s, &used);
    return used == s.size();
  } catch (...) {
    return false;
  }
}

}  // namespace

bool parse_options(int argc, char** argv, Options* out, std::string* error) {
  // The shared scanner knows "--opt value"; rewrite the real tool's short
  // names, value-less flags and two-value options into that form first.
  std::vector<std::string> args = {argv[0]};
  for (int i = 1; i < argc; ++i) {
    std::string a = argv[i];
    if (a == "-i") a = "--input_network";
    if (a == "-o") a = "--output_path";
    if (a == "-d") a = "--input_dim";
    if (a == "--preserve_io") {
      // QNN's form: --preserve_io [layout|datatype] [names...], the values
      // running to the next option.
      std::string joined;
      while (i + 1 < argc && argv[i + 1][0] != '-') joined += std::string(joined.empty() ? "" : "\t") + argv[++i];
      args.push_back(a + "=" + (joined.empty() ? std::string("layout\tdatatype") : joined));
      continue;
    }
    if (kFlags.count(a) != 0) {
      args.push_back(a + "=1");
    } else if (kPairs.count(a) != 0) {
      if (i + 2 >= argc) {
        *error = "option '" + a + "' needs two values (NAME VALUE)";
        return false;
      }
      args.push_back(a + "=" + argv[i + 1] + "\t" + argv[i + 2]);
      i += 2;
    } else {
      args.push_back(a);
    }
  }
  std::vector<char*> av;
  for (auto& s : args) av.push_back(s.data());
  openhtp::tools::CommandLine cl;
  std::set<std::string> value_options = {"--input_network", "--output_path", "--input_list", "--act_bitwidth", "--num_hvx_threads",
                                         "--weights_bitwidth", "--bias_bitwidth", "--preserve_io",
                                         "--act_quantizer_calibration", "--percentile_calibration_value",
                                         "--quantization_overrides"};
  value_options.insert(kFlags.begin(), kFlags.end());
  value_options.insert(kPairs.begin(), kPairs.end());
  if (!openhtp::tools::scan_command_line(static_cast<int>(av.size()), av.data(), value_options, &cl, error)) {
    return false;
  }
  out->help = cl.help;
  out->version = cl.version;
  for (const auto& [opt, value] : cl.values) {
    if (opt == "--input_network") out->input_networks.push_back(value);
    else if (opt == "--output_path") out->output_path = value;
    else if (opt == "--input_list") out->input_lists.push_back(value);
    else if (opt == "--weight_sharing_enabled") out->weight_sharing = true;
    else if (opt == "--preserve_io") {
      std::stringstream ss(value);
      std::string word, mode;
      while (std::getline(ss, word, '\t')) {
        if (word == "layout" || word == "datatype") {
          mode = word;
          if (word == "datatype") out->preserve_io_datatype = true;
        } else if (mode == "datatype") {
          out->preserve_io_names.insert(word);
        } else if (mode.empty()) {
          *error = "--preserve_io " + word + ": expected 'layout' or 'datatype' first";
          return false;
        }  // names after 'layout': graph I/O keep the ONNX layout anyway
      }
    }
    else if (opt == "--use_per_channel_quantization") out->per_channel = true;
    else if (opt == "--act_quantizer_calibration") {
      if (value != "min-max" && value != "minmax" && value != "percentile" && value != "mse") {
        *error = "unsupported --act_quantizer_calibration '" + value + "' (min-max, percentile or mse)";
        return false;
      }
      out->act_calibration = value == "minmax" ? "min-max" : value;
    } else if (opt == "--percentile_calibration_value") {
      double v = 0.0;
      size_t used = 0;
      try {
        v = std::stod(value, &used);
      } catch (...) {
        used = 0;
      }
      if (used == 0 || used != value.size() || !(v > 50.0 && v <= 100.0)) {
        *error = "invalid --percentile_calibration_value '" + value + "' (expected a number in (50, 100])";
        return false;
      }
      out->percentile_value = v;
    }
    else if (opt == "--keep_quant_nodes") out->keep_quant_nodes = true;
    else if (opt == "--quantization_overrides") out->quantization_overrides = value;
    else if (opt == "--disable_batchnorm_folding") out->disable_batchnorm_folding = true;
    else if (opt == "--num_hvx_threads") {
      int v = 0;
      if (!parse_int(value, &v) || v < 1 || v > 64) {
        *error = "invalid --num_hvx_threads '" + value + "' (expected 1 to 64)";
        return false;
      }
      out->num_hvx_threads = v;
    } else if (opt == "--act_bitwidth" || opt == "--weights_bitwidth" || opt == "--bias_bitwidth") {
      int v = 0;
      if (!parse_int(value, &v)) {
        *error = "invalid " + opt + " '" + value + "' (expected a number)";
        return false;
      }
      const bool ok = opt == "--act_bitwidth" ? (v == 8 || v == 16) : opt == "--weights_bitwidth" ? v == 8 : v == 32;
      if (!ok) {
        *error = "unsupported " + opt + " " + value +
                 (opt == "--act_bitwidth" ? " (8 or 16)" : opt == "--weights_bitwidth" ? " (8)" : " (32)");
        return false;
      }
      (opt == "--act_bitwidth" ? out->act_bitwidth : opt == "--weights_bitwidth" ? out->weights_bitwidth
                                                                                  : out->bias_bitwidth) = v;
    } else if (opt == "--input_layout" || opt == "--input_dim") {
      const size_t tab = value.find('\t');
      const std::string name = value.substr(0, tab), arg = value.substr(tab + 1);
      if (opt == "--input_layout") {
        if (arg == "NHWC") out->nhwc_inputs.insert(name);
        else if (arg != "NCHW") {
          *error = "--input_layout " + name + ": layout '" + arg + "' is not supported (NCHW or NHWC)";
          return false;
        }
      } else {
        std::vector<int64_t> dims;
        std::stringstream ss(arg);
        std::string part;
        while (std::getline(ss, part, ',')) {
          int d = 0;
          if (!parse_int(part, &d) || d <= 0) {
            *error = "--input_dim " + name + ": '" + arg + "' is not a comma-separated list of positive sizes";
            return false;
          }
          dims.push_back(d);
        }
        out->input_dims[name] = dims;
      }
    }
  }
  if (out->help || out->version) return true;
  if (out->input_networks.empty()) {
    *error = "missing required option --input_network (-i)";
    return false;
  }
  if (!out->quantization_overrides.empty() && out->input_lists.empty()) {
    *error = "--quantization_overrides needs --input_list: the overrides adjust a calibrated quantization";
    return false;
  }
  if (out->input_lists.size() > 1 && out->input_lists.size() != out->input_networks.size()) {
    *error = std::to_string(out->input_lists.size()) + " --input_list options for " +
             std::to_string(out->input_networks.size()) + " models (give one for all, or one per -i in order)";
    return false;
  }
  return true;
}

const char* usage_text() {
  return "usage: qnn-onnx-converter -i <model.onnx> [-i <model2.onnx> ...] [-o <out.bin>] [options]\n"
         "\n"
         "Converts an ONNX model into a QNN graph in openhtp's HTP backend and writes\n"
         "the finalized context binary (contextGetBinary) -- not the .cpp/.bin model\n"
         "sources the Qualcomm tool writes. Load it with contextCreateFromBinary or\n"
         "qnn-net-run --retrieve_context.\n"
         "\n"
         "  -i, --input_network <file>       ONNX model (required); repeat it to put several\n"
         "                                   graphs in one context (names: the ONNX graph names)\n"
         "  -o, --output_path <file>         context binary (default: <first model>.bin)\n"
         "  --weight_sharing_enabled         the context's graphs hold identical weights once\n"
         "                                   (QNN_HTP_CONTEXT_CONFIG_OPTION_WEIGHT_SHARING_ENABLED)\n"
         "  -d, --input_dim <name> <d0,d1..> fix a graph input's shape\n"
         "  --input_layout <name> NHWC|NCHW  the input is given channel-last (no Transpose)\n"
         "  --disable_batchnorm_folding      keep BatchNormalization as its own op\n"
         "  --num_hvx_threads <n>            (openhtp) threads the graph's kernels use, kept in\n"
         "                                   the binary as the NUM_HVX_THREADS graph config\n"
         "Quantization (on when --input_list is given):\n"
         "  --input_list <file>              calibration inputs, qnn-net-run format: one\n"
         "                                   line per inference, raw float32 files,\n"
         "                                   name:=path pairs or paths in input order;\n"
         "                                   one per -i (in order) when there are several\n"
         "  --act_bitwidth 8|16              activation bits (default 8)\n"
         "  --weights_bitwidth 8             weight bits (default 8)\n"
         "  --bias_bitwidth 32               bias bits (default 32)\n"
         "  --use_per_channel_quantization   per-output-channel weight encodings (Conv, FC, and\n"
         "                                   MatMul's constant operand: one per output column)\n"
         "  --act_quantizer_calibration min-max|percentile|mse\n"
         "                                   activation ranges from the calibration values:\n"
         "                                   min-max (default) their min and max; percentile\n"
         "                                   the (100-p)th..p-th percentiles; mse the clipping\n"
         "                                   range of least expected quantization error\n"
         "                                   (histogram per tensor, inputs run twice)\n"
         "  --percentile_calibration_value <p>\n"
         "                                   p for percentile, in (50, 100] (default 99.99)\n"
         "  --quantization_overrides <json>  per-activation bit width (8|16) and optionally\n"
         "                                   range, AIMET's encodings format\n"
         "                                   (\"activation_encodings\"): mixed precision, e.g.\n"
         "                                   a transformer's LayerNorm inputs at 16 bits in\n"
         "                                   an 8-bit graph; every name must be an activation\n"
         "                                   of the converted graph\n"
         "  --preserve_io [layout|datatype] [names..]\n"
         "                                   datatype: the named graph inputs/outputs (all\n"
         "                                   when none are named) stay float32, with a\n"
         "                                   Quantize/Dequantize inside the graph; layout:\n"
         "                                   always the case here (I/O keep the ONNX layout)\n"
         "  --keep_quant_nodes               keep QuantizeLinear/DequantizeLinear as ops\n"
         "                                   instead of folding QDQ pairs into encodings\n"
         "  --version, --help\n"
         "\n"
         "Quantized graphs have quantized inputs and outputs (UFIXED_POINT_8/16), like\n"
         "the Qualcomm converter's. Exit status: 0 on success, 1 on any error.\n";
}

}  // namespace openhtp::onnx_converter
