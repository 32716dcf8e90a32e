// Calibration: the float graph is built once more with every FLOAT_32
// activation exposed as a graph output (APP_READ), run on each calibration
// input in a context of its own, and a range recorded per tensor:
//
//  * min-max (default): the min and max over all calibration values;
//  * percentile: the (100 - p)-th and p-th percentiles of the values
//    (--percentile_calibration_value p, default 99.99);
//  * mse: the clipping range [lo, hi] minimising the expected quantization
//    error (rounding noise scale^2 / 12 inside, (v - edge)^2 outside) for the
//    activation bitwidth.
//
// percentile and mse run the inputs twice: once for each tensor's min/max,
// then into a histogram of kHistogramBins bins over that range per tensor
// (memory bounded: bins x tensors, whatever the number of inputs).
// Non-finite values (±inf, nan) never enter a range or a histogram; a tensor
// that had ±inf is flagged in its TensorRange (quantization saturates them).
#pragma once

#include <map>
#include <string>
#include <vector>

#include "QnnInterface.h"
#include "onnx/progress.h"
#include "onnx/qnn_graph.h"
#include "onnx/quantization.h"

namespace openhtp::onnx_import {

enum class CalibrationMethod { kMinMax, kPercentile, kMse };

struct CalibrationOptions {
  CalibrationMethod method = CalibrationMethod::kMinMax;
  double percentile = 99.99;  // percentile: in (50, 100]
  int bitwidth = 8;           // mse: activation bits the range is chosen for
};

// "min-max", "percentile", "mse" (false for anything else).
bool parse_calibration_method(const std::string& name, CalibrationMethod* out);

constexpr size_t kHistogramBins = 2048;

// Counts of finite values in `bins` equal bins over [lo, hi].
struct Histogram {
  double lo = 0.0, hi = 0.0;
  std::vector<double> counts;
  void add(const float* v, size_t n);  // values outside [lo, hi] go to the end bins
};

// Range of the values a histogram holds, by method (lo <= hi; the
// encoding widens it to contain 0 later).
TensorRange percentile_range(const Histogram& h, double percentile);
TensorRange mse_range(const Histogram& h, int bitwidth);

// `samples[k][i]`: bytes of graph input i for inference k (float32, the
// graph input's QNN dims).
bool calibrate(const QNN_INTERFACE_VER_TYPE& api, Qnn_BackendHandle_t backend, const QnnGraphDesc& float_graph,
               const std::vector<std::vector<std::vector<uint8_t>>>& samples,
               std::map<std::string, TensorRange>* ranges, std::string* error, const ProgressFn& progress = {},
               const CalibrationOptions& options = {});

}  // namespace openhtp::onnx_import
