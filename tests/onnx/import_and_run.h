// The end-to-end tests' one way to run an ONNX model: prepare, import into
// libQnnHtp (the FastRPC DSP process), execute once, return the outputs.
#pragma once

#include <gtest/gtest.h>

#include <cstdint>
#include <string>
#include <vector>

#include "QnnInterface.h"
#include "onnx/backend_session.h"
#include "onnx/importer.h"

namespace onnx_test {

// Runs `proto` once on `inputs` (bytes per graph input, in order) and returns
// the outputs' bytes; *desc (may be null) gets the lowered graph. A failure
// is a test failure, and the outputs come back empty.
inline std::vector<std::vector<uint8_t>> run_model(const onnx::ModelProto& proto,
                                                   const std::vector<std::vector<uint8_t>>& inputs,
                                                   openhtp::onnx_import::QnnGraphDesc* desc = nullptr) {
  using namespace openhtp::onnx_import;
  ImportOptions options;
  PreparedModel prepared;
  std::string error;
  EXPECT_TRUE(prepare_model(proto, options, &prepared, &error)) << error;
  BackendSession session;
  EXPECT_TRUE(session.open(QnnInterface_getProviders, &error, true)) << error;
  Qnn_ContextHandle_t ctx = nullptr;
  EXPECT_TRUE(session.create_context(&ctx, &error)) << error;
  SubmittedGraph graph;
  QnnGraphDesc d;
  std::vector<std::vector<uint8_t>> outputs;
  if (ctx == nullptr) return outputs;
  if (import_model(prepared, options, session.api, session.backend, ctx, &graph, &d, &error)) {
    EXPECT_TRUE(execute_graph(session.api, graph, inputs, &outputs, &error)) << error;
  } else {
    ADD_FAILURE() << error;
  }
  session.api.contextFree(ctx, nullptr);
  if (desc != nullptr) *desc = d;
  return outputs;
}

}  // namespace onnx_test
