#include "onnx/calibration.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <functional>

#include "onnx/graph_submit.h"

namespace openhtp::onnx_import {

bool parse_calibration_method(const std::string& name, CalibrationMethod* out) {
  if (name == "min-max" || name == "minmax") *out = CalibrationMethod::kMinMax;
  else if (name == "percentile") *out = CalibrationMethod::kPercentile;
  else if (name == "mse") *out = CalibrationMethod::kMse;
  else return false;
  return true;
}

void Histogram::add(const float* v, size_t n) {
  if (counts.empty()) counts.assign(kHistogramBins, 0.0);
  const size_t bins = counts.size();
  const double width = (hi - lo) / static_cast<double>(bins);
  for (size_t i = 0; i < n; ++i) {
    if (!std::isfinite(v[i])) continue;
    double b = width > 0.0 ? std::floor((static_cast<double>(v[i]) - lo) / width) : 0.0;
    b = std::clamp(b, 0.0, static_cast<double>(bins - 1));
    counts[static_cast<size_t>(b)] += 1.0;
  }
}

namespace {

double total_of(const Histogram& h) {
  double t = 0.0;
  for (double c : h.counts) t += c;
  return t;
}

// The value below which `target` of the counts lie (linear within a bin).
double quantile_value(const Histogram& h, double target) {
  const size_t bins = h.counts.size();
  const double width = (h.hi - h.lo) / static_cast<double>(bins);
  double cum = 0.0;
  for (size_t i = 0; i < bins; ++i) {
    const double c = h.counts[i];
    if (c > 0.0 && cum + c >= target) {
      const double frac = std::clamp((target - cum) / c, 0.0, 1.0);
      return std::clamp(h.lo + (static_cast<double>(i) + frac) * width, h.lo, h.hi);
    }
    cum += c;
  }
  return h.hi;
}

// Expected squared quantization error of the histogram's values under the
// encoding asymmetric_encoding(lo, hi, bitwidth) would give.
double expected_error(const Histogram& h, double lo, double hi, int bitwidth) {
  const Encoding e = asymmetric_encoding(static_cast<float>(lo), static_cast<float>(hi), bitwidth);
  const double scale = e.scale;
  const double steps = std::pow(2.0, bitwidth) - 1.0;
  const double edge_lo = static_cast<double>(e.offset) * scale;
  const double edge_hi = (steps + e.offset) * scale;
  const double rounding = scale * scale / 12.0;
  const size_t bins = h.counts.size();
  const double width = (h.hi - h.lo) / static_cast<double>(bins);
  double err = 0.0;
  for (size_t i = 0; i < bins; ++i) {
    const double c = h.counts[i];
    if (c == 0.0) continue;
    const double v = h.lo + (static_cast<double>(i) + 0.5) * width;
    if (v < edge_lo) err += c * (edge_lo - v) * (edge_lo - v);
    else if (v > edge_hi) err += c * (v - edge_hi) * (v - edge_hi);
    else err += c * rounding;
  }
  return err;
}

}  // namespace

TensorRange percentile_range(const Histogram& h, double percentile) {
  const double total = total_of(h);
  if (total == 0.0) return {0.0f, 0.0f};
  const double p = std::clamp(percentile, 50.0, 100.0) / 100.0;
  TensorRange r;
  r.min = static_cast<float>(p >= 1.0 ? h.lo : quantile_value(h, total * (1.0 - p)));
  r.max = static_cast<float>(p >= 1.0 ? h.hi : quantile_value(h, total * p));
  if (r.min > r.max) std::swap(r.min, r.max);
  return r;
}

TensorRange mse_range(const Histogram& h, int bitwidth) {
  if (total_of(h) == 0.0) return {0.0f, 0.0f};
  // Coordinate descent over clipping fractions of each side of 0 (the
  // encoding always contains 0): the best hi for the current lo, then the
  // best lo for that hi, a few rounds.
  constexpr int kSteps = 128;
  const double neg = std::min(h.lo, 0.0), pos = std::max(h.hi, 0.0);
  double lo = neg, hi = pos;
  double best = expected_error(h, lo, hi, bitwidth);
  for (int round = 0; round < 3; ++round) {
    bool changed = false;
    for (int side = 0; side < 2; ++side) {
      const double end = side == 0 ? pos : neg;
      if (end == 0.0) continue;
      for (int k = 1; k <= kSteps; ++k) {
        const double cand = end * k / kSteps;
        const double e = side == 0 ? expected_error(h, lo, cand, bitwidth) : expected_error(h, cand, hi, bitwidth);
        if (e < best) {
          best = e;
          (side == 0 ? hi : lo) = cand;
          changed = true;
        }
      }
    }
    if (!changed) break;
  }
  // Not wider than the values themselves.
  return {static_cast<float>(std::max(lo, h.lo)), static_cast<float>(std::min(hi, h.hi))};
}

bool calibrate(const QNN_INTERFACE_VER_TYPE& api, Qnn_BackendHandle_t backend, const QnnGraphDesc& float_graph,
               const std::vector<std::vector<std::vector<uint8_t>>>& samples,
               std::map<std::string, TensorRange>* ranges, std::string* error, const ProgressFn& progress,
               const CalibrationOptions& options) {
  QnnGraphDesc g = float_graph;
  g.name = float_graph.name + "_calibration";
  for (QTensor& t : g.tensors) {
    if (t.type == QNN_TENSOR_TYPE_NATIVE && t.dtype == QNN_DATATYPE_FLOAT_32) {
      t.type = QNN_TENSOR_TYPE_APP_READ;
      g.outputs.push_back(t.name);
    }
  }
  Qnn_ContextHandle_t context = nullptr;
  if (Qnn_ErrorHandle_t e = api.contextCreate(backend, nullptr, nullptr, &context); e != QNN_SUCCESS) {
    *error = "calibration contextCreate: " + describe_qnn_error(api, e);
    return false;
  }
  bool ok = true;
  SubmittedGraph sg;
  if (!submit_graph(api, context, g, &sg, error)) {
    *error = "calibration graph: " + *error;
    ok = false;
  }
  std::vector<std::string> names = g.inputs;
  names.insert(names.end(), g.outputs.begin(), g.outputs.end());
  const bool histograms = options.method != CalibrationMethod::kMinMax;
  const size_t passes = histograms ? 2 : 1;
  // Runs every sample and hands each float tensor's values to `visit`.
  auto run_all = [&](size_t pass, const std::function<void(const std::string&, const float*, size_t)>& visit) {
    for (size_t k = 0; ok && k < samples.size(); ++k) {
      std::vector<std::vector<uint8_t>> outputs;
      if (!execute_graph(api, sg, samples[k], &outputs, error)) {
        *error = "calibration inference " + std::to_string(k + 1) + ": " + *error;
        ok = false;
        break;
      }
      std::vector<const std::vector<uint8_t>*> all;
      for (const auto& b : samples[k]) all.push_back(&b);
      for (const auto& b : outputs) all.push_back(&b);
      for (size_t i = 0; i < names.size(); ++i) {
        const QTensor* t = g.find(names[i]);
        if (t == nullptr || t->dtype != QNN_DATATYPE_FLOAT_32) continue;
        const size_t n = all[i]->size() / 4;
        if (n == 0) continue;
        std::vector<float> v(n);
        std::memcpy(v.data(), all[i]->data(), n * 4);
        visit(names[i], v.data(), n);
      }
      report_progress(progress, "calibrating", pass * samples.size() + k + 1, passes * samples.size());
    }
  };
  // Pass 1: finite min/max, and whether ±inf occurred.
  std::map<std::string, TensorRange> r;
  run_all(0, [&](const std::string& name, const float* v, size_t n) {
    auto [it, fresh] = r.try_emplace(name);
    TensorRange& tr = it->second;
    bool seen = !fresh && tr.finite_seen;
    for (size_t i = 0; i < n; ++i) {
      const float x = v[i];
      if (!std::isfinite(x)) {
        if (x == -INFINITY) tr.neg_inf = true;
        if (x == INFINITY) tr.pos_inf = true;
        continue;
      }
      if (!seen) {
        tr.min = tr.max = x;
        seen = true;
      } else {
        tr.min = std::min(tr.min, x);
        tr.max = std::max(tr.max, x);
      }
    }
    tr.finite_seen = seen;
  });
  if (ok && histograms) {
    // Pass 2: a histogram per tensor over its pass-1 range.
    std::map<std::string, Histogram> hist;
    for (const auto& [name, tr] : r) {
      Histogram& h = hist[name];
      h.lo = tr.min;
      h.hi = tr.max;
      h.counts.assign(kHistogramBins, 0.0);
    }
    run_all(1, [&](const std::string& name, const float* v, size_t n) { hist[name].add(v, n); });
    for (auto& [name, tr] : r) {
      const Histogram& h = hist[name];
      const TensorRange c = options.method == CalibrationMethod::kPercentile ? percentile_range(h, options.percentile)
                                                                             : mse_range(h, options.bitwidth);
      tr.min = c.min;
      tr.max = c.max;
    }
  }
  api.contextFree(context, nullptr);
  if (ok) {
    for (const auto& [name, tr] : r) (*ranges)[name] = tr;
  }
  return ok;
}

}  // namespace openhtp::onnx_import
