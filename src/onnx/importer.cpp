#include "onnx/importer.h"

#include <cstdio>

#include "onnx/attributes.h"
#include "onnx/batchnorm_folding.h"
#include "onnx/calibration.h"
#include "onnx/preserve_io.h"
#include "onnx/constant_folding.h"
#include "onnx/matmul_bias_folding.h"
#include "onnx/empty_values.h"
#include "onnx/control_flow_unrolling.h"
#include "onnx/rank_collapse.h"
#include "onnx/sequence_lowering.h"
#include "onnx/training_ops.h"
#include "onnx/lowering.h"
#include "onnx/qdq_folding.h"
#include "onnx/spatial_1d.h"

namespace openhtp::onnx_import {

namespace {

bool is_structural(const onnx::NodeProto& n) {
  static const std::set<std::string> kOps = {"If", "Loop", "Scan", "SequenceEmpty", "SequenceConstruct",
                                             "SequenceInsert", "SequenceErase", "SequenceAt", "SequenceLength",
                                             "SplitToSequence", "ConcatFromSequence"};
  return n.domain() == kTrainingDomain || ((n.domain().empty() || n.domain() == "ai.onnx") && kOps.count(n.op_type()));
}

// The rewrites into plain ONNX ops that need constants to decide the
// structure (training ops, control flow, static sequences), alternated with
// constant folding until nothing changes: a folded trip count lets a Loop
// unroll, an unrolled body can fold a sequence position, and so on.
bool rewrite_structure(Model* m, bool keep_dequantize, std::string* error) {
  bool any = false;
  for (const auto& n : m->nodes) any = any || is_structural(n);
  if (!any) return true;
  for (int round = 0; round < 16; ++round) {
    size_t changed = lower_training_ops(m, &m->rewrite_refusals);
    if (changed != 0 && !infer_shapes(m, error)) return false;
    if (!fold_constants(m, error, nullptr, keep_dequantize)) return false;
    size_t unrolled = 0;
    if (!unroll_control_flow(m, &unrolled, error, keep_dequantize)) return false;
    const size_t sequences = lower_sequences(m);
    if (sequences != 0 && !infer_shapes(m, error)) return false;
    changed += unrolled + sequences;
    if (changed == 0) break;
  }
  return true;
}

}  // namespace

bool prepare_model(const onnx::ModelProto& proto, const ImportOptions& options, PreparedModel* out,
                   std::string* error) {
  PreparedModel p;
  if (!model_from_proto(proto, &p.model, error, options.input_dims)) return false;
  if (std::string why = unset_input_shape(proto, p.model); !why.empty()) {
    *error = why;
    return false;
  }
  if (!rewrite_structure(&p.model, options.quantize && !options.keep_quant_nodes, error)) return false;
  if (options.quantize && !options.keep_quant_nodes) {
    // Constant folding, pass-through removal and QDQ folding to a fixed
    // point: a scale or zero point behind an Identity or a Shape/Where/
    // ReduceProd chain, or a no-op Cast between QuantizeLinear and
    // DequantizeLinear, must be gone before the pairs are matched, and a
    // folded pair can make more constants. DequantizeLinear of constant
    // weights stays until collect_qdq_weights has recorded its integers.
    p.model.qdq_folded = true;
    for (int round = 0; round < 16; ++round) {
      size_t constants = 0;
      if (!fold_constants(&p.model, error, &constants, /*keep_dequantize=*/true)) return false;
      const size_t passed = drop_pass_through(&p.model);
      const size_t pairs = fold_qdq_pairs(&p.model, &p.encoding_overrides);
      p.folded_constants += constants;
      p.folded_qdq_pairs += pairs;
      if (passed + pairs == 0) break;
      if (!infer_shapes(&p.model, error)) return false;
    }
    collect_qdq_weights(p.model, &p.qdq_weights);
  }
  size_t constants = 0;
  if (!fold_constants(&p.model, error, &constants)) return false;
  p.folded_constants += constants;
  size_t collapsed = 0;
  if (!collapse_high_ranks(&p.model, &collapsed, error)) return false;
  if (lift_1d_spatial_ops(&p.model) != 0 && !infer_shapes(&p.model, error)) return false;
  if (options.fold_batchnorm) {
    p.folded_batchnorms = fold_batchnorms(&p.model);
    if (p.folded_batchnorms != 0 && !infer_shapes(&p.model, error)) return false;
  }
  set_aside_empty_values(&p.model);
  // The passes above can give values new shapes; none may pass what a QNN
  // tensor holds (the lowering would wrap its dims to 32 bits).
  if (std::string why = oversized_value(p.model); !why.empty()) {
    *error = why;
    return false;
  }
  *out = std::move(p);
  return true;
}

std::vector<UnsupportedNode> find_unsupported(const Model& model) {
  std::vector<UnsupportedNode> v;
  for (const auto& n : model.nodes) {
    if (std::string why = check_node(n, model); !why.empty()) {
      std::string name = n.name();
      for (int i = 0; name.empty() && i < n.output_size(); ++i) name = n.output(i);
      v.push_back({name, n.op_type(), why});
    }
  }
  return v;
}

std::string describe_unsupported(const std::vector<UnsupportedNode>& nodes) {
  std::string s = std::to_string(nodes.size()) + " unsupported node(s):";
  for (const auto& n : nodes) s += "\n  " + n.op_type + " '" + n.name + "': " + n.reason;
  return s;
}

bool build_graph_desc(const PreparedModel& prepared, const ImportOptions& options, QnnGraphDesc* out,
                      std::string* error) {
  if (prepared.model.outputs.empty() && !prepared.model.empty_outputs.empty()) {
    const std::string& o = prepared.model.empty_outputs.front();
    *error = "every graph output is empty (e.g. '" + o + "', shape " + dims_to_string(prepared.model.info(o)->dims) +
             "): QNN tensors have no zero dimension, so there is no graph to build";
    return false;
  }
  if (auto bad = find_unsupported(prepared.model); !bad.empty()) {
    *error = describe_unsupported(bad);
    return false;
  }
  LoweringOptions lo;
  lo.channel_last_inputs = options.channel_last_inputs;
  return lower_model(prepared.model, lo, out, error, options.progress);
}

bool import_model(const PreparedModel& prepared, const ImportOptions& options, const QNN_INTERFACE_VER_TYPE& api,
                  Qnn_BackendHandle_t backend, Qnn_ContextHandle_t context, SubmittedGraph* out,
                  QnnGraphDesc* desc_out, std::string* error) {
  QnnGraphDesc desc;
  if (!build_graph_desc(prepared, options, &desc, error)) return false;
  if (!options.quantize) fold_matmul_biases(&desc);
  if (options.quantize) {
    if (options.calibration.empty()) {
      *error = "quantized conversion needs calibration inputs (--input_list)";
      return false;
    }
    std::map<std::string, TensorRange> ranges;
    CalibrationOptions co = options.calibration_options;
    co.bitwidth = options.quant.act_bitwidth;
    if (!calibrate(api, backend, desc, options.calibration, &ranges, error, options.progress, co)) return false;
    std::vector<std::string> notes;
    if (!quantize_graph(&desc, ranges, prepared.encoding_overrides, options.quant, error, prepared.qdq_weights,
                        &notes)) {
      return false;
    }
    for (const std::string& note : notes) std::fprintf(stderr, "warning: %s\n", note.c_str());
    if (options.preserve_io && !preserve_io_datatype(&desc, options.preserve_io_names, nullptr, error)) return false;
  }
  desc.num_hvx_threads = options.num_hvx_threads;
  if (!submit_graph(api, context, desc, out, error, options.progress)) return false;
  if (desc_out != nullptr) *desc_out = std::move(desc);
  return true;
}

}  // namespace openhtp::onnx_import
