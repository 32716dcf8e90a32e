// The same tiny CNN with ordinary client memory (QNN_TENSORMEMTYPE_RAW): the
// input and output live in std::vector / std::array, which the DSP process
// cannot map, so every execute copies the input over and the output back.
// Compare with example_ion_per_tensor and example_multi_tensor_shared_buffer,
// where nothing is copied.
#include <algorithm>
#include <array>
#include <cstdio>
#include <limits>
#include <vector>

#include "common/output_check.h"
#include "common/qnn_loader.h"
#include "common/qnn_session.h"
#include "common/reference_cnn.h"
#include "common/report.h"
#include "common/tiny_cnn.h"

using namespace examples;

namespace {

constexpr size_t kBatch = 8;  // inputs executed one after another

int fail(const char* step, const std::string& why) {
  std::printf("FAILED at %s: %s\n", step, why.c_str());
  return 1;
}

}  // namespace

int main() {
  std::printf("== client_buffers: plain client memory (QNN_TENSORMEMTYPE_RAW), copied each execute ==\n");
  std::string error;

  // Step 1: load the QNN HTP backend and take its function table. No rpcmem
  // here: client buffers need nothing from libcdsprpc.
  QnnBackendLibrary qnn;
  if (!qnn.load("libQnnHtp.so", &error)) return fail("step 1", error);
  std::printf("step 1  dlopen(\"libQnnHtp.so\") -> %s; provider \"%s\", core API %u.%u.%u\n", qnn.path.c_str(),
              qnn.provider_name.c_str(), qnn.api_version.coreApiVersion.major, qnn.api_version.coreApiVersion.minor,
              qnn.api_version.coreApiVersion.patch);

  // Step 2: backend, context, graph.
  QnnSession session(qnn.api);
  if (!session.open(&error)) return fail("step 2", error);
  const tiny_cnn::Weights weights = tiny_cnn::make_weights(tiny_cnn::kWeightSeed);
  TinyCnnGraph cnn(qnn.api, weights);
  if (!cnn.build(session.context, "tiny_cnn", &error)) return fail("step 2", error);
  std::printf("step 2  backend and context created; tiny CNN built with %zu nodes and finalized\n", cnn.node_count());

  ExecuteReport report(qnn, session.backend);
  if (!report.init(&error)) return fail("step 2", error);

  // Step 3: point the tensors at client memory through clientBuf.
  std::vector<float> input_data(tiny_cnn::kInputElements);
  std::array<float, tiny_cnn::kClasses> output_data{};
  Qnn_Tensor_t input = cnn.input();
  input.v1.memType = QNN_TENSORMEMTYPE_RAW;
  input.v1.clientBuf = {input_data.data(), static_cast<uint32_t>(tiny_cnn::kInputBytes)};
  Qnn_Tensor_t output = cnn.output();
  output.v1.memType = QNN_TENSORMEMTYPE_RAW;
  output.v1.clientBuf = {output_data.data(), static_cast<uint32_t>(tiny_cnn::kOutputBytes)};
  std::printf("step 3  input clientBuf %p (%zu B, std::vector), output clientBuf %p (%zu B, std::array)\n",
              static_cast<void*>(input_data.data()), tiny_cnn::kInputBytes, static_cast<void*>(output_data.data()),
              tiny_cnn::kOutputBytes);

  // Step 4: for each input, fill the vector, execute, check the array.
  std::printf("step 4  executing %zu random inputs, copied in and out by the backend:\n", kBatch);
  OutputCheck check("client_buffers", {tiny_cnn::kInputBytes, tiny_cnn::kOutputBytes, 0});
  const auto inputs = tiny_cnn::make_inputs(kBatch, tiny_cnn::kInputSeed);
  for (size_t i = 0; i < inputs.size(); ++i) {
    std::copy(inputs[i].begin(), inputs[i].end(), input_data.begin());
    output_data.fill(std::numeric_limits<float>::quiet_NaN());  // a stale result cannot pass
    if (Qnn_ErrorHandle_t e = qnn.api.graphExecute(cnn.graph(), &input, 1, &output, 1, report.profile(), nullptr);
        e != QNN_SUCCESS) {
      check.fail("graphExecute: " + describe_qnn_error(qnn.api, e));
      break;
    }
    check.check_output(i, output_data.data(), reference_cnn(weights, inputs[i]));
    CopyAccounting accounting;
    const bool read_ok = report.read_last(cnn.graph(), &accounting, &error);
    check.check_accounting(accounting, read_ok, error);
  }
  return check.finish();
}
