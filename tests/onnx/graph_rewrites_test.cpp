// The import-time rewrites into plain ONNX ops (control_flow_unrolling.h,
// sequence_lowering.h, training_ops.h, rank_collapse.h): small models built
// here, run through libQnnHtp, checked against values computed in the test
// from the op's definition; and each rule's refusal, by its message.
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>

#include "QnnInterface.h"
#include "import_and_run.h"
#include "model_builder.h"
#include "onnx/importer.h"

namespace {

using namespace openhtp::onnx_import;
using onnx_test::ModelBuilder;
using onnx_test::as_f32;
using onnx_test::f32_bytes;
using onnx_test::i32_bytes;
using onnx_test::run_model;

constexpr int32_t kF32 = 1, kI64 = 7, kBool = 9;


void graph_attr(onnx::NodeProto& n, const std::string& name, const onnx::GraphProto& g) {
  auto* a = n.add_attribute();
  a->set_name(name);
  a->set_type(onnx::AttributeProto::GRAPH);
  *a->mutable_g() = g;
}
void string_attr(onnx::NodeProto& n, const std::string& name, const std::string& v) {
  auto* a = n.add_attribute();
  a->set_name(name);
  a->set_type(onnx::AttributeProto::STRING);
  a->set_s(v);
}

// The refusal reasons of `proto` ("" when every node lowers).
std::string refusal(const onnx::ModelProto& proto) {
  ImportOptions options;
  PreparedModel prepared;
  std::string error;
  if (!prepare_model(proto, options, &prepared, &error)) return error;
  return describe_unsupported(find_unsupported(prepared.model));
}

void expect_near(const std::vector<float>& got, const std::vector<double>& want, double tol = 1e-5) {
  ASSERT_EQ(got.size(), want.size());
  for (size_t i = 0; i < got.size(); ++i) EXPECT_NEAR(got[i], want[i], tol * (1 + std::fabs(want[i]))) << "at " << i;
}

// ---- Loop ----

// Loop body: y_out = y_in + x[iteration_num] (x an outer-scope initializer),
// scan = y_out; cond_out = cond_in, or Less(y_out, limit) with a run-time limit.
onnx::GraphProto loop_body(bool runtime_cond) {
  ModelBuilder b(13);
  b.input("i", {}, kI64).input("cond_in", {}, kBool).input("y_in", {2});
  b.int64_initializer("one", {1}, {1});
  b.node("Unsqueeze", "start", {"i", "one_axis"}, {"start"});
  b.int64_initializer("one_axis", {1}, {0});
  b.node("Add", "end_", {"i", "one_i"}, {"end_s"});
  b.int64_initializer("one_i", {}, {1});
  b.node("Unsqueeze", "end", {"end_s", "one_axis"}, {"end"});
  b.node("Slice", "row", {"table", "start", "end"}, {"row"});  // [1, 2]
  b.node("Reshape", "row2", {"row", "two"}, {"row2"});
  b.int64_initializer("two", {1}, {2});
  b.node("Add", "y_out", {"y_in", "row2"}, {"y_out"});
  b.node("Identity", "scan", {"y_out"}, {"scan"});
  if (runtime_cond) {
    b.node("ReduceSum", "total", {"y_out"}, {"total"});
    b.node("Less", "cond_out", {"total", "limit"}, {"cond_out"});
  } else {
    b.node("Identity", "cond_out", {"cond_in"}, {"cond_out"});
  }
  b.output("cond_out", {}, kBool).output("y_out", {2}).output("scan", {2});
  return b.model().graph();
}

ModelBuilder loop_model(bool trip_is_input, bool runtime_cond) {
  ModelBuilder b(13);
  b.input("y", {2});
  if (trip_is_input) b.input("M", {}, kI64);
  if (runtime_cond) b.input("limit", {});
  if (!trip_is_input) b.int64_initializer("M", {}, {3});
  b.int8_initializer("cond", kBool, {}, {1});
  b.initializer("table", {3, 2}, {1, 2, 3, 4, 5, 6});
  auto& loop = b.node("Loop", "loop", {"M", "cond", "y"}, {"y_final", "ys"});
  graph_attr(loop, "body", loop_body(runtime_cond));
  b.output("y_final", {2}).output("ys", {3, 2});
  return b;
}

// Three iterations unrolled: the carried value adds table row i, the scan
// output stacks every iteration's value.
TEST(GraphRewrites, LoopWithConstantTripCountIsUnrolled) {
  const std::vector<float> y = {0.5f, -1.0f};
  const std::vector<double> table = {1, 2, 3, 4, 5, 6};
  auto out = run_model(loop_model(false, false).model(), {f32_bytes(y)});
  ASSERT_EQ(out.size(), 2u);
  std::vector<double> acc = {y[0], y[1]}, stacked;
  for (int i = 0; i < 3; ++i) {
    for (int k = 0; k < 2; ++k) acc[k] += table[2 * i + k];
    stacked.insert(stacked.end(), acc.begin(), acc.end());
  }
  expect_near(as_f32(out[0]), acc);
  expect_near(as_f32(out[1]), stacked);
}

TEST(GraphRewrites, LoopWithRunTimeTripCountIsRefused) {
  const std::string why = refusal(loop_model(true, false).model());
  EXPECT_NE(why.find("Loop 'loop': the trip count (input 0, 'M') is not a constant"), std::string::npos) << why;
}

TEST(GraphRewrites, LoopWithRunTimeConditionIsRefused) {
  const std::string why = refusal(loop_model(false, true).model());
  EXPECT_NE(why.find("Loop 'loop': the condition computed by iteration 0 ('cond_out') is not a constant"),
            std::string::npos)
      << why;
}

// ---- Scan ----

// Scan over axis 1 of x [2, 3], backwards: state += column, scan output
// stacked on axis 1 in step order reversed (scan_output_directions 1), so
// column j of z is the suffix sum from column j.
TEST(GraphRewrites, ScanWithAxesAndDirectionsIsUnrolled) {
  ModelBuilder body(11);
  body.input("s_in", {2}).input("col", {2});
  body.node("Add", "s_out", {"s_in", "col"}, {"s_out"});
  body.node("Identity", "z_step", {"s_out"}, {"z_step"});
  body.output("s_out", {2}).output("z_step", {2});
  ModelBuilder b(11);
  b.input("init", {2}).input("x", {2, 3});
  auto& scan = b.node("Scan", "scan", {"init", "x"}, {"s", "z"});
  ModelBuilder::i(scan, "num_scan_inputs", 1);
  ModelBuilder::ints(scan, "scan_input_axes", {1});
  ModelBuilder::ints(scan, "scan_input_directions", {1});
  ModelBuilder::ints(scan, "scan_output_axes", {1});
  ModelBuilder::ints(scan, "scan_output_directions", {1});
  graph_attr(scan, "body", body.model().graph());
  b.output("s", {2}).output("z", {2, 3});
  const std::vector<float> init = {10, 20}, x = {1, 2, 3, 4, 5, 6};
  auto out = run_model(b.model(), {f32_bytes(init), f32_bytes(x)});
  ASSERT_EQ(out.size(), 2u);
  std::vector<double> z(6);
  for (int r = 0; r < 2; ++r) {
    double acc = init[r];
    for (int c = 2; c >= 0; --c) {  // step t reads column 2 - t; reversed output puts step t at column 2 - t
      acc += x[3 * r + c];
      z[3 * r + c] = acc;
    }
  }
  expect_near(as_f32(out[0]), {z[0], z[3]});
  expect_near(as_f32(out[1]), z);
}

// ---- If ----

ModelBuilder if_model(bool constant_cond, bool same_shapes) {
  ModelBuilder then_b(13), else_b(13);
  then_b.node("Mul", "t", {"x", "x"}, {"t"});
  then_b.output("t", {3});
  if (same_shapes) {
    else_b.node("Neg", "e", {"x"}, {"e"});
    else_b.output("e", {3});
  } else {
    else_b.node("ReduceSum", "e", {"x"}, {"e"});
    else_b.output("e", {1});
  }
  ModelBuilder b(13);
  b.input("x", {3});
  if (constant_cond) {
    b.int8_initializer("c", kBool, {}, {0});
  } else {
    b.input("c", {}, kBool);
  }
  auto& n = b.node("If", "if", {"c"}, {"y"});
  graph_attr(n, "then_branch", then_b.model().graph());
  graph_attr(n, "else_branch", else_b.model().graph());
  b.output("y", {3});
  return b;
}

TEST(GraphRewrites, IfWithConstantConditionInlinesTheTakenBranch) {
  const std::vector<float> x = {1.5f, -2, 3};
  auto out = run_model(if_model(true, true).model(), {f32_bytes(x)});
  ASSERT_EQ(out.size(), 1u);
  expect_near(as_f32(out[0]), {-1.5, 2, -3});
}

// Run-time condition: both branches, selected with Where; run with each value.
TEST(GraphRewrites, IfWithRunTimeConditionSelectsBetweenBranches) {
  const std::vector<float> x = {1.5f, -2, 3};
  for (uint8_t c : {uint8_t{1}, uint8_t{0}}) {
    auto out = run_model(if_model(false, true).model(), {f32_bytes(x), std::vector<uint8_t>{c}});
    ASSERT_EQ(out.size(), 1u);
    std::vector<double> want;
    for (float v : x) want.push_back(c ? double(v) * v : -double(v));
    expect_near(as_f32(out[0]), want);
  }
}

TEST(GraphRewrites, IfWithRunTimeConditionAndBranchesOfDifferentShapesIsRefused) {
  const std::string why = refusal(if_model(false, false).model());
  EXPECT_NE(why.find("If 'if': the condition is only known at run time and the branches give output 0 as FLOAT 3 "
                     "and FLOAT 1"),
            std::string::npos)
      << why;
}

// ---- Sequences ----

// SequenceConstruct(x, y) -> SequenceInsert(z at 1) -> SequenceErase(-1)
// -> [x, z]; SequenceAt(1) = z, and SequenceAt(-1) of the list before the
// erase is y; ConcatFromSequence(new_axis) stacks [x, z];
// SplitToSequence(x, keepdims 0) has 2 elements (SequenceLength).
TEST(GraphRewrites, StaticSequencesAreListsOfTensors) {
  ModelBuilder b(13);
  b.input("x", {2, 3}).input("y", {2, 3}).input("z", {2, 3});
  b.int64_initializer("one", {}, {1});
  b.int64_initializer("minus_one", {}, {-1});
  b.node("SequenceConstruct", "s1", {"x", "y"}, {"s1"});
  b.node("SequenceInsert", "s2", {"s1", "z", "one"}, {"s2"});
  b.node("SequenceErase", "s3", {"s2", "minus_one"}, {"s3"});
  b.node("SequenceAt", "at", {"s3", "one"}, {"at"});
  auto& cat = b.node("ConcatFromSequence", "cat", {"s3"}, {"cat"});
  ModelBuilder::i(cat, "axis", 1);
  ModelBuilder::i(cat, "new_axis", 1);
  auto& split = b.node("SplitToSequence", "split", {"x"}, {"parts"});
  ModelBuilder::i(split, "keepdims", 0);
  b.node("SequenceLength", "len", {"parts"}, {"len"});
  b.node("SequenceAt", "row1", {"parts", "one"}, {"row1"});
  b.node("SequenceAt", "last", {"s2", "minus_one"}, {"last"});  // s2 = [x, z, y]
  b.output("at", {2, 3}).output("cat", {2, 2, 3}).output("len", {}, kI64).output("row1", {3}).output("last", {2, 3});
  std::vector<float> x = {1, 2, 3, 4, 5, 6}, y = {7, 8, 9, 10, 11, 12}, z = {-1, -2, -3, -4, -5, -6};
  auto out = run_model(b.model(), {f32_bytes(x), f32_bytes(y), f32_bytes(z)});
  ASSERT_EQ(out.size(), 5u);
  expect_near(as_f32(out[0]), {z.begin(), z.end()});
  expect_near(as_f32(out[4]), {y.begin(), y.end()});
  std::vector<double> cat_want;
  for (int r = 0; r < 2; ++r) {
    for (int k = 0; k < 3; ++k) cat_want.push_back(x[3 * r + k]);
    for (int k = 0; k < 3; ++k) cat_want.push_back(z[3 * r + k]);
  }
  expect_near(as_f32(out[1]), cat_want);
  int32_t len = 0;
  ASSERT_EQ(out[2].size(), 4u);
  std::memcpy(&len, out[2].data(), 4);
  EXPECT_EQ(len, 2);
  expect_near(as_f32(out[3]), {4, 5, 6});
}

TEST(GraphRewrites, SequencePositionThatIsNotConstantIsRefused) {
  ModelBuilder b(13);
  b.input("x", {2}).input("y", {2}).input("pos", {}, kI64);
  b.node("SequenceConstruct", "s", {"x", "y"}, {"s"});
  b.node("SequenceAt", "at", {"s", "pos"}, {"at"});
  b.output("at", {2});
  const std::string why = refusal(b.model());
  EXPECT_NE(why.find("SequenceAt 'at': position (input 1, 'pos') is not a constant"), std::string::npos) << why;
}

TEST(GraphRewrites, SequenceReadByAnotherOpIsRefused) {
  ModelBuilder b(13);
  b.input("x", {2});
  b.node("SequenceConstruct", "s", {"x", "x"}, {"s"});
  b.node("Identity", "copy", {"s"}, {"copy"});
  b.node("SequenceLength", "len", {"copy"}, {"len"});
  b.output("len", {}, kI64);
  const std::string why = refusal(b.model());
  EXPECT_NE(why.find("Identity 'copy': reads sequence 's'"), std::string::npos) << why;
}

// ---- Training ops ----

ModelBuilder training_model(const std::string& op, int accumulators) {
  ModelBuilder b(13);
  auto* o = const_cast<onnx::ModelProto&>(b.model()).add_opset_import();
  o->set_domain("ai.onnx.preview.training");
  o->set_version(1);
  b.input("R", {}).input("T", {}, kI64).input("X", {3}).input("G", {3});
  std::vector<std::string> ins = {"R", "T", "X", "G"}, outs = {"X_new"};
  for (int k = 0; k < accumulators; ++k) {
    const std::string a = k == 0 ? "V" : "H";
    b.input(a, {3});
    ins.push_back(a);
    outs.push_back(a + "_new");
  }
  auto& n = b.node(op, op, ins, outs);
  n.set_domain("ai.onnx.preview.training");
  for (const auto& out : outs) b.output(out, {3});
  return b;
}

const std::vector<float> kX = {1.2f, -2.8f, 0.5f}, kG = {-0.94f, 2.5f, 0.1f}, kV = {1.7f, -3.6f, 0.2f},
                         kH = {0.5f, 1.0f, 2.0f};

TEST(GraphRewrites, NesterovMomentumFollowsTheFormula) {
  const float alpha = 0.9f, beta = 0.3f, norm = 0.01f, r = 0.1f;
  ModelBuilder b = training_model("Momentum", 1);
  auto& n = const_cast<onnx::ModelProto&>(b.model()).mutable_graph()->mutable_node()->at(0);
  ModelBuilder::f(n, "alpha", alpha);
  ModelBuilder::f(n, "beta", beta);
  ModelBuilder::f(n, "norm_coefficient", norm);
  string_attr(n, "mode", "nesterov");
  for (int32_t t : {0, 4}) {
    auto out = run_model(b.model(), {f32_bytes({r}), i32_bytes({t}), f32_bytes(kX), f32_bytes(kG), f32_bytes(kV)});
    ASSERT_EQ(out.size(), 2u);
    std::vector<double> x_new, v_new;
    for (int i = 0; i < 3; ++i) {
      const double g = double(norm) * kX[i] + kG[i];
      const double v = double(alpha) * kV[i] + (t > 0 ? beta : 1.0) * g;
      v_new.push_back(v);
      x_new.push_back(kX[i] - double(r) * (g + double(alpha) * v));
    }
    expect_near(as_f32(out[0]), x_new, 1e-4);
    expect_near(as_f32(out[1]), v_new, 1e-4);
  }
}

TEST(GraphRewrites, AdagradFollowsTheFormula) {
  const float decay = 0.1f, eps = 1e-3f, r = 0.2f;
  ModelBuilder b = training_model("Adagrad", 1);  // the accumulator is H, named V here
  auto& n = const_cast<onnx::ModelProto&>(b.model()).mutable_graph()->mutable_node()->at(0);
  ModelBuilder::f(n, "decay_factor", decay);
  ModelBuilder::f(n, "epsilon", eps);
  const int32_t t = 3;
  auto out = run_model(b.model(), {f32_bytes({r}), i32_bytes({t}), f32_bytes(kX), f32_bytes(kG), f32_bytes(kH)});
  ASSERT_EQ(out.size(), 2u);
  std::vector<double> x_new, h_new;
  const double rate = r / (1 + t * double(decay));
  for (int i = 0; i < 3; ++i) {
    const double h = kH[i] + double(kG[i]) * kG[i];
    h_new.push_back(h);
    x_new.push_back(kX[i] - rate * kG[i] / (std::sqrt(h) + eps));
  }
  expect_near(as_f32(out[0]), x_new, 1e-4);
  expect_near(as_f32(out[1]), h_new, 1e-4);
}

// Adam after 2 steps: the bias-corrected rate r * sqrt(1 - beta^T) / (1 - alpha^T).
TEST(GraphRewrites, AdamFollowsTheFormulaWithBiasCorrection) {
  const float alpha = 0.9f, beta = 0.99f, eps = 1e-4f, post = 0.05f, r = 0.1f;
  ModelBuilder b = training_model("Adam", 2);
  auto& n = const_cast<onnx::ModelProto&>(b.model()).mutable_graph()->mutable_node()->at(0);
  ModelBuilder::f(n, "alpha", alpha);
  ModelBuilder::f(n, "beta", beta);
  ModelBuilder::f(n, "epsilon", eps);
  ModelBuilder::f(n, "norm_coefficient_post", post);
  const int32_t t = 2;
  auto out = run_model(b.model(), {f32_bytes({r}), i32_bytes({t}), f32_bytes(kX), f32_bytes(kG), f32_bytes(kV),
                                   f32_bytes(kH)});
  ASSERT_EQ(out.size(), 3u);
  std::vector<double> x_new, v_new, h_new;
  const double rate = r * std::sqrt(1 - std::pow(double(beta), t)) / (1 - std::pow(double(alpha), t));
  for (int i = 0; i < 3; ++i) {
    const double v = alpha * double(kV[i]) + (1 - double(alpha)) * kG[i];
    const double h = beta * double(kH[i]) + (1 - double(beta)) * kG[i] * kG[i];
    v_new.push_back(v);
    h_new.push_back(h);
    x_new.push_back((1 - double(post)) * (kX[i] - rate * (v / (std::sqrt(h) + eps))));
  }
  expect_near(as_f32(out[0]), x_new, 1e-4);
  expect_near(as_f32(out[1]), v_new, 1e-4);
  expect_near(as_f32(out[2]), h_new, 1e-4);
}

TEST(GraphRewrites, MomentumWithAnUnknownModeIsRefused) {
  ModelBuilder b = training_model("Momentum", 1);
  auto& n = const_cast<onnx::ModelProto&>(b.model()).mutable_graph()->mutable_node()->at(0);
  string_attr(n, "mode", "heavy");
  const std::string why = refusal(b.model());
  EXPECT_NE(why.find("Momentum 'Momentum': mode 'heavy' is not an ONNX mode"), std::string::npos) << why;
}

// ---- Rank collapse ----

// Unsqueeze [2, 3, 4] to rank 6: the graph output is its rank-5 view (axes
// 4 and 5 merged), the same elements in the same order.
TEST(GraphRewrites, RankSixGraphOutputIsItsRankFiveView) {
  ModelBuilder b(13);
  b.input("x", {2, 3, 4});
  b.int64_initializer("axes", {3}, {0, 2, 4});
  b.node("Unsqueeze", "u", {"x", "axes"}, {"y"});
  b.output("y", {1, 2, 1, 3, 1, 4});
  std::vector<float> x(24);
  for (int i = 0; i < 24; ++i) x[i] = 0.25f * i - 3;
  QnnGraphDesc desc;
  auto out = run_model(b.model(), {f32_bytes(x)}, &desc);
  ASSERT_EQ(out.size(), 1u);
  expect_near(as_f32(out[0]), {x.begin(), x.end()});
  const QTensor* y = desc.find("y");
  ASSERT_NE(y, nullptr);
  EXPECT_EQ(y->dims, (std::vector<uint32_t>{1, 2, 1, 3, 4}));
}

// A rank-7 input through element-wise ops, a gather along axis 1 and a sum:
// every rank-7 value becomes a view with the trailing axes merged.
TEST(GraphRewrites, RankSevenComputationRunsOnViews) {
  const std::vector<int64_t> dims = {2, 3, 1, 2, 2, 1, 2};  // 48 elements
  ModelBuilder b(13);
  b.input("x", dims);
  b.initializer("two", {}, {2.0f});
  b.node("Mul", "m", {"x", "two"}, {"m"});
  b.node("Exp", "e", {"m"}, {"e"});
  std::vector<int64_t> idx_dims = dims;
  idx_dims[1] = 1;
  std::vector<int64_t> idx(16);
  for (int i = 0; i < 16; ++i) idx[i] = i % 3;
  b.int64_initializer("idx", idx_dims, idx);
  auto& g = b.node("GatherElements", "g", {"e", "idx"}, {"g"});
  ModelBuilder::i(g, "axis", 1);
  auto& s = b.node("ReduceSum", "s", {"g"}, {"s"});
  ModelBuilder::i(s, "keepdims", 0);
  b.output("s", {});
  std::vector<float> x(48);
  for (int i = 0; i < 48; ++i) x[i] = 0.05f * (i % 7) - 0.1f;
  auto out = run_model(b.model(), {f32_bytes(x)});
  ASSERT_EQ(out.size(), 1u);
  // x is [2, 3, 8] once the trailing axes are seen as one: idx picks class idx[n, d] of each (n, d).
  double want = 0;
  for (int n = 0; n < 2; ++n) {
    for (int d = 0; d < 8; ++d) want += std::exp(2.0 * x[(n * 3 + idx[n * 8 + d]) * 8 + d]);
  }
  expect_near(as_f32(out[0]), {want}, 1e-4);
}

// MaxViT's window partition: [1, C, H/p, p, W/p, p] -> [1, H/p, W/p, p, p, C]
// moves every axis but the batch. Without the size-1 batch axis it is a
// rank-5 transpose, and runs as one; the values are checked against the
// permutation written out here.
TEST(GraphRewrites, RankSixTransposeWithAUnitAxisRunsAsRankFive) {
  const int C = 4, A = 2, P = 3;  // channels, windows per side, window size
  ModelBuilder b(13);
  b.input("x", {1, C, A, P, A, P});
  auto& t = b.node("Transpose", "t", {"x"}, {"y"});
  ModelBuilder::ints(t, "perm", {0, 2, 4, 3, 5, 1});
  b.node("Neg", "n", {"y"}, {"z"});
  b.output("z", {1, A, A, P, P, C});
  std::vector<float> x(C * A * P * A * P);
  for (size_t i = 0; i < x.size(); ++i) x[i] = 0.5f * static_cast<float>(i) - 7.0f;
  std::vector<double> want;
  for (int wa = 0; wa < A; ++wa) {
    for (int wb = 0; wb < A; ++wb) {
      for (int pa = 0; pa < P; ++pa) {
        for (int pb = 0; pb < P; ++pb) {
          for (int c = 0; c < C; ++c) want.push_back(-x[(((c * A + wa) * P + pa) * A + wb) * P + pb]);
        }
      }
    }
  }
  auto out = run_model(b.model(), {f32_bytes(x)});
  ASSERT_EQ(out.size(), 1u);
  expect_near(as_f32(out[0]), want);
}

// A rank-6 transpose that moves every axis: no two stay adjacent, so no
// view of rank <= 5 expresses it, and the model is refused as it is (the
// graph input keeps its rank-6 shape, the message names the original node).
TEST(GraphRewrites, RankSixTransposeWithNoAdjacentAxesIsRefused) {
  ModelBuilder b(13);
  b.input("x", {2, 2, 2, 2, 2, 2});
  auto& t = b.node("Transpose", "t", {"x"}, {"y"});
  ModelBuilder::ints(t, "perm", {5, 3, 1, 4, 2, 0});
  b.node("Neg", "n", {"y"}, {"z"});
  b.output("z", {2, 2, 2, 2, 2, 2});
  const std::string why = refusal(b.model());
  EXPECT_NE(why.find("Transpose 't': value 'x' has rank 6 (QNN HTP tensors have rank <= 5)"),
            std::string::npos)
      << why;
}

}  // namespace

// Empty values (empty_values.h). y = Slice(x) starting past the end is
// empty [2, 0]; z = Concat(x, Slice(x)) along axis 1 is x itself.
onnx::ModelProto slice_past_end_model() {
  ModelBuilder b;
  b.input("x", {2, 3});
  b.output("y", {2, 0}).output("z", {2, 3});
  b.int64_initializer("starts", {1}, {10}).int64_initializer("ends", {1}, {20}).int64_initializer("axes", {1}, {1});
  b.node("Slice", "past_end", {"x", "starts", "ends", "axes"}, {"y"});
  ModelBuilder::i(b.node("Concat", "cat", {"x", "y"}, {"z"}), "axis", 1);
  return b.model();
}

TEST(OnnxEmptyValues, EmptyOutputIsSetAsideWithItsShapeAndEmptyConcatInputDropped) {
  PreparedModel p;
  std::string error;
  ASSERT_TRUE(prepare_model(slice_past_end_model(), {}, &p, &error)) << error;
  ASSERT_EQ(p.model.empty_outputs, (std::vector<std::string>{"y"}));
  EXPECT_EQ(p.model.info("y")->dims, (std::vector<int64_t>{2, 0}));  // inferred, not taken from the output's declaration
  EXPECT_EQ(p.model.outputs, (std::vector<std::string>{"z"}));
  // The Slice fed only the empty output and Concat's empty input: gone.
  ASSERT_EQ(p.model.nodes.size(), 1u);
  EXPECT_EQ(p.model.nodes[0].op_type(), "Concat");
  EXPECT_EQ(p.model.nodes[0].input_size(), 1);
  const std::vector<float> x = {1, 2, 3, 4, 5, 6};
  QnnGraphDesc desc;
  const auto out = run_model(slice_past_end_model(), {f32_bytes(x)}, &desc);
  ASSERT_EQ(out.size(), 1u);
  EXPECT_EQ(as_f32(out[0]), x);
  EXPECT_EQ(desc.outputs, (std::vector<std::string>{"z"}));
}

TEST(OnnxEmptyValues, ModelWhoseEveryOutputIsEmptyIsRefusedByName) {
  ModelBuilder b;
  b.input("x", {2, 3});
  b.output("y", {2, 0});
  b.int64_initializer("starts", {1}, {10}).int64_initializer("ends", {1}, {20}).int64_initializer("axes", {1}, {1});
  b.node("Slice", "past_end", {"x", "starts", "ends", "axes"}, {"y"});
  PreparedModel p;
  std::string error;
  ASSERT_TRUE(prepare_model(b.model(), {}, &p, &error)) << error;
  QnnGraphDesc desc;
  EXPECT_FALSE(build_graph_desc(p, {}, &desc, &error));
  EXPECT_EQ(error, "every graph output is empty (e.g. 'y', shape 2x0): QNN tensors have no zero dimension, so there "
                   "is no graph to build");
}

TEST(OnnxEmptyValues, EmptyValueReadByAnOpThatMakesValuesIsStillRefused) {
  // ReduceSum over an empty axis gives zeros, a value made from nothing:
  // not lowered, and the refusal names the empty value.
  ModelBuilder b;
  b.input("x", {2, 3});
  b.output("s", {2, 1});
  b.int64_initializer("starts", {1}, {10}).int64_initializer("ends", {1}, {20}).int64_initializer("axes", {1}, {1});
  b.node("Slice", "past_end", {"x", "starts", "ends", "axes"}, {"y"});
  b.node("ReduceSum", "sum", {"y", "axes"}, {"s"});
  EXPECT_NE(refusal(b.model()).find("value 'y' is empty (shape 2x0)"), std::string::npos) << refusal(b.model());
}

TEST(OnnxEmptyValues, ModelsWithoutEmptyValuesKeepUnusedNodes) {
  // Dead-node removal runs only when an empty value went: a node whose
  // output nothing reads is otherwise lowered as the client wrote it.
  ModelBuilder b;
  b.input("x", {2, 3});
  b.output("y", {2, 3});
  b.node("Relu", "used", {"x"}, {"y"});
  b.node("Neg", "unused", {"x"}, {"n"});
  PreparedModel p;
  std::string error;
  ASSERT_TRUE(prepare_model(b.model(), {}, &p, &error)) << error;
  EXPECT_EQ(p.model.nodes.size(), 2u);
  EXPECT_TRUE(p.model.empty_outputs.empty());
}
