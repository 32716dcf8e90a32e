// Models ONNX forbids or the converter cannot hold are refused with one line
// naming the node/tensor, the rule and the value: no SIGFPE in shape
// inference, no bad_alloc from a declared size, no silent "last one wins".
#include <gtest/gtest.h>

#include <string>

#include "model_builder.h"
#include "onnx/importer.h"
#include "onnx/model.h"

namespace {

using namespace openhtp::onnx_import;
using onnx_test::ModelBuilder;

// The refusal (prepare + lowering, no backend), "" when the model was taken.
std::string refusal(const onnx::ModelProto& proto) {
  PreparedModel p;
  std::string error;
  if (!prepare_model(proto, {}, &p, &error)) return error.empty() ? "(empty error)" : error;
  QnnGraphDesc g;
  if (!build_graph_desc(p, {}, &g, &error)) return error.empty() ? "(empty error)" : error;
  return "";
}

#define EXPECT_REFUSED(proto, text)                                   \
  do {                                                                \
    const std::string why = refusal(proto);                           \
    EXPECT_NE(why.find(text), std::string::npos) << "refusal: " << why; \
  } while (0)

ModelBuilder relu_model(int64_t opset = 13) {
  ModelBuilder b(opset);
  b.input("x", {1, 4}).output("y", {1, 4});
  b.node("Relu", "r", {"x"}, {"y"});
  return b;
}

// ---- 1: attributes shape inference divides by ----

TEST(OnnxHostile, ConvStrideZeroIsRefusedNotSigfpe) {
  ModelBuilder b;
  b.input("x", {1, 1, 4, 4}).output("y", {1, 1, 3, 3});
  b.initializer("w", {1, 1, 2, 2}, {1, 1, 1, 1});
  auto& n = b.node("Conv", "c", {"x", "w"}, {"y"});
  ModelBuilder::ints(n, "strides", {0, 1});
  EXPECT_REFUSED(b.model(), "Conv 'c': attribute 'strides' element 0 is 0, must be >= 1");
}

TEST(OnnxHostile, PoolStrideDilationKernelZeroAreRefused) {
  for (const std::string op : {"MaxPool", "AveragePool", "LpPool"}) {
    for (const std::string attr : {"strides", "kernel_shape", "dilations"}) {
      if (attr == "dilations" && op != "MaxPool") continue;  // only MaxPool has dilations
      ModelBuilder b;
      b.input("x", {1, 1, 4, 4}).output("y", {1, 1, 3, 3});
      auto& n = b.node(op, "p", {"x"}, {"y"});
      ModelBuilder::ints(n, "kernel_shape", attr == "kernel_shape" ? std::vector<int64_t>{2, 0} : std::vector<int64_t>{2, 2});
      if (attr != "kernel_shape") ModelBuilder::ints(n, attr, {1, 0});
      EXPECT_REFUSED(b.model(), op + " 'p': attribute '" + attr + "' element 1 is 0, must be >= 1");
    }
  }
}

TEST(OnnxHostile, ConvGroupZeroIsRefused) {
  ModelBuilder b;
  b.input("x", {1, 1, 4, 4}).output("y", {1, 1, 3, 3});
  b.initializer("w", {1, 1, 2, 2}, {1, 1, 1, 1});
  ModelBuilder::i(b.node("Conv", "c", {"x", "w"}, {"y"}), "group", 0);
  EXPECT_REFUSED(b.model(), "Conv 'c': attribute 'group' is 0, must be >= 1");
}

// ---- 2 and 5: single assignment ----

TEST(OnnxHostile, DuplicateGraphInputsAreRefused) {
  ModelBuilder b;
  b.input("x", {1, 4}).input("x", {1, 4}).output("y", {1, 4});
  b.node("Add", "a", {"x", "x"}, {"y"});
  EXPECT_REFUSED(b.model(), "tensor 'x' is produced twice, by a graph input and by a graph input");
}

TEST(OnnxHostile, DuplicateInitializersAreRefused) {
  ModelBuilder b;
  b.input("x", {1, 4}).output("y", {1, 4});
  b.initializer("w", {1, 4}, {1, 2, 3, 4}).initializer("w", {1, 4}, {0, 0, 0, 0});
  b.node("Add", "a", {"x", "w"}, {"y"});
  EXPECT_REFUSED(b.model(), "tensor 'w' is produced twice, by an initializer and by an initializer");
}

TEST(OnnxHostile, TwoNodesProducingOneTensorAreRefused) {
  ModelBuilder b;
  b.input("x", {1, 4}).output("y", {1, 4});
  b.node("Relu", "r1", {"x"}, {"a"});
  b.node("Sigmoid", "r2", {"x"}, {"a"});
  b.node("Neg", "n", {"a"}, {"y"});
  EXPECT_REFUSED(b.model(), "tensor 'a' is produced twice, by node Relu 'r1' and by node Sigmoid 'r2'");
}

TEST(OnnxHostile, NodeWritingAGraphInputOrInitializerIsRefused) {
  ModelBuilder in;
  in.input("x", {1, 4}).output("x", {1, 4});
  in.node("Relu", "r", {"x"}, {"x"});
  EXPECT_REFUSED(in.model(), "tensor 'x' is produced twice, by a graph input and by node Relu 'r'");
  ModelBuilder init;
  init.input("x", {1, 4}).output("y", {1, 4});
  init.initializer("w", {1, 4}, {1, 2, 3, 4});
  init.node("Relu", "r", {"x"}, {"w"});
  init.node("Add", "a", {"x", "w"}, {"y"});
  EXPECT_REFUSED(init.model(), "tensor 'w' is produced twice, by an initializer and by node Relu 'r'");
}

TEST(OnnxHostile, NodeListingOneOutputTwiceIsRefused) {
  ModelBuilder b;
  b.input("x", {2, 4}).output("a", {1, 4});
  ModelBuilder::i(b.node("Split", "s", {"x"}, {"a", "a"}), "axis", 0);
  EXPECT_REFUSED(b.model(), "tensor 'a' is produced twice, by node Split 's' and by node Split 's'");
}

TEST(OnnxHostile, InitializerSharingAGraphInputNameIsStillTaken) {
  // IR < 4 lists every initializer as a graph input too: not two producers.
  ModelBuilder b;
  b.input("x", {1, 4}).input("w", {1, 4}).output("y", {1, 4});
  b.initializer("w", {1, 4}, {1, 2, 3, 4});
  b.node("Add", "a", {"x", "w"}, {"y"});
  EXPECT_EQ(refusal(b.model()), "");
}

// ---- 3: declared sizes checked before allocating ----

TEST(OnnxHostile, InitializerDimsBeyondItsBytesAreRefusedBeforeAllocating) {
  ModelBuilder b;
  b.input("x", {4, 1}).output("y", {4, 1});
  b.node("Relu", "r", {"x"}, {"y"});
  auto* t = const_cast<onnx::ModelProto&>(b.model()).mutable_graph()->add_initializer();
  t->set_name("w");
  t->set_data_type(1);
  t->add_dims(4);
  t->add_dims(1000000000000);
  t->set_raw_data(std::string(48, '\0'));
  EXPECT_REFUSED(b.model(), "tensor 'w': shape 4x1000000000000 has 4000000000000 elements, more than the 2^31");
  // Within the element limit but without its 6.4 GB of values: refused by
  // the count of values present, not allocated first.
  t->clear_dims();
  t->add_dims(40000);
  t->add_dims(40000);
  t->clear_raw_data();
  EXPECT_REFUSED(b.model(), "tensor 'w': has 0 values for 1600000000 elements");
  t->set_raw_data(std::string(48, '\0'));
  EXPECT_REFUSED(b.model(), "tensor 'w': raw_data has 48 bytes, expected 6400000000 (shape 40000x40000 of FLOAT)");
}

TEST(OnnxHostile, ConstantOfShapeBeyondOneGibIsRefusedNotComputed) {
  ModelBuilder b;
  b.output("c", {40000, 40000});
  b.int64_initializer("shape", {2}, {40000, 40000});
  b.node("ConstantOfShape", "cos", {"shape"}, {"c"});
  EXPECT_REFUSED(b.model(), "ConstantOfShape 'cos': its constant result cannot be computed: shape 40000x40000 takes "
                            "6400000000 bytes");
}

TEST(OnnxHostile, ExpandBeyondTwoToThe31ElementsIsRefused) {
  ModelBuilder b;
  b.input("x", {1, 1}).output("y", {1000000, 1000000});
  b.int64_initializer("shape", {2}, {1000000, 1000000});
  b.node("Expand", "e", {"x", "shape"}, {"y"});
  EXPECT_REFUSED(b.model(), "tensor 'y': shape 1000000x1000000 has 1000000000000 elements");
}

TEST(OnnxHostile, DimsWhoseProductOverflowsAreNotReadAsZero) {
  ModelBuilder b;
  b.input("x", {int64_t{1} << 62, int64_t{1} << 62}).output("y", {int64_t{1} << 62, int64_t{1} << 62});
  b.node("Relu", "r", {"x"}, {"y"});
  EXPECT_REFUSED(b.model(), "has more than 2^63 elements, more than the 2^31 a QNN tensor holds");
}

// ---- 6: what ONNX forbids ----

TEST(OnnxHostile, OpsetsOutsideTheSupportedRangeAreRefused) {
  EXPECT_REFUSED(relu_model(999).model(), "model imports default-domain opset 999: supported opsets are 1 to ");
  EXPECT_REFUSED(relu_model(0).model(), "model imports default-domain opset 0: supported opsets are 1 to ");
  ModelBuilder ir = relu_model();
  const_cast<onnx::ModelProto&>(ir.model()).set_ir_version(999);
  EXPECT_REFUSED(ir.model(), "model ir_version 999 is newer than");
}

TEST(OnnxHostile, GraphWithoutOutputsIsRefused) {
  ModelBuilder b;
  b.input("x", {1, 4});
  b.node("Relu", "r", {"x"}, {"y"});
  EXPECT_REFUSED(b.model(), "graph 'test_graph' has no outputs");
}

TEST(OnnxHostile, AttributeOfTheWrongTypeIsRefused) {
  ModelBuilder b;
  b.input("x", {1, 4}).output("y", {1, 4});
  auto* a = b.node("Softmax", "s", {"x"}, {"y"}).add_attribute();
  a->set_name("axis");
  a->set_type(onnx::AttributeProto::STRING);
  a->set_s("1");
  EXPECT_REFUSED(b.model(), "Softmax 's': attribute 'axis' is STRING, ONNX Softmax-13 declares it INT");
}

TEST(OnnxHostile, SplitWithZeroOutputsIsRefused) {
  ModelBuilder b;
  b.input("x", {2, 4}).output("a", {2, 4});
  ModelBuilder::i(b.node("Split", "s", {"x"}, {"a"}), "num_outputs", 0);
  EXPECT_REFUSED(b.model(), "Split 's': attribute 'num_outputs' is 0, must be >= 1");
}

TEST(OnnxHostile, ReshapeWithTwoMinusOnesIsRefused) {
  ModelBuilder b;
  b.input("x", {2, 4}).output("y", {8});
  b.int64_initializer("shape", {2}, {-1, -1});
  b.node("Reshape", "r", {"x", "shape"}, {"y"});
  EXPECT_REFUSED(b.model(), "Reshape 'r': shape -1x-1 has more than one -1");
}

TEST(OnnxHostile, UnsqueezeAxisBeyondTheOutputRankIsRefused) {
  ModelBuilder b;
  b.input("x", {2, 4}).output("y", {2, 4, 1});
  b.int64_initializer("axes", {1}, {9});
  b.node("Unsqueeze", "u", {"x", "axes"}, {"y"});
  EXPECT_REFUSED(b.model(), "Unsqueeze 'u': axis is 9, outside [-3, 2] for output rank 3");
}

// ---- 7: the messages say what is wrong, with the values as written ----

TEST(OnnxHostile, NegativeAxisIsReportedAsWritten) {
  ModelBuilder b;
  b.input("x", {1, 4}).output("y", {2, 4});
  ModelBuilder::i(b.node("Concat", "c", {"x", "x"}, {"y"}), "axis", -7);
  EXPECT_REFUSED(b.model(), "Concat 'c': attribute 'axis' is -7, outside [-2, 1] for rank 2");
  ModelBuilder r;
  r.input("x", {1, 4}).output("y", {1, 1});
  ModelBuilder::ints(r.node("ReduceMean", "m", {"x"}, {"y"}), "axes", {-8});
  EXPECT_REFUSED(r.model(), "ReduceMean 'm': axis is -8, outside [-2, 1] for rank 2");
}

TEST(OnnxHostile, GatherIndexIsReportedAsWritten) {
  ModelBuilder b;
  b.input("x", {2, 4}).output("y", {2, 1});
  b.int64_initializer("i", {1}, {-100});
  ModelBuilder::i(b.node("Gather", "g", {"x", "i"}, {"y"}), "axis", 1);
  EXPECT_REFUSED(b.model(), "Gather 'g': index is -100, outside [-4, 3] for axis 1 of size 4");
}

TEST(OnnxHostile, CycleIsReportedAsACycle) {
  ModelBuilder b;
  b.input("x", {1, 4}).output("b", {1, 4});
  b.node("Add", "a", {"x", "b"}, {"a"});
  b.node("Relu", "b", {"a"}, {"b"});
  EXPECT_REFUSED(b.model(), "graph 'test_graph' has a cycle through node ");
}

TEST(OnnxHostile, InputNothingProducesIsNamed) {
  ModelBuilder b;
  b.input("x", {1, 4}).output("y", {1, 4});
  b.node("Add", "a", {"x", "ghost"}, {"y"});
  EXPECT_REFUSED(b.model(), "Add 'a': input 'ghost' is not produced by anything");
}

TEST(OnnxHostile, EveryRefusalIsOneLine) {
  ModelBuilder b;
  b.input("x", {1, 4}).input("x", {1, 4}).output("y", {1, 4});
  b.node("Add", "a", {"x", "x"}, {"y"});
  const std::string why = refusal(b.model());
  EXPECT_FALSE(why.empty());
  EXPECT_EQ(why.find('\n'), std::string::npos) << why;
}

}  // namespace
