// qnn-onnx-converter --quantization_overrides: the encodings file parsed into
// typed overrides, and every malformed or unsupported form refused with a
// message that names what is wrong.
#include <gtest/gtest.h>

#include <string>

#include "quantization_overrides.h"

namespace {

using openhtp::onnx_converter::parse_quantization_overrides;
using Overrides = std::map<std::string, openhtp::onnx_import::ActivationOverride>;

TEST(QuantizationOverrides, BitWidthAloneKeepsTheCalibratedRange) {
  Overrides o;
  std::string error;
  ASSERT_TRUE(parse_quantization_overrides(
      R"({"version": "0.6.1", "activation_encodings": {"/layers.0/Add_output_0": [{"bitwidth": 16, "dtype": "int"}]},
          "param_encodings": {}})",
      "f.json", &o, &error))
      << error;
  ASSERT_EQ(o.size(), 1u);
  const auto& a = o.at("/layers.0/Add_output_0");
  EXPECT_EQ(a.bitwidth, 16);
  EXPECT_FALSE(a.has_range);
}

TEST(QuantizationOverrides, RangeAsMinMaxOrAsScaleAndOffset) {
  Overrides o;
  std::string error;
  ASSERT_TRUE(parse_quantization_overrides(
      R"({"activation_encodings": {
            "a": [{"bitwidth": 8, "min": -1.5, "max": 2.5, "is_symmetric": "False"}],
            "b": [{"bitwidth": 8, "scale": 0.5, "offset": -128, "is_symmetric": false}]}})",
      "f.json", &o, &error))
      << error;
  EXPECT_TRUE(o.at("a").has_range);
  EXPECT_FLOAT_EQ(o.at("a").min, -1.5f);
  EXPECT_FLOAT_EQ(o.at("a").max, 2.5f);
  // real = (q + offset) * scale, q in [0, 255]: [-128 * 0.5, 127 * 0.5].
  EXPECT_TRUE(o.at("b").has_range);
  EXPECT_FLOAT_EQ(o.at("b").min, -64.0f);
  EXPECT_FLOAT_EQ(o.at("b").max, 63.5f);
}

TEST(QuantizationOverrides, WhatCannotBeHonouredIsRefused) {
  struct Case {
    const char* json;
    const char* message;
  };
  const Case cases[] = {
      {"[1, 2]", "not a JSON object"},
      {"{\"activation_encodings\": {\"a\": [{\"bitwidth\": 8}]", "not a JSON object"},  // truncated
      {R"({"activation_encodings": {"a": [{"dtype": "int"}]}})", "'bitwidth' (an integer) is required"},
      {R"({"activation_encodings": {"a": [{"bitwidth": 4}]}})", "bitwidth 4"},
      {R"({"activation_encodings": {"a": [{"bitwidth": 16, "dtype": "float"}]}})", "dtype \"float\""},
      {R"({"activation_encodings": {"a": [{"bitwidth": 8, "is_symmetric": "True"}]}})", "asymmetric"},
      {R"({"activation_encodings": {"a": [{"bitwidth": 8}, {"bitwidth": 8}]}})", "list of one encoding"},
      {R"({"activation_encodings": {"a": [{"bitwidth": 8, "min": -1}]}})", "both 'min' and 'max'"},
      {R"({"activation_encodings": {"a": [{"bitwidth": 8, "min": 2, "max": 1}]}})", "min <= max"},
      {R"({"activation_encodings": {"a": [{"bitwidth": 8, "scale": 0, "offset": 0}]}})", "scale must be positive"},
      {R"({"activation_encodings": {"a": [{"bitwidth": 8, "max": "1", "min": 0}]}})", "'max' is not a number"},
      {R"({"activation_encodings": {"a": [{"bitwidth": 8, "zero": 1}]}})", "unknown field 'zero'"},
      {R"({"param_encodings": {"w": [{"bitwidth": 8}]}})", "param_encodings (1 entries) are not supported"},
      {R"({"activation_encoding": {}})", "unknown section 'activation_encoding'"},
  };
  for (const Case& c : cases) {
    Overrides o;
    std::string error;
    EXPECT_FALSE(parse_quantization_overrides(c.json, "f.json", &o, &error)) << c.json;
    EXPECT_NE(error.find(c.message), std::string::npos) << c.json << " -> " << error;
    EXPECT_NE(error.find("f.json"), std::string::npos) << error;
  }
}

TEST(QuantizationOverrides, AMissingFileIsNamed) {
  Overrides o;
  std::string error;
  EXPECT_FALSE(openhtp::onnx_converter::read_quantization_overrides("/nonexistent/overrides.json", &o, &error));
  EXPECT_NE(error.find("/nonexistent/overrides.json"), std::string::npos) << error;
}

}  // namespace
